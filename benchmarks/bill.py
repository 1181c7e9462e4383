"""`python -m benchmarks.bill`: `context-budget bill` on a 202 MB Claude Code project folder.

The folder is generated in a temporary directory from a fixed seed and
deleted afterwards (nothing generated is committed): sessions of growing
conversations, each response written as two lines as Claude Code writes it,
bulky tool results, sub-agents inline and in `<session>/subagents/`, a
compaction boundary and long pauses, laid out as a `~/.claude/projects` folder.
On it, `context-budget bill FOLDER --json` and the pinned ccusage (installed from
npm on first use, see `benchmarks/peer.py`) run in turns, each as a whole process:
wall seconds and peak memory of each, and whether their tokens and costs agree.
The goals: the bill under a minute, and no slower than ccusage.

    python -m benchmarks.bill               prints the table
    python -m benchmarks.bill --write-page  also writes benchmarks/bill_results.md and
                                            the table on docs/measured/speed.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.page import PAGE, ROOT, Region
from benchmarks.peer import (
    CCUSAGE_VERSION,
    Run,
    ccusage_argv,
    ccusage_totals,
    ensure_ccusage,
    run_process,
)

__all__ = [
    "GOAL_SECONDS",
    "PEER_GOAL_RATIO",
    "REGION",
    "RESULTS",
    "SEED",
    "SideBySide",
    "bill_argv",
    "bill_totals",
    "generate_project",
    "peer_table",
    "render",
    "side_by_side",
    "time_bill",
]

GOAL_SECONDS = 60.0
#: The bill's best time over ccusage's on the same folder, at most.
PEER_GOAL_RATIO = 1.0
SEED = 20261201
#: A session compacts once its prompt passes this many tokens, as Claude Code does
#: before a 200,000-token window fills (so no request reaches the long-context band).
COMPACT_AT = 160_000
#: The size of the generated folder, in bytes.
TARGET_BYTES = 200 * 1024 * 1024
RESULTS = ROOT / "benchmarks" / "bill_results.md"
#: Where the speed page shows the table.
REGION = Region("bill-bench", RESULTS)
_WORDS = ("cache", "prefix", "token", "budget", "agent", "tool", "result", "session", "write")


class _Rng(random.Random):
    """A seeded generator with a pool of filler texts, so generating stays fast."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.pool: dict[int, list[str]] = {}


def _text(rng: _Rng, words: int) -> str:
    """Words of filler text, from the generator's own pool once it holds 64 of a size."""
    pool = rng.pool.setdefault(words // 50, [])
    if len(pool) < 64:
        pool.append(" ".join(rng.choice(_WORDS) for _ in range(words)))
        return pool[-1]
    return rng.choice(pool)


def _line(record: dict[str, Any]) -> str:
    """One JSON line as Claude Code writes it: compact, no spaces after separators."""
    return json.dumps(record, separators=(",", ":"))


def _session_lines(rng: _Rng, session: str, turns: int) -> tuple[list[str], list[str]]:
    """(the session's lines, one sub-agent file's lines) as JSON text."""
    lines: list[str] = []
    agent: list[str] = []
    clock = 1_780_000_000.0 + rng.randrange(10**6)
    parent: str | None = None
    prompt = 12_000
    count = 0

    def uuid() -> str:
        nonlocal count
        count += 1
        return f"{session[:8]}-0000-4000-8000-{count:012d}"

    def stamp(at: float) -> str:
        return (
            time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(at)) + f".{int(at * 1000) % 1000:03d}Z"
        )

    def response(
        out: list[str], at: float, read: int, write: int, side: bool, up: str | None
    ) -> str:
        request = f"req_{uuid()}"
        message = f"msg_{uuid()}"
        for index, size in enumerate((4, rng.randrange(50, 900))):
            ident = uuid()
            usage = {
                "input_tokens": 3,
                "cache_creation_input_tokens": write,
                "cache_read_input_tokens": read,
                "output_tokens": size,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": write,
                    "ephemeral_1h_input_tokens": 0,
                },
            }
            block = (
                {"type": "text", "text": _text(rng, 60)}
                if index == 0
                else {
                    "type": "tool_use",
                    "id": f"toolu_{ident}",
                    "name": "Read",
                    "input": {"file_path": "/src/" + _text(rng, 3).replace(" ", "/")},
                }
            )
            out.append(
                _line(
                    {
                        "parentUuid": up,
                        "isSidechain": side,
                        "sessionId": session,
                        "type": "assistant",
                        "uuid": ident,
                        "timestamp": stamp(at + index * 0.3),
                        "requestId": request,
                        "message": {
                            "id": message,
                            "role": "assistant",
                            "model": "claude-sonnet-4-20250514",
                            "content": [block],
                            "usage": usage,
                        },
                    }
                )
            )
            up = ident
        return up or ""

    head = uuid()
    lines.append(
        _line(
            {
                "parentUuid": None,
                "isSidechain": False,
                "sessionId": session,
                "type": "user",
                "uuid": head,
                "timestamp": stamp(clock),
                "message": {"role": "user", "content": _text(rng, 40)},
            }
        )
    )
    parent = head
    read = 0
    for turn in range(turns):
        clock += rng.choice((4.0, 9.0, 20.0, 45.0)) if turn % 400 else 900.0  # a long pause
        if prompt > COMPACT_AT:  # Claude Code compacts before the window fills
            boundary = uuid()
            lines.append(
                _line(
                    {
                        "parentUuid": None,
                        "type": "system",
                        "subtype": "compact_boundary",
                        "uuid": boundary,
                        "sessionId": session,
                        "timestamp": stamp(clock),
                    }
                )
            )
            parent, prompt, read = boundary, 15_000, 11_000
        write = prompt - read
        parent = response(lines, clock, read, write, False, parent)
        read, prompt = prompt, prompt + rng.randrange(200, 2_500)
        result = uuid()
        content = [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_x",
                "content": _text(rng, rng.randrange(200, 900)),
            }
        ]
        lines.append(
            _line(
                {
                    "parentUuid": parent,
                    "isSidechain": False,
                    "sessionId": session,
                    "type": "user",
                    "uuid": result,
                    "timestamp": stamp(clock + 1),
                    "message": {"role": "user", "content": content},
                }
            )
        )
        parent = result
        if turn % 97 == 5:  # an inline sub-agent of three calls
            root = uuid()
            lines.append(
                _line(
                    {
                        "parentUuid": None,
                        "isSidechain": True,
                        "sessionId": session,
                        "type": "user",
                        "uuid": root,
                        "timestamp": stamp(clock),
                        "message": {"role": "user", "content": _text(rng, 30)},
                    }
                )
            )
            up: str | None = root
            seen = 0
            for step in range(3):
                up = response(lines, clock + step, seen, 11_500 + step * 800 - seen, True, up)
                seen = 11_500 + step * 800
        if turn % 151 == 7:
            response(agent, clock + 2, 0, 11_400, True, None)
    return lines, agent


