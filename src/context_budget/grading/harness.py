"""Checkers for Part III's two exercises: the threshold arithmetic and the compaction storm.

Each checker returns a `Verdict` (`context_budget.grading`): `PASS` when
every row passed, else `NEEDS_WORK`, with one row per check (`{"case",
"observed", "status"}`, as the Unit A graders write them) and, for each
failed row, a hint that says what is wrong without giving the number away. The expected answers are
computed with the package's own `track_usage` and `should_compact`, never
typed in.

Exercise 1, the threshold: a window of `WINDOW` tokens, ratio `RATIO`, four
turns whose input + output are `TURNS`, then a first call after compaction of
`NEXT_CALL` (input, output). The answer is a mapping with the keys `"turn"`
(which turn, counting from 1, triggers compaction), `"counter_at_trigger"`,
`"after_reset"` and `"after_next_call"` (all in tokens).

Exercise 2, the storm: a loop is a function `loop(client, notes) -> str` that
runs `race_fix.TASK` with `race_fix.TOOLS` on `client`, with a window of
`STORM_WINDOW` and ratio `STORM_RATIO`, and returns the final reply.
`check_storm(broken, fixed)` runs both on the simulated task of
`STORM_ROUNDS` tool calls and compares their compactions with `run_agent`'s.

Examples:
    >>> print(check_threshold({"turn": 3, "counter_at_trigger": 3_200,
    ...                        "after_reset": 0, "after_next_call": 400}))
    NEEDS_WORK
    FAIL  the turn that triggers compaction -> 3
          hint: after that turn the counter is 3,200, still below the threshold
    FAIL  the counter when it triggers -> 3200
          hint: the counter adds every turn's input and output since the start
    PASS  the counter after the reset -> 0
    PASS  the counter after the first call of the new window -> 400
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from context_budget.fakes.scripted import ScriptedClient
from context_budget.grading import Verdict, status, wrong_shape
from context_budget.harness import COMPACT_INSTRUCTION, run_agent
from context_budget.messages import message_text
from context_budget.notes import NotesFile
from context_budget.scenarios import race_fix
from context_budget.usage import should_compact, track_usage

__all__ = [
    "NEXT_CALL",
    "RATIO",
    "STORM_RATIO",
    "STORM_ROUNDS",
    "STORM_WINDOW",
    "TURNS",
    "WINDOW",
    "Loop",
    "check_storm",
    "check_threshold",
    "reference_loop",
    "storm_counts",
    "threshold_answer",
]

WINDOW = 6_000  # tokens
RATIO = 0.75
#: Input + output of each turn, in tokens. Each turn sends the history of the one before
#: it, so in a loop that does not compact they can only grow.
TURNS = (900, 1_100, 1_200, 1_500)
NEXT_CALL = (300, 100)  # input, output of the first call after compaction, in tokens

STORM_WINDOW = 4_000  # tokens
STORM_RATIO = 0.7
STORM_ROUNDS = 12  # tool calls the simulated task asks for

#: A loop under test: runs the task on the client, returns the final reply.
Loop = Callable[[ScriptedClient, NotesFile], Any]


def _verdict(checks: list[tuple[str, object, bool, str]]) -> Verdict:
    rows = [
        {"case": case, "observed": observed, "status": status(ok)}
        for case, observed, ok, _ in checks
    ]
    return Verdict.of_rows(rows, {case: hint for case, _, ok, hint in checks if not ok})


def threshold_answer() -> dict[str, int]:
    """The exercise's answer, computed with `track_usage` and `should_compact`."""
    counter, turn = 0, 0
    for turn, size in enumerate(TURNS, start=1):  # noqa: B007 (turn is used after the loop)
        counter = track_usage(counter, {"input_tokens": size, "output_tokens": 0})
        if should_compact(counter, WINDOW, RATIO):
            break
    else:
        raise AssertionError("the exercise's turns never reach the threshold")
    at_trigger = counter
    counter = 0
    inp, out = NEXT_CALL
    after = track_usage(counter, {"input_tokens": inp, "output_tokens": out})
    return {
        "turn": turn,
        "counter_at_trigger": at_trigger,
        "after_reset": counter,
        "after_next_call": after,
    }


