"""The site's figures: drawn by code, the same bytes every time, each one used.

A figure is a module of `docs/figures/` whose `draw()` returns an SVG; a page
asks for it with `<!-- figure: NAME -->` and `docsite/figures.py` draws it inline
at build time. These tests run the same code the build runs.
"""

from __future__ import annotations

import base64
import functools
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path
from types import ModuleType

import pytest

from docsite import figures as hook

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FIGURES = DOCS / "figures"
NAMES = sorted(p.stem for p in FIGURES.glob("*.py") if not p.stem.startswith("_"))
PAGES = sorted(DOCS.rglob("*.md"))
SVG = "{http://www.w3.org/2000/svg}"


def drawn(name: str, narrow: bool = False) -> str:
    """Figure `name` as the build draws it, drawn once for all the checks that read it
    (the same-bytes test draws it again, and the hook's own tests call the hook):
    `drawn(name)` and `drawn(name, False)` are the one drawing."""
    return _drawn(name, bool(narrow))


@functools.cache
def _drawn(name: str, narrow: bool) -> str:
    return hook.draw(name, FIGURES, narrow=narrow)


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
    assert hook.draw(name, FIGURES) == drawn(name)


@pytest.mark.parametrize("name", NAMES)
def test_figure_is_one_svg_with_alt_text(name: str) -> None:
    root = ET.fromstring(drawn(name))
    assert root.tag == f"{SVG}svg"
    assert root.get("role") == "img"
    title = root.find(f"{SVG}title")
    desc = root.find(f"{SVG}desc")
    assert title is not None and len((title.text or "").split()) >= 4
    assert desc is not None and (desc.text or "").strip()


@pytest.mark.parametrize("name", NAMES)
def test_figure_has_no_blank_line_and_follows_the_theme(name: str) -> None:
    svg = drawn(name)
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


def test_a_figure_is_drawn_afresh_and_forgotten_before_a_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each draw runs the figure's code again; a new build forgets the figure modules."""
    folder = tmp_path / "figures"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    (folder / "counted.py").write_text(
        "from pathlib import Path\n"
        "with (Path(__file__).parent / 'runs.txt').open('a') as runs:\n"
        "    runs.write('run\\n')\n"
        "def draw():\n"
        "    return '<svg><title>counted</title></svg>'\n",
        encoding="utf-8",
    )
    try:
        hook.draw("counted", folder)
        hook.draw("counted", folder, narrow=True)
        assert (folder / "runs.txt").read_text(encoding="utf-8") == "run\nrun\n"
        assert sys.modules["counted"].__file__ == str(folder / "counted.py")
        hook.on_pre_build({"docs_dir": str(tmp_path)})
        assert "counted" not in sys.modules
    finally:
        sys.modules.pop("counted", None)


def test_the_build_forgets_the_site_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    hook.draw("loop_growth", FIGURES)
    assert sys.modules["loop_growth"].__file__ == str(FIGURES / "loop_growth.py")
    # Put back afterwards what the build forgets: the break-even replays, kept in
    # `_breakeven`, are worked out once for every check in this process.
    for name, module in list(sys.modules.items()):
        if hook._from(module, FIGURES):
            monkeypatch.setitem(sys.modules, name, module)
    hook.on_pre_build({"docs_dir": str(DOCS)})
    assert "loop_growth" not in sys.modules and "_svg" not in sys.modules


def test_a_figure_named_like_a_module_from_elsewhere_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "json.py").write_text("def draw():\n    return '<svg/>'\n", encoding="utf-8")
    with pytest.raises(ImportError, match="figure 'json': the module json comes from"):
        hook.load_figure("json", tmp_path)
    assert sys.modules["json"].__file__ != str(tmp_path / "json.py")


def test_figure_html_links_the_code_relative_to_the_page() -> None:
    html = hook.figure_html("loop_growth", hook.draw("loop_growth", FIGURES), "budget/tokens/")
    assert 'href="../../figures/loop_growth.py"' in html
    assert "\n\n" not in html


# --- Contrast, layouts, ids and overlapping series -------------------------------------

