"""Cutting one long tool result down to a token budget, whole lines at a time.

Three cuts of a text (lines as `str.splitlines` gives them):

- `head` keeps lines from the start, and silently loses the end of a log;
- `head_and_tail` keeps lines from both ends and says how many it left out;
- `transfer_filter` keeps the most recent lines containing a needle and ends
  with a count line.

How the budget is charged: every kept line costs `counter(line + "\\n")`
(its newline included), and the kept lines together stay within `budget`
tokens. The line a cut adds itself, `[... 52 lines left out ...]` or
`[kept 2 of 3 matching lines; 5 lines in total]`, is *not* charged: it is a
fixed few tokens, and it must appear even at a budget of 0, so that the model
always learns something was removed. A cut's output can therefore exceed
`budget` by the size of that one line (7 to 15 tokens by the estimate).
"""

from __future__ import annotations

from context_budget._counting import count_text, resolve_counter
from context_budget.tokens import TokenCounter

__all__ = ["head", "head_and_tail", "transfer_filter"]


def _check_budget(budget: object) -> int:
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise TypeError(f"budget must be an int number of tokens, got {budget!r}")
    if budget < 0:
        raise ValueError(f"budget must be >= 0 tokens, got {budget}")
    return budget


def _check_text(text: object) -> str:
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return text


def _take(lines: list[str], budget: int, counter: TokenCounter) -> tuple[int, int]:
    """How many leading `lines` fit in `budget`, and the tokens they cost."""
    used = 0
    for kept, line in enumerate(lines):
        cost = count_text(line + "\n", counter)
        if used + cost > budget:
            return kept, used
        used += cost
    return len(lines), used


def head(text: str, budget: int, counter: TokenCounter | None = None) -> str:
    """The first lines of `text` that fit in `budget` tokens.

    Args:
        text: the text to cut, lines as `str.splitlines` gives them.
        budget: the most tokens the kept lines may cost, each charged with
            its newline.
        counter: text -> tokens; `estimate_tokens` when None.

    Returns:
        `text` itself when it fits as it is; otherwise the leading lines that
        fit, joined by newlines, with no sign that anything was cut.

    Raises:
        TypeError: `text` is not a str, or `budget` is not an int.
        ValueError: `budget` is negative.

    Examples:
        >>> head("10:02 vanilla\\n10:05 mint\\n10:09 mango", 8)
        '10:02 vanilla\\n10:05 mint'
    """
    text, budget, counter = _check_text(text), _check_budget(budget), resolve_counter(counter)
    if count_text(text, counter) <= budget:
        return text
    # subtle: lines are charged one by one with their own "\n", which can cost more
    # than the whole text (a one-letter line is a token, "a\nb" is one too), so the
    # whole text is tried first and the lines only when it does not fit as it is
    lines = text.splitlines()
    kept, _ = _take(lines, budget, counter)
    return "\n".join(lines[:kept])


def head_and_tail(text: str, budget: int, counter: TokenCounter | None = None) -> str:
    """Lines from both ends of `text` within `budget` tokens, and a gap line.

    The start gets up to half the budget, the end gets whatever the start left
    over, and between them one line says how many lines were left out
    (`[... 52 lines left out ...]`; the gap line is not charged to the
    budget).

    Args:
        text: the text to cut.
        budget: the most tokens the kept lines may cost.
        counter: text -> tokens; `estimate_tokens` when None.

    Returns:
        `text` itself when it fits as it is; its lines joined by newlines
        when each fits but the text's own line endings do not; otherwise the
        kept first lines, the gap line and the kept last lines.

    Raises:
        TypeError: `text` is not a str, or `budget` is not an int.
        ValueError: `budget` is negative.

    Examples:
        >>> log = "\\n".join(f"10:{minute:02} | vanilla | 1 tub" for minute in range(10))
        >>> print(head_and_tail(log, 14))
        10:00 | vanilla | 1 tub
        [... 8 lines left out ...]
        10:09 | vanilla | 1 tub
    """
    text, budget, counter = _check_text(text), _check_budget(budget), resolve_counter(counter)
    if count_text(text, counter) <= budget:
        return text
    lines = text.splitlines()
    if _take(lines, budget, counter)[0] == len(lines):
        return "\n".join(lines)
    first, used = _take(lines, budget // 2, counter)
    last, _ = _take(lines[first:][::-1], budget - used, counter)
    left_out = len(lines) - first - last
    noun = "line" if left_out == 1 else "lines"
    gap = f"[... {left_out} {noun} left out ...]"
    return "\n".join([*lines[:first], gap, *lines[len(lines) - last :]])


def transfer_filter(
    text: str, needle: str, budget: int, counter: TokenCounter | None = None
) -> str:
    """The most recent lines of `text` containing `needle`, within `budget` tokens.

    Matching ignores case. Starting from the end of the text, matching lines
    are kept while they fit the budget (the first that does not fit stops the
    search, so the kept lines are always the *latest* matches); they are
    returned in their original order, followed by one count line
    `[kept K of M matching lines; T lines in total]`, which is not charged
    to the budget. With no match, only the count line is returned.

    Args:
        text: the text to search.
        needle: what a kept line contains, case ignored.
        budget: the most tokens the kept lines may cost.
        counter: text -> tokens; `estimate_tokens` when None.

    Returns:
        The kept lines in order, then the count line, joined by newlines.

    Raises:
        TypeError: `text` or `needle` is not a str, or `budget` is not an int.
        ValueError: `budget` is negative.

    Examples:
        >>> sales = "10:05 | Pistachio | 1 tub\\n10:09 | mint | 3 tubs\\n10:15 | pistachio | 2 tubs"
        >>> print(transfer_filter(sales, "PISTACHIO", 8))
        10:15 | pistachio | 2 tubs
        [kept 1 of 2 matching lines; 3 lines in total]
    """
    text, budget, counter = _check_text(text), _check_budget(budget), resolve_counter(counter)
    if not isinstance(needle, str):
        raise TypeError(f"needle must be a str, got {type(needle).__name__}")
    lines = text.splitlines()
    wanted = needle.casefold()
    matches = [line for line in lines if wanted in line.casefold()]
    kept, _ = _take(matches[::-1], budget, counter)
    count_line = f"[kept {kept} of {len(matches)} matching lines; {len(lines)} lines in total]"
    return "\n".join([*matches[len(matches) - kept :], count_line])
