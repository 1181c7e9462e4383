"""The frame around the chapters: what a reader is told before, after and beside them.

- Every chapter opens with its time and prerequisites, and closes with its key
  numbers and then a ``## Sources`` section whose every entry is a Markdown link.
  A key number is one the page prints: it must appear in an output the page
  shows (an ``output`` fence, a doctest's output or an output table).
- The home page's *How to read it* links every part and every chapter of the
  navigation.
- A glossary page is in the navigation, where search indexes it, and defines
  the course's terms.

A chapter is a Markdown page of parts I to V in mkdocs.yml's nav, other than a
part's index page. Each check fails on a fixture page in ``tests/fixtures/pages``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from mkdocs.utils.yaml import yaml_load

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FIXTURES = Path(__file__).parent / "fixtures" / "pages"

_FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)(?P<info>[^\n]*)\n"
    r"(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.DOTALL | re.MULTILINE,
)
_H2 = re.compile(r"^## +(.+?)\s*$", re.MULTILINE)
_LINK = re.compile(r"\[[^\]]+\]\(([^)\s]+)[^)]*\)")
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:,\d{3})*(?:\.\d+)?")


def nav() -> list[Any]:
    with (ROOT / "mkdocs.yml").open(encoding="utf-8") as config:
        entries: list[Any] = yaml_load(config)["nav"]
    return entries


def _pages(entry: Any) -> list[str]:
    """Every page path under one nav entry, in order."""
    if isinstance(entry, str):
        return [entry]
    if isinstance(entry, dict):
        return [page for value in entry.values() for page in _pages(value)]
    return [page for item in entry for page in _pages(item)]


def parts() -> dict[str, list[str]]:
    """Part title -> its pages, for the numbered parts (I. to V.) of the nav."""
    found = {}
    for entry in nav():
        if isinstance(entry, dict):
            ((title, value),) = entry.items()
            if re.match(r"^[IVX]+\. ", title):
                found[title] = _pages(value)
    return found


def chapters() -> list[str]:
    """The Markdown chapter pages: the parts' pages but their index pages and notebooks."""
    return [
        page
        for pages in parts().values()
        for page in pages
        if page.endswith(".md") and not page.endswith("index.md")
    ]


def sections(text: str) -> dict[str, str]:
    """H2 title -> its text up to the next H2 (code fences left in)."""
    prose = _FENCE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)  # same offsets
    starts = [(m.start(), m.end(), m.group(1)) for m in _H2.finditer(prose)]
    out = {}
    for number, (_, end, title) in enumerate(starts):
        stop = starts[number + 1][0] if number + 1 < len(starts) else len(text)
        out[title] = text[end:stop]
    return out


def outputs(text: str) -> str:
    """Everything the page shows as an output: output fences, doctest outputs, output tables."""
    shown = []
    for match in _FENCE.finditer(text):
        info, body = match.group("info").strip(), match.group("body")
        if info == "output":
            shown.append(body)
        elif body.lstrip().startswith(">>>") or info == "pycon":
            shown += [
                line for line in body.splitlines() if not line.lstrip().startswith((">>>", "..."))
            ]
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if "<!-- output-table" in line:
            table = []
            for after in lines[number + 1 :]:
                if after.strip().startswith("|") or (not table and not after.strip()):
                    table.append(after)
                elif table:
                    break
            shown += table
    return "\n".join(shown)


def _without_code(prose: str) -> str:
    prose = _FENCE.sub("", prose)
    prose = re.sub(r"`[^`]*`", "", prose)
    return _LINK.sub(lambda m: m.group(0).split("](")[0], prose)