#: The page backgrounds a figure sits on: Material's light page and its slate scheme.
LIGHT_BACKGROUND = "#ffffff"
DARK_BACKGROUND = "#1e2129"
NOTEBOOKS = DOCS / "notebooks"
_HEX = re.compile(r'"(#[0-9a-fA-F]{6})"')
_INK = re.compile(r'^\s*INK = "(#[0-9a-fA-F]{6})"', re.MULTILINE)


def _luminance(colour: str) -> float:
    """WCAG 2 relative luminance of an sRGB `#rrggbb` colour."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    """WCAG 2 contrast ratio of two `#rrggbb` colours, from 1 to 21."""
    high, low = sorted((_luminance(first), _luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_is_computed_as_wcag_defines_it() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    # the colours the figures used to draw with, which a reader could barely see
    assert contrast("#f9a825", LIGHT_BACKGROUND) == pytest.approx(1.97, abs=0.01)
    assert contrast("#8a8a8a", LIGHT_BACKGROUND) == pytest.approx(3.45, abs=0.01)


def test_series_colours_reach_3_to_1_on_both_backgrounds() -> None:
    svg = _load_svg_module()
    weak = {
        (colour, background): round(contrast(colour, background), 2)
        for colour in svg.PALETTE
        for background in (LIGHT_BACKGROUND, DARK_BACKGROUND)
        if contrast(colour, background) < 3
    }
    assert weak == {}


@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS.glob("*.py")), ids=lambda p: p.stem)
def test_notebook_plots_reach_4_5_for_text_and_3_for_lines(notebook: Path) -> None:
    """A plotting notebook's ink (its text) is 4.5:1 on the light page and every colour
    it draws with 3:1 (the dark scheme shows the plot inverted, which keeps the ratios)."""
    source = notebook.read_text(encoding="utf-8")
    if "matplotlib" not in source:
        pytest.skip("draws no plot")
    inks = _INK.findall(source)
    assert inks, f"{notebook.name}: no INK colour for the plot's text"
    assert [ink for ink in inks if contrast(ink, LIGHT_BACKGROUND) < 4.5] == []
    weak = [c for c in _HEX.findall(source) if contrast(c, LIGHT_BACKGROUND) < 3]
    assert weak == [], f"{notebook.name}: colours under 3:1 on white"
    assert "tab:" not in source, f"{notebook.name}: a matplotlib default colour (tab:...)"


#: The content column at 390 px, where a plot's PNG is shrunk to fit, in CSS pixels.
PHONE_COLUMN = 358
#: matplotlib's default resolution, in pixels an inch, when `savefig` is given none.
DPI = 100
_FIGSIZE = re.compile(r"figsize=\(\s*([\d.]+)\s*,")
_DPI = re.compile(r"\bdpi=(\d+)")
_SIZES = re.compile(r"""(?:"font\.size"|fontsize)["']?\s*[:=]\s*([\d.]+)""")


def smallest_text_at_390(source: str) -> float | None:
    """The smallest text a notebook's plots show on a 390 px phone, in CSS pixels, from
    the widest `figsize`, the `dpi` it is saved at and the smallest font size the source
    sets (points), the PNG shrunk to the column; None when it draws no plot."""
    widths = [float(w) for w in _FIGSIZE.findall(source)]
    sizes = [float(s) for s in _SIZES.findall(source)]
    if not widths or not sizes:
        return None
    dpi = min((int(d) for d in _DPI.findall(source)), default=DPI)
    pixels_wide = max(widths) * dpi
    return min(sizes) * dpi / 72 * min(1.0, PHONE_COLUMN / pixels_wide)


def test_the_plot_text_check_fails_on_the_old_plots() -> None:
    """The experiment's plot was 7.5 inches wide with a 12-point key: 8 px on a phone."""
    old = 'plt.subplots(2, 1, figsize=(7.5, 11))\n"font.size": 14,\nfontsize=12,\n'
    assert round(smallest_text_at_390(old) or 0, 1) == 8.0


