"""mkdocs hook: let the reader run a page's Python blocks in the browser, offline.

The code is ``docsite/browser_run.py``; this file only hands its events to mkdocs.
"""

import sys
from pathlib import Path

# mkdocs loads a hook by its path, with only its own folder importable: the
# repository's root, where the ``docsite`` package is, goes on ``sys.path``.
if (ROOT := str(Path(__file__).resolve().parents[1])) not in sys.path:
    sys.path.insert(0, ROOT)

from docsite.browser_run import on_files, on_page_content, on_post_build, on_pre_build

__all__ = [
    "on_files",
    "on_page_content",
    "on_post_build",
    "on_pre_build",
]
