"""context-budget: count, layer, clear and compact an LLM agent's context.

The library's public names are importable from `context_budget` directly.
Scenario data and the unit graders live in their subpackages: import them
from `context_budget.scenarios.lucy` and `context_budget.grading.unit_a`.
"""

from context_budget.budget import LoopStep, loop_cost, loop_steps, tokens_read
from context_budget.clearing import clear_old_tool_results
from context_budget.compaction import KEEP_TOOL_RESULTS, SUMMARY_PREFIX, Summarizer, compact
from context_budget.cuts import head, head_and_tail, transfer_filter
from context_budget.errors import ContextBudgetError, ContextOverflowError
from context_budget.history import HistoryProblem, validate_history
from context_budget.layers import BudgetReport, Layers, budget_report
from context_budget.messages import Message, message_text, tool_message
from context_budget.summarizers import forget_everything, keep_numbers
from context_budget.survival import (
    Compactor,
    Plan,
    Scenario,
    format_survival,
    size_after_clearing,
    survival_grid,
    survival_table,
    survives,
    whole_size,
)
from context_budget.tokens import (
    MESSAGE_OVERHEAD_TOKENS,
    TokenCounter,
    estimate_tokens,
    message_tokens,
    qwen_counter,
)
from context_budget.usage import Usage, should_compact, track_usage

__version__ = "0.1.0"

# Plain sorted() order, which tests/test_public_api.py checks; ruff's RUF022 would
# put the UPPER_CASE constants first instead.
__all__ = [  # noqa: RUF022
    "BudgetReport",
    "Compactor",
    "ContextBudgetError",
    "ContextOverflowError",
    "HistoryProblem",
    "KEEP_TOOL_RESULTS",
    "Layers",
    "LoopStep",
    "MESSAGE_OVERHEAD_TOKENS",
    "Message",
    "Plan",
    "SUMMARY_PREFIX",
    "Scenario",
    "Summarizer",
    "TokenCounter",
    "Usage",
    "budget_report",
    "clear_old_tool_results",
    "compact",
    "estimate_tokens",
    "forget_everything",
    "format_survival",
    "head",
    "head_and_tail",
    "keep_numbers",
    "loop_cost",
    "loop_steps",
    "message_text",
    "message_tokens",
    "qwen_counter",
    "should_compact",
    "size_after_clearing",
    "survival_grid",
    "survival_table",
    "survives",
    "tokens_read",
    "tool_message",
    "track_usage",
    "transfer_filter",
    "validate_history",
    "whole_size",
]
