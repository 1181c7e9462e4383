"""`python -m benchmarks.ccusage_sessions`: the bill and ccusage on the chapter's sessions.

The Claude Code sessions shipped with *Read your own bill* are laid out as a
`~/.claude/projects` folder (`sample-project/` and `synthetic/`), the Codex
rollout as a `~/.codex/sessions/YYYY/MM/DD` folder, in a temporary directory.
On them the pinned ccusage (installed from npm on first use, `benchmarks/peer.py`)
reports by session, by day in two time zones, by week (weeks from Monday) and by
month, offline and priced from tokens; `context-budget bill` reports the same
views. Each row gives both tools' tokens of every kind and cost, and whether they
agree. A second Codex home holds the rollout twice, in `sessions/` and in
`archived_sessions/` (where archiving a conversation moves it), as a home synced
from another machine or restored from a backup can: each tool reads both folders.

    python -m benchmarks.ccusage_sessions           prints the comparison
    python -m benchmarks.ccusage_sessions --write   also writes the ccusage outputs to
                                                    benchmarks/ccusage_sessions.json, which
                                                    the chapter compares with the bill
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.page import ROOT
from benchmarks.peer import CCUSAGE_VERSION, ensure_ccusage

__all__ = [
    "ARCHIVED_VIEW",
    "CODEX_VIEW",
    "RECORD",
    "VIEWS",
    "ccusage_views",
    "lay_out",
    "lay_out_archived",
    "main",
]

SESSIONS = ROOT / "docs" / "measured" / "sessions"
#: Where `--write` keeps ccusage's outputs, with the commands that made them.
RECORD = ROOT / "benchmarks" / "ccusage_sessions.json"
#: view name -> ccusage's arguments after `ccusage claude` (all offline, priced from tokens).
VIEWS: dict[str, list[str]] = {
    "session": ["session"],
    "day UTC": ["daily", "--timezone", "UTC"],
    "day America/Los_Angeles": ["daily", "--timezone", "America/Los_Angeles"],
    "week UTC": ["weekly", "--timezone", "UTC", "--start-of-week", "monday"],
    "month UTC": ["monthly", "--timezone", "UTC"],
}
_COMMON = ["--json", "--offline", "--mode", "calculate"]


def lay_out(folder: Path) -> tuple[Path, Path]:
    """The shipped sessions laid out as the agents keep theirs: (config dir, codex home)."""
    projects = folder / "claude" / "projects"
    shutil.copytree(SESSIONS / "sample-project", projects / "sample-project")
    (projects / "synthetic").mkdir(parents=True)
    day = folder / "codex" / "sessions" / "2026" / "03" / "02"
    day.mkdir(parents=True)
    for path in (SESSIONS / "synthetic").iterdir():
        target = day if path.name.startswith("rollout-") else projects / "synthetic"
        shutil.copy(path, target / path.name)
    return folder / "claude", folder / "codex"


def lay_out_archived(folder: Path) -> Path:
    """A Codex home whose rollout is in `sessions/YYYY/MM/DD` and in `archived_sessions/`."""
    home = folder / "codex-archived"
    day = home / "sessions" / "2026" / "03" / "02"
    day.mkdir(parents=True)
    (home / "archived_sessions").mkdir()
    for path in (SESSIONS / "synthetic").glob("rollout-*.jsonl"):
        shutil.copy(path, day / path.name)
        shutil.copy(path, home / "archived_sessions" / path.name)
    return home


def _ccusage(entry: Path, argv: Sequence[str], env: dict[str, str]) -> Any:
    done = subprocess.run(
        [str(entry), *argv], capture_output=True, text=True, env=env, timeout=300, check=True
    )
    return json.loads(done.stdout)


#: ccusage's arguments for its report of the Codex sessions under `CODEX_HOME`.
CODEX_VIEW = ["codex", "session", "--json", "--offline"]
#: The record's name for that report on the home that holds the rollout twice.
ARCHIVED_VIEW = "codex session, also archived"


def ccusage_views(entry: Path, claude: Path, codex: Path, archived: Path) -> dict[str, Any]:
    """ccusage's JSON for every view of `VIEWS` (Claude Code), its Codex sessions, and
    its Codex sessions of the home `archived` (`lay_out_archived`)."""
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(claude), "CODEX_HOME": str(codex)}
    found = {
        name: _ccusage(entry, ["claude", *argv, *_COMMON], env) for name, argv in VIEWS.items()
    }
    found["codex session"] = _ccusage(entry, CODEX_VIEW, env)
    found[ARCHIVED_VIEW] = _ccusage(entry, CODEX_VIEW, {**env, "CODEX_HOME": str(archived)})
    return found


def _rows(data: Any) -> list[dict[str, Any]]:
    """ccusage's rows of one report, whatever its view names them."""
    for key in ("sessions", "daily", "weekly", "monthly"):
        if key in data:
            return list(data[key])
    raise ValueError(f"no rows in ccusage's report: {sorted(data)}")