@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS.glob("*.py")), ids=lambda p: p.stem)
def test_notebook_plots_keep_11_px_text_at_390(notebook: Path) -> None:
    smallest = smallest_text_at_390(notebook.read_text(encoding="utf-8"))
    if smallest is None:
        pytest.skip("draws no plot")
    assert smallest >= MIN_PLOT_PX, f"{notebook.name}: text at {smallest:.1f} px at 390 px"


#: The smallest text a plot may show, in CSS pixels, as for the figures.
MIN_PLOT_PX = 11.0


def test_figure_text_takes_the_page_colour() -> None:
    """No text of a figure sets its own colour: it is the page's text (4.5:1 or more)."""
    for name in NAMES:
        for narrow in (False, True):
            root = ET.fromstring(drawn(name, narrow))
            coloured = [
                text.get("fill")
                for text in root.iter(f"{SVG}text")
                if text.get("fill") not in (None, "currentColor")
            ]
            assert coloured == [], name


def _load_svg_module() -> ModuleType:
    if str(FIGURES) not in sys.path:
        sys.path.insert(0, str(FIGURES))
    import _svg

    return _svg


def _all_drawn() -> list[tuple[str, str]]:
    return [
        (f"{name} ({'narrow' if narrow else 'wide'})", drawn(name, narrow))
        for name in NAMES
        for narrow in (False, True)
    ]


def test_every_figure_comes_in_both_layouts_with_ids_of_its_own() -> None:
    """The wide picture is 700 units or more across, the narrow one 360; no id is used by
    two pictures, and each picture's aria-labelledby names its own title and desc."""
    seen: dict[str, str] = {}
    for label, text in _all_drawn():
        root = ET.fromstring(text)
        width = float(root.get("viewBox", "0 0 0 0").split()[2])
        assert (width == 360) if "narrow" in label else (width >= 700), (label, width)
        ids = [el.get("id") for el in root.iter() if el.get("id")]
        for ident in ids:
            assert ident not in seen, f"{label} and {seen.get(ident)} both use id {ident!r}"
            seen[str(ident)] = label
        title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
        assert title is not None and desc is not None
        assert (root.get("aria-labelledby") or "").split() == [title.get("id"), desc.get("id")]


def _points(d: str) -> list[tuple[float, float]]:
    """The points of an SVG path of M/L/H/V commands, in order, in picture units."""
    tokens = re.findall(r"[MLHV]|-?[\d.]+", d)
    out: list[tuple[float, float]] = []
    x = y = 0.0
    command = "M"
    index = 0
    while index < len(tokens):
        if tokens[index] in "MLHV":
            command = tokens[index]
            index += 1
        if command == "H":
            x = float(tokens[index])
            index += 1
        elif command == "V":
            y = float(tokens[index])
            index += 1
        else:
            x, y = float(tokens[index]), float(tokens[index + 1])
            index += 2
        out.append((x, y))
    return out


#: Closer than this, in picture units (about a CSS pixel), two lines cannot be told apart.
ONE_PIXEL = 1.0


def unremarked_overlaps(svg_text: str, tolerance: float = ONE_PIXEL) -> list[str]:
    """The series of a picture drawn entirely along other series without saying so.

    A series is a path with `fill="none"` and a colour of its own. When every
    point of its line lies within `tolerance` units of other series, the picture
    must say so: `data-overlaps` on the path, naming series of the picture, and
    a text of the picture naming them too. (Of two series that run along each
    other whole, the later one is the one that hides the other.)
    """
    svg = _load_svg_module()
    root = ET.fromstring(svg_text)
    paths = [
        path
        for path in root.iter(f"{SVG}path")
        if path.get("fill") == "none" and path.get("stroke") not in (None, "currentColor")
    ]
    labels = [path.get("data-series") or f"series {i + 1}" for i, path in enumerate(paths)]
    drawn = [(label, _points(path.get("d", ""))) for label, path in zip(labels, paths, strict=True)]
    # a label's lines are tspans broken at spaces: join them with one
    words = " ".join(" ".join(text.itertext()) for text in root.iter(f"{SVG}text"))
    problems = []
    for label, along in svg.overlaps(drawn, tolerance).items():
        path = paths[labels.index(label)]
        said = [name for name in (path.get("data-overlaps") or "").split(", ") if name]
        if not said or not all(name in labels and name in words for name in said[:2]):
            problems.append(f"{label} is drawn entirely along {', '.join(along)}, unremarked")
    return problems


