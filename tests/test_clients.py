"""The scripted client and the response accessor: what was sent stays sent."""

from __future__ import annotations

import copy
import re
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from profiles import cases

from context_budget import ScriptExhaustedError, content_blocks, response_field
from context_budget.fakes import ScriptedClient, scripted_response


def _reply(text: str) -> dict[str, object]:
    return scripted_response(text, input_tokens=10, output_tokens=2)


def test_responses_come_back_in_call_order() -> None:
    client = ScriptedClient([_reply("one"), _reply("two")])
    first = client.messages.create(model="m", max_tokens=8, messages=[])
    second = client.messages.create(model="m", max_tokens=8, messages=[])
    assert [content_blocks(first)[0]["text"], content_blocks(second)[0]["text"]] == ["one", "two"]


def test_requests_are_deep_copies_that_later_edits_cannot_rewrite() -> None:
    client = ScriptedClient([_reply("one")])
    history = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    client.messages.create(model="m", max_tokens=8, messages=history)
    history[0]["content"][0]["text"] = "edited"
    history.append({"role": "assistant", "content": "late"})
    assert client.requests == [
        {
            "model": "m",
            "max_tokens": 8,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        }
    ]


def test_a_response_handed_out_cannot_edit_the_script() -> None:
    script = [_reply("one")]
    client = ScriptedClient(script)
    client.messages.create(model="m", max_tokens=8, messages=[])["content"].clear()
    assert script[0]["content"] == [{"type": "text", "text": "one"}]


def test_exhaustion_says_how_many_were_scripted_and_which_call_asked() -> None:
    client = ScriptedClient([_reply("one"), _reply("two")])
    for _ in range(2):
        client.messages.create(model="m", max_tokens=8, messages=[])
    with pytest.raises(ScriptExhaustedError, match="holds 2 responses and call 3") as caught:
        client.messages.create(model="m", max_tokens=8, messages=[])
    assert (caught.value.scripted, caught.value.call) == (2, 3)
    assert len(client.requests) == 3  # the failed ask is on record too


def test_an_empty_script_fails_on_the_first_call() -> None:
    with pytest.raises(ScriptExhaustedError, match="holds 0 responses and call 1"):
        ScriptedClient([]).messages.create(model="m", max_tokens=8, messages=[])


def test_a_responder_answers_each_request_from_a_copy() -> None:
    seen: list[int] = []

    def respond(request: dict[str, object]) -> dict[str, object]:
        messages = request["messages"]
        assert isinstance(messages, list)
        seen.append(len(messages))
        messages.clear()  # the responder's copy, not the record
        return _reply(f"{len(seen)}")

    client = ScriptedClient(respond)
    client.messages.create(model="m", max_tokens=8, messages=[{"role": "user", "content": "a"}])
    assert seen == [1]
    assert client.requests[0]["messages"] == [{"role": "user", "content": "a"}]


@pytest.mark.parametrize("bad", ["not a list", 42, None])
def test_a_script_that_is_neither_a_list_nor_a_function_is_refused(bad: object) -> None:
    with pytest.raises(TypeError, match="sequence of responses or a function"):
        ScriptedClient(bad)  # type: ignore[arg-type]


def test_the_accessor_reads_dicts_and_objects_alike() -> None:
    as_dict = {"stop_reason": "max_tokens"}
    as_object = SimpleNamespace(stop_reason="max_tokens")
    assert response_field(as_dict, "stop_reason") == response_field(as_object, "stop_reason")
    assert response_field(as_object, "missing") is None


def test_sdk_like_blocks_become_plain_dicts_without_none_fields() -> None:
    class Block:
        def model_dump(self, *, mode: str, exclude_none: bool) -> dict[str, object]:
            assert (mode, exclude_none) == ("json", True)
            return {"type": "text", "text": "hi"}

    response = SimpleNamespace(content=[Block(), {"type": "text", "text": "there"}])
    assert content_blocks(response) == [
        {"type": "text", "text": "hi"},
        {"type": "text", "text": "there"},
    ]


def test_no_content_is_no_blocks() -> None:
    assert content_blocks({"stop_reason": "end_turn"}) == []


