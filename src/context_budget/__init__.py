"""context-budget: count, layer, clear and compact an LLM agent's context.

Every public name is importable from ``context_budget`` directly.
"""

from context_budget.budget import LoopStep, loop_cost, loop_steps, tokens_read
from context_budget.errors import ContextBudgetError, ContextOverflowError

__version__ = "0.1.0"

__all__ = [
    "ContextBudgetError",
    "ContextOverflowError",
    "LoopStep",
    "loop_cost",
    "loop_steps",
    "tokens_read",
]
