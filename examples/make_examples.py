"""Write the sample saved conversations in this folder, the same bytes on every run.

Run from the repository's root::

    .venv/bin/python examples/make_examples.py

Three files, a few KB each, for ``context-budget inspect``:

- ``agent_session.json``: an object with ``system``, ``pinned`` and
  ``conversation``; the conversation is an Anthropic-format agent session
  (``tool_use`` calls answered by ``tool_result`` blocks, one of them an error)
  whose freezer table and sales log are most of its tokens;
- ``lucy_shorthand.json``: a plain list of messages in the lessons' shorthand,
  where a tool result is one message with role ``"tool"`` (``tool_message``);
- ``orphan_result.json``: a history trimmed in the wrong place, so it opens
  with a ``tool_result`` whose call was cut away.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from context_budget import tool_message

HERE = Path(__file__).resolve().parent

FLAVORS = [
    "vanilla",
    "chocolate",
    "strawberry",
    "pistachio",
    "mint",
    "mango",
    "lemon",
    "hazelnut",
    "coffee",
    "coconut",
]
SYSTEM = "You run the counter of Lucy's ice-cream shop. Answer briefly; use the tools for stock."
PINNED = [
    "Never order mango from Frostline.",
    "The shop closes at 7 pm.",
    "Chocolate orders above 10 tubs need Lucy's approval.",
]


def _freezer_table() -> str:
    # one row per freezer and flavor: 3 freezers x 10 flavors
    rows = [
        {"freezer": f"F{f}", "flavor": flavor, "tubs": (3 * f + 7 * i) % 13, "temp_c": -18 - f}
        for f in (1, 2, 3)
        for i, flavor in enumerate(FLAVORS)
    ]
    return json.dumps({"rows": rows}, separators=(",", ":"))


def _sales_log() -> str:
    # one line per sale: time | flavor | tubs
    lines = []
    for sale in range(36):
        hour, minute = 10 + sale // 6, (sale * 10) % 60
        tubs = 1 + sale % 3
        lines.append(f"{hour}:{minute:02d} | {FLAVORS[(sale * 3) % 10]} | {tubs} tubs")
    return "\n".join(lines)


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def _result(call_id: str, content: object, *, error: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": content}
    if error:
        block["is_error"] = True
    return block


def agent_session() -> dict[str, Any]:
    """Lucy's morning with the shop's agent, in Anthropic's message format."""
    delivery = {"id": "A-4817", "status": "delivered", "supplier": "Polar Dairy", "tubs": 20}
    conversation = [
        {"role": "user", "content": "Good morning! How much vanilla and mint is in the freezers?"},
        {
            "role": "assistant",
            "content": [
                _text("Checking the freezers."),
                _call("toolu_01", "freezer_status", {"freezers": ["F1", "F2", "F3"]}),
            ],
        },
        {"role": "user", "content": [_result("toolu_01", _freezer_table())]},
        {"role": "assistant", "content": "Vanilla: 18 tubs in three freezers. Mint: 24 tubs."},
        {"role": "user", "content": "What sold best yesterday?"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "thinking",
                    "thinking": "The sales log for yesterday answers this.",
                    "signature": "c2lnbmVkLWJ5LXRoZS1tb2RlbA==",
                },
                _call("toolu_02", "sales_log", {"date": "2026-09-28"}),
            ],
        },
        {"role": "user", "content": [_result("toolu_02", [_text(_sales_log())])]},
        {"role": "assistant", "content": "Lemon and mango sold best yesterday: 9 tubs each."},
        {"role": "user", "content": "Order 12 tubs of chocolate from Polar Dairy."},
        {
            "role": "assistant",
            "content": "Chocolate orders above 10 tubs need your approval. Approve 12 tubs?",
        },
        {"role": "user", "content": "Approved, go ahead."},
        {
            "role": "assistant",
            "content": [
                _call("toolu_06", "place_order", {"flavor": "chocolate", "tubs": 12}),
            ],
        },
        {"role": "user", "content": [_result("toolu_06", '{"order": "O-310", "tubs": 12}')]},
        {"role": "assistant", "content": "Ordered: O-310, 12 tubs of chocolate."},
        {"role": "user", "content": "Did delivery A-4817 arrive?"},
        {"role": "assistant", "content": [_call("toolu_03", "delivery_status", {"id": "A-4817"})]},
        {
            "role": "user",
            "content": [_result("toolu_03", "supplier API timed out after 30 s", error=True)],
        },
        {
            "role": "assistant",
            "content": [
                _text("The supplier timed out; trying once more."),
                _call("toolu_04", "delivery_status", {"id": "A-4817"}),
            ],
        },
        {"role": "user", "content": [_result("toolu_04", json.dumps(delivery))]},
        {"role": "assistant", "content": "Yes: A-4817 arrived from Polar Dairy with 20 tubs."},
        {
            "role": "user",
            "content": "Put the tasting sign-up sheet by the till. How much strawberry is left?",
        },
        {
            "role": "assistant",
            "content": [_call("toolu_05", "freezer_status", {"flavor": "strawberry"})],
        },
        {"role": "user", "content": [_result("toolu_05", '{"strawberry": 21}')]},
        {"role": "assistant", "content": "The sheet goes by the till. Strawberry: 21 tubs."},
    ]
    return {"system": SYSTEM, "pinned": PINNED, "conversation": conversation}


