"""Generated agent histories: the input every benchmark reads.

``generate_history(n)`` returns exactly ``n`` messages in Anthropic's format,
the same list for the same ``n`` and ``seed`` on every run. The history is a
run of turns, each shaped like a real agent's::

    user       "Which flavours sell best on hot days?"              (a question)
    assistant  [text, tool_use t1, (tool_use t2)]                   (one to three calls)
    user       [tool_result t1, (tool_result t2), (text)]           (bulky JSON-ish text)
    ...                                                             (one to four rounds)
    assistant  "Mint and lemon sorbet: 40% of the hot-day sales."   (the answer)

About one result in twenty is an error (``"is_error": true``), and about one
results message in twenty ends with a text block: the user cutting in while the
agent works. The cut at ``n`` can fall anywhere in a turn; a call in the last
message is then pending, which is valid.

``to_langchain(history)`` turns the same history into LangChain messages
(``HumanMessage``, ``AIMessage`` with ``tool_calls``, one ``ToolMessage`` per
result), and ``langchain_counter()`` counts those with the package's estimate
and framing, so ``trim_messages`` is timed on the same text with the same
counter.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any

from context_budget import MESSAGE_OVERHEAD_TOKENS, Message, estimate_tokens

__all__ = ["SEED", "generate_history", "langchain_counter", "to_langchain"]

#: The random seed: one seed, one history per size.
SEED = 20260512

_FLAVOURS = ["vanilla", "mint", "mango", "pistachio", "lemon sorbet", "chocolate", "stracciatella"]
_SUPPLIERS = ["Frostline", "Polar Dairy", "Gelato Bros", "Northcream"]
_QUESTIONS = [
    "How much {flavour} is left in the back freezer?",
    "Which flavours sold best last week, and should I reorder {flavour}?",
    "Compare {supplier}'s price for {flavour} with last month's.",
    "Is freezer {number} holding temperature? The display flickered this morning.",
    "Draft an order for Saturday: we expect about {number} customers.",
    "Did the {supplier} delivery arrive complete?",
]
_TOOLS = ["stock_level", "sales_report", "supplier_prices", "freezer_temps", "order_status"]
_ERRORS = [
    "Error: supplier API timed out after 30 s",
    "Error: freezer sensor {number} not responding",
    "Error: permission denied for order history",
]


def _question(rng: random.Random) -> str:
    return rng.choice(_QUESTIONS).format(
        flavour=rng.choice(_FLAVOURS),
        supplier=rng.choice(_SUPPLIERS),
        number=rng.randint(2, 400),
    )


def _tool_input(rng: random.Random, name: str) -> dict[str, Any]:
    if name == "freezer_temps":
        return {"freezer": rng.randint(1, 6), "hours": rng.choice([6, 12, 24])}
    if name == "order_status":
        return {"order_id": f"ord_{rng.randint(10_000, 99_999)}"}
    return {"flavour": rng.choice(_FLAVOURS), "days": rng.choice([7, 14, 30])}


def _tool_output(rng: random.Random, name: str) -> str:
    """A bulky result: 6 to 60 JSON rows, about 400 to 4,000 characters."""
    rows = [
        {
            "day": f"2026-05-{rng.randint(1, 28):02d}",
            "item": rng.choice(_FLAVOURS),
            "supplier": rng.choice(_SUPPLIERS),
            "qty": rng.randint(0, 120),
            "price_eur": round(rng.uniform(1.5, 9.5), 2),
        }
        for _ in range(rng.randint(6, 60))
    ]
    return json.dumps({"tool": name, "rows": rows})


def _turn(rng: random.Random, counter: list[int]) -> list[Message]:
    """One turn: a question, one to four rounds of calls and results, an answer."""
    messages: list[Message] = [{"role": "user", "content": _question(rng)}]
    for _ in range(rng.randint(1, 4)):
        calls: list[dict[str, Any]] = []
        for _ in range(rng.choices([1, 2, 3], weights=[6, 3, 1])[0]):
            counter[0] += 1
            name = rng.choice(_TOOLS)
            calls.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_{counter[0]:07d}",
                    "name": name,
                    "input": _tool_input(rng, name),
                }
            )
        text = {"type": "text", "text": f"Let me check {len(calls)} thing(s) first."}
        messages.append({"role": "assistant", "content": [text, *calls]})
        results: list[dict[str, Any]] = []
        for call in calls:
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call["id"]}
            if rng.random() < 0.05:
                result["content"] = rng.choice(_ERRORS).format(number=rng.randint(1, 6))
                result["is_error"] = True
            else:
                result["content"] = _tool_output(rng, call["name"])
            results.append(result)
        if rng.random() < 0.05:
            results.append({"type": "text", "text": "Also, keep it short please."})
        messages.append({"role": "user", "content": results})
    answer = f"{rng.choice(_FLAVOURS).capitalize()}: {rng.randint(2, 90)} tubs, order by Friday."
    messages.append({"role": "assistant", "content": [{"type": "text", "text": answer}]})
    return messages


def generate_history(n: int, seed: int = SEED) -> list[Message]:
    """Exactly ``n`` messages of an agent's history, the same for the same seed.

    Example: ``generate_history(3)`` -> [user question, assistant with tool_use
    blocks, user with the matching tool_result blocks].
    """
    if n < 0:
        raise ValueError(f"n must be >= 0 messages, got {n}")
    rng = random.Random(seed)
    counter = [0]  # the last tool_use id number handed out
    messages: list[Message] = []
    while len(messages) < n:
        messages.extend(_turn(rng, counter))
    del messages[n:]
    return messages


def _text_blocks(content: Sequence[dict[str, Any]]) -> str:
    return "\n".join(block["text"] for block in content if block["type"] == "text")


def to_langchain(history: Sequence[Message]) -> list[Any]:
    """The same history as LangChain messages (one ``ToolMessage`` per result)."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    out: list[Any] = []
    for message in history:
        content = message["content"]
        if isinstance(content, str):
            out.append(HumanMessage(content=content))
        elif message["role"] == "assistant":
            calls = [
                {"name": block["name"], "args": block["input"], "id": block["id"]}
                for block in content
                if block["type"] == "tool_use"
            ]
            out.append(AIMessage(content=_text_blocks(content), tool_calls=calls))
        else:
            for block in content:
                if block["type"] == "tool_result":
                    status = "error" if block.get("is_error") else "success"
                    out.append(
                        ToolMessage(
                            content=block["content"],
                            tool_call_id=block["tool_use_id"],
                            status=status,
                        )
                    )
            text = _text_blocks(content)
            if text:
                out.append(HumanMessage(content=text))
    return out


def _compact_json(value: object) -> str:
    # the same spelling context_budget counts a tool_use input in
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def langchain_counter() -> Callable[[list[Any]], int]:
    """A ``trim_messages`` token counter: the package's estimate plus its framing.

    Each LangChain message costs ``estimate_tokens`` of its text plus
    ``MESSAGE_OVERHEAD_TOKENS``, where an ``AIMessage``'s text is its content
    and then each tool call as ``name {compact JSON args}``, one per line: the
    text ``message_text`` gives the matching Anthropic message. A user message
    answering two calls is one message here and two ``ToolMessage`` there, so
    LangChain's total is a few framing tokens higher.
    """

    def count(messages: list[Any]) -> int:
        total = 0
        for message in messages:
            parts = [message.content] if message.content else []
            for call in getattr(message, "tool_calls", ()):
                parts.append(f"{call['name']} {_compact_json(call['args'])}")
            total += estimate_tokens("\n".join(parts)) + MESSAGE_OVERHEAD_TOKENS
        return total

    return count
