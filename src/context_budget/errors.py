"""The package's exceptions, in one place.

The exception tree:

- `ContextBudgetError`: the base class of every error raised on purpose;
    - `ContextOverflowError`: a context cannot be made to fit its budget.

Bad arguments raise the built-in `TypeError` or `ValueError`, with a message
that names the offending index or value and the limit it broke.
"""

from __future__ import annotations

__all__ = ["ContextBudgetError", "ContextOverflowError"]


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
