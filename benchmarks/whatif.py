"""`python -m benchmarks.whatif`: `context-budget whatif` on the bill's 202 MB folder and a quarter.

The folders are those `benchmarks.bill` generates (the same seed, sizes
and layout), written to a temporary directory and deleted afterwards. On
each, `context-budget whatif FOLDER --json` (the session's own policy: every
request rebuilt from the files and sent again to the cache model) runs as a
whole process, the two folders in turns: wall seconds, CPU seconds and peak
memory. No other tool replays a session, so there is no peer: the goals are
the package's own, that the time grows no faster than the folder (seconds
per MB on the folder over those on its quarter, at most `LINEAR_GOAL`, the
bill's own), and
that the replay under the session's own policy prices each folder within 2%
of its bill.

    python -m benchmarks.whatif               prints the table
    python -m benchmarks.whatif --write-page  also writes benchmarks/whatif_results.md
                                              and the table on docs/measured/speed.md
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bill import (
    LINEAR_GOAL,
    QUARTER,
    TARGET_BYTES,
    best_seconds,
    generate_project,
    peak_mib,
    peer_arguments,
    say_generated,
    verdict,
)
from benchmarks.page import ROOT, Region, machine_line
from benchmarks.peer import Run, run_process

__all__ = [
    "MOST_DEPARTURE",
    "PART",
    "REGION",
    "RESULTS",
    "WHOLE",
    "main",
    "render",
    "side_by_side",
    "whatif_argv",
    "whatif_region",
]

RESULTS = ROOT / "benchmarks" / "whatif_results.md"
REGION = Region("whatif-bench", RESULTS)
#: The rows: the bill's folder, and a quarter of it.
WHOLE, PART = "the folder", "a quarter"
#: The replay under the session's own policy prices a folder within this share of its bill.
MOST_DEPARTURE = 0.02


def whatif_argv(folder: Path) -> list[str]:
    """The replay of `folder` under the session's own policy, as one JSON object."""
    return [sys.executable, "-m", "context_budget", "whatif", str(folder), "--json"]


def side_by_side(
    folders: dict[str, Path], repeats: int
) -> tuple[dict[str, list[Run]], tuple[float, float]]:
    """Each folder's runs, the folders in turns, and the machine's load when they began and
    ended."""
    began = os.getloadavg()[0]
    runs: dict[str, list[Run]] = {name: [] for name in folders}
    for _ in range(repeats):
        for name, folder in folders.items():
            runs[name].append(run_process(whatif_argv(folder)))
    return runs, (began, os.getloadavg()[0])


def _row(name: str, size: int, runs: list[Run]) -> tuple[str, float]:
    """The table row of one folder, and its seconds per MB."""
    data: dict[str, Any] = json.loads(runs[-1].stdout)
    seconds = best_seconds(runs)
    per_mb = seconds / (size / 2**20)
    cpu = min(run.cpu for run in runs)
    replayed, billed = data["replayed_usd"], data["bill_usd"]
    row = (
        f"| {name} | {size / 2**20:,.0f} MB | {data['calls']:,} | {seconds:.1f} | "
        f"{cpu:.1f} | {peak_mib(runs):,.0f} | {per_mb:.3f} | "
        f"{replayed / billed - 1:+.2%} |"
    )
    return row, per_mb


def render(sizes: dict[str, int], runs: dict[str, list[Run]], load: tuple[float, float]) -> str:
    """The result as Markdown: a row per folder, the goals met or missed, the setup and
    the machine."""
    rows, per_mb, departures = [], {}, {}
    for name, size in sizes.items():
        row, per_mb[name] = _row(name, size, runs[name])
        rows.append(row)
        data = json.loads(runs[name][-1].stdout)
        departures[name] = abs(data["replayed_usd"] / data["bill_usd"] - 1)
    whole, part = per_mb[WHOLE], per_mb[PART]
    growth = whole / part
    apart = max(departures.values())
    count = len(runs[WHOLE])
    lines = [
        "| run on | size | calls | best s | CPU s | peak MiB | s per MB | replayed vs bill |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        f"- whatif, time linear in the folder's size: seconds per MB on the folder over "
        f"those on its quarter: {growth:.2f}, at most {LINEAR_GOAL}: "
        f"{verdict(growth <= LINEAR_GOAL)}.",
        f"- whatif, the session's own policy prices each folder within "
        f"{MOST_DEPARTURE:.0%} of its bill: at most {apart:.2%} apart: "
        f"{verdict(apart <= MOST_DEPARTURE)}.",
        "",
        "Setup: `context-budget whatif FOLDER --json` (msgspec decodes) on the generated "
        "Claude Code projects folder of the bill's benchmark and on a quarter of it (the "
        f"same seed), each as a whole process, the folders in turns, {count} "
        f"{'run' if count == 1 else 'runs'} each; peak memory is the largest resident set "
        "of any process the command ran.",
        "",
        machine_line(load=load),
    ]
    return "\n".join(lines) + "\n"


def whatif_region(page_text: str) -> str:
    """The text between the page's whatif-bench marker lines."""
    return REGION.read(page_text)


def main(argv: list[str] | None = None) -> int:
    args = peer_arguments(argv, "python -m benchmarks.whatif", __doc__)
    with tempfile.TemporaryDirectory(prefix="whatif-bench-") as temporary:
        folders = {WHOLE: Path(temporary) / "proj", PART: Path(temporary) / "quarter"}
        sizes = {}
        for name, target in ((WHOLE, TARGET_BYTES), (PART, TARGET_BYTES // QUARTER)):
            started = time.perf_counter()
            folders[name].mkdir(parents=True)
            sizes[name] = generate_project(folders[name], target)
            say_generated(sizes[name], started)
        runs, load = side_by_side(folders, args.repeats)
    REGION.show(render(sizes, runs, load), write_page=args.write_page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
