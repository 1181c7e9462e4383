"""What a bill leaves out of a folder as it is: a file or line no reader can take.

A real folder of sessions is never clean: the session being written ends in a
half-written line, workflow journals sit beside sub-agents' files, a Codex
rollout can close before its first turn. `read_paths` names each one as a
`Skip` and bills the rest; `summary` says them all in one line.

Kinds (`SKIP_KINDS`):

- `half-written line`: the last line of a JSON Lines file is not JSON (the
  file is still being written);
- `bad line`: a line before the last one is not JSON, a line is JSON nested
  too deeply to parse or not UTF-8, or a record's usage figure no count can be
  (`"12"`, `true`, `1.5`);
- `not a session`: a file in no format that records usage (not JSON, its
  first line not UTF-8, a workflow journal, a document of another shape, an
  empty file);
- `bad usage`: a session of a format of one document (a trajectory, an
  event list) or an evaluation instance, whose usage holds a figure no count
  can be: it has no line to leave out alone;
- `empty rollout`: a Codex rollout with no call recording usage, or a fork
  whose every call copies its parent's history;
- `no call`: a session of another format with no call recording usage.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

__all__ = ["SKIP_KINDS", "Skip", "bad_usage_line", "check_skipped", "summary"]


def check_skipped(skipped: object) -> None:
    """Refuse, before any reading, a place to note skips that is no list (a tuple, a
    string): noting the first skip in it would fail after the file was read.

    Raises:
        TypeError: `skipped` is neither a list nor None, its type named.
    """
    if skipped is not None and not isinstance(skipped, list):
        raise TypeError(f"skipped must be a list or None, got {type(skipped).__name__}")


#: The kinds of skip, in the order `summary` says them.
SKIP_KINDS = (
    "half-written line",
    "bad line",
    "bad usage",
    "not a session",
    "empty rollout",
    "no call",
)
#: How many places `summary` names per kind before "and N more".
NAMED = 3


@dataclass(frozen=True)
class Skip:
    """One file or line left out of a bill.

    Attributes:
        kind: one of `SKIP_KINDS`.
        file: the file's path as read.
        line: the line's number (from 1) for a line; None for a whole file.
        reason: the whole problem in one sentence, naming the file (and line):
            the error a strict read raises.
    """

    kind: str
    file: str
    line: int | None
    reason: str

    @property
    def place(self) -> str:
        """`name:line` for a line, `name` for a file (the file's name without its folders)."""
        name = PurePath(self.file).name
        return name if self.line is None else f"{name}:{self.line}"


def bad_usage_line(file: str, line: int, error: Exception) -> Skip:
    """The "bad line" skip of line `line` of `file`, whose usage or time a reader refused
    (`error`): its reason led by the file's name, unless the error names it already."""
    said = str(error)
    reason = f"{file}: {said}" if file and not said.startswith(f"{file}: ") else said
    return Skip("bad line", file, line, reason)


#: Each kind of `SKIP_KINDS` as `summary` counts it: (one, several).
_COUNTED = {
    "half-written line": ("half-written line", "half-written lines"),
    "bad line": ("bad line", "bad lines"),
    "bad usage": ("session whose usage is refused", "sessions whose usage is refused"),
    "not a session": ("file that is no session", "files that are no session"),
    "empty rollout": ("empty rollout", "empty rollouts"),
    "no call": ("file with no call", "files with no call"),
}


def summary(skips: Sequence[Skip]) -> str:
    """The skips in one line, by kind: `2 skipped: 1 half-written line (a.jsonl:30); ...`.

    Each kind gives its count before its name, so that a count is not read as a
    line number, and names up to `NAMED` places, then "and N more". A file is
    named by its name alone, or with as many of its folders as tell it from
    another skipped file of the same name (`a/journal.jsonl`, `b/journal.jsonl`).
    """
    shown = _short_names([skip.file for skip in skips])
    parts = []
    for kind in SKIP_KINDS:
        places = [
            shown[skip.file] if skip.line is None else f"{shown[skip.file]}:{skip.line}"
            for skip in skips
            if skip.kind == kind
        ]
        if not places:
            continue
        named = ", ".join(places[:NAMED])
        more = f" and {len(places) - NAMED} more" if len(places) > NAMED else ""
        one, several = _COUNTED[kind]
        parts.append(f"{len(places)} {one if len(places) == 1 else several} ({named}{more})")
    return f"{len(skips)} skipped: " + "; ".join(parts)


def _short_names(files: Sequence[str]) -> dict[str, str]:
    """Each path -> its last part, or its last parts where fewer would name two of the
    paths alike (each path as given; two spellings of one file are two paths)."""
    paths = {file: PurePath(file).parts for file in dict.fromkeys(files)}
    taken = dict.fromkeys(paths, 1)  # path -> how many of its last parts it is named by
    while True:
        shown = {file: str(PurePath(*parts[-taken[file] :])) for file, parts in paths.items()}
        named: dict[str, list[str]] = {}
        for file, name in shown.items():
            named.setdefault(name, []).append(file)
        alike = [
            file
            for group in named.values()
            if len(group) > 1
            for file in group
            if taken[file] < len(paths[file])
        ]
        if not alike:
            return shown
        for file in alike:
            taken[file] += 1
