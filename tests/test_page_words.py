"""What a reader reads: no word about how the course was made, and no sentence against its numbers.

Two checks over the pages (``docs/**/*.md``, the notebooks' and figures'
``.py`` files) and the package (``src/``):

- **Internal words.** A reader never saw the documents the course was written
  from, nor its tracker: phrases such as "the seed", "seed 004", "the starter
  loop", "fact sheet" or "(issue 9)" mean nothing to them. A random seed
  (``seed=``, ``SEED = 20260512``, ``--hypothesis-seed``) is part of the lessons
  and stays. An outside measurement is named by where it was published.
- **Sentences tied to their numbers.** Each sentence listed in ``CLAIMS`` states
  a number (or a comparison) that a run computes; the test runs it and checks
  the sentence says what the run shows.

Each check is shown to fail on a fixture page in ``tests/fixtures/pages``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FIXTURES = Path(__file__).parent / "fixtures" / "pages"

# --- internal words -------------------------------------------------------------------

#: (what it is, pattern): phrases that speak of the course's making, not of its subject.
INTERNAL: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("the specification documents", re.compile(r"\bthe seeds?\b(?!\s*[=:(])", re.IGNORECASE)),
    ("a specification document's", re.compile(r"\bseed['\u2019]s\b", re.IGNORECASE)),
    ("a numbered specification", re.compile(r"\bseeds?\s+0\d\d\b", re.IGNORECASE)),
    ("the code the course began from", re.compile(r"\bstarter[ _-]?(loop|code)\b", re.IGNORECASE)),
    ("the code the course began from", re.compile(r"\bthis course began\b", re.IGNORECASE)),
    ("the notes the course was written from", re.compile(r"\bfact[ -]sheets?\b", re.IGNORECASE)),
    ("an issue of the tracker", re.compile(r"\(issues? #?\d+\)|\bissue #?\d+:", re.IGNORECASE)),
    (
        "a file outside the repository",
        re.compile(
            r"HARNESS-CACHE|ANCHORS\.md|DOCS-TOOLING|COURSE\.md|\.\./shared\b|\bshared/seeds"
        ),
    ),
)
#: An upper-case name with SEED in it is a random seed only when it is set to a number.
_SEED_NAME = re.compile(r"\b_?[A-Z_]*SEEDS?[A-Z_]*\b")
_SEED_NUMBER = r"\b{}\s*(?::\s*int\s*)?=\s*[0-9_]+\b"


@dataclass(frozen=True)
class Finding:
    """One internal word: the file, its line number (from 1), what it is, the line."""

    path: Path
    line: int
    what: str
    text: str

    def __str__(self) -> str:
        where = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{where}:{self.line}: {self.what}: {self.text.strip()}"


def internal_words(path: Path) -> list[Finding]:
    """Every line of `path` that speaks of how the course was made, with what it says."""
    text = path.read_text(encoding="utf-8")
    numbers = {
        name for name in set(_SEED_NAME.findall(text)) if re.search(_SEED_NUMBER.format(name), text)
    }
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for what, pattern in INTERNAL:
            if pattern.search(line):
                found.append(Finding(path, number, what, line))
                break
        else:
            names = set(_SEED_NAME.findall(line)) - numbers
            if names:
                found.append(
                    Finding(path, number, f"a name for a specification ({min(names)})", line)
                )
    return found


def reader_files() -> Iterator[Path]:
    """The pages, notebooks and figures of the site, the package, and the site's config."""
    yield from sorted(DOCS.rglob("*.md"))
    for folder in ("notebooks", "figures"):
        yield from sorted((DOCS / folder).glob("*.py"))
    yield from sorted((ROOT / "src").rglob("*.py"))
    yield ROOT / "mkdocs.yml"


def test_the_words_check_flags_every_line_of_the_fixture() -> None:
    fixture = FIXTURES / "internal_words.md"
    bullets = [
        n for n, line in enumerate(fixture.read_text().splitlines(), 1) if line.startswith("- ")
    ]
    assert len(bullets) >= 10
    assert [f.line for f in internal_words(fixture)] == bullets


def test_random_seeds_are_not_internal_words() -> None:
    assert [str(f) for f in internal_words(FIXTURES / "random_seeds.md")] == []


def test_no_reader_page_or_module_speaks_of_how_the_course_was_made() -> None:
    files = list(reader_files())
    assert len(files) > 60, "the scan must see the pages and the package"
    found = [str(f) for path in files for f in internal_words(path)]
    assert found == [], "\n".join(found)


# --- sentences tied to their numbers --------------------------------------------------

