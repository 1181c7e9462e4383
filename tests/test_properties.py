"""Properties of clearing and compaction over generated conversations.

The generator writes valid Anthropic-format histories (questions, assistant
turns with thinking, text and up to three tool calls, user turns answering every
call with results first, some of them errors, some followed by a question, and
sometimes a trailing pending call), and shorthand ones made of `tool` messages.
A turn is sometimes split across consecutive same-role messages, one block
each (how Claude Code stores a parallel call); blocks and tool inputs hold
nested dicts (`cache_control`, an image's `source`, images inside a result);
a shorthand result is sometimes a list of text blocks. The calibrated counter
gets texts built to break it: nesting thousands deep, odd unicode, long runs.

Each property runs the loaded Hypothesis profile's count of cases (`ci` in the
gate, `soak` in `make soak`; see tests/profiles.py).
"""

from __future__ import annotations

import copy
import math
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from context_budget import (
    SUMMARY_PREFIX,
    ContextOverflowError,
    Layers,
    Message,
    PromptCache,
    budget_report,
    clear_old_tool_results,
    compact,
    estimate_tokens,
    forget_everything,
    keep_numbers,
    message_text,
    message_tokens,
    tool_message,
    validate_history,
)
from context_budget.calibration import (
    KINDS,
    TOKENS_PER_CLASS,
    calibrated_estimate,
    character_classes,
    text_kind,
    with_margin,
)
from context_budget.errors import InvalidRequestError

IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}
EPHEMERAL = {"type": "ephemeral"}

WORDS = ["vanilla 12 tubs", "mint", "Never order mango.", "closing 7 pm", "A-4817: 20 tubs"]


# short texts of about 0 to 150 tokens, some with digits, drawn whole (cheap to generate)
TEXTS = ["\n".join((WORDS[n % 5 :] + WORDS[: n % 5])[: n % 6] * (1 + n % 7)) for n in range(35)]
texts = st.sampled_from(TEXTS)


def _split(draw: st.DrawFn, role: str, blocks: list[dict[str, Any]]) -> list[Message]:
    """One message holding `blocks`, or (sometimes) one message per block."""
    if len(blocks) > 1 and draw(st.integers(0, 2)) == 0:
        return [{"role": role, "content": [block]} for block in blocks]
    return [{"role": role, "content": blocks}]


@st.composite
def anthropic_conversations(draw: st.DrawFn) -> list[Message]:
    messages: list[Message] = []
    pending: list[str] = []  # ids the last assistant turn called
    ids = iter(f"toolu_{n:02}" for n in range(100))
    for _ in range(draw(st.integers(0, 6))):
        if pending:
            blocks: list[dict[str, Any]] = []
            for tool_id in pending:
                content: Any = draw(texts)
                if draw(st.booleans()):
                    content = [{"type": "text", "text": content}]
                    if draw(st.integers(0, 3)) == 0:
                        content.append(copy.deepcopy(IMAGE))
                block = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
                if draw(st.integers(0, 5)) == 0:
                    block["is_error"] = True
                if draw(st.integers(0, 5)) == 0:
                    block["cache_control"] = dict(EPHEMERAL)
                blocks.append(block)
            if draw(st.booleans()):  # the answer to the calls also asks something
                blocks.append({"type": "text", "text": draw(texts)})
            messages += _split(draw, "user", blocks)
        elif draw(st.booleans()):
            messages.append({"role": "user", "content": draw(texts)})
        else:
            text = {"type": "text", "text": draw(texts)}
            if draw(st.integers(0, 3)) == 0:
                text["cache_control"] = dict(EPHEMERAL)
            messages.append({"role": "user", "content": [text], "meta": {"n": [1, {"k": 2}]}})
        turn: list[dict[str, Any]] = []
        if draw(st.integers(0, 3)) == 0:
            turn.append({"type": "thinking", "thinking": draw(texts), "signature": "sig"})
        if draw(st.booleans()):
            turn.append({"type": "text", "text": draw(texts)})
        pending = [next(ids) for _ in range(draw(st.integers(0, 3)))]
        turn += [
            {
                "type": "tool_use",
                "id": tool_id,
                "name": "stock",
                "input": {"q": draw(texts), "options": {"deep": [{"limit": 3}], "flags": []}},
            }
            for tool_id in pending
        ]
        if turn:
            messages += _split(draw, "assistant", turn)
        else:
            messages.append({"role": "assistant", "content": draw(texts)})
    if messages and not pending and draw(st.booleans()):
        messages.append({"role": "user", "content": draw(texts)})
    return messages