def frame_problems(text: str) -> list[str]:
    """What a chapter's frame lacks: time and prerequisites, key numbers, linked sources."""
    problems = []
    body = text.split("\n", 1)[1] if text.startswith("# ") else text
    opening = body.lstrip("\n").split("\n\n", 1)[0]
    if not re.match(r'^!!! info "Time and prerequisites"\n', opening):
        problems.append('the page does not open with an !!! info "Time and prerequisites" box')
    else:
        if not re.search(r"\*\*Time:\*\* about \d+ minutes", opening):
            problems.append("the opening box gives no **Time:** about N minutes")
        if "**Prerequisites:**" not in opening:
            problems.append("the opening box gives no **Prerequisites:**")
    titles = list(sections(text))
    if titles[-2:] != ["Key numbers", "Sources"]:
        problems.append(f"the last two sections are {titles[-2:]}, not ['Key numbers', 'Sources']")
    parts_ = sections(text)
    if "Key numbers" in parts_:
        key = parts_["Key numbers"]
        # 1,850 and 1850 are one number; a number is compared whole, never as a part.
        shown = {n.replace(",", "") for n in _NUMBER.findall(outputs(text))}
        stated = _NUMBER.findall(_without_code(key))
        if not stated and "```output" not in key:
            problems.append("the key numbers section states no number")
        for number in stated:
            if number.replace(",", "") not in shown:
                problems.append(f"key number {number} is printed by no block on the page")
    if "Sources" in parts_:
        items = re.split(r"^- ", parts_["Sources"].strip(), flags=re.MULTILINE)[1:]
        if not items:
            problems.append("the Sources section lists nothing")
        for item in items:
            if not _LINK.search(item):
                first = " ".join(item.split())[:60]
                problems.append(f"a source without a link: {first}")
    return problems


def test_the_frame_check_fails_on_a_chapter_without_a_frame() -> None:
    problems = frame_problems((FIXTURES / "frame_missing.md").read_text(encoding="utf-8"))
    assert any("Time and prerequisites" in p for p in problems), problems
    assert any("Key numbers" in p for p in problems), problems


def test_the_frame_check_fails_on_unlinked_sources_and_unprinted_key_numbers() -> None:
    problems = frame_problems((FIXTURES / "frame_wrong.md").read_text(encoding="utf-8"))
    assert any("no **Time:**" in p for p in problems), problems
    assert "key number 9,999 is printed by no block on the page" in problems, problems
    assert "key number 1,850 is printed by no block on the page" not in problems, problems
    assert any(
        p.startswith("a source without a link: Anthropic, context editing") for p in problems
    )
    assert len([p for p in problems if p.startswith("a source without")]) == 1, problems


def test_the_frame_check_passes_a_good_frame() -> None:
    assert frame_problems((FIXTURES / "frame_good.md").read_text(encoding="utf-8")) == []


def test_the_chapters_are_the_parts_pages() -> None:
    names = chapters()
    assert "budget/context-is-a-budget.md" in names and "units/unit-b.md" in names
    assert "harness/the-loop.md" in names and "measured/speed.md" in names
    assert len(names) >= 13


@pytest.mark.parametrize("page", chapters())
def test_every_chapter_opens_with_time_and_closes_with_numbers_and_linked_sources(
    page: str,
) -> None:
    assert frame_problems((DOCS / page).read_text(encoding="utf-8")) == []


# --- notebook chapters -----------------------------------------------------------------

#: The notebooks framed like chapters: every notebook but Unit B's, whose page
#: (units/unit-b.md) carries their frame.
NOTEBOOK_CHAPTERS = tuple(
    f"notebooks/{path.name}"
    for path in sorted((DOCS / "notebooks").glob("*.py"))
    if not path.name.startswith("unit-b-")
)


def markdown_cells(source: str) -> list[str]:
    """The Markdown cells of a percent-format notebook, comment marks removed."""
    cells = re.split(r"^# %%.*$", source, flags=re.MULTILINE)
    heads = re.findall(r"^# %%.*$", source, flags=re.MULTILINE)
    return [
        re.sub(r"^# ?", "", body, flags=re.MULTILINE).strip()
        for head, body in zip(heads, cells[1:], strict=True)
        if "[markdown]" in head
    ]


def notebook_frame_problems(source: str) -> list[str]:
    """What a notebook chapter's frame lacks: time and prerequisites first, linked sources last."""
    cells = markdown_cells(source)
    if not cells:
        return ["the notebook has no Markdown cell"]
    problems = []
    if not re.search(r"\*\*Time:\*\* about \d+ minutes", cells[0]):
        problems.append("its first cell gives no **Time:** about N minutes")
    if "**Prerequisites:**" not in cells[0]:
        problems.append("its first cell gives no **Prerequisites:**")
    last = sections(cells[-1])
    if list(last)[-1:] != ["Sources"]:
        problems.append("its last section is not ## Sources")
    else:
        for item in re.split(r"^- ", last["Sources"], flags=re.MULTILINE)[1:]:
            if not _LINK.search(item):
                problems.append(f"a source without a link: {' '.join(item.split())[:60]}")
    return problems


