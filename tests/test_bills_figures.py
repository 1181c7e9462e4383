"""A report's figures worked out in two parts add up to the figures worked out in one."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_bills import _usage

import context_budget.bills as bills
from context_budget._aside import Aside
from context_budget.bills import Bill, _in_time, figures_of
from context_budget.sessions.session import Call, ThreadId
from context_budget.usage import Usage

#: Threads of three sessions: main threads and sub-agents.
_THREADS = ["a/main", "a/agent-1", "b/main", "b/agent-2", "b/agent-3", "c/main"]
#: Models with a price, and one without.
_MODELS = ["claude-sonnet-4-5", "claude-opus-4-6", "claude-haiku-4-5", "mystery-model"]
_TOKENS = st.integers(0, 300_000)

_USAGE = st.builds(
    _usage,
    st.integers(0, 5_000),
    _TOKENS,
    _TOKENS,
    st.sampled_from([0, 0, 20_000]),
    st.integers(0, 20_000),
)


def _call(
    thread: str, when: float | None, model: str, usage: Usage, segment: int, why: Any
) -> Call:
    session, name = thread.split("/")
    kind = "main" if name == "main" else "agent"
    return Call(
        ThreadId(session, kind, agent=name.removeprefix("agent-") if kind == "agent" else ""),
        when,
        model,
        usage,
        sidechain="agent" in thread,
        segment=segment,
        provider_reason=why,
    )


_CALL = st.builds(
    _call,
    st.sampled_from(_THREADS),
    st.one_of(st.none(), st.sampled_from([0.0, 60.0, 60.5, 400.0, 4_000.0]), st.floats(0, 9e3)),
    st.sampled_from(_MODELS),
    _USAGE,
    st.integers(0, 1),
    st.sampled_from([None, None, "messages_changed", "unavailable"]),
)


def _bill(calls: list[Call], lines: list[Call]) -> Bill:
    """A bill of `calls` in time order, its usage lines the calls and `lines`."""
    ordered = tuple(calls[k] for k in _in_time([call.timestamp for call in calls]))
    return Bill(ordered, "claude-code", _lines=(*calls, *lines))


def _in_two_parts(bill: Bill) -> Any:
    """`figures_of(bill)` with the bill cut in two parts, the child's worked out here."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bills, "ASIDE_CALLS", 1)
        patch.setattr(bills, "can_fork", lambda: True)
        patch.setattr(bills, "aside", lambda work: Aside(work))
        return figures_of(bill)


@given(st.lists(_CALL, min_size=2, max_size=40), st.lists(_CALL, max_size=10))
def test_two_parts_add_up_to_one_to_the_last_bit(calls: list[Call], lines: list[Call]) -> None:
    """Costs, what-ifs, rebuilds, lifetimes and numbers: every field equal, floats to the
    last bit, whatever the sessions' calls, times (ties and none among them) and models."""
    one = figures_of(_bill(calls, lines))
    two = _in_two_parts(_bill(calls, lines))
    assert two == one
    assert one.cost == _bill(calls, lines).cost()
    assert one.what_if == _bill(calls, lines).what_if()


def test_the_parts_are_whole_sessions_in_order_of_first_call() -> None:
    usage = Usage(input_tokens=10, output_tokens=1)
    calls = [
        _call(t, float(k), "claude-sonnet-4-5", usage, 0, None)
        for k, t in enumerate(
            ["b/main", "a/main", "b/agent-2", "c/main", "a/main", "c/main", "c/main"]
        )
    ]
    first, second = bills._cut(_bill(calls, []))
    assert first == [1, 2, 3, 5]  # b, then a: over half the calls
    assert second == [4, 6, 7]


def test_a_bill_of_one_session_is_one_part() -> None:
    usage = Usage(input_tokens=10, output_tokens=1)
    calls = [_call("a/main", float(k), "claude-sonnet-4-5", usage, 0, None) for k in range(4)]
    bill = _bill(calls, [])
    parts, _ = bills._parts(bill, None)
    assert len(parts) == 1
    assert _in_two_parts(_bill(calls, [])) == figures_of(bill)


def _collector_seen(monkeypatch: pytest.MonkeyPatch, module: Any, step: str) -> list[bool]:
    """A list that notes, each time `module`'s `step` runs, whether the collector is on."""
    seen: list[bool] = []
    real = getattr(module, step)
    monkeypatch.setattr(module, step, lambda *args: seen.append(gc.isenabled()) or real(*args))
    return seen


def _four_calls() -> Bill:
    usage = Usage(input_tokens=10, output_tokens=1)
    calls = [_call("a/main", float(k), "claude-sonnet-4-5", usage, 0, None) for k in range(4)]
    return _bill(calls, [])


def test_the_figures_are_worked_out_with_the_collector_held_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The costs and figures of a large bill hold no cycles; the collector walking them
    again and again took a quarter of the figures' time on a 202 MB folder. It is held
    off while they are worked out, and left on again after."""
    seen = _collector_seen(monkeypatch, bills, "_part")
    assert gc.isenabled()
    figures_of(_four_calls())
    assert seen == [False]
    assert gc.isenabled()


@pytest.mark.parametrize("method", ["lifetimes", "rebuilds", "what_if", "cost"])
def test_a_bills_own_answers_are_worked_out_with_the_collector_held_off(
    monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    """Each answer a library user asks a bill for directly, pricing its calls first, is
    worked out with the collector held off, and leaves it on."""
    seen = _collector_seen(monkeypatch, bills, "_priced")
    getattr(_four_calls(), method)()
    assert seen and not any(seen)
    assert gc.isenabled()
