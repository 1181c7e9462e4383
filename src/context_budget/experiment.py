"""The incident-report experiment: one task, six ways to spend the context.

An agent reads 24 incident reports (`context_budget.scenarios.incidents`) to
find the service with the most downtime. `run_strategy(name)` runs it under one
strategy and returns a `RunResult` with a `StepRecord` per model call. Every
agent runs the loop of Part III (`AgentLoop`, what `run_agent` runs); a
strategy is what it hands that loop: a request plan (where the cache
breakpoints go, what the server clears), a compaction step, or sub-agents:

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
  short table. The tables are appended to the lead's conversation, after the
  listing, and they are all the lead sees. Every sub-agent call is billed.

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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from context_budget._values import as_count
from context_budget.cache import PromptCache, SimulatedClock
from context_budget.calls import CallRecord
from context_budget.clients import ClientShape, response_text, send_request
from context_budget.fakes.emulated import EmulatedClient
from context_budget.fakes.simulated import SimulatedModel
from context_budget.harness import (
    AgentConfig,
    AgentLoop,
    AgentRun,
    AppendOnlyCompaction,
    RequestPlan,
)
from context_budget.messages import Message
from context_budget.models import MODELS, Model, model_for
from context_budget.pricing import Cost, cost
from context_budget.scenarios import incidents
from context_budget.tokens import estimate_tokens
from context_budget.usage import Usage

__all__ = ["STRATEGIES", "RunResult", "StepRecord", "cost_floor", "run_all", "run_strategy"]

#: The model the runs are priced as: Opus 5.5 (September 2026), cache reads at a twentieth.
MODEL = "claude-opus-5-5"
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
class StepRecord(CallRecord):
    """One model call of a run (a `CallRecord`: its tokens are its `usage`).

    Attributes:
        number: the call's position in the run, from 1.
        agent: `"lead"`, or `"sub-N"` for the Nth sub-agent.
        kind: `"turn"` (a step of the loop), `"summary"` (a compaction request)
            or `"answer"` (the call that ended the run).
        usage: the call's usage.
        cost: the call's bill, USD.
        cleared: tool results the server cleared for this call.
    """

    number: int
    agent: str
    kind: str
    usage: Usage
    cost: Cost
    cleared: int = 0

    @property
    def context(self) -> int:
        """The prompt the model read, in tokens (uncached + written + read)."""
        return self.prompt_tokens

    @property
    def cached(self) -> int:
        """The part of the prompt read from the cache, in tokens."""
        return self.cache_read

    @property
    def written(self) -> int:
        """The part of the prompt written to the cache, in tokens."""
        return self.cache_write

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
        """The bill of every call, USD, by charge: added as a bill adds its calls
        (`Cost.added`), so the order of the calls changes nothing."""
        return Cost.added(record.cost for record in self.records)

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
        model: the model whose prices apply, any id `models.model_for` finds.
        output_tokens: the output to add, in tokens (a run's own, to compare it).

    Returns:
        USD.

    Raises:
        TypeError: `output_tokens` is not an int (a bool is not one).
        ValueError: `output_tokens` is below 0, or `model` has no price.

    Examples:
        >>> round(cost_floor(), 4) > 0.15
        True
    """
    price = _price(model)
    as_count(output_tokens, "output_tokens")
    reads = (Usage(input_tokens=estimate_tokens(text)) for text in incidents.reports().values())
    # priced as the run reads them: each report in a request of its own, then the output
    return sum(cost(usage, price).total for usage in (*reads, Usage(output_tokens=output_tokens)))


def _price(model: str) -> Model:
    """The model's row of the table of models, whose rates price the run."""
    row = model_for(model)
    if row is None:
        raise ValueError(f"no prices for model {model!r}; known: {', '.join(MODELS)}")
    return row


# ---------------------------------------------------------------- the accounting


class _Meter:
    """The client as the agents see it: the clock moved before every call, every call noted.

    `calls` holds `(agent, response)` for every call, in call order, sub-agents'
    included; each agent's loop reports its own calls, and the two together
    give the `StepRecord`s. Each agent talks through `client(name)`, which notes
    its calls under its name. `answers` names the agents whose last call is
    their answer whatever it asks for.
    """

    def __init__(self, client: Any, clock: SimulatedClock | None) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.answers: set[str] = set()
        self._client, self._clock = client, clock

    def client(self, agent: str) -> _AgentClient:
        """The client `agent` calls: `messages.create` and `beta.messages.create`."""
        return _AgentClient(self, agent)

    def send(self, agent: str, request: dict[str, Any], *, beta: bool) -> Any:
        if self._clock is not None:
            self._clock.advance(SECONDS_PER_CALL)
        response = send_request(self._client, request, beta=beta)
        self.calls.append((agent, response))
        return response


