"""`context-budget bill --html`: the page opens offline in Chromium and its chart is drawn."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Request

from context_budget.cli import main

from .conftest import PHONE

pytestmark = pytest.mark.browser

SESSIONS = Path(__file__).resolve().parents[2] / "docs" / "measured" / "sessions"
SYNTHETIC = SESSIONS / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"


def _page(tmp_path: Path, page: Page, *paths: Path) -> list[str]:
    """Write the bill's page, load it with every request aborted; the requests it made."""
    target = tmp_path / "bill.html"
    assert main(["bill", *map(str, paths), "--html", str(target), "--timezone", "UTC"]) == 0
    asked: list[str] = []

    def record(request: Request) -> None:
        asked.append(request.url)

    page.on("request", record)
    page.set_content(target.read_text(encoding="utf-8"))
    return asked


def test_the_chart_is_drawn_with_the_rebuilds_marked(tmp_path: Path, blank_page: Page) -> None:
    asked = _page(tmp_path, blank_page, SYNTHETIC)
    assert asked == []  # nothing fetched: the page works offline
    for kind in ("read", "written", "uncached"):
        box = blank_page.locator(f"svg#calls path.bar.{kind}").bounding_box()
        assert box is not None and box["width"] > 100 and box["height"] > 10, (kind, box)
    marks = blank_page.locator("svg#calls line.rebuild")
    causes = [marks.nth(k).get_attribute("class") for k in range(marks.count())]
    assert causes == [
        "rebuild ttl",
        "rebuild prefix-changed",
        "rebuild compaction",
        "rebuild ttl",
    ]
    assert "call 6: prefix-changed" in (marks.nth(1).text_content() or "")
    assert blank_page.locator("h3").all_inner_texts() == [
        "By day",
        "By week",
        "By month",
        "By session",
        "By project",
        "By model",
        "By thread",
        "By agent",
    ]


def test_bars_stand_where_their_calls_are(tmp_path: Path, blank_page: Page) -> None:
    """Ten calls across the chart: the uncached bars' drawn width spans most of it."""
    _page(tmp_path, blank_page, SESSIONS / "sample-project")
    svg = blank_page.locator("svg#calls svg.plot").bounding_box()
    read = blank_page.locator("svg#calls path.bar.read").bounding_box()
    assert svg is not None and read is not None
    assert read["width"] > 0.9 * svg["width"] and read["height"] > 0.5 * svg["height"]


def _luminance(colour: str) -> float:
    """The relative luminance (0 black to 1 white) of a computed `rgb(...)` colour."""
    red, green, blue = (
        int(part) / 255 for part in colour[colour.index("(") + 1 : -1].split(",")[:3]
    )
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def test_the_page_fits_a_phone(tmp_path: Path, blank_page: Page) -> None:
    """At 390 px the page is no wider than the screen; wide tables scroll in their own box."""
    blank_page.set_viewport_size(PHONE)
    _page(tmp_path, blank_page, SESSIONS / "sample-project", SYNTHETIC)
    assert blank_page.locator('meta[name="viewport"]').count() == 1
    width = blank_page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide at {PHONE['width']} px"
    chart = blank_page.locator("svg#calls").bounding_box()
    assert chart is not None and chart["width"] <= PHONE["width"]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_follows_the_reader_s_colour_scheme(
    scheme: str, tmp_path: Path, blank_page: Page
) -> None:
    blank_page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    _page(tmp_path, blank_page, SYNTHETIC)
    colours = blank_page.evaluate(
        "[getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color,"
        " getComputedStyle(document.querySelector('svg#calls text')).fill]"
    )
    background, text, label = (_luminance(colour) for colour in colours)
    if scheme == "dark":
        assert background < 0.2 and text > 0.7 and label > 0.5, colours
    else:
        assert background > 0.9 and text < 0.3 and label < 0.5, colours


