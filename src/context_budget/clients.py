"""The model client a harness talks to, and a scripted one that runs offline.

A client is anything with `client.messages.create(**request)` that returns a
response: `anthropic.Anthropic()` is one, `ScriptedClient` is another. A
request is the keyword arguments of that call:

    {"model": str, "max_tokens": int, "messages": [message, ...],
     "system": str,            # optional
     "tools": [tool, ...]}     # optional

A response is either a dict in the Messages API's JSON shape or the SDK's
`Message` object; `response_field` and `content_blocks` read both:

    {"content": [block, ...], "stop_reason": "tool_use" | "end_turn" | ...,
     "usage": {"input_tokens": int, "output_tokens": int, ...}}

Example:
    >>> client = ScriptedClient([scripted_response("hi", input_tokens=12, output_tokens=3)])
    >>> reply = client.messages.create(model="m", max_tokens=64, messages=[])
    >>> response_field(reply, "stop_reason"), content_blocks(reply)
    ('end_turn', [{'type': 'text', 'text': 'hi'}])
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from context_budget.errors import ScriptExhaustedError

__all__ = [
    "ModelClient",
    "ScriptedClient",
    "content_blocks",
    "response_field",
    "response_text",
    "scripted_response",
]

#: A function that answers a request (the keyword arguments of `create`) with a response.
Responder = Callable[[dict[str, Any]], Any]


class _Messages(Protocol):
    def create(self, **request: Any) -> Any: ...


class ModelClient(Protocol):
    """What the harness needs of a client: a `messages.create(**request)` method."""

    @property
    def messages(self) -> _Messages: ...


def response_field(response: Any, name: str) -> Any:
    """One field of a response, a block or a usage, whatever its shape.

    Reads `response[name]` from a mapping and `response.name` from an object
    such as the SDK's; gives `None` when the field is absent.

    Examples:
        >>> response_field({"stop_reason": "end_turn"}, "stop_reason")
        'end_turn'
        >>> response_field({}, "stop_reason") is None
        True
    """
    if isinstance(response, Mapping):
        return response.get(name)
    return getattr(response, name, None)


def _as_block(block: Any, index: int) -> dict[str, Any]:
    if isinstance(block, Mapping):
        return dict(block)
    dump = getattr(block, "model_dump", None)
    if callable(dump):
        # subtle: the SDK's blocks carry None for absent optional fields
        # (a text block's citations); the API's JSON leaves them out.
        dumped: dict[str, Any] = dump(mode="json", exclude_none=True)
        return dumped
    raise TypeError(
        f"content block {index} is a {type(block).__name__}, not a dict or an SDK block"
    )


def content_blocks(response: Any) -> list[dict[str, Any]]:
    """The response's content as a list of plain block dicts, in order.

    SDK block objects become the dicts of the API's JSON shape, so they can be
    sent back in a later request and copied like any other message.

    Raises:
        TypeError: the content is not a list, or a block is neither a mapping
            nor an SDK object; the message names the block's index.
    """
    content = response_field(response, "content")
    if content is None:
        return []
    if not isinstance(content, Sequence) or isinstance(content, str):
        raise TypeError(f"a response's content must be a list of blocks, got {content!r}")
    return [_as_block(block, index) for index, block in enumerate(content)]


def response_text(response: Any) -> str:
    """The text of a response: its text blocks joined, in order (`""` when it has none).

    Examples:
        >>> response_text({"content": [{"type": "text", "text": "a"},
        ...     {"type": "tool_use", "id": "t", "name": "x", "input": {}},
        ...     {"type": "text", "text": "b"}]})
        'ab'
    """
    return "".join(
        block.get("text", "") for block in content_blocks(response) if block.get("type") == "text"
    )


def scripted_response(
    *blocks: str | dict[str, Any],
    input_tokens: int,
    output_tokens: int,
    stop_reason: str | None = None,
    cache_read_input_tokens: int = 0,
    cache_creation_input_tokens: int = 0,
) -> dict[str, Any]:
    """A response in the API's JSON shape, for a script.

    Args:
        *blocks: the content; a string is a text block, a dict is a block as is.
        input_tokens: uncached prompt tokens the call reports.
        output_tokens: tokens the call reports it generated.
        stop_reason: defaults to `"tool_use"` when a block is a `tool_use`,
            `"end_turn"` otherwise.
        cache_read_input_tokens: prompt tokens read from the cache.
        cache_creation_input_tokens: prompt tokens written to the cache.

    Examples:
        >>> call = {"type": "tool_use", "id": "t1", "name": "ls", "input": {}}
        >>> scripted_response(call, input_tokens=5, output_tokens=2)["stop_reason"]
        'tool_use'
    """
    content = [{"type": "text", "text": b} if isinstance(b, str) else dict(b) for b in blocks]
    if stop_reason is None:
        calls = any(block.get("type") == "tool_use" for block in content)
        stop_reason = "tool_use" if calls else "end_turn"
    return {
        "type": "message",
        "role": "assistant",
        "content": content,
        "stop_reason": stop_reason,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": cache_creation_input_tokens,
            "cache_read_input_tokens": cache_read_input_tokens,
        },
    }


class _ScriptedMessages:
    def __init__(self, owner: ScriptedClient) -> None:
        self._owner = owner

    def create(self, **request: Any) -> Any:
        return self._owner._answer(request)


class ScriptedClient:
    """A stand-in for `anthropic.Anthropic()` that answers from a script.

    `responses` is either a sequence of responses, handed out in call order,
    or a function that answers each request (a model simulated from what it is
    sent). Every request's keyword arguments are kept in `requests` as a deep
    copy, so a loop that later edits its lists cannot rewrite what was sent.

    Attributes:
        requests: the keyword arguments of every call so far, in order.

    Raises:
        ScriptExhaustedError: (from `messages.create`) a sequence script has no
            response left; the error says how many were scripted and which
            call asked for one more.

    Examples:
        >>> client = ScriptedClient([scripted_response("one", input_tokens=1, output_tokens=1)])
        >>> _ = client.messages.create(model="m", max_tokens=8, messages=[])
        >>> try:
        ...     client.messages.create(model="m", max_tokens=8, messages=[])
        ... except ScriptExhaustedError as error:
        ...     print(error)
        the script holds 1 response and call 2 asked for one more
    """

    def __init__(self, responses: Sequence[Any] | Responder) -> None:
        if callable(responses):
            self._respond: Responder | None = responses
            self._script: list[Any] = []
        elif isinstance(responses, Sequence) and not isinstance(responses, str):
            self._respond = None
            self._script = copy.deepcopy(list(responses))
        else:
            raise TypeError(
                f"responses must be a sequence of responses or a function, got {responses!r}"
            )
        self.requests: list[dict[str, Any]] = []
        self.messages = _ScriptedMessages(self)

    def _answer(self, request: dict[str, Any]) -> Any:
        self.requests.append(copy.deepcopy(request))
        call = len(self.requests)
        if self._respond is not None:
            return self._respond(copy.deepcopy(request))
        if call > len(self._script):
            raise ScriptExhaustedError(scripted=len(self._script), call=call)
        return copy.deepcopy(self._script[call - 1])