def test_no_series_hides_under_others_unremarked() -> None:
    problems = [
        f"{label}: {line}" for label, text in _all_drawn() for line in unremarked_overlaps(text)
    ]
    assert problems == []


def test_the_overlap_check_fails_on_the_old_figures() -> None:
    """The figures as the site drew them before: `clear` on Trim deliberately ran under
    other lines, and two series of Unit B's figure were one path; nothing said so."""
    fixture = (ROOT / "tests" / "fixtures" / "browser" / "figure_defects.html").read_text("utf-8")
    svgs = re.findall(r"<svg\b.*?</svg>", fixture, re.DOTALL)
    assert [unremarked_overlaps(svg) for svg in svgs] == [
        ["series 2 is drawn entirely along series 5, series 4, unremarked"],
        ["series 4 is drawn entirely along series 3, unremarked"],
    ]


def test_the_overlap_check_catches_lines_closer_than_a_pixel() -> None:
    """Trim deliberately's figure as it stood: `subagents` ran 0.6 units from `naive`
    in the phone layout (1.2 in the wide one), under thicker lines, and said nothing.
    Compared to a tenth of a unit, as the check once did, nothing was found."""
    fixture = (ROOT / "tests" / "fixtures" / "browser" / "figure_near_lines.html").read_text()
    wide, narrow = re.findall(r"<svg\b.*?</svg>", fixture, re.DOTALL)
    assert unremarked_overlaps(narrow, tolerance=0.1) == []
    assert unremarked_overlaps(narrow) == ["subagents is drawn entirely along naive, unremarked"]
    assert unremarked_overlaps(wide, tolerance=2.0) == [
        "subagents is drawn entirely along naive, unremarked"
    ]
    for layout in (False, True):
        paths = ET.fromstring(drawn("experiment_context", layout)).iter(f"{SVG}path")
        hidden = {p.get("data-overlaps") for p in paths if p.get("class") == "cb-series"}
        assert "naive" not in " ".join(filter(None, hidden)), hidden


def test_a_line_drawn_along_another_with_other_values_fails_the_figure() -> None:
    """Every line of a figure can be seen: a series drawn along another whose values
    differ (the lead of `subagents`, 887 and 1,299 tokens, along naive's 1,000 and 1,085
    under a 47,457 peak) fails the drawing, where the same data drawn twice is named."""
    svg = _load_svg_module()
    naive = [(1, 1_000), (2, 1_085), (3, 4_928), (4, 8_850), (5, 47_457)]
    lead = [(1, 887), (2, 1_299)]
    drawing = {
        "title": "Context per call",
        "desc": "A test picture.",
        "x_label": "call",
        "y_label": "tokens",
    }
    with pytest.raises(ValueError, match="subagents is drawn along naive, with other values"):
        svg.line_chart([("naive", naive), ("subagents", lead)], **drawing)
    svg.line_chart([("naive", naive), ("subagents", lead)], log_y=True, **drawing)
    svg.line_chart([("naive", naive), ("again", naive)], **drawing)


def test_the_overlap_notes_allow_twice_what_the_check_catches() -> None:
    svg = _load_svg_module()
    assert svg.ALONG >= 2 * ONE_PIXEL
    apart = [("low", [(0.0, 0.0), (50.0, 0.0)]), ("high", [(0.0, 1.5), (50.0, 1.5)])]
    assert svg.overlaps(apart) == {"high": ["low"]}
    assert svg.overlaps(apart, ONE_PIXEL) == {}


