"""The site's figures: drawn by code, the same bytes every time, each one used.

A figure is a module of `docs/figures/` whose `draw()` returns an SVG; a page
asks for it with `<!-- figure: NAME -->` and `hooks/figures.py` draws it inline
at build time. These tests run the same code the build runs.
"""

from __future__ import annotations

import importlib.util
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FIGURES = DOCS / "figures"


def _load_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("figures_hook", ROOT / "hooks/figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["figures_hook"] = module
    spec.loader.exec_module(module)
    return module


hook = _load_hook()
NAMES = sorted(p.stem for p in FIGURES.glob("*.py") if not p.stem.startswith("_"))
PAGES = sorted(DOCS.rglob("*.md"))
SVG = "{http://www.w3.org/2000/svg}"


def _markers() -> dict[str, list[str]]:
    """figure name -> the pages that ask for it."""
    used: dict[str, list[str]] = {}
    for page in PAGES:
        for match in hook.MARKER.finditer(page.read_text(encoding="utf-8")):
            used.setdefault(match.group(1), []).append(str(page.relative_to(DOCS)))
    return used


def test_there_are_figures() -> None:
    assert NAMES, f"no figure modules in {FIGURES}"


@pytest.mark.parametrize("name", NAMES)
def test_figure_draws_the_same_bytes_twice(name: str) -> None:
    assert hook.draw(name, FIGURES) == hook.draw(name, FIGURES)


@pytest.mark.parametrize("name", NAMES)
def test_figure_is_one_svg_with_alt_text(name: str) -> None:
    root = ET.fromstring(hook.draw(name, FIGURES))
    assert root.tag == f"{SVG}svg"
    assert root.get("role") == "img"
    title = root.find(f"{SVG}title")
    desc = root.find(f"{SVG}desc")
    assert title is not None and len((title.text or "").split()) >= 4
    assert desc is not None and (desc.text or "").strip()


@pytest.mark.parametrize("name", NAMES)
def test_figure_has_no_blank_line_and_follows_the_theme(name: str) -> None:
    svg = hook.draw(name, FIGURES)
    # Text and axes take the page's colour, so the figure reads in dark mode.
    assert 'fill="currentColor"' in svg.splitlines()[0]
    assert "#000" not in svg and "#fff" not in svg.lower()


def test_every_marker_names_a_figure_and_every_figure_is_used() -> None:
    used = _markers()
    unknown = {name: pages for name, pages in used.items() if name not in NAMES}
    unused = [name for name in NAMES if name not in used]
    assert unknown == {}
    assert unused == []


def test_a_marker_for_a_missing_figure_fails_with_its_name(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no_such_figure"):
        hook.draw("no_such_figure", tmp_path)


def test_figure_html_links_the_code_relative_to_the_page() -> None:
    html = hook.figure_html("loop_growth", hook.draw("loop_growth", FIGURES), "budget/tokens/")
    assert 'href="../../figures/loop_growth.py"' in html
    assert "\n\n" not in html
