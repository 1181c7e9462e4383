"""context-budget: count, layer, clear and compact an LLM agent's context.

The library's public names are importable from `context_budget` directly.
Scenario data and the unit graders live in their subpackages: import them
from `context_budget.scenarios.lucy` and `context_budget.grading.unit_a`.
"""

from context_budget.bills import (
    BILL_FORMATS,
    LOST_PREFIX_TOKENS,
    Bill,
    Call,
    Rebuild,
    WhatIf,
    read_bill,
)
from context_budget.budget import (
    LoopStep,
    loop_steps,
    tokens_read,
)
from context_budget.cache import (
    LOOKBACK_BLOCKS,
    MAX_BREAKPOINTS,
    MIN_CACHEABLE_TOKENS,
    TTL_SECONDS,
    MinimumLength,
    PromptCache,
    SimulatedClock,
)
from context_budget.cache_report import (
    CacheReport,
    RequestRow,
    cache_report,
)
from context_budget.calibration import (
    CHARS_PER_TOKEN,
    CODE_LINE_SHARE,
    KINDS,
    NUMBERS_DIGIT_SHARE,
    SAFETY_MARGIN,
    calibrate,
    calibrated_estimate,
    fit_ratios,
    text_kind,
    with_margin,
)
from context_budget.clearing import (
    clear_old_tool_results,
)
from context_budget.clients import (
    ModelClient,
    ScriptedClient,
    content_blocks,
    response_field,
    scripted_response,
)
from context_budget.compaction import (
    KEEP_TOOL_RESULTS,
    SUMMARY_PREFIX,
    Summarizer,
    compact,
)
from context_budget.cuts import (
    head,
    head_and_tail,
    transfer_filter,
)
from context_budget.editing import (
    COMPACTION_MIN_TRIGGER,
    PLACEHOLDER,
    ClearResult,
    EmulatedClient,
    Reply,
    clear_tool_uses_20250919,
    clear_tool_uses_langchain,
)
from context_budget.erosion import (
    NEXT_TURN,
    READBACK_PREFIX,
    Strategy,
    format_rounds,
    keep_rules_and_decisions,
    survival_rounds,
    wearing_summary,
)
from context_budget.errors import (
    AutomaticCacheConflictError,
    CacheTTLOrderError,
    CompactionStormError,
    ContextBudgetError,
    ContextManagementError,
    ContextOverflowError,
    InvalidRequestError,
    MalformedResponseError,
    MiddleEditError,
    ScriptExhaustedError,
    TooManyBreakpointsError,
)
from context_budget.experiment import (
    STRATEGIES,
    RunResult,
    StepRecord,
    cost_floor,
    run_all,
    run_strategy,
)
from context_budget.harness import (
    COMPACT_INSTRUCTION,
    DEFAULT_MODEL,
    HANDOFF_PREFIX,
    MAX_PAUSES,
    NOTES_PREFIX,
    AgentRun,
    ModelCall,
    append_tool_results,
    compact_history,
    run_agent,
)
from context_budget.history import (
    HistoryProblem,
    PrefixGuard,
    PrefixReport,
    validate_history,
)
from context_budget.layers import (
    BudgetReport,
    Layers,
    budget_report,
)
from context_budget.messages import (
    Message,
    message_text,
    tool_message,
)
from context_budget.notes import (
    EMPTY_NOTES,
    NOTES_TOOL,
    STALE_SECONDS,
    NotesFile,
)
from context_budget.pricing import (
    PRICES,
    Cost,
    Price,
    cost,
    loop_cost,
    model_family,
    price_for,
)
from context_budget.simulated import (
    SimulatedModel,
)
from context_budget.summarizers import (
    forget_everything,
    keep_numbers,
)
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
from context_budget.transcripts import (
    FORMATS,
    load_transcript,
)
from context_budget.usage import (
    Usage,
    should_compact,
    track_usage,
    window_usage,
)

__version__ = "0.1.0"

# Plain sorted() order, which tests/test_public_api.py checks; ruff's RUF022 would
# put the UPPER_CASE constants first instead.
__all__ = [  # noqa: RUF022
    "AgentRun",
    "AutomaticCacheConflictError",
    "BILL_FORMATS",
    "Bill",
    "BudgetReport",
    "CHARS_PER_TOKEN",
    "CODE_LINE_SHARE",
    "COMPACTION_MIN_TRIGGER",
    "COMPACT_INSTRUCTION",
    "CacheReport",
    "CacheTTLOrderError",
    "Call",
    "ClearResult",
    "CompactionStormError",
    "Compactor",
    "ContextBudgetError",
    "ContextManagementError",
    "ContextOverflowError",
    "Cost",
    "DEFAULT_MODEL",
    "EMPTY_NOTES",
    "EmulatedClient",
    "FORMATS",
    "HANDOFF_PREFIX",
    "HistoryProblem",
    "InvalidRequestError",
    "KEEP_TOOL_RESULTS",
    "KINDS",
    "LOOKBACK_BLOCKS",
    "LOST_PREFIX_TOKENS",
    "Layers",
    "LoopStep",
    "MAX_BREAKPOINTS",
    "MAX_PAUSES",
    "MESSAGE_OVERHEAD_TOKENS",
    "MIN_CACHEABLE_TOKENS",
    "MalformedResponseError",
    "Message",
    "MiddleEditError",
    "MinimumLength",
    "ModelCall",
    "ModelClient",
    "NEXT_TURN",
    "NOTES_PREFIX",
    "NOTES_TOOL",
    "NUMBERS_DIGIT_SHARE",
    "NotesFile",
    "PLACEHOLDER",
    "PRICES",
    "Plan",
    "PrefixGuard",
    "PrefixReport",
    "Price",
    "PromptCache",
    "READBACK_PREFIX",
    "Rebuild",
    "Reply",
    "RequestRow",
    "RunResult",
    "SAFETY_MARGIN",
    "STALE_SECONDS",
    "STRATEGIES",
    "SUMMARY_PREFIX",
    "Scenario",
    "ScriptExhaustedError",
    "ScriptedClient",
    "SimulatedClock",
    "SimulatedModel",
    "StepRecord",
    "Strategy",
    "Summarizer",
    "TTL_SECONDS",
    "TokenCounter",
    "TooManyBreakpointsError",
    "Usage",
    "WhatIf",
    "append_tool_results",
    "budget_report",
    "cache_report",
    "calibrate",
    "calibrated_estimate",
    "clear_old_tool_results",
    "clear_tool_uses_20250919",
    "clear_tool_uses_langchain",
    "compact",
    "compact_history",
    "content_blocks",
    "cost",
    "cost_floor",
    "estimate_tokens",
    "fit_ratios",
    "forget_everything",
    "format_rounds",
    "format_survival",
    "head",
    "head_and_tail",
    "keep_numbers",
    "keep_rules_and_decisions",
    "load_transcript",
    "loop_cost",
    "loop_steps",
    "message_text",
    "message_tokens",
    "model_family",
    "price_for",
    "qwen_counter",
    "read_bill",
    "response_field",
    "run_agent",
    "run_all",
    "run_strategy",
    "scripted_response",
    "should_compact",
    "size_after_clearing",
    "survival_grid",
    "survival_rounds",
    "survival_table",
    "survives",
    "text_kind",
    "tokens_read",
    "tool_message",
    "track_usage",
    "transfer_filter",
    "validate_history",
    "wearing_summary",
    "whole_size",
    "window_usage",
    "with_margin",
]