def test_the_notebook_frame_check_fails_on_a_notebook_without_its_frame() -> None:
    problems = notebook_frame_problems((FIXTURES / "notebook_unframed.py").read_text("utf-8"))
    assert any("**Time:**" in p for p in problems), problems
    assert any("a source without a link" in p for p in problems), problems


def test_every_notebook_but_unit_bs_is_framed_like_a_chapter() -> None:
    """Unit A's notebooks once had neither a **Time:** line nor a Sources section."""
    assert {"notebooks/unit-a-student.py", "notebooks/unit-a-worked.py"} <= set(NOTEBOOK_CHAPTERS)
    assert not any("unit-b" in page for page in NOTEBOOK_CHAPTERS)


@pytest.mark.parametrize("page", NOTEBOOK_CHAPTERS)
def test_every_notebook_chapter_opens_with_time_and_ends_with_linked_sources(page: str) -> None:
    assert page in [p for pages in parts().values() for p in pages]
    assert notebook_frame_problems((DOCS / page).read_text(encoding="utf-8")) == []


# --- the home page ----------------------------------------------------------------------


def how_to_read_problems(home: str, parts_: dict[str, list[str]]) -> list[str]:
    """The parts and chapters the home page's *How to read it* does not link."""
    section = sections(home).get("How to read it", "")
    linked = {link.split("#")[0] for link in _LINK.findall(section)}
    problems = []
    for title, pages in parts_.items():
        numeral = title.split(".")[0] + "."
        if numeral not in section:
            problems.append(f"part {title} is not named")
        for page in pages:
            if page not in linked:
                problems.append(f"{title}: {page} is not linked")
    return problems


def test_the_home_page_check_fails_on_a_table_that_skips_parts() -> None:
    problems = how_to_read_problems(
        (FIXTURES / "home_skips_parts.md").read_text(encoding="utf-8"), parts()
    )
    assert any("III. The harness" in p for p in problems), problems
    assert any(p.endswith("spending/dont-edit-the-middle.md is not linked") for p in problems)


def test_how_to_read_it_covers_every_part_and_chapter() -> None:
    assert how_to_read_problems((DOCS / "index.md").read_text(encoding="utf-8"), parts()) == []


# --- the glossary -----------------------------------------------------------------------

TERMS = (
    "Breakpoint",
    "Cache read",
    "Cache write",
    "Clearing",
    "Compaction",
    "Context window",
    "Harness",
    "Prefix",
    "Token",
    "TTL",
)


def glossary_terms(text: str) -> list[str]:
    """The terms a glossary defines: the term lines of its definition lists."""
    lines = text.splitlines()
    terms = []
    for number, line in enumerate(lines):
        if not line.strip() or line.startswith((" ", "#", ":", "-", "!", "<", "|")):
            continue
        after = [a for a in lines[number + 1 : number + 3] if a.strip()][:1]
        if after and after[0].startswith(":   "):
            terms.append(line.strip())
    return terms


def test_the_glossary_is_in_the_nav_and_search_sees_it() -> None:
    reference = next(
        entry["Reference"] for entry in nav() if isinstance(entry, dict) and "Reference" in entry
    )
    assert "reference/glossary.md" in _pages(reference)
    text = (DOCS / "reference" / "glossary.md").read_text(encoding="utf-8")
    # A page opts out of search with front matter `search: exclude: true`.
    assert "exclude: true" not in text.split("\n# ", 1)[0]


def missing_terms(text: str) -> list[str]:
    """The course terms a glossary page does not define."""
    defined = {term.lower() for term in glossary_terms(text)}
    return [term for term in TERMS if not any(d.startswith(term.lower()) for d in defined)]


def test_the_glossary_check_fails_on_a_glossary_without_the_terms() -> None:
    missing = missing_terms((FIXTURES / "glossary_short.md").read_text(encoding="utf-8"))
    assert "TTL" in missing and "Compaction" in missing
    assert "Token" not in missing and "Prefix" not in missing


def test_the_glossary_defines_the_course_terms() -> None:
    assert missing_terms((DOCS / "reference" / "glossary.md").read_text(encoding="utf-8")) == []
