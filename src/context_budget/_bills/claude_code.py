"""Claude Code sessions: one usage record per assistant line, several lines per call.

A session is JSON Lines. Usage sits on `type: "assistant"` lines at
`message.usage`; one API response is written as one line per content block,
all with the same `message.id` and `requestId`, the input side repeated. So a
call is keyed on `message.id` + `requestId` (`message.id` alone when the
request id is missing); of its copies the one outside a sidechain wins, else
the one with the larger token total.

Threads: the main chain is every line with `isSidechain` false; each inline
sub-agent is a sidechain rooted at a line with `parentUuid: null`; a separate
`agent-<id>.jsonl` file (beside the session or in `<session>/subagents/`) is
one thread named after the file. A `system` line with subtype
`compact_boundary` starts a new segment of the main chain.

Lines of other types (`summary`, `progress`, `file-history-snapshot`, ...)
are skipped; error lines (`<synthetic>` model, `isApiErrorMessage`) made no
billed call and are skipped too.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from context_budget._bills.call import Call, Message, Reading
from context_budget._bills.fields import count, epoch, json_lines, short

__all__ = ["read_claude_code"]


def _tokens(usage: Any, where: str) -> tuple[int, int, int, int, int]:
    """(input, read, 5m write, 1h write, output) of one usage dict."""
    if not isinstance(usage, dict):
        raise ValueError(f"{where}: message.usage must be an object, got {usage!r:.60}")
    written = count(
        usage.get("cache_creation_input_tokens"), f"{where} cache_creation_input_tokens"
    )
    split = usage.get("cache_creation")
    if isinstance(split, dict):
        five = count(split.get("ephemeral_5m_input_tokens"), f"{where} ephemeral_5m_input_tokens")
        hour = count(split.get("ephemeral_1h_input_tokens"), f"{where} ephemeral_1h_input_tokens")
        if five + hour != written:  # the split disagrees: trust the total and the 1h part
            hour = min(hour, written)
            five = written - hour
    else:  # versions before the split wrote 5-minute entries only
        five, hour = written, 0
    return (
        count(usage.get("input_tokens"), f"{where} input_tokens"),
        count(usage.get("cache_read_input_tokens"), f"{where} cache_read_input_tokens"),
        five,
        hour,
        count(usage.get("output_tokens"), f"{where} output_tokens"),
    )


class _Session:
    """The threads and segments of one session file, as its lines go by."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.agent_file = path.stem.startswith("agent-")
        self.session: str | None = None
        self.sidechains: dict[str, str] = {}  # line uuid -> sidechain thread name
        self.roots = 0
        self.segment = 0

    def thread(self, line: dict[str, Any], uuid: str | None, parent: str | None) -> str:
        session = self.session or self.path.stem
        if self.agent_file:
            return f"{short(session)}/{self.path.stem}"
        if not line.get("isSidechain"):
            return f"{short(session)}/main"
        name = self.sidechains.get(parent) if parent is not None else None
        if name is None:
            self.roots += 1
            name = f"{short(session)}/sidechain-{self.roots}"
        if uuid is not None:
            self.sidechains[uuid] = name
        return name


def _better(new: Call, old: Call) -> bool:
    if old.sidechain != new.sidechain:
        return not new.sidechain
    return _total(new) > _total(old)


def _total(call: Call) -> int:
    return call.prompt_tokens + call.output_tokens


def read_claude_code(paths: Iterable[Path]) -> Reading:
    """Read Claude Code session files (and their agent files) into one `Reading`.

    Args:
        paths: `.jsonl` files: sessions, `agent-*.jsonl` files, in any order
            (a response saved in two files is one call).

    Raises:
        ValueError: a line that is not a JSON object, or a usage figure that is
            not a whole number >= 0 (the message names the file and line).
    """
    reading = Reading("claude-code")
    keyed: dict[tuple[str, str | None], int] = {}
    for path in paths:
        session = _Session(path)
        for where, line in json_lines(path):
            if not isinstance(line, dict):
                shown = type(line).__name__
                raise ValueError(f"{where}: a line must be a JSON object, got a {shown}")
            _line(line, where, session, reading, keyed)
    return reading


def _line(
    line: dict[str, Any],
    where: str,
    session: _Session,
    reading: Reading,
    keyed: dict[tuple[str, str | None], int],
) -> None:
    kind = line.get("type")
    if session.session is None and isinstance(line.get("sessionId"), str):
        session.session = line["sessionId"]
    uuid = line.get("uuid") if isinstance(line.get("uuid"), str) else None
    parent = line.get("parentUuid") if isinstance(line.get("parentUuid"), str) else None
    if kind == "system" and line.get("subtype") == "compact_boundary":
        session.segment += 1
    if uuid is not None and isinstance(kind, str):
        reading.messages[uuid] = Message(parent, kind, where)
    if kind not in ("user", "assistant", "system"):
        return
    thread = session.thread(line, uuid, parent)
    message = line.get("message")
    if kind != "assistant" or not isinstance(message, dict) or "usage" not in message:
        return
    model = message.get("model")
    if model == "<synthetic>" or line.get("isApiErrorMessage"):
        return
    tokens = _tokens(message["usage"], where)
    call = Call(
        thread=thread,
        timestamp=epoch(line.get("timestamp"), f"{where} timestamp"),
        model=model if isinstance(model, str) else "unknown",
        input_tokens=tokens[0],
        cache_read_input_tokens=tokens[1],
        cache_creation_5m=tokens[2],
        cache_creation_1h=tokens[3],
        output_tokens=tokens[4],
        sidechain=bool(line.get("isSidechain")),
        segment=0 if line.get("isSidechain") else session.segment,
        message=parent,
    )
    reading.lines.append(call)
    ident = message.get("id")
    request = line.get("requestId") if isinstance(line.get("requestId"), str) else None
    if not isinstance(ident, str):
        reading.calls.append(call)
        return
    key = (ident, request)
    index = keyed.get(key)
    if index is None:
        keyed[key] = len(reading.calls)
        reading.calls.append(call)
        return
    old = reading.calls[index]
    if _better(call, old):  # keep where the response began: its time and parent
        reading.calls[index] = _replace_tokens(old, call)


def _replace_tokens(old: Call, new: Call) -> Call:
    return Call(
        thread=new.thread,
        timestamp=old.timestamp,
        model=new.model,
        input_tokens=new.input_tokens,
        cache_read_input_tokens=new.cache_read_input_tokens,
        cache_creation_5m=new.cache_creation_5m,
        cache_creation_1h=new.cache_creation_1h,
        output_tokens=new.output_tokens,
        sidechain=new.sidechain,
        segment=new.segment,
        message=old.message if old.thread == new.thread else new.message,
    )
