"""`context-budget demo`: the incident-report experiment, one strategy or all of them.

Offline by default (the simulated model behind the emulated API, deterministic);
with `--model MODEL`, the `anthropic` extra and `ANTHROPIC_API_KEY`, the same
loop runs against the real API through the SDK.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from context_budget.errors import InputError
from context_budget.experiment import STRATEGIES, RunResult, cost_floor, run_strategy
from context_budget.models import MODELS, model_for

_BAR_TOKENS = 1_000  # one `#` per this many tokens of context
_BAR_MAX = 60


class DemoError(InputError):
    """A usage problem the command reports in one line (exit status 2)."""


def add_parser(commands: Any) -> None:
    """Add the `demo` subcommand to `commands` (an argparse subparsers action)."""
    demo = commands.add_parser(
        "demo",
        help="run the incident-report experiment under one strategy, or all",
        description=(
            "An agent reads 24 incident reports to find the service with the most downtime. "
            "Each step shows the context it read and the cached part; then the totals."
        ),
    )
    demo.add_argument("--strategy", choices=[*STRATEGIES, "all"], default="naive")
    demo.add_argument("--no-notes", action="store_true", help="remove the save_note tool")
    demo.add_argument("--json", action="store_true", help="print the run as one JSON object")
    demo.add_argument(
        "--model", metavar="MODEL", help="run against Anthropic's API with this Claude model"
    )


def _client(model: str) -> Any:
    row = model_for(model)
    if row is None or row.provider != "anthropic":  # the demo calls Anthropic's API alone
        runnable = ", ".join(name for name in MODELS if MODELS[name].provider == "anthropic")
        if row is None:
            raise DemoError(f"--model: no prices for {model!r}; known: {runnable}")
        raise DemoError(
            f"--model {model}: a {row.provider} model; the demo runs on Anthropic's API "
            f"alone, give one of {runnable}"
        )
    if not os.environ.get("ANTHROPIC_API_KEY"):
        raise DemoError("--model needs ANTHROPIC_API_KEY set (the run would call the real API)")
    try:
        import anthropic
    except ImportError:
        raise DemoError(
            "--model needs the anthropic extra: pip install 'context-budget[anthropic]'"
        ) from None
    try:
        return anthropic.Anthropic()
    except anthropic.AnthropicError as error:
        raise DemoError(f"--model {model}: the SDK refused to start: {error}") from None


def _api_errors() -> tuple[type[Exception], ...]:
    """The exceptions the SDK raises for a failed call (none without the extra)."""
    try:
        import anthropic
    except ImportError:
        return ()
    return (anthropic.AnthropicError,)


def run(args: argparse.Namespace, *, client: Any = None) -> str:
    """The demo's output for parsed `args`; `client` overrides the SDK client of `--model`.

    Raises:
        DemoError: `--model` without a key, the extra, or known prices, or a
            call to the API that failed (no network, a bad key, an error
            status): the message names the SDK's error in one line.
    """
    with_notes = not args.no_notes
    names = list(STRATEGIES) if args.strategy == "all" else [args.strategy]
    options: dict[str, Any] = {}
    if args.model is not None:
        options = {"model": args.model, "client": client or _client(args.model)}
    try:
        results = [run_strategy(name, with_notes=with_notes, **options) for name in names]
    except _api_errors() as error:
        raise DemoError(
            f"--model {args.model}: the API call failed: {type(error).__name__}: {error}"
        ) from None
    if args.json:
        data = [r.as_dict() for r in results]
        body: Any = data[0] if len(data) == 1 else {"runs": data}
        return json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    if len(results) == 1:
        return _one(results[0])
    return _table(results)


def _one(result: RunResult) -> str:
    lines = []
    for record in result.records:
        bar = "#" * min(_BAR_MAX, max(1, round(record.context / _BAR_TOKENS)))
        who = "" if record.agent == "lead" else f" {record.agent}"
        extra = f"  cleared {record.cleared}" if record.cleared else ""
        extra += "  (summary)" if record.kind == "summary" else ""
        lines.append(
            f"step {record.number:<3}{who} {record.context:>7,} tok  cached {record.cached:>7,}  "
            f"{bar}{extra}"
        )
    bill = result.cost
    lines += [
        "",
        f"strategy      {result.strategy}{'' if result.with_notes else ' (no notes)'}",
        f"peak context  {result.peak_context:,} tokens",
        f"tokens read   {result.tokens_read:,}",
        f"from cache    {result.cache_read_share:.0%}",
        f"cost          ${bill.total:.3f} (uncached ${bill.uncached_input:.3f}, writes "
        f"${bill.cache_writes:.3f}, reads ${bill.cache_reads:.3f}, output ${bill.output:.3f})",
        f"x floor       {result.floor_ratio:.2f}",
        f"answer        {result.answer}",
        f"correct       {'yes' if result.correct else 'no'}",
    ]
    return "\n".join(lines) + "\n"


def _table(results: list[RunResult]) -> str:
    head = (
        f"{'strategy':<12} {'steps':>5} {'peak':>8} {'read':>9} {'cache':>6} "
        f"{'cost':>7} {'x floor':>7}  correct"
    )
    lines = [head]
    for r in results:
        lines.append(
            f"{r.strategy:<12} {r.steps:>5} {r.peak_context:>8,} {r.tokens_read:>9,} "
            f"{r.cache_read_share:>6.0%} {r.cost_usd:>7.3f} {r.floor_ratio:>7.2f}  "
            f"{'yes' if r.correct else 'no'}"
        )
    floor = cost_floor(results[0].model)
    lines.append(
        f"x floor: cost over the floor (every report read once uncached, ${floor:.3f}, "
        "plus the run's own output)"
    )
    return "\n".join(lines) + "\n"