def check_threshold(answer: Mapping[str, object]) -> Verdict:
    """Check an answer to exercise 1 (keys in the module docstring).

    A missing key fails its row; nothing raises.
    """
    expected = threshold_answer()
    if not isinstance(answer, Mapping):
        return wrong_shape("the answer is", answer, "a dict with the keys the exercise names")
    running = [sum(TURNS[:n]) for n in range(1, len(TURNS) + 1)]
    threshold = WINDOW * RATIO
    turn = answer.get("turn")
    if isinstance(turn, int) and 1 <= turn < expected["turn"]:
        turn_hint = (
            f"after that turn the counter is {running[turn - 1]:,}, still below the threshold"
        )
    elif isinstance(turn, int) and turn > expected["turn"]:
        turn_hint = "the counter reaches the threshold before that turn"
    else:
        turn_hint = f"give the turn's number, from 1 to {len(TURNS)}"
    carried = expected["counter_at_trigger"] + sum(NEXT_CALL)
    after_hint = (
        "that is the old window's count plus the call: the reset is missing"
        if answer.get("after_next_call") == carried
        else "the first call of the new window adds its input and output to the reset counter"
    )
    checks = [
        ("the turn that triggers compaction", turn, turn == expected["turn"], turn_hint),
        (
            "the counter when it triggers",
            answer.get("counter_at_trigger"),
            answer.get("counter_at_trigger") == expected["counter_at_trigger"],
            "the counter adds every turn's input and output since the start",
        ),
        (
            "the counter after the reset",
            answer.get("after_reset"),
            answer.get("after_reset") == expected["after_reset"],
            f"compaction starts a new window; the threshold is {threshold:,g} tokens "
            "of this window, not of the run",
        ),
        (
            "the counter after the first call of the new window",
            answer.get("after_next_call"),
            answer.get("after_next_call") == expected["after_next_call"],
            after_hint,
        ),
    ]
    return _verdict(checks)


@dataclass(frozen=True)
class _Played:
    compactions: int
    one_message_restarts: bool
    reply: object
    error: str | None


def _is_compaction(request: Mapping[str, Any]) -> bool:
    messages = request.get("messages") or []
    return bool(messages) and message_text(messages[0]).startswith(COMPACT_INSTRUCTION)


def _play(loop: Loop) -> _Played:
    client = ScriptedClient(race_fix.simulated_model(STORM_ROUNDS))
    with tempfile.TemporaryDirectory() as folder:
        notes = NotesFile(Path(folder) / "NOTES.md")
        try:
            reply, error = loop(client, notes), None
        except Exception as caught:  # a learner's loop may raise; the row says what
            reply, error = None, type(caught).__name__
    flags = [_is_compaction(r) for r in client.requests]
    restarts = [
        len(client.requests[i + 1]["messages"]) == 1 for i, flag in enumerate(flags[:-1]) if flag
    ]
    return _Played(sum(flags), all(restarts), reply, error)


def reference_loop(client: ScriptedClient, notes: NotesFile) -> str:
    """`run_agent` on the storm exercise's task and settings: the fixed loop's yardstick."""
    run = run_agent(
        race_fix.TASK,
        race_fix.TOOLS,
        race_fix.tool_impls(notes),
        client=client,
        model="claude-sonnet-5",
        context_window=STORM_WINDOW,
        compact_ratio=STORM_RATIO,
        notes=notes,
    )
    return run.text


def storm_counts(loop: Loop) -> tuple[int, int]:
    """(compactions of `loop`, compactions of `run_agent`) on the storm task."""
    return _play(loop).compactions, _play(reference_loop).compactions


def check_storm(broken: Loop, fixed: Loop) -> Verdict:
    """Check exercise 2: the loop without the reset storms, the fixed one does not.

    Args:
        broken: the loop with `tokens_used = 0` missing.
        fixed: the same loop with the reset put back.
    """
    reference = _play(reference_loop)
    bad, good = _play(broken), _play(fixed)
    checks = [
        (
            "the loop without the reset compacts more often than run_agent",
            f"{bad.compactions} against {reference.compactions}",
            bad.error is None and bad.compactions > reference.compactions,
            "without the reset the counter stays over the threshold, so every round "
            "compacts; if it does not, the reset is still there"
            if bad.error is None
            else f"the loop raised {bad.error}",
        ),
        (
            "the fixed loop compacts as often as run_agent",
            f"{good.compactions} against {reference.compactions}",
            good.error is None and good.compactions == reference.compactions,
            "put `tokens_used = 0` right after the compaction, inside the `if`"
            if good.error is None
            else f"the loop raised {good.error}",
        ),
        (
            "each compaction restarts from one message",
            good.one_message_restarts,
            good.one_message_restarts,
            "assign what compact_history returns to `messages`; do not append it",
        ),
        (
            "the fixed loop returns the task's final reply",
            good.reply,
            good.reply == reference.reply,
            "return the text of the last response",
        ),
    ]
    return _verdict(checks)
