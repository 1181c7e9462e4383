"""Two offline agent runs for the cache chapters, priced call by call.

Both runs use the same material: an agent reads incident reports one call at
a time (`read_report`, about 1,500 estimated tokens each) under a stable
system prompt of about 2,000 tokens and three tool definitions, with
automatic caching (a top-level `cache_control`) on `claude-opus-5`, 30
simulated seconds between calls.

- `prefix_run(variant)` changes only the start of the prompt: `"stable"`
  keeps it fixed, `"timestamp"` appends the current time to the system prompt
  on every call, `"reordered"` reverses the tool list halfway through.
- `provider_run(model, variant)` sends the `prefix_run` requests, with a
  longer stable start (`PROVIDER_SYSTEM`), to another provider's cache and
  rates; `PROVIDER_POLICIES` names the five the chapter compares.
- `middle_run(strategy)` trims the history four ways: `"append"` never trims,
  `"client_clear"` runs `clear_old_tool_results(keep_last=2)` on its own list
  before every call, `"server_clear"` asks the server for
  `clear_tool_uses_20250919` (keep 2), `"restart"` replaces the whole history
  with a short summary once it passes 12,000 tokens. A `PrefixGuard` watches
  every request.

Each call comes back as a `Call`: its usage, its cost in USD and what the
guard said. Everything is deterministic.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from context_budget.cache import PromptCache, SimulatedClock
from context_budget.calls import CallRecord
from context_budget.clearing import clear_old_tool_results
from context_budget.fakes._responders import one_read_per_call
from context_budget.fakes.emulated import EmulatedClient
from context_budget.harness import RequestPlan, run_agent
from context_budget.messages import Message
from context_budget.models import MODELS, model_for
from context_budget.prefix_guard import PrefixGuard
from context_budget.pricing import cost
from context_budget.usage import Usage

__all__ = [
    "CONTEXT_BETA",
    "EPHEMERAL",
    "MODEL",
    "OUTPUT_TOKENS",
    "PROVIDER_POLICIES",
    "PROVIDER_SYSTEM",
    "RESTART_AT",
    "SECONDS_PER_CALL",
    "SERVER_EDIT",
    "SYSTEM",
    "TASK",
    "TOOLS",
    "Call",
    "middle_run",
    "prefix_run",
    "provider_run",
    "read_call",
    "read_result",
    "report",
]

MODEL = "claude-opus-5"
_ROW = MODELS[MODEL]
SECONDS_PER_CALL = 30
OUTPUT_TOKENS = 120  # each reply of the prefix runs, in tokens
TASK = "Read the incident reports one at a time and say which service was down longest."
RESTART_AT = 12_000  # tokens: the `"restart"` strategy's threshold
EPHEMERAL = {"type": "ephemeral"}
#: The beta flag of server-side context management.
CONTEXT_BETA = "context-management-2025-06-27"
#: The edit of the `"server_clear"` strategy.
SERVER_EDIT: dict[str, Any] = {
    "type": "clear_tool_uses_20250919",
    "trigger": {"type": "input_tokens", "value": 10_000},
    "keep": {"type": "tool_uses", "value": 2},
    "exclude_tools": ["save_note"],
}

SYSTEM = "\n".join(
    f"Rule {i}: when a report mentions service {i % 7}, note its downtime in minutes, "
    f"its root cause and whether a deploy preceded it; never guess a missing figure."
    for i in range(1, 56)
)

TOOLS: list[dict[str, Any]] = [
    {
        "name": name,
        "description": description,
        "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}},
    }
    for name, description in (
        ("list_reports", "List the incident reports available, newest first."),
        ("read_report", "Read one incident report in full, by its number."),
        ("save_note", "Save a one-line note that survives any trimming."),
    )
]

_SERVICES = ("auth", "billing", "search", "payments")


def report(n: int) -> str:
    """Incident report `n` as JSON text, about 1,500 estimated tokens."""
    body = {
        "id": f"INC-{1000 + n}",
        "service": _SERVICES[n % len(_SERVICES)],
        "minutes": 20 + (n * 37) % 90,
        "log": [
            f"{n:02d}:{line:02d} probe failed on node {line % 9}, retrying" for line in range(110)
        ],
    }
    return json.dumps(body)


@dataclass(frozen=True)
class Call(CallRecord):
    """One model call of a run (a `CallRecord`: its tokens are its `usage`).

    Attributes:
        usage: the call's usage as the API reports it (tokens).
        usd: the call's cost on `MODEL`'s rates, in US dollars.
        guard: the `PrefixGuard` verdict on the request (`"first"`, `"append"`,
            `"replaced"` or `"edited"`).
        cleared: tool uses the server cleared for this call.
    """

    usage: Usage
    usd: float
    guard: str
    cleared: int = 0


def read_call(n: int) -> Message:
    """The assistant message that calls `read_report` for report `n`."""
    return {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": f"toolu_{n:02d}", "name": "read_report", "input": {"n": n}}
        ],
    }


def read_result(n: int) -> Message:
    """The user message that answers `read_call(n)` with `report(n)`."""
    block = {"type": "tool_result", "tool_use_id": f"toolu_{n:02d}", "content": report(n)}
    return {"role": "user", "content": [block]}


def prefix_run(variant: str, *, calls: int = 20) -> list[Call]:
    """The reading run with its start kept stable, timestamped, or tools reordered.

    Args:
        variant: `"stable"`, `"timestamp"` or `"reordered"`.
        calls: model calls in the run.

    Returns:
        One `Call` per model call, oldest first.
    """
    _check_variant(variant)
    clock = SimulatedClock()
    cache = PromptCache(MODEL, clock=clock)
    guard = PrefixGuard()
    history: list[Message] = [{"role": "user", "content": TASK}]
    out = []
    for k in range(calls):
        tools, system = _start(variant, k, calls, clock.now, SYSTEM)
        usage = cache.usage(tools=tools, system=system, messages=history, cache_control=EPHEMERAL)
        usage = dataclasses.replace(usage, output_tokens=OUTPUT_TOKENS)
        verdict = guard.check(history, tools=tools, system=system).kind
        out.append(Call(usage, cost(usage, _ROW).total, verdict))
        history = [*history, read_call(k), read_result(k)]
        clock.advance(SECONDS_PER_CALL)
    return out


def _check_variant(variant: str) -> None:
    if variant not in ("stable", "timestamp", "reordered"):
        raise ValueError(f"variant must be 'stable', 'timestamp' or 'reordered', got {variant!r}")


def _start(
    variant: str, k: int, calls: int, now: float, rules: str
) -> tuple[list[dict[str, Any]], str]:
    """The tools and the system prompt of call `k` (from 0) of a run of `variant`."""
    system = rules
    if variant == "timestamp":
        system += f"\nCurrent time: 2026-09-14T10:{now // 60:02.0f}:{now % 60:02.0f}Z"
    tools = TOOLS[::-1] if variant == "reordered" and k >= calls // 2 else TOOLS
    return tools, system


#: The rules of the provider runs: the chapter's, then as many again, so that the
#: start passes every provider's minimum (Gemini Pro caches from 4,096 tokens).
PROVIDER_SYSTEM = SYSTEM + "\n" + SYSTEM.replace("Rule ", "Also rule ")

#: The five policies the provider runs compare: a label, a model id, and the name of
#: one of its `Model.caches` (None for its default).
PROVIDER_POLICIES: tuple[tuple[str, str, str | None], ...] = (
    ("Anthropic Opus 5", "claude-opus-5", None),
    ("OpenAI GPT-5.5", "gpt-5.5", None),
    ("OpenAI GPT-5.6 Sol", "gpt-5.6-sol", None),
    ("Gemini 3.1 Pro, explicit", "gemini-3.1-pro-preview", "explicit"),
    ("DeepSeek V4 Flash", "deepseek-v4-flash", None),
)


def provider_run(
    model: str, variant: str = "stable", *, policy: str | None = None, calls: int = 20
) -> list[Call]:
    """The reading run on another provider's cache and rates.

    The same requests as `prefix_run`, with the rules of `PROVIDER_SYSTEM`
    and the system prompt marked as a breakpoint (the last block of the
    stable start, where Gemini's explicit cache ends); each provider's
    `PromptCache` reads them under its own rules, and `cost` prices them at the
    model's latest rates, off-peak, with explicit-cache storage billed.

    Args:
        model: any id `models.model_for` finds.
        variant: `"stable"`, `"timestamp"` or `"reordered"`, as in `prefix_run`.
        policy: the name of one of the model's `caches` (`"explicit"`); its
            default cache when None.
        calls: model calls in the run.

    Returns:
        One `Call` per model call, oldest first (`guard` is `""`).
    """
    _check_variant(variant)
    row = MODELS.get(model) or model_for(model)
    if row is None:
        raise ValueError(f"no model {model!r} in the table of models")
    rules = row.cache if policy is None else row.caches[policy]
    clock = SimulatedClock()
    cache = PromptCache(model, clock=clock, policy=rules)
    history: list[Message] = [{"role": "user", "content": TASK}]
    out = []
    for k in range(calls):
        tools, system = _start(variant, k, calls, clock.now, PROVIDER_SYSTEM)
        marked = [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
        usage = cache.usage(tools=tools, system=marked, messages=history, cache_control=EPHEMERAL)
        usage = dataclasses.replace(usage, output_tokens=OUTPUT_TOKENS)
        out.append(Call(usage, cost(usage, row, policy=rules).total, ""))
        history = [*history, read_call(k), read_result(k)]
        clock.advance(SECONDS_PER_CALL)
    return out


def _marked(request: dict[str, Any]) -> dict[str, Any]:
    """Automatic caching: one breakpoint at the end of the request."""
    return {**request, "cache_control": EPHEMERAL}


def _server_clearing(request: dict[str, Any]) -> dict[str, Any]:
    """`"server_clear"`: the server clears with `SERVER_EDIT`."""
    management = {"edits": [SERVER_EDIT]}
    return {**_marked(request), "betas": [CONTEXT_BETA], "context_management": management}


def _client_clearing(request: dict[str, Any]) -> dict[str, Any]:
    """`"client_clear"`: `clear_old_tool_results(keep_last=2)` on the copy sent."""
    messages = clear_old_tool_results(request["messages"], keep_last=2)
    return {**_marked(request), "messages": messages}


def _restarting(client: EmulatedClient) -> RequestPlan:
    """`"restart"`: past `RESTART_AT` tokens of messages, send a short summary instead of them.

    What is sent is the current opening message and every message of the
    loop's history since the last restart; a restart's opening message says
    how many reports that window read.
    """
    opening: Message = {"role": "user", "content": TASK}
    since = 1  # the loop's history from here on follows `opening`

    def plan(request: dict[str, Any]) -> dict[str, Any]:
        nonlocal opening, since
        history = request["messages"]
        sent = [opening, *history[since:]]
        if client.cache.prompt_tokens(messages=sent) > RESTART_AT:
            done = sum(1 for m in sent if m["role"] == "assistant")
            opening = {
                "role": "user",
                "content": f"{TASK}\n\nProgress: {done} reports read; notes so far.",
            }
            since, sent = len(history), [opening]
        return {**_marked(request), "messages": sent}

    return plan


#: The ways `middle_run` keeps the history small: name -> the request plan for a client.
_TRIMMING: dict[str, Callable[[EmulatedClient], RequestPlan]] = {
    "append": lambda client: _marked,
    "client_clear": lambda client: _client_clearing,
    "server_clear": lambda client: _server_clearing,
    "restart": _restarting,
}


def middle_run(strategy: str, *, reads: int = 16) -> list[Call]:
    """The reading run under one of four ways to keep the history small.

    The run is `run_agent` with the strategy's request plan, a reporting
    `PrefixGuard`, and 30 simulated seconds spent in each tool call.

    Args:
        strategy: `"append"`, `"client_clear"`, `"server_clear"` or `"restart"`.
        reads: reports read before the answer (the run makes `reads + 1` calls).

    Returns:
        One `Call` per model call, oldest first.
    """
    if strategy not in _TRIMMING:
        raise ValueError(
            "strategy must be 'append', 'client_clear', 'server_clear' or 'restart', "
            f"got {strategy!r}"
        )
    clock = SimulatedClock()
    model = one_read_per_call(reads, answer="auth was down longest.", output_tokens=OUTPUT_TOKENS)
    client = EmulatedClient(MODEL, model, clock=clock)
    guard = PrefixGuard()

    def read_report(tool_input: dict[str, Any]) -> str:
        clock.advance(SECONDS_PER_CALL)  # the time between two calls
        return report(tool_input["n"])

    run = run_agent(
        TASK,
        TOOLS,
        {"read_report": read_report},
        client=client,
        model=MODEL,
        context_window=200_000,
        compact_ratio=None,
        system=SYSTEM,
        max_tokens=512,
        plan=_TRIMMING[strategy](client),
        guard=guard,
    )
    return [
        Call(call.usage, cost(call.usage, _ROW).total, report.kind, call.cleared)
        for call, report in zip(run.calls, guard.reports, strict=True)
    ]
