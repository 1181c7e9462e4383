"""The race fix: an agent mending a race in an order service, for Part III.

Two ways to play it offline:

- `opening_script()`: six responses in call order, the fourth being the
  compaction's summary. With a 2,000-token window and ratio 0.7 the lesson's
  counter reads 400, 1,050 and 1,850, compacts at call 4, then reads 280 and
  490. Tool calls have ids `toolu_1`, `toolu_2`, ...
- `simulated_model(rounds)`: a responder for `ScriptedClient` (the
  `race_fix_model` of `context_budget.fakes`) that reads each request and
  reports usage from its size (`estimate_tokens` of the system prompt, the
  tools' JSON and every message), so the counter depends on what the loop
  really sends. It asks for `rounds` tool calls, one per response, then
  finishes; a request that starts with `COMPACT_INSTRUCTION` gets a summary.

`play(...)` runs `run_agent` on the simulated task with fresh notes in a
temporary folder, for the chapter's comparisons and its figure.

Tool results come from `tool_impls(notes)`: `read_file` returns a listing of
the named file (`FILE_LINES` lines), `run_tests` a test report, and
`update_notes` writes the notes. `FINAL_NOTES` is what the script leaves in
NOTES.md.

Examples:
    >>> [r["stop_reason"] for r in opening_script()]
    ['tool_use', 'tool_use', 'tool_use', 'end_turn', 'tool_use', 'end_turn']
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from context_budget.fakes._responders import race_fix_model
from context_budget.fakes.scripted import ScriptedClient, scripted_response
from context_budget.harness import AgentRun, run_agent
from context_budget.notes import NOTES_TOOL, NotesFile

__all__ = [
    "FILE_LINES",
    "FINAL_NOTES",
    "FIRST_NOTES",
    "REPLY",
    "SUMMARY",
    "TASK",
    "TOOLS",
    "opening_script",
    "play",
    "simulated_model",
    "tool_impls",
]

TASK = (
    "Two requests that update the same order at once sometimes lose one of the "
    "updates (order_service.update_status). Find the race and fix it."
)

TOOLS: list[dict[str, Any]] = [
    {
        "name": "read_file",
        "description": "Read a source file of the order service.",
        "input_schema": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
    {
        "name": "run_tests",
        "description": "Run the order service's test suite and report failures.",
        "input_schema": {"type": "object", "properties": {}},
    },
    NOTES_TOOL,
]

FIRST_NOTES = (
    "## Decisions\n"
    "- Fix: optimistic locking, a version column on the orders table\n"
    "## Unresolved\n"
    "- update_status still reads and writes without the version check"
)
FINAL_NOTES = (
    "## Decisions\n"
    "- Fix: optimistic locking, a version column on the orders table\n"
    "## Unresolved\n"
    "- none: the update_status race is closed by the version check"
)
SUMMARY = (
    "The lost update comes from update_status reading an order, then writing it "
    "back without checking that nobody changed it in between. Decided: "
    "optimistic locking with a version column. Done: the migration adding the "
    "column. Left: make update_status compare and bump the version, then rerun "
    "the tests."
)
REPLY = "Added a version column to orders and made update_status check it; the race is fixed."

FILE_LINES = 12  # lines in each file `read_file` returns


def tool_impls(notes: NotesFile) -> dict[str, Callable[[dict[str, Any]], str]]:
    """The task's tool functions: `read_file`, `run_tests` and `update_notes`."""

    def read_file(tool_input: dict[str, Any]) -> str:
        path = tool_input["path"]
        return "\n".join(
            f"{path}:{line:>3}  order = repo.get(order_id)  # line {line}"
            for line in range(1, FILE_LINES + 1)
        )

    def run_tests(tool_input: dict[str, Any]) -> str:
        return "41 passed, 1 failed: test_concurrent_status_updates (lost update)"

    return {"read_file": read_file, "run_tests": run_tests, "update_notes": notes.update_notes}


def _call(number: int, name: str, **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{number}", "name": name, "input": tool_input}


def opening_script() -> list[dict[str, Any]]:
    """The six responses behind the chapter's opening log, in call order.

    Usage (input + output tokens): 350 + 50, 600 + 50, 720 + 80, then the
    summary call 1,900 + 120, then 230 + 50 and 160 + 50.
    """
    return [
        scripted_response(
            "Reading the service first.",
            _call(1, "read_file", path="order_service.py"),
            input_tokens=350,
            output_tokens=50,
        ),
        scripted_response(
            _call(2, "update_notes", content=FIRST_NOTES), input_tokens=600, output_tokens=50
        ),
        scripted_response(_call(3, "run_tests"), input_tokens=720, output_tokens=80),
        scripted_response(SUMMARY, input_tokens=1_900, output_tokens=120),
        scripted_response(
            _call(4, "update_notes", content=FINAL_NOTES), input_tokens=230, output_tokens=50
        ),
        scripted_response(REPLY, input_tokens=160, output_tokens=50),
    ]


def simulated_model(
    rounds: int, *, output_tokens: int = 60, notes_every: int = 3
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A responder that plays the task for `rounds` tool calls, then replies `REPLY`.

    `race_fix_model` with this task's `SUMMARY` and `REPLY`: every
    `notes_every`-th call rewrites the notes, the others read a file or run
    the tests; usage comes from the request's size.
    """
    return race_fix_model(
        rounds, summary=SUMMARY, reply=REPLY, output_tokens=output_tokens, notes_every=notes_every
    )


def play(
    rounds: int,
    *,
    context_window: int,
    compact_ratio: float,
    measure: Literal["accumulated", "window"] = "accumulated",
    notes_in_system: bool = False,
    system: str | None = None,
) -> tuple[AgentRun, list[dict[str, Any]]]:
    """`run_agent` on `simulated_model(rounds)`: the run and every request it sent."""
    client = ScriptedClient(simulated_model(rounds))
    with tempfile.TemporaryDirectory() as folder:
        notes = NotesFile(Path(folder) / "NOTES.md")
        run = run_agent(
            TASK,
            TOOLS,
            tool_impls(notes),
            client=client,
            model="claude-sonnet-5",
            context_window=context_window,
            compact_ratio=compact_ratio,
            notes=notes,
            measure=measure,
            notes_in_system=notes_in_system,
            system=system,
        )
    return run, client.requests
