"""Unit A's cases: the nine visible cases for clearing and compaction, and the transfer task.

`grade_unit` grades a learner's `clear_old_tool_results` and `compact`;
`run_transfer` grades the transfer task's `transfer_filter` on
`TRANSFER_CASES`. Both hand the candidate copies of their inputs and fail a
case whose candidate changed them. The notebook helpers at the end build the
unit's reports and save its evidence, one file per edition.

The fixtures of `grade_unit` (private, described here so that a failing row
can be traced):

- `_TOOL`: a `stock_level` tool result of 40 `"vanilla 12"` rows;
- `_SMALL`: a two-message exchange;
- `_LONG`: 8 rounds of (user `q{i}`, `_TOOL`, assistant `a{i}`), so 24
  messages and 8 tool results.

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
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from context_budget.clearing import clear_old_tool_results
from context_budget.compaction import SUMMARY_PREFIX
from context_budget.grading import (
    EDITIONS,
    Attempt,
    Row,
    Rows,
    attempt,
    check_edition,
    check_rows,
    contract_status,
    evidence_name,
    format_grade,
    save_evidence,
    status,
)
from context_budget.layers import Layers, budget_report
from context_budget.messages import Message, tool_message
from context_budget.summarizers import forget_everything

__all__ = [
    "EDITIONS",
    "TRANSFER_CASES",
    "UNIT",
    "WORK_FOLDER",
    "check_rows",
    "contract_status",
    "course_report",
    "exercise_report",
    "format_grade",
    "grade_unit",
    "run_transfer",
    "save_work",
    "transfer_status",
]

#: The unit's name, as its reports and file names spell it.
UNIT = "unit-a"
#: Where the notebooks save, relative to the notebook's working folder.
WORK_FOLDER = Path("practical-work") / UNIT


def _attempt(function: Callable[..., Any], *arguments: object) -> tuple[Any, str | None]:
    """(result, None) when the call returns, (None, exception class name) when it raises."""
    outcome = attempt(function, *arguments)
    return outcome.value, outcome.error_name


_TOOL = tool_message("stock_level", {"rows": ["vanilla 12"] * 40})
_SMALL: list[Message] = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "hello"},
]


def _rounds(count: int) -> list[Message]:
    """`count` rounds of question `q<n>`, the `_TOOL` result, answer `a<n>`."""
    messages: list[Message] = []
    for number in range(count):
        messages += [
            {"role": "user", "content": f"q{number}"},
            _TOOL,
            {"role": "assistant", "content": f"a{number}"},
        ]
    return messages


_LONG = _rounds(8)
_RULE = "Never order mango from Frostline."
_SUMMARY_BUDGET = 250  # tokens: below the cleared size of _LONG, above its last round
_TIGHT_BUDGET = 100  # tokens: less than a 4,000-character record or turn alone


_MARK = "cleared to save context"  # part of the marker clearing leaves behind


def _role(message: Message) -> object:
    return message["role"]


def _cleared_count(messages: Sequence[Message]) -> int:
    """How many messages hold a clearing marker."""
    marked = [message for message in messages if _MARK in str(message["content"])]
    return len(marked)


def _total(layers: Layers) -> int:
    return budget_report(layers)["total"]


def grade_unit(
    clear: Callable[..., Any],
    compactor: Callable[..., Any],
) -> list[Row]:
    """Run the nine visible cases of Unit A against a learner's two functions.

    Args:
        clear: the candidate `clear_old_tool_results(messages, keep_last)`.
        compactor: the candidate `compact(layers, budget, summarize)`; budgets
            are in tokens by `estimate_tokens`.

    Returns:
        Nine rows, in this order: clears all but the last two; keeps every
            message and the order; keep_last beyond the count clears nothing; a
            context that fits is unchanged; step one alone when it is enough;
            summarizes up to the latest question; pinned records are untouched;
            pinned records over the budget raise; a latest turn over the budget
            raises. The budget of "step one alone" is the size of the context
            after this package's own `clear_old_tool_results`. A starter that
            clears nothing fails the first case only.

    Examples:
        >>> from context_budget.compaction import compact
        >>> rows = grade_unit(lambda messages, keep_last: [dict(m) for m in messages], compact)
        >>> [row["status"] for row in rows[:3]], rows[0]["observed"]
        (['FAIL', 'PASS', 'PASS'], 0)
    """
    grade = Rows()
    _clearing_cases(grade, clear)
    _fitting_cases(grade, compactor)
    _summary_cases(grade, compactor)
    _overflow_cases(grade, compactor)
    return grade.rows


def _clearing_cases(grade: Rows, clear: Callable[..., Any]) -> None:
    """Cases 1-3: `clear` on a copy of `_LONG`, keeping the last two results, then keeping
    more than there are."""
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
        roles = list(map(_role, out))
        # every message other than a tool result must come through as it was
        talk = [
            (before, after)
            for before, after in zip(_LONG, out, strict=False)
            if _role(before) != "tool"
        ]
        unchanged = all(before == after for before, after in talk)
        return roles == list(map(_role, _LONG)) and unchanged, len(out)

    def clears_nothing_beyond() -> tuple[bool, object]:
        beyond, failed = _attempt(clear, copy.deepcopy(_LONG), 99)
        if failed:
            return False, failed
        count = _cleared_count(beyond)
        return count == 0 and len(beyond) == len(_LONG), count

    grade.add("clears all but the last two", clears_all_but_two)
    grade.add("keeps every message and the order", keeps_order)
    grade.add("keep_last beyond the count clears nothing", clears_nothing_beyond)


def _fitting_cases(grade: Rows, compactor: Callable[..., Any]) -> None:
    """Cases 4-5: a context that fits comes back unchanged; step one alone when it is
    enough (at the size this package's own clearing reaches)."""

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


def _summary_cases(grade: Rows, compactor: Callable[..., Any]) -> None:
    """Cases 6-7: a summary, then the latest question and what follows it; pinned records kept."""
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


def _overflow_cases(grade: Rows, compactor: Callable[..., Any]) -> None:
    """Cases 8-9: pinned records, or a latest turn, over the budget must raise
    `ContextOverflowError`."""

    def raises(layers: Layers) -> Callable[[], tuple[bool, object]]:
        def check() -> tuple[bool, object]:
            _, failed = _attempt(compactor, layers, _TIGHT_BUDGET, forget_everything)
            return failed == "ContextOverflowError", failed or "returned without raising"

        return check

    too_much_pinned = Layers("s", ["x" * 4000], copy.deepcopy(_SMALL))
    too_long_turn = Layers("s", [], [{"role": "user", "content": "y" * 4000}])
    grade.add("pinned records over the budget raise", raises(too_much_pinned))
    grade.add("a latest turn over the budget raises", raises(too_long_turn))


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


def _observed(outcome: Attempt) -> object:
    """What a transfer row shows: the return value, or what stopped the candidate."""
    if outcome.error is None:
        return outcome.value
    if isinstance(outcome.error, NotImplementedError):
        return {"unfinished": True}  # the starter's own signal: not written yet
    return {"raises": outcome.error_name}


def _equal(left: object, right: object) -> bool:
    """`left == right`, and `False` for values that cannot even be compared."""
    try:
        return bool(left == right)
    except Exception:
        return False


def run_transfer(
    candidate: Callable[..., Any], cases: Sequence[tuple[str, list[Any], object]]
) -> list[Row]:
    """Grade `candidate` on each `(label, arguments, expected)` case.

    The candidate is called on copies of the arguments. A case passes when
    what it returned equals `expected` and the copies are still equal to the
    originals afterwards. A `NotImplementedError` (a starter not written yet)
    is observed as `{"unfinished": True}`; any other exception as
    `{"raises": "<class name>"}`.

    Args:
        candidate: the learner's `transfer_filter(text, needle, budget)`, or any
            function of the cases' arguments.
        cases: such as `TRANSFER_CASES`.

    Returns:
        One row per case, in order, with the keys `"case"`, `"expected"`,
        `"observed"`, `"passed"` (bool) and `"status"` (`"PASS"` or `"FAIL"`).

    Examples:
        >>> def unfinished(text, needle, budget):
        ...     raise NotImplementedError
        >>> row = run_transfer(unfinished, TRANSFER_CASES)[0]
        >>> row["observed"], row["status"]
        ({'unfinished': True}, 'FAIL')
    """
    rows: list[Row] = []
    for label, arguments, expected in cases:
        given = [copy.deepcopy(argument) for argument in arguments]
        observed = _observed(attempt(candidate, *given))
        passed = _equal(given, arguments) and _equal(observed, expected)
        row = {"case": label, "expected": expected, "observed": observed}
        rows.append({**row, "passed": passed, "status": status(passed)})
    return rows


def transfer_status(rows: Sequence[Row]) -> str:
    """`"PASS"` when every transfer row passed (and there is one), else `"NEEDS_WORK"`."""
    return check_rows(rows).status


def exercise_report(
    rows: Sequence[Row], *, compaction_done: bool, handoff: str | None
) -> dict[str, Any]:
    """The unit's core report, printed as the `EXERCISE_REPORT=` line and saved.

    Args:
        rows: `grade_unit`'s rows for the edition's own functions.
        compaction_done: whether the survival lists were computed.
        handoff: the handoff file's path, or `None` when it was not written.

    Returns:
        `{"unit", "visible_cases", "passed", "contract", "compaction", "handoff"}`:
        counts of cases, the contract status, and `"DONE"`/`"NOT_READY"`,
        `"WRITTEN"`/`"NOT_WRITTEN"`.

    Examples:
        >>> report = exercise_report([], compaction_done=False, handoff=None)
        >>> report["contract"], report["handoff"]
        ('NEEDS_WORK', 'NOT_WRITTEN')
    """
    passed = [row for row in rows if row["status"] == "PASS"]
    return {
        "unit": UNIT,
        "visible_cases": len(rows),
        "passed": len(passed),
        "contract": contract_status(rows),
        "compaction": "DONE" if compaction_done else "NOT_READY",
        "handoff": "NOT_WRITTEN" if handoff is None else "WRITTEN",
    }


def course_report(
    edition: str, visible_contract: str, transfer_rows: Sequence[Row], starting_evidence: str
) -> dict[str, Any]:
    """The last line a notebook prints (`COURSE_REPORT=`): one summary of the session.

    Returns:
        `{"unit", "edition", "visible_contract", "transfer_passed": bool,
        "starting_evidence"}`.
    """
    check_edition(edition)
    return {
        "unit": UNIT,
        "edition": edition,
        "visible_contract": visible_contract,
        "transfer_passed": transfer_status(transfer_rows) == "PASS",
        "starting_evidence": starting_evidence,
    }


def save_work(
    edition: str, kind: str, data: Mapping[str, Any], folder: Path | str = WORK_FOLDER
) -> str:
    """Save one piece of the unit's evidence under the edition's own name.

    Args:
        edition: `"student"` or `"worked"`.
        kind: what the file holds, e.g. `"handoff"` or `"submission"`.
        data: the evidence; saved as JSON, atomically.
        folder: relative to the notebook's working folder by default.

    Returns:
        The path written, with forward slashes, e.g.
        `practical-work/unit-a/unit-a-student-handoff-v1.json`.

    Raises:
        ValueError: an unknown edition, or a kind that is not a plain name.
    """
    check_edition(edition)
    return save_evidence(folder, evidence_name(UNIT, edition, kind), dict(data)).as_posix()