@pytest.mark.parametrize(
    "given",
    [[{"type": "text", "text": "a"}], ({"type": "text", "text": "a"},), "hello", None],
    ids=["content-list", "content-tuple", "text", "none"],
)
def test_what_is_no_response_is_named_not_read_as_one_without_content(given: Any) -> None:
    """`content_blocks(response["content"])` read the list as a response with no content
    field and gave [], as it did for a string or None: every block lost, unsaid."""
    with pytest.raises(TypeError, match=r"^content_blocks reads a response \(a dict or an SDK "):
        content_blocks(given)


def test_bad_content_names_the_block() -> None:
    with pytest.raises(TypeError, match="content block 1 is a int"):
        content_blocks({"content": [{"type": "text", "text": "a"}, 7]})
    with pytest.raises(TypeError, match="must be a list of blocks"):
        content_blocks({"content": "just text"})


def test_scripted_response_stop_reason_follows_its_blocks() -> None:
    call = {"type": "tool_use", "id": "t", "name": "ls", "input": {}}
    assert scripted_response(call, input_tokens=1, output_tokens=1)["stop_reason"] == "tool_use"
    assert scripted_response("x", input_tokens=1, output_tokens=1)["stop_reason"] == "end_turn"
    refused = scripted_response("x", input_tokens=1, output_tokens=1, stop_reason="refusal")
    assert refused["stop_reason"] == "refusal"


def test_the_log_keeps_each_unchanged_message_once() -> None:
    client = ScriptedClient([_reply(str(n)) for n in range(3)])
    history: list[dict[str, object]] = [{"role": "user", "content": "task"}]
    for n in range(3):
        client.messages.create(model="m", max_tokens=8, messages=list(history))
        history += [{"role": "assistant", "content": str(n)}, {"role": "user", "content": "go"}]
    first, second, third = (request["messages"] for request in client.requests)
    assert first[0] is second[0] is third[0]  # one copy, shared
    assert second[1] is third[1] and first[0] is not history[0]  # and not the caller's dict
    assert [len(first), len(second), len(third)] == [1, 3, 5]


def test_a_message_edited_in_place_after_it_was_sent_is_logged_both_ways() -> None:
    client = ScriptedClient([_reply("one"), _reply("two")])
    history = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    client.messages.create(model="m", max_tokens=8, messages=history)
    history[0]["content"][0]["text"] = "edited"
    client.messages.create(model="m", max_tokens=8, messages=history)
    assert [r["messages"][0]["content"][0]["text"] for r in client.requests] == ["hi", "edited"]


def test_a_tuple_of_messages_is_logged_as_a_tuple() -> None:
    client = ScriptedClient([_reply("one")])
    client.messages.create(model="m", max_tokens=8, messages=({"role": "user", "content": "a"},))
    assert client.requests[0]["messages"] == ({"role": "user", "content": "a"},)


def test_a_function_script_that_runs_out_raises_the_exhaustion_error() -> None:
    replies = iter([_reply("one")])
    client = ScriptedClient(lambda request: next(replies))
    client.messages.create(model="m", max_tokens=8, messages=[])
    with pytest.raises(ScriptExhaustedError, match="holds 1 response and call 2 asked") as caught:
        client.messages.create(model="m", max_tokens=8, messages=[])
    assert (caught.value.scripted, caught.value.call) == (1, 2)


def test_response_text_joins_the_text_blocks_of_dicts_and_objects() -> None:
    from context_budget.clients import response_text

    blocks = [
        {"type": "text", "text": "a"},
        {"type": "tool_use", "id": "t", "name": "x", "input": {}},
        {"type": "text", "text": "b"},
    ]
    assert response_text(SimpleNamespace(content=blocks)) == "ab"
    assert response_text({"content": None}) == ""


def test_a_request_without_a_list_of_messages_is_logged_as_it_came() -> None:
    client = ScriptedClient([_reply("one"), _reply("two")])
    client.messages.create(model="m", max_tokens=8)
    client.messages.create(model="m", max_tokens=8, messages=None)
    assert client.requests == [
        {"model": "m", "max_tokens": 8},
        {"model": "m", "max_tokens": 8, "messages": None},
    ]


_TEXT = st.text(st.characters(codec="utf-8"), max_size=8)