@st.composite
def shorthand_conversations(draw: st.DrawFn) -> list[Message]:
    messages: list[Message] = []
    for _ in range(draw(st.integers(0, 6))):
        messages.append({"role": "user", "content": draw(texts)})
        for _ in range(draw(st.integers(0, 2))):
            result = tool_message("stock_level", {"rows": draw(texts).splitlines()})
            if draw(st.integers(0, 3)) == 0:  # a result as a list of text blocks
                result["content"] = [{"type": "text", "text": result["content"]}]
            if draw(st.integers(0, 5)) == 0:
                result["is_error"] = True
            messages.append(result)
        messages.append({"role": "assistant", "content": draw(texts)})
    return messages


def vandal(messages: list[Message]) -> str:
    """A summarizer that edits every dict and list it is given, then summarizes nothing."""
    stack: list[Any] = list(messages)
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
            value["vandal"] = True
        elif isinstance(value, list):
            stack.extend(value)
            value.append("vandal")
    messages.clear()
    return "vandal"


conversations = st.one_of(
    anthropic_conversations(), anthropic_conversations(), shorthand_conversations()
)


@st.composite
def cases(draw: st.DrawFn) -> tuple[Layers, int, Any, bool]:
    """Layers, a budget from 0 to a little over their size, a summarizer, and a mode."""
    pinned = draw(st.lists(st.sampled_from(WORDS), max_size=3))
    layers = Layers(draw(st.sampled_from(["", "s", "You help Lucy."])), pinned, draw(conversations))
    report = budget_report(layers)
    size, fixed = report["total"], report["system"] + report["pinned"]
    cleared = budget_report(
        Layers(layers.system, pinned, clear_old_tool_results(layers.conversation, 2))
    )["total"]
    # any budget, and more often the ones near where each step starts to suffice
    budget = draw(
        st.one_of(
            st.integers(fixed, max(fixed, cleared)),
            st.integers(max(fixed, cleared - 3), cleared + 3),
            st.integers(0, size + 20),
        )
    )
    summarize = draw(st.sampled_from([forget_everything, keep_numbers, vandal]))
    return layers, budget, summarize, draw(st.booleans())


Case = tuple[Layers, int, Any, bool]


def run(
    layers: Layers, budget: int, summarize: Any, single_task: bool = False
) -> Layers | ContextOverflowError:
    try:
        return compact(layers, budget, summarize, single_task=single_task)
    except ContextOverflowError as error:
        return error


@given(cases())
def test_compact_fits_the_budget_or_raises(case: Case) -> None:
    budget = case[1]
    out = run(*case)
    if isinstance(out, ContextOverflowError):
        assert out.budget == budget and out.size > budget
    else:
        assert budget_report(out)["total"] <= budget


def step_one(conversation: list[Message]) -> list[Message]:
    """What step 1 makes of a conversation: each old result cleared where the marker is smaller."""
    return [
        new if message_tokens(new) < message_tokens(old) else old
        for new, old in zip(clear_old_tool_results(conversation, 2), conversation, strict=True)
    ]


@given(cases())
def test_compact_never_raises_when_clearing_alone_would_fit(case: Case) -> None:
    layers, budget, *_ = case
    cleared = budget_report(Layers(layers.system, layers.pinned, step_one(layers.conversation)))
    out = run(*case)
    if budget >= cleared["total"]:
        assert isinstance(out, Layers), out


@given(cases())
def test_compact_never_changes_system_or_pinned(case: Case) -> None:
    layers = case[0]
    out = run(*case)
    if isinstance(out, Layers):
        assert out.system == layers.system and out.pinned == layers.pinned


@given(cases())
def test_compact_leaves_its_input_unchanged(case: Case) -> None:
    snapshot = copy.deepcopy(case[0])
    run(*case)
    assert case[0] == snapshot


