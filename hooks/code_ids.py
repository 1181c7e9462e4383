"""mkdocs hook: each highlighted block of a page numbers its lines' ids apart.

The code is ``docsite/code_ids.py``; this file only hands its events to mkdocs.
"""

import sys
from pathlib import Path

# mkdocs loads a hook by its path, with only its own folder importable: the
# repository's root, where the ``docsite`` package is, goes on ``sys.path``.
if (ROOT := str(Path(__file__).resolve().parents[1])) not in sys.path:
    sys.path.insert(0, ROOT)

from docsite.code_ids import on_post_page

__all__ = [
    "on_post_page",
]
