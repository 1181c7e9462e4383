"""Where coding agents keep their sessions: the folders `bill` reads when given none.

- Claude Code: `$CLAUDE_CONFIG_DIR/projects` for each folder the variable
  names (several, separated by commas, as Claude Code and ccusage read it);
  without the variable, `~/.config/claude/projects` and `~/.claude/projects`.
- Codex: `$CODEX_HOME/sessions` and `$CODEX_HOME/archived_sessions`, else
  `~/.codex/sessions` and `~/.codex/archived_sessions`: archiving a
  conversation moves its rollout from the first to the second, and its calls
  still happened ([Codex's `rollout/src/lib.rs`](https://github.com/openai/codex/blob/main/codex-rs/rollout/src/lib.rs)
  names both).
- OpenHands (its CLI, 1.x): `~/.openhands/conversations`, a folder per
  conversation ([OpenHands-CLI's `locations.py`](https://github.com/OpenHands/OpenHands-CLI/blob/main/openhands_cli/locations.py)).

Only the folders that exist and hold a file named as a session file are
returned, in that order: an agent installed and never run leaves its folder
empty, and an empty folder given to the bill is an error.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from context_budget.sessions.text import is_session_name

__all__ = ["default_folders", "holds_sessions", "searched_folders"]


def searched_folders(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every folder an agent may keep its sessions in, whether it exists or not.

    Args:
        environ: the environment to read (`os.environ` when None); `HOME` in it
            gives `~`.
    """
    env = os.environ if environ is None else environ
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    config = [part.strip() for part in env.get("CLAUDE_CONFIG_DIR", "").split(",")]
    claude = [Path(part) / "projects" for part in config if part]
    if not claude:
        claude = [home / ".config" / "claude" / "projects", home / ".claude" / "projects"]
    given = env.get("CODEX_HOME", "").strip()
    codex = Path(given) if given else home / ".codex"
    return [
        *claude,
        codex / "sessions",
        codex / "archived_sessions",
        home / ".openhands" / "conversations",
    ]


def default_folders(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The folders of `searched_folders` that exist and hold a session file
    (`holds_sessions`), each once, in order."""
    found: list[Path] = []
    for folder in searched_folders(environ):
        if folder.is_dir() and folder not in found and holds_sessions(folder):
            found.append(folder)
    return found


def holds_sessions(folder: Path) -> bool:
    """Whether a file under `folder` (linked folders followed, each once) is named as a
    session file (`text.is_session_name`); the walk stops at the first. A folder that
    cannot be read counts as holding one: the reader then names the problem."""
    problems: list[OSError] = []
    seen: set[tuple[int, int]] = set()  # (device, inode) of each folder walked
    for root, folders, names in os.walk(folder, onerror=problems.append, followlinks=True):
        try:
            info = os.stat(root)
        except OSError:
            return True
        if problems or any(is_session_name(name) for name in names):
            return True
        if (info.st_dev, info.st_ino) in seen:  # reached again through a link
            folders[:] = []
        seen.add((info.st_dev, info.st_ino))
    return bool(problems)
