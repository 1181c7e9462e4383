"""OpenHands event files: a list of events, each response repeated.

Usage sits at `tool_call_metadata.model_response.usage` (LiteLLM's shape).
The same `model_response` is saved on an action and on its observation, so a
call is keyed on `model_response.id`; the first copy is kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from context_budget._bills.call import Call, Reading
from context_budget._bills.fields import epoch
from context_budget._bills.litellm import litellm_tokens

__all__ = ["is_event_list", "read_openhands"]


def _response(event: Any) -> dict[str, Any] | None:
    metadata = event.get("tool_call_metadata") if isinstance(event, dict) else None
    found = metadata.get("model_response") if isinstance(metadata, dict) else None
    return found if isinstance(found, dict) else None


def is_event_list(data: Any) -> bool:
    """Whether a loaded JSON value looks like OpenHands events."""
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(event, dict) and "source" in event and "id" in event for event in data)
    )


def read_openhands(data: list[Any], path: Path) -> Reading:
    """Read loaded OpenHands events (thread `<file>/main`).

    Raises:
        ValueError: a usage figure that is malformed (naming the event).
    """
    reading = Reading("openhands")
    seen: set[str] = set()
    for index, event in enumerate(data):
        response = _response(event)
        if response is None or not isinstance(response.get("usage"), dict):
            continue
        where = f"{path.name}[{index}]"
        tokens = litellm_tokens(response["usage"], f"{where}.model_response.usage")
        call = Call(
            thread=f"{path.stem}/main",
            timestamp=epoch(event.get("timestamp"), f"{where}.timestamp"),
            model=str(response.get("model", "unknown")),
            input_tokens=tokens[0],
            cache_read_input_tokens=tokens[1],
            cache_creation_5m=tokens[2],
            cache_creation_1h=tokens[3],
            output_tokens=tokens[4],
        )
        reading.lines.append(call)
        ident = response.get("id")
        if isinstance(ident, str):
            if ident in seen:
                continue
            seen.add(ident)
        reading.calls.append(call)
    return reading
