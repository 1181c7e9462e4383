"""The model client a harness talks to, and the readers of what it answers.

A client is anything with `client.messages.create(**request)` that returns a
response: `anthropic.Anthropic()` is one; the offline ones (`ScriptedClient`,
`EmulatedClient`) live in `context_budget.fakes`, and share the SDK's shape
through `ClientShape` (`messages.create`, `beta.messages.create`,
`messages.count_tokens`). `send_request` picks the endpoint of a request: the beta
one when it carries `betas`, as the SDK requires. A request is the keyword
arguments of that call:

    {"model": str, "max_tokens": int, "messages": [message, ...],
     "system": str,            # optional
     "tools": [tool, ...]}     # optional

A response is either a dict in the Messages API's JSON shape or the SDK's
`Message` object; `response_field`, `content_blocks` and `response_text`
read both:

    {"content": [block, ...], "stop_reason": "tool_use" | "end_turn" | ...,
     "usage": {"input_tokens": int, "output_tokens": int, ...}}

Example:
    >>> reply = {"content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn"}
    >>> response_field(reply, "stop_reason"), content_blocks(reply), response_text(reply)
    ('end_turn', [{'type': 'text', 'text': 'hi'}], 'hi')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from context_budget._values import short_repr

__all__ = [
    "ClientShape",
    "ModelClient",
    "content_blocks",
    "response_field",
    "response_text",
    "send_request",
]

#: A function that answers a request (the keyword arguments of `create`) with a response.
Responder = Callable[[dict[str, Any]], Any]


class _Messages(Protocol):
    def create(self, **request: Any) -> Any: ...


class ModelClient(Protocol):
    """What the harness needs of a client: a `messages.create(**request)` method."""

    @property
    def messages(self) -> _Messages: ...


class _Endpoint:
    """`messages` or `beta.messages` of a `ClientShape`: each call goes to its owner."""

    __slots__ = ("_beta", "_owner")

    def __init__(self, owner: ClientShape, *, beta: bool) -> None:
        self._owner, self._beta = owner, beta

    def create(self, **request: Any) -> Any:
        """One call, with the SDK's keyword arguments."""
        return self._owner._create(request, beta=self._beta)

    def count_tokens(self, **request: Any) -> Any:
        """The API's token count of a request."""
        return self._owner._count_tokens(request, beta=self._beta)


class _Beta:
    __slots__ = ("messages",)

    def __init__(self, owner: ClientShape) -> None:
        self.messages = _Endpoint(owner, beta=True)


class ClientShape:
    """The Anthropic SDK's client shape, for a client that answers in code of its own.

    `client.messages.create(**request)` and `client.beta.messages.create(**request)`
    both call the subclass's `_create(request, beta=...)`, with the keyword
    arguments as one dict and `beta` saying which endpoint was called;
    `messages.count_tokens(**request)` calls `_count_tokens` the same way.

    Attributes:
        messages: `create(**request)` and `count_tokens(**request)`.
        beta: `beta.messages`, the same two calls on the beta endpoint.

    Examples:
        >>> class Echo(ClientShape):
        ...     def _create(self, request, *, beta):
        ...         return {"beta": beta, "model": request["model"]}
        >>> Echo().beta.messages.create(model="m")
        {'beta': True, 'model': 'm'}
    """

    def __init__(self) -> None:
        self.messages = _Endpoint(self, beta=False)
        self.beta = _Beta(self)

    def _create(self, request: dict[str, Any], *, beta: bool) -> Any:
        raise NotImplementedError(f"{type(self).__name__} answers no request")

    def _count_tokens(self, request: dict[str, Any], *, beta: bool) -> Any:
        raise NotImplementedError(f"{type(self).__name__} counts no tokens")


def send_request(
    client: ModelClient, request: Mapping[str, Any], *, beta: bool | None = None
) -> Any:
    """Send `request` (the keyword arguments of one call) through the right endpoint.

    `client.beta.messages.create` when `beta` says so, or, when `beta` is
    None, when the request carries `betas` (the Anthropic SDK takes `betas`
    and `context_management` on the beta endpoint only); else
    `client.messages.create`.

    Raises:
        TypeError: the request goes to the beta endpoint and the client has
            none (the error names the client).
    """
    if beta is None:
        beta = "betas" in request
    if not beta:
        return client.messages.create(**request)
    endpoint = getattr(getattr(getattr(client, "beta", None), "messages", None), "create", None)
    if not callable(endpoint):
        raise TypeError(
            "the request carries betas (a plan's context_management, say), so it goes "
            "through client.beta.messages.create, which this client lacks: "
            f"{short_repr(client)}"
        )
    return endpoint(**request)


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
    if type(response) is dict or isinstance(response, Mapping):  # a plain dict: the usual
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
        TypeError: `response` is no response (None, a string, or a list such
            as the content itself), the content is not a list, or a block is
            neither a mapping nor an SDK object; the message names the
            block's index.
    """
    if response is None or isinstance(response, str | bytes | list | tuple):
        raise TypeError(
            "content_blocks reads a response (a dict or an SDK message), not its content: "
            f"got {short_repr(response)}"
        )
    content = response_field(response, "content")
    if content is None:
        return []
    if not isinstance(content, Sequence) or isinstance(content, str):
        raise TypeError(f"a response's content must be a list of blocks, got {short_repr(content)}")
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
