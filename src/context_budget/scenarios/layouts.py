"""Lucy's day sent turn by turn under five prompt layouts, for `cache_report`.

Each layout builds the requests an agent would send for Lucy's day, one per
user turn (turn `n` carries the day up to and including its `n`-th user
message), with three tool definitions, her system prompt, her four records
and automatic caching (a top-level `cache_control`):

- `"append only"`, the repair: tools in a fixed order, then the fixed system
  prompt, then the records as the first message, then the conversation, which
  only ever grows at its end; the time of each turn goes in that turn's own user message;
- `"timestamp"`: a request id and the time appended to the system prompt;
- `"records last"`: the records placed after the conversation;
- `"tools reordered"`: the tool list rotated by one on every call;
- `"notes in system"`: the notes so far pasted into the system prompt every
  turn (one line per decision made so far, so the system prompt changes).

Shapes: `layout_requests(layout)` -> a list of request dicts, oldest first.

Examples:
    >>> len(layout_requests("append only")), sorted(LAYOUTS)[0]
    (14, 'append only')
"""

from __future__ import annotations

from typing import Any

from context_budget.messages import Message
from context_budget.scenarios.lucy import PINNED, SYSTEM, lucy_day

__all__ = ["BROKEN_LAYOUTS", "LAYOUTS", "MODEL", "TOOLS", "layout_requests"]

#: The model the runs are cached and priced for.
MODEL = "claude-sonnet-4-6"
#: The four layouts that break the cache, in the order the unit shows them.
BROKEN_LAYOUTS = ("timestamp", "records last", "tools reordered", "notes in system")
#: Every layout: the repair first.
LAYOUTS = ("append only", *BROKEN_LAYOUTS)


def _tool(name: str, summary: str, fields: dict[str, str]) -> dict[str, Any]:
    properties = {key: {"type": "string", "description": text} for key, text in fields.items()}
    return {
        "name": name,
        "description": summary,
        "input_schema": {"type": "object", "properties": properties, "required": list(fields)},
    }


#: Three tool definitions, fixed (a few hundred tokens together).
TOOLS: list[dict[str, Any]] = [
    _tool(
        "freezer_count",
        "Count the tubs in the back freezer, the display pans and the dry store. Returns one "
        "row per place, with the flavour, the tubs or the fill level, and the best-before date.",
        {"freezer": "which freezer to count: back, display or both", "note": "why you count"},
    ),
    _tool(
        "sales_log",
        "Read the till's sales since a given time. Returns one row per sale: the time, the "
        "flavour, the scoops and whether it was paid by card or cash.",
        {"since": "the start time, HH:MM on the shop's clock", "till": "which till to read"},
    ),
    _tool(
        "deliveries",
        "List today's deliveries: the delivery id, the number of tubs or boxes, the supplier, "
        "the product and who checked it in. Use it before ordering, never after closing.",
        {"date": "the day, YYYY-MM-DD", "supplier": "only this supplier, or empty for all"},
    ),
]


def _turn_ends(day: list[Message]) -> list[int]:
    """Index just past each user message whose content is text: where a request ends."""
    return [i + 1 for i, message in enumerate(day) if message["role"] == "user"]


def _records_message() -> Message:
    return {"role": "user", "content": "Standing records:\n" + "\n".join(PINNED)}


def _notes(upto: int) -> str:
    # one line per decision so far: turn n has n lines
    return "\n".join(f"- decision {n + 1} noted" for n in range(upto))


def _stamp(number: int) -> str:
    return f"[turn {number}, 10:{number:02} am, request req-{4000 + 37 * number}]"


def layout_requests(layout: str) -> list[dict[str, Any]]:
    """The requests of Lucy's day under one layout, one per user turn.

    Args:
        layout: one of `LAYOUTS`.

    Returns:
        New request dicts (`tools`, `system`, `messages`, `cache_control`),
        oldest first.

    Raises:
        ValueError: an unknown layout.
    """
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    day = lucy_day()
    if layout == "append only":
        # the time rides in each user message as it was first sent, and stays there
        ends = _turn_ends(day)
        for number, end in enumerate(ends):
            day[end - 1] = {
                **day[end - 1],
                "content": f"{day[end - 1]['content']}\n{_stamp(number)}",
            }
    requests = []
    for number, end in enumerate(_turn_ends(day)):
        tools = [dict(tool) for tool in TOOLS]
        system = SYSTEM
        conversation = [dict(message) for message in day[:end]]
        stamp = _stamp(number)
        if layout == "timestamp":
            system = f"{SYSTEM}\n{stamp}"
        if layout == "tools reordered":
            shift = number % len(tools)
            tools = tools[shift:] + tools[:shift]
        if layout == "notes in system":
            system = f"{SYSTEM}\nNotes so far:\n{_notes(number)}"
        if layout == "records last":
            messages = [*conversation, _records_message()]
        else:
            messages = [_records_message(), *conversation]
        requests.append(
            {
                "tools": tools,
                "system": system,
                "messages": messages,
                "cache_control": {"type": "ephemeral"},
            }
        )
    return requests
