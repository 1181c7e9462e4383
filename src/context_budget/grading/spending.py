"""Checkers for the exercises of Part II, *Spending it well*.

Each checker takes the reader's answer or function, measures it (with the
experiment's own runs, Unit A's cases, or the prefix guard and the cache
model) and returns a `Verdict`: `PASS`, with what was measured when there is
something to say, or `NEEDS_WORK: ` and what is wrong. A checker never raises
because of the reader's code: an exception inside it is reported in the verdict.

The checkers, by chapter:

- *Load just in time*: `check_reads_per_step`;
- *Cutting a long tool result*: `check_head`, `check_tail`;
- *Write things down*: `check_rereads`;
- *Trim deliberately*: `check_cheapest_of_three`, `check_floor_ratio`;
- *Clearing and compaction*: `check_clearing`, `check_visible_at_400`,
  `check_safe_trim`;
- *Don't edit the middle*: `check_guard_predictions`, `check_restart`.

Examples:
    >>> print(check_cheapest_of_three("compact"))
    PASS: compact costs $0.306, the least of naive, clear and compact
    >>> print(check_cheapest_of_three("clear"))
    NEEDS_WORK: clear costs $0.355; compact costs $0.306
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from context_budget.cache import PromptCache
from context_budget.compaction import compact
from context_budget.cuts import head
from context_budget.experiment import RunResult, run_strategy
from context_budget.fakes.simulated import SimulatedModel
from context_budget.grading import (
    NEEDS_WORK,
    PASS,
    Case,
    Verdict,
    attempt,
    not_a_number,
    run_cases,
    strings_in,
    within,
    wrong_shape,
)
from context_budget.grading.unit_a import grade_unit
from context_budget.history import PrefixGuard, validate_history
from context_budget.layers import Layers, budget_report
from context_budget.messages import Message, tool_message
from context_budget.scenarios.cache_runs import TASK, middle_run, read_call, read_result
from context_budget.scenarios.lucy import LUCY, PLANS
from context_budget.survival import survival_table
from context_budget.tokens import estimate_tokens

__all__ = [
    "check_cheapest_of_three",
    "check_clearing",
    "check_floor_ratio",
    "check_guard_predictions",
    "check_head",
    "check_reads_per_step",
    "check_rereads",
    "check_restart",
    "check_safe_trim",
    "check_tail",
    "check_visible_at_400",
]


#: The three strategies of the trim-deliberately exercise.
_THREE = ("naive", "clear", "compact")


def _run(name: str, *, with_notes: bool = True) -> RunResult:
    """One run of the incident experiment, by strategy name."""
    return run_strategy(name, with_notes=with_notes)


# --- Load just in time ----------------------------------------------------------------


def check_reads_per_step(reads: object, steps: object) -> Verdict:
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
        return Verdict(NEEDS_WORK, f"reads must be an int from 1 to 6, got {reads!r}")
    if type(steps) is not int:
        return Verdict(NEEDS_WORK, f"steps must be an int (a number of calls), got {steps!r}")
    run = run_strategy("naive", simulated=SimulatedModel(reads_per_step=reads))
    if steps == run.steps:
        return Verdict(PASS, f"{reads} a step takes {run.steps} calls, ${run.cost_usd:.3f}")
    hint = "one call lists the files and one answers; the rest read"
    return Verdict(NEEDS_WORK, f"{reads} a step takes {run.steps} calls, not {steps} ({hint})")


# --- Cutting --------------------------------------------------------------------------


def _sales_rows(count: int) -> str:
    """`count` sales, one every five minutes from 10:00: `10:05 | sale 2`."""
    stamps = [divmod(10 * 60 + 5 * n, 60) for n in range(count)]
    return "\n".join(f"{hour}:{minute:02} | sale {n}" for n, (hour, minute) in enumerate(stamps, 1))


_LOG = _sales_rows(30)


def _tail(text: str, budget: int) -> str:
    lines = text.splitlines()
    kept, used = 0, 0
    for line in reversed(lines):
        cost = estimate_tokens(line + "\n")
        if used + cost > budget:
            break
        kept, used = kept + 1, used + cost
    if kept == len(lines):
        return text
    return "\n".join([f"[... {len(lines) - kept} lines left out ...]", *lines[len(lines) - kept :]])


def _cut_cases(reference: Callable[[str, int], str]) -> list[Case]:
    shapes = [
        ("everything fits", _LOG, 10_000),
        ("a budget of 30", _LOG, 30),
        ("a budget of 0", _LOG, 0),
        ("one line", "10:00 | sale 1", 5),
        ("empty text", "", 10),
    ]
    return [(label, (text, budget), reference(text, budget)) for label, text, budget in shapes]


def check_head(function: Callable[[str, int], str]) -> Verdict:
    """The reader's `first_lines(text, budget)` against the package's `head`.

    Examples:
        >>> check_head(head)
        'PASS'
    """
    return run_cases(function, _cut_cases(head))


def check_tail(function: Callable[[str, int], str]) -> Verdict:
    """The reader's `tail(text, budget)`: the last lines that fit, after a gap line if any dropped.

    Examples:
        >>> verdict = check_tail(lambda text, budget: text)
        >>> for part in verdict.split("; first, "):
        ...     print(part)
        NEEDS_WORK: 2 of 5 cases wrong
        a budget of 30: line 1 should be '[... 23 lines left out ...]', got '10:00 | sale 1'
    """
    return run_cases(function, _cut_cases(_tail))


# --- Write things down ----------------------------------------------------------------


def check_rereads(count: Callable[[RunResult], int]) -> Verdict:
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
            return Verdict(NEEDS_WORK, f"count raised {type(error).__name__}: {error}")
        if got != run.rereads:
            label = "with notes" if with_notes else "without notes"
            return Verdict(
                NEEDS_WORK,
                f"clear {label} read {len(run.reads)} times over "
                f"{len(set(run.reads))} reports; count gave {got!r}",
            )
    return Verdict(PASS, "count matches on clear with and without notes")


# --- Trim deliberately ----------------------------------------------------------------


def check_cheapest_of_three(guess: object) -> Verdict:
    """Exercise: which of naive, clear and compact costs least in the simulation?

    Args:
        guess: a strategy name, `"naive"`, `"clear"` or `"compact"`.

    Returns:
        One line, PASS or NEEDS_WORK.
    """
    if guess not in _THREE:
        return Verdict(NEEDS_WORK, f"answer one of {', '.join(_THREE)}, got {guess!r}")
    costs = {name: _run(name).cost_usd for name in _THREE}
    best = min(costs, key=costs.__getitem__)
    if guess == best:
        return Verdict(
            PASS, f"{best} costs ${costs[best]:.3f}, the least of naive, clear and compact"
        )
    return Verdict(
        NEEDS_WORK, f"{guess} costs ${costs[str(guess)]:.3f}; {best} costs ${costs[best]:.3f}"
    )


def check_floor_ratio(ratio: Callable[[RunResult], float]) -> Verdict:
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
            return Verdict(NEEDS_WORK, f"ratio raised {type(error).__name__}: {error}")
        if not isinstance(got, int | float) or not within(got, run.floor_ratio, 0.01):
            return Verdict(NEEDS_WORK, f"{name}: expected about {run.floor_ratio:.2f}, got {got!r}")
    return Verdict(PASS, "ratio matches on naive and cache-aware")


# --- Clearing and compaction ----------------------------------------------------------


def check_clearing(function: Callable[[list[Message], int], list[Message]]) -> Verdict:
    """The reader's `clear_old_tool_results(messages, keep_last)` on Unit A's clearing cases.

    Examples:
        >>> check_clearing(lambda messages, keep_last: [dict(m) for m in messages])
        'NEEDS_WORK: clears all but the last two -> 0'
    """
    rows = grade_unit(function, compact)[:3]  # the three clearing cases
    failed = [row for row in rows if row["status"] != "PASS"]
    if not failed:
        return Verdict(PASS)
    return Verdict(NEEDS_WORK, "; ".join(f"{row['case']} -> {row['observed']}" for row in failed))


def check_visible_at_400(answer: object) -> Verdict:
    """How many of Lucy's 11 facts are visible after compaction to 400 tokens, rules not pinned.

    Examples:
        >>> print(check_visible_at_400(9))
        NEEDS_WORK: 9 is the count with the rules pinned; here the summary can drop them
    """
    if isinstance(answer, bool) or not isinstance(answer, int):
        return not_a_number(answer)
    table = survival_table(LUCY, PLANS)
    counts = {label: len(row["kept"]) for label, row in table.items()}
    if answer == counts["400"]:
        return Verdict(PASS)
    if answer == counts["400+pinned"]:
        return Verdict(
            NEEDS_WORK,
            f"{answer} is the count with the rules pinned; here the summary can drop them",
        )
    if answer == len(LUCY.questions):
        return Verdict(NEEDS_WORK, "at 400 tokens the summary has to drop something")
    return Verdict(
        NEEDS_WORK, f"not {answer}: which facts hold a digit that keep_numbers would keep?"
    )


def _call(ident: str, name: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": ident, "name": name, "input": {}}


def _result(ident: str, rows: int) -> dict[str, Any]:
    content = str(
        tool_message("t", {"rows": [f"row {i}: 12 tubs" for i in range(rows)]})["content"]
    )
    return {"type": "tool_result", "tool_use_id": ident, "content": content}


def _afternoon() -> list[Message]:
    """A short Anthropic-format afternoon: questions, calls, results (one pair of two)."""
    return [
        {"role": "user", "content": "Check the freezers, please."},
        {"role": "assistant", "content": [_call("toolu_a1", "freezer_count")]},
        {"role": "user", "content": [_result("toolu_a1", 12)]},
        {"role": "assistant", "content": "Both freezers are fine."},
        {"role": "user", "content": "And the deliveries and the till?"},
        {
            "role": "assistant",
            "content": [_call("toolu_a2", "deliveries"), _call("toolu_a3", "till")],
        },
        {"role": "user", "content": [_result("toolu_a2", 8), _result("toolu_a3", 3)]},
        {"role": "assistant", "content": "All delivered; the till is balanced."},
        {"role": "user", "content": "Thanks. What is left for today?"},
        {"role": "assistant", "content": "Only locking up."},
    ]


def _starts_on_a_question(conversation: Sequence[Message]) -> bool:
    first = conversation[0]
    blocks = first["content"] if isinstance(first["content"], list) else []
    return first["role"] == "user" and all(block.get("type") != "tool_result" for block in blocks)


def _longest_safe_suffix(conversation: list[Message], budget: int) -> int:
    """How many messages the safest drop-the-oldest trim keeps at `budget`."""
    for start in range(len(conversation)):
        rest = conversation[start:]
        fits = budget_report(Layers("", [], rest))["total"] <= budget
        if fits and _starts_on_a_question(rest):
            return len(rest)
    return 0


def check_safe_trim(function: Callable[[Layers, int], Layers]) -> Verdict:
    """The reader's drop-the-oldest trim `(layers, budget) -> layers` at every budget.

    It passes when, at budgets from 0 to the afternoon's full size in steps of
    5 tokens, it only ever drops messages from the front, never leaves a broken
    tool-call pair (`validate_history`), fits the budget, and keeps as many
    messages as the safest such trim does.

    Examples:
        >>> print(check_safe_trim(lambda layers, budget: layers))
        NEEDS_WORK: at a budget of 0 tokens it keeps 208 tokens
    """
    afternoon = _afternoon()
    full = budget_report(Layers("", [], afternoon))["total"]
    for budget in range(0, full + 5, 5):
        given = Layers("", [], copy.deepcopy(afternoon))
        outcome = attempt(function, given, budget)
        if isinstance(outcome.error, NotImplementedError):
            return Verdict(NEEDS_WORK, "not written yet (it raises NotImplementedError)")
        if outcome.error is not None:
            return Verdict(
                NEEDS_WORK, f"at a budget of {budget} tokens it raised {outcome.error_name}"
            )
        if given.conversation != afternoon:
            return Verdict(NEEDS_WORK, "it changed the layers it was given")
        try:
            kept = list(outcome.value.conversation)
            size = budget_report(Layers("", [], kept))["total"]
            problems = validate_history(kept)
        except Exception as error:
            return Verdict(NEEDS_WORK, f"it returned no readable Layers ({type(error).__name__})")
        if kept != afternoon[len(afternoon) - len(kept) :]:
            return Verdict(
                NEEDS_WORK, f"at a budget of {budget} tokens it kept more than the newest messages"
            )
        if size > budget:
            return Verdict(NEEDS_WORK, f"at a budget of {budget} tokens it keeps {size} tokens")
        if problems:
            return Verdict(
                NEEDS_WORK, f"at a budget of {budget} tokens the history breaks: {problems[0]}"
            )
        safest = _longest_safe_suffix(afternoon, budget)
        if len(kept) < safest:
            return Verdict(
                NEEDS_WORK,
                f"at a budget of {budget} tokens it keeps {len(kept)} messages "
                f"where {safest} can stay",
            )
    return Verdict(PASS)


# --- Don't edit the middle ------------------------------------------------------------

#: The model whose prompt cache prices the restart exercise.
_MODEL = "claude-sonnet-4-6"


def check_guard_predictions(predictions: Mapping[str, str]) -> Verdict:
    """Exercise 1 (Don't edit the middle): predict the guard's worst verdict on each strategy.

    `predictions` maps `"append"`, `"client_clear"`, `"server_clear"` and
    `"restart"` to `"append"`, `"replaced"` or `"edited"`: the verdict the
    guard gives that run at its worst (edited > replaced > append).
    """
    order = {"first": 0, "append": 1, "replaced": 2, "edited": 3}
    if not isinstance(predictions, Mapping):
        return wrong_shape("the answer is", predictions, "a dict of strategy -> verdict")
    wrong = []
    for strategy in ("append", "client_clear", "server_clear", "restart"):
        if strategy not in predictions:
            return Verdict(NEEDS_WORK, f"no prediction for {strategy!r}")
        calls = middle_run(strategy)
        worst = max(calls, key=lambda call: order[call.guard])
        if predictions[strategy] != worst.guard:
            at = calls.index(worst) + 1
            wrong.append(
                f"{strategy}: you said {predictions[strategy]!r}, the guard said "
                f"{worst.guard!r} (first at call {at})"
            )
    if wrong:
        return Verdict(NEEDS_WORK, "; ".join(wrong))
    return Verdict(PASS, "all four verdicts right")


def check_restart(restart: Callable[[list[Message], str], list[Message]]) -> Verdict:
    """Exercise 2 (Don't edit the middle): restart from a summary without editing the middle.

    `restart(history, summary)` returns the history to send next. PASS when
    the guard does not call it an edit, it is a valid history, it still holds
    the task and the summary, it is under half the old size, and `history`
    is left as it was.
    """
    history: list[Message] = [{"role": "user", "content": TASK}]
    for n in range(6):
        history += [read_call(n), read_result(n)]
    summary = "Read INC-1000 to INC-1005; auth was down 57 minutes, the longest so far."
    before = copy.deepcopy(history)
    guard = PrefixGuard()
    guard.check(history)
    try:
        fresh = restart(history, summary)
    except Exception as error:
        return Verdict(NEEDS_WORK, f"restart raised {type(error).__name__}: {error}")
    if history != before:
        return Verdict(NEEDS_WORK, "restart changed the history it was given; build a new list")
    if not isinstance(fresh, list) or not all(isinstance(m, Mapping) for m in fresh):
        return wrong_shape("restart returned", fresh, "a list of messages (dicts)")
    try:
        report = guard.check(fresh)
    except (TypeError, ValueError) as error:
        return Verdict(NEEDS_WORK, f"the new history is malformed: {error}")
    if not report.ok:
        return Verdict(
            NEEDS_WORK,
            f"the guard says {report}: a new conversation must not begin like the old one "
            "and then differ; put the task and the summary in one new first message",
        )
    problems = validate_history(fresh)
    if problems:
        return Verdict(NEEDS_WORK, f"the new history breaks a tool call: {problems[0]}")
    text = "\0".join(strings_in(fresh))
    if TASK not in text or summary not in text:
        return Verdict(NEEDS_WORK, "the new history must carry both the task and the summary")
    old, new = (PromptCache(_MODEL).prompt_tokens(messages=m) for m in (history, fresh))
    if new * 2 > old:
        return Verdict(NEEDS_WORK, f"the new history is {new:,} tokens; the old one was {old:,}")
    return Verdict(PASS, f"{report.kind}, {old:,} -> {new:,} tokens")
