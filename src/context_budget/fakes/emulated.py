"""The emulated server: the SDK's client shape, with server-side editing and the prompt cache.

`EmulatedClient` puts the edits of `context_budget.editing` and a `PromptCache`
behind the SDK's `messages.create` / `beta.messages.create` / `count_tokens`
shapes and answers with API-shaped dicts; `max_tokens: 0` pre-warms the cache
without a reply. Like every fake it keeps its log in `requests`: each request as
the model saw it, after the server's edits.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

from context_budget._blocks import request_block_text
from context_budget._checks import check_messages
from context_budget._copies import Snapshots
from context_budget._counting import count_text, resolve_counter
from context_budget._values import short_repr
from context_budget.cache import PromptCache, SimulatedClock
from context_budget.clients import ClientShape

# private on purpose: the server applies the documented edits with the very steps
# `editing` runs them with (the thinking edit, the compaction cut, the checks of a
# `context_management` field), so the two can never disagree
from context_budget.editing import (
    _COMPACT_DEFAULT_TRIGGER,
    PLACEHOLDER,
    _after_compaction,
    _check_edits,
    _clear_thinking,
    _default_summary,
    _value,
    clear_tool_uses_20250919,
)
from context_budget.errors import InvalidRequestError, ScriptExhaustedError
from context_budget.messages import Message
from context_budget.tokens import TokenCounter

__all__ = ["EmulatedClient", "Reply"]

#: A scripted reply: `{"content": str | list[block], "stop_reason"?: str, "output_tokens"?: int}`;
#: a response in the API's shape (a `SimulatedModel`'s) is one too, its output read from
#: `usage.output_tokens` and the rest of its usage left to the server's cache.
Reply: TypeAlias = Mapping[str, Any]


def _max_tokens(request: Mapping[str, Any]) -> int | None:
    """The request's `max_tokens` (None when absent), checked; 0 is a pre-warming request.

    Raises:
        TypeError: it is not an int.
        InvalidRequestError: it is negative, or a pre-warming request asks for
            something the API refuses with `max_tokens: 0`.
    """
    value = request.get("max_tokens")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"max_tokens must be an int, got {short_repr(value)}")
    if value < 0:
        raise InvalidRequestError(f"max_tokens: must be >= 0, got {value}")
    if value == 0:
        thinking = request.get("thinking")
        choice = request.get("tool_choice")
        output = request.get("output_config")
        refused = [
            (request.get("stream") is True, "stream"),
            (isinstance(thinking, Mapping) and thinking.get("type") == "enabled", "thinking"),
            (isinstance(output, Mapping) and output.get("format") is not None, "output_config"),
            (isinstance(choice, Mapping) and choice.get("type") in ("any", "tool"), "tool_choice"),
        ]
        for bad, name in refused:
            if bad:
                raise InvalidRequestError(
                    f"max_tokens: 0 (pre-warming the cache) cannot be combined with {name}="
                    f"{short_repr(request.get(name))}"
                )
    return value


class EmulatedClient(ClientShape):
    """A stand-in for `anthropic.Anthropic()` that edits, caches and answers offline.

    Args:
        model: the model id every request must name; it also picks the cache's
            minimum length when `cache` is None.
        responder: the model's replies: a list of `Reply` dicts used in order,
            or a function from the edited request (a dict with `model`,
            `system`, `tools`, `messages`) to a `Reply` (a `SimulatedModel`
            is one: its output is billed as it reports it).
        cache: the prompt cache to bill against; a new `PromptCache(model)`
            sharing `clock` when None.
        clock: the time source when `cache` is None.
        counter: text -> tokens for edits and output; `estimate_tokens` when None.
        placeholder: the text a cleared tool result gets.
        summarizer: `(messages, instructions) -> summary text` for compaction;
            a deterministic stand-in when None.

    Raises:
        TypeError: `responder` is neither a list of replies nor a function,
            or `cache`, `placeholder` or `summarizer` has the wrong type (the
            error names it), before any call.

    Attributes:
        messages: `messages.create(...)`, `messages.count_tokens(...)`.
        beta: `beta.messages.create(betas=[...], context_management=...)`.
        requests: each request as the model saw it (after the server's edits), in
            order: the log every fake keeps under this name. Each is a copy, so
            a caller that edits its messages later leaves the log as it was.

    A request with `max_tokens: 0` pre-warms the cache as the API documents:
    the responder is not asked, the reply has empty `content` and
    `stop_reason: "max_tokens"`, and its usage bills the prompt (reads and
    writes) with 0 output tokens. With `stream`, `thinking.type: "enabled"`,
    `output_config.format` or a forced `tool_choice` it is refused
    (`InvalidRequestError`).

    Examples:
        >>> client = EmulatedClient("claude-sonnet-4-6", [{"content": "Hello."}])
        >>> reply = client.messages.create(model="claude-sonnet-4-6", max_tokens=64,
        ...                                messages=[{"role": "user", "content": "hi"}])
        >>> reply["content"], reply["stop_reason"], reply["usage"]["input_tokens"]
        ([{'type': 'text', 'text': 'Hello.'}], 'end_turn', 1)
    """

    def __init__(
        self,
        model: str,
        responder: Sequence[Reply] | Callable[[dict[str, Any]], Reply],
        *,
        cache: PromptCache | None = None,
        clock: SimulatedClock | None = None,
        counter: TokenCounter | None = None,
        placeholder: str = PLACEHOLDER,
        summarizer: Callable[[list[Message], str | None], str] | None = None,
    ) -> None:
        _check_arguments(responder, cache, placeholder, summarizer)
        self.model = model
        self._counter = resolve_counter(counter)
        self.cache = (
            cache if cache is not None else PromptCache(model, clock=clock, counter=counter)
        )
        self._responder = responder
        self._placeholder = placeholder
        self._summarize = summarizer or _default_summary
        super().__init__()
        self.requests: list[dict[str, Any]] = []
        self._snapshots = Snapshots()  # the log's copies: no later edit of the caller's reaches it
        self._replies = 0  # replies asked of the responder (pre-warming asks none)

    def _reply(self, view: dict[str, Any]) -> tuple[Reply, list[dict[str, Any]]]:
        """The responder's next reply, checked, and its content as a list of blocks."""
        number = self._replies
        self._replies += 1
        if callable(self._responder):
            reply = self._responder(copy.deepcopy(view))
        elif number >= len(self._responder):
            raise ScriptExhaustedError(scripted=len(self._responder), call=number + 1)
        else:
            reply = self._responder[number]
        where = f"reply {number + 1}"
        if not isinstance(reply, Mapping):
            raise TypeError(f"{where} must be a dict with 'content', got {short_repr(reply)}")
        raw = reply.get("content", [])
        said = [{"type": "text", "text": raw}] if isinstance(raw, str) else raw
        try:
            check_messages([{"role": "assistant", "content": said}])
        except (TypeError, ValueError) as error:
            raise type(error)(f"{where}: {error}") from None
        tokens = _reported_output(reply)
        if tokens is not None and (
            isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0
        ):
            raise ValueError(
                f"{where}: output_tokens must be an int >= 0, got {short_repr(tokens)}"
            )
        stop = reply.get("stop_reason")
        if stop is not None and not isinstance(stop, str):
            raise TypeError(f"{where}: stop_reason must be a str, got {short_repr(stop)}")
        return reply, list(said)

    def _edit(
        self, request: Mapping[str, Any], *, beta: bool, compacting: bool
    ) -> tuple[dict[str, Any], list[dict[str, Any]], int, Mapping[str, Any] | None]:
        """(what the model reads, applied_edits, original tokens, the compaction edit)."""
        if "context_management" in request and not beta:
            raise TypeError(
                "Messages.create() got an unexpected keyword argument 'context_management' "
                "(use client.beta.messages.create)"
            )
        if request.get("model") != self.model:
            raise ValueError(
                f"this client emulates {self.model!r}, got model={short_repr(request.get('model'))}"
            )
        messages = request.get("messages")
        check_messages(messages)
        view = {k: v for k, v in request.items() if k not in ("betas", "context_management")}
        view["messages"] = _after_compaction(messages)  # type: ignore[arg-type]
        original = self.cache.prompt_tokens(view)
        management = request.get("context_management")
        applied: list[dict[str, Any]] = []
        compaction = None
        for edit in _check_edits(management) if management is not None else []:
            kind = edit["type"]
            if kind == "clear_thinking_20251015":
                view["messages"], entry = _clear_thinking(
                    view["messages"], edit, self._counter, self.model
                )
            elif kind == "clear_tool_uses_20250919":
                result = clear_tool_uses_20250919(
                    view["messages"],
                    edit,
                    prompt_tokens=original,
                    counter=self._counter,
                    placeholder=self._placeholder,
                )
                view["messages"], entry = result.messages, result.applied_edit()
            else:
                trigger = _value(
                    edit.get("trigger"), "input_tokens", _COMPACT_DEFAULT_TRIGGER, "trigger"
                )
                entry = None
                if compacting and self.cache.prompt_tokens(view) >= trigger:
                    compaction = edit
            if entry is not None:
                applied.append(entry)
        return view, applied, original, compaction

    def _output_tokens(self, content: list[dict[str, Any]], reply: Reply) -> int:
        """The output the reply reports (`_reported_output`, checked by `_reply`), else its
        blocks counted."""
        reported = _reported_output(reply)
        if isinstance(reported, int):  # `_reply` refused any other reported value
            return reported
        return sum(count_text(request_block_text(block), self._counter) for block in content)

    def _create(self, request: Mapping[str, Any], *, beta: bool) -> dict[str, Any]:
        prewarm = _max_tokens(request) == 0
        # subtle: a pre-warming request (max_tokens 0) writes the cache but generates
        # nothing, so it never compacts (our choice: compaction would be output)
        view, applied, _, compaction = self._edit(request, beta=beta, compacting=not prewarm)
        iterations: list[dict[str, Any]] = []
        content: list[dict[str, Any]] = []
        if compaction is not None:
            view, block, iteration = self._compact(view, compaction)
            iterations.append(iteration)
            content.append(block)
        self.requests.append(self._snapshots.take(view))
        if prewarm:
            usage = self.cache.usage(view).as_dict()  # output 0: nothing is billed but input
            stop = "max_tokens"
        elif compaction is not None and compaction.get("pause_after_compaction"):
            usage = dict(iterations[-1])
            del usage["type"]
            stop = "compaction"
        else:
            reply, said = self._reply(view)
            content += said
            usage = self.cache.usage(view).as_dict()
            usage["output_tokens"] = self._output_tokens(said, reply)
            stop = reply.get("stop_reason") or (
                "tool_use" if any(b.get("type") == "tool_use" for b in said) else "end_turn"
            )
            if request.get("context_management") is not None and _has_compact(request):
                iterations.append({"type": "message", **usage})
        if iterations:
            usage["iterations"] = iterations
        management = request.get("context_management")
        return {
            "id": f"msg_emulated_{len(self.requests):04d}",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": copy.deepcopy(content),
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
            "context_management": None if management is None else {"applied_edits": applied},
        }

    def _compact(
        self, view: dict[str, Any], compaction: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        """A server-side compaction before the reply: (the request as it goes on, the
        messages replaced by the compaction block; the block; its iteration's usage, the
        summary as output)."""
        summary = self._summarize(copy.deepcopy(view["messages"]), compaction.get("instructions"))
        block = {"type": "compaction", "content": summary}
        used = self.cache.usage(view).as_dict()
        used["output_tokens"] = count_text(summary, self._counter)
        after = {**view, "messages": [{"role": "assistant", "content": [block]}]}
        return after, block, {"type": "compaction", **used}

    def _count_tokens(self, request: Mapping[str, Any], *, beta: bool) -> dict[str, Any]:
        full = {"max_tokens": 1, **request}
        view, _, original, _ = self._edit(full, beta=beta, compacting=False)
        out: dict[str, Any] = {"input_tokens": self.cache.prompt_tokens(view)}
        if request.get("context_management") is not None:
            out["context_management"] = {"original_input_tokens": original}
        return out


def _check_arguments(
    responder: object, cache: object, placeholder: object, summarizer: object
) -> None:
    """Refuse what `EmulatedClient` could not answer with, naming it, before any call.

    Raises:
        TypeError: `responder` is neither a list of replies nor a function (a
            single reply, a string or None), `cache` no `PromptCache`,
            `placeholder` no str or `summarizer` no function.
    """
    listed = isinstance(responder, Sequence) and not isinstance(responder, str | bytes)
    if not listed and not callable(responder):
        raise TypeError(
            "responder must be a list of replies or a function of the request, "
            f"got {short_repr(responder)} (one reply goes in a list of its own)"
        )
    if cache is not None and not isinstance(cache, PromptCache):
        raise TypeError(f"cache must be a PromptCache or None, got {short_repr(cache)}")
    if not isinstance(placeholder, str):
        raise TypeError(f"placeholder must be a str, got {short_repr(placeholder)}")
    if summarizer is not None and not callable(summarizer):
        raise TypeError(
            "summarizer must be a function (messages, instructions) -> summary, "
            f"got {short_repr(summarizer)}"
        )


def _reported_output(reply: Reply) -> object:
    """The output tokens a reply reports, None where it reports none: its `output_tokens`,
    or, for a reply in the API's shape (a `SimulatedModel`'s), its `usage.output_tokens`."""
    tokens = reply.get("output_tokens")
    usage = reply.get("usage")
    if tokens is None and isinstance(usage, Mapping):
        tokens = usage.get("output_tokens")
    return tokens


def _has_compact(request: Mapping[str, Any]) -> bool:
    edits = (request.get("context_management") or {}).get("edits") or []
    return any(isinstance(e, Mapping) and e.get("type") == "compact_20260112" for e in edits)
