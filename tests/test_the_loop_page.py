"""The page's loop and the package's loop take the same decisions on the scripted run.

*The loop that makes room* shows `the_loop`, `run_agent` stripped of its
bookkeeping. Run on the opening script, both must send the same requests (the
same histories, the summarizing call in the same place), count the same
counters and stop on the same reply; and the page links each step of the
package's loop to its reference.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import pytest

from context_budget import (
    NotesFile,
    response_field,
    run_agent,
    should_compact,
    track_usage,
)
from context_budget.fakes import ScriptedClient
from context_budget.harness import AgentLoop
from context_budget.scenarios import race_fix

PAGE = Path(__file__).resolve().parents[1] / "docs" / "harness" / "the-loop.md"
#: The steps of `AgentLoop` the page links to, in the order of the loop.
STEPS = (
    "run",
    "build_request",
    "check_prefix",
    "send",
    "record_usage",
    "run_tools",
    "compaction_due",
    "compact",
)


def _page_loop() -> Any:
    """`the_loop` as the page defines it, from its code block."""
    blocks = re.findall(r"^```python\n(.*?)^```$", PAGE.read_text(encoding="utf-8"), re.M | re.S)
    (block,) = [block for block in blocks if "def the_loop(" in block]
    definition = block.split("\nfresh = ")[0]  # the imports and the function, not the run
    namespace: dict[str, Any] = {
        "race_fix": race_fix,
        "track_usage": track_usage,
        "should_compact": should_compact,
    }
    exec(compile(definition, str(PAGE), "exec"), namespace)
    return namespace["the_loop"]


def _notes() -> NotesFile:
    return NotesFile(Path(tempfile.mkdtemp()) / "NOTES.md")


def test_the_page_s_loop_and_run_agent_send_the_same_requests() -> None:
    page_client = ScriptedClient(race_fix.opening_script())
    counters = _page_loop()(page_client, _notes(), window=2_000, ratio=0.7)
    client = ScriptedClient(race_fix.opening_script())
    notes = _notes()
    run = run_agent(
        race_fix.TASK,
        race_fix.TOOLS,
        race_fix.tool_impls(notes),
        client=client,
        model="claude-sonnet-5",
        context_window=2_000,
        compact_ratio=0.7,
        notes=notes,
    )
    decided = [c.tokens_used if c.kind == "turn" else "compaction" for c in run.calls]
    assert counters == decided == [400, 1050, 1850, "compaction", 280, 490]
    assert page_client.requests == client.requests
    assert response_field(race_fix.opening_script()[-1], "stop_reason") == run.stop_reason


def test_the_comparison_sees_a_loop_that_decides_otherwise() -> None:
    page_client = ScriptedClient(race_fix.opening_script())
    _page_loop()(page_client, _notes(), window=2_000, ratio=0.7)
    client = ScriptedClient(race_fix.opening_script())
    notes = _notes()
    run_agent(
        race_fix.TASK,
        race_fix.TOOLS,
        race_fix.tool_impls(notes),
        client=client,
        model="claude-sonnet-5",
        context_window=2_000,
        compact_ratio=0.95,  # a threshold of 1,900: no summary at all
        notes=notes,
    )
    assert page_client.requests != client.requests


@pytest.mark.parametrize("step", STEPS)
def test_the_page_links_each_step_of_the_loop_to_its_reference(step: str) -> None:
    assert callable(getattr(AgentLoop, step))
    link = f"(../reference/api/harness.md#context_budget.harness.AgentLoop.{step})"
    assert link in PAGE.read_text(encoding="utf-8")
