"""One model call, as every part of the package records it: its usage as `Usage`.

`CallRecord` is the base of every per-call record: the loop's `ModelCall`
(here), the experiment's `StepRecord`, the cache runs' `Call`, the cache
report's `RequestRow` and the bill's `Call`. Each stores the call's tokens once,
as `usage`, and reads the prompt, the cache reads and the cache writes from it
the same way; a subclass adds only what its own use needs.

Example:
    >>> from context_budget.usage import Usage
    >>> call = ModelCall(1, "turn", "end_turn", Usage(input_tokens=200, output_tokens=30,
    ...     cache_read_input_tokens=800), 1_030)
    >>> call.prompt_tokens, call.cache_read, call.hit_share
    (1000, 800, 0.8)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from context_budget.usage import Usage

__all__ = ["CallRecord", "ModelCall", "UsageField"]


class UsageField:
    """A read-only attribute of a call record that reads one field of its `usage`.

    For a record that keeps the names its readers know (`call.output_tokens`)
    while storing the tokens once, in `usage`.

    Args:
        name: the `Usage` field read, e.g. `"ephemeral_5m_input_tokens"`;
            the attribute's own name when None.
    """

    def __init__(self, name: str | None = None) -> None:
        self.field = name or ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.field = self.field or name

    def __get__(self, record: CallRecord | None, owner: type | None = None) -> int:
        if record is None:
            raise AttributeError(f"{self.field} is read from a record's usage")
        value: int = getattr(record.usage, self.field)
        return value


class CallRecord:
    """The base of a record of one model call: what follows from its `usage`.

    A subclass is a dataclass with a `usage: Usage` field; every figure here
    is a count of tokens read from it.
    """

    __slots__ = ()
    usage: Usage

    @property
    def prompt_tokens(self) -> int:
        """The whole prompt: uncached input, cache writes and cache reads."""
        return self.usage.prompt_tokens

    @property
    def cache_read(self) -> int:
        """Prompt tokens read from the cache."""
        return self.usage.cache_read_input_tokens

    @property
    def cache_write(self) -> int:
        """Prompt tokens written to the cache, both lifetimes together."""
        return self.usage.cache_creation_input_tokens

    @property
    def hit_share(self) -> float:
        """Cache reads over prompt tokens, from 0 to 1 (0 for an empty prompt)."""
        prompt = self.prompt_tokens
        return self.cache_read / prompt if prompt else 0.0


@dataclass(frozen=True)
class ModelCall(CallRecord):
    """One model call of a run of `run_agent`.

    Attributes:
        number: the call's place in the run, counting from 1.
        kind: `"turn"` for a call of the loop, `"compaction"` for a
            summarizing call.
        stop_reason: the response's stop reason.
        usage: the tokens the call reported.
        tokens_used: the counter after this call, in tokens (0 after a
            compaction call: the reset).
        cleared: tool uses the server cleared for this call (the sum of
            `cleared_tool_uses` over the response's
            `context_management.applied_edits`).
    """

    number: int
    kind: Literal["turn", "compaction"]
    stop_reason: str | None
    usage: Usage
    tokens_used: int
    cleared: int = 0