def lucy_shorthand() -> list[dict[str, Any]]:
    """A shorter day in the lessons' shorthand: tool results are role "tool" messages."""
    stock = {flavor: (5 * i + 3) % 17 for i, flavor in enumerate(FLAVORS)}
    prices = [{"flavor": flavor, "eur_per_tub": 18 + i} for i, flavor in enumerate(FLAVORS)]
    return [
        {"role": "user", "content": "Never order mango from Frostline. How much stock is left?"},
        tool_message("stock_level", stock),
        {"role": "assistant", "content": "Lowest: pistachio 1 tub, vanilla 3. Mango has 11."},
        {"role": "user", "content": "What does Frostline charge this week?"},
        tool_message("supplier_prices", {"supplier": "Frostline", "prices": prices}),
        {"role": "assistant", "content": "Between 18 and 27 euros a tub; mango is 23."},
        {"role": "user", "content": "We close at 7 pm from today. Order 6 tubs of mint."},
        tool_message("place_order", {"flavor": "mint", "order": "O-311", "tubs": 6}),
        {"role": "assistant", "content": "Ordered: O-311, 6 tubs of mint."},
    ]


def orphan_result() -> list[dict[str, Any]]:
    """A history cut between a call and its result: message 0 answers a call no longer there."""
    return [
        {"role": "user", "content": [_result("toolu_07", "vanilla 12 tubs\nmint 9 tubs")]},
        {"role": "assistant", "content": "Vanilla has 12 tubs and mint 9."},
        {"role": "user", "content": "And pistachio?"},
        {
            "role": "assistant",
            "content": [_call("toolu_08", "freezer_status", {"flavor": "pistachio"})],
        },
        {"role": "user", "content": [_result("toolu_08", "pistachio 4 tubs")]},
        {"role": "assistant", "content": "Pistachio: 4 tubs."},
    ]


def build() -> dict[str, str]:
    """File name -> the exact text to write (2-space JSON, a final newline)."""
    files: dict[str, object] = {
        "agent_session.json": agent_session(),
        "lucy_shorthand.json": lucy_shorthand(),
        "orphan_result.json": orphan_result(),
    }
    return {
        name: json.dumps(data, indent=2, ensure_ascii=False) + "\n" for name, data in files.items()
    }


def main(directory: Path = HERE) -> int:
    for name, text in build().items():
        (directory / name).write_text(text, encoding="utf-8")
        print(f"wrote {name} ({len(text.encode('utf-8')):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
