"""Layers: what the model sees in one request, split by how often it changes.

`Layers(system, pinned, conversation)` lists the stable parts first:

- `system`: the system prompt (str), which almost never changes;
- `pinned`: records the application keeps and always sends (list[str]),
  which change rarely and are never compacted;
- `conversation`: the messages, which grow every turn (list of messages).

`budget_report` charges every token of a request to one layer. The system
prompt is counted as one message (text plus the per-message framing; an empty
system prompt is not sent and costs 0), each pinned record as one message, and
the conversation message by message. Example: `Layers("s", ["rule"], [])` ->
system 1 + 5, pinned 1 + 5, total 12 tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from context_budget._checks import bad_scalar, check_messages
from context_budget._counting import fixed_layer_tokens, message_sizes, resolve_counter
from context_budget.messages import Message
from context_budget.tokens import TokenCounter

__all__ = ["BudgetReport", "Layers", "budget_report"]

LAYER_NAMES = ("system", "pinned", "conversation")


@dataclass(frozen=True)
class Layers:
    """One request's context, stable layers first.

    Attributes:
        system: the system prompt.
        pinned: records the application always sends, one str each; compaction
            never touches them.
        conversation: the messages, oldest first.

    Raises:
        TypeError: a layer has the wrong type.
        ValueError: the system prompt or a pinned record holds a lone
            surrogate, which UTF-8 cannot encode (no request could carry it).

    Examples:
        >>> Layers("You help Lucy.", ["Closing time is 7 pm."], [])
        Layers(system='You help Lucy.', pinned=['Closing time is 7 pm.'], conversation=[])
    """

    system: str
    pinned: list[str]
    conversation: list[Message]

    def __post_init__(self) -> None:
        if not isinstance(self.system, str):
            raise TypeError(f"system must be a str, got {type(self.system).__name__}")
        _check_text("system", self.system)
        if not isinstance(self.pinned, list):
            raise TypeError(f"pinned must be a list of str, got {type(self.pinned).__name__}")
        for index, record in enumerate(self.pinned):
            if not isinstance(record, str):
                raise TypeError(f"pinned record {index} has type {type(record).__name__}, not str")
            _check_text(f"pinned record {index}", record)
        if not isinstance(self.conversation, list):
            found = type(self.conversation).__name__
            raise TypeError(f"conversation must be a list of messages, got {found}")


def _check_text(name: str, text: str) -> None:
    """Refuse a layer's text that no request could carry (UTF-8 cannot encode it)."""
    problem = bad_scalar(text)
    if problem is not None:
        raise ValueError(f"{name}: {problem}, which UTF-8 cannot encode")


class BudgetReport(dict[str, int]):
    """Tokens per layer: a dict with keys system, pinned, conversation, total.

    Being a dict, it indexes (`report["total"]`) and serializes with
    `json.dumps` like one; `str()` renders it as a table of tokens and each
    layer's share of the total, the way a coding agent's `/context` does.
    """

    def __str__(self) -> str:
        total = self["total"]
        lines = [f"{'layer':<12} {'tokens':>8} {'share':>7}"]
        for name in (*LAYER_NAMES, "total"):
            share = self[name] / total if total else 0.0
            lines.append(f"{name:<12} {self[name]:>8,} {share:>7.1%}")
        return "\n".join(lines)


def budget_report(layers: Layers, counter: TokenCounter | None = None) -> BudgetReport:
    """Tokens in each layer of `layers` and in all of them.

    Args:
        layers: the request's context.
        counter: text -> tokens; `estimate_tokens` when None.

    Returns:
        A `BudgetReport`: `{"system": int, "pinned": int, "conversation": int,
        "total": int}`, all in tokens, framing overhead included.

    Examples:
        >>> report = budget_report(Layers(
        ...     "You help Lucy run her ice-cream shop.",
        ...     ["Never order mango from Frostline."],
        ...     [{"role": "user", "content": "How much vanilla is left?"}],
        ... ))
        >>> report["total"]
        41
        >>> print(report)
        layer          tokens   share
        system             15   36.6%
        pinned             14   34.1%
        conversation       12   29.3%
        total              41  100.0%
    """
    if not isinstance(layers, Layers):
        raise TypeError(f"layers must be a Layers, got {type(layers).__name__}")
    counter = resolve_counter(counter)
    check_messages(layers.conversation)
    system, pinned = fixed_layer_tokens(layers, counter)
    conversation = sum(message_sizes(layers.conversation, counter))
    return BudgetReport(
        system=system,
        pinned=pinned,
        conversation=conversation,
        total=system + pinned + conversation,
    )
