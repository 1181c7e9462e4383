"""A checker fed an answer or a function's return of the wrong shape says what it got.

Every exercise checker of the chapters (`context_budget.grading.budget`, `.spending`,
`.harness`, `.measured`) is called with a function returning, or an answer that is, a
list, a string, None, an int or a list of dicts where the exercise wants something
else. The verdict must be NEEDS_WORK, name what came back, and never show an
exception the checker's own reading raised (`dictionary update sequence element #0
has length 1; 2 is required`, `'NoneType' object is not iterable`), nor raise.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import pytest

from context_budget.grading import NEEDS_WORK, budget, harness, measured, spending

#: Texts of Python's own exceptions about shapes: what a reader should never see.
RAW = re.compile(
    r"dictionary update sequence|object is not|has no attribute|not subscriptable"
    r"|unhashable|not supported between|is not iterable|object of type"
)
BAD: dict[str, object] = {
    "a list": ["x", 1],
    "a string": "hello",
    "None": None,
    "an int": 3,
    "a list of dicts": [{"a": 1}],
}


def _checkers() -> list[tuple[str, Callable[..., Any]]]:
    found = []
    for module in (budget, spending, harness, measured):
        for name, function in sorted(vars(module).items()):
            own = inspect.isfunction(function) and function.__module__ == module.__name__
            if name.startswith("check_") and own:
                found.append((f"{module.__name__.rsplit('.', 1)[1]}.{name}", function))
    return found


def _called(function: Callable[..., Any], bad: object) -> str:
    """The checker's verdict when each argument it needs returns (or is) `bad`."""
    arguments = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.default is not inspect.Parameter.empty:
            continue
        wants_function = "Callable" in str(parameter.annotation) or "Loop" in str(
            parameter.annotation
        )
        arguments.append((lambda *args, **kwargs: bad) if wants_function else bad)
    return str(function(*arguments))


CHECKERS = _checkers()


def raw_exceptions(verdicts: dict[str, str]) -> list[str]:
    """The verdicts that show one of Python's shape errors, or are not NEEDS_WORK."""
    return [
        f"{label}: {text[:120]}"
        for label, text in verdicts.items()
        if RAW.search(text) or not text.startswith(NEEDS_WORK)
    ]


def test_the_shape_check_fails_on_the_messages_as_they_stood() -> None:
    """Keep the start stable, exercise 1, given a list where a request dict belongs."""
    old = {
        "budget.check_timestamp_moved (a list)": "NEEDS_WORK: turn 0 raised ValueError: "
        "dictionary update sequence element #0 has length 1; 2 is required"
    }
    assert raw_exceptions(old) == [f"{label}: {text}" for label, text in old.items()]


def test_there_are_checkers_to_try() -> None:
    names = [label for label, _ in CHECKERS]
    assert "budget.check_timestamp_moved" in names and "measured.check_rebuild_finder" in names
    assert len(names) >= 15


@pytest.mark.parametrize(("label", "checker"), CHECKERS, ids=[label for label, _ in CHECKERS])
def test_a_wrong_shape_gets_a_verdict_that_says_what_came_back(
    label: str, checker: Callable[..., Any]
) -> None:
    verdicts = {}
    for kind, bad in BAD.items():
        try:
            verdicts[f"{label} ({kind})"] = _called(checker, bad)
        except Exception as error:  # a checker must never raise on a reader's answer
            verdicts[f"{label} ({kind})"] = f"raised {type(error).__name__}: {error}"
    assert raw_exceptions(verdicts) == []
