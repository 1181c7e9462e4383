"""`python -m benchmarks.bill`: `context-budget bill` on a 202 MB Claude Code project folder.

The folder is generated in a temporary directory from a fixed seed and
deleted afterwards (nothing generated is committed): sessions of growing
conversations, each response written as two lines as Claude Code writes it,
bulky tool results, sub-agents inline and in `<session>/subagents/`, a
compaction boundary, long pauses and task notifications that change a
request's prefix, laid out as a `~/.claude/projects` folder.
On it, `context-budget bill FOLDER --json` with each decoder (msgspec, the `fast`
extra; the standard library's json, as in the reader's browser), with msgspec
again kept to one process (`CONTEXT_BUDGET_NO_FORK=1`: what the second core
saves, in the read and the report), the floors with each decoder
(`benchmarks/floor.py`: of the totals alone, and of the totals with the report's
least work), and the pinned ccusage and
tokscale (installed from npm on first use, see `benchmarks/peer.py`) run in
turns, each as a whole process: wall seconds, CPU seconds and peak memory of
each, and whether their tokens and costs agree. The bill also reads a quarter of the
folder (the same seed's first sessions), in the same turns, so that its time
per MB at both sizes can be compared. Then a folder of another shape, the one a
user's home folder takes after months of work, is generated from the same seed:
3,000 short sessions in 40 projects (`generate_sessions`), on which the bill with
each decoder and ccusage run in turns too: what reading many files costs beside
what reading many bytes does.

The goals: the bill under a minute; against ccusage on the same folder, at
most 1.25× its time with msgspec and 3× with json (`PEER_GOALS`), and at most
1.5× its peak memory (`MEMORY_GOAL`); its time linear in the folder's size
(`LINEAR_GOAL`). The goals judge wall time, which other work on the machine
stretches (the machine line gives its load); the CPU column does not count the
waits. The floors' rows say how near the bill's work could come: the totals floor
is what ccusage's report needs, the report floor what the bill's needs.

    python -m benchmarks.bill               prints the table
    python -m benchmarks.bill --write-page  also writes benchmarks/bill_results.md and
                                            the table on docs/measured/speed.md
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.page import ROOT, Region, machine_line
from benchmarks.peer import (
    BUN_VERSION,
    CCUSAGE_VERSION,
    TOKSCALE_VERSION,
    PeerError,
    Run,
    ccusage_argv,
    ccusage_totals,
    ensure_ccusage,
    ensure_tokscale,
    run_process,
    tokscale_argv,
    tokscale_home,
    tokscale_totals,
)

__all__ = [
    "BILL_FAST",
    "BILL_ONE_CORE",
    "BILL_STANDARD",
    "CCUSAGE",
    "GOAL_SECONDS",
    "LINEAR_GOAL",
    "MANY_NAMES",
    "MANY_PROJECTS",
    "MANY_SESSIONS",
    "MANY_TURNS",
    "MEMORY_GOAL",
    "PEER_GOALS",
    "PROJECT_TURNS",
    "REGION",
    "RESULTS",
    "SEED",
    "TOKSCALE",
    "Contender",
    "Rng",
    "SideBySide",
    "agreement",
    "best_seconds",
    "bill_argv",
    "bill_totals",
    "contenders",
    "filler",
    "generate_project",
    "generate_sessions",
    "json_line",
    "many_table",
    "node_version",
    "peak_mib",
    "peer_arguments",
    "peer_table",
    "render",
    "run_tables",
    "say_generated",
    "sessions_words",
    "side_by_side",
    "sizes_row",
    "time_bill",
    "times_row",
    "verdict",
]

GOAL_SECONDS = 60.0
SEED = 20261201
#: A session compacts once its prompt passes this many tokens, as Claude Code does
#: before a 200,000-token window fills (so no request reaches the long-context band).
COMPACT_AT = 160_000
#: The system prompt and tools every request starts with (tokens): what a request whose
#: prefix changed after them still reads.
PREFIX_TOKENS = 11_000
#: The size of the generated folder, in bytes.
TARGET_BYTES = 200 * 1024 * 1024
RESULTS = ROOT / "benchmarks" / "bill_results.md"
#: Where the speed page shows the table.
REGION = Region("bill-bench", RESULTS)
_WORDS = ("cache", "prefix", "token", "budget", "agent", "tool", "result", "session", "write")


class Rng(random.Random):
    """A seeded generator with a pool of filler texts, so generating stays fast."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.pool: dict[int, list[str]] = {}


