"""This package's own two shapes: a list of messages, and layers.

- `"messages"`: a JSON list of messages in this package's shapes (the
  `messages` module), the conversation alone;
- `"layers"`: a JSON object `{"system": str, "pinned": [str, ...],
  "conversation": [message, ...]}`, where `system` and `pinned` may be left out.

Neither records usage: their sessions have no calls.
"""

from __future__ import annotations

from context_budget.layers import Layers
from context_budget.sessions.session import Session, checked_layers
from context_budget.sessions.text import kind_of

__all__ = ["is_layers", "read_layers", "read_messages"]

_TOP_KEYS = ("system", "pinned", "conversation")


def is_layers(data: object) -> bool:
    """True for an object that is not OpenAI's `{"messages": [...]}`."""
    return isinstance(data, dict) and ("messages" not in data or "conversation" in data)


def read_messages(data: object, name: str = "") -> Session:
    """A list of this package's messages as a `Session`; ValueError for anything else."""
    if not isinstance(data, list):
        raise ValueError(f"expected a list of messages, found {kind_of(data)}")
    return Session("messages", checked_layers(Layers("", [], data)), files=_files(name))


def read_layers(data: object, name: str = "") -> Session:
    """A layers object as a `Session`; ValueError names an unknown or missing key."""
    if not isinstance(data, dict):
        raise ValueError(
            f"expected an object with system, pinned and conversation, found {kind_of(data)}"
        )
    unknown = sorted(str(key) for key in data if key not in _TOP_KEYS)
    if unknown:
        raise ValueError(
            f"unexpected key {unknown[0]!r} in the top-level object "
            "(expected system, pinned, conversation)"
        )
    if "conversation" not in data:
        raise ValueError("the top-level object has no 'conversation'")
    layers = Layers(data.get("system", ""), data.get("pinned", []), data["conversation"])
    return Session("layers", checked_layers(layers), files=_files(name))


def _files(name: str) -> tuple[str, ...]:
    return (name,) if name else ()
