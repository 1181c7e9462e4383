"""The package's exceptions, in one place.

Exception tree::

    ContextBudgetError          base class of every error raised on purpose
    ├── ContextOverflowError    a context cannot be made to fit its budget
    ├── ScriptExhaustedError    a scripted model was asked for one response too many
    └── CompactionStormError    compaction after compaction failed to make room

Bad arguments raise the built-in ``TypeError`` or ``ValueError``, with a message
that names the offending index or value and the limit it broke.
"""

from __future__ import annotations

__all__ = [
    "CompactionStormError",
    "ContextBudgetError",
    "ContextOverflowError",
    "ScriptExhaustedError",
]


class ContextBudgetError(Exception):
    """Base class of the errors this package raises on purpose."""


class ContextOverflowError(ContextBudgetError):
    """A context does not fit its token budget and cannot be made to fit.

    Attributes:
        budget: the budget, in tokens.
        size: the size that did not fit, in tokens.
    """

    def __init__(self, message: str, *, budget: int, size: int) -> None:
        super().__init__(message)
        self.budget = budget
        self.size = size


class ScriptExhaustedError(ContextBudgetError):
    """A scripted client ran out of responses.

    Attributes:
        scripted: how many responses the script held.
        call: the number of the call that asked for one more, counting from 1.
    """

    def __init__(self, *, scripted: int, call: int) -> None:
        super().__init__(
            f"the script holds {scripted} response{'' if scripted == 1 else 's'} "
            f"and call {call} asked for one more"
        )
        self.scripted = scripted
        self.call = call


class CompactionStormError(ContextBudgetError):
    """Compaction kept failing: the request after each one was still over the threshold.

    Attributes:
        threshold: the counter value that triggers compaction, in tokens.
        sizes: the counter after the first call following each failed
            compaction, in tokens, oldest first.
    """

    def __init__(self, *, threshold: float, sizes: list[int]) -> None:
        shown = ", ".join(f"{size:,}" for size in sizes)
        super().__init__(
            f"{len(sizes)} compactions in a row left the next request at or above the "
            f"threshold of {threshold:,g} tokens (sizes after each: {shown} tokens); "
            "the part that survives compaction (system prompt, tools, notes, the new "
            "turn) is too big for this window"
        )
        self.threshold = threshold
        self.sizes = list(sizes)
