"""One API call as a saved session recorded it, and what a reader returns."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Call", "Message", "Reading"]


@dataclass(frozen=True)
class Call:
    """One API call: its tokens by kind, when, on which model and thread.

    Every token figure is a count of tokens as the provider reported it;
    `input_tokens` is only the uncached tail (the provider's own figure minus
    the cached part where the format folds them together).

    Attributes:
        thread: the conversation the call belongs to, e.g. `"fe5e1c67/main"`
            or `"fe5e1c67/sidechain-2"` (session id, then the thread).
        timestamp: when the call was recorded, seconds since the Unix epoch
            (UTC); None when the file has no time.
        model: the model id as recorded (dated, e.g. `claude-sonnet-4-20250514`).
        input_tokens: prompt tokens neither read from nor written to the cache.
        cache_read_input_tokens: prompt tokens read from the cache.
        cache_creation_5m: prompt tokens written to the cache for 5 minutes.
        cache_creation_1h: prompt tokens written to the cache for 1 hour.
        output_tokens: generated tokens (reasoning included).
        sidechain: True for a sub-agent's call.
        segment: how many compaction boundaries of its thread lie before it.
        recorded_cost: the cost in USD the file itself recorded for this call
            (mini-swe-agent's `extra.cost`), or None.
        message: the id of the last message the request carried, where the
            file keeps its messages (Claude Code's `parentUuid`), else None.
    """

    thread: str
    timestamp: float | None
    model: str
    input_tokens: int
    cache_read_input_tokens: int
    cache_creation_5m: int
    cache_creation_1h: int
    output_tokens: int
    sidechain: bool = False
    segment: int = 0
    recorded_cost: float | None = None
    message: str | None = None

    @property
    def cache_creation_input_tokens(self) -> int:
        """Tokens written to the cache, both lifetimes together."""
        return self.cache_creation_5m + self.cache_creation_1h

    @property
    def prompt_tokens(self) -> int:
        """The whole prompt: uncached + read + written, tokens."""
        return self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens


@dataclass(frozen=True)
class Message:
    """Where one saved message sits: its parent, its role, its line.

    Attributes:
        parent: the id of the message before it, None at a root.
        role: the line's type (`user`, `assistant`, `system`).
        where: `file:line` (1-based line number).
    """

    parent: str | None
    role: str
    where: str


@dataclass
class Reading:
    """What one reader found in one file.

    Attributes:
        format: the format's name (`claude-code`, `codex`, `mini-swe-agent`,
            `openhands`).
        calls: one `Call` per API call, in file order.
        lines: one `Call` per usage record before deduplication (what counting
            every line would bill).
        recorded_cost: the total the file recorded itself, USD, or None.
        recorded_tokens: totals the file recorded itself, by kind, or None.
        messages: message id -> `Message`, where the file keeps them.
    """

    format: str
    calls: list[Call] = field(default_factory=list)
    lines: list[Call] = field(default_factory=list)
    recorded_cost: float | None = None
    recorded_tokens: dict[str, int] | None = None
    messages: dict[str, Message] = field(default_factory=dict)
