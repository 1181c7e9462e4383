"""mkdocs hook: draw each figure a page asks for, inline, from code the build runs.

A page asks for a figure with an HTML comment on a line of its own:

    <!-- figure: tokens_error -->

The hook imports `docs/figures/tokens_error.py`, calls its `draw()` (which
returns the text of one SVG picture) twice, once in each layout of
`docs/figures/_svg.py` (`WIDE`, 720 units, and `NARROW`, 360 units with its
keys below the plot), and puts both pictures in the page in place of the
comment, inside a `<figure>` whose caption is the figure's `<title>` and a link
to the code that drew it (mkdocs copies `docs/figures/*.py` to the site as
plain files). The stylesheet shows the one that fits the column (a container
query in `docs/stylesheets/extra.css`), so the text reads at 11 px or more at
1280 px and on a phone. An inline SVG takes the page's text colour, so one
picture reads in light and dark mode.

On a notebook page (mkdocs-jupyter), each plot's `<img>` takes its alt text
from the PNG's own `Description` (the notebooks save it with
`metadata={"Description": ...}`): nbconvert would otherwise write "No
description has been provided for this image" on every plot. A plot saved as
SVG (the notebooks' plots are) goes into the page as it is, in place of the
`<img>` nbconvert makes of it: its text is the page's text, sized and measured
like any other, and its own `aria-label` describes it.

The tests import this module too (`tests/test_figures.py`): every figure draws
the same bytes twice, every marker names a figure that exists, and every
figure is used on a page. A marker naming no figure fails the build.
"""

from __future__ import annotations

import base64
import binascii
import html
import importlib
import posixpath
import re
import struct
import sys
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any

from mkdocs.exceptions import PluginError

#: `<!-- figure: NAME -->` alone on a line; NAME is a module of docs/figures/.
MARKER = re.compile(r"^<!-- figure: ([a-z][a-z0-9_]*) -->[ \t]*$", re.MULTILINE)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.DOTALL)
FIGURES_URI = "figures"


def figures_dir(docs_dir: str | Path) -> Path:
    """The folder of figure modules: `<docs_dir>/figures`."""
    return Path(docs_dir) / FIGURES_URI


def load_figure(name: str, folder: Path) -> ModuleType:
    """Import `folder/NAME.py` afresh as the module NAME, with `folder` on `sys.path`
    for its helpers (`_svg`); a module NAME from anywhere else is an error."""
    path = folder / f"{name}.py"
    if not path.is_file():
        raise FileNotFoundError(f"no figure {name!r}: {path} does not exist")
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    if _from(sys.modules.get(name), folder):
        del sys.modules[name]  # afresh: each draw runs the figure's code again
    module = importlib.import_module(name)
    if not _from(module, folder):
        raise ImportError(f"figure {name!r}: the module {name} comes from {module.__file__}")
    return module


def _from(module: ModuleType | None, folder: Path) -> bool:
    """True when `module` was loaded from a file directly in `folder`."""
    where = getattr(module, "__file__", None)
    return where is not None and Path(where).resolve().parent == folder.resolve()


def _checked(name: str, svg: object) -> str:
    if not isinstance(svg, str) or not svg.lstrip().startswith("<svg") or not _TITLE.search(svg):
        raise ValueError(f"figure {name!r}: draw() must return an <svg> with a <title>")
    return svg


def draw(name: str, folder: Path, *, narrow: bool = False) -> str:
    """The SVG text of figure NAME, checked to be one `<svg>` with a `<title>`.

    `narrow=True` draws it in `_svg.NARROW`, the phone layout; else in `_svg.WIDE`.
    """
    module = load_figure(name, folder)
    svg = sys.modules.get("_svg")
    if svg is None:  # a figure that draws without the helpers has one layout
        return _checked(name, module.draw())
    with svg.layout(svg.NARROW if narrow else svg.WIDE):
        return _checked(name, module.draw())


def figure_html(name: str, svg: str, page_url: str, narrow: str | None = None) -> str:
    """The `<figure>` that replaces a marker on the page at `page_url`.

    `svg` is the wide picture; `narrow`, when given, the phone layout shown instead
    where the column is narrow.
    """
    match = _TITLE.search(svg)
    caption = match.group(1).strip() if match else name
    here = posixpath.dirname(page_url.rstrip("/")) if not page_url.endswith("/") else page_url
    source = posixpath.relpath(f"{FIGURES_URI}/{name}.py", here or ".")
    # subtle: no blank line inside, so Markdown keeps the block as raw HTML.
    pictures = [svg] if narrow is None else [svg, narrow]
    body = "\n".join(
        line for picture in pictures for line in picture.strip().splitlines() if line.strip()
    )
    return (
        f'<figure class="cb-figure" id="figure-{name.replace("_", "-")}">\n{body}\n'
        f"<figcaption>{caption} · "
        f'<a href="{source}" title="the code that drew this figure">code</a></figcaption>\n'
        "</figure>"
    )


