"""Grading Unit A: the visible cases for clearing and compaction, and the transfer task.

A grader calls a learner's function on fixed inputs and turns what happened
into rows, one per case. A row is a dict::

    {"case": str,                 # the property checked, in words
     "observed": object,          # what the candidate did: a count, a short
                                  # text, or the name of the exception it raised
     "status": "PASS" | "FAIL"}

Transfer rows add ``"expected"`` (the exact output wanted) and ``"passed"``
(the status as a bool). A grader never lets a candidate's exception escape:
the exception's class name becomes the observed value and the row fails. It
also hands the candidate a copy of each input and checks afterwards that the
copy was not changed, so a function that edits its input in place fails.

The fixtures of ``grade_unit`` (private, shown here so a failing row can be
traced): ``_TOOL`` is a ``stock_level`` tool result of 40 ``"vanilla 12"``
rows; ``_SMALL`` is a two-message exchange; ``_LONG`` is 8 rounds
of (user ``q{i}``, ``_TOOL``, assistant ``a{i}``), 24 messages and 8 tool
results.

Examples:
    >>> from context_budget.clearing import clear_old_tool_results
    >>> from context_budget.compaction import compact
    >>> rows = grade_unit(clear_old_tool_results, compact)
    >>> contract_status(rows), len(rows)
    ('PASSED', 9)
    >>> print(format_grade(rows[:2]))
    PASS  clears all but the last two -> 6
    PASS  keeps every message and the order -> 24
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from context_budget.clearing import clear_old_tool_results
from context_budget.compaction import SUMMARY_PREFIX
from context_budget.errors import ContextOverflowError
from context_budget.layers import Layers, budget_report
from context_budget.messages import Message, tool_message
from context_budget.summarizers import forget_everything

__all__ = ["TRANSFER_CASES", "contract_status", "format_grade", "grade_unit", "run_transfer"]

#: One graded case: {"case": str, "observed": object, "status": "PASS" | "FAIL"}.
Row = dict[str, Any]

_TOOL = tool_message("stock_level", {"rows": ["vanilla 12"] * 40})
_SMALL: list[Message] = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "hello"},
]
_LONG: list[Message] = [
    message
    for i in range(8)
    for message in (
        {"role": "user", "content": f"q{i}"},
        _TOOL,
        {"role": "assistant", "content": f"a{i}"},
    )
]
_RULE = "Never order mango from Frostline."
_SUMMARY_BUDGET = 250  # tokens: below the cleared size of _LONG, above its last round
_TIGHT_BUDGET = 100  # tokens: less than a 4,000-character record or turn alone


def _error_name(error: Exception) -> str:
    # subtle: any ContextOverflowError subclass reports as the contract's name
    if isinstance(error, ContextOverflowError):
        return "ContextOverflowError"
    return type(error).__name__


def _attempt(function: Callable[..., Any], *arguments: object) -> tuple[Any, str | None]:
    """(result, None) when the call returns, (None, exception class name) when it raises."""
    try:
        return function(*arguments), None
    except Exception as error:
        return None, _error_name(error)


def _cleared_count(messages: Sequence[Message]) -> int:
    """How many messages hold a clearing marker."""
    return sum("cleared to save context" in str(message["content"]) for message in messages)


def _total(layers: Layers) -> int:
    return budget_report(layers)["total"]


class _Rows:
    """Collects rows; a check that raises while reading a candidate's output fails its row."""

    def __init__(self) -> None:
        self.rows: list[Row] = []

    def add(self, case: str, check: Callable[[], tuple[bool, object]]) -> None:
        try:
            passed, observed = check()
        except Exception as error:  # the output was not the shape the contract promises
            passed, observed = False, f"unreadable output ({type(error).__name__})"
        self.rows.append({"case": case, "observed": observed, "status": _status(passed)})


