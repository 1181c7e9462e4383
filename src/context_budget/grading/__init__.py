"""Grading: call a learner's function safely, turn what happened into rows, save the evidence.

This package is the engine every grader shares; each unit's cases live in a
module beside it (`context_budget.grading.unit_a`, and the chapter exercises
in `context_budget.grading.chapters`).

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

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from context_budget.errors import ContextOverflowError

__all__ = [
    "EDITIONS",
    "Attempt",
    "Row",
    "Rows",
    "attempt",
    "check_edition",
    "contract_status",
    "evidence_name",
    "format_grade",
    "report_line",
    "save_evidence",
    "status",
]

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
    return "PASS" if passed else "FAIL"


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


def contract_status(rows: Sequence[Row]) -> str:
    """`"PASSED"` when there are rows and every one passed, else `"NEEDS_WORK"`.

    Examples:
        >>> contract_status([{"case": "a", "observed": 1, "status": "PASS"}]), contract_status([])
        ('PASSED', 'NEEDS_WORK')
    """
    return "PASSED" if rows and all(row["status"] == "PASS" for row in rows) else "NEEDS_WORK"


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
    the new one, never half of either. The folder is created if missing.

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
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target
