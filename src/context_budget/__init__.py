"""context-budget: count, layer, clear and compact an LLM agent's context.

The top level is the library a reader calls: counting tokens, the layers of a
request and their budget, cutting, clearing and compacting, notes outside the
window, the agent loop, the table of models, the prompt cache of every
provider and its prices, the bill of a saved session and its replay under
another policy, transcripts, and the errors a caller catches. Every name in it
is one a page, a notebook or the command line uses.

Everything else stays in its module: the labs' helpers (`context_budget.calibration`,
`context_budget.survival`, `context_budget.erosion`, `context_budget.experiment`),
the scripted and simulated clients (`context_budget.fakes`), scenario data
(`context_budget.scenarios.lucy`) and the unit graders (`context_budget.grading.unit_a`).

Each name is imported on first use (PEP 562): `import context_budget` runs none of
the modules above until one of their names is asked for, so a program pays for the
parts it uses (in the reader's browser, that is Python's start). `dir()`,
`__all__` and `from context_budget import *` still give every name.
"""

import importlib as _importlib
import sys as _sys
import types as _types
import typing as _typing

if _typing.TYPE_CHECKING:  # what type checkers and editors read; at run time, `__getattr__`
    from context_budget.bills import (
        BILL_FORMATS,
        LOST_PREFIX_TOKENS,
        Bill,
        read_bill,
    )
    from context_budget.budget import (
        LoopStep,
        loop_steps,
        tokens_read,
    )
    from context_budget.cache import (
        MIN_CACHEABLE_TOKENS,
        PromptCache,
        SimulatedClock,
    )
    from context_budget.cache_policy import (
        CachePolicy,
    )
    from context_budget.cache_report import (
        cache_report,
    )
    from context_budget.clearing import (
        clear_old_tool_results,
    )
    from context_budget.clients import (
        content_blocks,
        response_field,
    )
    from context_budget.compaction import (
        KEEP_TOOL_RESULTS,
        SUMMARY_PREFIX,
        compact,
    )
    from context_budget.conversations import (
        FORMATS,
    )
    from context_budget.cuts import (
        head,
        head_and_tail,
        transfer_filter,
    )
    from context_budget.editing import (
        clear_tool_uses_20250919,
        clear_tool_uses_langchain,
    )
    from context_budget.errors import (
        CompactionStormError,
        ContextManagementError,
        ContextOverflowError,
        MiddleEditError,
        ScriptExhaustedError,
        TooManyBreakpointsError,
    )
    from context_budget.harness import (
        append_tool_results,
        compact_history,
        run_agent,
    )
    from context_budget.history import (
        PrefixGuard,
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
    from context_budget.models import (
        model_for,
    )
    from context_budget.notes import (
        NOTES_TOOL,
        NotesFile,
    )
    from context_budget.pricing import (
        PRICES,
        cost,
        loop_cost,
        model_family,
        price_for,
    )
    from context_budget.replay import (
        Policy,
        replay,
    )
    from context_budget.summarizers import (
        forget_everything,
        keep_numbers,
    )
    from context_budget.tokens import (
        MESSAGE_OVERHEAD_TOKENS,
        TokenCounter,
        estimate_tokens,
        message_tokens,
        qwen_counter,
    )
    from context_budget.usage import (
        Usage,
        should_compact,
        track_usage,
    )

#: Module (under `context_budget`) -> the names the top level takes from it: what
#: `__getattr__` imports on first use. The imports above say the same for type checkers
#: (tests/test_public_api.py checks that the two and `__all__` agree).
_HOMES: dict[str, tuple[str, ...]] = {
    "bills": ("BILL_FORMATS", "LOST_PREFIX_TOKENS", "Bill", "read_bill"),
    "budget": ("LoopStep", "loop_steps", "tokens_read"),
    "cache": ("MIN_CACHEABLE_TOKENS", "PromptCache", "SimulatedClock"),
    "cache_policy": ("CachePolicy",),
    "cache_report": ("cache_report",),
    "clearing": ("clear_old_tool_results",),
    "clients": ("content_blocks", "response_field"),
    "compaction": ("KEEP_TOOL_RESULTS", "SUMMARY_PREFIX", "compact"),
    "conversations": ("FORMATS",),
    "cuts": ("head", "head_and_tail", "transfer_filter"),
    "editing": ("clear_tool_uses_20250919", "clear_tool_uses_langchain"),
    "errors": (
        "CompactionStormError",
        "ContextManagementError",
        "ContextOverflowError",
        "MiddleEditError",
        "ScriptExhaustedError",
        "TooManyBreakpointsError",
    ),
    "harness": ("append_tool_results", "compact_history", "run_agent"),
    "history": ("PrefixGuard", "validate_history"),
    "layers": ("BudgetReport", "Layers", "budget_report"),
    "messages": ("Message", "message_text", "tool_message"),
    "models": ("model_for",),
    "notes": ("NOTES_TOOL", "NotesFile"),
    "pricing": ("PRICES", "cost", "loop_cost", "model_family", "price_for"),
    "replay": ("Policy", "replay"),
    "summarizers": ("forget_everything", "keep_numbers"),
    "tokens": (
        "MESSAGE_OVERHEAD_TOKENS",
        "TokenCounter",
        "estimate_tokens",
        "message_tokens",
        "qwen_counter",
    ),
    "usage": ("Usage", "should_compact", "track_usage"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


class _TopLevel(_types.ModuleType):
    """The package's module type: it keeps a top-level name that is called like its own
    module (`cache_report`) when the import system binds that module to the package
    (which it does whenever anything imports `context_budget.cache_report`)."""

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, _types.ModuleType) and _HOME_OF.get(name) == name:
            value = getattr(value, name)
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _TopLevel

__version__ = "0.1.0"

# Plain sorted() order, which tests/test_public_api.py checks; ruff's RUF022 would
# put the UPPER_CASE constants first instead.
__all__ = [  # noqa: RUF022
    "BILL_FORMATS",
    "Bill",
    "BudgetReport",
    "CachePolicy",
    "CompactionStormError",
    "ContextManagementError",
    "ContextOverflowError",
    "FORMATS",
    "KEEP_TOOL_RESULTS",
    "LOST_PREFIX_TOKENS",
    "Layers",
    "LoopStep",
    "MESSAGE_OVERHEAD_TOKENS",
    "MIN_CACHEABLE_TOKENS",
    "Message",
    "MiddleEditError",
    "NOTES_TOOL",
    "NotesFile",
    "PRICES",
    "Policy",
    "PrefixGuard",
    "PromptCache",
    "SUMMARY_PREFIX",
    "ScriptExhaustedError",
    "SimulatedClock",
    "TokenCounter",
    "TooManyBreakpointsError",
    "Usage",
    "append_tool_results",
    "budget_report",
    "cache_report",
    "clear_old_tool_results",
    "clear_tool_uses_20250919",
    "clear_tool_uses_langchain",
    "compact",
    "compact_history",
    "content_blocks",
    "cost",
    "estimate_tokens",
    "forget_everything",
    "head",
    "head_and_tail",
    "keep_numbers",
    "loop_cost",
    "loop_steps",
    "message_text",
    "message_tokens",
    "model_family",
    "model_for",
    "price_for",
    "qwen_counter",
    "read_bill",
    "replay",
    "response_field",
    "run_agent",
    "should_compact",
    "tokens_read",
    "tool_message",
    "track_usage",
    "transfer_filter",
    "validate_history",
]


def __getattr__(name: str) -> _typing.Any:
    """Import the module that holds `name` (one of `__all__`), keep the name here so
    the next look-up is a plain one, and return it."""
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """Every name the module has, the ones not imported yet included."""
    return sorted({*globals(), *__all__})
