"""Survival: which facts of a scenario the model can still see after compaction.

A *scenario* is a conversation with its system prompt, the records an
application would pin, and questions: `(fact, needle, where)` triples whose
needle is visible exactly when the fact is. A *plan* says how to compact it:
a label, a budget, and whether the records are sent as pinned. The survival
table runs every plan and lists the facts each one kept; Unit A runs it on
Lucy's day (`context_budget.scenarios.lucy`), and later experiments reuse it.

Shapes:

- `survival_table(...)` -> `{label: {"budget": int, "tokens": int, "kept": [fact, ...]}}`,
  budgets and sizes in tokens by `estimate_tokens`, facts in question order;
- `survival_grid(...)` -> `[(fact, where, [kept?, ...]), ...]`, one bool per plan.

Examples:
    >>> from context_budget.messages import tool_message
    >>> scenario = Scenario(
    ...     system="s",
    ...     pinned=["The code word is heron."],
    ...     conversation=lambda: [
    ...         {"role": "user", "content": "The code word is heron."},
    ...         tool_message("log", {"rows": ["x" * 40] * 20}),
    ...         {"role": "assistant", "content": "Noted."},
    ...         {"role": "user", "content": "What now?"},
    ...     ],
    ...     questions=[("the code word", "heron", "a rule")],
    ... )
    >>> plans = [Plan("roomy", 1_000), Plan("tight", 40), Plan("tight+pinned", 40, pinned=True)]
    >>> {label: row["kept"] for label, row in survival_table(scenario, plans).items()}
    {'roomy': ['the code word'], 'tight': [], 'tight+pinned': ['the code word']}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from context_budget.clearing import clear_old_tool_results
from context_budget.compaction import KEEP_TOOL_RESULTS, Summarizer, compact
from context_budget.layers import Layers, budget_report
from context_budget.messages import Message
from context_budget.summarizers import keep_numbers

__all__ = [
    "Compactor",
    "Plan",
    "Scenario",
    "format_survival",
    "size_after_clearing",
    "survival_grid",
    "survival_table",
    "survives",
    "whole_size",
]

#: A compaction function: (layers, budget in tokens, summarizer) -> layers.
Compactor = Callable[[Layers, int, Summarizer], Layers]


@dataclass(frozen=True)
class Scenario:
    """A conversation to compact, and the facts to look for afterwards.

    Attributes:
        system: the system prompt.
        pinned: the records the application can send as the pinned layer.
        conversation: builds the conversation, a new list of new dicts on
            every call, so that no run can change the next one's input.
        questions: `(fact, needle, where)` triples; the needle is a phrase
            visible exactly when the fact is (matching ignores case), and
            `where` says where the fact lives, in words.
    """

    system: str
    pinned: Sequence[str]
    conversation: Callable[[], list[Message]]
    questions: Sequence[tuple[str, str, str]]


#: A measured budget: computed from the scenario, in tokens.
MeasuredBudget = Callable[[Scenario], int]


@dataclass(frozen=True)
class Plan:
    """One way of compacting a scenario.

    Attributes:
        label: the plan's name in the table, e.g. `"400+pinned"`.
        budget: tokens, or a function that measures it from the scenario
            (`whole_size`, `size_after_clearing`).
        pinned: whether the scenario's records are sent as pinned records.
    """

    label: str
    budget: int | MeasuredBudget
    pinned: bool = False

    def tokens(self, scenario: Scenario) -> int:
        """This plan's budget for `scenario`, in tokens."""
        return self.budget if isinstance(self.budget, int) else self.budget(scenario)


def whole_size(scenario: Scenario) -> int:
    """The scenario's size as it stands, without pinned records, in tokens."""
    return budget_report(Layers(scenario.system, [], scenario.conversation()))["total"]


def size_after_clearing(scenario: Scenario) -> int:
    """Its size once all but the last `KEEP_TOOL_RESULTS` tool results are cleared, in tokens.

    Measured with this package's own `clear_old_tool_results`, so it is the
    budget at which a correct `compact` stops after its first step.
    """
    cleared = clear_old_tool_results(scenario.conversation(), KEEP_TOOL_RESULTS)
    return budget_report(Layers(scenario.system, [], cleared))["total"]


