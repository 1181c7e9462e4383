"""The peer the bill is compared with: ccusage, pinned, installed from npm by the benchmark.

[ccusage](https://github.com/ccusage/ccusage) is the command most Claude Code users
run to price their sessions. The benchmark installs the pinned version into
``.cache/ccusage/`` with npm on first use (20.0.24 ships a JavaScript entry that
runs on the machine's Node.js; later versions need a platform binary that some
machines lack), runs it offline on the same folder as ``context-budget bill``, and
reads its totals back so the table can say whether the two agree.

Both commands are timed the same way, as whole processes: wall seconds from start
to exit, and the peak resident memory of the largest process the command ran, as
the kernel reports it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.page import ROOT

__all__ = [
    "CCUSAGE_VERSION",
    "PeerError",
    "Run",
    "ccusage_argv",
    "ccusage_totals",
    "ensure_ccusage",
    "run_process",
]

CCUSAGE_VERSION = "20.0.24"
CACHE = ROOT / ".cache" / "ccusage"
TIMEOUT_SECONDS = 600  # for the install


class PeerError(RuntimeError):
    """A command of the comparison could not be installed or run."""


@dataclass(frozen=True)
class Run:
    """One whole-process run: wall seconds, peak resident memory in MiB, what it printed."""

    seconds: float
    peak_mib: float
    stdout: str


def _installed_version(folder: Path) -> str | None:
    manifest = folder / "node_modules" / "ccusage" / "package.json"
    if not manifest.is_file():
        return None
    version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    return version if isinstance(version, str) else None


def ensure_ccusage(folder: Path = CACHE) -> Path:
    """The pinned ccusage's entry point, installed with npm into ``folder`` when missing."""
    entry = folder / "node_modules" / ".bin" / "ccusage"
    if entry.is_file() and _installed_version(folder) == CCUSAGE_VERSION:
        return entry
    npm = shutil.which("npm")
    if npm is None:
        raise PeerError("npm is not on PATH: it installs the pinned ccusage")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", "--silent",
         f"ccusage@{CCUSAGE_VERSION}"],
        capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False,
    )  # fmt: skip
    if done.returncode != 0 or _installed_version(folder) != CCUSAGE_VERSION:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise PeerError(f"npm could not install ccusage@{CCUSAGE_VERSION}: {last}")
    return entry


def ccusage_argv(entry: Path) -> list[str]:
    """ccusage's per-session Claude Code report, offline, priced from tokens as the bill is."""
    return [str(entry), "claude", "session", "--json", "--offline", "--mode", "calculate"]


# A small process that starts the measured command and reports on it. Its children's
# usage covers every process of the command's tree (ccusage's Node.js entry starts a
# native binary), and its peak is that of the largest one. Linux counts in a child's
# peak what the process it forked from held before exec, so the command is started
# from this launcher (a few MiB), never from the benchmark itself.
_LAUNCHER = """
import os, resource, sys, time
started = time.perf_counter()
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, _ = os.wait4(pid, 0)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
with open(sys.argv[1], "w") as report:
    report.write(f"{time.perf_counter() - started} {peak}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_process(argv: Sequence[str], env: Mapping[str, str] | None = None) -> Run:
    """Run ``argv`` to its end: its wall seconds and peak memory in MiB.

    The launcher above times the command, reaps it, and reads the peak resident set
    of the largest process in its tree (``ru_maxrss`` of its children, KiB on Linux).
    """
    with tempfile.TemporaryDirectory(prefix="peer-run-") as folder:
        report = Path(folder) / "report"
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(report), *argv],
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            check=False,
        )
        said = report.read_text(encoding="utf-8").split() if report.is_file() else []
    if done.returncode != 0 or not said:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise PeerError(f"{argv[0]} exited {done.returncode}: {last}")
    seconds, peak_kib = said
    return Run(seconds=float(seconds), peak_mib=int(peak_kib) / 1024, stdout=done.stdout)


def ccusage_totals(stdout: str) -> dict[str, float]:
    """ccusage's totals as the bill names them: tokens of each kind and the cost in USD."""
    totals = json.loads(stdout)["totals"]
    return {
        "input": totals["inputTokens"],
        "cache_read": totals["cacheReadTokens"],
        "cache_write": totals["cacheCreationTokens"],
        "output": totals["outputTokens"],
        "cost_usd": totals["totalCost"],
    }
