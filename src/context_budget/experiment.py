"""The incident-report experiment: one task, five ways to spend the context.

An agent reads 24 incident reports (`context_budget.scenarios.incidents`) to
find the service with the most downtime. `run_strategy(name)` runs it under one
strategy and returns a `RunResult` with a `StepRecord` per model call:

- `naive`: append everything; one automatic cache breakpoint at the end.
- `clear`: the server clears old tool results (`clear_tool_uses_20250919`:
  trigger `CLEAR_TRIGGER` tokens, keep 2, `save_note` excluded). Once past the
  trigger the cut moves every step, so the cache is rebuilt every step.
- `compact`: past `COMPACT_TRIGGER` tokens, an append-only summary request:
  the same request plus a question at the end that asks for text and no tool
  calls, so the cached prefix is read, not rebuilt. Then a fresh start whose
  one message holds the task, that summary and every note so far. With
  `summary_tool_choice=True` the request also sets `tool_choice` to none,
  which turns tools off in the API but invalidates every cached message.
- `chunked`: clearing rarely and in big chunks, the advice of the guide
  *Context is a budget* after its own measured run. The
  cut stays put until the results after it pass `CHUNK_TOKENS`; then it jumps
  forward, keeping the latest `KEEP_USES` tool uses, with `clear_at_least`
  so a clear is worth its cache rebuild, and a breakpoint on the system prompt.
- `cache-aware`: clearing behind the cache breakpoint. The breakpoints sit on
  the agent's two newest messages, before the newest tool results, and the
  server clears every result older than the newest message's. A report is
  sent once at the plain input price, noted, and cleared before any request
  would write it to the cache: no clear cuts into the cached prefix, so the
  cache is never rebuilt. Without `save_note` nothing is kept elsewhere, so
  it clears nothing and caches like `naive`.
- `subagents`: the lead lists the files and hands batches of `BATCH` reports
  to sub-agents, each with a fresh context; each returns its notes as a
  short table, which is all the lead sees. Every sub-agent call is billed.

By default the model is `SimulatedModel` behind an `EmulatedClient` (the
prompt-cache model, server-side clearing, a `SimulatedClock` moved
`SECONDS_PER_CALL` per call), priced as `MODEL`: every run is deterministic.
Pass `client` (an `anthropic.Anthropic()`) to run the same loop for real.

Units: every size is in tokens, every cost in US dollars.

Examples:
    >>> result = run_strategy("naive")
    >>> result.correct, result.peak_context > 40_000
    (True, True)
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from context_budget.cache import PromptCache, SimulatedClock
from context_budget.editing import EmulatedClient
from context_budget.pricing import PRICES, Cost, Price, cost
from context_budget.scenarios import incidents
from context_budget.simulated import SimulatedModel
from context_budget.tokens import estimate_tokens
from context_budget.usage import Usage

__all__ = ["STRATEGIES", "RunResult", "StepRecord", "cost_floor", "run_all", "run_strategy"]

#: The model the runs are priced as: Opus 5.5 (September 2026), cache reads at a twentieth.
MODEL = "claude-opus-5-5"
#: The strategies, in the order the comparison table lists them.
STRATEGIES = ("naive", "clear", "compact", "chunked", "cache-aware", "subagents")
#: The beta flag of server-side context management.
CONTEXT_BETA = "context-management-2025-06-27"
#: `clear`: the server starts clearing once the prompt passes this, in tokens.
CLEAR_TRIGGER = 14_000
#: `compact`: a summary is asked for once the prompt passes this, in tokens.
COMPACT_TRIGGER = 30_000
#: `chunked`: the cut jumps once the tool results after it pass this, in tokens.
CHUNK_TOKENS = 12_000
#: `chunked`: tool uses kept after a jump (a step's notes and reads).
KEEP_USES = 4
#: `subagents`: reports per sub-agent.
BATCH = 6
#: Simulated seconds per model call (well inside the 5-minute cache lifetime).
SECONDS_PER_CALL = 6.0
#: The compaction question, appended at the end of the history. It turns the
#: tools off in words, so the request's prefix, and with it the cache, stays put.
SUMMARY_QUESTION = (
    "Pause here. In under 150 words, summarize where you stand: the reports "
    "finished, and any facts your notes still lack. Reply in text only; do "
    "not call any tools."
)
_MAX_CALLS = 120


@dataclass(frozen=True)
class StepRecord:
    """One model call of a run.

    Attributes:
        number: the call's position in the run, from 1.
        agent: `"lead"`, or `"sub-N"` for the Nth sub-agent.
        kind: `"turn"` (a step of the loop), `"summary"` (a compaction request)
            or `"answer"` (the call that ended the run).
        context: the prompt the model read, in tokens (uncached + written + read).
        cached: the part of it read from the cache, in tokens.
        written: the part written to the cache, in tokens.
        usage: the call's usage.
        cost: the call's bill, USD.
        cleared: tool results the server cleared for this call.
    """

    number: int
    agent: str
    kind: str
    context: int
    cached: int
    written: int
    usage: Usage
    cost: Cost
    cleared: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The record as plain JSON data (`cost_usd` in USD, sizes in tokens)."""
        return {
            "number": self.number,
            "agent": self.agent,
            "kind": self.kind,
            "context": self.context,
            "cached": self.cached,
            "written": self.written,
            "output_tokens": self.usage.output_tokens,
            "cleared": self.cleared,
            "cost_usd": round(self.cost.total, 6),
        }


