"""LiteLLM's usage shape, in which mini-swe-agent and OpenHands files record their calls.

`prompt_tokens` is the whole prompt: cached tokens included, and for
Anthropic models the cache writes too (`cache_creation_input_tokens`,
`cache_read_input_tokens`). Other providers give the cached part at
`prompt_tokens_details.cached_tokens`. LiteLLM keeps no 5-minute/1-hour
split unless a `cache_creation` split is present; `split_writes` reads it.
"""

from __future__ import annotations

from typing import Any

from context_budget.sessions.session import recorded_usage
from context_budget.sessions.text import count
from context_budget.usage import Usage, split_writes

__all__ = ["litellm_usage"]


def litellm_usage(usage: Any, where: str) -> Usage:
    """One LiteLLM usage as a `Usage` (uncached input = prompt - read - written).

    Raises:
        ValueError: a count that is not a whole number >= 0, or cached plus
            written tokens above `prompt_tokens`, naming `where`.
    """
    if not isinstance(usage, dict):
        raise ValueError(f"{where}: usage must be an object, got {usage!r:.60}")
    prompt = count(usage.get("prompt_tokens"), f"{where} prompt_tokens")
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    read = count(usage.get("cache_read_input_tokens", cached), f"{where} cache_read_input_tokens")
    written = count(
        usage.get("cache_creation_input_tokens"), f"{where} cache_creation_input_tokens"
    )
    split = usage.get("cache_creation")
    hour = (
        count(split.get("ephemeral_1h_input_tokens"), f"{where} 1h")
        if isinstance(split, dict)
        else None
    )
    five, hour = split_writes(written, None, hour) if hour is not None else (written, 0)
    if read + written > prompt:
        raise ValueError(
            f"{where}: cached ({read}) plus written ({written}) tokens exceed "
            f"prompt_tokens ({prompt})"
        )
    output = count(usage.get("completion_tokens"), f"{where} completion_tokens")
    return recorded_usage(prompt - read - written, read, five, hour, output)