def generate_project(folder: Path, target_bytes: int = TARGET_BYTES, seed: int = SEED) -> int:
    """Write a Claude Code project folder of about `target_bytes` under `folder`; its size."""
    rng = _Rng(seed)
    written = 0
    number = 0
    while written < target_bytes:
        number += 1
        session = f"{number:08x}-bench-4000-8000-{seed:012d}"
        lines, agent = _session_lines(rng, session, turns=1_200)
        path = folder / f"{session}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        written += path.stat().st_size
        if agent:
            sub = folder / session / "subagents" / f"agent-{number:04d}.jsonl"
            sub.parent.mkdir(parents=True)
            sub.write_text("\n".join(agent) + "\n", encoding="utf-8")
            written += sub.stat().st_size
    return written


def bill_argv(folder: Path) -> list[str]:
    """The measured command: the whole bill of ``folder`` as JSON, in a process of its own."""
    return [sys.executable, "-m", "context_budget", "bill", str(folder), "--json"]


def time_bill(folder: Path, repeats: int = 2) -> tuple[float, dict[str, Any]]:
    """(best wall seconds of `context-budget bill FOLDER --json`, the bill it printed)."""
    runs = [run_process(bill_argv(folder)) for _ in range(repeats)]
    return min(run.seconds for run in runs), json.loads(runs[-1].stdout)


@dataclass(frozen=True)
class SideBySide:
    """Both commands on one folder, run in turns: every run of each, and what each said."""

    bill: list[Run]
    peer: list[Run]
    data: dict[str, Any]
    peer_totals: dict[str, float]


def side_by_side(projects: Path, repeats: int = 3) -> SideBySide:
    """Run the bill and ccusage in turns on ``projects`` (a ``~/.claude/projects`` folder)."""
    entry = ensure_ccusage()
    env = {"CLAUDE_CONFIG_DIR": str(projects.parent)}
    bill: list[Run] = []
    peer: list[Run] = []
    for _ in range(repeats):
        bill.append(run_process(bill_argv(projects)))
        peer.append(run_process(ccusage_argv(entry), env))
    return SideBySide(bill, peer, json.loads(bill[-1].stdout), ccusage_totals(peer[-1].stdout))


def bill_totals(data: dict[str, Any]) -> dict[str, float]:
    """A `bill --json` object's totals as `ccusage_totals` names them: tokens by kind, USD."""
    tokens = data["tokens"]
    return {
        "input": tokens["input"],
        "cache_read": tokens["cache_read"],
        "cache_write": tokens["cache_write_5m"] + tokens["cache_write_1h"],
        "output": tokens["output"],
        "cost_usd": data["cost_usd"],
    }


