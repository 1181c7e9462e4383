"""mkdocs hook: a self-contained ``.ipynb`` download for every notebook lesson.

The code is ``docsite/notebook_download.py``; this file only hands its events to mkdocs.
"""

import sys
from pathlib import Path

# mkdocs loads a hook by its path, with only its own folder importable: the
# repository's root, where the ``docsite`` package is, goes on ``sys.path``.
if (ROOT := str(Path(__file__).resolve().parents[1])) not in sys.path:
    sys.path.insert(0, ROOT)

from docsite.notebook_download import on_files, on_page_context, on_pre_build

__all__ = [
    "on_files",
    "on_page_context",
    "on_pre_build",
]
