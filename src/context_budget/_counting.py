"""Counting primitives every module shares: the default estimate, checked counts, message sizes.

`context_budget.tokens` is their public face (it exports `TokenCounter`,
`MESSAGE_OVERHEAD_TOKENS` and `estimate_tokens` from here); the other
functions are for messages already checked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeAlias

from context_budget._blocks import checked_message_text
from context_budget._values import short_repr

__all__ = [
    "MESSAGE_OVERHEAD_TOKENS",
    "TokenCounter",
    "count_text",
    "estimate_tokens",
    "fixed_layer_tokens",
    "message_size",
    "message_sizes",
    "resolve_counter",
]

#: A token counter: text -> tokens.
TokenCounter: TypeAlias = Callable[[str], int]

#: Tokens added to every message for its role and framing. Measured on Qwen2.5's
#: chat template: `<|im_start|>user\nhi<|im_end|>\n` is 6 tokens and `hi` alone
#: is 1, so the frame is 5 (start marker, role, newline, end marker, newline).
MESSAGE_OVERHEAD_TOKENS = 5


def estimate_tokens(text: str) -> int:
    """Estimated tokens in `text`: its length in characters over 4, rounded up.

    Args:
        text: any text.

    Returns:
        Tokens, an int >= 0 (0 only for the empty string).

    Raises:
        TypeError: `text` is not a str.

    Examples:
        >>> estimate_tokens("Never order mango from Frostline.")
        9
        >>> estimate_tokens("x" * 1775), estimate_tokens("x" * 2573)
        (444, 644)
        >>> estimate_tokens("")
        0
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return -(-len(text) // 4)  # subtle: ceiling division without floats


def resolve_counter(counter: TokenCounter | None) -> TokenCounter:
    """The counter to use: `counter`, or `estimate_tokens` when it is None."""
    if counter is None:
        return estimate_tokens
    if not callable(counter):
        raise TypeError(f"counter must be callable (str -> int), got {short_repr(counter)}")
    return counter


def count_text(text: str, counter: TokenCounter) -> int:
    """`counter(text)`, checked to be a whole number of tokens >= 0."""
    tokens = counter(text)
    if isinstance(tokens, bool) or not isinstance(tokens, int):
        raise TypeError(f"counter {short_repr(counter)} returned {short_repr(tokens)}, not an int")
    if tokens < 0:
        raise ValueError(
            f"counter {short_repr(counter)} returned {short_repr(tokens)} tokens; must be >= 0"
        )
    return tokens


def message_size(message: dict[str, Any], counter: TokenCounter) -> int:
    """Tokens of a message already checked: its text plus the framing overhead."""
    return count_text(checked_message_text(message), counter) + MESSAGE_OVERHEAD_TOKENS


def message_sizes(messages: Sequence[dict[str, Any]], counter: TokenCounter) -> list[int]:
    # message index -> tokens; each message counted once
    return [message_size(message, counter) for message in messages]


class _FixedLayers(Protocol):
    """What `fixed_layer_tokens` reads of a `Layers`: the system prompt and the pinned records."""

    @property
    def system(self) -> str: ...

    @property
    def pinned(self) -> Sequence[str]: ...


def fixed_layer_tokens(layers: _FixedLayers, counter: TokenCounter) -> tuple[int, int]:
    """(system, pinned) tokens, framing included: the layers compaction never changes."""
    system = count_text(layers.system, counter) + MESSAGE_OVERHEAD_TOKENS if layers.system else 0
    pinned = sum(count_text(record, counter) + MESSAGE_OVERHEAD_TOKENS for record in layers.pinned)
    return system, pinned
