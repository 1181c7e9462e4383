"""The small responders of the race-fix and cache-chapter runs.

A responder is a function of one request (the keyword arguments of
`messages.create`) that returns what the model says; each of these keeps a
count of the calls it has answered and never runs out.

- `race_fix_model(rounds, summary=..., reply=...)`: for `ScriptedClient`.
  It reports usage from the request's size (`request_tokens`), so the
  loop's counter depends on what the loop really sends. It asks for `rounds`
  tool calls, one a response, then replies; a request whose first message
  starts with `COMPACT_INSTRUCTION` gets `summary`.
- `one_read_per_call(reads, ...)`: for `EmulatedClient`, which works out the
  usage itself. It asks for one `read_report` a call, `reads` times, then
  answers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from context_budget.fakes.scripted import scripted_response
from context_budget.harness import COMPACT_INSTRUCTION
from context_budget.messages import Message, message_text
from context_budget.tokens import estimate_tokens, message_tokens

__all__ = ["one_read_per_call", "race_fix_model", "request_tokens"]


def request_tokens(request: dict[str, Any]) -> int:
    """The estimated prompt of a request: system prompt, tools' JSON and messages, in tokens."""
    messages: list[Message] = request.get("messages", [])
    system = request.get("system", "")
    tools = json.dumps(request.get("tools", []), separators=(",", ":"))
    size = sum(message_tokens(m) for m in messages)
    return (
        size
        + (estimate_tokens(system) if system else 0)
        + (estimate_tokens(tools) if request.get("tools") else 0)
    )


def _is_compaction(request: dict[str, Any]) -> bool:
    messages = request.get("messages", [])
    return bool(messages) and message_text(messages[0]).startswith(COMPACT_INSTRUCTION)


def _call(number: int, name: str, **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{number}", "name": name, "input": tool_input}


def race_fix_model(
    rounds: int, *, summary: str, reply: str, output_tokens: int = 60, notes_every: int = 3
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A responder that plays the race fix for `rounds` tool calls, then replies.

    Every `notes_every`-th call rewrites the notes with `update_notes` (a
    line longer each time); the others `read_file` a file or `run_tests`.
    Tool calls have ids `toolu_1`, `toolu_2`, ... Usage: `input_tokens` is
    `request_tokens(request)`, `output_tokens` is `output_tokens` (the
    summary's own estimate for a compaction request).
    """
    done = 0

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        nonlocal done
        size = request_tokens(request)
        if _is_compaction(request):
            return scripted_response(
                summary, input_tokens=size, output_tokens=estimate_tokens(summary)
            )
        done += 1
        if done > rounds:
            return scripted_response(reply, input_tokens=size, output_tokens=output_tokens)
        if done % notes_every == 0:
            lines = "\n".join(f"- step {k}: checked" for k in range(1, done + 1))
            call = _call(done, "update_notes", content=f"## Progress\n{lines}")
        elif done % 2:
            call = _call(done, "read_file", path=f"orders/part_{done}.py")
        else:
            call = _call(done, "run_tests")
        return scripted_response(call, input_tokens=size, output_tokens=output_tokens)

    return respond


def one_read_per_call(
    reads: int, *, answer: str, output_tokens: int
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A responder for `EmulatedClient`: `read_report` for reports 0 to `reads - 1`, then `answer`.

    Each call's tool use has the id `toolu_NN` (`NN` the report's number, two
    digits) and the input `{"n": NN}`; every reply reports `output_tokens`.
    """
    answered = 0

    def reply(request: dict[str, Any]) -> dict[str, Any]:
        nonlocal answered
        n, answered = answered, answered + 1
        if n >= reads:
            return {"content": answer, "output_tokens": output_tokens}
        use = {"type": "tool_use", "id": f"toolu_{n:02d}", "name": "read_report", "input": {"n": n}}
        return {"content": [use], "output_tokens": output_tokens}

    return reply