@given(cases())
def test_compact_keeps_order_and_a_suffix_of_the_cleared_conversation(
    case: Case,
) -> None:
    layers = case[0]
    out = run(*case)
    if not isinstance(out, Layers):
        return
    conversation = layers.conversation
    cleared = step_one(conversation)
    if out.conversation in (conversation, cleared):
        return
    at = next(i for i, m in enumerate(out.conversation) if m not in cleared)
    head, summary, tail = out.conversation[:at], out.conversation[at], out.conversation[at + 1 :]
    assert summary["role"] == "user" and summary["content"].startswith(SUMMARY_PREFIX)
    assert tail and tail == cleared[len(cleared) - len(tail) :]
    assert head == cleared[: len(head)] and len(head) + len(tail) < len(cleared)
    first = tail[0]
    if case[3]:  # single task: the task and what came before it, then whole rounds
        assert head and head[-1]["role"] == "user" and first["role"] == "assistant"
    else:  # the latest question, unless a kept call pulled the cut back
        assert head == []
        assert first["role"] == "user" or any(
            isinstance(block, dict) and block["type"] == "tool_use" for block in first["content"]
        )


@given(cases())
def test_compact_never_makes_an_orphan(case: Case) -> None:
    layers = case[0]
    assert validate_history(layers.conversation) == []  # the generator writes valid histories
    out = run(*case)
    if isinstance(out, Layers):
        assert validate_history(out.conversation) == []


@given(conversations, st.integers(0, 5))
def test_clearing_keeps_length_roles_order_and_calls(messages: list[Message], keep: int) -> None:
    snapshot = copy.deepcopy(messages)
    out = clear_old_tool_results(messages, keep)
    assert messages == snapshot
    assert [m["role"] for m in out] == [m["role"] for m in messages]
    for old, new in zip(messages, out, strict=True):
        if old["role"] == "assistant":  # calls, thinking and answers are never touched
            assert new == old
        if old["role"] != "tool" and isinstance(old["content"], list):  # blocks keep their place
            assert [(b["type"], b.get("tool_use_id")) for b in new["content"]] == [
                (b["type"], b.get("tool_use_id")) for b in old["content"]
            ]
    assert validate_history(out) == validate_history(messages)
    # only old, ordinary results are cleared; each into a smaller marker; a
    # message that is one result and nothing else loses it exactly when the
    # marker is smaller (with other blocks beside it, the message as a whole
    # must shrink too: found by make soak, seed 2114007886)
    found = [
        (old, a, b)
        for old, new in zip(messages, out, strict=True)
        for a, b in zip(_results(old), _results(new), strict=True)
    ]
    ordinary = [(old, a, b) for old, a, b in found if a.get("is_error") is not True]
    old_results = ordinary[: max(0, len(ordinary) - keep)]
    assert all(a == b for _, a, b in ordinary[len(old_results) :])
    assert all(a == b for _, a, b in found if a.get("is_error") is True)
    for message, a, b in old_results:
        text = message_text({"role": "tool", "content": a.get("content", "")})
        marker = MARKER.format(estimate_tokens(text))
        smaller = estimate_tokens(marker) < estimate_tokens(text)
        if a != b:
            assert smaller and b["content"] == marker
        elif message["role"] == "tool" or len(message["content"]) == 1:
            assert not smaller  # the result is the whole message: nothing else to weigh
    assert sum(map(message_tokens, out)) <= sum(map(message_tokens, messages))


MARKER = "[tool result cleared to save context: {} tokens]"


def _results(message: Message) -> list[dict[str, Any]]:
    """The tool results in a message: itself if shorthand, else its tool_result blocks."""
    if message["role"] == "tool":
        return [message]
    content = message["content"]
    return [b for b in content if b["type"] == "tool_result"] if isinstance(content, list) else []


# the calibrated counter, on text built to break it: deep nesting, odd unicode,
# long runs of one class, lone surrogates
PIECES = ["[", "]", "{", "}", '"a":', "1", "0.5e-3", " ", "  ", "\t", "\n", "\r\n", "word",
          "Müller", "Москва", "東京", "🍦", "\u200d", "\ud800", "ß", "-->", "NaN"]  # fmt: skip
odd_texts = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=60).map("".join),
    st.integers(0, 3000).map(lambda depth: "[" * depth + "]" * depth),
    st.integers(0, 3000).map(lambda depth: '{"k": ' * depth + "0" + "}" * depth),
    st.text(max_size=80),
)