def _status(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def grade_unit(
    clear: Callable[..., Any],
    compactor: Callable[..., Any],
) -> list[Row]:
    """Run the nine visible cases of Unit A against a learner's two functions.

    Args:
        clear: the candidate ``clear_old_tool_results(messages, keep_last)``.
        compactor: the candidate ``compact(layers, budget, summarize)``; budgets
            are in tokens by ``estimate_tokens``.

    Returns:
        Nine rows, in this order: clears all but the last two; keeps every
        message and the order; keep_last beyond the count clears nothing; a
        context that fits is unchanged; step one alone when it is enough;
        summarizes up to the latest question; pinned records are untouched;
        pinned records over the budget raise; a latest turn over the budget
        raises. The budget of "step one alone" is the size of the context after
        this package's own ``clear_old_tool_results``.

    A starter that clears nothing fails the first case only.

    Examples:
        >>> from context_budget.compaction import compact
        >>> rows = grade_unit(lambda messages, keep_last: [dict(m) for m in messages], compact)
        >>> [row["status"] for row in rows[:3]], rows[0]["observed"]
        (['FAIL', 'PASS', 'PASS'], 0)
    """
    grade = _Rows()

    # 1-3: clearing, on a copy of _LONG
    given = copy.deepcopy(_LONG)
    out, error = _attempt(clear, given, 2)

    def clears_all_but_two() -> tuple[bool, object]:
        if error:
            return False, error
        if given != _LONG:
            return False, "changed its input"
        count = _cleared_count(out)
        return count == 6, count

    def keeps_order() -> tuple[bool, object]:
        if error:
            return False, error
        same_roles = [m["role"] for m in out] == [m["role"] for m in _LONG]
        others = [m for m in out if m["role"] != "tool"]
        same_others = others == [m for m in _LONG if m["role"] != "tool"]
        return same_roles and same_others, len(out)

    def clears_nothing_beyond() -> tuple[bool, object]:
        beyond, failed = _attempt(clear, copy.deepcopy(_LONG), 99)
        if failed:
            return False, failed
        count = _cleared_count(beyond)
        return count == 0 and len(beyond) == len(_LONG), count

    grade.add("clears all but the last two", clears_all_but_two)
    grade.add("keeps every message and the order", keeps_order)
    grade.add("keep_last beyond the count clears nothing", clears_nothing_beyond)

    # 4: a context that fits
    def fits_unchanged() -> tuple[bool, object]:
        layers = Layers("s", ["rule"], copy.deepcopy(_SMALL))
        fits, failed = _attempt(compactor, layers, 10_000, forget_everything)
        if failed:
            return False, failed
        if layers.conversation != _SMALL or layers.pinned != ["rule"]:
            return False, "changed its input"
        same = (fits.system, fits.pinned, fits.conversation) == ("s", ["rule"], _SMALL)
        return same, "unchanged" if same else "changed"

    grade.add("a context that fits is unchanged", fits_unchanged)

    # 5: step one alone, at the size this package's clearing reaches
    after_clear = _total(Layers("s", [_RULE], clear_old_tool_results(_LONG, 2)))

    def step_one() -> tuple[bool, object]:
        layers = Layers("s", [_RULE], copy.deepcopy(_LONG))
        cleared, failed = _attempt(compactor, layers, after_clear, forget_everything)
        if failed:
            return False, failed
        if layers.conversation != _LONG:
            return False, "changed its input"
        conversation = cleared.conversation
        count = _cleared_count(conversation)
        passed = len(conversation) == len(_LONG) and count == 6 and _total(cleared) <= after_clear
        return passed, f"{len(conversation)} messages, {count} cleared"

    grade.add("step one alone when it is enough", step_one)

    # 6-7: a summary, then the latest question and what follows it
    layers = Layers("s", [_RULE], copy.deepcopy(_LONG))
    summarized, failed = _attempt(compactor, layers, _SUMMARY_BUDGET, forget_everything)

    def summarizes() -> tuple[bool, object]:
        if failed:
            return False, failed
        if layers.conversation != _LONG:
            return False, "changed its input"
        conversation = summarized.conversation
        first = conversation[0]
        passed = (
            first["role"] == "user"
            and first["content"] == SUMMARY_PREFIX  # forget_everything summarizes to ""
            and conversation[1:] == _LONG[-3:]  # q7, the last tool result, a7
            and _total(summarized) <= _SUMMARY_BUDGET
        )
        return passed, str(first["content"])[:30]

    def pinned_untouched() -> tuple[bool, object]:
        if failed:
            return False, failed
        kept = summarized.pinned == [_RULE] and layers.pinned == [_RULE]
        return kept, "pinned kept" if kept else "pinned changed"

    grade.add("summarizes up to the latest question", summarizes)
    grade.add("pinned records are untouched", pinned_untouched)

    # 8-9: what cannot fit must raise
    def raises(layers: Layers) -> Callable[[], tuple[bool, object]]:
        def check() -> tuple[bool, object]:
            _, failed = _attempt(compactor, layers, _TIGHT_BUDGET, forget_everything)
            return failed == "ContextOverflowError", failed or "returned without raising"

        return check

    too_much_pinned = Layers("s", ["x" * 4000], copy.deepcopy(_SMALL))
    too_long_turn = Layers("s", [], [{"role": "user", "content": "y" * 4000}])
    grade.add("pinned records over the budget raise", raises(too_much_pinned))
    grade.add("a latest turn over the budget raises", raises(too_long_turn))
    return grade.rows


_SALES = "\n".join(
    [
        "10:02 | vanilla | 2 tubs",
        "10:05 | Pistachio | 1 tubs",
        "10:09 | mint | 3 tubs",
        "10:15 | pistachio | 2 tubs",
        "10:20 | pistachio | 3 tubs",
    ]
)

#: The transfer task's visible cases: (label, [text, needle, budget in tokens],
#: the exact output expected).
TRANSFER_CASES: list[tuple[str, list[Any], str]] = [
    (
        "every match fits",
        [_SALES, "pistachio", 100],
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
        [_SALES, "pistachio", 14],
        "\n".join(
            [
                "10:15 | pistachio | 2 tubs",
                "10:20 | pistachio | 3 tubs",
                "[kept 2 of 3 matching lines; 5 lines in total]",
            ]
        ),
    ),
    ("no match", [_SALES, "mango", 100], "[kept 0 of 0 matching lines; 5 lines in total]"),
    (
        "a zero budget keeps none",
        [_SALES, "mint", 0],
        "[kept 0 of 1 matching lines; 5 lines in total]",
    ),
]


def run_transfer(
    candidate: Callable[..., Any], cases: Sequence[tuple[str, list[Any], object]]
) -> list[Row]:
    """Call ``candidate(*arguments)`` for each case and compare with the expected output.

    A ``NotImplementedError`` is observed as ``{"unfinished": True}``, any other
    exception as ``{"raises": class name}``. A case passes when the output
    equals the expected one and the candidate left its arguments unchanged.

    Returns:
        One row per case: ``{"case", "expected", "observed", "passed": bool,
        "status": "PASS" | "FAIL"}``.

    Examples:
        >>> def unfinished(text, needle, budget):
        ...     raise NotImplementedError
        >>> row = run_transfer(unfinished, TRANSFER_CASES)[0]
        >>> row["observed"], row["status"]
        ({'unfinished': True}, 'FAIL')
    """
    rows: list[Row] = []
    for label, arguments, expected in cases:
        supplied = copy.deepcopy(arguments)
        actual: object
        try:
            actual = candidate(*supplied)
        except NotImplementedError:
            actual = {"unfinished": True}
        except Exception as error:
            actual = {"raises": type(error).__name__}
        try:
            passed = bool(actual == expected) and supplied == arguments
        except Exception:  # an output that cannot even be compared
            passed = False
        rows.append(
            {
                "case": label,
                "expected": expected,
                "observed": actual,
                "passed": passed,
                "status": _status(passed),
            }
        )
    return rows


def _shown(observed: object) -> str:
    # a multi-line output is shown on one line, with its newlines escaped
    if isinstance(observed, str):
        return repr(observed) if "\n" in observed else observed
    return repr(observed)


def format_grade(rows: Sequence[Row]) -> str:
    """Rows as text, one line each: ``STATUS  case -> observed``.

    Examples:
        >>> print(format_grade([{"case": "no match", "observed": 0, "status": "FAIL"}]))
        FAIL  no match -> 0
    """
    return "\n".join(
        f"{row['status']:<4}  {row['case']} -> {_shown(row['observed'])}" for row in rows
    )


def contract_status(rows: Sequence[Row]) -> str:
    """``"PASSED"`` when there are rows and every one passed, else ``"NEEDS_WORK"``.

    Examples:
        >>> contract_status([{"case": "a", "observed": 1, "status": "PASS"}]), contract_status([])
        ('PASSED', 'NEEDS_WORK')
    """
    return "PASSED" if rows and all(row["status"] == "PASS" for row in rows) else "NEEDS_WORK"
