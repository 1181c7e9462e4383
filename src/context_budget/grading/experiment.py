"""Checkers for the exercises of the incident-experiment pages.

Each checker takes the learner's answer, measures it with the experiment's own
runs, and returns one line: `"PASS: ..."` with what was measured, or
`"NEEDS_WORK: ..."` saying what is wrong. A learner's exception is reported as
NEEDS_WORK with its class name, never raised.

Examples:
    >>> print(check_cheapest_of_three("compact"))
    PASS: compact costs $0.306, the least of naive, clear and compact
    >>> print(check_cheapest_of_three("clear"))
    NEEDS_WORK: clear costs $0.355; compact costs $0.306
"""

from __future__ import annotations

from collections.abc import Callable

from context_budget.experiment import RunResult, run_strategy
from context_budget.fakes.simulated import SimulatedModel

__all__ = [
    "check_cheapest_of_three",
    "check_floor_ratio",
    "check_reads_per_step",
    "check_rereads",
]

PASS = "PASS"
NEEDS_WORK = "NEEDS_WORK"
_THREE = ("naive", "clear", "compact")


def _run(name: str, *, with_notes: bool = True) -> RunResult:
    return run_strategy(name, with_notes=with_notes)


def check_cheapest_of_three(guess: object) -> str:
    """Exercise: which of naive, clear and compact costs least in the simulation?

    Args:
        guess: a strategy name, `"naive"`, `"clear"` or `"compact"`.

    Returns:
        One line, PASS or NEEDS_WORK.
    """
    if guess not in _THREE:
        return f"{NEEDS_WORK}: answer one of {', '.join(_THREE)}, got {guess!r}"
    costs = {name: _run(name).cost_usd for name in _THREE}
    best = min(costs, key=costs.__getitem__)
    if guess == best:
        return f"{PASS}: {best} costs ${costs[best]:.3f}, the least of naive, clear and compact"
    return f"{NEEDS_WORK}: {guess} costs ${costs[str(guess)]:.3f}; {best} costs ${costs[best]:.3f}"


def check_rereads(count: Callable[[RunResult], int]) -> str:
    """Exercise: write `count(run)`, the `read_file` calls beyond the first per report.

    Args:
        count: the learner's function, from a `RunResult` to a number of calls.

    Returns:
        One line, PASS or NEEDS_WORK, checked on `clear` with and without notes.
    """
    for with_notes in (True, False):
        run = _run("clear", with_notes=with_notes)
        try:
            got = count(run)
        except Exception as error:  # the learner's bug is a finding, not a crash
            return f"{NEEDS_WORK}: count raised {type(error).__name__}: {error}"
        if got != run.rereads:
            label = "with notes" if with_notes else "without notes"
            return (
                f"{NEEDS_WORK}: clear {label} read {len(run.reads)} times over "
                f"{len(set(run.reads))} reports; count gave {got!r}"
            )
    return f"{PASS}: count matches on clear with and without notes"


def check_floor_ratio(ratio: Callable[[RunResult], float]) -> str:
    """Exercise: write `ratio(run)`, a run's cost over its cost floor (reports uncached + output).

    Args:
        ratio: the learner's function, from a `RunResult` to a float.

    Returns:
        One line, PASS or NEEDS_WORK, checked on `naive` and `cache-aware`.
    """
    for name in ("naive", "cache-aware"):
        run = _run(name)
        try:
            got = ratio(run)
        except Exception as error:  # the learner's bug is a finding, not a crash
            return f"{NEEDS_WORK}: ratio raised {type(error).__name__}: {error}"
        if not isinstance(got, int | float) or abs(got - run.floor_ratio) > 0.01:
            return f"{NEEDS_WORK}: {name}: expected about {run.floor_ratio:.2f}, got {got!r}"
    return f"{PASS}: ratio matches on naive and cache-aware"


def check_reads_per_step(reads: object, steps: object) -> str:
    """Exercise: predict the calls of the just-in-time run when the agent reads more a step.

    The `naive` run reads two reports a step. With `reads` reports a step
    (`SimulatedModel(reads_per_step=reads)`), how many calls does it take?

    Args:
        reads: reports read per step, an int from 1 to 6.
        steps: the learner's prediction of the run's calls (`RunResult.steps`).

    Returns:
        One line, PASS or NEEDS_WORK, with the measured count.
    """
    if type(reads) is not int or not 1 <= reads <= 6:
        return f"{NEEDS_WORK}: reads must be an int from 1 to 6, got {reads!r}"
    if type(steps) is not int:
        return f"{NEEDS_WORK}: steps must be an int (a number of calls), got {steps!r}"
    run = run_strategy("naive", simulated=SimulatedModel(reads_per_step=reads))
    if steps == run.steps:
        return f"{PASS}: {reads} a step takes {run.steps} calls, ${run.cost_usd:.3f}"
    hint = "one call lists the files and one answers; the rest read"
    return f"{NEEDS_WORK}: {reads} a step takes {run.steps} calls, not {steps} ({hint})"