_WORDS = {1: ("once", "one"), 2: ("twice", "two"), 3: ("three",), 4: ("four",), 5: ("five",)}


def prose(text: str) -> str:
    """A page's running text: notebook comment marks and line breaks gone, code fences out."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.DOTALL | re.MULTILINE)
    text = re.sub(r"^# ?", "", text, flags=re.MULTILINE)
    return " ".join(text.split())


def clause(text: str, *anchors: str) -> str | None:
    """The first clause (between `.`, `;` or `:` and the next) holding every anchor."""
    for part in re.split(r"(?<=[.;])\s+", prose(text)):
        if all(anchor in part for anchor in anchors):
            return part
    return None


def _says_count(part: str, count: int) -> bool:
    return any(re.search(rf"\b{word}\b", part) for word in _WORDS.get(count, (str(count),)))


@dataclass(frozen=True)
class Claim:
    """A sentence of a page, found by its anchors, and what a run says it must state."""

    page: str
    anchors: tuple[str, ...]
    check: Callable[[str], list[str]]

    def problems(self, text: str) -> list[str]:
        part = clause(text, *self.anchors)
        if part is None:
            return [f"{self.page}: no sentence holds {self.anchors}"]
        return [f"{self.page}: {p}: {part[:100]}" for p in self.check(part)]


def _server_against_hand(part: str) -> list[str]:
    from context_budget.scenarios.cache_runs import middle_run

    hand, server = (sum(c.usd for c in middle_run(s)) for s in ("client_clear", "server_clear"))
    problems = [f"does not state ${v:.3f}" for v in (server, hand) if f"${v:.3f}" not in part]
    if server < hand and re.search(r"\bnot (any )?cheaper\b|\bno cheaper\b", part):
        problems.append(f"says not cheaper, but the run prints ${server:.3f} against ${hand:.3f}")
    return problems


@functools.cache
def _runs() -> dict[str, Any]:
    """The experiment's runs, made once for every claim that reads them (it is seeded)."""
    from context_budget.experiment import run_all

    return run_all()


def _steps(name: str) -> list[int]:
    """The calls after the first where a run writes more to the cache than it reads."""
    records = _runs()[name].records
    return [r.number for r in records[1:] if r.written > r.cached]


def _chunked(part: str) -> list[str]:
    records = _runs()["chunked"].records
    rebuilt = [r.number for r in records[1:] if r.cleared and r.written > r.cached]
    calls = ", ".join(map(str, rebuilt[:-1])) + f" and {rebuilt[-1]}"
    problems = []
    if not _says_count(part, len(rebuilt)):
        problems.append(f"does not say the run rebuilds {len(rebuilt)} times")
    if calls not in part:
        problems.append(f"does not name calls {calls}")
    return problems


def _compact(part: str) -> list[str]:
    first = _steps("compact")[0]
    later = [n for n in _steps("compact") if n != first]
    problems = [f"does not name call {n}" for n in later[:1] if f"call {n}" not in part]
    if not _says_count(part, len(later)) or re.search(r"\bone step\b", part):
        problems.append(f"the run steps up {len(later)} times after call {first}")
    return problems


def _cache_aware(part: str) -> list[str]:
    from context_budget.experiment import cost_floor

    records = _runs()["cache-aware"].records
    steady = [r.cost.total for r in records[2:-1]]
    problems = []
    if len(_steps("cache-aware")) != 1 and "never steps up again" in part:
        problems.append("the run steps up more than once")
    if max(steady) > 1.15 * min(steady) and "same amount" in part:
        problems.append(f"calls cost {min(steady):.4f} to {max(steady):.4f}, not the same amount")
    if re.search(r"floor['\u2019]s", part):
        # the floor is one number, cost_floor(), drawn as a flat line: it has no slope to match
        problems.append(f"likens the climb to the floor's, a flat line at ${cost_floor():.3f}")
    return problems


def _storm_prompt(part: str) -> list[str]:
    from context_budget import estimate_tokens

    size = estimate_tokens("rule " * 2_000)  # the system prompt the page's block passes
    stated = re.search(r"about ([\d,]+) tokens", part)
    if stated is None:
        return ["states no size"]
    value = int(stated.group(1).replace(",", ""))
    return [] if abs(value - size) <= size * 0.05 else [f"says {value:,}, the estimate is {size:,}"]


