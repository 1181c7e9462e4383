"""mkdocs hook: draw each figure a page asks for, inline, from code the build runs.

The code is ``docsite/figures.py``; this file only hands its events to mkdocs.
"""

import sys
from pathlib import Path

# mkdocs loads a hook by its path, with only its own folder importable: the
# repository's root, where the ``docsite`` package is, goes on ``sys.path``.
if (ROOT := str(Path(__file__).resolve().parents[1])) not in sys.path:
    sys.path.insert(0, ROOT)

from docsite.figures import on_page_content, on_page_markdown, on_pre_build

__all__ = [
    "on_page_content",
    "on_page_markdown",
    "on_pre_build",
]
