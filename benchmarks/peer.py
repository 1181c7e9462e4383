"""The peers the bill is compared with: ccusage and tokscale, pinned, installed from npm.

[ccusage](https://github.com/ccusage/ccusage) is the command most Claude Code users
run to price their sessions. The benchmark installs the pinned version into
``.cache/ccusage/`` with npm on first use (20.0.24 is a JavaScript entry, run on
the machine's Node.js, that starts the static native binary npm installs beside it
for the platform, ``@ccusage/ccusage-linux-x64`` here), runs it offline on the same
folder as ``context-budget bill``, and reads its totals back so the table can say
whether the two agree.

[tokscale](https://github.com/junhoyeo/tokscale) runs on Bun, which npm installs
beside it (the ``bun`` package) into ``.cache/tokscale/``. It reads
``~/.claude/projects``, so it runs with ``HOME`` set to a folder whose ``.claude``
is the benchmark's; and it fetches LiteLLM's price list, so it is given a copy
made from the package's own price table (``tokscale_home``), which it takes for
one it fetched within the hour.

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
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.page import ROOT

__all__ = [
    "BUN_VERSION",
    "CCUSAGE_VERSION",
    "TOKSCALE_VERSION",
    "PeerError",
    "Run",
    "ccusage_argv",
    "ccusage_codex_argv",
    "ccusage_totals",
    "ensure_ccusage",
    "ensure_tokscale",
    "run_process",
    "tokscale_argv",
    "tokscale_home",
    "tokscale_totals",
]

CCUSAGE_VERSION = "20.0.24"
CACHE = ROOT / ".cache" / "ccusage"
TOKSCALE_VERSION = "1.4.3"
#: The Bun tokscale runs on, from npm's `bun` package.
BUN_VERSION = "1.4.5"
TOKSCALE_CACHE = ROOT / ".cache" / "tokscale"
TIMEOUT_SECONDS = 600  # for the install


class PeerError(RuntimeError):
    """A command of the comparison could not be installed or run."""


@dataclass(frozen=True)
class Run:
    """One whole-process run: wall seconds, peak resident memory in MiB, what it printed,
    and the CPU seconds (user and system) of every process it ran."""

    seconds: float
    peak_mib: float
    stdout: str
    cpu: float = 0.0


def _installed_version(folder: Path, package: str = "ccusage") -> str | None:
    manifest = folder / "node_modules" / package / "package.json"
    if not manifest.is_file():
        return None
    version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    return version if isinstance(version, str) else None


def _npm_install(folder: Path, pins: Mapping[str, str]) -> None:
    """Install the pinned npm packages into ``folder`` unless they are there already."""
    if all(_installed_version(folder, name) == version for name, version in pins.items()):
        return
    npm = shutil.which("npm")
    if npm is None:
        raise PeerError(f"npm is not on PATH: it installs {', '.join(pins)}")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", "--silent",
         *(f"{name}@{version}" for name, version in pins.items())],
        capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False,
    )  # fmt: skip
    missing = [n for n, v in pins.items() if _installed_version(folder, n) != v]
    if done.returncode != 0 or missing:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise PeerError(f"npm could not install {', '.join(missing) or 'them'}: {last}")


def ensure_ccusage(folder: Path = CACHE) -> Path:
    """The pinned ccusage's entry point, installed with npm into ``folder`` when missing."""
    _npm_install(folder, {"ccusage": CCUSAGE_VERSION})
    return folder / "node_modules" / ".bin" / "ccusage"


def ensure_tokscale(folder: Path = TOKSCALE_CACHE) -> Path:
    """The pinned tokscale's entry point, with the pinned Bun beside it (npm, on first use)."""
    _npm_install(folder, {"tokscale": TOKSCALE_VERSION, "bun": BUN_VERSION})
    return folder / "node_modules" / ".bin" / "tokscale"


def tokscale_argv(entry: Path) -> list[str]:
    """tokscale's report by model of the Claude Code sessions, as JSON, with no spinner."""
    return [str(entry), "models", "--json", "--claude", "--no-spinner"]


def tokscale_home(home: Path, claude: Path, models: Sequence[str], entry: Path) -> dict[str, str]:
    """The environment tokscale runs in: ``home`` holds ``claude`` as ``.claude`` and a
    price list of ``models`` (from this package's table) where tokscale keeps the one it
    fetches, dated now; Bun first on ``PATH``."""
    from context_budget.pricing import price_for

    home.mkdir(parents=True, exist_ok=True)
    (home / ".claude").symlink_to(claude, target_is_directory=True)
    prices = {}
    for model in models:
        price = price_for(model)
        if price is not None:  # LiteLLM's words: USD per token, one write rate
            prices[model] = {
                "input_cost_per_token": price.input / 1e6,
                "output_cost_per_token": price.output / 1e6,
                "cache_creation_input_token_cost": price.write_5m / 1e6,
                "cache_read_input_token_cost": price.read / 1e6,
            }
    cache = home / ".cache" / "tokscale"
    cache.mkdir(parents=True)
    now = int(time.time())
    for name, data in (("pricing-litellm.json", prices), ("pricing-openrouter.json", {})):
        (cache / name).write_text(json.dumps({"timestamp": now, "data": data}), encoding="utf-8")
    path = f"{entry.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "PATH": path}


def tokscale_totals(stdout: str) -> dict[str, float]:
    """tokscale's totals as the bill names them: tokens of each kind and the cost in USD."""
    report = json.loads(stdout)
    return {
        "input": report["totalInput"],
        "cache_read": report["totalCacheRead"],
        "cache_write": report["totalCacheWrite"],
        "output": report["totalOutput"],
        "cost_usd": report["totalCost"],
    }


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
used = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as report:
    cpu = used.ru_utime + used.ru_stime
    report.write(f"{time.perf_counter() - started} {used.ru_maxrss} {cpu}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_process(argv: Sequence[str], env: Mapping[str, str] | None = None) -> Run:
    """Run ``argv`` to its end: its wall seconds, peak memory in MiB and CPU seconds.

    The launcher above times the command, reaps it, and reads the peak resident set
    of the largest process in its tree (``ru_maxrss`` of its children, KiB on Linux)
    and the CPU time of the whole tree.
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
    seconds, peak_kib, cpu = said
    return Run(float(seconds), int(peak_kib) / 1024, done.stdout, float(cpu))


def ccusage_codex_argv(entry: Path) -> list[str]:
    """ccusage's per-session report of the Codex rollouts under `$CODEX_HOME/sessions`,
    offline."""
    return [str(entry), "codex", "session", "--json", "--offline"]


def ccusage_totals(stdout: str) -> dict[str, float]:
    """ccusage's totals as the bill names them: tokens of each kind and the cost in USD.

    Its Claude Code report names the cost `totalCost`, its Codex report `costUSD`; in
    the Codex report the input is the uncached part and the reasoning is inside the
    output, as the bill counts them.
    """
    totals = json.loads(stdout)["totals"]
    return {
        "input": totals["inputTokens"],
        "cache_read": totals["cacheReadTokens"],
        "cache_write": totals["cacheCreationTokens"],
        "output": totals["outputTokens"],
        "cost_usd": totals["totalCost"] if "totalCost" in totals else totals["costUSD"],
    }