_NOTEBOOK_IMG = re.compile(
    r'<img(?P<before>[^>]*?)src="data:image/png;base64,(?P<data>[A-Za-z0-9+/=\s]+)"'
    r"(?P<after>[^>]*)>"
)
_ALT = re.compile(r'\salt="[^"]*"')


def png_description(data: bytes) -> str | None:
    """The `Description` text a PNG carries (a `tEXt`, `zTXt` or `iTXt` chunk), if any."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    position = 8
    while position + 8 <= len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        position += 12 + length
        key, _, rest = body.partition(b"\0")
        if key != b"Description":
            continue
        try:
            if kind == b"tEXt":
                return rest.decode("latin-1")
            if kind == b"zTXt":
                return zlib.decompress(rest[1:]).decode("latin-1")
            if kind == b"iTXt":
                compressed, rest = rest[0], rest[2:]
                _, _, rest = rest.partition(b"\0")  # language tag
                _, _, text = rest.partition(b"\0")  # translated keyword
                return (zlib.decompress(text) if compressed else text).decode("utf-8")
        except (zlib.error, UnicodeDecodeError, IndexError):
            return None
    return None


def describe_plots(page_html: str) -> str:
    """Each inline PNG of `page_html` with its `Description` as its alt text."""

    def replace(match: re.Match[str]) -> str:
        try:
            data = base64.b64decode("".join(match.group("data").split()), validate=True)
        except (binascii.Error, ValueError):
            return match.group(0)
        text = png_description(data)
        if not text:
            return match.group(0)
        before = _ALT.sub("", match.group("before"))
        after = _ALT.sub("", match.group("after"))
        alt = html.escape(text, quote=True)
        return f'<img{before} alt="{alt}" src="data:image/png;base64,{match.group("data")}"{after}>'

    return _NOTEBOOK_IMG.sub(replace, page_html)


_NOTEBOOK_SVG = re.compile(
    r'<img[^>]*?src="data:image/svg\+xml;base64,(?P<data>[A-Za-z0-9+/=\s]+)"[^>]*>'
)
_PROLOG = re.compile(r"\A\s*(?:<\?xml[^>]*\?>\s*)?(?:<!DOCTYPE[^>]*>\s*)?", re.IGNORECASE)


def inline_svg_plots(page_html: str) -> str:
    """Each SVG plot nbconvert put in an `<img>` of `page_html`, as the SVG itself."""

    def replace(match: re.Match[str]) -> str:
        try:
            data = base64.b64decode("".join(match.group("data").split()), validate=True)
            svg = _PROLOG.sub("", data.decode("utf-8"))
        except (binascii.Error, ValueError):
            return match.group(0)
        return svg if svg.startswith("<svg") else match.group(0)

    return _NOTEBOOK_SVG.sub(replace, page_html)


def on_page_content(html_text: str, page: Any, config: Any, files: Any) -> str:
    """On a notebook page, give each plot its own alt text, and put SVG plots inline."""
    if page.file.src_uri.endswith(".md"):
        return html_text
    return inline_svg_plots(describe_plots(html_text))


_cache: dict[str, tuple[str, str]] = {}


def on_pre_build(config: Any) -> None:
    """Forget the figures of the previous build (`mkdocs serve` rebuilds in one process)."""
    _cache.clear()
    folder = figures_dir(config["docs_dir"])
    for name in [name for name, module in sys.modules.items() if _from(module, folder)]:
        del sys.modules[name]


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace each figure marker on the page with its drawn figure."""
    folder = figures_dir(config["docs_dir"])

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        try:
            if name not in _cache:
                _cache[name] = (draw(name, folder), draw(name, folder, narrow=True))
        except Exception as error:
            raise PluginError(f"{page.file.src_uri}: figure {name!r}: {error}") from error
        wide, narrow = _cache[name]
        return figure_html(name, wide, page.url, narrow)

    return MARKER.sub(replace, markdown)
