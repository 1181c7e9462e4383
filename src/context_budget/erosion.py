"""Erosion: which facts outlive 1, 2, 3 ... successive compactions of one conversation.

One compaction with a lossy summary loses what the summary drops. Compacting
again and again does worse: each new summary is written from the previous
one, so whatever one round drops is gone for every later round, and a
summarizer that shortens what it reads wears the facts down round by round.

`survival_rounds` runs that on a `Scenario`: in each round, every message
before the latest question is replaced by one summary message (step 2 of
`compact`, forced as if the budget were always exceeded), then the work goes
on for one more exchange (`NEXT_TURN`), so the next round has something new
to fold in. After each round it looks up every question's needle with
`survives`. A `Strategy` says how the rounds are run; three repairs are:

- `pinned=True`: the scenario's records are sent as pinned records, which no
  compaction touches;
- `notes=True`: before the first compaction the agent writes the rule and
  decision lines into a notes file, and reads the file back after every
  restart (a message after the summary), so the notes are never re-summarized;
- a summarizer that keeps rule and decision lines (`keep_rules_and_decisions`).

The lesson's two summarizers, `wearing_summary` and `keep_rules_and_decisions`,
live in `context_budget.summarizers` and are importable from here too.

Shapes: `survival_rounds(...)` -> `{label: [[fact, ...] kept after round 1,
after round 2, ...]}`, facts in question order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from context_budget._blocks import is_question
from context_budget.compaction import SUMMARY_PREFIX, Summarizer
from context_budget.layers import Layers
from context_budget.messages import Message
from context_budget.summarizers import keep_rules_and_decisions as keep_rules_and_decisions
from context_budget.summarizers import wearing_summary as wearing_summary
from context_budget.survival import Scenario, survives

__all__ = [
    "NEXT_TURN",
    "READBACK_PREFIX",
    "Strategy",
    "format_rounds",
    "survival_rounds",
]

#: The exchange appended after each round: the work goes on, with no new fact.
NEXT_TURN: list[Message] = [
    {"role": "assistant", "content": "Done. Anything else?"},
    {"role": "user", "content": "Keep going with the rest of the day's jobs."},
]
#: The start of the message that reads the notes file back after a restart.
READBACK_PREFIX = "Notes read back from notes.md:\n"


@dataclass(frozen=True)
class Strategy:
    """One way of running the rounds.

    Attributes:
        label: the strategy's name in the table.
        summarize: the summarizer of every round.
        pinned: send the scenario's records as pinned records.
        notes: write rule and decision lines to notes before the first round
            and read them back after every round.
    """

    label: str
    summarize: Summarizer
    pinned: bool = False
    notes: bool = False


def _latest_question(messages: Sequence[Message]) -> int:
    for index in range(len(messages) - 1, -1, -1):
        if is_question(messages[index]):
            return index
    raise ValueError("the conversation has no user question to keep")


def _one_round(messages: list[Message], summarize: Summarizer, notes: str | None) -> list[Message]:
    cut = _latest_question(messages)
    summary: Message = {"role": "user", "content": SUMMARY_PREFIX + summarize(messages[:cut])}
    readback: list[Message] = (
        [] if notes is None else [{"role": "user", "content": READBACK_PREFIX + notes}]
    )
    return [summary, *readback, *messages[cut:]]


def survival_rounds(
    scenario: Scenario, strategies: Sequence[Strategy], rounds: int = 4
) -> dict[str, list[list[str]]]:
    """Compact the scenario `rounds` times in a row under each strategy; list the facts kept.

    Args:
        scenario: the conversation and the facts to look for.
        strategies: in table order; labels must be unique.
        rounds: successive compactions, 1 to 20.

    Returns:
        `{label: [kept facts after round 1, after round 2, ...]}`.

    Raises:
        ValueError: `rounds` out of range, a repeated label, or a
            conversation without a user question.
    """
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= 20:
        raise ValueError(f"rounds must be an int from 1 to 20, got {rounds!r}")
    labels = [strategy.label for strategy in strategies]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ValueError(f"strategy labels must be unique, repeated: {repeated}")
    table: dict[str, list[list[str]]] = {}
    for strategy in strategies:
        messages = scenario.conversation()
        notes = keep_rules_and_decisions(messages) if strategy.notes else None
        pinned = list(scenario.pinned) if strategy.pinned else []
        kept_by_round = []
        for number in range(rounds):
            if number:
                messages = [*messages, *(dict(message) for message in NEXT_TURN)]
                # the previous read-back is summarized with the rest; a fresh one follows
            messages = _one_round(messages, strategy.summarize, notes)
            layers = Layers(scenario.system, pinned, messages)
            kept_by_round.append(
                [fact for fact, needle, _ in scenario.questions if survives(layers, needle)]
            )
        table[strategy.label] = kept_by_round
    return table


def format_rounds(table: dict[str, list[list[str]]], scenario: Scenario) -> str:
    """The table as text: per strategy, the facts kept after each round.

    Examples:
        >>> from context_budget.scenarios.lucy import LUCY
        >>> table = survival_rounds(LUCY, [Strategy("lossy", wearing_summary)], rounds=2)
        >>> print(format_rounds(table, LUCY).splitlines()[0])
        strategy        round 1  round 2
    """
    rounds = max((len(row) for row in table.values()), default=0)
    total = len(scenario.questions)
    header = f"{'strategy':<15} " + "  ".join(f"round {n + 1}" for n in range(rounds))
    lines = [header]
    for label, row in table.items():
        cells = "  ".join(f"{len(kept):>2} of {total}" for kept in row)
        lines.append(f"{label:<15} {cells}")
    return "\n".join(lines)