CLAIMS = (
    Claim("spending/dont-edit-the-middle.md", ("clearing by hand",), _server_against_hand),
    Claim("notebooks/experiment.py", ("`chunked`", "per jump of its cut"), _chunked),
    Claim("notebooks/experiment.py", ("`compact`", "the restart"), _compact),
    Claim("notebooks/experiment.py", ("`cache-aware`", "climbs"), _cache_aware),
    Claim("harness/the-loop.md", ("a system prompt of about",), _storm_prompt),
)


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: f"{c.page}:{c.anchors[0]}")
def test_the_claim_check_fails_on_the_sentence_as_it_stood(claim: Claim) -> None:
    fixture = (FIXTURES / "claims_contradicted.md").read_text(encoding="utf-8")
    assert clause(fixture, *claim.anchors) is not None
    assert claim.problems(fixture) != []


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: f"{c.page}:{c.anchors[0]}")
def test_each_sentence_states_what_its_run_prints(claim: Claim) -> None:
    assert claim.problems((DOCS / claim.page).read_text(encoding="utf-8")) == []


# --- facts as the provider documents them ---------------------------------------------


def paragraphs(text: str) -> list[str]:
    """A page's paragraphs and list items, code fences out, each on one line."""
    text = re.sub(r"^ *```.*?^ *```", "", text, flags=re.DOTALL | re.MULTILINE)
    blocks = re.split(r"\n\s*\n|\n(?=\s*- )", text)
    return [" ".join(block.split()) for block in blocks if block.strip()]


def _over_count(text: str) -> list[str]:
    words = prose(text)
    if "334,400" not in words:
        return []
    needed = ("server tools", "usage.iterations", "type `message`")
    return [
        f"the 334,400 example is told without {word!r}: its cause is one response's"
        " server-tool iterations, its fix the last `message` iteration"
        for word in needed
        if word not in words
    ]


def _refusal(text: str) -> list[str]:
    unsourced = re.compile(
        r"(refuse|reject)\w* a request whose (earlier turns|middle)", re.IGNORECASE
    )
    return [
        "an unsourced claim that providers refuse an edited history"
        for p in paragraphs(text)
        if unsourced.search(p) and "](http" not in p
    ]


def _thinking(text: str) -> list[str]:
    return [
        f"a thinking change said to keep the cache with no model named: {s[:80]}"
        for p in paragraphs(text)
        for s in re.split(r"(?<=[.])\s+", p)
        if "thinking" in s and "cached" in s and "model" not in s
    ]


def _tool_inputs(text: str) -> list[str]:
    return [
        "`clear_tool_inputs` described without its list of tool names"
        for p in paragraphs(text)
        if p.startswith("- `clear_tool_inputs`") and "list of tool names" not in p
    ]


def _read_price(text: str) -> list[str]:
    return [
        "a read at a twentieth credited to the pricing page, not the model page"
        for p in paragraphs(text)
        if "$0.20" in p and "$4" in p and "models/opus-5-5" not in p
    ]


FACTS: tuple[Callable[[str], list[str]], ...] = (
    _over_count,
    _refusal,
    _thinking,
    _tool_inputs,
    _read_price,
)


@pytest.mark.parametrize("fact", FACTS, ids=lambda f: f.__name__.strip("_"))
def test_the_fact_check_fails_on_the_text_as_it_stood(fact: Callable[[str], list[str]]) -> None:
    assert fact((FIXTURES / "facts_outdated.md").read_text(encoding="utf-8")) != []


def _pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md")) + sorted((DOCS / "notebooks").glob("*.py"))


@pytest.mark.parametrize("fact", FACTS, ids=lambda f: f.__name__.strip("_"))
def test_no_page_states_an_outdated_fact(fact: Callable[[str], list[str]]) -> None:
    found = [f"{p.relative_to(DOCS)}: {x}" for p in _pages() for x in fact(p.read_text("utf-8"))]
    assert found == []


#: Sentences a reader had to read twice, as they stood, each with what was wrong.
TANGLES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "a double negative on what a counter must return",
        re.compile(r"anything but a whole number of tokens\s+that is not negative"),
    ),
    (
        "a relative clause that ends on a preposition, about the pricing rules",
        re.compile(r"usage\s+records\s+the\s+inputs\s+of"),
    ),
    (
        "'go first' said of tool results, which come last in a request and are cut first",
        re.compile(r"and\s+they\s+go\s+first"),
    ),
)


def tangles(text: str) -> list[str]:
    """What is wrong with each sentence of `text` that `TANGLES` knows."""
    flat = re.sub(r'"\s*\n\s*"', "", text)  # a Python string split over lines, joined
    return [what for what, pattern in TANGLES if pattern.search(flat)]


def test_the_tangle_check_fails_on_the_sentences_as_they_stood() -> None:
    stood = (
        "The package refuses a counter that returns anything but a whole number of tokens\n"
        "that is not negative. The pricing page adds rules a saved call's usage records the"
        ' inputs of.\n        title="tool results are most of it, "\n        "and they go first",'
    )
    assert len(tangles(stood)) == len(TANGLES)


