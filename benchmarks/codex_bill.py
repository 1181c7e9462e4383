"""`python -m benchmarks.codex_bill`: `context-budget bill` on a 100 MB Codex sessions folder.

The folder is generated in a temporary directory from a fixed seed and
deleted afterwards, laid out as Codex writes `~/.codex/sessions`
(`YYYY/MM/DD/rollout-<time>-<id>.jsonl`): rollouts of several tasks each,
every step a reasoning item, a shell call and its bulky output, and a
`token_count` event whose cumulative total rises by the step's usage; the
cache is read back on most steps and lost now and then. On it,
`context-budget bill FOLDER --json` with each decoder, with msgspec again
kept to one process (`CONTEXT_BUDGET_NO_FORK=1`), and the pinned ccusage's
`codex session` report run in turns, each as a whole process: wall seconds,
CPU seconds and peak memory of each, and whether their tokens and costs agree.

The goals of the Claude Code folder (`benchmarks.bill`) are not judged here:
the table says where the bill stands on the other provider a user may pay.

    python -m benchmarks.codex_bill               prints the table
    python -m benchmarks.codex_bill --write-page  also writes benchmarks/codex_results.md
                                                  and the table on docs/measured/speed.md
"""

from __future__ import annotations

import json
import os
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from benchmarks.bill import (
    BILL_FAST,
    BILL_ONE_CORE,
    BILL_STANDARD,
    Rng,
    best_seconds,
    bill_argv,
    bill_totals,
    filler,
    json_line,
    node_version,
    peer_arguments,
    run_tables,
    say_generated,
)
from benchmarks.page import ROOT, Region, machine_line
from benchmarks.peer import (
    CCUSAGE_VERSION,
    PeerError,
    Run,
    ccusage_codex_argv,
    ccusage_totals,
    ensure_ccusage,
    run_process,
)

__all__ = [
    "CCUSAGE_CODEX",
    "REGION",
    "RESULTS",
    "SEED",
    "TARGET_BYTES",
    "codex_region",
    "generate_sessions",
    "render",
]

SEED = 20261206
TARGET_BYTES = 100 * 1024 * 1024
#: The model every rollout records: one both tables price.
MODEL = "gpt-5.1-codex"
RESULTS = ROOT / "benchmarks" / "codex_results.md"
REGION = Region("codex-bench", RESULTS)
CCUSAGE_CODEX = f"ccusage {CCUSAGE_VERSION} codex"


def _stamp(seconds: float) -> str:
    """An ISO time as Codex writes it: UTC, milliseconds, a `Z`."""
    whole = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    return f"{whole}.{int(seconds * 1000) % 1000:03d}Z"


def _event(clock: float, kind: str, payload: dict[str, Any]) -> str:
    return json_line({"timestamp": _stamp(clock), "type": kind, "payload": payload})


def _tokens(clock: float, total: list[int], last: list[int]) -> str:
    """A `token_count` event: the cumulative total after the step, and the step's usage."""
    names = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens")
    for number, count in enumerate(last):
        total[number] += count
    usage = dict(zip(names, total, strict=True))
    step = dict(zip(names, last, strict=True))
    usage["total_tokens"] = total[0] + total[2]
    step["total_tokens"] = last[0] + last[2]
    info = {"total_token_usage": usage, "last_token_usage": step, "model_context_window": 272_000}
    return _event(clock, "event_msg", {"type": "token_count", "info": info, "rate_limits": None})


def _rollout(rng: Rng, session: str, clock: float, tasks: int) -> list[str]:
    """One rollout's lines: its metadata, then `tasks` tasks of several shell steps each."""
    cwd = "/home/dev/" + filler(rng, 1)
    meta: dict[str, Any] = {"id": session, "timestamp": _stamp(clock), "cwd": cwd}
    meta |= {"originator": "codex_cli_rs", "base_instructions": {"text": filler(rng, 80)}}
    lines = [_event(clock, "session_meta", meta)]
    total = [0, 0, 0, 0]
    prompt = rng.randrange(4_000, 9_000)  # the tokens the next request sends
    for _ in range(tasks):
        clock += rng.choice((20.0, 90.0, 600.0))  # a pause past the cache's life now and then
        lines.append(_event(clock, "turn_context", {"cwd": cwd, "model": MODEL}))
        lines.append(_event(clock, "event_msg", {"type": "task_started"}))
        text = [{"type": "input_text", "text": filler(rng, 30)}]
        lines.append(
            _event(clock, "response_item", {"type": "message", "role": "user", "content": text})
        )
        for step in range(rng.randrange(2, 9)):
            clock += rng.uniform(2.0, 15.0)
            call = f"call_{step}_{rng.randrange(10**9)}"
            arguments = json.dumps({"command": filler(rng, 6), "workdir": cwd})
            item = {"type": "function_call", "name": "shell", "arguments": arguments}
            lines.append(_event(clock, "response_item", {**item, "call_id": call}))
            cached = 0 if rng.random() < 0.04 else prompt - rng.randrange(200, 1_500)
            output = rng.randrange(30, 600)
            last = [prompt, max(cached, 0), output, rng.randrange(0, output)]
            lines.append(_tokens(clock, total, last))
            result = filler(rng, rng.randrange(150, 1_400))
            done = {"type": "function_call_output", "call_id": call, "output": result}
            lines.append(_event(clock + 1.0, "response_item", done))
            prompt += output + len(result) // 4
        clock += 3.0
        answer = [{"type": "output_text", "text": filler(rng, 40)}]
        lines.append(
            _event(
                clock,
                "response_item",
                {"type": "message", "role": "assistant", "content": answer},
            )
        )
        lines.append(_tokens(clock, total, [prompt, prompt - 300, 120, 0]))
        lines.append(_event(clock, "event_msg", {"type": "task_complete"}))
        prompt += 160
    return lines


