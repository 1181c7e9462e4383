"""mini-swe-agent trajectories: one assistant message per API call.

A trajectory is one JSON object, `trajectory_format: "mini-swe-agent-1.x"`,
with `info.model_stats.{instance_cost, api_calls}` and `messages`. Each
assistant message that came from the model carries `extra.response.usage`
(LiteLLM's shape) and `extra.cost` (USD, LiteLLM's price); the costs add up to
`instance_cost`. The last message, `role: "exit"`, is the run's output, not a
call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from context_budget._bills.call import Call, Reading
from context_budget._bills.fields import epoch
from context_budget._bills.litellm import litellm_tokens

__all__ = ["is_trajectory", "read_mini_swe_agent"]


def is_trajectory(data: Any) -> bool:
    """Whether a loaded JSON value is a mini-swe-agent trajectory."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("trajectory_format"), str)
        and data["trajectory_format"].startswith("mini-swe-agent")
    )


def _cost(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise ValueError(f"{where}: a cost must be a number >= 0 (USD), got {value!r:.60}")
    return float(value)


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def read_mini_swe_agent(data: dict[str, Any], path: Path) -> Reading:
    """Read a loaded trajectory (thread `<instance>/main`).

    Raises:
        ValueError: `messages` is not a list, or a usage or cost is malformed.
    """
    reading = Reading("mini-swe-agent")
    messages = data.get("messages")
    if not isinstance(messages, list):
        raise ValueError(f"{path.name}: messages must be a list, got {type(messages).__name__}")
    info = _object(data.get("info"))
    model_config = _object(_object(info.get("config")).get("model"))
    default_model = model_config.get("model_name", "unknown")
    ident = data.get("instance_id")
    name = ident if isinstance(ident, str) else path.stem
    for index, message in enumerate(messages):
        extra = _object(message.get("extra") if isinstance(message, dict) else None)
        response = extra.get("response")
        if message.get("role") != "assistant" or not isinstance(response, dict):
            continue
        where = f"{path.name} messages[{index}]"
        usage = response.get("usage")
        if usage is None:
            continue
        tokens = litellm_tokens(usage, f"{where}.extra.response.usage")
        model = response.get("model") if isinstance(response.get("model"), str) else default_model
        reading.calls.append(
            Call(
                thread=f"{name.removesuffix('.traj')}/main",
                timestamp=epoch(extra.get("timestamp"), f"{where}.extra.timestamp"),
                model=str(model),
                input_tokens=tokens[0],
                cache_read_input_tokens=tokens[1],
                cache_creation_5m=tokens[2],
                cache_creation_1h=tokens[3],
                output_tokens=tokens[4],
                recorded_cost=_cost(extra.get("cost"), f"{where}.extra.cost"),
            )
        )
    reading.lines = list(reading.calls)
    stats = _object(info.get("model_stats"))
    reading.recorded_cost = _cost(stats.get("instance_cost"), f"{path.name} instance_cost")
    calls = stats.get("api_calls")
    if isinstance(calls, int) and not isinstance(calls, bool):
        reading.recorded_tokens = {"api_calls": calls}
    return reading