def test_no_page_or_figure_keeps_a_tangled_sentence() -> None:
    found = [
        f"{path.relative_to(DOCS)}: {what}"
        for path in [*_pages(), *sorted((DOCS / "figures").glob("*.py"))]
        for what in tangles(path.read_text("utf-8"))
    ]
    assert found == []


def compaction_taught(text: str) -> list[str]:
    """What a page teaching server-side compaction leaves out (empty: it is all there)."""
    fences = re.findall(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    runs = any("compact_20260112" in f and "EmulatedClient" in f for f in fences)
    words = prose(text)
    wanted = {
        "a block running compact_20260112 on EmulatedClient": runs,
        "the default trigger, 150,000": "150,000" in words,
        "the minimum trigger, 50,000": "50,000" in words,
        "what later requests drop": "drops everything before the last compaction block" in words,
        "billing as the sum of usage.iterations": "sum of the iterations" in words,
        "on-demand compaction": "on-demand compaction" in words,
    }
    return [name for name, there in wanted.items() if not there]


def test_the_compaction_check_fails_on_a_page_that_does_not_teach_it() -> None:
    assert len(compaction_taught((FIXTURES / "facts_outdated.md").read_text("utf-8"))) == 6


def test_server_side_compaction_is_taught_with_the_emulator() -> None:
    page = DOCS / "spending" / "dont-edit-the-middle.md"
    assert compaction_taught(page.read_text(encoding="utf-8")) == []


# --- spoilers ---------------------------------------------------------------------------

_BOX = re.compile(r'^(?P<kind>!!!|\?\?\?\+?) (?P<type>\w+)(?: "(?P<title>[^"]*)")?\n', re.MULTILINE)


@dataclass(frozen=True)
class Box:
    """One admonition or fold: `!!!` (open) or `???` (folded), its title and its body."""

    kind: str
    title: str
    body: str
    start: int
    end: int


def boxes(text: str) -> list[Box]:
    """Every top-level box of a page, with its indented body."""
    found = []
    for match in _BOX.finditer(text):
        body = re.match(r"(?:(?: {4}[^\n]*)?\n)*", text[match.end() :])
        assert body is not None
        raw = body.group(0).rstrip("\n")
        end = match.end() + len(raw)
        found.append(Box(match["kind"], match["title"] or "", raw, match.start(), end))
    return found


#: Answers a Predict box's question, found in the text just above the box.
KNOWN_ANSWERS = {"Predict: how many calls pay a full rewrite?": ("one full rewrite", "warm again")}


def spoilers(text: str) -> list[str]:
    """Answers on show before the reader asks for them."""
    problems = []
    found = boxes(text)
    for number, box in enumerate(found):
        after = found[number + 1] if number + 1 < len(found) else None
        if box.kind == "!!!" and box.title.startswith("Build"):
            if "```output" in box.body:
                problems.append(f'"{box.title}": its solution and output show unfolded')
            if (
                after is None
                or not after.kind.startswith("???")
                or text[box.end : after.start].strip()
            ):
                problems.append(f'"{box.title}": no folded solution right after it')
        if box.kind == "!!!" and box.title.startswith("Predict"):
            above = text[: box.start].rstrip().rsplit("\n\n", 1)[-1]
            for answer in KNOWN_ANSWERS.get(box.title, ()):
                if answer in " ".join(above.split()):
                    problems.append(f'"{box.title}": the text above it says "{answer}"')
        if box.kind.startswith("???"):
            following = text[box.end : after.start if after else len(text)]
            before_code = re.split(r"^```|^#", following, maxsplit=1, flags=re.MULTILINE)[0]
            for figure in re.findall(r"^<!-- figure: (\w+) -->", before_code, re.MULTILINE):
                problems.append(
                    f'figure {figure} right after the fold "{box.title}" shows its answer'
                )
    return problems


def test_the_spoiler_check_fails_on_the_boxes_as_they_stood() -> None:
    problems = spoilers((FIXTURES / "spoilers_shown.md").read_text(encoding="utf-8"))
    assert any("its solution and output show unfolded" in p for p in problems), problems
    assert any("no folded solution" in p for p in problems), problems
    assert any('says "one full rewrite"' in p for p in problems), problems
    assert any("figure survival_grid" in p for p in problems), problems


def test_no_page_shows_an_answer_before_it_is_asked_for() -> None:
    found = [
        f"{p.relative_to(DOCS)}: {x}" for p in _pages() for x in spoilers(p.read_text("utf-8"))
    ]
    assert found == []
