"""The report as plain data: what `inspect` prints, before it is turned into text.

`build_report` gives one dict, printed as is by `--json` and as text by `render_report`;
every count is in tokens, framing included, and every share is a fraction of
the context's total rounded to 4 places. Its keys:

- `file` (the path as given, the first one when several are), `files` (every
  file read, the session first; just `file` for one file), `format` (one of
  `FORMATS` but `"auto"`), `detected` (True when `--format auto` chose it),
  `skipped_records` (records or events that are not messages), `skipped`
  (each line the read left out, a live session's half-written last line, as
  `{"kind", "file", "line", "reason"}`, the bill's `skipped` rows), `counter`
  (`"estimate"` or `"qwen"`), `shape` (`"list"`, `"object"` or `"lines"`),
  `messages` (of the main conversation, the one every other figure is about),
  `pinned_records`;
- `threads`: the sub-agents' conversations, kept out of the main one (Claude
  Code only; else empty), each `{"name", "description", "file", "messages",
  "tokens", "broken_pairs"}`, its tokens its messages' own, framing included,
  its `file` None when it was read from the one file given;
- `segments`: the main conversation cut at its compaction boundaries, each
  `{"first", "messages", "tokens", "line", "trigger", "pre_tokens"}`: the
  index of its first message, its size, and for all but the first the
  boundary's line in the file, what triggered it and the tokens before it as
  the file records them (None when it does not); one segment without a
  compaction;
- `final`: None, or a run's final output, which is not a turn (a
  mini-swe-agent trajectory's exit message): `{"status", "characters",
  "tokens"}`;
- `layers`: `{"system", "pinned", "conversation", "total"}`, in tokens;
- `largest`: at most `LARGEST` rows, most tokens first, ties in order, each
  `{"index", "role", "kind", "tools", "tokens", "share"}`;
- `tool_results`: `{"count", "tokens", "share", "by_tool"}`, the tokens of
  the results' content alone; `by_tool` rows are `{"tool", "count", "tokens",
  "share"}`;
- `history`: `[{"index", "tool_use_id", "problem"}]`;
- `undercount`: True when the counter is the estimate and the text is heavy
  in digits, punctuation and line breaks (`dense_share`, the share of
  characters that are not letters or spaces, is at least `DENSE_SHARE`), as
  JSON, code and logs are, where the estimate counts too few;
- `budget`: None without `--budget`, else `{"budget", "total", "fits",
  "clearing", "compaction", "single_task", "smallest"}`, where `clearing`
  is `{"keep_last", "cleared", "freed", "total", "fits"}`, `compaction` (the
  default) and `single_task` (None unless the default cannot fit) are
  `{"summarizer", "fits", "step", "first", "summarized", "freed", "total",
  "error"}`, and `smallest` is the smallest budget, in tokens, that
  compaction reaches for this file in either mode.

Each message is counted once per run: the sizes found for the layer table are
the ones clearing, compaction and the tables reuse.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from context_budget._blocks import checked_message_text, result_text, tool_results
from context_budget._clearing import Clearing, clear_results
from context_budget._counting import count_text, fixed_layer_tokens, message_sizes
from context_budget.compaction import KEEP_TOOL_RESULTS, compact_with_record
from context_budget.errors import ContextOverflowError
from context_budget.history import validate_history
from context_budget.layers import Layers
from context_budget.messages import Message
from context_budget.sessions import Session
from context_budget.sessions.skips import Skip
from context_budget.summarizers import keep_numbers
from context_budget.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter

#: How many messages the "largest" table lists.
LARGEST = 10
#: The share of characters other than letters and spaces (digits, punctuation,
#: line breaks) from which the estimate likely undercounts.
DENSE_SHARE = 0.15

_WORDS = re.compile(r"(?:[^\W\d_]| )+")  # runs of letters and spaces
_SHAPES = {
    "messages": "list",
    "layers": "object",
    "claude-code": "lines",
    "codex": "lines",
    "mini-swe-agent": "object",
    "openhands": "list",
    "openai": "list",
}


def _share(part: int, total: int) -> float:
    """`part / total` as a fraction rounded to 4 places (0.0 for an empty context)."""
    return round(part / total, 4) if total else 0.0


def _call_names(conversation: Sequence[Message]) -> dict[str, str]:
    # tool_use id -> tool name, over the whole conversation
    return {
        block["id"]: block["name"]
        for message in conversation
        if isinstance(message["content"], list) and message["role"] != "tool"
        for block in message["content"]
        if block["type"] == "tool_use"
    }


def _shorthand_name(message: Message) -> str:
    """The tool a role "tool" message reports on; its `name` is optional."""
    name = message.get("name")
    return name if isinstance(name, str) and name else "(unnamed)"


def _kind(message: Message) -> str:
    """What a message holds: `text`, `tool_result`, or block types joined by `+`.

    Example: [text, tool_use] -> "text+tool_use"; role "tool" -> "tool_result".
    """
    if message["role"] == "tool":
        return "tool_result"
    content = message["content"]
    if isinstance(content, str):
        return "text"
    kinds = list(dict.fromkeys(block["type"] for block in content))
    return "+".join(kinds) if kinds else "empty"


def _tools_of(message: Message, names: dict[str, str]) -> list[str]:
    """Names of the tools a message calls or answers, first seen first."""
    if message["role"] == "tool":
        return [_shorthand_name(message)]
    content = message["content"]
    if isinstance(content, str):
        return []
    tools = []
    for block in content:
        if block["type"] == "tool_use":
            tools.append(block["name"])
        elif block["type"] == "tool_result":
            tools.append(names.get(block["tool_use_id"], "(no call)"))
    return list(dict.fromkeys(tools))


def _result_rows(
    conversation: Sequence[Message],
    sizes: Sequence[int],
    names: dict[str, str],
    counter: TokenCounter,
) -> list[tuple[int, int | None, str, int]]:
    """(message index, block index, tool name, tokens of the result's content), in order.

    A result alone in its message has the message's text, so its tokens are
    the message's size less the framing, not counted again.
    """
    rows: list[tuple[int, int | None, str, int]] = []
    for result in tool_results(conversation):
        message = conversation[result.message]
        alone = result.block is None or len(message["content"]) == 1
        if alone:
            tokens = sizes[result.message] - MESSAGE_OVERHEAD_TOKENS
        else:
            tokens = count_text(result_text(result.content), counter)
        if result.block is None:
            tool = _shorthand_name(message)
        else:
            tool = names.get(message["content"][result.block]["tool_use_id"], "(no call)")
        rows.append((result.message, result.block, tool, tokens))
    return rows


def _dense_share(layers: Layers, conversation: Sequence[Message]) -> float:
    """The share of the context's characters that are neither letters nor spaces."""
    texts = [layers.system, *layers.pinned, *(checked_message_text(m) for m in conversation)]
    characters = sum(map(len, texts))
    dense = sum(len(_WORDS.sub("", text)) for text in texts)
    return round(dense / characters, 4) if characters else 0.0


def _outcome(
    layers: Layers,
    budget: int,
    counter: TokenCounter,
    sizes: Sequence[int],
    clearing: Clearing,
    total: int,
    fixed_tokens: tuple[int, int],
    *,
    single_task: bool,
) -> dict[str, Any]:
    outcome: dict[str, Any] = {
        "summarizer": "keep_numbers",
        "fits": False,
        "step": None,
        "first": None,
        "summarized": None,
        "freed": None,
        "total": None,
        "error": None,
    }
    try:
        done = compact_with_record(
            layers,
            budget,
            keep_numbers,
            counter,
            single_task=single_task,
            sizes=sizes,
            clearing=clearing,
            fixed_tokens=fixed_tokens,
        )
    except ContextOverflowError as error:
        outcome["error"] = str(error)
        return outcome
    outcome.update(
        fits=True,
        step=done.step,
        first=done.summarized.start if done.step == 2 else None,
        summarized=len(done.summarized),
        freed=total - done.size,
        total=done.size,
    )
    return outcome


def _smallest(
    layers: Layers,
    fixed_tokens: tuple[int, int],
    counter: TokenCounter,
    sizes: Sequence[int],
    clearing: Clearing,
) -> int:
    """The smallest size, in tokens, compaction reaches in either mode."""
    reached = []
    for single_task in (False, True):
        try:
            done = compact_with_record(
                layers,
                sum(fixed_tokens),
                keep_numbers,
                counter,
                single_task=single_task,
                sizes=sizes,
                clearing=clearing,
                fixed_tokens=fixed_tokens,
            )
        except ContextOverflowError as error:
            reached.append(error.size)
        else:
            reached.append(done.size)
    return min(reached)


def _budget_section(
    layers: Layers,
    budget: int,
    counter: TokenCounter,
    sizes: Sequence[int],
    fixed_tokens: tuple[int, int],
    result_tokens: dict[tuple[int, int | None], int],
) -> dict[str, Any]:
    total = sum(fixed_tokens) + sum(sizes)
    clearing = clear_results(layers.conversation, KEEP_TOOL_RESULTS, counter, sizes, result_tokens)
    after = total - sum(sizes[index] - size for index, size in clearing.sizes.items())
    args = (layers, budget, counter, sizes, clearing, total, fixed_tokens)
    default = _outcome(*args, single_task=False)
    single = _outcome(*args, single_task=True) if not default["fits"] else None
    return {
        "budget": budget,
        "total": total,
        "fits": total <= budget,
        "clearing": {
            "keep_last": KEEP_TOOL_RESULTS,
            "cleared": clearing.cleared,
            "freed": total - after,
            "total": after,
            "fits": after <= budget,
        },
        "compaction": default,
        "single_task": single,
        "smallest": _smallest(layers, fixed_tokens, counter, sizes, clearing),
    }


def _threads(transcript: Session, counter: TokenCounter) -> list[dict[str, Any]]:
    return [
        {
            "name": thread.name,
            "description": thread.description,
            "file": thread.file or None,
            "messages": len(thread.messages),
            "tokens": sum(message_sizes(thread.messages, counter)),
            "broken_pairs": len(validate_history(thread.messages)),
        }
        for thread in transcript.threads
    ]


def _segments(transcript: Session, sizes: Sequence[int]) -> list[dict[str, Any]]:
    """The main conversation's segments, cut at the compaction boundaries (none if empty)."""
    starts = [boundary for boundary in transcript.boundaries if 0 < boundary.index < len(sizes)]
    firsts = [0, *(boundary.index for boundary in starts)]
    stops = [*firsts[1:], len(sizes)]
    segments = []
    for number, (first, stop) in enumerate(zip(firsts, stops, strict=True)):
        boundary = starts[number - 1] if number else None
        segments.append(
            {
                "first": first,
                "messages": stop - first,
                "tokens": sum(sizes[first:stop]),
                "line": boundary.line if boundary else None,
                "trigger": boundary.trigger if boundary else None,
                "pre_tokens": boundary.pre_tokens if boundary else None,
            }
        )
    return segments if sizes else []


def _final(transcript: Session, counter: TokenCounter) -> dict[str, Any] | None:
    final = transcript.final
    if final is None:
        return None
    return {
        "status": final.status,
        "characters": len(final.text),
        "tokens": count_text(final.text, counter),
    }


def _largest(
    conversation: Sequence[Message], sizes: Sequence[int], total: int, names: dict[str, str]
) -> list[dict[str, Any]]:
    """The `LARGEST` largest messages, most tokens first, ties in order (`largest` rows)."""
    order = sorted(range(len(conversation)), key=lambda i: (-sizes[i], i))
    return [
        {
            "index": i,
            "role": conversation[i]["role"],
            "kind": _kind(conversation[i]),
            "tools": _tools_of(conversation[i], names),
            "tokens": sizes[i],
            "share": _share(sizes[i], total),
        }
        for i in order[:LARGEST]
    ]


def _tool_results(
    results: Sequence[tuple[int, int | None, str, int]], total: int
) -> dict[str, Any]:
    """The `tool_results` section: how many, their tokens and share, and by tool (most
    tokens first, then by name)."""
    by_tool: dict[str, list[int]] = {}  # tool name -> [results, tokens]
    for _, _, tool, tokens in results:
        count = by_tool.setdefault(tool, [0, 0])
        count[0] += 1
        count[1] += tokens
    result_tokens = sum(tokens for *_, tokens in results)
    return {
        "count": len(results),
        "tokens": result_tokens,
        "share": _share(result_tokens, total),
        "by_tool": [
            {"tool": tool, "count": count, "tokens": tokens, "share": _share(tokens, total)}
            for tool, (count, tokens) in sorted(by_tool.items(), key=lambda t: (-t[1][1], t[0]))
        ],
    }


def build_report(
    transcript: Session,
    path: str,
    counter_name: str,
    counter: TokenCounter,
    budget: int | None,
    skipped: Sequence[Skip] = (),
) -> dict[str, Any]:
    """The whole report as plain data; the text form and `--json` both print this.
    `skipped`: what the read left out (a live session's half-written last line)."""
    layers = transcript.layers
    conversation = layers.conversation
    system, pinned = fixed_layer_tokens(layers, counter)
    sizes = message_sizes(conversation, counter)  # message index -> tokens, counted once
    total = system + pinned + sum(sizes)
    names = _call_names(conversation)
    results = _result_rows(conversation, sizes, names, counter)
    dense = _dense_share(layers, conversation)
    shape = _SHAPES[transcript.format]
    return {
        "file": path,
        "files": list(transcript.files) or [path],
        "format": transcript.format,
        "detected": transcript.detected,
        "skipped_records": transcript.skipped,
        "skipped": [asdict(skip) for skip in skipped],
        "counter": counter_name,
        "shape": shape,
        "messages": len(conversation),
        "pinned_records": len(layers.pinned),
        "threads": _threads(transcript, counter),
        "segments": _segments(transcript, sizes),
        "final": _final(transcript, counter),
        "layers": {
            "system": system,
            "pinned": pinned,
            "conversation": total - system - pinned,
            "total": total,
        },
        "largest": _largest(conversation, sizes, total, names),
        "tool_results": _tool_results(results, total),
        "history": [
            {"index": p.index, "tool_use_id": p.tool_use_id, "problem": p.problem}
            for p in validate_history(conversation)
        ],
        "dense_share": dense,
        "undercount": counter_name == "estimate" and dense >= DENSE_SHARE,
        "budget": None
        if budget is None
        else _budget_section(
            layers,
            budget,
            counter,
            sizes,
            (system, pinned),
            {(index, block): tokens for index, block, _, tokens in results},
        ),
    }