def test_the_chart_has_axes_in_tokens_and_calls(tmp_path: Path, blank_page: Page) -> None:
    """The y axis counts tokens from 0 up to the tallest prompt; the x axis numbers the calls."""
    blank_page.set_viewport_size(PHONE)
    _page(tmp_path, blank_page, SYNTHETIC)
    ticks = blank_page.locator("svg#calls g.axis.tokens text.tick").all_text_contents()
    assert ticks[0] == "0" and len(ticks) >= 3, ticks
    units = {"k": 1_000, "M": 1_000_000}
    values = [
        int(float(tick[:-1]) * units[tick[-1]]) if tick[-1] in units else int(tick)
        for tick in ticks
    ]
    assert values == sorted(values) and values[-1] >= 14_000, ticks  # the tallest prompt: 14,603
    calls = blank_page.locator("svg#calls g.axis.calls text.tick").all_text_contents()
    assert calls[0] == "1" and calls[-1] == "10", calls
    titles = blank_page.locator("svg#calls text.title").all_text_contents()
    assert titles == ["tokens", "call"], titles
    label = blank_page.locator("svg#calls g.axis.tokens text.tick").first.bounding_box()
    assert label is not None and 6 <= label["height"] <= 24, label  # readable, not stretched


def test_what_was_left_out_wraps_on_a_phone(tmp_path: Path, blank_page: Page) -> None:
    """Each skip's reason, long as it is, wraps inside the screen's width at 390 px."""
    blank_page.set_viewport_size(PHONE)
    folder = tmp_path / "a-folder-whose-name-is-long-enough-to-push-a-line-past-the-screen"
    folder.mkdir()
    (folder / SYNTHETIC.name).write_bytes(SYNTHETIC.read_bytes())
    (folder / "notes.json").write_text('{"shopping": ["milk"]}', encoding="utf-8")
    _page(tmp_path, blank_page, folder)
    item = blank_page.locator("ul.skipped li")
    assert item.count() == 1 and "not a session in a format bills read" in item.inner_text()
    width = blank_page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide at {PHONE['width']} px"
    box = item.bounding_box()
    assert box is not None and box["height"] > 40  # wrapped onto several lines


#: Each colour swatch of the chart's keys whose name starts another line than the swatch:
#: [the name, the swatch's top, the name's first letter's top], in px.
APART = """() => {
  const apart = [];
  for (const swatch of document.querySelectorAll('p.key span[style]')) {
    const name = swatch.nextSibling;
    const range = document.createRange();
    range.setStart(name, 0);
    range.setEnd(name, 1);
    const top = range.getBoundingClientRect().top;
    const box = swatch.getBoundingClientRect();
    if (top > box.bottom || top + 8 < box.top) apart.push([name.textContent, box.top, top]);
  }
  return apart;
}"""


def test_each_key_s_swatch_stays_beside_its_name(tmp_path: Path, blank_page: Page) -> None:
    """At every width from a small phone's to a large one's, a key that wraps moves a
    swatch and its name together: it once left compaction's green square at the end of
    one line and the word on the next (at 390 px in the course's frame, 356 px wide)."""
    _page(tmp_path, blank_page, SYNTHETIC)
    apart = _found_at(blank_page, range(300, 461, 4), APART)
    assert apart == {}, apart


def _found_at(page: Page, widths: Iterable[int], script: str) -> dict[int, Any]:
    """What `script` finds on `page` at each of `widths` (px, a phone's height), by width:
    the widths where it finds nothing left out."""
    found = {}
    for width in widths:
        page.set_viewport_size({"width": width, "height": PHONE["height"]})
        said = page.evaluate(script)
        if said:
            found[width] = said
    return found


def _scaled(tmp_path: Path, factor: int) -> Path:
    """The synthetic session with every prompt `factor` times larger (its usage scaled):
    prompts of up to 900,000 tokens at 60, as a 1M-token context window allows."""
    lines = []
    for line in SYNTHETIC.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        usage = record.get("message", {}).get("usage") if record.get("type") == "assistant" else {}
        for key in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
            if key in (usage or {}):
                usage[key] *= factor
        for key in (usage or {}).get("cache_creation", {}):
            usage["cache_creation"][key] *= factor
        lines.append(json.dumps(record))
    scaled = tmp_path / f"scaled-{SYNTHETIC.name}"
    scaled.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return scaled


