"""Ready-made conversations that the lessons and practical units run on.

- ``lucy``: one working day at Lucy's ice-cream shop, the conversation that
  the practical Unit A compacts at several budgets.

Every scenario is deterministic: calling it twice gives equal, separate lists.
"""

from __future__ import annotations

from context_budget.scenarios.lucy import (
    FLAVORS,
    PINNED,
    QUESTIONS,
    SYSTEM,
    format_survival,
    lucy_day,
    survival_table,
    survives,
)

__all__ = [
    "FLAVORS",
    "PINNED",
    "QUESTIONS",
    "SYSTEM",
    "format_survival",
    "lucy_day",
    "survival_table",
    "survives",
]