def _agreement(ours: dict[str, float], theirs: dict[str, float]) -> str:
    kinds = [
        kind
        for kind in ("input", "cache_read", "cache_write", "output")
        if ours[kind] != theirs[kind]
    ]
    tokens = "tokens of every kind equal" if not kinds else "tokens differ in " + ", ".join(kinds)
    gap = abs(ours["cost_usd"] - theirs["cost_usd"])
    cost = (
        f"costs equal to the millionth of a dollar (${ours['cost_usd']:,.6f})"
        if gap < 5e-7
        else f"costs ${ours['cost_usd']:,.6f} and ${theirs['cost_usd']:,.6f}"
    )
    return f"{tokens}; {cost}"


def _row(name: str, runs: list[Run], totals: dict[str, float]) -> str:
    seconds = sorted(run.seconds for run in runs)
    tokens = sum(totals[kind] for kind in ("input", "cache_read", "cache_write", "output"))
    return (
        f"| {name} | {seconds[0]:.1f} | {statistics.median(seconds):.1f} | "
        f"{max(run.peak_mib for run in runs):,.0f} | {tokens:,.0f} | "
        f"${totals['cost_usd'] + 0.0:,.2f} |"
    )


def peer_table(result: SideBySide) -> list[str]:
    """The side-by-side table, the agreement line and the peer goal, as Markdown lines."""
    ours = bill_totals(result.data)
    ratio = min(r.seconds for r in result.bill) / min(r.seconds for r in result.peer)
    verdict = "met" if ratio <= PEER_GOAL_RATIO else "missed"
    return [
        "| command | best s | median s | peak MiB | tokens | cost |",
        "|---|---:|---:|---:|---:|---:|",
        _row("`context-budget bill`", result.bill, ours),
        _row(f"ccusage {CCUSAGE_VERSION}", result.peer, result.peer_totals),
        "",
        f"Agreement: {_agreement(ours, result.peer_totals)}.",
        "",
        f"Goal: no slower than ccusage: the bill takes {ratio:.2f}× its time: **{verdict}**.",
    ]


def render(size: int, files: int, result: SideBySide) -> str:
    """The result as Markdown: the folder's row, the side-by-side table, goals and machine."""
    data = result.data
    seconds = min(run.seconds for run in result.bill)
    verdict = "met" if seconds < GOAL_SECONDS else "missed"
    causes: dict[str, int] = {}
    for rebuild in data["rebuilds"]:
        causes[rebuild["cause"]] = causes.get(rebuild["cause"], 0) + 1
    found = ", ".join(f"{n:,} {cause}" for cause, n in sorted(causes.items()))
    row = (
        f"| {size / 2**20:,.0f} MB | {files:,} | {data['usage_lines']:,} | "
        f"{data['calls']:,} | {len(data['threads']):,} | {len(data['rebuilds']):,} | "
        f"{seconds:.1f} |"
    )
    today = time.strftime("%Y-%m-%d", time.gmtime())
    lines = [
        "| folder | files | usage lines | calls | threads | rebuilds | seconds |",
        "|---:|---:|---:|---:|---:|---:|---:|",
        row,
        "",
        f"Goal: under {GOAL_SECONDS:.0f} s: **{verdict}**. Rebuilds found: {found}.",
        "",
        *peer_table(result),
        "",
        "Setup: `context-budget bill FOLDER --json` and `ccusage claude session --json "
        "--offline --mode calculate` on one generated Claude Code projects folder "
        f"(seed {SEED}), each as a whole process, in turns, {len(result.bill)} "
        f"{'run' if len(result.bill) == 1 else 'runs'} each; peak memory is the largest "
        "resident set of any process the command ran.",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()}, "
        f"Python {platform.python_version()}, Node.js {_node_version()}, run on {today}.",
    ]
    return "\n".join(lines) + "\n"


def _node_version() -> str:
    node = shutil.which("node")
    if node is None:
        return "missing"
    done = subprocess.run([node, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip().lstrip("v") or "unknown"


def bill_region(page_text: str) -> str:
    """The text between the page's bill-bench marker lines."""
    return REGION.read(page_text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bill", description=__doc__)
    parser.add_argument("--write-page", action="store_true")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each command (3)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bill-bench-") as temporary:
        # the layout ccusage reads: CLAUDE_CONFIG_DIR/projects/<project>/<session>.jsonl
        folder = Path(temporary) / "claude" / "projects" / "bench"
        folder.mkdir(parents=True)
        started = time.perf_counter()
        size = generate_project(folder)
        files = sum(1 for _ in folder.rglob("*.jsonl"))
        print(
            f"generated {size / 2**20:.0f} MB in {time.perf_counter() - started:.0f} s",
            file=sys.stderr,
        )
        result = side_by_side(folder.parent, repeats=args.repeats)
    text = render(size, files, result)
    print(text, end="")
    if args.write_page:
        REGION.publish(text, page=True)
        print(f"wrote {RESULTS} and the table on {PAGE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