#: The token axis's labels that do not lie whole inside the chart, or that run into the
#: axis's title: [the label, its box's left and top, the chart's left] in px.
LABELS_OUT = """() => {
  const chart = document.querySelector('svg#calls').getBoundingClientRect();
  const title = document.querySelector('svg#calls text.title').getBoundingClientRect();
  return [...document.querySelectorAll('svg#calls g.axis.tokens text.tick')]
    .map(tick => [tick.textContent, tick.getBoundingClientRect()])
    .filter(([, box]) => box.left < chart.left || (box.top < title.bottom
      && box.bottom > title.top && box.left < title.right && box.right > title.left))
    .map(([text, box]) => [text, Math.round(box.left), Math.round(box.top), chart.left]);
}"""


@pytest.mark.parametrize("factor", [1, 60])
def test_the_token_axis_labels_fit_the_chart_on_a_phone(
    factor: int, tmp_path: Path, blank_page: Page
) -> None:
    """Prompts of 14,603 and of 876,180 tokens: at 320 and 390 px each label of the token
    axis is whole, inside the chart and clear of its title. At 390 px the labels of a
    bill near a million tokens once ran off the chart's left edge, so that 800,000 read
    as 300,000 and 1,000,000 as 00,000."""
    _page(tmp_path, blank_page, _scaled(tmp_path, factor))
    out = _found_at(blank_page, (320, 390), LABELS_OUT)
    assert out == {}, out


def test_the_what_if_costs_are_on_a_phone_s_screen(tmp_path: Path, blank_page: Page) -> None:
    """At 390 px the input side's what-ifs show their costs beside their names: each name
    wraps at its spaces. The names once kept to one line, and the table's one column of
    costs sat off the screen's right edge, behind a sideways scroll."""
    blank_page.set_viewport_size(PHONE)
    _page(tmp_path, blank_page, SESSIONS / "sample-project", SYNTHETIC)
    table = blank_page.locator("div.scroll", has=blank_page.locator("th", has_text="input side"))
    assert table.count() == 1
    widths = table.evaluate("box => [box.scrollWidth, box.clientWidth]")
    assert widths[0] <= widths[1], f"the what-if table is {widths[0]} px wide in {widths[1]}"
    costs = table.locator("td:nth-child(2)")
    for k in range(costs.count()):
        box = costs.nth(k).bounding_box()
        assert box is not None and box["x"] + box["width"] <= PHONE["width"], box


#: How wide (px) each rebuild's mark is drawn: its stroke, times the scale of the plot's
#: stretched view box unless the stroke keeps its width in pixels.
MARK_WIDTHS = """() => [...document.querySelectorAll('svg#calls line.rebuild')].map(line => {
  const width = parseFloat(getComputedStyle(line).strokeWidth);
  const kept = getComputedStyle(line).vectorEffect === 'non-scaling-stroke';
  return kept ? width : width * line.getScreenCTM().a;
})"""


def test_the_rebuild_marks_are_drawn_as_wide_on_a_phone(tmp_path: Path, blank_page: Page) -> None:
    """At 320 and 390 px each rebuild's dashed line is drawn 2 px wide, as at 1280. It was
    drawn in the plot's view box, 1,000 units across, and shrank with the plot: 0.6 px at
    390, a faint dotted trace of the marks the chart is there to show."""
    _page(tmp_path, blank_page, SYNTHETIC)
    thin = {}
    for width in (320, 390, 1280):
        blank_page.set_viewport_size({"width": width, "height": PHONE["height"]})
        widths = blank_page.evaluate(MARK_WIDTHS)
        assert len(widths) == 4
        if min(widths) < 1.5:
            thin[width] = [round(w, 2) for w in widths]
    assert thin == {}, thin


