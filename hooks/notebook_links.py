"""mkdocs hook: a notebook page's links to other pages of the course land on those pages.

The code is ``docsite/notebook_links.py``; this file only hands its events to mkdocs.
"""

import sys
from pathlib import Path

# mkdocs loads a hook by its path, with only its own folder importable: the
# repository's root, where the ``docsite`` package is, goes on ``sys.path``.
if (ROOT := str(Path(__file__).resolve().parents[1])) not in sys.path:
    sys.path.insert(0, ROOT)

from docsite.notebook_links import on_page_content

__all__ = [
    "on_page_content",
]
