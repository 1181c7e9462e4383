"""mini-swe-agent trajectories: OpenAI messages, one assistant message per API call.

A trajectory is one JSON object, `trajectory_format: "mini-swe-agent-1.x"`,
with `info.model_stats.{instance_cost, api_calls}` and `messages` (read as
OpenAI messages). The last message, `role: "exit"`, is the run's final output
(the submission, a diff), not a turn: it is kept apart, as a `FinalOutput`.
Each assistant message that came from the model carries
`extra.response.usage` (LiteLLM's shape) and `extra.cost` (USD, LiteLLM's
price); the costs add up to `instance_cost`. A call's time is
`extra.timestamp`; the 1.x releases before it wrote none, and there it is the
response's own `created` (seconds since the epoch, as the Chat Completions API
gives it). The thread is `<instance id>/main`.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from context_budget.layers import Layers
from context_budget.sessions.openai_chat import read_openai, text_of
from context_budget.sessions.session import (
    Call,
    FinalOutput,
    Session,
    ThreadId,
    checked_layers,
)
from context_budget.sessions.text import FormatError, dollars, epoch, kind_of, object_at
from context_budget.usage import Usage

__all__ = ["is_trajectory", "read"]

_EMPTY = Layers("", [], [])


def is_trajectory(data: object) -> bool:
    """Whether a loaded JSON value is a mini-swe-agent trajectory."""
    name = data.get("trajectory_format") if isinstance(data, dict) else None
    return isinstance(name, str) and name.startswith("mini-swe-agent")


def _final(data: dict[str, Any], messages: list[Any]) -> tuple[list[Any], FinalOutput | None]:
    """The messages without the run's final output, and that output."""
    exits = [
        index
        for index, message in enumerate(messages)
        if isinstance(message, dict) and message.get("role") == "exit"
    ]
    if not exits:
        return messages, None
    if exits != [len(messages) - 1]:
        raise ValueError(
            f"message {exits[0]} has role 'exit', the run's final output, but is not the last "
            f"of the {len(messages):,} messages"
        )
    last = messages[-1]
    extra, info = object_at(last, "extra"), object_at(data, "info")
    status = extra.get("exit_status", info.get("exit_status"))
    submission = extra.get("submission", info.get("submission"))
    text = submission if isinstance(submission, str) and submission else last.get("content")
    where = f"message {exits[0]} (exit)"
    final = FinalOutput(status if isinstance(status, str) else "", text_of(text, where))
    return messages[:-1], final


def _calls(data: dict[str, Any], messages: list[Any], thread: ThreadId) -> list[Call]:
    model_config = object_at(object_at(object_at(data, "info"), "config"), "model")
    default_model = model_config.get("model_name", "unknown")
    calls = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise ValueError(
                f"messages[{index}]: a message must be an object, found {kind_of(message)}"
            )
        extra = object_at(message, "extra")
        response = extra.get("response")
        if message.get("role") != "assistant" or not isinstance(response, dict):
            continue
        if response.get("usage") is None:
            continue
        where = f"messages[{index}]"
        model = response.get("model")
        calls.append(
            Call(
                thread=thread,
                timestamp=_time(extra, response, where),
                model=model if isinstance(model, str) else str(default_model),
                usage=Usage.of(
                    response["usage"], where=f"{where}.extra.response.usage", strict=False
                ),
                recorded_cost=dollars(extra.get("cost"), f"{where}.extra.cost"),
            )
        )
    return calls


def _time(extra: dict[str, Any], response: dict[str, Any], where: str) -> float | None:
    """A call's time: `extra.timestamp`, else the response's `created` (a whole number of
    seconds, above 0, within the years `text.epoch` reads); None when neither is recorded.

    Raises:
        ValueError: an `extra.timestamp` that is no time, naming it.
    """
    if extra.get("timestamp") is not None:
        return epoch(extra["timestamp"], f"{where}.extra.timestamp")
    created = response.get("created")
    if type(created) is not int or created <= 0:
        return None
    try:
        return epoch(created, f"{where}.extra.response.created")
    except ValueError:  # not seconds (milliseconds, say): a stand-in, not the record's own
        return None


def read(data: object, name: str = "") -> Session:
    """A loaded trajectory as a `Session`: its conversation, final output and calls.

    Raises:
        FormatError: not a trajectory object with a `messages` list.
    """
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        found = kind_of(data) if not isinstance(data, dict) else "an object without a messages list"
        raise FormatError(
            f"expected a mini-swe-agent trajectory (an object with messages), found {found}"
        )
    ident = data.get("instance_id")
    stem = ident if isinstance(ident, str) else PurePath(name).stem
    thread = ThreadId(stem.removesuffix(".traj") or "trajectory")
    layers, final, problem = None, None, None
    try:
        messages, final = _final(data, data["messages"])
        layers = checked_layers(read_openai(messages))
        if not layers.conversation:
            raise ValueError("a mini-swe-agent trajectory with no conversation: no messages")
    except (TypeError, ValueError) as error:
        problem = error
    calls, usage_problem = [], None
    try:
        calls = _calls(data, data["messages"], thread)
    except ValueError as error:
        usage_problem = error
    stats = object_at(object_at(data, "info"), "model_stats")
    api_calls = stats.get("api_calls")
    try:
        recorded = dollars(stats.get("instance_cost"), "instance_cost")
    except ValueError as error:
        recorded, usage_problem = None, usage_problem or error
    return Session(
        "mini-swe-agent",
        layers or _EMPTY,
        main=thread,
        calls=tuple(calls),
        usage_records=tuple(calls),
        final=final,
        files=(name,) if name else (),
        recorded_cost=recorded,
        recorded_tokens=(
            {"api_calls": api_calls}
            if isinstance(api_calls, int) and not isinstance(api_calls, bool)
            else None
        ),
        conversation_error=problem,
        usage_error=usage_problem,
    )