@dataclass(frozen=True)
class RunResult:
    """One strategy's run: every call, the notes, the answer.

    Attributes:
        strategy: the strategy's name, one of `STRATEGIES`.
        with_notes: False for the `--no-notes` variant.
        records: one `StepRecord` per model call, in call order.
        answer: the final answer's text.
        reads: every `read_file` path, in call order, repeats included.
        notes: the notes saved, oldest first.
        model: the model id the run was priced as.
    """

    strategy: str
    with_notes: bool
    records: tuple[StepRecord, ...]
    answer: str
    reads: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    model: str = MODEL

    @property
    def steps(self) -> int:
        """Model calls made, sub-agents' included."""
        return len(self.records)

    @property
    def peak_context(self) -> int:
        """The largest prompt the lead agent read, in tokens."""
        return max((r.context for r in self.records if r.agent == "lead"), default=0)

    @property
    def tokens_read(self) -> int:
        """Prompt tokens over every call, in tokens."""
        return sum(r.context for r in self.records)

    @property
    def cache_read_share(self) -> float:
        """The share of `tokens_read` served from the cache, 0 to 1."""
        read = self.tokens_read
        return sum(r.cached for r in self.records) / read if read else 0.0

    @property
    def cost(self) -> Cost:
        """The bill of every call, USD, by charge."""
        total = Cost(0.0, 0.0, 0.0, 0.0)
        for record in self.records:
            total = total + record.cost
        return total

    @property
    def cost_usd(self) -> float:
        """The whole bill, USD."""
        return self.cost.total

    @property
    def correct(self) -> bool:
        """Whether the answer names auth, 760 minutes and failover."""
        return incidents.is_correct(self.answer)

    @property
    def output_tokens(self) -> int:
        """Tokens written by the model over every call."""
        return sum(r.usage.output_tokens for r in self.records)

    @property
    def floor_ratio(self) -> float:
        """`cost_usd` over `cost_floor` with this run's own output: 1.0 is the least possible."""
        return self.cost_usd / cost_floor(self.model, output_tokens=self.output_tokens)

    @property
    def rereads(self) -> int:
        """`read_file` calls beyond the first for each report."""
        return len(self.reads) - len(set(self.reads))

    def as_dict(self) -> dict[str, Any]:
        """The run as plain JSON data: totals and the per-step list."""
        bill = self.cost
        return {
            "strategy": self.strategy,
            "notes": self.with_notes,
            "steps": self.steps,
            "peak_context": self.peak_context,
            "tokens_read": self.tokens_read,
            "cache_read_share": round(self.cache_read_share, 4),
            "cost_usd": round(bill.total, 6),
            "cost_breakdown": {
                "uncached_input": round(bill.uncached_input, 6),
                "cache_writes": round(bill.cache_writes, 6),
                "cache_reads": round(bill.cache_reads, 6),
                "output": round(bill.output, 6),
            },
            "answer": self.answer,
            "correct": self.correct,
            "floor_ratio": round(self.floor_ratio, 4),
            "rereads": self.rereads,
            "per_step": [record.as_dict() for record in self.records],
        }


def cost_floor(model: str = MODEL, *, output_tokens: int = 0) -> float:
    """The least the task can cost: every report read once, uncached, plus the output.

    Args:
        model: the model whose prices apply, a key of `PRICES`.
        output_tokens: the output to add, in tokens (a run's own, to compare it).

    Returns:
        USD.

    Examples:
        >>> round(cost_floor(), 4) > 0.15
        True
    """
    price = _price(model)
    if isinstance(output_tokens, bool) or not isinstance(output_tokens, int) or output_tokens < 0:
        raise ValueError(f"output_tokens must be an int >= 0, got {output_tokens!r}")
    tokens = sum(estimate_tokens(text) for text in incidents.reports().values())
    return (tokens * price.input + output_tokens * price.output) / 1_000_000


