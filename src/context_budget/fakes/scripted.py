"""`ScriptedClient`: a stand-in for `anthropic.Anthropic()` that answers from a script.

A script is a list of responses handed out in call order (`scripted_response`
writes one) or a function that answers each request. The client keeps every
request it was sent in `requests`, the log every fake in
`context_budget.fakes` keeps under that name.

Example:
    >>> client = ScriptedClient([scripted_response("hi", input_tokens=12, output_tokens=3)])
    >>> reply = client.messages.create(model="m", max_tokens=64, messages=[])
    >>> reply["content"], len(client.requests)
    ([{'type': 'text', 'text': 'hi'}], 1)
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from context_budget._copies import Snapshots
from context_budget._values import as_count, short_repr
from context_budget.clients import ClientShape, Responder
from context_budget.errors import ScriptExhaustedError

__all__ = ["ScriptedClient", "scripted_response"]


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

    Raises:
        TypeError: a block is neither a str nor a dict, a count is not an int
            (a bool is not one), or `stop_reason` is not a str.
        ValueError: a count is below 0.

    Examples:
        >>> call = {"type": "tool_use", "id": "t1", "name": "ls", "input": {}}
        >>> scripted_response(call, input_tokens=5, output_tokens=2)["stop_reason"]
        'tool_use'
    """
    content = [_block(block, number) for number, block in enumerate(blocks)]
    counts = (
        ("input_tokens", input_tokens),
        ("output_tokens", output_tokens),
        ("cache_read_input_tokens", cache_read_input_tokens),
        ("cache_creation_input_tokens", cache_creation_input_tokens),
    )
    for name, value in counts:
        as_count(value, name)
    if stop_reason is not None and not isinstance(stop_reason, str):
        raise TypeError(f"stop_reason must be a str or None, got {short_repr(stop_reason)}")
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


def _block(block: object, number: int) -> dict[str, Any]:
    """One of `scripted_response`'s blocks as a block: a string as a text block, a dict as is.

    Raises:
        TypeError: it is neither (the error names it by its place, `blocks[N]`).
    """
    if isinstance(block, str):
        return {"type": "text", "text": block}
    if isinstance(block, Mapping):
        return dict(block)
    raise TypeError(
        f"blocks[{number}] must be a str (a text block) or a dict (a block), "
        f"got {short_repr(block)}"
    )


class ScriptedClient(ClientShape):
    """A stand-in for `anthropic.Anthropic()` that answers from a script.

    `responses` is either a sequence of responses, handed out in call order,
    or a function that answers each request (a model simulated from what it is
    sent); the function gets its own deep copy of the request. Every request
    is kept in `requests` as it was sent: a loop that later edits its lists
    or messages cannot rewrite the log. The log shares each message that the
    next request sends again unchanged, so a long run keeps one copy of each
    message, not one of every history.

    `messages.create` and `beta.messages.create` answer alike, from the
    same script.

    Attributes:
        requests: the keyword arguments of every call so far, in order.

    Raises:
        ScriptExhaustedError: (from `messages.create`) a sequence script has no
            response left, or a function script raised `StopIteration` (say,
            `next()` on a used-up iterator); the error says how many calls
            were answered and which call asked for one more.

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
        super().__init__()
        self.requests: list[dict[str, Any]] = []
        self._snapshots = Snapshots()

    def _create(self, request: dict[str, Any], *, beta: bool) -> Any:
        """The next response; the request is logged as sent, whichever endpoint it came by."""
        self.requests.append(self._snapshots.take(request))
        call = len(self.requests)
        if self._respond is not None:
            try:
                return self._respond(copy.deepcopy(request))
            except StopIteration:
                raise ScriptExhaustedError(scripted=call - 1, call=call) from None
        if call > len(self._script):
            raise ScriptExhaustedError(scripted=len(self._script), call=call)
        return copy.deepcopy(self._script[call - 1])
