"""Message shapes: the shorthand tool message, the text that counts, and bad input."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

import pytest
from conversations import call, result_block, user

from context_budget import (
    Layers,
    budget_report,
    clear_old_tool_results,
    compact,
    forget_everything,
    keep_numbers,
    message_text,
    message_tokens,
    tool_message,
    validate_history,
)


def test_tool_message_is_compact_json_with_sorted_keys() -> None:
    message = tool_message("stock_level", {"vanilla": 12, "mango": [0, 1]})
    assert message == {
        "role": "tool",
        "name": "stock_level",
        "content": '{"mango":[0,1],"vanilla":12}',
    }
    assert json.loads(message["content"]) == {"vanilla": 12, "mango": [0, 1]}


def test_tool_message_rejects_a_payload_that_is_not_json() -> None:
    with pytest.raises(TypeError, match="'stock_level'"):
        tool_message("stock_level", {"when": object()})


@pytest.mark.parametrize(
    ("name", "payload", "words"),
    [
        ("stock", {"level": float("nan")}, "not JSON compliant: nan"),
        ("stock", [float("inf")], "not JSON compliant: inf"),
        ("stock", {"note": "caf\udce9"}, "a string holds a lone surrogate (U+DCE9)"),
        ("st\ud800ck", {}, "a string holds a lone surrogate (U+D800)"),
    ],
    ids=["nan", "inf", "surrogate-payload", "surrogate-name"],
)
def test_tool_message_refuses_what_json_or_utf_8_cannot_carry(
    name: str, payload: object, words: str
) -> None:
    """NaN once came out as the text `NaN`, no JSON at all, and a lone surrogate as a
    message every other function of the package then refused."""
    with pytest.raises(TypeError, match=re.escape(words)):
        tool_message(name, payload)


def test_tool_message_rejects_an_empty_name() -> None:
    with pytest.raises(TypeError, match="''"):
        tool_message("", {})


def test_message_text_covers_every_block_kind() -> None:
    message = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Check the freezer.", "signature": "sig"},
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "t1", "name": "stock", "input": {"b": 1, "a": "x"}},
        ],
    }
    assert message_text(message) == 'Check the freezer.\nLooking.\nstock {"a":"x","b":1}'


def test_tool_result_text_is_its_content_whether_str_or_blocks() -> None:
    as_str = {"role": "user", "content": [result_block("t1", "12 tubs")]}
    as_blocks = {
        "role": "user",
        "content": [
            result_block("t1", [{"type": "text", "text": "12"}, {"type": "text", "text": "tubs"}])
        ],
    }
    assert message_text(as_str) == "12 tubs"
    assert message_text(as_blocks) == "12\ntubs"


def test_an_unknown_block_is_counted_by_its_json_not_for_free() -> None:
    image = {"type": "image", "source": {"type": "base64", "data": "A" * 400}}
    message = {"role": "user", "content": [image]}
    assert "A" * 400 in message_text(message)
    assert message_tokens(message) > 100


def _nested(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = {"x": value}
    return value


# every public function that takes messages checks them, and names the bad one
TAKES_MESSAGES: list[Callable[[list[Any]], object]] = [
    lambda messages: clear_old_tool_results(messages, 2),
    validate_history,
    keep_numbers,
    lambda messages: budget_report(Layers("s", [], messages)),
    lambda messages: compact(Layers("s", [], messages), 10_000, forget_everything),
]

_NAN, _INF = math.nan, math.inf

BAD_THIRD_MESSAGE = [
    ({"role": "user"}, ValueError, "message 3 has no 'content'"),
    ({"content": "hi"}, ValueError, "message 3 has no 'role'"),
    ({"role": "human", "content": "hi"}, ValueError, "message 3 has role 'human'"),
    ({"role": "user", "content": 7}, TypeError, "message 3 has content of type int"),
    (["user", "hi"], TypeError, "message 3 has type list, not dict"),
    ({"role": "user", "content": ["hi"]}, TypeError, "message 3, block 0 has type str, not dict"),
    ({"role": "user", "content": [{"text": "hi"}]}, ValueError, "message 3, block 0 has no 'type'"),
    (
        {"role": "assistant", "content": [{"type": "tool_use", "name": "x", "input": {}}]},
        ValueError,
        r"message 3, block 0 \(tool_use\) has no 'id'",
    ),
    (
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": 5}]},
        TypeError,
        r"message 3, block 0 \(tool_result\) has content of type int",
    ),
    (
        {"role": "user", "content": [{"type": "text", "text": None}]},
        TypeError,
        r"message 3, block 0 \(text\) has 'text' of type NoneType",
    ),
    # break 7: each names the message, the block and what is wrong
    (
        {"role": ["user"], "content": "hi"},
        ValueError,
        r"message 3 has role \['user'\]",
    ),
    (
        {"role": "assistant", "content": [call("t9")["content"][0] | {"input": {"f": {1, 2}}}]},
        TypeError,
        r"message 3 at content\[0\]\.input\.f: a set is not JSON data",
    ),
    (
        {"role": "assistant", "content": [call("t9")["content"][0] | {"input": {"f": b"x"}}]},
        TypeError,
        r"message 3 at content\[0\]\.input\.f: a bytes is not JSON data",
    ),
    # break 6: a string is_error would silently protect the result from clearing
    (
        {"role": "user", "content": [result_block("t1", is_error="false")]},
        TypeError,
        r"message 3, block 0 \(tool_result\) has 'is_error' of type str, not bool",
    ),
    ({"role": "tool", "content": "x", "is_error": 1}, TypeError, "message 3 has 'is_error'"),
    # break 5: a role "tool" message holds one result, never a call
    (
        {"role": "tool", "content": call("t9")["content"]},
        ValueError,
        r"message 3, block 0 has type 'tool_use'; a tool message holds only",
    ),
    # break 1: what the API could not take, refused where it is
    (
        {"role": "assistant", "content": [call("t9")["content"][0] | {"input": {"f": _NAN}}]},
        TypeError,
        r"message 3 at content\[0\]\.input\.f: nan is not JSON data \(JSON has no NaN",
    ),
    (
        {"role": "user", "content": "x", "score": [1.0, -_INF]},
        TypeError,
        r"message 3 at score\[1\]: -inf is not JSON data",
    ),
    (
        {"role": "user", "content": [{"type": "text", "text": "ok \ud800"}]},
        TypeError,
        r"message 3 at content\[0\]\.text: a string holds a lone surrogate \(U\+D800\)",
    ),
    (
        {"role": "user", "content": "x", "extra": _nested(80)},
        TypeError,
        "message 3 at extra.*nested more than 64 levels deep",
    ),
]


@pytest.mark.parametrize("function", TAKES_MESSAGES)
@pytest.mark.parametrize(("bad", "error", "message"), BAD_THIRD_MESSAGE)
def test_every_function_names_the_bad_message(
    function: Callable[[list[Any]], object], bad: Any, error: type[Exception], message: str
) -> None:
    messages = [user("q0"), call("t1"), {"role": "user", "content": [result_block("t1")]}, bad]
    with pytest.raises(error, match=message):
        function(messages)


def test_message_tokens_rejects_a_message_without_content() -> None:
    with pytest.raises(ValueError, match="message has no 'content'"):
        message_tokens({"role": "user"})


def test_a_string_is_not_a_list_of_messages() -> None:
    with pytest.raises(TypeError, match="got str"):
        validate_history("hello")  # type: ignore[arg-type]


def test_forget_everything_reads_no_message_but_wants_a_list() -> None:
    assert forget_everything([{"no role": 1}]) == ""  # never reads a message
    with pytest.raises(TypeError, match="messages must be a list of dicts, got str"):
        forget_everything("not a list")  # type: ignore[arg-type]


def _assistant_input(value: Any) -> dict[str, Any]:
    block = {"type": "tool_use", "id": "t1", "name": "stock", "input": value}
    return {"role": "assistant", "content": [block]}


def test_a_tool_result_inside_a_tool_result_names_the_inner_block() -> None:
    inner = [{"type": "text", "text": "12 tubs"}, result_block("t0")]
    messages = [user("q"), call("t1"), {"role": "user", "content": [result_block("t1", inner)]}]
    with pytest.raises(
        ValueError,
        match=r"^message 2, block 0, content block 1 has type 'tool_result'; a tool result "
        r"holds only \['browser_state', 'document', 'image', 'search_result', 'text', "
        r"'tool_reference'\] blocks$",
    ):
        validate_history(messages)


def test_an_integer_over_the_digit_limit_is_refused_one_under_it_counts() -> None:
    with pytest.raises(
        TypeError,
        match=r"^message 1 at content\[0\]\.input\.n: an integer has more than 4,300 digits$",
    ):
        validate_history([user("q"), _assistant_input({"n": 10**5000})])
    # 4,001 digits: over the quick bit-length test, under the limit; it is data
    under = _assistant_input({"n": 10**4000})
    assert message_tokens(under) == -(-len('stock {"n":1' + "0" * 4000 + "}") // 4) + 5


def test_the_bad_value_is_named_past_floats_nulls_and_booleans() -> None:
    value = {"a": 1.5, "b": None, "c": True, "d": [0.25, False, {"e": {1, 2}}]}
    with pytest.raises(TypeError, match=r"^message at content\[0\]\.input\.d\[2\]\.e: a set"):
        message_tokens(_assistant_input(value))


def test_a_key_that_is_not_a_string_is_named_with_its_dict() -> None:
    with pytest.raises(TypeError, match=r"^message at content\[0\]\.input: a key of type int"):
        message_tokens(_assistant_input({"ok": 1, 7: "seven"}))
    with pytest.raises(TypeError, match=r"^message at the message: a key of type tuple, not str$"):
        message_tokens({"role": "user", "content": "hi", (1, 2): "pair"})


def test_a_key_with_a_lone_surrogate_is_refused_a_non_ascii_key_is_not() -> None:
    with pytest.raises(
        TypeError,
        match=r"^message at content\[0\]\.input: a key: a string holds a lone surrogate "
        r"\(U\+DC80\) at character 1$",
    ):
        message_tokens(_assistant_input({"a\udc80": 1}))
    accented = _assistant_input({"crème": "glacée"})
    assert message_text(accented) == 'stock {"crème":"glacée"}'


def test_a_dict_subclass_is_checked_like_a_dict() -> None:
    # a bug: the values of a dict subclass were never checked, so this set reached
    # json.dumps and message_tokens raised without naming the message
    from collections import OrderedDict

    with pytest.raises(TypeError, match=r"^message at content\[0\]\.input\.f: a set is not JSON"):
        message_tokens(_assistant_input(OrderedDict(f={1, 2})))
    with pytest.raises(TypeError, match=r"^message at content\[0\]\.input: a key of type int"):
        message_tokens(_assistant_input(OrderedDict({1: "one"})))
    good = OrderedDict(flavor="mango", tubs=[1, 2])
    assert message_tokens(_assistant_input(good)) == message_tokens(_assistant_input(dict(good)))


# ---------------------------------------------------------------- every result type the SDK lists

REFERENCE = {"type": "tool_reference", "tool_name": "mcp__ci__run_tests"}
BROWSER = {"type": "browser_state", "tabs": [{"id": "1", "url": "https://example.com"}]}


def _with_result(*content: dict[str, Any]) -> list[dict[str, Any]]:
    return [user("q"), call("t1"), {"role": "user", "content": [result_block("t1", list(content))]}]


def test_a_tool_reference_in_a_result_is_read_and_counted_as_its_json() -> None:
    # a bug: a tool search's result, a tool_reference block, made a real session unreadable
    messages = _with_result(REFERENCE)
    assert validate_history(messages) == []
    text = json.dumps(REFERENCE, sort_keys=True, separators=(",", ":"))
    assert message_text(messages[2]) == text
    assert message_tokens(messages[2]) == -(-len(text) // 4) + 5
    assert message_tokens({"role": "tool", "content": [BROWSER]}) > 5  # a shorthand result too


def test_the_result_types_accepted_are_the_ones_the_sdk_lists() -> None:
    import typing

    types_module = pytest.importorskip("anthropic.types.tool_result_block_param")
    listed = {
        typing.get_args(typing.get_type_hints(block, include_extras=True)["type"])[0]
        for block in typing.get_args(types_module.Content)
    }
    listed = {typing.get_args(kind)[0] if typing.get_args(kind) else kind for kind in listed}
    assert {"text", "image", "document", "search_result", "tool_reference"} <= listed
    for kind in sorted(listed):
        block = {"type": kind, "text": "x"} if kind == "text" else {"type": kind}
        assert validate_history(_with_result(block)) == [], kind
    with pytest.raises(ValueError, match="content block 0 has type 'tool_use'"):
        validate_history(_with_result(call("t0")["content"][0]))


def test_the_prompt_cache_counts_a_tool_reference_like_every_check() -> None:
    from context_budget import PromptCache

    cache = PromptCache("claude-sonnet-4-6")
    as_text = {"type": "text", "text": json.dumps(REFERENCE, sort_keys=True, separators=(",", ":"))}
    tokens = cache.prompt_tokens(messages=_with_result(REFERENCE))
    assert tokens == cache.prompt_tokens(messages=_with_result(as_text))
