"""context-budget: count, layer, clear and compact an LLM agent's context.

Every public name is importable from ``context_budget`` directly.
"""

from context_budget.budget import LoopStep, loop_cost, loop_steps, tokens_read
from context_budget.clearing import clear_old_tool_results
from context_budget.compaction import KEEP_TOOL_RESULTS, SUMMARY_PREFIX, compact
from context_budget.cuts import head, head_and_tail, transfer_filter
from context_budget.errors import ContextBudgetError, ContextOverflowError
from context_budget.history import HistoryProblem, validate_history
from context_budget.layers import BudgetReport, Layers, budget_report
from context_budget.messages import Message, message_text, tool_message
from context_budget.summarizers import forget_everything, keep_numbers
from context_budget.tokens import (
    MESSAGE_OVERHEAD_TOKENS,
    TokenCounter,
    estimate_tokens,
    message_tokens,
    qwen_counter,
)

__version__ = "0.1.0"

# Plain sorted() order, which tests/test_public_api.py checks; ruff's RUF022 would
# put the UPPER_CASE constants first instead.
__all__ = [  # noqa: RUF022
    "BudgetReport",
    "ContextBudgetError",
    "ContextOverflowError",
    "HistoryProblem",
    "KEEP_TOOL_RESULTS",
    "Layers",
    "LoopStep",
    "MESSAGE_OVERHEAD_TOKENS",
    "Message",
    "SUMMARY_PREFIX",
    "TokenCounter",
    "budget_report",
    "clear_old_tool_results",
    "compact",
    "estimate_tokens",
    "forget_everything",
    "head",
    "head_and_tail",
    "keep_numbers",
    "loop_cost",
    "loop_steps",
    "message_text",
    "message_tokens",
    "qwen_counter",
    "tokens_read",
    "tool_message",
    "transfer_filter",
    "validate_history",
]