def test_line_chart_names_a_line_that_runs_along_another() -> None:
    svg = _load_svg_module()
    text = svg.line_chart(
        [("first", [(0, 1), (1, 2)]), ("same", [(0, 1), (1, 2)]), ("own", [(0, 2), (1, 0)])],
        title="Two lines that coincide and one that does not",
        desc="A test picture.",
        x_label="x",
        y_label="y",
    )
    root = ET.fromstring(text)
    series = [p for p in root.iter(f"{SVG}path") if p.get("class") == "cb-series"]
    assert [p.get("data-overlaps") for p in series] == [None, "first", None]
    assert "same (same line as first)" in " ".join(
        " ".join(t.itertext()) for t in root.iter(f"{SVG}text")
    )
    # each series has its own dash pattern and stroke: where lines coincide, both show
    assert (
        len({(p.get("stroke"), p.get("stroke-dasharray"), p.get("stroke-width")) for p in series})
        == 3
    )
    assert unremarked_overlaps(text) == []


# --- Axes: one number format each, whole numbers for counts ---------------------------

_NUMBER = re.compile(r"[-+]?[\d,.]+[kM%]?")
#: Words of an axis title that make its ticks counts: calls, steps, facts, rounds.
COUNTS = ("call", "step", "facts", "compactions", "round", "turn")


def axes(svg_text: str) -> list[tuple[str, list[str]]]:
    """The axes of a picture: `(title, tick labels)` for each run of two or more numeric
    labels sharing a right edge (a y axis) or a baseline (an x axis)."""
    root = ET.fromstring(svg_text)
    texts = [(el, " ".join("".join(el.itertext()).split())) for el in root.iter(f"{SVG}text")]
    groups: dict[tuple[str, str | None], list[str]] = {}
    for el, words in texts:
        if _NUMBER.fullmatch(words):
            where = ("y", el.get("x")) if el.get("text-anchor") == "end" else ("x", el.get("y"))
            groups.setdefault(where, []).append(words)
    found = []
    for (kind, where), labels in groups.items():
        if len(labels) < 2:
            continue
        if kind == "y":
            title = next((w for el, w in texts if "rotate(-90)" in (el.get("transform") or "")), "")
        else:
            below = float(where or 0) + 21
            title = next((w for el, w in texts if el.get("y") == f"{below:g}"), "")
        found.append((title, labels))
    return found


def mixed_formats(svg_text: str) -> list[str]:
    """Axes that write some ticks in thousands (`10k`) and others in full (`5,000`)."""
    return [
        f"{title or 'an axis'}: {', '.join(labels)}"
        for title, labels in axes(svg_text)
        if any(label[-1] in "kM" for label in labels)
        and any(
            label[-1].isdigit() and abs(float(label.replace(",", ""))) >= 1_000 for label in labels
        )
    ]


def fractional_counts(svg_text: str) -> list[str]:
    """Axes of counts (their title names calls, steps, facts...) with a tick between
    two whole numbers."""
    return [
        f"{title}: {', '.join(labels)}"
        for title, labels in axes(svg_text)
        if any(word in title for word in COUNTS) and any("." in label for label in labels)
    ]


def test_the_axis_checks_fail_on_the_old_figures() -> None:
    fixture = (ROOT / "tests" / "fixtures" / "browser" / "figure_labels.html").read_text("utf-8")
    svgs = re.findall(r"<svg\b.*?</svg>", fixture, re.DOTALL)
    mixed = [line for svg in svgs for line in mixed_formats(svg)]
    assert mixed == [
        "an axis: 0, 20k, 40k, 60k, 0, 5,000, 10k, 15k, 20k",  # the bill's two panels
        "an axis: 0, 20k, 40k, 60k, 0, 5,000, 10k, 15k, 20k",
        "tokens in the context: 0, 5,000, 10k, 15k",
        "tokens in the context: 0, 5,000, 10k, 15k",
    ]
    assert [line for svg in svgs for line in fractional_counts(svg)] == [
        "facts visible: 0, 2.5, 5, 7.5, 10, 12.5"
    ] * 2


def test_each_axis_has_one_number_format_and_counts_whole_ticks() -> None:
    problems = [
        f"{label}: {line}"
        for label, text in _all_drawn()
        for line in mixed_formats(text) + fractional_counts(text)
    ]
    assert problems == []