@given(odd_texts, odd_texts)
@example("\u200dNaN", "word")  # the soak's find: the seam unmade the case switch "NaN" ends in
def test_calibrated_counts_are_sane_on_any_text(first: str, second: str) -> None:
    for text in (first, second, first + second):
        assert text_kind(text) in KINDS
        count = calibrated_estimate(text)
        assert (count == 0) == (text == "")
        assert count <= 2 * len(text.encode("utf-8", "surrogatepass"))
        assert with_margin(calibrated_estimate)(text) >= count
    # joining two texts can merge a word or a run at the seam, make the line there
    # one whose words cost extra as a line outside ASCII, and make or unmake a case
    # switch there ("NaN" ends in one, "NaNword" reads as a camelCase seam); nothing more
    whole = calibrated_estimate(first + second)
    parts = calibrated_estimate(first) + calibrated_estimate(second)
    seam = first.split("\n")[-1] + second.split("\n")[0]
    extra = TOKENS_PER_CLASS["non_ascii_line_words"] * character_classes(seam)["words"]
    switches = [character_classes(text)["case_switches"] for text in (first, second)]
    lost = sum(switches) - character_classes(first + second)["case_switches"]
    switch = TOKENS_PER_CLASS["case_switches"]
    assert abs(lost) <= 1
    assert whole <= parts + 2 + math.ceil(extra) + math.ceil(switch * max(-lost, 0))
    assert whole >= parts - 3 - math.ceil(extra) - math.ceil(switch * max(lost, 0))


# The prompt cache over the same generated conversations ---------------------------


def _without_markers(messages: list[Message]) -> list[Message]:
    """A copy with every cache_control marker removed: on blocks and inside tool results."""
    out: list[Message] = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            blocks = []
            for block in content:
                block = {k: v for k, v in block.items() if k != "cache_control"}
                if block["type"] == "tool_result" and isinstance(block.get("content"), list):
                    block["content"] = [
                        {k: v for k, v in inner.items() if k != "cache_control"}
                        for inner in block["content"]
                    ]
                blocks.append(block)
            message = {**message, "content": blocks}
        out.append(message)
    return out


def _mark_inside_results(messages: list[Message], draw: st.DrawFn) -> list[Message]:
    """A copy with markers put, at random, on text blocks inside tool results."""
    out = copy.deepcopy(messages)
    for message in out:
        content = message["content"]
        for block in content if isinstance(content, list) else []:
            inner = block.get("content") if block["type"] == "tool_result" else None
            for item in inner if isinstance(inner, list) else []:
                if item["type"] == "text" and draw(st.booleans()):
                    item["cache_control"] = dict(EPHEMERAL)
    return out


@given(anthropic_conversations(), st.booleans(), st.data())
def test_property_markers_are_not_content_and_the_fields_add_up(
    messages: list[Message], automatic: bool, data: st.DataObject
) -> None:
    """Markers anywhere (tool results included) never change a block's hash or token count;
    a request is either refused with the API's 400 or its three input fields add up."""
    messages = _mark_inside_results(messages, data.draw)
    before = copy.deepcopy(messages)
    for model in ("claude-sonnet-4-6", "claude-haiku-4-5"):
        cache = PromptCache(model, min_tokens=0)
        plain = [(b.key, b.tokens) for b in cache._row({"messages": _without_markers(messages)})]
        request: dict[str, Any] = {"messages": messages}
        if automatic:
            request["cache_control"] = dict(EPHEMERAL)
        try:
            marked = [(b.key, b.tokens) for b in cache._row(request)]
            usage = cache.usage(request)
        except InvalidRequestError as error:  # a marker on an empty text block, or over 4
            assert error.status_code == 400
            continue
        assert marked == plain
        assert usage.prompt_tokens == cache.prompt_tokens(request)
        assert usage.cache_creation_input_tokens == (
            usage.ephemeral_5m_input_tokens + usage.ephemeral_1h_input_tokens
        )
    assert messages == before


@given(anthropic_conversations())
def test_property_a_model_that_strips_old_thinking_never_counts_more(
    messages: list[Message],
) -> None:
    keeps = PromptCache("claude-sonnet-4-6", min_tokens=0).prompt_tokens(messages=messages)
    strips = PromptCache("claude-sonnet-4-5", min_tokens=0).prompt_tokens(messages=messages)
    thinking = sum(
        estimate_tokens(block["thinking"])
        for message in messages
        if isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "thinking"
    )
    assert keeps - thinking <= strips <= keeps
