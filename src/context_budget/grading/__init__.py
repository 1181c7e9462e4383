"""Grading: call a learner's function safely, turn what happened into rows, save the evidence.

This package is the engine every grader shares. The checkers live beside it,
one module per part of the course: `budget` (I. The budget), `spending`
(II. Spending it well), `harness` (III. The harness), `measured`
(IV. Measured), and one per practical unit, `unit_a` and `unit_b`.

A checker returns a `Verdict`: a string that reads `PASS` or `NEEDS_WORK`,
then what was measured or what is wrong, and that keeps its parts (`status`,
the graded `rows`, a `hints` entry for each failed row) as attributes.

A grader calls a learner's function on fixed inputs and records one row per
case, a dict of this shape:

- `"case"` (str): the property checked, in words;
- `"observed"` (object): what the candidate did, such as a count, a short
  text, or the name of the exception it raised;
- `"status"` (str): `"PASS"` or `"FAIL"`.

A grader never lets a candidate's exception escape: `attempt` turns it into
an observed value and the row fails. A unit's notebook saves what it found
with `save_evidence`, one JSON file per unit, edition and kind of evidence,
written atomically so that an interrupted save leaves the previous file whole.

Examples:
    >>> outcome = attempt(int, "12")
    >>> outcome.value, outcome.error_name
    (12, None)
    >>> attempt(int, "twelve").error_name
    'ValueError'
    >>> print(format_grade([{"case": "parses", "observed": 12, "status": "PASS"}]))
    PASS  parses -> 12
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from context_budget._files import write_atomic
from context_budget.errors import ContextOverflowError

__all__ = [
    "EDITIONS",
    "NEEDS_WORK",
    "PASS",
    "Attempt",
    "Case",
    "Row",
    "Rows",
    "Verdict",
    "all_passed",
    "attempt",
    "brief",
    "check_edition",
    "check_rows",
    "contract_status",
    "difference",
    "evidence_name",
    "format_grade",
    "not_a_number",
    "report_line",
    "run_cases",
    "save_evidence",
    "status",
    "strings_in",
    "within",
    "wrong_shape",
]

#: The verdict word of a right answer.
PASS = "PASS"
#: The verdict word of an answer with something wrong.
NEEDS_WORK = "NEEDS_WORK"

#: One graded case: {"case": str, "observed": object, "status": "PASS" | "FAIL"}.
Row = dict[str, Any]

#: A unit's two notebook editions; each saves files of its own.
EDITIONS = ("student", "worked")


def check_edition(edition: object) -> None:
    """Raise ValueError naming `edition` unless it is one of `EDITIONS`."""
    if edition not in EDITIONS:
        raise ValueError(f"edition must be one of {EDITIONS}, got {edition!r}")


@dataclass(frozen=True)
class Attempt:
    """What one call of a learner's function did.

    Attributes:
        value: what the call returned; `None` when it raised.
        error: the exception it raised, or `None` when it returned.
    """

    value: Any
    error: Exception | None

    @property
    def error_name(self) -> str | None:
        """The raised exception's class name, or `None` when the call returned.

        Any subclass of `ContextOverflowError` reports as `"ContextOverflowError"`,
        the name the contracts use.
        """
        if self.error is None:
            return None
        if isinstance(self.error, ContextOverflowError):
            return "ContextOverflowError"
        return type(self.error).__name__


def attempt(function: Callable[..., Any], *arguments: object) -> Attempt:
    """Call `function(*arguments)` and record the outcome instead of raising.

    Args:
        function: the learner's function.
        *arguments: passed as they are; hand over copies to detect mutation.

    Returns:
        An `Attempt` holding the return value or the exception (any
        `Exception`; `KeyboardInterrupt` and `SystemExit` still propagate).
    """
    try:
        return Attempt(function(*arguments), None)
    except Exception as error:
        return Attempt(None, error)


def status(passed: bool) -> str:
    """`"PASS"` for a passed case, `"FAIL"` otherwise."""
    return PASS if passed else "FAIL"


class Rows:
    """Collects rows; a check that raises while reading a candidate's output fails its row.

    Examples:
        >>> grade = Rows()
        >>> grade.add("is even", lambda: (4 % 2 == 0, 4))
        >>> grade.add("has a length", lambda: (len(None) > 0, "?"))
        >>> [(row["status"], row["observed"]) for row in grade.rows]
        [('PASS', 4), ('FAIL', 'unreadable output (TypeError)')]
    """

    def __init__(self) -> None:
        self.rows: list[Row] = []

    def add(self, case: str, check: Callable[[], tuple[bool, object]]) -> None:
        """Run `check`, which returns `(passed, observed)`, and append its row.

        Args:
            case: the property checked, in words.
            check: reads the candidate's output; an exception in it means the
                output was not the shape the contract promises.
        """
        try:
            passed, observed = check()
        except Exception as error:
            passed, observed = False, f"unreadable output ({type(error).__name__})"
        self.rows.append({"case": case, "observed": observed, "status": status(passed)})


def _shown(observed: object) -> str:
    # a multi-line output is shown on one line, with its newlines escaped
    if isinstance(observed, str):
        return repr(observed) if "\n" in observed else observed
    return repr(observed)


def format_grade(rows: Sequence[Row]) -> str:
    """Rows as text, one line each: `STATUS  case -> observed`.

    Examples:
        >>> print(format_grade([{"case": "no match", "observed": 0, "status": "FAIL"}]))
        FAIL  no match -> 0
    """
    return "\n".join(
        f"{row['status']:<4}  {row['case']} -> {_shown(row['observed'])}" for row in rows
    )


def all_passed(rows: Sequence[Row]) -> bool:
    """True when there are rows and every one passed (an empty grade passes nothing)."""
    return bool(rows) and all(row["status"] == PASS for row in rows)


def contract_status(rows: Sequence[Row]) -> str:
    """`"PASSED"` when there are rows and every one passed, else `"NEEDS_WORK"`.

    Examples:
        >>> contract_status([{"case": "a", "observed": 1, "status": "PASS"}]), contract_status([])
        ('PASSED', 'NEEDS_WORK')
    """
    return "PASSED" if all_passed(rows) else NEEDS_WORK


class Verdict(str):
    """A checker's answer: the text it prints, which keeps the parts it is made of.

    The text is the status, then `": "` and `why` when there is one; then, one
    line each, every row as `format_grade` writes it, followed by its hint when
    `hints` has one. Being a `str`, a verdict prints, compares and shows (`'PASS'`)
    as that text. It cannot be changed once made.

    Attributes:
        status: `PASS` or `NEEDS_WORK`.
        why: what was measured or what is wrong, in words; `""` when the rows say it.
        rows: `{"case": str, "observed": object, "status": "PASS" | "FAIL"}`
            dicts, one per check, in order; empty for a one-line verdict.
        hints: case -> what is wrong; a checker gives one for each failed row.

    Examples:
        >>> Verdict(PASS)
        'PASS'
        >>> print(Verdict(NEEDS_WORK, "expected 4, got 5"))
        NEEDS_WORK: expected 4, got 5
        >>> rows = [{"case": "adds", "observed": 5, "status": "FAIL"}]
        >>> verdict = Verdict.of_rows(rows, {"adds": "count both"})
        >>> verdict.status, verdict.passed
        ('NEEDS_WORK', False)
        >>> print(verdict)
        NEEDS_WORK
        FAIL  adds -> 5
              hint: count both
    """

    status: str
    why: str
    rows: tuple[Row, ...]
    hints: Mapping[str, str]

    def __new__(
        cls,
        status: str,
        why: str = "",
        *,
        rows: Sequence[Row] = (),
        hints: Mapping[str, str] | None = None,
    ) -> Verdict:
        if status not in (PASS, NEEDS_WORK):
            raise ValueError(f"a verdict's status is {PASS!r} or {NEEDS_WORK!r}, got {status!r}")
        if not isinstance(why, str):
            raise TypeError(f"a verdict's why is a str, got {type(why).__name__}")
        hints = dict(hints or {})
        lines = [f"{status}: {why}" if why else status]
        for row in rows:
            lines.append(format_grade([row]))
            if row["case"] in hints:
                lines.append(f"      hint: {hints[row['case']]}")
        verdict = super().__new__(cls, "\n".join(lines))
        fields = {"status": str(status), "why": str(why), "rows": tuple(rows), "hints": hints}
        verdict.__dict__.update(fields)
        return verdict

    @classmethod
    def of_rows(cls, rows: Sequence[Row], hints: Mapping[str, str] | None = None) -> Verdict:
        """`PASS` when there are rows and every one passed, else `NEEDS_WORK`, showing the rows."""
        return cls(PASS if all_passed(rows) else NEEDS_WORK, rows=rows, hints=hints)

    @property
    def passed(self) -> bool:
        """True for a `PASS`."""
        return self.status == PASS

    def __reduce__(self) -> tuple[Any, ...]:
        # copied and pickled from its parts, not from its text
        return (_remade, (self.status, self.why, self.rows, dict(self.hints)))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Verdict cannot be changed (tried to set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a Verdict cannot be changed (tried to delete {name!r})")


def check_rows(rows: Sequence[Row]) -> Verdict:
    """The verdict on a unit's graded rows: `PASS` when there are rows and every one
    passed, else `NEEDS_WORK`; its text is that word, then the rows as `format_grade`
    writes them.

    A unit's notebook grades the functions its reader wrote (`grade_unit`, the transfer
    task's `run_transfer`) and hands the rows to this checker, so that its cell, run on
    the course's site, is judged by this verdict, as an exercise of a chapter is by its
    checker's, and not by whether it printed what the notebook's unwritten functions
    printed.

    Examples:
        >>> print(check_rows([{"case": "adds", "observed": 5, "status": "PASS"}]))
        PASS
        PASS  adds -> 5
        >>> check_rows([]).status
        'NEEDS_WORK'
    """
    return Verdict.of_rows(rows)


def _remade(status: str, why: str, rows: Sequence[Row], hints: Mapping[str, str]) -> Verdict:
    return Verdict(status, why, rows=rows, hints=hints)


#: One case for a function: (label, arguments, expected result).
Case = tuple[str, tuple[Any, ...], Any]


def brief(value: object, limit: int = 60) -> str:
    """`repr(value)`, cut to `limit` characters with `...` at the end when longer."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def wrong_shape(what: str, value: object, wanted: str) -> Verdict:
    """The verdict on an answer, or a return value, of the wrong shape: what the reader's
    code gave and what the exercise wants, never the error reading it raised.

    Examples:
        >>> print(wrong_shape("make_request(0, now) returned", ["a"], "a dict"))
        NEEDS_WORK: make_request(0, now) returned ['a'], not a dict
    """
    return Verdict(NEEDS_WORK, f"{what} {brief(value)}, not {wanted}")