def test_tick_labels_share_one_format() -> None:
    svg = _load_svg_module()
    assert svg.tick_labels([0, 5_000, 10_000, 15_000]) == ["0", "5k", "10k", "15k"]
    assert svg.tick_labels([0, 2_000, 4_000]) == ["0", "2,000", "4,000"]
    assert svg.tick_labels([0, 500_000, 1_000_000]) == ["0", "0.5M", "1M"]
    assert svg.tick_labels([0, 0.5, 1]) == ["0", "0.5", "1"]


def test_counts_get_whole_ticks() -> None:
    svg = _load_svg_module()
    assert svg._nice_ticks(0, 12, 5, integer=True) == [0, 5, 10, 15]
    assert svg._nice_ticks(1, 4, 5, integer=True) == [1, 2, 3, 4]
    assert svg._nice_ticks(0, 0.3, 5, integer=True) == [0, 1]
    assert svg._nice_ticks(0, 12, 5) == [0, 2.5, 5, 7.5, 10, 12.5]


def _png(*chunks: tuple[bytes, bytes]) -> bytes:
    """A PNG of one transparent pixel with the given extra chunks before its data."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    pixels = zlib.compress(b"\0\0\0\0\0")
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + b"".join(chunk(kind, body) for kind, body in chunks)
        + chunk(b"IDAT", pixels)
        + chunk(b"IEND", b"")
    )


def test_a_notebook_plot_takes_its_alt_text_from_its_png() -> None:
    """nbconvert's placeholder gives way to the Description the notebook saved."""
    said = "Two line charts: the context grows; the bill curves up & away"
    described = base64.b64encode(_png((b"tEXt", b"Description\0" + said.encode("latin-1"))))
    plain = base64.b64encode(_png())
    compressed = base64.b64encode(_png((b"zTXt", b"Description\0\0" + zlib.compress(b"zipped"))))
    international = base64.b64encode(
        _png((b"iTXt", b"Description\0\0\0\0\0" + "caf\u00e9 \u2192 bill".encode()))
    )
    page = "".join(
        '<img alt="No description has been provided for this image" '
        f'class="" src="data:image/png;base64,{data.decode()}"\n>'
        for data in (described, plain, compressed, international)
    )
    out = hook.describe_plots(page)
    alts = re.findall(r'alt="([^"]*)"', out)
    assert alts[0] == "Two line charts: the context grows; the bill curves up &amp; away"
    assert alts[1] == "No description has been provided for this image"  # left as it was
    assert alts[2:] == ["zipped", "café → bill"]
    assert out.count("<img") == 4 and 'class=""' in out
    assert hook.png_description(b"not a png") is None


def test_the_speed_figure_says_how_much_time_per_message_rises() -> None:
    """The figure's name gives the steepest rise the results hold, computed from them: it
    once said time per message "stays flat" beside a goal of 1.2× of linear missed."""
    title = ET.fromstring(drawn("speed")).find(f"{SVG}title")
    assert title is not None and title.text is not None
    sys.path.insert(0, str(ROOT / "docs" / "figures"))
    try:
        speed = __import__("speed")
        label, factor, _, _ = speed.steepest(speed.timings())
    finally:
        sys.path.remove(str(ROOT / "docs" / "figures"))
    assert "flat" not in title.text
    assert f"at most {factor:.2f} times" in title.text and f"({label}," in title.text


def test_a_notebook_svg_plot_goes_into_the_page_as_it_is() -> None:
    """nbconvert puts an SVG plot in an `<img>` (its text out of the page's reach, no alt
    but "No description"); the hook puts the SVG itself there, its label with it."""
    svg = '<svg role="img" aria-label="Two lines" width="288pt"><text>1k</text></svg>'
    prolog = (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"\n  "x">\n'
    )
    data = base64.b64encode((prolog + svg).encode()).decode()
    page = (
        '<div class="jp-RenderedSVG"><img alt="No description has been provided for this'
        f' image" src="data:image/svg+xml;base64,{data}"/></div>'
    )
    assert hook.inline_svg_plots(page) == f'<div class="jp-RenderedSVG">{svg}</div>'
    broken = '<img src="data:image/svg+xml;base64,!!!"/>'
    assert hook.inline_svg_plots(broken) == broken
