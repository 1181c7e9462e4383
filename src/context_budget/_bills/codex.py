"""OpenAI Codex CLI rollouts: `event_msg` `token_count` events, totals cumulative.

Every line is `{timestamp, type, payload}`. Usage comes in `event_msg` lines
whose `payload.type` is `token_count`, at `payload.info.total_token_usage`
(cumulative over the session) and, in newer files, `last_token_usage` (the
last call alone). A call is one rise of the cumulative total: its tokens are
the difference from the previous total (an event that repeats the total is
not a call). `input_tokens` includes the cached ones, so the uncached tail is
`input_tokens - cached_input_tokens`; Codex records no cache writes. The model
is the latest `turn_context` line's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from context_budget._bills.call import Call, Reading
from context_budget._bills.fields import count, epoch, json_lines, short

__all__ = ["KINDS", "read_codex"]

#: The line types a rollout holds; a file whose lines carry these is a rollout.
KINDS = frozenset({"session_meta", "turn_context", "event_msg", "response_item"})
_FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens")


def _totals(usage: Any, where: str) -> tuple[int, int, int]:
    if not isinstance(usage, dict):
        raise ValueError(f"{where}: total_token_usage must be an object, got {usage!r:.60}")
    found = tuple(count(usage.get(name), f"{where} {name}") for name in _FIELDS)
    return found[0], found[1], found[2]


def read_codex(path: Path) -> Reading:
    """Read one Codex rollout into a `Reading` (thread `<session id>/main`).

    Raises:
        ValueError: a line that is not a JSON object, a count that is not a
            whole number >= 0, or a cumulative total that goes down.
    """
    reading = Reading("codex")
    session = path.stem
    model = "unknown"
    last = (0, 0, 0)
    for where, line in json_lines(path):
        payload = line.get("payload") if isinstance(line, dict) else None
        if not isinstance(payload, dict):
            continue
        kind = line.get("type")
        if kind == "session_meta" and isinstance(payload.get("id"), str):
            session = payload["id"]
        elif kind == "turn_context" and isinstance(payload.get("model"), str):
            model = payload["model"]
        elif kind == "event_msg" and payload.get("type") == "token_count":
            info = payload.get("info")
            if not isinstance(info, dict) or info.get("total_token_usage") is None:
                continue
            total = _totals(info["total_token_usage"], f"{where} total_token_usage")
            delta = tuple(now - before for now, before in zip(total, last, strict=True))
            if any(part < 0 for part in delta):
                raise ValueError(f"{where}: total_token_usage went down: {last} -> {total}")
            if not any(delta):
                continue
            last = total
            sent, cached, output = delta
            if cached > sent:
                raise ValueError(f"{where}: more cached tokens ({cached}) than input ({sent})")
            reading.calls.append(
                Call(
                    thread=f"{short(session)}/main",
                    timestamp=epoch(line.get("timestamp"), f"{where} timestamp"),
                    model=model,
                    input_tokens=sent - cached,
                    cache_read_input_tokens=cached,
                    cache_creation_5m=0,
                    cache_creation_1h=0,
                    output_tokens=output,
                )
            )
    reading.lines = list(reading.calls)
    reading.recorded_tokens = dict(zip(_FIELDS, last, strict=True))
    return reading