def _price(model: str) -> Price:
    if model not in PRICES:
        raise ValueError(f"no prices for model {model!r}; known: {', '.join(PRICES)}")
    return PRICES[model]


# ---------------------------------------------------------------- one loop


@dataclass
class _Loop:
    """What one agent's run shares between its calls."""

    client: Any
    price: Price
    model: str
    clock: SimulatedClock | None
    records: list[StepRecord]
    reads: list[str]
    notes: list[str]
    with_notes: bool = True
    system: Any = ""
    tools: list[dict[str, Any]] = field(default_factory=list)
    agent: str = "lead"

    def call(self, kind: str, request: dict[str, Any], beta: bool) -> dict[str, Any]:
        if self.clock is not None:
            self.clock.advance(SECONDS_PER_CALL)
        if beta:
            raw = self.client.beta.messages.create(betas=[CONTEXT_BETA], **request)
        else:
            raw = self.client.messages.create(**request)
        response = _as_dict(raw)
        usage = Usage.of(response)
        edits = (response.get("context_management") or {}).get("applied_edits") or []
        cleared = sum(int(edit.get("cleared_tool_uses") or 0) for edit in edits)
        self.records.append(
            StepRecord(
                number=len(self.records) + 1,
                agent=self.agent,
                kind="answer"
                if kind == "turn" and response.get("stop_reason") != "tool_use"
                else kind,
                context=usage.prompt_tokens,
                cached=usage.cache_read_input_tokens,
                written=usage.cache_creation_input_tokens,
                usage=usage,
                cost=cost(response, self.price),
                cleared=cleared,
            )
        )
        return response


def _as_dict(response: Any) -> dict[str, Any]:
    if isinstance(response, Mapping):
        return dict(response)
    dump = getattr(response, "model_dump", None)
    if callable(dump):
        data = dump(mode="json")
        if isinstance(data, dict):
            return data
    raise TypeError(f"a response must be a dict or an SDK message, got {type(response).__name__}")


def _text(response: Mapping[str, Any]) -> str:
    return "".join(b.get("text", "") for b in response.get("content", []) if b["type"] == "text")


