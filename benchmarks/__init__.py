"""How fast context_budget's passes are, measured against the floor and trim_messages.

``python -m benchmarks`` (``make bench``) times ``budget_report``,
``clear_old_tool_results`` and ``compact`` on generated histories, beside one
``message_tokens`` pass (the floor) and LangChain's ``trim_messages``, prints
a Markdown table and writes it to ``benchmarks/results.md``. Modules:

- ``histories``: the deterministic history generator and its LangChain twin;
- ``measure``: the timing, and the checks that each timed call did its job;
- ``report``: the table, the goals judged, the machine line;
- ``page``: the results file and the region of ``docs/measured/speed.md``.
"""

from benchmarks.histories import SEED, generate_history, langchain_counter, to_langchain
from benchmarks.measure import BUDGET, GOALS, OPERATIONS, QUICK_SIZES, SIZES, Timing, measure
from benchmarks.page import PAGE, RESULTS, page_region, replace_region
from benchmarks.report import render

__all__ = [
    "BUDGET",
    "GOALS",
    "OPERATIONS",
    "PAGE",
    "QUICK_SIZES",
    "RESULTS",
    "SEED",
    "SIZES",
    "Timing",
    "generate_history",
    "langchain_counter",
    "measure",
    "page_region",
    "render",
    "replace_region",
    "to_langchain",
]