def generate_sessions(folder: Path, target_bytes: int = TARGET_BYTES, seed: int = SEED) -> int:
    """Write a Codex sessions folder of about `target_bytes` under `folder`; its size."""
    rng = Rng(seed)
    written = 0
    clock = 1_780_000_000.0
    while written < target_bytes:
        clock += rng.uniform(600.0, 20_000.0)
        session = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        day = time.strftime("%Y/%m/%d", time.gmtime(clock))
        name = time.strftime("rollout-%Y-%m-%dT%H-%M-%S", time.gmtime(clock))
        path = folder / day / f"{name}-{session}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = _rollout(rng, session, clock, tasks=rng.randrange(4, 16))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        written += path.stat().st_size
    return written


def _contenders(sessions: Path) -> list[tuple[str, list[str], dict[str, str]]]:
    """(row name, argv, environment) of each command on `sessions`."""
    bill = bill_argv(sessions)
    ccusage = ccusage_codex_argv(ensure_ccusage())
    return [
        (BILL_FAST, bill, {}),
        (BILL_ONE_CORE, bill, {"CONTEXT_BUDGET_NO_FORK": "1"}),
        (BILL_STANDARD, bill, {"CONTEXT_BUDGET_NO_FAST": "1"}),
        (CCUSAGE_CODEX, ccusage, {"CODEX_HOME": str(sessions.parent)}),
    ]


def side_by_side(
    sessions: Path, repeats: int
) -> tuple[dict[str, list[Run]], dict[str, Any], tuple[float, float]]:
    """(every command's runs, in turns; the bill's `--json` object; the machine's load
    when the runs began and ended)."""
    began = os.getloadavg()[0]
    every = _contenders(sessions)
    runs: dict[str, list[Run]] = {name: [] for name, _, _ in every}
    for _ in range(repeats):
        for name, argv, env in every:
            runs[name].append(run_process(argv, env))
    data = json.loads(runs[BILL_FAST][-1].stdout)
    for name in (BILL_ONE_CORE, BILL_STANDARD):
        if json.loads(runs[name][-1].stdout) != data:
            raise PeerError(f"{name} and {BILL_FAST} printed different bills")
    return runs, data, (began, os.getloadavg()[0])


def render(
    size: int, files: int, runs: dict[str, list[Run]], data: dict[str, Any], load: Any
) -> str:
    """The result as Markdown: the folder's row, the side-by-side tables, agreement, machine."""
    peer = runs[CCUSAGE_CODEX]
    totals = {
        **{
            name: bill_totals(json.loads(runs[name][-1].stdout))
            for name in runs
            if name != CCUSAGE_CODEX
        },
        CCUSAGE_CODEX: ccusage_totals(peer[-1].stdout),
    }
    count = len(runs[BILL_FAST])
    lines = [
        "| folder | rollouts | calls | seconds | × ccusage |",
        "|---:|---:|---:|---:|---:|",
        f"| {size / 2**20:,.0f} MB | {files:,} | {data['calls']:,} | "
        f"{best_seconds(runs[BILL_FAST]):.1f} | "
        f"{best_seconds(runs[BILL_FAST]) / best_seconds(peer):.2f}× |",
        "",
        *run_tables(runs, totals, peer),
        "",
        "Setup: the bill is `context-budget bill FOLDER --json` with each decoder (and with "
        "msgspec kept to one process, `CONTEXT_BUDGET_NO_FORK=1`), ccusage is "
        "`ccusage codex session --json --offline` with `CODEX_HOME` the folder's parent, "
        f"on one generated Codex sessions folder (seed {SEED}), each as a whole process, in "
        f"turns, {count} {'run' if count == 1 else 'runs'} each; peak memory is the largest "
        "resident set of any process the command ran.",
        "",
        machine_line(f"Node.js {node_version()}", load=load),
    ]
    return "\n".join(lines) + "\n"


def codex_region(page_text: str) -> str:
    """The text between the page's codex-bench marker lines."""
    return REGION.read(page_text)


def main(argv: list[str] | None = None) -> int:
    args = peer_arguments(argv, "python -m benchmarks.codex_bill", __doc__)
    with tempfile.TemporaryDirectory(prefix="codex-bench-") as temporary:
        sessions = Path(temporary) / "codex" / "sessions"  # CODEX_HOME/sessions
        started = time.perf_counter()
        size = generate_sessions(sessions)
        files = sum(1 for _ in sessions.rglob("*.jsonl"))
        say_generated(size, started)
        runs, data, load = side_by_side(sessions, args.repeats)
    text = render(size, files, runs, data, load)
    REGION.show(text, write_page=args.write_page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