def _key(row: dict[str, Any]) -> str:
    for name in ("sessionId", "date", "week", "month"):
        if name in row:
            return str(row[name])
    raise ValueError(f"a ccusage row with no key: {sorted(row)}")


def _bill(argv: Sequence[str]) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "context_budget", "bill", *argv, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        cwd=ROOT,
    )
    return json.loads(done.stdout)


def compare(record: dict[str, Any], claude: Path, codex: Path, archived: Path) -> list[str]:
    """Markdown rows: each ccusage row beside the bill's group of the same key."""
    lines = [
        "| view | key | ccusage tokens | bill tokens | ccusage $ | bill $ | agree |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    ours = {
        "session": ("session", "UTC"),
        "day UTC": ("day", "UTC"),
        "day America/Los_Angeles": ("day", "America/Los_Angeles"),
        "week UTC": ("week", "UTC"),
        "month UTC": ("month", "UTC"),
    }
    for view, (by, zone) in ours.items():
        groups = {
            g["key"]: g
            for g in _bill([str(claude / "projects"), "--by", by, "--timezone", zone])["groups"]
        }
        for row in _rows(record["views"][view]):
            key = _key(row)
            theirs = sum(row[k] for k in ("inputTokens", "cacheReadTokens", "cacheCreationTokens"))
            theirs += row["outputTokens"]
            group = groups.get(key)
            mine = sum(group["tokens"].values()) if group else 0
            cost = group["cost_usd"] if group else None
            agree = group is not None and mine == theirs and abs(cost - row["totalCost"]) < 1e-6
            lines.append(
                f"| {view} | {key} | {theirs:,} | {mine:,} | {row['totalCost']:.6f} | "
                f"{'-' if cost is None else f'{cost:.6f}'} | {'yes' if agree else 'no'} |"
            )
    for view, folders in (
        ("codex session", [codex / "sessions"]),
        (ARCHIVED_VIEW, [archived / "sessions", archived / "archived_sessions"]),
    ):
        codex_bill = _bill([*map(str, folders), "--timezone", "UTC"])
        total = record["views"][view]["totals"]
        theirs = total["inputTokens"] + total["cacheReadTokens"] + total["outputTokens"]
        mine = sum(codex_bill["tokens"].values())
        agree = mine == theirs and abs(codex_bill["cost_usd"] - total["costUSD"]) < 1e-6
        lines.append(
            f"| {view} | all | {theirs:,} | {mine:,} | {total['costUSD']:.6f} | "
            f"{codex_bill['cost_usd']:.6f} | {'yes' if agree else 'no'} |"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {RECORD.name}")
    args = parser.parse_args(argv)
    entry = ensure_ccusage()
    with tempfile.TemporaryDirectory() as scratch:
        claude, codex = lay_out(Path(scratch))
        archived = lay_out_archived(Path(scratch))
        record = {
            "ccusage": CCUSAGE_VERSION,
            "commands": {
                name: f"ccusage claude {' '.join([*view, *_COMMON])}"
                for name, view in VIEWS.items()
            }
            | {
                "codex session": f"ccusage {' '.join(CODEX_VIEW)}",
                ARCHIVED_VIEW: f"ccusage {' '.join(CODEX_VIEW)}"
                " (CODEX_HOME: the rollout in sessions/ and archived_sessions/)",
            },
            "run": {
                "date": datetime.now(tz=UTC).date().isoformat(),
                "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()}",
            },
            "views": ccusage_views(entry, claude, codex, archived),
        }
        print("\n".join(compare(record, claude, codex, archived)))
    if args.write:
        RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {RECORD.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
