"""Which reader a path needs: files, folders, and the formats they hold."""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any

from context_budget._bills.call import Reading
from context_budget._bills.claude_code import read_claude_code
from context_budget._bills.codex import KINDS, read_codex
from context_budget._bills.fields import json_text
from context_budget._bills.mini_swe_agent import is_trajectory, read_mini_swe_agent
from context_budget._bills.openhands import is_event_list, read_openhands

__all__ = ["BILL_FORMATS", "read_paths"]

#: The `format=` values `read_bill` takes.
BILL_FORMATS = ("auto", "claude-code", "codex", "mini-swe-agent", "openhands")

_CLAUDE_KINDS = frozenset(
    {
        "user",
        "assistant",
        "system",
        "summary",
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "attachment",
        "ai-title",
    }
)


def _files(paths: Sequence[str | PathLike[str]]) -> list[Path]:
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            inside = sorted(p for p in path.rglob("*.jsonl") if p.is_file())
            if not inside:
                raise ValueError(f"{path}: a folder with no .jsonl session file in it")
            found.extend(inside)
        elif path.is_file():
            found.append(path)
        elif path.exists():
            raise ValueError(f"{path}: not a regular file or a folder")
        else:
            raise ValueError(f"{path}: no such file or folder")
    return found


def _first_line(path: Path) -> Any:
    """The first non-blank line's JSON value, None when it is not one (detection goes on)."""
    with path.open(encoding="utf-8") as handle:
        try:
            for text in handle:
                if text.strip():
                    try:
                        return json_text(text, path.name)
                    except ValueError:
                        return None
        except UnicodeDecodeError as error:
            raise ValueError(f"{path}: not UTF-8 text ({error.reason})") from None
    raise ValueError(f"{path}: the file is empty")


def _sniff(path: Path) -> tuple[str, Any]:
    """(format, the whole file's JSON for the one-object formats, else None)."""
    first = _first_line(path)
    if isinstance(first, dict) and first.get("type") in KINDS and "payload" in first:
        return "codex", None
    if isinstance(first, dict) and (
        first.get("type") in _CLAUDE_KINDS or {"sessionId", "leafUuid", "uuid"} & set(first)
    ):
        return "claude-code", None
    try:
        data = json_text(path.read_text(encoding="utf-8"), path.name)
    except ValueError:
        data = None
    if is_trajectory(data):
        return "mini-swe-agent", data
    if is_event_list(data):
        return "openhands", data
    shown = type(first).__name__ if first is not None else "not JSON"
    keys = sorted(first)[:6] if isinstance(first, dict) else []
    raise ValueError(
        f"{path}: not a session in a format bills read ({', '.join(BILL_FORMATS[1:])}); "
        f"first line: {shown}{' with keys ' + ', '.join(keys) if keys else ''}"
    )


def _whole(path: Path) -> Any:
    return json_text(path.read_text(encoding="utf-8"), str(path))


def read_paths(paths: Sequence[str | PathLike[str]], format: str) -> list[Reading]:
    """One `Reading` per file, Claude Code files read together (one call per response).

    Raises:
        ValueError: an unknown `format`, a missing path, a file in no known
            format, or a file whose format holds no call with usage.
    """
    if format not in BILL_FORMATS:
        raise ValueError(f"format must be one of {', '.join(BILL_FORMATS)}, got {format!r}")
    claude: list[Path] = []
    readings: list[Reading] = []
    for path in _files(paths):
        kind, data = (format, None) if format != "auto" else _sniff(path)
        if kind == "claude-code":
            claude.append(path)
            continue
        if kind == "codex":
            reading = read_codex(path)
        else:
            data = data if data is not None else _whole(path)
            if kind == "mini-swe-agent":
                if not isinstance(data, dict):
                    raise ValueError(f"{path}: a trajectory must be a JSON object")
                reading = read_mini_swe_agent(data, path)
            else:
                if not isinstance(data, list):
                    raise ValueError(f"{path}: OpenHands events must be a JSON list")
                reading = read_openhands(data, path)
        if not reading.calls:
            raise ValueError(f"{path}: a {kind} file with no API call recording usage")
        readings.append(reading)
    if claude:
        reading = read_claude_code(claude)
        if not reading.calls:
            names = ", ".join(p.name for p in claude[:3])
            raise ValueError(f"{names}: Claude Code session(s) with no assistant line with usage")
        readings.insert(0, reading)
    return readings
