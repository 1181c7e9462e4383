"""context-budget: count, layer, clear and compact an LLM agent's context.

Every public name is importable from ``context_budget`` directly.
"""

from context_budget.budget import LoopStep, loop_cost, loop_steps, tokens_read
from context_budget.clearing import clear_old_tool_results
from context_budget.compaction import KEEP_TOOL_RESULTS, SUMMARY_PREFIX, Summarizer, compact
from context_budget.cuts import head, head_and_tail, transfer_filter
from context_budget.errors import ContextBudgetError, ContextOverflowError
from context_budget.grading import (
    TRANSFER_CASES,
    contract_status,
    format_grade,
    grade_unit,
    run_transfer,
)
from context_budget.history import HistoryProblem, validate_history
from context_budget.layers import BudgetReport, Layers, budget_report
from context_budget.messages import Message, message_text, tool_message
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
from context_budget.summarizers import forget_everything, keep_numbers
from context_budget.tokens import (
    MESSAGE_OVERHEAD_TOKENS,
    TokenCounter,
    estimate_tokens,
    message_tokens,
    qwen_counter,
)
from context_budget.transcripts import FORMATS, load_transcript
from context_budget.usage import Usage, should_compact, track_usage

__version__ = "0.1.0"

# Plain sorted() order, which tests/test_public_api.py checks; ruff's RUF022 would
# put the UPPER_CASE constants first instead.
__all__ = [  # noqa: RUF022
    "BudgetReport",
    "ContextBudgetError",
    "ContextOverflowError",
    "FLAVORS",
    "FORMATS",
    "HistoryProblem",
    "KEEP_TOOL_RESULTS",
    "Layers",
    "LoopStep",
    "MESSAGE_OVERHEAD_TOKENS",
    "Message",
    "PINNED",
    "QUESTIONS",
    "SUMMARY_PREFIX",
    "SYSTEM",
    "Summarizer",
    "TRANSFER_CASES",
    "TokenCounter",
    "Usage",
    "budget_report",
    "clear_old_tool_results",
    "compact",
    "contract_status",
    "estimate_tokens",
    "forget_everything",
    "format_grade",
    "format_survival",
    "grade_unit",
    "head",
    "head_and_tail",
    "keep_numbers",
    "load_transcript",
    "loop_cost",
    "loop_steps",
    "lucy_day",
    "message_text",
    "message_tokens",
    "qwen_counter",
    "run_transfer",
    "should_compact",
    "survival_table",
    "survives",
    "tokens_read",
    "tool_message",
    "track_usage",
    "transfer_filter",
    "validate_history",
]
