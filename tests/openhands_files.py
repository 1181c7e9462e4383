"""The real OpenHands files the tests read, named once: an evaluation output (an instance a
line) and a conversation folder as OpenHands 1.x saves it."""

from __future__ import annotations

from pathlib import Path

__all__ = ["CONVERSATION", "EVALUATION"]

_TRANSCRIPTS = Path(__file__).resolve().parent / "fixtures" / "transcripts"
#: OpenHands' example output of a Multi-SWE-bench run: three instances.
EVALUATION = _TRANSCRIPTS / "openhands" / "output.jsonl"
#: A three-call conversation: `base_state.json` and its `events/`.
CONVERSATION = _TRANSCRIPTS / "openhands-conversation" / "cd94562403b9487ebdd4018e3f531dfd"
