"""mkdocs hook: a self-contained ``.ipynb`` download for every notebook lesson.

For each lesson ``docs/notebooks/X.py`` (a jupytext percent-format page rendered by
mkdocs-jupyter) the site gets a generated file ``notebooks/X.ipynb``: the lesson,
unexecuted, with the core package embedded in its first cell (see ``selfcontained.py``),
its links to other pages of the course made their addresses on the site
(``notebook_links.site_links``).
``overrides/main.html`` draws the download button on the lesson's page.

The generated file has no source path, so mkdocs-jupyter never turns it into a page
(its ``should_include`` skips files without ``abs_src_path``, and its ``include`` is
``notebooks/*.py``); mkdocs copies it to the site as a static file.

On each lesson's page the hook also names what the download needs beyond the standard
library and the package it carries (``page.meta["notebook_needs"]``, from the lesson's
``import`` statements: the lab's ``matplotlib``, for one); the button shows it.

The hook also keeps mkdocs-jupyter's cache honest: that cache is keyed on the notebook's
text only, so a change to the package would leave stale outputs on the pages. When the
package's digest differs from the one stamped in the cache folder, the cached pages are
dropped and the notebooks run again.
"""

from __future__ import annotations

import ast
import logging
import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

from docsite.notebook_links import site_links
from docsite.selfcontained import build_notebook, notebook_text, package_digest

log = logging.getLogger("mkdocs.hooks.notebook_download")

LESSONS_DIR = "notebooks/"
#: The file in mkdocs-jupyter's cache folder that names the package its pages ran against.
STAMP_NAME = "package-digest.txt"


def package_dir(config: MkDocsConfig) -> Path:
    """The core package folder: ``<folder of mkdocs.yml>/src/context_budget``."""
    return Path(config.config_file_path).parent / "src" / "context_budget"


def is_lesson(src_uri: str) -> bool:
    """True for ``notebooks/X.py`` (directly in the folder), the pages mkdocs-jupyter renders."""
    name = src_uri.removeprefix(LESSONS_DIR)
    return src_uri.startswith(LESSONS_DIR) and name.endswith(".py") and "/" not in name


def on_pre_build(config: MkDocsConfig) -> None:
    """Drop mkdocs-jupyter's cached pages when the package changed since they were cached."""
    plugin = config.plugins.get("mkdocs-jupyter")
    if plugin is None or not plugin.config.get("cache", False):
        return
    cache_dir = Path(plugin.config["cache_dir"])  # the plugin reads it relative to the cwd
    stamp = cache_dir / STAMP_NAME
    digest = package_digest(package_dir(config))
    if stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == digest:
        return
    dropped = 0
    for cached in cache_dir.glob("*.json"):
        cached.unlink()
        dropped += 1
    if dropped:
        log.info("package changed: dropped %d cached notebook page(s)", dropped)
    cache_dir.mkdir(parents=True, exist_ok=True)
    stamp.write_text(digest + "\n", encoding="utf-8")


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated ``notebooks/X.ipynb`` beside every lesson ``notebooks/X.py``."""
    package = package_dir(config)
    for lesson in list(files):
        if not (is_lesson(lesson.src_uri) and lesson.abs_src_path):
            continue
        src_uri = lesson.src_uri.removesuffix(".py") + ".ipynb"
        if files.get_file_from_path(src_uri) is not None:
            raise PluginError(f"docs/{src_uri} exists: it would hide the generated download")
        nb = build_notebook(Path(lesson.abs_src_path), package)
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source = site_links(cell.source, lesson.src_uri, files, config.site_url or "/")
        files.append(File.generated(config, src_uri, content=notebook_text(nb)))
    return files


def third_party_imports(source: str, package: str = "context_budget") -> list[str]:
    """Top-level modules a lesson imports that are neither stdlib nor ``package``, sorted.

    Example: a lesson with ``import matplotlib.pyplot as plt`` and ``import json``
    gives ``["matplotlib"]``. Imports inside ``try:`` blocks count too: the lesson
    still needs them for its full output.
    """
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return sorted(names - set(sys.stdlib_module_names) - {package, "__future__"})


def on_page_context(
    context: dict[str, Any], page: Page, config: MkDocsConfig, nav: Navigation
) -> dict[str, Any]:
    """On a lesson's page, set ``page.meta["notebook_needs"]`` for the download button."""
    if is_lesson(page.file.src_uri) and page.file.abs_src_path:
        source = Path(page.file.abs_src_path).read_text(encoding="utf-8")
        page.meta["notebook_needs"] = third_party_imports(source)
    return context