def _strings(value: object) -> Iterable[str]:
    """Every string inside a message's content: its text, blocks and nested results."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            # block bookkeeping is not text the model reads
            if key not in {"type", "id", "tool_use_id", "signature"}:
                yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def survives(layers: Layers, needle: str) -> bool:
    """True when `needle` appears anywhere the model sees, ignoring case.

    Looks in the system prompt, every pinned record and the content of every
    message (plain text, content blocks and the results nested in them). It
    reads the layers without checking them, so it also works on a candidate's
    malformed output.

    Examples:
        >>> layers = Layers("s", [], [{"role": "user", "content": [
        ...     {"type": "text", "text": "Pin it on the Corkboard."}]}])
        >>> survives(layers, "corkboard"), survives(layers, "green scoop")
        (True, False)
    """
    wanted = needle.casefold()
    texts = [layers.system, *layers.pinned]
    for message in layers.conversation:
        # subtle: a malformed message is searched whole rather than skipped
        texts += _strings(message.get("content") if isinstance(message, dict) else message)
    return any(wanted in text.casefold() for text in texts)


def survival_table(
    scenario: Scenario,
    plans: Sequence[Plan],
    compactor: Compactor = compact,
    summarize: Summarizer = keep_numbers,
) -> dict[str, dict[str, Any]]:
    """Compact the scenario once per plan and list the facts still visible.

    Exceptions from `compactor` are not caught.

    Args:
        scenario: what to compact and which facts to look for.
        plans: in the order the table lists them; labels must be unique.
        compactor: `compact` or a learner's function of the same contract.
        summarize: the summarizer handed to `compactor`.

    Returns:
        `{label: {"budget": tokens, "tokens": tokens after compaction,
            "kept": [fact, ...]}}`, in plan order, facts in question order.

    Raises:
        ValueError: two plans share a label.
    """
    labels = [plan.label for plan in plans]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ValueError(f"plan labels must be unique, repeated: {repeated}")
    table: dict[str, dict[str, Any]] = {}
    for plan in plans:
        budget = plan.tokens(scenario)
        pinned = list(scenario.pinned) if plan.pinned else []
        out = compactor(Layers(scenario.system, pinned, scenario.conversation()), budget, summarize)
        table[plan.label] = {
            "budget": budget,
            "tokens": budget_report(out)["total"],
            "kept": [fact for fact, needle, _ in scenario.questions if survives(out, needle)],
        }
    return table


def survival_grid(
    table: dict[str, dict[str, Any]], scenario: Scenario
) -> list[tuple[str, str, list[bool]]]:
    """The table turned around: one row per fact, one `kept?` flag per plan.

    Returns:
        `[(fact, where, [kept under plan 1, kept under plan 2, ...]), ...]`,
            facts in question order, plans in table order.
    """
    return [
        (fact, where, [fact in row["kept"] for row in table.values()])
        for fact, _, where in scenario.questions
    ]


def format_survival(table: dict[str, dict[str, Any]], scenario: Scenario) -> str:
    """The table as text: one line per plan, then each fact `kept` or `LOST`.

    Examples:
        >>> from context_budget.scenarios.lucy import LUCY, PLANS
        >>> print(format_survival(survival_table(LUCY, PLANS), LUCY).splitlines()[0])
        whole day   budget 2,997 tokens, used 2,997: 11 of 11 facts visible
    """
    lines = []
    for label, row in table.items():
        kept = row["kept"]
        lines.append(
            f"{label:<11} budget {row['budget']:,} tokens, used {row['tokens']:,}: "
            f"{len(kept)} of {len(scenario.questions)} facts visible"
        )
        for fact, _, where in scenario.questions:
            mark = "kept" if fact in kept else "LOST"
            lines.append(f"    {mark}  {fact}  ({where})")
    return "\n".join(lines)
