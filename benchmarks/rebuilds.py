"""`python -m benchmarks.rebuilds`: how `Bill.rebuilds()` grows with the calls of a thread.

A session is generated in a temporary directory from a fixed shape: one
thread whose every call loses more than `LOST_PREFIX_TOKENS` of cached prefix
within the cache's lifetime, so every call is a `prefix-changed` rebuild whose
first differing message is looked for in a chain as long as the session. The
figure is the CPU time of `rebuilds()` on a bill read beforehand, at `CALLS`
calls and four times as many: linear work takes about four times as long.
CPU time moves less than wall time with other work on the machine, but it
still moves (a busy neighbour slows the caches), so the two sizes are timed
in turns, `REPEATS` rounds of one run each, and each keeps its least time: a
burst of load then slows both sizes alike instead of one.

    python -m benchmarks.rebuilds               prints the table
    python -m benchmarks.rebuilds --write-page  also writes benchmarks/rebuild_results.md
                                                and the table on docs/measured/speed.md
"""

from __future__ import annotations

import argparse
import gc
import json
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from benchmarks.page import ROOT, Region, machine_line
from context_budget.bills import Bill, read_bill

__all__ = [
    "CALLS",
    "REGION",
    "REPEATS",
    "RESULTS",
    "generate_session",
    "rebuild_region",
    "render",
    "time_rebuilds",
    "time_sizes",
]

#: The smaller size: calls in the one thread (the larger is four times as many).
CALLS = 10_000
#: The most the larger size may take, as a multiple of the smaller: linear is about 4.
MOST_RATIO = 5.0
#: Rounds of the timing: each size keeps its least CPU time over this many runs.
REPEATS = 7
RESULTS = ROOT / "benchmarks" / "rebuild_results.md"
#: Where the speed page shows the table.
REGION = Region("rebuild-bench", RESULTS)


def _line(kind: str, uuid: str, parent: str | None, at: float, **fields: object) -> str:
    moment = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(at)) + "Z"
    line = {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "isSidechain": False,
        "sessionId": "be0c4a11-0000-4000-8000-000000000000",
        "timestamp": moment,
        **fields,
    }
    return json.dumps(line, separators=(",", ":"))


def generate_session(path: Path, calls: int) -> int:
    """Write a session of `calls` calls, each a prefix-changed rebuild; its size in bytes."""
    lines: list[str] = []
    parent: str | None = None
    clock = 1_780_000_000.0
    for n in range(calls):
        ask, reply = f"u{n}", f"a{n}"
        lines.append(_line("user", ask, parent, clock, message={"role": "user", "content": "go"}))
        usage = {
            "input_tokens": 3,
            "cache_read_input_tokens": 10_000,
            "cache_creation_input_tokens": 3_000,
            "output_tokens": 20,
        }
        message = {
            "id": f"msg{n}",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "ok"}],
            "usage": usage,
        }
        lines.append(_line("assistant", reply, ask, clock + 1, message=message))
        parent, clock = reply, clock + 5
    text = "\n".join(lines) + "\n"
    path.write_text(text, encoding="utf-8")
    return len(text.encode())


def _fresh(path: Path) -> Callable[[], Bill]:
    """Read `path` once; each call gives a new bill of it, nothing computed yet."""
    read = read_bill(path)
    return lambda: Bill(read.calls, read.format, _messages=read._messages)


def _timed(bill: Bill) -> tuple[float, int]:
    """(CPU seconds of `bill.rebuilds()`, the rebuilds found), the collector off."""
    gc.collect()
    gc.disable()  # the collector's pauses are not the work measured
    try:
        started = time.process_time()
        found = len(bill.rebuilds())
        return time.process_time() - started, found
    finally:
        gc.enable()


def time_sizes(paths: Sequence[Path], repeats: int = REPEATS) -> list[tuple[float, int]]:
    """Per file, (least CPU seconds of `rebuilds()` over `repeats` rounds, the rebuilds found).

    Each round times every file once, in turn, on a fresh bill read beforehand.
    """
    bills = [_fresh(path) for path in paths]
    best = [float("inf")] * len(paths)
    found = [0] * len(paths)
    for _ in range(repeats):
        for index, fresh in enumerate(bills):
            seconds, found[index] = _timed(fresh())
            best[index] = min(best[index], seconds)
    return list(zip(best, found, strict=True))


def time_rebuilds(path: Path, repeats: int = REPEATS) -> tuple[float, int]:
    """(least CPU seconds of `rebuilds()` over `repeats` fresh bills of the file, rebuilds)."""
    return time_sizes([path], repeats)[0]


def render(rows: list[tuple[int, int, float]]) -> str:
    """The Markdown table of (calls, rebuilds, seconds) rows, the ratio to the first row."""
    first = rows[0]
    table = [
        "| calls | rebuilds | seconds | × calls | × time |",
        "|---:|---:|---:|---:|---:|",
        *(
            f"| {calls:,} | {found:,} | {seconds:.3f} | {calls / first[0]:.0f} | "
            f"{seconds / first[2]:.1f} |"
            for calls, found, seconds in rows
        ),
    ]
    ratio = rows[-1][2] / first[2]
    verdict = "met" if ratio <= MOST_RATIO else "missed"
    return (
        "\n".join(
            [
                *table,
                "",
                f"Goal: four times the calls in at most {MOST_RATIO:.0f} times the time: "
                f"**{verdict}** (×{ratio:.1f}).",
                "",
                "Setup: `Bill.rebuilds()` on a generated session whose every call is a "
                "prefix-changed rebuild; the sizes timed in turns, each its least CPU time "
                f"of {REPEATS} runs, the garbage collector off during a run.",
                "",
                machine_line(),
            ]
        )
        + "\n"
    )


def rebuild_region(page_text: str) -> str:
    """The text between the page's rebuild-bench marker lines."""
    return REGION.read(page_text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.rebuilds", description=__doc__)
    parser.add_argument("--write-page", action="store_true")
    args = parser.parse_args(argv)
    sizes = (CALLS, 4 * CALLS)
    with tempfile.TemporaryDirectory(prefix="rebuild-bench-") as temporary:
        paths = [Path(temporary) / f"session-{calls}.jsonl" for calls in sizes]
        for calls, path in zip(sizes, paths, strict=True):
            generate_session(path, calls)
        timed = time_sizes(paths)
    rows = [(calls, found, seconds) for calls, (seconds, found) in zip(sizes, timed, strict=True)]
    text = render(rows)
    REGION.show(text, write_page=args.write_page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