def test_a_replay_s_cost_against_the_bill_is_on_a_phone_s_screen(
    tmp_path: Path, blank_page: Page
) -> None:
    """At 320 and 390 px (the *Bill your own session* page shows the bill in a frame of
    about 360) each replay's cost and its change against the bill stand whole on the
    screen; the counts after them may scroll. The five columns' headings kept to one line,
    and the change was cut at the screen's edge: +15.6% read as +15.6."""
    target = tmp_path / "whatif.html"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["whatif", str(SESSIONS / "sample-project"), "--html", str(target)]) == 0
    blank_page.set_content(target.read_text(encoding="utf-8"))
    heading = blank_page.locator("th", has_text="replayed under")
    table = blank_page.locator("div.scroll", has=heading)
    assert table.count() == 1
    cut: dict[int, list[str]] = {}
    for width in (320, 390):
        blank_page.set_viewport_size({"width": width, "height": PHONE["height"]})
        for column in (2, 3):  # the cost, the change against the bill
            cells = table.locator(f"tr > :nth-child({column})")
            for k in range(cells.count()):
                box = cells.nth(k).bounding_box()
                assert box is not None
                if box["x"] + box["width"] > width:
                    cut.setdefault(width, []).append(cells.nth(k).inner_text())
    assert cut == {}, cut


#: Each table box of the page that scrolls sideways: [its first heading, its width, the
#: box's], in px.
SCROLLING = """() => [...document.querySelectorAll('div.scroll')]
  .filter(box => box.scrollWidth > box.clientWidth)
  .map(box => [box.querySelector('th').textContent, box.scrollWidth, box.clientWidth])"""


def test_every_table_fits_a_phone_without_a_sideways_scroll(
    tmp_path: Path, blank_page: Page
) -> None:
    """At 320, 356 (the frame of *Bill your own session* at 390) and 390 px no table of the
    page scrolls: the views leave their four token columns out (the note above says so)
    and a session's id wraps. The views' eight columns ran 700 px wide, their costs
    behind a sideways scroll, and so did the rebuilds' six and the rent's five."""
    _page(tmp_path, blank_page, SESSIONS / "sample-project", SYNTHETIC)
    scrolling = _found_at(blank_page, (320, 356, 390), SCROLLING)
    assert scrolling == {}, scrolling
    note = blank_page.locator("p.narrow")
    assert note.is_visible() and "token counts" in note.inner_text()
    cost = blank_page.locator("h3:text('By session') + div.scroll th", has_text="cost")
    assert cost.is_visible()
    blank_page.set_viewport_size({"width": 1280, "height": PHONE["height"]})
    assert not note.is_visible()
    assert blank_page.locator("div.scroll th", has_text="cache read").first.is_visible()
    # the frame of *Bill your own session* on a desktop screen is 686 px wide inside its
    # border: its reader was told "on a screen this narrow" and shown no token count
    assert _found_at(blank_page, (686,), SCROLLING) == {}
    assert not note.is_visible()
    assert blank_page.locator("div.scroll th", has_text="cache read").first.is_visible()


@pytest.mark.parametrize(
    ("session", "said"),
    [
        (SESSIONS / "sample-project", []),
        (SYNTHETIC, ["ttl", "prefix-changed", "compaction"]),
    ],
)
def test_the_rebuilds_key_names_only_the_causes_drawn(
    session: Path, said: list[str], tmp_path: Path, blank_page: Page
) -> None:
    """The key of the chart's rebuild marks names the causes whose marks are drawn: a bill
    with no rebuild has no such key, where it listed four coloured causes beside a
    table that said none; the synthetic session's key leaves out model-switch."""
    _page(tmp_path, blank_page, session)
    keys = blank_page.locator("p.key")
    causes = keys.filter(has_text="rebuilds:").locator(".item").all_inner_texts()
    assert causes == said, causes
    assert keys.count() == (2 if said else 1)
