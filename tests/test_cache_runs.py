"""The cache chapters' runs: `middle_run` is `run_agent` with one request plan per strategy."""

from __future__ import annotations

import pytest

from context_budget.scenarios.cache_runs import RESTART_AT, middle_run


def test_an_unknown_strategy_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="got 'trim'"):
        middle_run("trim")


@pytest.mark.parametrize("strategy", ["append", "client_clear", "server_clear", "restart"])
def test_every_strategy_makes_one_call_per_read_and_one_to_answer(strategy: str) -> None:
    calls = middle_run(strategy, reads=6)
    assert len(calls) == 7 and calls[0].guard == "first"


def test_only_the_append_only_ways_keep_every_request_an_append() -> None:
    verdicts = {
        name: {c.guard for c in middle_run(name)[1:]} for name in ("append", "server_clear")
    }
    assert verdicts == {"append": {"append"}, "server_clear": {"append"}}
    assert "edited" in {c.guard for c in middle_run("client_clear")}
    assert "replaced" in {c.guard for c in middle_run("restart")}


def test_the_server_clears_and_the_restart_keeps_the_prompt_small() -> None:
    assert sum(c.cleared for c in middle_run("server_clear")) > 0
    restart = middle_run("restart")
    assert max(c.usage.prompt_tokens for c in restart) < max(
        c.usage.prompt_tokens for c in middle_run("append")
    )
    assert max(c.usage.prompt_tokens for c in middle_run("append")) > RESTART_AT