def _content(response: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The assistant content to append: only the fields a request accepts."""
    keep = {"text": ("type", "text"), "tool_use": ("type", "id", "name", "input")}
    return [
        {k: block[k] for k in keep[block["type"]] if k in block}
        for block in response.get("content", [])
        if block["type"] in keep
    ]


Plan = Callable[[list[dict[str, Any]], int], tuple[dict[str, Any], bool]]


def _agent(
    loop: _Loop,
    history: list[dict[str, Any]],
    impls: Mapping[str, Callable[..., str]],
    *,
    plan: Plan,
    compact_at: int | None = None,
    summary_tool_choice: bool = False,
) -> str:
    """Run one agent to its answer; `plan(history, last prompt)` -> (extra request keys, beta)."""
    last = 0
    for _ in range(_MAX_CALLS):
        extra, beta = plan(history, last)
        request: dict[str, Any] = {
            "model": loop.model,
            "max_tokens": 4096,
            "system": copy.deepcopy(loop.system),
            "tools": copy.deepcopy(loop.tools),
            "messages": list(history),
            **extra,
        }
        if compact_at is not None and last > compact_at:
            request["messages"].append({"role": "user", "content": SUMMARY_QUESTION})
            if summary_tool_choice:
                request["tool_choice"] = {"type": "none"}  # invalidates every cached message
                request.pop("cache_control", None)  # a write nothing would read again
            summary = _text(loop.call("summary", request, beta))
            history[:] = [_restart(summary, loop.notes)]
            last = 0
            continue
        response = loop.call("turn", request, beta)
        last = loop.records[-1].context
        history.append({"role": "assistant", "content": _content(response)})
        if response.get("stop_reason") != "tool_use":
            return _text(response)
        results = []
        for block in response["content"]:
            if block["type"] != "tool_use":
                continue
            if block["name"] == "read_file":
                loop.reads.append(str(block["input"].get("path")))
            results.append(incidents.run_tool(block, impls))
        history.append({"role": "user", "content": results})
    return ""


def _restart(summary: str, notes: Sequence[str]) -> dict[str, Any]:
    text = f"{incidents.TASK}\n\nThis picks up earlier work.\nProgress summary:\n{summary}\n\n"
    return {"role": "user", "content": text + "Saved notes:\n" + "\n".join(notes)}


# ---------------------------------------------------------------- the plans


def _cached(history: list[dict[str, Any]], last: int) -> tuple[dict[str, Any], bool]:
    return {"cache_control": {"type": "ephemeral"}}, False


def _clearing(trigger: int, keep: int, at_least: int = 0) -> dict[str, Any]:
    """The `context_management` of a server-side clear that never touches `save_note`."""
    edit: dict[str, Any] = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": trigger},
        "keep": {"type": "tool_uses", "value": keep},
        "exclude_tools": ["save_note"],
    }
    if at_least:
        edit["clear_at_least"] = {"type": "input_tokens", "value": at_least}
    return {"edits": [edit]}


def _clear_plan(history: list[dict[str, Any]], last: int) -> tuple[dict[str, Any], bool]:
    return {
        "cache_control": {"type": "ephemeral"},
        "context_management": _clearing(CLEAR_TRIGGER, 2),
    }, True


def _uses(history: Sequence[Mapping[str, Any]]) -> list[tuple[str, int]]:
    """Every tool use as (name, its result's tokens), oldest first."""
    sizes: dict[str, int] = {}
    for message in history:
        if message["role"] == "user" and isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    text = block.get("content")
                    sizes[block["tool_use_id"]] = estimate_tokens(
                        text if isinstance(text, str) else ""
                    )
    return [
        (block["name"], sizes.get(block["id"], 0))
        for message in history
        if message["role"] == "assistant" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_use"
    ]


def _behind_plan(history: list[dict[str, Any]], last: int) -> tuple[dict[str, Any], bool]:
    """`cache-aware`: breakpoints before the newest results, which alone survive clearing."""
    turns = [i for i, message in enumerate(history) if message["role"] == "assistant"]
    if not turns:
        return {}, False
    messages = list(history)
    for index in turns[-2:]:  # the older one is where the last request wrote: a sure read
        message = copy.deepcopy(history[index])
        if isinstance(message["content"], list) and message["content"]:
            message["content"][-1]["cache_control"] = {"type": "ephemeral"}
        messages[index] = message
    newest = sum(
        isinstance(block, Mapping) and block.get("type") == "tool_use"
        for block in history[turns[-1]]["content"]
    )
    return {"messages": messages, "context_management": _clearing(1, newest)}, True


def _chunked_plan() -> Plan:
    """`chunked`: a cut that moves rarely, in big jumps, and a breakpoint on the system."""
    cut = 0  # tool uses before the cut are cleared on the server

    def plan(history: list[dict[str, Any]], last: int) -> tuple[dict[str, Any], bool]:
        nonlocal cut
        uses = _uses(history)
        after = sum(size for name, size in uses[cut:] if name != "save_note")
        if after > CHUNK_TOKENS and len(uses) - KEEP_USES > cut:
            cut = len(uses) - KEEP_USES
        extra: dict[str, Any] = {"cache_control": {"type": "ephemeral"}}
        if cut:
            extra["context_management"] = _clearing(1, len(uses) - cut, CHUNK_TOKENS // 2)
        return extra, bool(cut)

    return plan


# ---------------------------------------------------------------- the strategies


def _default_client(model: str, clock: SimulatedClock, simulated: SimulatedModel) -> EmulatedClient:
    def reply(request: dict[str, Any]) -> dict[str, Any]:
        response = simulated.respond(request)
        return {
            "content": response["content"],
            "stop_reason": response["stop_reason"],
            "output_tokens": response["usage"]["output_tokens"],
        }

    return EmulatedClient(model, reply, cache=PromptCache(model, clock=clock))


def run_strategy(
    strategy: str,
    *,
    with_notes: bool = True,
    model: str = MODEL,
    client: Any = None,
    simulated: SimulatedModel | None = None,
    summary_tool_choice: bool = False,
) -> RunResult:
    """Run the incident task under one strategy.

    Args:
        strategy: one of `STRATEGIES`.
        with_notes: False removes `save_note` (the run that shows what notes are worth).
        model: the model id sent and priced, a key of `PRICES`.
        client: an Anthropic-shaped client (`messages.create`,
            `beta.messages.create`); an `EmulatedClient` over a
            `SimulatedModel` with a fresh `SimulatedClock` when None.
        simulated: the simulated model's settings, when `client` is None.
        summary_tool_choice: `compact` only: also send `tool_choice` none
            with the summary request (tools off in the API, not in words).

    Returns:
        A `RunResult`.

    Raises:
        ValueError: an unknown strategy or model.
        TypeError: `with_notes` or `summary_tool_choice` is not a bool.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
    for name, flag in (("with_notes", with_notes), ("summary_tool_choice", summary_tool_choice)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be True or False, got {flag!r}")
    price = _price(model)
    clock = None
    if client is None:
        clock = SimulatedClock()
        client = _default_client(model, clock, simulated or SimulatedModel())
    records: list[StepRecord] = []
    reads: list[str] = []
    notes: list[str] = []
    loop = _Loop(client, price, model, clock, records, reads, notes, with_notes)
    loop.system = incidents.SYSTEM if with_notes else incidents.SYSTEM_NO_NOTES
    loop.tools = copy.deepcopy(incidents.TOOLS if with_notes else incidents.TOOLS_NO_NOTES)
    impls = incidents.tool_impls(notes, with_notes=with_notes)
    history: list[dict[str, Any]] = [{"role": "user", "content": incidents.TASK}]
    if strategy == "naive":
        answer = _agent(loop, history, impls, plan=_cached)
    elif strategy == "clear":
        answer = _agent(loop, history, impls, plan=_clear_plan)
    elif strategy == "compact":
        answer = _agent(
            loop,
            history,
            impls,
            plan=_cached,
            compact_at=COMPACT_TRIGGER,
            summary_tool_choice=summary_tool_choice,
        )
    elif strategy == "chunked":
        loop.system = [
            {"type": "text", "text": loop.system, "cache_control": {"type": "ephemeral"}}
        ]
        answer = _agent(loop, history, impls, plan=_chunked_plan())
    elif strategy == "cache-aware":
        answer = _agent(loop, history, impls, plan=_behind_plan if with_notes else _cached)
    else:
        answer = _subagents(loop, history, impls)
    return RunResult(
        strategy, with_notes, tuple(records), answer, tuple(reads), tuple(notes), model
    )


def _subagents(
    lead: _Loop, history: list[dict[str, Any]], impls: Mapping[str, Callable[..., str]]
) -> str:
    """The lead lists the files, sub-agents read them in batches, the lead answers from tables."""
    lead.tools = [t for t in lead.tools if t["name"] != "save_note"]
    listing = lead.call("turn", _request(lead, history, tools=[lead.tools[0]]), False)
    history.append({"role": "assistant", "content": _content(listing)})
    uses = [b for b in listing["content"] if b["type"] == "tool_use"]
    history.append({"role": "user", "content": [incidents.run_tool(b, impls) for b in uses]})
    tables = []
    for number, start in enumerate(range(0, len(incidents.FILES), BATCH), 1):
        batch = incidents.FILES[start : start + BATCH]
        own: list[str] = []
        sub = _Loop(
            lead.client,
            lead.price,
            lead.model,
            lead.clock,
            lead.records,
            lead.reads,
            own,
            lead.with_notes,
            lead.system,
            copy.deepcopy(
                [
                    t
                    for t in (incidents.TOOLS if lead.with_notes else incidents.TOOLS_NO_NOTES)
                    if t["name"] != "list_files"
                ]
            ),
            f"sub-{number}",
        )
        task = f"Read these incident reports and note each one.\nStill to read: {', '.join(batch)}"
        text = _agent(
            sub,
            [{"role": "user", "content": task}],
            incidents.tool_impls(own, with_notes=lead.with_notes),
            plan=_cached,
        )
        lead.notes.extend(own)
        tables.append("\n".join(own) if own else text)
    tables_text = "Tables from the sub-agents.\nSaved notes:\n" + "\n".join(tables)
    history[-1] = {
        **history[-1],
        "content": [*history[-1]["content"], {"type": "text", "text": tables_text}],
    }
    final = lead.call("answer", _request(lead, history, tools=lead.tools), False)
    history.append({"role": "assistant", "content": _content(final)})
    return _text(final)


def _request(
    loop: _Loop, history: list[dict[str, Any]], *, tools: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "model": loop.model,
        "max_tokens": 4096,
        "system": loop.system,
        "tools": copy.deepcopy(tools),
        "messages": list(history),
        "cache_control": {"type": "ephemeral"},
    }


def run_all(*, with_notes: bool = True, model: str = MODEL) -> dict[str, RunResult]:
    """Every strategy, simulated, in `STRATEGIES` order: `{name: RunResult}`."""
    return {name: run_strategy(name, with_notes=with_notes, model=model) for name in STRATEGIES}
