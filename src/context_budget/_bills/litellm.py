"""LiteLLM's usage shape, shared by mini-swe-agent and OpenHands files.

`prompt_tokens` is the whole prompt: cached tokens included, and for
Anthropic models the cache writes too (`cache_creation_input_tokens`,
`cache_read_input_tokens`). Other providers give the cached part at
`prompt_tokens_details.cached_tokens`. LiteLLM keeps no 5-minute/1-hour
split, so writes count as 5-minute ones unless a `cache_creation` split is
present.
"""

from __future__ import annotations

from typing import Any

from context_budget._bills.fields import count

__all__ = ["litellm_tokens"]


def litellm_tokens(usage: Any, where: str) -> tuple[int, int, int, int, int]:
    """(uncached input, read, 5m write, 1h write, output) of one LiteLLM usage.

    Raises:
        ValueError: a count that is not a whole number >= 0, or cached plus
            written tokens above `prompt_tokens`.
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
    hour = 0
    if isinstance(split, dict):
        hour = min(count(split.get("ephemeral_1h_input_tokens"), f"{where} 1h"), written)
    if read + written > prompt:
        raise ValueError(
            f"{where}: cached ({read}) plus written ({written}) tokens exceed "
            f"prompt_tokens ({prompt})"
        )
    output = count(usage.get("completion_tokens"), f"{where} completion_tokens")
    return prompt - read - written, read, written - hour, hour, output