class _AgentClient(ClientShape):
    """One agent's client: each call goes through the meter, under the agent's name."""

    def __init__(self, meter: _Meter, agent: str) -> None:
        super().__init__()
        self._meter, self._agent = meter, agent

    def _create(self, request: dict[str, Any], *, beta: bool) -> Any:
        return self._meter.send(self._agent, request, beta=beta)


def _records(meter: _Meter, runs: Mapping[str, AgentRun], price: Model) -> list[StepRecord]:
    """One `StepRecord` per call, in call order.

    The kind, the usage and the clearing come from the agent's run (a turn
    that asked for no tool is the answer, and so is the last call of an agent
    in `meter.answers`), the bill from the response.
    """
    own = {agent: iter(run.calls) for agent, run in runs.items()}
    records = []
    for number, (agent, response) in enumerate(meter.calls, 1):
        call = next(own[agent])
        kind = "summary" if call.kind == "compaction" else "turn"
        last = call.number == len(runs[agent].calls) and agent in meter.answers
        if kind == "turn" and (call.stop_reason != "tool_use" or last):
            kind = "answer"
        records.append(
            StepRecord(
                number=number,
                agent=agent,
                kind=kind,
                usage=call.usage,
                cost=cost(response, price),
                cleared=call.cleared,
            )
        )
    return records


# ---------------------------------------------------------------- the request plans


def _with(request: dict[str, Any], **keys: Any) -> dict[str, Any]:
    return {**request, **keys}


def _automatic_breakpoint(request: dict[str, Any]) -> dict[str, Any]:
    """`naive`: one automatic cache breakpoint, at the end of the request."""
    return _with(request, cache_control={"type": "ephemeral"})


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


def _server_clearing(request: dict[str, Any]) -> dict[str, Any]:
    """`clear`: the automatic breakpoint, and the server clears past `CLEAR_TRIGGER`."""
    return _with(
        _automatic_breakpoint(request),
        context_management=_clearing(CLEAR_TRIGGER, 2),
        betas=[CONTEXT_BETA],
    )


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


def _clearing_behind_the_cache(request: dict[str, Any]) -> dict[str, Any]:
    """`cache-aware`: breakpoints before the newest results, which alone survive clearing.

    The request's messages are the plan's own copy, so marking a block in
    place leaves the loop's history unmarked.
    """
    history = request["messages"]
    turns = [i for i, message in enumerate(history) if message["role"] == "assistant"]
    if not turns:
        return request
    for index in turns[-2:]:  # the older one is where the last request wrote: a sure read
        content = history[index]["content"]
        if isinstance(content, list) and content:
            content[-1]["cache_control"] = {"type": "ephemeral"}
    newest = sum(
        isinstance(block, Mapping) and block.get("type") == "tool_use"
        for block in history[turns[-1]]["content"]
    )
    return _with(request, context_management=_clearing(1, newest), betas=[CONTEXT_BETA])