@cases(0.5)
@given(
    st.lists(
        st.tuples(st.sampled_from(["send", "append", "edit", "drop"]), _TEXT, st.integers(0, 9)),
        max_size=30,
    )
)
def test_the_log_is_what_each_call_was_sent_whatever_the_caller_does_next(
    steps: list[tuple[str, str, int]],
) -> None:
    client = ScriptedClient(lambda request: _reply("ok"))
    history: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "t"}]}]
    expected = []
    for action, text, index in steps:
        if action == "send":
            client.messages.create(model="m", max_tokens=8, messages=list(history))
            expected.append(copy.deepcopy(history))
        elif action == "append":
            history.append({"role": "user", "content": [{"type": "text", "text": text}]})
        elif action == "edit":  # in place, on a message that may have been sent already
            history[index % len(history)]["content"][0]["text"] = text
        elif len(history) > 1:
            del history[index % len(history)]
    assert [request["messages"] for request in client.requests] == expected


# ---------------------------------------------------------------- the SDK's shape, once


def test_both_endpoints_of_a_client_shape_reach_one_method() -> None:
    from context_budget.clients import ClientShape, send_request

    class Noting(ClientShape):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[tuple[bool, dict[str, Any]]] = []

        def _create(self, request: dict[str, Any], *, beta: bool) -> Any:
            self.seen.append((beta, request))
            return {"content": []}

    client = Noting()
    client.messages.create(model="m")
    client.beta.messages.create(model="m", betas=["b"])
    send_request(client, {"model": "m", "betas": ["b"]})
    send_request(client, {"model": "m"})
    send_request(client, {"model": "m"}, beta=True)
    assert [beta for beta, _ in client.seen] == [False, True, True, False, True]
    with pytest.raises(NotImplementedError, match="Noting counts no tokens"):
        client.messages.count_tokens(model="m")


def test_the_sdk_s_client_shape_is_written_once() -> None:
    """Only `clients.py` defines a `create` method: every offline client takes its shape."""
    import ast
    from pathlib import Path

    import context_budget
    from context_budget.clients import ClientShape
    from context_budget.experiment import _Meter
    from context_budget.fakes.emulated import EmulatedClient

    root = Path(context_budget.__file__).parent
    found = [
        f"{path.relative_to(root)}:{node.lineno}"
        for path in sorted(root.rglob("*.py"))
        if path.name != "clients.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name in {"create", "count_tokens"}
    ]
    assert found == []
    agent = _Meter(ScriptedClient([]), None).client("lead")
    for client in (ScriptedClient([]), EmulatedClient("claude-sonnet-4-6", []), agent):
        assert isinstance(client, ClientShape)


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: scripted_response(5, input_tokens=1, output_tokens=1), TypeError, "blocks[0]"),
        (
            lambda: scripted_response("a", ["b"], input_tokens=1, output_tokens=1),
            TypeError,
            "blocks[1]",
        ),
        (lambda: scripted_response(None, input_tokens=1, output_tokens=1), TypeError, "got None"),
        (
            lambda: scripted_response("a", input_tokens=1.5, output_tokens=1),
            TypeError,
            "input_tokens",
        ),
        (
            lambda: scripted_response("a", input_tokens=1, output_tokens=-1),
            ValueError,
            "output_tokens",
        ),
        (
            lambda: scripted_response(
                "a", input_tokens=1, output_tokens=1, cache_read_input_tokens=True
            ),
            TypeError,
            "cache_read_input_tokens",
        ),
        (
            lambda: scripted_response("a", input_tokens=1, output_tokens=1, stop_reason=5),
            TypeError,
            "stop_reason",
        ),
    ],
    ids=[
        "int-block",
        "list-block",
        "none-block",
        "float-input",
        "negative-output",
        "bool-read",
        "int-stop",
    ],
)
def test_a_scripted_response_names_what_no_response_could_hold(
    call: Any, error: type[Exception], words: str
) -> None:
    """Refused where it is written, naming the argument, not at the call of the loop that
    reads it (`1.5` input tokens) or as "'int' object is not iterable" (a block of 5)."""
    with pytest.raises(error, match=re.escape(words)):
        call()


def test_a_request_with_betas_to_a_client_without_a_beta_endpoint_is_named() -> None:
    """A client of one's own with `messages.create` alone: a plan that adds `betas` (and
    `context_management`) sent its request to `client.beta`, which failed as "'Plain'
    object has no attribute 'beta'"."""
    from types import SimpleNamespace

    from context_budget.clients import send_request

    plain = SimpleNamespace(messages=SimpleNamespace(create=lambda **request: request))
    assert send_request(plain, {"model": "m"}) == {"model": "m"}
    with pytest.raises(TypeError, match=re.escape("client.beta.messages.create")):
        send_request(plain, {"model": "m", "betas": ["context-management-2025-06-27"]})
