"""Cuts of one long tool result: head, head and tail, and the transfer filter."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget import estimate_tokens, head, head_and_tail, transfer_filter

FLAVORS = ["vanilla", "mint", "mango", "pistachio", "chocolate"]
LOG = "\n".join(f"{10 + i // 12}:{(i * 5) % 60:02d} | {FLAVORS[i % 5]} | 1 tubs" for i in range(80))
LINES = LOG.splitlines()

# Unit A's four transfer cases
SALES = "\n".join(
    [
        "10:02 | vanilla | 2 tubs",
        "10:05 | Pistachio | 1 tubs",
        "10:09 | mint | 3 tubs",
        "10:15 | pistachio | 2 tubs",
        "10:20 | pistachio | 3 tubs",
    ]
)
TRANSFER_CASES = [
    (
        "every match fits",
        [SALES, "pistachio", 100],
        "\n".join(
            [
                "10:05 | Pistachio | 1 tubs",
                "10:15 | pistachio | 2 tubs",
                "10:20 | pistachio | 3 tubs",
                "[kept 3 of 3 matching lines; 5 lines in total]",
            ]
        ),
    ),
    (
        "only the most recent fit",
        [SALES, "pistachio", 14],
        "\n".join(
            [
                "10:15 | pistachio | 2 tubs",
                "10:20 | pistachio | 3 tubs",
                "[kept 2 of 3 matching lines; 5 lines in total]",
            ]
        ),
    ),
    ("no match", [SALES, "mango", 100], "[kept 0 of 0 matching lines; 5 lines in total]"),
    (
        "a zero budget keeps none",
        [SALES, "mint", 0],
        "[kept 0 of 1 matching lines; 5 lines in total]",
    ),
]


def cost(lines: list[str]) -> int:
    return sum(estimate_tokens(line + "\n") for line in lines)


@pytest.mark.parametrize(("label", "arguments", "expected"), TRANSFER_CASES)
def test_transfer_filter_passes_the_seed_cases(
    label: str, arguments: list[object], expected: str
) -> None:
    supplied = copy.deepcopy(arguments)
    assert transfer_filter(*supplied) == expected, label  # type: ignore[arg-type]
    assert supplied == arguments


def test_transfer_filter_keeps_the_latest_matches_and_stops_at_the_first_too_big() -> None:
    text = "mint a\nmint " + "b" * 100 + "\nmint c"
    # the long middle match does not fit, so the older short one is not reached either
    assert (
        transfer_filter(text, "MINT", 5) == "mint c\n[kept 1 of 3 matching lines; 3 lines in total]"
    )


def test_transfer_filter_on_empty_text() -> None:
    assert transfer_filter("", "x", 10) == "[kept 0 of 0 matching lines; 0 lines in total]"


def test_head_keeps_whole_lines_from_the_start_within_budget() -> None:
    out = head(LOG, 60)
    kept = out.splitlines()
    assert kept == LINES[: len(kept)]
    assert cost(kept) <= 60 < cost(LINES[: len(kept) + 1])


def test_head_returns_the_text_itself_when_it_fits() -> None:
    assert head(LOG + "\n", 10_000) == LOG + "\n"
    assert head("", 0) == ""


def test_head_and_tail_keeps_both_ends_and_counts_the_gap() -> None:
    out = head_and_tail(LOG, 60).splitlines()
    gap = next(i for i, line in enumerate(out) if line.startswith("[..."))
    first, last = out[:gap], out[gap + 1 :]
    assert first == LINES[: len(first)] and first
    assert last == LINES[len(LINES) - len(last) :] and last
    assert out[gap] == f"[... {80 - len(first) - len(last)} lines left out ...]"
    assert cost(first + last) <= 60


def test_head_and_tail_says_line_for_a_single_gap() -> None:
    text = "aaa\nbbb\nccc"  # 1 token a line
    assert head_and_tail(text, 2) == "aaa\n[... 1 line left out ...]\nccc"


def test_head_and_tail_returns_the_text_itself_when_it_fits() -> None:
    assert head_and_tail(LOG, cost(LINES)) == LOG


def test_head_and_tail_at_zero_budget_still_says_what_is_missing() -> None:
    assert head_and_tail(LOG, 0) == "[... 80 lines left out ...]"


def test_the_tail_gets_what_the_head_left_over() -> None:
    # 3 tokens a line; half of 9 is 4: one line fits there, leaving 6 (two lines) for the tail
    a, b, c, d = "a" * 11, "b" * 11, "c" * 11, "d" * 11
    out = head_and_tail("\n".join([a, b, c, d]), 9)
    assert out == "\n".join([a, "[... 1 line left out ...]", c, d])


@pytest.mark.parametrize("cut", [head, head_and_tail])
@pytest.mark.parametrize(
    ("budget", "error", "match"),
    [(-1, ValueError, "budget must be >= 0 tokens, got -1"), (2.5, TypeError, "got 2.5")],
)
def test_cuts_reject_a_bad_budget(
    cut: object, budget: object, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        cut(LOG, budget)  # type: ignore[operator]


def test_transfer_filter_rejects_a_bad_needle_and_budget() -> None:
    with pytest.raises(TypeError, match="needle must be a str"):
        transfer_filter(SALES, None, 10)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="got -3"):
        transfer_filter(SALES, "mint", -3)
    with pytest.raises(TypeError, match="text must be a str"):
        transfer_filter(["mint"], "mint", 3)  # type: ignore[arg-type]


@pytest.mark.parametrize("ending", ["\r\n", "\r", "\n", "\u2028"])
@pytest.mark.parametrize("cut", [head, head_and_tail])
def test_every_cut_stays_within_its_budget_whatever_the_line_ending(
    cut: Callable[[str, int], str], ending: str
) -> None:
    # break 8: head("abc\r\n" * 100, 100) returned all 125 tokens
    text = ("abc" + ending) * 100
    for budget in (0, 50, 99, 100, 101, 124, 125, 200):
        out = cut(text, budget)
        kept = [line for line in out.split("\n") if not line.startswith("[...")]
        assert estimate_tokens("\n".join(kept)) <= budget, (budget, out[:40])


def test_head_returns_crlf_text_itself_only_when_it_fits_as_it_is() -> None:
    text = "abc\r\n" * 100
    assert head(text, 125) == text
    assert head(text, 124) == "\n".join(["abc"] * 100)


@pytest.mark.parametrize("cut", [head, head_and_tail])
def test_a_text_that_fits_whole_comes_back_whole_though_its_lines_cost_more(
    cut: Callable[[str, int], str],
) -> None:
    # "a\nb\nc" is 2 tokens whole, but 3 lines of 1 token each when charged one by one
    assert cut("a\nb\nc", 2) == "a\nb\nc"
    # a 100-line log of 75 tokens, 100 tokens line by line: at 80 no line is lost
    log = "\n".join(["ab"] * 100)
    assert estimate_tokens(log) == 75
    assert cut(log, 80) == log
    assert cut(log, 75) == log


def test_head_and_tail_never_grows_a_text_that_fits() -> None:
    assert estimate_tokens(head_and_tail("a\nb\nc", 2)) == 2


@pytest.mark.parametrize("cut", [head, head_and_tail])
@given(
    text=st.lists(st.sampled_from(["a", "bc", "\n", "\r\n", " ", "é", "{", "7"])).map("".join),
    slack=st.integers(0, 40),
)
def test_any_text_within_its_budget_comes_back_itself(
    cut: Callable[..., str], text: str, slack: int
) -> None:
    for counter in (estimate_tokens, len, lambda value: len(value.split())):
        budget = counter(text) + slack
        assert cut(text, budget, counter) == text