def within(got: float, right: float, tolerance: float) -> bool:
    """True when the number `got` is within `tolerance` of `right`: never for NaN, which
    no comparison reaches (a check written `abs(got - right) > tolerance` passed it).

    Examples:
        >>> within(1.585, 1.58, 0.01), within(float("nan"), 1.58, 0.01)
        (True, False)
    """
    return abs(got - right) <= tolerance


def not_a_number(answer: object) -> Verdict:
    """The verdict on an answer that should have been an int."""
    return Verdict(NEEDS_WORK, f"answer with a whole number (an int), got {brief(answer)}")


def strings_in(value: object) -> list[str]:
    """Every string inside `value` (nested dicts' values, lists, tuples), in order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in strings_in(v)]
    return []


def difference(expected: object, observed: object) -> str:
    """What differs, in words; for two dicts, only the keys whose values differ."""
    if isinstance(expected, dict) and isinstance(observed, dict):
        keys = [key for key in expected if observed.get(key, None) != expected[key]]
        keys += [key for key in observed if key not in expected]
        if keys:
            return "; ".join(
                f"{key} expected {brief(expected.get(key))}, got {brief(observed.get(key))}"
                for key in keys[:2]
            )
    if isinstance(expected, str) and isinstance(observed, str):
        want, got = expected.splitlines(), observed.splitlines()
        for number, (line, seen) in enumerate(zip(want, got, strict=False), 1):
            if line != seen:
                return f"line {number} should be {brief(line)}, got {brief(seen)}"
        if len(want) < len(got):
            return (
                f"{len(got)} lines where {len(want)} fit; the extra one is {brief(got[len(want)])}"
            )
        if len(want) > len(got):
            return f"{len(got)} lines where {len(want)} fit; missing {brief(want[len(got)])}"
    return f"expected {brief(expected)}, got {brief(observed)}"


def run_cases(
    candidate: Callable[..., Any],
    cases: Sequence[Case],
    same: Callable[[Any, Any], bool] = lambda observed, expected: bool(observed == expected),
) -> Verdict:
    """`PASS` when every case returns its expected value and leaves its arguments alone.

    Args:
        candidate: the learner's function, called on a deep copy of each case's arguments.
        cases: `(label, arguments, expected)` triples.
        same: `same(observed, expected)` says whether a return value is right;
            an exception in it (an output of the wrong shape) makes the case wrong.

    Returns:
        `PASS`, or `NEEDS_WORK` with how many cases went wrong and the first one.
    """
    wrong: list[str] = []
    for label, arguments, expected in cases:
        given = copy.deepcopy(arguments)
        outcome = attempt(candidate, *given)
        if isinstance(outcome.error, NotImplementedError):
            return Verdict(NEEDS_WORK, "not written yet (it raises NotImplementedError)")
        if outcome.error is not None:
            wrong.append(f"{label}: raised {outcome.error_name}: {outcome.error}")
        elif given != arguments:
            wrong.append(f"{label}: changed its input")
        else:
            try:
                right = same(outcome.value, expected)
            except Exception:  # an output of the wrong shape
                right = False
            if not right:
                wrong.append(f"{label}: {difference(expected, outcome.value)}")
    if not wrong:
        return Verdict(PASS)
    return Verdict(NEEDS_WORK, f"{len(wrong)} of {len(cases)} cases wrong; first, {wrong[0]}")


def report_line(tag: str, report: dict[str, Any]) -> str:
    """One machine-readable line, `TAG={...}`, the report as JSON with sorted keys.

    Examples:
        >>> report_line("EXERCISE_REPORT", {"passed": 9, "unit": "unit-a"})
        'EXERCISE_REPORT={"passed": 9, "unit": "unit-a"}'
    """
    if not tag.isidentifier() or not tag.isupper():
        raise ValueError(f"a report tag is an upper-case identifier, got {tag!r}")
    return f"{tag}={json.dumps(report, sort_keys=True)}"


def evidence_name(unit: str, edition: str, kind: str) -> str:
    """The file name of one piece of evidence: `{unit}-{edition}-{kind}-v1.json`.

    Each edition of a unit gets files of its own, so running the worked edition
    never replaces what the student edition saved.

    Examples:
        >>> evidence_name("unit-a", "student", "handoff")
        'unit-a-student-handoff-v1.json'
    """
    for label, part in (("unit", unit), ("edition", edition), ("kind", kind)):
        if not part or not all(c.isascii() and (c.isalnum() or c == "-") for c in part):
            raise ValueError(f"{label} must be ASCII letters, digits and '-', got {part!r}")
    return f"{unit}-{edition}-{kind}-v1.json"


def save_evidence(folder: Path | str, name: str, data: object) -> Path:
    """Write `data` as indented JSON to `folder/name`, atomically.

    The text goes to a temporary file in the same folder, is flushed to disk,
    and then replaces the target in one rename: a reader sees the old file or
    the new one, never half of either. The folder is created if missing. The
    file gets the mode a plain write gives (an existing file keeps its own, a
    new one 0o666 less the umask), as every file the package writes.

    Args:
        folder: where the evidence goes, e.g. `practical-work/unit-a`.
        name: a bare file name, such as `evidence_name(...)` gives.
        data: anything `json.dumps` accepts; keys are sorted.

    Returns:
        The path written.

    Raises:
        ValueError: `name` is not a bare file name.
        TypeError: `data` is not JSON-serialisable (nothing is written).
    """
    if not name or Path(name).name != name or name in {".", ".."}:
        raise ValueError(f"evidence name must be a bare file name, got {name!r}")
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    target = Path(folder) / name
    target.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(target, text)
