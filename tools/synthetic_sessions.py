"""Write the labelled synthetic sessions under docs/measured/sessions/synthetic/.

No permissively licensed real Claude Code session with a compaction boundary,
and no such Codex rollout, was found; these two files are built from the
fields those formats document, with invented numbers, and say so in every
session id (`synthetic-...`). Deterministic: running this again rewrites the
same bytes (a test checks it). Each record is written as compact JSON, with no
space after a separator, as Claude Code and Codex write theirs.

The Claude Code session's responses carry the API's own diagnosis of a cache
miss where the API would give one (`message.diagnostics.cache_miss_reason`):
the API compares the structure of two requests, so it names the edit and the
compaction (`messages_changed`), says nothing changed where only a lifetime
ran out (`cache_miss_reason: null`), and names `system_changed` on the first
call, as on the first call of a session forked from another, whose new
session id is part of the system prompt.

    python tools/synthetic_sessions.py
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "docs" / "measured" / "sessions" / "synthetic"
SESSION = "synthetic-c0mpact-0000-4000-8000-000000000001"
START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)
MODEL = "claude-sonnet-4-5-20250929"


def _time(seconds: float) -> str:
    return (
        (START + timedelta(seconds=seconds))
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


#: The diagnosis of a request whose structure matches the previous one's: no divergence.
_SAME: dict[str, Any] = {"cache_miss_reason": None}


def _miss(kind: str, missed: int) -> dict[str, Any]:
    """A `diagnostics` object naming where the request diverged, and the tokens after it."""
    return {"cache_miss_reason": {"type": kind, "cache_missed_input_tokens": missed}}


def _jsonl(lines: list[dict[str, Any]]) -> str:
    """Records as JSON Lines, compact (no space after `,` or `:`), as the agents write them."""
    return "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)


class _Writer:
    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.count = 0

    def uuid(self) -> str:
        self.count += 1
        return f"00000000-0000-4000-8000-{self.count:012d}"

    def base(self, parent: str | None, at: float) -> dict[str, Any]:
        return {
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/synthetic/project",
            "sessionId": SESSION,
            "version": "2.0.14",
            "gitBranch": "main",
        } | {"timestamp": _time(at)}

    def user(self, parent: str | None, at: float, text: str, **extra: Any) -> str:
        ident = self.uuid()
        line = self.base(parent, at) | {
            "type": "user",
            "message": {"role": "user", "content": text},
            "uuid": ident,
        }
        self.lines.append(line | extra)
        return ident

    def call(
        self,
        parent: str,
        at: float,
        read: int,
        write: int,
        out: int,
        text: str,
        diagnosis: dict[str, Any] | None = None,
    ) -> str:
        """One response written as two lines (text, then a tool call), as Claude Code does.

        `diagnosis`, where given, is the response's `diagnostics` object.
        """
        number = sum(1 for line in self.lines if line.get("type") == "assistant") // 2 + 1
        message_id = f"msg_synthetic_{number:03d}"
        usage = {
            "input_tokens": 3,
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read,
            "cache_creation": {"ephemeral_5m_input_tokens": write, "ephemeral_1h_input_tokens": 0},
            "service_tier": "standard",
        }
        blocks = [
            {"type": "text", "text": text},
            {
                "type": "tool_use",
                "id": f"toolu_synthetic_{number:03d}",
                "name": "Bash",
                "input": {"command": "make test"},
            },
        ]
        for index, (block, output) in enumerate(zip(blocks, (4, out), strict=True)):
            ident = self.uuid()
            self.lines.append(
                self.base(parent, at + index * 0.5)
                | {
                    "message": {
                        "id": message_id,
                        "type": "message",
                        "role": "assistant",
                        "model": MODEL,
                        "content": [block],
                        "stop_reason": None if index == 0 else "tool_use",
                        "stop_sequence": None,
                        "usage": usage | {"output_tokens": output},
                    }
                    | ({} if diagnosis is None else {"diagnostics": diagnosis}),
                    "requestId": f"req_synthetic_{number:03d}",
                    "type": "assistant",
                    "uuid": ident,
                }
            )
            parent = ident
        return parent

    def result(self, parent: str, at: float, number: int) -> str:
        ident = self.uuid()
        content = [
            {"type": "tool_result", "tool_use_id": f"toolu_synthetic_{number:03d}", "content": "ok"}
        ]
        self.lines.append(
            self.base(parent, at)
            | {"type": "user", "message": {"role": "user", "content": content}, "uuid": ident}
        )
        return ident


def claude_code() -> list[dict[str, Any]]:
    """A main chain of 10 calls: a 12-minute pause, an edit, a compaction, a 24-minute pause."""
    w = _Writer()
    head = w.user(None, 0, "Fix the failing date parser test.")
    forked = _miss("system_changed", 12_000)
    a1 = w.call(
        head, 2, read=0, write=12_000, out=180, text="Let me run the tests.", diagnosis=forked
    )
    a2 = w.call(w.result(a1, 20, 1), 22, read=12_000, write=1_500, out=150, text="Reading it.")
    a3 = w.call(w.result(a2, 40, 2), 42, read=13_500, write=800, out=160, text="Found it.")
    # a pause of twelve minutes: the 5-minute entries are gone
    a4 = w.call(
        w.result(a3, 60, 3), 780, read=0, write=14_600, out=120, text="Back to it.", diagnosis=_SAME
    )
    w.call(w.result(a4, 800, 4), 802, read=14_600, write=900, out=140, text="Patching.")
    # the user rewinds and edits their message after call 2: the history changes in the middle
    edit = w.user(a2, 840, "Actually, fix the time zone test first.")
    edited = _miss("messages_changed", 2_000)
    a6 = w.call(
        edit, 842, read=11_000, write=2_000, out=170, text="Switching to it.", diagnosis=edited
    )
    a7 = w.call(w.result(a6, 870, 6), 872, read=13_000, write=700, out=150, text="Done.")
    boundary = w.uuid()
    w.lines.append(
        w.base(None, 900)
        | {
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "uuid": boundary,
            "logicalParentUuid": a7,
            "level": "info",
            "compactMetadata": {"trigger": "manual", "preTokens": 13_703},
        }
    )
    summary = w.user(
        boundary,
        901,
        "This session is being continued from a previous conversation.",
        isCompactSummary=True,
    )
    compacted = _miss("messages_changed", 3_000)
    a8 = w.call(
        summary, 905, read=11_000, write=3_000, out=200, text="Continuing.", diagnosis=compacted
    )
    a9 = w.call(w.result(a8, 930, 8), 932, read=14_000, write=500, out=130, text="Testing.")
    # a pause of twenty-four minutes
    w.call(
        w.result(a9, 950, 9),
        2_400,
        read=0,
        write=14_600,
        out=110,
        text="All green.",
        diagnosis=_SAME,
    )
    return w.lines


def codex() -> list[dict[str, Any]]:
    """A rollout of 4 calls; one repeated token_count; old-style (totals only) and new-style."""
    lines: list[dict[str, Any]] = []

    def add(at: float, kind: str, payload: dict[str, Any]) -> None:
        lines.append({"timestamp": _time(at), "type": kind, "payload": payload})

    add(
        0,
        "session_meta",
        {
            "id": "synthetic-c0dex-0000-4000-8000-000000000002",
            "timestamp": _time(0),
            "cwd": "/synthetic/project",
            "originator": "codex_cli_rs",
            "cli_version": "0.40.0",
        },
    )
    add(
        0.1,
        "turn_context",
        {
            "cwd": "/synthetic/project",
            "approval_policy": "on-request",
            "model": "gpt-5-codex",
            "effort": "medium",
        },
    )
    add(
        0.2,
        "response_item",
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "Fix the parser."}],
        },
    )
    total = {
        "input_tokens": 0,
        "cached_input_tokens": 0,
        "output_tokens": 0,
        "reasoning_output_tokens": 0,
        "total_tokens": 0,
    }
    for number, (sent, cached, out, with_last) in enumerate(
        [
            (9_000, 0, 400, False),
            (10_200, 8_960, 350, False),
            (11_000, 10_112, 500, True),
            (12_400, 10_880, 300, True),
        ],
        1,
    ):
        last = {
            "input_tokens": sent,
            "cached_input_tokens": cached,
            "output_tokens": out,
            "reasoning_output_tokens": out // 2,
            "total_tokens": sent + out,
        }
        total = {key: total[key] + last[key] for key in total}
        info: dict[str, Any] = {"total_token_usage": dict(total), "model_context_window": 272_000}
        if with_last:
            info["last_token_usage"] = last
        add(
            number * 10.0,
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "arguments": '{"command":["ls"]}',
                "call_id": f"call_{number}",
            },
        )
        add(number * 10.0 + 1, "event_msg", {"type": "token_count", "info": info})
        if number == 2:  # Codex repeats a token_count with unchanged totals (rate-limit updates)
            add(number * 10.0 + 2, "event_msg", {"type": "token_count", "info": info})
    add(50, "event_msg", {"type": "task_complete", "last_agent_message": "Fixed."})
    return lines


def files() -> dict[str, str]:
    """File name -> its text."""
    return {
        f"{SESSION}.jsonl": _jsonl(claude_code()),
        "rollout-2026-03-02T09-00-00-synthetic.jsonl": _jsonl(codex()),
    }


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in files().items():
        (OUT / name).write_text(text, encoding="utf-8")
        print(OUT / name)
