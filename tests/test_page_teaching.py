"""What three chapters must teach about usage and the cache, checked on their text.

- *The loop that makes room* describes its task before the first block runs it,
  names `track_usage` as the course's counter (never "the lesson's counter"),
  and shows with a block that the counter under-counts once the cache serves
  the prompt, then the fix, `window_usage`.
- *Keep the start stable* says, right after its first usage, why `input_tokens`
  is 0 there.
- *Read your own bill* explains `predicted_reads` in prose, computes the sum
  of the rebuilds it states, says why the lost-prefix bar is 1,024 tokens, and
  that a cache lifetime runs from the start of a request.

Each check returns what the page leaves out; every one fails on
``tests/fixtures/pages/teaching_as_it_stood.md``, excerpts of the three pages as
they stood before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FIXTURE = Path(__file__).parent / "fixtures" / "pages" / "teaching_as_it_stood.md"

_FENCE = re.compile(r"^```(?P<info>[^\n]*)\n(?P<body>.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def fences(text: str, info: str = "python") -> list[str]:
    """The bodies of the page's fences whose info string is `info`."""
    return [m.group("body") for m in _FENCE.finditer(text) if m.group("info").strip() == info]


def prose(text: str) -> str:
    """The page's running text, fences out, on one line."""
    return " ".join(_FENCE.sub(" ", text).split())


def task_before_it_runs(text: str) -> list[str]:
    """The race-fix task is told (its `update_status` race) before a block runs it."""
    first = next((m for m in _FENCE.finditer(text) if "race_fix" in m.group("body")), None)
    if first is None:
        return ["no block runs the race-fix task"]
    before = prose(text[: first.start()])
    if "update_status" in before and "race" in before:
        return []
    return ["the race-fix task runs before the page says what it is (the update_status race)"]


def counter_named(text: str) -> list[str]:
    """The counter is named as the course's, `track_usage`; "the lesson's counter" is gone."""
    words = prose(text)
    problems = []
    if "lesson's counter" in words:
        problems.append("the page speaks of 'the lesson's counter', a lesson it never names")
    if "course's counter is `track_usage`" not in words:
        problems.append("the page does not name track_usage as the course's counter")
    return problems


def undercount_shown(text: str) -> list[str]:
    """A block feeds `track_usage` cached calls and shows it fall short; one shows the fix."""
    problems = []
    if not any("track_usage" in f and "cache_read_input_tokens" in f for f in fences(text)):
        problems.append("no block feeds track_usage a call whose prompt the cache served")
    if not any("window_usage" in f and "should_compact" in f for f in fences(text)):
        problems.append("no block shows window_usage deciding the compaction instead")
    if "under-count" not in prose(text):
        problems.append("the page never says the counter under-counts with a cache")
    return problems


def zero_input_explained(text: str) -> list[str]:
    """The paragraph after the first output showing `'input_tokens': 0` says why."""
    for match in _FENCE.finditer(text):
        if match.group("info").strip() == "output" and "'input_tokens': 0" in match.group("body"):
            after = prose(text[match.end() :].lstrip("\n").split("\n\n", 1)[0])
            if "`input_tokens`" in after and "after* the last breakpoint" in after:
                return []
            return ["the first usage shows input_tokens 0, and the page does not say why"]
    return ["no output shows input_tokens 0"]


def predicted_reads_explained(text: str) -> list[str]:
    """The prose says what `predicted_reads` does: its counter, its clock, its prediction."""
    words = prose(text)
    wanted = ("`predicted_reads`", "`counter`", "clock", "`cache_read_input_tokens`")
    missing = [word for word in wanted if word not in words]
    return [f"predicted_reads is not explained in prose: no {missing}"] if missing else []


def rebuilds_summed(text: str) -> list[str]:
    """The sum of the rebuilds the page states is computed by a block."""
    if any(re.search(r"sum\([^)]*extra_usd", f) for f in fences(text)):
        return []
    return ["the page states what the rebuilds add up to, but no block sums their extra_usd"]


def threshold_reasoned(text: str) -> list[str]:
    """The 1,024-token bar is tied to the minimum cacheable length, and checked by a block."""
    words = prose(text)
    problems = []
    if not re.search(r"1,024[^.]*minimum cacheable length", words):
        problems.append("the page does not say why the lost-prefix bar is 1,024 tokens")
    if not any("MIN_CACHEABLE_TOKENS" in f for f in fences(text, "pycon") + fences(text)):
        problems.append("no block shows the minimum cacheable length the bar matches")
    return problems


def lifetime_from_start(text: str) -> list[str]:
    """A cache lifetime is said to run from the start of the request."""
    if re.search(r"lifetime[^.]{0,80}from the \*?start\*? of the request", prose(text)):
        return []
    return ["the page does not say a cache lifetime runs from the start of the request"]


CHECKS: tuple[tuple[str, Callable[[str], list[str]]], ...] = (
    ("harness/the-loop.md", task_before_it_runs),
    ("harness/the-loop.md", counter_named),
    ("harness/the-loop.md", undercount_shown),
    ("budget/keep-the-start-stable.md", zero_input_explained),
    ("measured/read-your-own-bill.md", predicted_reads_explained),
    ("measured/read-your-own-bill.md", rebuilds_summed),
    ("measured/read-your-own-bill.md", threshold_reasoned),
    ("measured/read-your-own-bill.md", lifetime_from_start),
)
_IDS = [check.__name__ for _, check in CHECKS]


@pytest.mark.parametrize(("page", "check"), CHECKS, ids=_IDS)
def test_the_teaching_check_fails_on_the_pages_as_they_stood(
    page: str, check: Callable[[str], list[str]]
) -> None:
    assert check(FIXTURE.read_text(encoding="utf-8")) != []


@pytest.mark.parametrize(("page", "check"), CHECKS, ids=_IDS)
def test_the_page_teaches_it(page: str, check: Callable[[str], list[str]]) -> None:
    assert check((DOCS / page).read_text(encoding="utf-8")) == []