def _clearing_in_chunks() -> RequestPlan:
    """`chunked`: a cut that moves rarely, in big jumps, and a breakpoint on the system."""
    cut = 0  # tool uses before the cut are cleared on the server

    def plan(request: dict[str, Any]) -> dict[str, Any]:
        nonlocal cut
        uses = _uses(request["messages"])
        after = sum(size for name, size in uses[cut:] if name != "save_note")
        if after > CHUNK_TOKENS and len(uses) - KEEP_USES > cut:
            cut = len(uses) - KEEP_USES
        system = [
            {"type": "text", "text": request["system"], "cache_control": {"type": "ephemeral"}}
        ]
        planned = _with(_automatic_breakpoint(request), system=system)
        if cut:
            clearing = _clearing(1, len(uses) - cut, CHUNK_TOKENS // 2)
            planned.update(context_management=clearing, betas=[CONTEXT_BETA])
        return planned

    return plan


# ---------------------------------------------------------------- the strategies


@dataclass
class _Run:
    """What one run of the task shares between its agents."""

    meter: _Meter
    model: str
    with_notes: bool
    summary_tool_choice: bool = False
    reads: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    runs: dict[str, AgentRun] = field(default_factory=dict)

    def agent(
        self,
        name: str,
        task: str,
        tools: Sequence[Mapping[str, Any]],
        notes: list[str],
        *,
        plan: RequestPlan,
        compaction: AppendOnlyCompaction | None = None,
        max_calls: int = _MAX_CALLS,
    ) -> AgentRun:
        """Run one agent to its answer (the run's `text` is `""` when it ran out of calls)."""
        config = self.config(
            name, tools, notes, plan=plan, compaction=compaction, max_calls=max_calls
        )
        run = AgentLoop(config, task).run()
        self.runs[name] = run
        return run

    def config(
        self,
        name: str,
        tools: Sequence[Mapping[str, Any]],
        notes: list[str],
        *,
        plan: RequestPlan,
        compaction: AppendOnlyCompaction | None = None,
        max_calls: int = _MAX_CALLS,
    ) -> AgentConfig:
        """The settings of agent `name`'s loop: the task's tools over `notes`, its own client."""
        return AgentConfig(
            tools=list(tools),  # the loop hands a plan copies: the constants stay as they are
            tool_impls=self._tool_impls(notes),
            client=self.meter.client(name),
            model=self.model,
            context_window=2 * (COMPACT_TRIGGER + 1),
            # compacts at a prompt of COMPACT_TRIGGER + 1, the first that passes the trigger
            compact_ratio=0.5 if compaction is not None else None,
            compaction=compaction,
            measure="prompt",
            system=incidents.SYSTEM if self.with_notes else incidents.SYSTEM_NO_NOTES,
            max_tokens=4096,
            plan=plan,
            max_calls=max_calls,
        )

    def _tool_impls(self, notes: list[str]) -> dict[str, Callable[[dict[str, Any]], str]]:
        """The task's tools over `notes`, each taking its input as one dict; reads are noted.

        A tool that raises gives an error result, as `run_agent` gives it.
        """
        impls = incidents.tool_impls(notes, with_notes=self.with_notes)

        def calling(name: str, function: Callable[..., str]) -> Callable[[dict[str, Any]], str]:
            def call(arguments: dict[str, Any]) -> str:
                if name == "read_file":
                    self.reads.append(str(arguments.get("path")))
                return function(**arguments)

            return call

        return {name: calling(name, function) for name, function in impls.items()}


def _tools(with_notes: bool, *, without: str = "") -> list[dict[str, Any]]:
    tools = incidents.TOOLS if with_notes else incidents.TOOLS_NO_NOTES
    return [tool for tool in tools if tool["name"] != without]


def _lead(run: _Run, plan: RequestPlan, compaction: AppendOnlyCompaction | None = None) -> str:
    return run.agent(
        "lead", incidents.TASK, _tools(run.with_notes), run.notes, plan=plan, compaction=compaction
    ).text


def _restart(summary: str, notes: Sequence[str]) -> list[Message]:
    text = f"{incidents.TASK}\n\nThis picks up earlier work.\nProgress summary:\n{summary}\n\n"
    return [{"role": "user", "content": text + "Saved notes:\n" + "\n".join(notes)}]


def _naive(run: _Run) -> str:
    return _lead(run, _automatic_breakpoint)


def _clear(run: _Run) -> str:
    return _lead(run, _server_clearing)


def _compact(run: _Run) -> str:
    step = AppendOnlyCompaction(
        SUMMARY_QUESTION,
        lambda summary: _restart(summary, run.notes),
        tools_off=run.summary_tool_choice,
    )
    return _lead(run, _automatic_breakpoint, step)


def _chunked(run: _Run) -> str:
    return _lead(run, _clearing_in_chunks())


def _cache_aware(run: _Run) -> str:
    # without save_note nothing is kept elsewhere, so nothing may be cleared
    return _lead(run, _clearing_behind_the_cache if run.with_notes else _automatic_breakpoint)


def _sub_agent_task(batch: Sequence[str]) -> str:
    """The task a sub-agent gets: note each report of `batch` (file names)."""
    return f"Read these incident reports and note each one.\nStill to read: {', '.join(batch)}"


def _sub_agent(run: _Run, *, number: int, batch: Sequence[str]) -> str:
    """Sub-agent `number`, in a fresh context: reads `batch`, returns its notes as a table."""
    own: list[str] = []
    text = run.agent(
        f"sub-{number}",
        _sub_agent_task(batch),
        _tools(run.with_notes, without="list_files"),
        own,
        plan=_automatic_breakpoint,
    ).text
    run.notes.extend(own)
    return "\n".join(own) if own else text


def _listing_first(request: dict[str, Any]) -> dict[str, Any]:
    """`subagents`' lead: the automatic breakpoint, and only `list_files` on the first call."""
    planned = _automatic_breakpoint(request)
    if len(request["messages"]) == 1:
        planned["tools"] = request["tools"][:1]
    return planned


def _subagents(run: _Run) -> str:
    """The lead lists the files, sub-agents read them in batches, the lead answers from tables.

    The lead's loop is taken step by step: the listing call and its result,
    then the sub-agents (a step of their own), their tables appended after
    the listing's result, and the answer call, whatever it asks for.
    """
    tools = _tools(run.with_notes, without="save_note")
    lead = AgentLoop(run.config("lead", tools, run.notes, plan=_listing_first), incidents.TASK)
    lead.ask()  # the first call may only list the files
    if lead.stop_reason == "tool_use":
        lead.run_tools()
        tables = [
            _sub_agent(run, number=number, batch=incidents.FILES[start : start + BATCH])
            for number, start in enumerate(range(0, len(incidents.FILES), BATCH), 1)
        ]
        lead.add_text("Tables from the sub-agents.\nSaved notes:\n" + "\n".join(tables))
        lead.ask()
    run.meter.answers.add("lead")  # the last call is the answer, whatever it asks for
    run.runs["lead"] = lead.result()
    return response_text(lead.response)


#: Each strategy's name and how it runs the task: `run` -> the answer.
_STRATEGY_RUNS: dict[str, Callable[[_Run], str]] = {
    "naive": _naive,
    "clear": _clear,
    "compact": _compact,
    "chunked": _chunked,
    "cache-aware": _cache_aware,
    "subagents": _subagents,
}


def _default_client(model: str, clock: SimulatedClock, simulated: SimulatedModel) -> EmulatedClient:
    return EmulatedClient(model, simulated, cache=PromptCache(model, clock=clock))


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

    Every agent, the lead and each sub-agent, runs the loop of `run_agent`
    with the strategy's request plan (and, for `compact`, an
    `AppendOnlyCompaction`).

    Args:
        strategy: one of `STRATEGIES`.
        with_notes: False removes `save_note` (the run that shows what notes are worth).
        model: the model id sent and priced, any id `models.model_for` finds.
        client: an Anthropic-shaped client (`messages.create`,
            `beta.messages.create`); an `EmulatedClient` over a
            `SimulatedModel` with a fresh `SimulatedClock` when None.
        simulated: the simulated model's settings, when `client` is None.
        summary_tool_choice: `compact` only: also send `tool_choice` none
            with the summary request (tools off in the API, not in words).

    Returns:
        A `RunResult`.

    Raises:
        ValueError: an unknown strategy or model, or `summary_tool_choice`
            with a strategy other than `compact`.
        TypeError: `with_notes` or `summary_tool_choice` is not a bool.
    """
    if strategy not in _STRATEGY_RUNS:
        raise ValueError(f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
    for name, flag in (("with_notes", with_notes), ("summary_tool_choice", summary_tool_choice)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be True or False, got {flag!r}")
    if summary_tool_choice and strategy != "compact":
        raise ValueError(
            f"summary_tool_choice applies to 'compact' only (no other strategy asks for a "
            f"summary), got strategy {strategy!r}"
        )
    price = _price(model)
    clock = None
    if client is None:
        clock = SimulatedClock()
        client = _default_client(model, clock, simulated or SimulatedModel())
    run = _Run(_Meter(client, clock), model, with_notes, summary_tool_choice)
    answer = _STRATEGY_RUNS[strategy](run)
    records = _records(run.meter, run.runs, price)
    return RunResult(
        strategy, with_notes, tuple(records), answer, tuple(run.reads), tuple(run.notes), model
    )


#: The strategies, in the order the comparison table lists them.
STRATEGIES = tuple(_STRATEGY_RUNS)


def run_all(*, with_notes: bool = True, model: str = MODEL) -> dict[str, RunResult]:
    """Every strategy, simulated, in `STRATEGIES` order: `{name: RunResult}`."""
    return {name: run_strategy(name, with_notes=with_notes, model=model) for name in STRATEGIES}