def filler(rng: Rng, words: int) -> str:
    """Words of filler text, from the generator's own pool once it holds 64 of a size."""
    pool = rng.pool.setdefault(words // 50, [])
    if len(pool) < 64:
        pool.append(" ".join(rng.choice(_WORDS) for _ in range(words)))
        return pool[-1]
    return rng.choice(pool)


def json_line(record: dict[str, Any]) -> str:
    """One JSON line as Claude Code writes it: compact, no spaces after separators."""
    return json.dumps(record, separators=(",", ":"))


def _session_lines(rng: Rng, session: str, turns: int) -> tuple[list[str], list[str]]:
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
                {"type": "text", "text": filler(rng, 60)}
                if index == 0
                else {
                    "type": "tool_use",
                    "id": f"toolu_{ident}",
                    "name": "Read",
                    "input": {"file_path": "/src/" + filler(rng, 3).replace(" ", "/")},
                }
            )
            out.append(
                json_line(
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

    def user(ident: str, up: str | None, at: float, content: object, side: bool = False) -> None:
        """A user line of the session (`side`: an inline sub-agent's)."""
        record = {
            "parentUuid": up,
            "isSidechain": side,
            "sessionId": session,
            "type": "user",
            "uuid": ident,
            "timestamp": stamp(at),
            "message": {"role": "user", "content": content},
        }
        lines.append(json_line(record))

    head = uuid()
    user(head, None, clock, filler(rng, 40))
    parent = head
    read = 0
    for turn in range(turns):
        clock += rng.choice((4.0, 9.0, 20.0, 45.0)) if turn % 400 else 900.0  # a long pause
        if prompt > COMPACT_AT:  # Claude Code compacts before the window fills
            boundary = uuid()
            lines.append(
                json_line(
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
        elif turn % 250 == 125:  # a task notification: the next request keeps only the prefix
            note = uuid()
            text = f"<task-notification>task {turn} done</task-notification> {filler(rng, 20)}"
            user(note, parent, clock - 1, text)
            parent, read = note, PREFIX_TOKENS
        write = prompt - read
        parent = response(lines, clock, read, write, False, parent)
        read, prompt = prompt, prompt + rng.randrange(200, 2_500)
        result = uuid()
        content = [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_x",
                "content": filler(rng, rng.randrange(200, 900)),
            }
        ]
        user(result, parent, clock + 1, content)
        parent = result
        if turn % 97 == 5:  # an inline sub-agent of three calls
            root = uuid()
            user(root, None, clock, filler(rng, 30), side=True)
            up: str | None = root
            seen = 0
            for step in range(3):
                up = response(lines, clock + step, seen, 11_500 + step * 800 - seen, True, up)
                seen = 11_500 + step * 800
        if turn % 151 == 7:
            response(agent, clock + 2, 0, 11_400, True, None)
    return lines, agent


#: The turns of each session of the generated project.
PROJECT_TURNS = 1_200


def generate_project(
    folder: Path, target_bytes: int = TARGET_BYTES, seed: int = SEED, turns: int = PROJECT_TURNS
) -> int:
    """Write a Claude Code project folder of about `target_bytes` under `folder`, in
    sessions of `turns` turns (each with its sub-agent's file, from 8 turns); its size."""
    rng = Rng(seed)
    written = 0
    number = 0
    while written < target_bytes:
        number += 1
        session = f"{number:08x}-bench-4000-8000-{seed:012d}"
        lines, agent = _session_lines(rng, session, turns=turns)
        path = folder / f"{session}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        written += path.stat().st_size
        if agent:
            sub = folder / session / "subagents" / f"agent-{number:04d}.jsonl"
            sub.parent.mkdir(parents=True)
            sub.write_text("\n".join(agent) + "\n", encoding="utf-8")
            written += sub.stat().st_size
    return written


#: The folder of many sessions: how many, in how many projects, of how many turns each.
MANY_SESSIONS, MANY_PROJECTS, MANY_TURNS = 3_000, 40, 8


def generate_sessions(
    folder: Path,
    sessions: int = MANY_SESSIONS,
    projects: int = MANY_PROJECTS,
    turns: int = MANY_TURNS,
    seed: int = SEED,
) -> int:
    """Write a `~/.claude/projects` folder of many short sessions under `folder`: `sessions`
    of `turns` turns each, spread over `projects` project folders, as a user's home
    folder holds them after months of work; its size in bytes."""
    rng = Rng(seed)
    written = 0
    for number in range(1, sessions + 1):
        session = f"{number:08x}-many-4000-8000-{seed:012d}"
        lines, _ = _session_lines(rng, session, turns=turns)
        project = folder / f"project-{number % projects:02d}"
        project.mkdir(parents=True, exist_ok=True)
        path = project / f"{session}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        written += path.stat().st_size
    return written


def bill_argv(folder: Path) -> list[str]:
    """The measured command: the whole bill of ``folder`` as JSON, in a process of its own."""
    return [sys.executable, "-m", "context_budget", "bill", str(folder), "--json"]


def time_bill(folder: Path, repeats: int = 2) -> tuple[float, dict[str, Any]]:
    """(best wall seconds of `context-budget bill FOLDER --json`, the bill it printed)."""
    runs = [run_process(bill_argv(folder)) for _ in range(repeats)]
    return min(run.seconds for run in runs), json.loads(runs[-1].stdout)


#: The bill with each decoder: msgspec (the `fast` extra), and the standard library's json
#: (`CONTEXT_BUDGET_NO_FAST=1`), as in the reader's browser.
BILL_FAST, BILL_STANDARD = "bill (msgspec)", "bill (json)"
#: The bill with msgspec kept to one process (`CONTEXT_BUDGET_NO_FORK=1`): what the
#: second core saves, in the read and in the report.
BILL_ONE_CORE = "bill (msgspec, one core)"
FLOOR_FAST, FLOOR_STANDARD = "floor (msgspec)", "floor (json)"
#: The floor with the least work of the bill's report too (`benchmarks.floor.report_floor`).
REPORT_FLOOR_FAST = "floor with the report (msgspec)"
REPORT_FLOOR_STANDARD = "floor with the report (json)"
#: That floor's work split over two cores as far as it can be (`... two-cores`).
TWO_CORE_FLOOR_FAST = "floor with the report, two cores (msgspec)"
TWO_CORE_FLOOR_STANDARD = "floor with the report, two cores (json)"
#: Each bill's floors: of its totals, of its totals and report, and of those on two cores.
FLOORS = {
    BILL_FAST: (FLOOR_FAST, REPORT_FLOOR_FAST, TWO_CORE_FLOOR_FAST),
    BILL_STANDARD: (FLOOR_STANDARD, REPORT_FLOOR_STANDARD, TWO_CORE_FLOOR_STANDARD),
}
#: The floors that print the report's figures, which must equal the bill's.
REPORT_FLOORS = (
    REPORT_FLOOR_FAST,
    REPORT_FLOOR_STANDARD,
    TWO_CORE_FLOOR_FAST,
    TWO_CORE_FLOOR_STANDARD,
)
CCUSAGE, TOKSCALE = f"ccusage {CCUSAGE_VERSION}", f"tokscale {TOKSCALE_VERSION}"
#: What runs on the folder of many sessions: the bill with each decoder, and ccusage.
MANY_NAMES = (BILL_FAST, BILL_STANDARD, CCUSAGE)
#: The goals against ccusage on the same folder: the bill's best time over ccusage's,
#: with each decoder, and its peak memory over ccusage's, at most.
PEER_GOALS = {BILL_FAST: 1.25, BILL_STANDARD: 3.0}
MEMORY_GOAL = 1.5
#: Seconds per MB on the whole folder over seconds per MB on a quarter of it, at most.
LINEAR_GOAL = 1.25
#: The part of the folder the linearity check also reads.
QUARTER = 4


@dataclass(frozen=True)
class Contender:
    """One command of the comparison: its row's name, how it runs, how its totals read."""

    name: str
    argv: list[str]
    env: dict[str, str]
    totals: Callable[[str], dict[str, float]]


#: The totals a floor prints that every command prints too.
_TOTALS = ("input", "cache_read", "cache_write", "output", "cost_usd")


def _floor_totals(stdout: str) -> dict[str, float]:
    found = json.loads(stdout)
    return {kind: found[kind] for kind in _TOTALS}


def contenders(projects: Path, home: Path) -> list[Contender]:
    """Every command of the comparison on ``projects`` (a ``~/.claude/projects`` folder);
    tokscale's home is made under ``home``."""
    bill = bill_argv(projects)
    floor = [sys.executable, "-m", "benchmarks.floor", str(projects)]
    fast_off = {"CONTEXT_BUDGET_NO_FAST": "1"}
    scale = ensure_tokscale()
    models = ["claude-sonnet-4-20250514"]  # what the generated folder records
    return [
        Contender(BILL_FAST, bill, {}, lambda out: bill_totals(json.loads(out))),
        Contender(
            BILL_ONE_CORE,
            bill,
            {"CONTEXT_BUDGET_NO_FORK": "1"},
            lambda out: bill_totals(json.loads(out)),
        ),
        Contender(BILL_STANDARD, bill, fast_off, lambda out: bill_totals(json.loads(out))),
        Contender(FLOOR_FAST, [*floor, "msgspec"], {}, _floor_totals),
        Contender(FLOOR_STANDARD, [*floor, "json"], {}, _floor_totals),
        Contender(REPORT_FLOOR_FAST, [*floor, "msgspec", "report"], {}, _floor_totals),
        Contender(REPORT_FLOOR_STANDARD, [*floor, "json", "report"], {}, _floor_totals),
        Contender(
            TWO_CORE_FLOOR_FAST, [*floor, "msgspec", "report", "two-cores"], {}, _floor_totals
        ),
        Contender(
            TWO_CORE_FLOOR_STANDARD, [*floor, "json", "report", "two-cores"], {}, _floor_totals
        ),
        Contender(
            CCUSAGE,
            ccusage_argv(ensure_ccusage()),
            {"CLAUDE_CONFIG_DIR": str(projects.parent)},
            ccusage_totals,
        ),
        Contender(
            TOKSCALE,
            tokscale_argv(scale),
            tokscale_home(home, projects.parent, models, scale),
            tokscale_totals,
        ),
    ]


@dataclass(frozen=True)
class SideBySide:
    """Every command on one folder, run in turns: every run of each, and what each said.

    Attributes:
        runs: the row's name -> its runs, in the order they ran.
        totals: the row's name -> its totals (tokens by kind, USD), from its last run.
        data: the bill's `--json` object.
        quarter: the bill's runs on a quarter of the folder, by row (the linearity check).
        sizes: (the folder's bytes, the quarter's bytes).
        load: the machine's load average over a minute when the runs began and when
            they ended: other work shares the cores, and wall times grow with it.
    """

    runs: dict[str, list[Run]]
    totals: dict[str, dict[str, float]]
    data: dict[str, Any]
    quarter: dict[str, list[Run]] = field(default_factory=dict)
    sizes: tuple[int, int] = (0, 0)
    load: tuple[float, float] = (0.0, 0.0)


def side_by_side(
    projects: Path,
    repeats: int = 3,
    quarter: Path | None = None,
    only: tuple[str, ...] | None = None,
) -> SideBySide:
    """Run every contender (or those named in ``only``) in turns on ``projects``,
    ``repeats`` times each (and the bill on ``quarter``, a quarter of it, in the same
    turns)."""
    began = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bill-peers-") as home:
        every = [c for c in contenders(projects, Path(home)) if only is None or c.name in only]
        runs: dict[str, list[Run]] = {c.name: [] for c in every}
        small: dict[str, list[Run]] = {BILL_FAST: [], BILL_STANDARD: []}
        for _ in range(repeats):
            for contender in every:
                runs[contender.name].append(run_process(contender.argv, contender.env))
                if quarter is not None and contender.name in small:
                    argv = bill_argv(quarter)
                    small[contender.name].append(run_process(argv, contender.env))
    totals = {c.name: c.totals(runs[c.name][-1].stdout) for c in every}
    data = json.loads(runs[BILL_FAST][-1].stdout)
    if json.loads(runs[BILL_STANDARD][-1].stdout) != data:
        raise PeerError("the bill with msgspec and with json printed different bills")
    if BILL_ONE_CORE in runs and runs[BILL_ONE_CORE][-1].stdout != runs[BILL_FAST][-1].stdout:
        raise PeerError("the bill on one core and on two printed different bills")
    ended = os.getloadavg()[0]
    sizes = (_size(projects), _size(quarter) if quarter is not None else 0)
    return SideBySide(
        runs, totals, data, small if quarter is not None else {}, sizes, (began, ended)
    )


def _size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*.jsonl"))


def bill_totals(data: dict[str, Any]) -> dict[str, float]:
    """A `bill --json` object's totals as `ccusage_totals` names them: tokens by kind, USD."""
    tokens = data["tokens"]
    return {
        "input": tokens["input"],
        "cache_read": tokens["cache_read"],
        "cache_write": tokens["cache_write_5m"]
        + tokens["cache_write_1h"]
        + tokens["cache_write_30m"],
        "output": tokens["output"],
        "cost_usd": data["cost_usd"],
    }


def agreement(ours: dict[str, float], theirs: dict[str, float]) -> str:
    """Whether two commands' totals agree, in words: tokens by kind, then the cost."""
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


def best_seconds(runs: list[Run]) -> float:
    """The least wall seconds of the runs."""
    return min(run.seconds for run in runs)


def peak_mib(runs: list[Run]) -> float:
    """The largest peak resident memory of the runs, MiB."""
    return max(run.peak_mib for run in runs)


def times_row(name: str, runs: list[Run], peer: list[Run]) -> str:
    """A row of the table of times: best and median wall seconds, the best against the
    peer's, and the least CPU seconds."""
    seconds = sorted(run.seconds for run in runs)
    return (
        f"| {name} | {seconds[0]:.2f} | {statistics.median(seconds):.2f} | "
        f"{seconds[0] / best_seconds(peer):.2f}× | {min(run.cpu for run in runs):.2f} |"
    )


def sizes_row(name: str, runs: list[Run], totals: dict[str, float], peer: list[Run]) -> str:
    """A row of the table of memory and totals: peak MiB, against the peer's, tokens, USD."""
    tokens = sum(totals[kind] for kind in ("input", "cache_read", "cache_write", "output"))
    peak = peak_mib(runs)
    return (
        f"| {name} | {peak:,.0f} | {peak / peak_mib(peer):.2f}× | {tokens:,.0f} | "
        f"${totals['cost_usd'] + 0.0:,.2f} |"
    )


def verdict(met: bool) -> str:
    """A goal's verdict, in bold."""
    return "**met**" if met else "**missed**"


def run_tables(
    runs: dict[str, list[Run]], totals: dict[str, dict[str, float]], peer: list[Run]
) -> list[str]:
    """The side-by-side tables (times; memory and totals), each row against the `peer`'s
    runs, then a line per command on whether its totals agree with the bill's (msgspec),
    as Markdown lines."""
    ours = totals[BILL_FAST]
    return [  # two tables, narrow enough for a phone
        "| command | best s | median s | × ccusage | CPU s |",
        "|---|---:|---:|---:|---:|",
        *(times_row(name, found, peer) for name, found in runs.items()),
        "",
        "| command | peak MiB | × ccusage | tokens | cost |",
        "|---|---:|---:|---:|---:|",
        *(sizes_row(name, found, totals[name], peer) for name, found in runs.items()),
        "",
        *(
            f"- {name} and {BILL_FAST}: {agreement(ours, totals[name])}."
            for name in runs
            if name != BILL_FAST
        ),
    ]


def peer_table(result: SideBySide) -> list[str]:
    """The side-by-side tables (`run_tables`), the agreement lines and the goals, as
    Markdown lines."""
    peer = result.runs[CCUSAGE]
    lines = [*run_tables(result.runs, result.totals, peer), ""]
    lines.extend(_report_agreement(result))
    lines.append("")
    for name, most in PEER_GOALS.items():
        ratio = best_seconds(result.runs[name]) / best_seconds(peer)
        memory = peak_mib(result.runs[name]) / peak_mib(peer)
        totals, report, two = (
            best_seconds(result.runs[f]) / best_seconds(peer) for f in FLOORS[name]
        )
        lines.append(
            f"- {name}: at most {most:g}× ccusage's time: {ratio:.2f}×, "
            f"{verdict(ratio <= most)}; at most {MEMORY_GOAL:g}× its peak memory: "
            f"{memory:.2f}×, {verdict(memory <= MEMORY_GOAL)}; its floor takes "
            f"{totals:.2f}× ccusage's time, {report:.2f}× with the report's work, and "
            f"{two:.2f}× with that work on two cores."
        )
    lines.extend(_linearity(result))
    return lines


def _report_agreement(result: SideBySide) -> list[str]:
    """A line per floor with the report: whether its every-line bill and its no-caching
    input side equal the bill's (the work it stands for, done right), to the millionth
    of a dollar give or take one: the floor adds its dollars in the order read, the bill
    exactly, and the two roundings may fall either side of the sixth place."""
    data, found = result.data, []
    for name in REPORT_FLOORS:
        floor = json.loads(result.runs[name][-1].stdout)
        pairs = [
            ("every-line bill", floor["every_line_cost_usd"], data["every_line_cost_usd"]),
            ("no-caching input side", floor["no_caching_usd"], data["what_if"]["no_caching"]),
        ]
        said = [
            f"{what} equal (${bill:,.6f})"
            if abs(bill - floor_usd) < 1.5e-6
            else f"{what} ${floor_usd:,.6f} against ${bill:,.6f}"
            for what, floor_usd, bill in pairs
        ]
        found.append(f"- {name} and {BILL_FAST}: " + "; ".join(said) + ".")
    return found


def _linearity(result: SideBySide) -> list[str]:
    """A line per decoder: seconds per MB on the folder over those on its quarter."""
    if not result.quarter:
        return []
    whole, part = result.sizes
    found = []
    for name, small in result.quarter.items():
        growth = (best_seconds(result.runs[name]) / whole) / (best_seconds(small) / part)
        found.append(
            f"- {name}, time linear in the folder's size: seconds per MB on "
            f"{whole / 2**20:,.0f} MB over those on {part / 2**20:,.0f} MB: {growth:.2f}, at "
            f"most {LINEAR_GOAL:g}: {verdict(growth <= LINEAR_GOAL)}."
        )
    return found


def render(
    size: int, files: int, result: SideBySide, many: tuple[str, SideBySide] | None = None
) -> str:
    """The result as Markdown: the folder's row, the side-by-side tables, goals and machine;
    with `many` ((the folder in words, its runs)), the folder of many sessions too
    (`many_table`)."""
    data = result.data
    seconds = best_seconds(result.runs[BILL_FAST])
    causes: dict[str, int] = {}
    for rebuild in data["rebuilds"]:
        causes[rebuild["cause"]] = causes.get(rebuild["cause"], 0) + 1
    found = ", ".join(f"{n:,} {cause}" for cause, n in sorted(causes.items()))
    row = (
        f"| {size / 2**20:,.0f} MB | {files:,} | {data['usage_lines']:,} | "
        f"{data['calls']:,} | {len(data['threads']):,} | {len(data['rebuilds']):,} | "
        f"{seconds:.1f} |"
    )
    runs = len(result.runs[BILL_FAST])
    lines = [
        "| folder | files | usage lines | calls | threads | rebuilds | seconds |",
        "|---:|---:|---:|---:|---:|---:|---:|",
        row,
        "",
        f"Goal: under {GOAL_SECONDS:.0f} s: {verdict(seconds < GOAL_SECONDS)}. "
        f"Rebuilds found: {found}.",
        "",
        *peer_table(result),
        "",
        *([*many_table(*many), ""] if many is not None else []),
        "Setup: the bill is `context-budget bill FOLDER --json` with each decoder (and with "
        "msgspec kept to one process, `CONTEXT_BUDGET_NO_FORK=1`), the floor "
        "(`python -m benchmarks.floor FOLDER msgspec|json`: decode, fold, add up, price; "
        "nothing else) and the floor with the report's least work (`... report`: each "
        "call's thread, time and cost, every usage line priced, each call priced again "
        "with nothing cached and under each write lifetime, the drops in cache reads "
        "counted, each line's parent kept; in one process, and on two cores, `... report "
        "two-cores`: a child works out every figure of the second half of the bytes, the "
        "first process those of the first half, and the figures are added), "
        "`ccusage claude session --json --offline --mode calculate` and "
        "`tokscale models --json --claude` on one generated Claude Code projects folder "
        f"(seed {SEED}), each as a whole process, in turns, {runs} "
        f"{'run' if runs == 1 else 'runs'} each; peak memory is the largest resident set "
        "of any process the command ran. tokscale reads the package's own prices, "
        "handed to it as the price list it would fetch. The folder of many sessions is "
        "generated from the same seed and read in turns too, by the bill with each decoder "
        "and by ccusage.",
        "",
        machine_line(f"Node.js {node_version()}", f"Bun {BUN_VERSION}", load=result.load),
    ]
    return "\n".join(lines) + "\n"


def sessions_words(
    size: int,
    sessions: int = MANY_SESSIONS,
    turns: int = MANY_TURNS,
    projects: int = MANY_PROJECTS,
) -> str:
    """A folder `generate_sessions` wrote, in words: its sessions, turns, projects, MB."""
    return f"{sessions:,} sessions of {turns} turns in {projects} projects, {size / 2**20:,.0f} MB"


def many_table(folder: str, result: SideBySide) -> list[str]:
    """The bill and ccusage on the folder of many sessions (`folder`, in the words of
    `sessions_words`), as Markdown lines: the folder, the side-by-side tables
    (`run_tables`), and each decoder's time and memory over ccusage's."""
    data, peer = result.data, result.runs[CCUSAGE]
    lines = [
        f"On a folder of many short sessions ({folder}, {data['calls']:,} calls), each "
        "file listed, glanced at and read on its own:",
        "",
        *run_tables(result.runs, result.totals, peer),
        "",
    ]
    for name in (BILL_FAST, BILL_STANDARD):
        ratio = best_seconds(result.runs[name]) / best_seconds(peer)
        memory = peak_mib(result.runs[name]) / peak_mib(peer)
        lines.append(f"- {name}: {ratio:.2f}× ccusage's time, {memory:.2f}× its peak memory.")
    return lines


def node_version() -> str:
    """The version of Node.js on `PATH`, or "missing"."""
    node = shutil.which("node")
    if node is None:
        return "missing"
    done = subprocess.run([node, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip().lstrip("v") or "unknown"


def bill_region(page_text: str) -> str:
    """The text between the page's bill-bench marker lines."""
    return REGION.read(page_text)


def peer_arguments(argv: list[str] | None, prog: str, description: str | None) -> Any:
    """The arguments of a benchmark against a peer: `--write-page`, `--repeats` (3)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--write-page", action="store_true")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each command (3)")
    return parser.parse_args(argv)


def say_generated(size: int, started: float) -> None:
    """Say on stderr how large a generated folder is (bytes) and how long it took since
    `started` (a `time.perf_counter()`)."""
    print(
        f"generated {size / 2**20:.0f} MB in {time.perf_counter() - started:.0f} s", file=sys.stderr
    )


def main(argv: list[str] | None = None) -> int:
    args = peer_arguments(argv, "python -m benchmarks.bill", __doc__)
    with tempfile.TemporaryDirectory(prefix="bill-bench-") as temporary:
        # the layout ccusage reads: CLAUDE_CONFIG_DIR/projects/<project>/<session>.jsonl
        folder = Path(temporary) / "claude" / "projects" / "bench"
        folder.mkdir(parents=True)
        quarter = Path(temporary) / "quarter" / "projects" / "bench"
        quarter.mkdir(parents=True)
        started = time.perf_counter()
        size = generate_project(folder)
        generate_project(quarter, TARGET_BYTES // QUARTER)  # the same seed: the same start
        files = sum(1 for _ in folder.rglob("*.jsonl"))
        say_generated(size, started)
        result = side_by_side(folder.parent, repeats=args.repeats, quarter=quarter.parent)
        shutil.rmtree(folder.parent.parent)  # room for the next folder
        shutil.rmtree(quarter.parent.parent)
        sessions = Path(temporary) / "many" / "projects"
        started = time.perf_counter()
        many_size = generate_sessions(sessions)
        say_generated(many_size, started)
        many = side_by_side(sessions, repeats=args.repeats, only=MANY_NAMES)
    text = render(size, files, result, (sessions_words(many_size), many))
    REGION.show(text, write_page=args.write_page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
