"""`read_bill`: one call per API call on real and labelled synthetic sessions, priced, explained."""

from __future__ import annotations

import json
import runpy
from dataclasses import replace
from math import fsum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from context_budget import PRICES, Bill, bills, model_family, model_for, price_for, read_bill
from context_budget.bills import Call
from context_budget.pricing import Cost, cost
from context_budget.usage import Usage, split_writes

SESSIONS = Path(__file__).resolve().parent.parent / "docs" / "measured" / "sessions"
PROJECT = SESSIONS / "sample-project"
FE5E = PROJECT / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
SYNTHETIC = SESSIONS / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"
ROLLOUT = SESSIONS / "synthetic" / "rollout-2026-03-02T09-00-00-synthetic.jsonl"
TRAJECTORY = SESSIONS / "mini-swe-agent" / "astropy__astropy-12907.traj.json"
OPENHANDS = SESSIONS / "openhands" / "basic_gui_mode.json"


# ---------------------------------------------------------------- the worked real session


def test_fe5e1c67_is_170_calls_from_262_lines() -> None:
    bill = read_bill(FE5E)
    assert (len(bill.calls), len(bill.every_line().calls)) == (170, 262)
    assert bill.format == "claude-code"
    assert bill.models == ("claude-sonnet-4-20250514",)


def test_fe5e1c67_costs_2_39_at_sonnet_4_list_prices() -> None:
    cost = read_bill(FE5E).cost()
    assert round(cost.total, 2) == 2.39
    assert round(cost.uncached_input, 4) == 0.0025
    assert round(cost.cache_writes, 3) == 0.517
    assert round(cost.cache_reads, 3) == 1.094
    assert round(cost.output, 3) == 0.779


def test_fe5e1c67_reads_96_3_percent_from_cache() -> None:
    assert round(read_bill(FE5E).cache_read_share, 3) == 0.963


def test_counting_every_line_bills_3_78() -> None:
    assert round(read_bill(FE5E).every_line().cost().total, 2) == 3.78


def test_fe5e1c67_what_ifs_on_the_input_side() -> None:
    what = read_bill(FE5E).what_if()
    assert round(what.actual, 2) == 1.61
    assert round(what.no_caching, 2) == 11.36
    assert round(what.all_writes_1h, 2) == 1.92
    assert round(what.staggered_starts, 2) == 1.54
    assert what.rebuilds_read == what.actual  # no rebuild to save on


def test_fe5e1c67_has_no_rebuild_though_four_calls_write_a_fifth_of_their_prompt() -> None:
    bill = read_bill(FE5E)
    heavy = [c for c in bill.calls if c.cache_creation_input_tokens > 0.2 * c.prompt_tokens]
    assert len(heavy) == 4
    assert bill.rebuilds() == []


def test_fe5e1c67_keeps_its_five_sub_agents_apart() -> None:
    threads = read_bill(FE5E).threads
    assert list(threads) == ["fe5e1c67/main"] + [f"fe5e1c67/sidechain-{n}" for n in range(1, 6)]
    assert sum(threads.values()) == 170
    cold = [
        c
        for c in read_bill(FE5E).calls
        if c.sidechain and c.cache_read_input_tokens == 0 and c.cache_creation_input_tokens
    ]
    assert len(cold) == 3
    assert len({int(c.timestamp or 0) for c in cold}) == 1  # the same second


def test_the_project_folder_reads_every_session_and_agent_file() -> None:
    bill = read_bill(PROJECT)
    parts = [len(read_bill(PROJECT / f).calls) for f in sorted(p.name for p in PROJECT.iterdir())]
    assert len(bill.calls) == sum(parts) == 199
    assert "5c0375b4/agent-test-hash-123" in bill.threads
    assert read_bill(sorted(PROJECT.iterdir())).calls == bill.calls


def test_calls_are_in_time_order() -> None:
    times = [c.timestamp or 0.0 for c in read_bill(PROJECT).calls]
    assert times == sorted(times)


@given(st.lists(st.one_of(st.none(), st.sampled_from([0.0, 1.5, 2.0, 7.25])), max_size=12))
@example([2.0, None, 1.5, None, 2.0])
def test_calls_without_a_time_come_last_and_ties_keep_the_order_read(
    stamps: list[float | None],
) -> None:
    order = bills._in_time(stamps)
    timed = [k for k, stamp in enumerate(stamps) if stamp is not None]
    expected = sorted(timed, key=lambda k: (stamps[k], k)) + [
        k for k, stamp in enumerate(stamps) if stamp is None
    ]
    assert order == expected


# ---------------------------------------------------------------- rebuilds


def test_the_synthetic_session_gives_ttl_prefix_changed_compaction_ttl() -> None:
    rebuilds = read_bill(SYNTHETIC).rebuilds()
    assert [(r.call, r.cause) for r in rebuilds] == [
        (4, "ttl"),
        (6, "prefix-changed"),
        (8, "compaction"),
        (10, "ttl"),
    ]
    assert [r.lost_tokens for r in rebuilds] == [14_300, 4_500, 2_700, 14_500]
    assert rebuilds[0].gap_seconds == pytest.approx(738.0)
    edit = rebuilds[1].first_difference
    assert edit is not None and edit.startswith("user ") and edit.endswith(".jsonl:16)")
    assert all(r.first_difference is None for r in rebuilds if r.cause != "prefix-changed")


def test_extra_cost_is_the_rewrite_minus_the_read() -> None:
    ttl = read_bill(SYNTHETIC).rebuilds()[0]  # wrote 14,600 at $3.75, 14,300 of them lost
    price = PRICES["claude-sonnet-4-5"]
    assert ttl.extra_usd == pytest.approx(14_300 * (price.write_5m - price.read) / 1e6)
    what = read_bill(SYNTHETIC).what_if()
    rebuilds = read_bill(SYNTHETIC).rebuilds()
    avoidable = sum(r.extra_usd or 0.0 for r in rebuilds if r.cause != "compaction")
    assert what.rebuilds_read == pytest.approx(what.actual - avoidable)


def test_the_synthetic_files_are_what_their_generator_writes() -> None:
    made = runpy.run_path(str(SESSIONS.parent.parent.parent / "tools" / "synthetic_sessions.py"))
    for name, text in made["files"]().items():
        assert (SESSIONS / "synthetic" / name).read_text(encoding="utf-8") == text


def _assistant(
    at: str, read: int, write: int, *, ident: str, hour: bool = False, model: str = "x", **kw: Any
) -> dict[str, Any]:
    split = {"ephemeral_5m_input_tokens": 0 if hour else write}
    split["ephemeral_1h_input_tokens"] = write if hour else 0
    line = {
        "type": "assistant",
        "uuid": f"u-{ident}",
        "parentUuid": kw.pop("parent", None),
        "isSidechain": kw.pop("sidechain", False),
        "sessionId": "abcd1234-0000",
        "timestamp": at,
        "requestId": kw.pop("request", f"req-{ident}"),
        "message": {
            "id": f"msg-{ident}",
            "model": model if model != "x" else "claude-sonnet-4-6",
            "usage": {
                "input_tokens": kw.pop("input", 5),
                "cache_read_input_tokens": read,
                "cache_creation_input_tokens": write,
                "cache_creation": split,
                "output_tokens": kw.pop("output", 10),
            },
        },
    }
    line.update(kw)
    return line


def _session(tmp_path: Path, lines: list[dict[str, Any]], name: str = "s.jsonl") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_one_hour_prefix_survives_a_ten_minute_pause(tmp_path: Path) -> None:
    lines = [
        _assistant("2026-01-01T00:00:00Z", 0, 20_000, ident="a", hour=True),
        _assistant("2026-01-01T00:10:00Z", 15_000, 5_000, ident="b", hour=True),
        _assistant("2026-01-01T01:20:00Z", 0, 20_000, ident="c", hour=True),
    ]
    causes = [r.cause for r in read_bill(_session(tmp_path, lines)).rebuilds()]
    assert causes == ["prefix-changed", "ttl"]


def test_a_model_switch_and_plain_growth(tmp_path: Path) -> None:
    lines = [
        _assistant("2026-01-01T00:00:00Z", 0, 20_000, ident="a"),
        _assistant("2026-01-01T00:00:10Z", 20_000, 30_000, ident="b"),  # growth: read covers it
        _assistant("2026-01-01T00:00:20Z", 0, 50_000, ident="c", model="claude-opus-4-6"),
        _assistant("2026-01-01T00:00:30Z", 49_000, 0, ident="d", model="claude-opus-4-6"),
    ]
    rebuilds = read_bill(_session(tmp_path, lines)).rebuilds()
    assert [(r.call, r.cause, r.lost_tokens) for r in rebuilds] == [(3, "model-switch", 50_000)]


def test_a_loss_of_exactly_1024_tokens_is_not_a_rebuild(tmp_path: Path) -> None:
    lines = [
        _assistant("2026-01-01T00:00:00Z", 0, 10_000, ident="a"),
        _assistant("2026-01-01T00:00:10Z", 10_000 - 1024, 2_000, ident="b"),
        _assistant("2026-01-01T00:00:20Z", 10_976 - 1025, 2_000, ident="c"),
    ]
    assert [r.call for r in read_bill(_session(tmp_path, lines)).rebuilds()] == [3]


# ---------------------------------------------------------------- deduplication


def test_one_response_on_several_lines_is_one_call_with_the_larger_total(tmp_path: Path) -> None:
    lines = [
        _assistant("2026-01-01T00:00:00Z", 100, 2_000, ident="a", output=3),
        _assistant("2026-01-01T00:00:01Z", 100, 2_000, ident="a", output=250, uuid="u-a2"),
        _assistant("2026-01-01T00:00:02Z", 100, 2_000, ident="a", output=40, uuid="u-a3"),
    ]
    bill = read_bill(_session(tmp_path, lines))
    assert [c.output_tokens for c in bill.calls] == [250]
    assert bill.calls[0].timestamp == read_bill(_session(tmp_path, lines[:1])).calls[0].timestamp
    assert len(bill.every_line().calls) == 3


def test_the_copy_outside_a_sidechain_wins(tmp_path: Path) -> None:
    lines = [
        _assistant("2026-01-01T00:00:00Z", 0, 2_000, ident="a", output=99, sidechain=True),
        _assistant("2026-01-01T00:00:01Z", 0, 2_000, ident="a", output=5, uuid="u-a2"),
    ]
    (call,) = read_bill(_session(tmp_path, lines)).calls
    assert (call.sidechain, call.output_tokens) == (False, 5)


def test_without_a_request_id_the_message_id_is_the_key(tmp_path: Path) -> None:
    first = _assistant("2026-01-01T00:00:00Z", 0, 2_000, ident="a")
    second = _assistant("2026-01-01T00:00:01Z", 0, 2_000, ident="a", uuid="u-a2")
    del first["requestId"], second["requestId"]
    assert len(read_bill(_session(tmp_path, [first, second])).calls) == 1


def test_error_lines_and_other_line_types_are_skipped(tmp_path: Path) -> None:
    error = _assistant("2026-01-01T00:00:01Z", 0, 0, ident="e", model="<synthetic>")
    lines = [
        {"type": "summary", "summary": "x", "leafUuid": "u"},
        {"type": "file-history-snapshot", "snapshot": {}},
        _assistant("2026-01-01T00:00:00Z", 0, 2_000, ident="a"),
        error,
    ]
    assert len(read_bill(_session(tmp_path, lines)).calls) == 1


def test_a_subagents_folder_is_its_own_thread(tmp_path: Path) -> None:
    _session(tmp_path, [_assistant("2026-01-01T00:00:00Z", 0, 2_000, ident="a")], "p/s.jsonl")
    agent = [_assistant("2026-01-01T00:00:05Z", 0, 3_000, ident="b", sidechain=True)]
    _session(tmp_path, agent, "p/abcd1234-0000/subagents/agent-77.jsonl")
    bill = read_bill(tmp_path / "p")
    assert bill.threads == {"abcd1234/main": 1, "abcd1234/agent-77": 1}
    assert [c.sidechain for c in bill.calls] == [False, True]


def test_unicode_in_a_session_is_read(tmp_path: Path) -> None:
    line = _assistant("2026-01-01T00:00:00Z", 0, 2_000, ident="é😀\u2028")
    assert len(read_bill(_session(tmp_path, [line], "séance 😀.jsonl")).calls) == 1


# ---------------------------------------------------------------- other formats


def test_a_codex_rollout_matches_its_last_cumulative_total() -> None:
    bill = read_bill(ROLLOUT)
    assert (bill.format, len(bill.calls)) == ("codex", 4)  # a repeated total is not a call
    total = bill.recorded_tokens
    assert total is not None
    tokens = bill.tokens()
    assert tokens["input"] + tokens["cache_read"] == total["input_tokens"]
    assert tokens["cache_read"] == total["cached_input_tokens"]
    assert tokens["output"] == total["output_tokens"]
    assert bill.unpriced_models() == ()  # priced from its own row (test_gpt_prices)


def test_a_mini_swe_agent_trajectory_matches_its_recorded_cost_and_calls() -> None:
    data = json.loads(TRAJECTORY.read_text(encoding="utf-8"))
    bill = read_bill(TRAJECTORY)
    assert len(bill.calls) == data["info"]["model_stats"]["api_calls"] == 64
    assert bill.recorded_cost == pytest.approx(data["info"]["model_stats"]["instance_cost"])
    assert sum(c.recorded_cost or 0.0 for c in bill.calls) == pytest.approx(bill.recorded_cost)
    prompts = sum(
        m["extra"]["response"]["usage"]["prompt_tokens"]
        for m in data["messages"]
        if m["role"] == "assistant"
    )
    assert sum(c.prompt_tokens for c in bill.calls) == prompts
    assert bill.unpriced_models() == ()


def test_a_deepseek_v4_flash_run_is_priced_at_deepseeks_rates_where_litellm_used_v3_2s() -> None:
    """Every call the trajectory recorded was costed by LiteLLM at deepseek-chat's V3.2
    rates ($0.28 miss, $0.028 hit, $0.42 output); DeepSeek's page prices V4 Flash, the model
    each response names, at $0.14 / $0.0028 / $0.28 from its launch: a quarter of it."""
    bill = read_bill(TRAJECTORY)
    for call in bill.calls:
        v32 = (call.input_tokens * 0.28 + call.cache_read * 0.028 + call.output_tokens * 0.42) / 1e6
        assert call.recorded_cost == pytest.approx(v32, rel=1e-9)
    v4 = sum(
        (c.input_tokens * 0.14 + c.cache_read * 0.0028 + c.output_tokens * 0.28) / 1e6
        for c in bill.calls
    )
    assert bill.cost().total == pytest.approx(v4) == pytest.approx(0.010360028)
    assert bill.recorded_cost == pytest.approx(0.04282166)


def test_an_openhands_file_keeps_one_call_per_model_response() -> None:
    events = json.loads(OPENHANDS.read_text(encoding="utf-8"))
    usages = {
        e["tool_call_metadata"]["model_response"]["id"]: e["tool_call_metadata"]["model_response"]
        for e in events
        if (e.get("tool_call_metadata") or {}).get("model_response")
    }
    bill = read_bill(OPENHANDS)
    assert (len(bill.calls), len(bill.every_line().calls)) == (len(usages), 8) == (4, 8)
    assert sum(c.prompt_tokens for c in bill.calls) == sum(
        u["usage"]["prompt_tokens"] for u in usages.values()
    )
    assert sum(c.output_tokens for c in bill.calls) == sum(
        u["usage"]["completion_tokens"] for u in usages.values()
    )


# ---------------------------------------------------------------- prices


def test_dated_ids_map_to_their_family() -> None:
    assert model_family("claude-sonnet-4-5-20250929") == "claude-sonnet-4-5"
    assert model_family("claude-sonnet-4-20250514") == "claude-sonnet-4"
    assert model_family("claude-3-7-sonnet-latest") == "claude-3-7-sonnet"
    assert price_for("claude-opus-4-1-20250805") == PRICES["claude-opus-4-1"]
    assert price_for("deepseek/deepseek-chat") == PRICES["deepseek-chat"]
    assert price_for("llama-9-70b") is None and price_for("<synthetic>") is None


@pytest.mark.parametrize(
    ("model", "rates"),
    [
        ("claude-sonnet-4", (3.0, 3.75, 6.0, 0.30, 15.0)),
        ("claude-opus-4", (15.0, 18.75, 30.0, 1.50, 75.0)),
        ("claude-opus-4-1", (15.0, 18.75, 30.0, 1.50, 75.0)),
        ("claude-3-7-sonnet", (3.0, 3.75, 6.0, 0.30, 15.0)),
        ("claude-3-5-haiku", (0.80, 1.0, 1.6, 0.08, 4.0)),
        ("claude-3-opus-20240229", (15.0, 18.75, 30.0, 1.50, 75.0)),
        ("claude-3-haiku-20240307", (0.25, 0.30, 0.50, 0.03, 1.25)),
    ],
)
def test_older_models_have_dated_sourced_prices(model: str, rates: tuple[float, ...]) -> None:
    price = price_for(model)
    assert price is not None, model
    assert (price.input, price.write_5m, price.write_1h, price.read, price.output) == pytest.approx(
        rates
    )
    assert price.as_of and "pricing" in price.source


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "empty"),
        ("hello\n", "not a session"),
        ('{"a": 1}\n', "no known format: .* found an object with the keys 'a'$"),
        ("[1, 2]\n", "not a session"),
    ],
)
def test_a_file_in_no_known_format_is_refused(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "f.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=said):
        read_bill(path)


@pytest.mark.parametrize("bad", [-1, "12", True, 1.5, None])
def test_a_malformed_token_count_names_its_line(tmp_path: Path, bad: object) -> None:
    line = _assistant("2026-01-01T00:00:00Z", 0, 2_000, ident="a")
    line["message"]["usage"]["output_tokens"] = bad
    path = _session(tmp_path, [{"type": "summary"}, line])
    if bad is None:
        assert read_bill(path).calls[0].output_tokens == 0
        return
    with pytest.raises(
        ValueError, match=r"s\.jsonl: line 2 message\.usage\.output_tokens must be a whole number"
    ):
        read_bill(path, strict=True)
    with pytest.raises(ValueError, match=r"s\.jsonl: line 2 message\.usage\.output_tokens"):
        read_bill(path)  # the line held the file's only call: its reason is the bill's error


def test_a_session_without_usage_is_refused(tmp_path: Path) -> None:
    path = _session(tmp_path, [{"type": "user", "sessionId": "s", "message": {"content": "hi"}}])
    with pytest.raises(ValueError, match="no assistant line with usage"):
        read_bill(path)


def test_a_broken_line_names_its_number(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    line = json.dumps(_assistant("2026-01-01T00:00:00Z", 0, 1, ident="a"))
    path.write_text(line + "\n{oops\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"s\.jsonl: line 2: not valid JSON"):
        read_bill(path, strict=True)
    assert [skip.line for skip in read_bill(path).skipped] == [2]


def test_a_codex_total_that_goes_down_starts_a_new_run_of_totals(tmp_path: Path) -> None:
    def event(total: int, output: int) -> dict[str, Any]:
        usage = {"input_tokens": total, "cached_input_tokens": 0, "output_tokens": output}
        info = {"total_token_usage": usage}
        return {
            "timestamp": "2026-01-01T00:00:00Z",
            "type": "event_msg",
            "payload": {"type": "token_count", "info": info},
        }

    # 100 then 250 (a call of 150), reset to 50 (a call of 50), then 120 (a call of 70)
    path = _session(
        tmp_path, [event(100, 1), event(250, 3), event(50, 2), event(120, 5)], "r.jsonl"
    )
    bill = read_bill(path)
    assert [call.usage.input_tokens for call in bill.calls] == [100, 150, 50, 70]
    assert [call.usage.output_tokens for call in bill.calls] == [1, 2, 2, 3]
    assert bill.recorded_tokens is not None
    assert bill.recorded_tokens["input_tokens"] == 250 + 120


def test_paths_and_format_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no such file"):
        read_bill(tmp_path / "missing.jsonl")
    with pytest.raises(ValueError, match=r"no session file \(\.jsonl, \.json\)"):
        read_bill(tmp_path)
    with pytest.raises(ValueError, match="format must be one of"):
        read_bill(FE5E, format="aider")
    with pytest.raises(TypeError):
        read_bill([])
    with pytest.raises(TypeError):
        read_bill(42)  # type: ignore[arg-type]


def test_the_file_is_not_changed_by_reading(tmp_path: Path) -> None:
    before = FE5E.read_bytes()
    read_bill(FE5E).rebuilds()
    assert FE5E.read_bytes() == before


# ---------------------------------------------------------------- properties


def _usage(uncached: int, read: int, five: int, hour: int, output: int) -> Usage:
    return Usage(
        input_tokens=uncached,
        output_tokens=output,
        cache_creation_input_tokens=five + hour,
        cache_read_input_tokens=read,
        ephemeral_5m_input_tokens=five,
        ephemeral_1h_input_tokens=hour,
    )


def _calls(models: list[str], usage: st.SearchStrategy[Usage], segments: int) -> Any:
    """Calls on two threads at any time, on one of `models`, with a `usage` drawn."""
    return st.builds(
        Call,
        thread=st.sampled_from(["a/main", "a/sidechain-1"]),
        timestamp=st.floats(0, 1e6),
        model=st.sampled_from(models),
        usage=usage,
        segment=st.integers(0, segments),
    )


_CALL = _calls(
    ["claude-sonnet-4-20250514", "deepseek-chat", "claude-opus-4-6"],
    st.builds(
        _usage,
        st.integers(0, 10**6),
        st.integers(0, 10**6),
        st.integers(0, 10**6),
        st.integers(0, 10**6),
        st.integers(0, 10**5),
    ),
    2,
)


@given(st.lists(_CALL, min_size=1, max_size=30))
def test_every_rebuild_lost_over_1024_tokens_and_the_bill_adds_up(calls: list[Call]) -> None:
    bill = Bill(tuple(calls), "claude-code")
    for rebuild in bill.rebuilds():
        assert rebuild.lost_tokens > 1024
        assert rebuild.cause in ("ttl", "compaction", "model-switch", "prefix-changed")
        assert (rebuild.extra_usd is None) == (price_for(calls[rebuild.call - 1].model) is None)
        assert rebuild.extra_usd is None or rebuild.extra_usd >= 0
    parts = [bill.call_cost(n) for n in range(1, len(calls) + 1)]
    assert bill.cost().total == pytest.approx(sum(p.total for p in parts if p is not None))
    assert 0.0 <= bill.cache_read_share <= 1.0
    what = bill.what_if()
    assert what.rebuilds_read <= what.actual + 1e-9
    assert what.staggered_starts <= what.actual + 1e-9


def _input_side(usage: Usage, model: str, at: float | None) -> float:
    price = price_for(model, at=at)
    assert price is not None
    bill = cost(usage, price, at=at)
    return bill.uncached_input + bill.cache_writes + bill.cache_reads


def _moved_usage(usage: Usage, tokens: int, source: str, target: str, lifetime: str) -> Usage:
    """The usage with `tokens` moved between kinds, built as a `Usage` and checked by its
    constructor: what the bill's what-ifs compute on token counts, written out here on
    the usage itself (the last iteration of one that has them; 30-minute writes as
    5-minute ones; writes taken from both lifetimes in proportion)."""
    if usage.iterations:
        *head, last = usage.iterations
        return replace(
            usage, iterations=(*head, _moved_usage(last, tokens, source, target, lifetime))
        )
    thirty = usage.ephemeral_30m_input_tokens
    five, hour = split_writes(
        usage.cache_creation_input_tokens - thirty,
        usage.ephemeral_5m_input_tokens,
        usage.ephemeral_1h_input_tokens,
    )
    five += thirty
    kinds = {"uncached": usage.input_tokens, "read": usage.cache_read_input_tokens}
    tokens = max(0, min(tokens, five + hour if source == "written" else kinds[source]))
    if source == "written":
        from_hour = min(hour, round(tokens * hour / (five + hour))) if tokens else 0
        five, hour = five - (tokens - from_hour), hour - from_hour
    else:
        kinds[source] -= tokens
    if target == "written":
        five, hour = (five, hour + tokens) if lifetime == "1h" else (five + tokens, hour)
    else:
        kinds[target] += tokens
    return replace(
        usage,
        input_tokens=kinds["uncached"],
        cache_read_input_tokens=kinds["read"],
        cache_creation_input_tokens=five + hour,
        ephemeral_5m_input_tokens=five,
        ephemeral_1h_input_tokens=hour,
        ephemeral_30m_input_tokens=0,
    )


def _written_usage(usage: Usage, lifetime: str) -> Usage:
    """The usage with every cache write a `lifetime` one, its iterations' too."""
    parts = tuple(_written_usage(part, lifetime) for part in usage.iterations)
    written = usage.cache_creation_input_tokens
    return replace(
        usage,
        ephemeral_5m_input_tokens=written if lifetime == "5m" else 0,
        ephemeral_1h_input_tokens=written if lifetime == "1h" else 0,
        ephemeral_30m_input_tokens=0,
        iterations=parts,
    )


def _lifetimes_one_by_one(bill: Bill) -> dict[str, list[float]]:
    """Each thread's input side under each write lifetime, every call's changed usage
    built and priced on its own by `pricing.cost`."""
    sums: dict[str, list[float]] = {}
    last: dict[str, Call] = {}
    ttl = {r.call: r for r in bill.rebuilds() if r.cause == "ttl"}
    for number, call in enumerate(bill.calls, 1):
        before, last[call.thread] = last.get(call.thread), call
        if bill.call_cost(number) is None:
            continue
        both = sums.setdefault(call.thread, [0.0, 0.0])
        for index, (lifetime, seconds) in enumerate((("5m", 300.0), ("1h", 3600.0))):
            usage = _written_usage(call.usage, lifetime)
            if before is not None and call.timestamp - before.timestamp > seconds:  # type: ignore[operator]
                usage = _moved_usage(usage, call.cache_read, "read", "written", lifetime)
            elif before is not None and number in ttl:
                rewritten = min(ttl[number].lost_tokens, call.cache_write)
                usage = _moved_usage(usage, rewritten, "written", "read", "5m")
            both[index] += _input_side(usage, call.model, call.timestamp)
    return sums


def _rich_usage(
    counts: tuple[int, int, int, int, int],
    odd: int,
    rules: tuple[str, str],
    parts: list[tuple[int, int, int, int, int]],
) -> Usage:
    """A usage with what the plain ones lack: a write split that does not add up by
    `odd` tokens, fast mode or US-only inference, iterations."""
    uncached, read, five, hour, output = counts
    speed, geo = rules
    return Usage(
        input_tokens=uncached,
        output_tokens=output,
        cache_creation_input_tokens=five + hour + odd,
        cache_read_input_tokens=read,
        ephemeral_5m_input_tokens=five,
        ephemeral_1h_input_tokens=hour,
        speed=speed,
        inference_geo=geo,
        iterations=tuple(_usage(*part) for part in parts),
    )


_COUNTS = st.tuples(*[st.integers(0, 300_000)] * 4, st.integers(0, 10**4))
_RICH_CALL = _calls(
    ["claude-sonnet-4-20250514", "claude-opus-4-6", "claude-sonnet-4-5"],
    st.builds(
        _rich_usage,
        _COUNTS,
        st.integers(0, 5_000),
        st.sampled_from([("", ""), ("fast", ""), ("", "us"), ("fast", "us")]),
        st.lists(_COUNTS, max_size=3),
    ),
    1,
)


@given(st.lists(st.one_of(_CALL, _RICH_CALL), min_size=1, max_size=30))
def test_the_lifetime_what_ifs_are_what_pricing_each_call_on_its_own_gives(
    calls: list[Call],
) -> None:
    bill = Bill(tuple(calls), "claude-code")
    found = {life.thread: [life.five_minutes, life.one_hour] for life in bill.lifetimes()}
    assert found == _lifetimes_one_by_one(bill)  # to the last bit: the same sums, in order
    # the 1-hour what-if is the lifetime advice's, summed: one answer to one question
    assert bill.what_if().all_writes_1h == fsum(hour for _, hour in found.values())


@given(st.lists(st.one_of(_CALL, _RICH_CALL), min_size=1, max_size=30))
def test_the_rebuilds_and_no_caching_reprice_the_usage_each_would_have_recorded(
    calls: list[Call],
) -> None:
    bill = Bill(tuple(calls), "claude-code")
    for rebuild in bill.rebuilds():
        call, charged = calls[rebuild.call - 1], bill.call_cost(rebuild.call)
        if charged is None:
            assert rebuild.extra_usd is None
            continue
        written = min(rebuild.lost_tokens, call.cache_creation_input_tokens)
        uncached = min(rebuild.lost_tokens - written, call.input_tokens)
        read = _moved_usage(call.usage, uncached, "uncached", "read", "5m")
        read = _moved_usage(read, written, "written", "read", "5m")
        extra = _charged_input(charged) - _input_side(read, call.model, call.timestamp)
        assert rebuild.extra_usd == extra  # to the last bit
    no_caching: list[float] = []
    for number, call in enumerate(calls, 1):
        if bill.call_cost(number) is not None:
            parts = tuple(replace(p, input_tokens=p.prompt_tokens) for p in call.usage.iterations)
            uncached = replace(call.usage, input_tokens=call.usage.prompt_tokens, iterations=())
            uncached = _no_cache(uncached if not parts else replace(uncached, iterations=parts))
            price = price_for(call.model, at=call.timestamp)
            assert price is not None
            no_caching.append(cost(uncached, price, at=call.timestamp).uncached_input)
    assert bill.what_if().no_caching == fsum(no_caching)  # the exact sum, in any order


def _no_cache(usage: Usage) -> Usage:
    """The usage (and its iterations) with no cache write or read left."""
    return replace(
        usage,
        cache_creation_input_tokens=0,
        cache_read_input_tokens=0,
        ephemeral_5m_input_tokens=0,
        ephemeral_1h_input_tokens=0,
        ephemeral_30m_input_tokens=0,
        iterations=tuple(_no_cache(part) for part in usage.iterations),
    )


def _charged_input(bill: Cost) -> float:
    return bill.uncached_input + bill.cache_writes + bill.cache_reads


def test_a_malformed_time_names_its_line(tmp_path: Path) -> None:
    line = _assistant("yesterday", 0, 2_000, ident="a")
    with pytest.raises(ValueError, match=r"s\.jsonl: line 1 timestamp: not an ISO time"):
        read_bill(_session(tmp_path, [line]), strict=True)
    line = _assistant("2026-01-01T00:00:00Z", 0, 2_000, ident="a")
    line["message"]["usage"] = None
    with pytest.raises(ValueError, match="usage must be an object"):
        read_bill(_session(tmp_path, [line]), strict=True)
    with pytest.raises(ValueError, match=r"s\.jsonl: line 1 message\.usage must be an object"):
        read_bill(_session(tmp_path, [line]))


def test_a_litellm_usage_with_more_cached_than_sent_is_refused(tmp_path: Path) -> None:
    data = json.loads(TRAJECTORY.read_text(encoding="utf-8"))
    first = next(m for m in data["messages"] if m["role"] == "assistant")
    first["extra"]["response"]["usage"]["prompt_tokens_details"]["cached_tokens"] = 10**9
    path = tmp_path / "t.traj.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=r"messages\[2\].*exceed prompt_tokens"):
        read_bill(path)


_SPLIT = st.lists(
    st.tuples(
        st.integers(0, 50_000),  # read
        st.integers(0, 50_000),  # write
        st.lists(st.integers(0, 4_000), min_size=1, max_size=4),  # output on each line
    ),
    min_size=1,
    max_size=12,
)


@given(_SPLIT)
def test_a_response_split_over_lines_is_one_call_with_its_largest_output(
    responses: list[tuple[int, int, list[int]]],
) -> None:
    import tempfile

    lines = []
    for number, (read, write, outputs) in enumerate(responses):
        for part, output in enumerate(outputs):
            lines.append(
                _assistant(
                    f"2026-01-01T00:{number:02d}:{part:02d}Z",
                    read,
                    write,
                    ident=f"r{number}",
                    output=output,
                    uuid=f"u-{number}-{part}",
                )
            )
    with tempfile.TemporaryDirectory() as folder:
        bill = read_bill(_session(Path(folder), lines))
    assert len(bill.calls) == len(responses)
    assert len(bill.every_line().calls) == sum(len(o) for _, _, o in responses)
    assert [c.output_tokens for c in bill.calls] == [max(o) for _, _, o in responses]
    assert [c.cache_read_input_tokens for c in bill.calls] == [r for r, _, _ in responses]


@pytest.mark.parametrize(
    "name",
    [
        "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
        "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
    ],
)
def test_each_real_session_has_one_call_per_response_id(name: str) -> None:
    keys = set()
    for text in (PROJECT / name).read_text(encoding="utf-8").splitlines():
        line = json.loads(text)
        if line.get("type") == "assistant" and "usage" in line.get("message", {}):
            keys.add((line["message"]["id"], line.get("requestId")))
    bill = read_bill(PROJECT / name)
    assert len(bill.calls) == len(keys)
    assert bill.unpriced_models() == ()


@pytest.mark.parametrize(
    "model",
    [
        "claude-sonnet-4",
        "claude-opus-4",
        "claude-opus-4-1",
        "claude-3-7-sonnet",
        "claude-3-5-haiku",
        "claude-3-opus",
        "claude-3-haiku",
    ],
)
def test_older_priced_models_have_a_minimum_cacheable_length(model: str) -> None:
    from context_budget import MIN_CACHEABLE_TOKENS, PromptCache

    assert MIN_CACHEABLE_TOKENS[model].source
    PromptCache(model)  # the cache model runs on every priced model


def test_a_session_opening_with_a_line_type_of_a_later_version_is_read(tmp_path: Path) -> None:
    opening = {"type": "custom-title", "customTitle": "x", "uuid": "t-1"}
    path = _session(tmp_path, [opening, _assistant("2026-01-01T00:00:00Z", 0, 2_000, ident="a")])
    assert read_bill(path).format == "claude-code"


# ---------------------------------------------------------------- rebuilds, prices, the line


def test_a_prefix_written_partly_for_five_minutes_expires_in_five(tmp_path: Path) -> None:
    first = _assistant("2026-01-01T00:00:00Z", 0, 30_000, ident="a")
    first["message"]["usage"]["cache_creation"] = {
        "ephemeral_5m_input_tokens": 10_000,
        "ephemeral_1h_input_tokens": 20_000,
    }
    later = _assistant("2026-01-01T00:10:00Z", 20_000, 10_500, ident="b")
    (rebuild,) = read_bill(_session(tmp_path, [first, later])).rebuilds()
    assert (rebuild.cause, rebuild.lost_tokens) == ("ttl", 10_000)


def _reference_difference(messages: dict[str, Any], old: str, new: str) -> str | None:
    """The first message of `new`'s chain not at its place in `old`'s: the plain walk."""

    def path(message: str | None) -> list[str]:
        found: list[str] = []
        while message is not None and message in messages and message not in found:
            found.append(message)
            message = messages[message]
        return found[::-1]

    before, after = path(old), path(new)
    for index, ident in enumerate(after):
        if index >= len(before):
            return None
        if ident != before[index]:
            return ident
    return None


@given(
    st.lists(st.integers(0, 40), min_size=1, max_size=40),
    st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)), min_size=1, max_size=10),
)
# a soak run's find: m4's walk, m4 m22 m3 m19, loops back to m4, so m4's chain starts at m19
# (the walk from m3, the loop's first message in the file, would start it at m22)
@example([0, 0, 0, 19, 22, *[0] * 14, 4, 0, 0, 3], [(0, 4)])
def test_the_first_difference_is_the_plain_walks_on_any_tree(
    parents: list[int], pairs: list[tuple[int, int]]
) -> None:
    """Parents point anywhere: earlier messages, later ones, themselves, outside the file."""
    from context_budget.bills import Place

    tree = {f"m{i}": (f"m{p}" if p != i + 1 else None) for i, p in enumerate(parents)}
    places = {
        ident: Place(parent, "user", f"s.jsonl:{n}")
        for n, (ident, parent) in enumerate(tree.items())
    }
    for old, new in pairs:
        before = Call("t", 0.0, "claude-sonnet-4-5", _usage(0, 5_000, 0, 0, 1), message=f"m{old}")
        after = Call("t", 1.0, "claude-sonnet-4-5", _usage(0, 0, 5_000, 0, 1), message=f"m{new}")
        bill = Bill((before, after), "claude-code", _messages=places)
        expected = _reference_difference(tree, f"m{old}", f"m{new}")
        (rebuild,) = bill.rebuilds()
        shown = rebuild.first_difference
        assert (shown.split()[1] if shown else None) == expected, (tree, old, new)


def test_a_report_prices_each_call_once_and_finds_the_rebuilds_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import context_budget.bills as bills
    from context_budget.cli._bill import report

    bill = read_bill(SYNTHETIC)
    priced: list[int] = []
    found: list[int] = []
    price, rebuild = bills.billed, Bill._rebuild
    monkeypatch.setattr(
        bills, "billed", lambda usage, *a, **k: priced.append(id(usage)) or price(usage, *a, **k)
    )
    monkeypatch.setattr(Bill, "_rebuild", lambda self, *a: found.append(1) or rebuild(self, *a))
    report(bill, calls=True)
    assert len(found) == len(bill.rebuilds()) > 0  # each rebuild worked out once
    priced.clear()
    bill = read_bill(SYNTHETIC)
    bill.cost(), bill.what_if(), bill.rebuilds()
    [bill.call_cost(n) for n in range(1, len(bill.calls) + 1)]
    own = [id(call.usage) for call in bill.calls]
    assert sorted(i for i in priced if i in own) == sorted(own)


def test_the_printed_cost_is_the_sum_of_its_printed_parts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import re

    from context_budget.cli import main

    assert main(["bill", str(FE5E)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("cost: "))
    total, *parts = (float(n) for n in re.findall(r"\$([0-9.]+)", line))
    assert len(parts) == 4 and round(sum(parts), 4) == total, line


def test_names_with_a_line_break_are_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from context_budget.cli import main

    line = _assistant("2026-01-01T00:00:00Z", 0, 2_000, ident="a", model="claude-\nsonnet-4-5")
    path = _session(tmp_path, [line], "two\nlines.jsonl")
    assert main(["bill", str(path)]) == 0
    out = capsys.readouterr().out
    assert "two\\nlines.jsonl" in out and "claude-\\nsonnet-4-5" in out
    assert all(not x or x[0] != " " or x.startswith("  ") for x in out.splitlines())
    assert not any(x.startswith(("lines.jsonl", "sonnet")) for x in out.splitlines())


def test_a_report_works_out_each_what_if_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The report asks for the lifetimes itself and through the what-ifs: they are worked
    out once per price table, and again for another table."""
    from context_budget.cli._bill import report

    bill = read_bill(SYNTHETIC)
    asked: list[str] = []
    lifetimes, what_if = Bill._lifetimes, Bill._what_if
    monkeypatch.setattr(Bill, "_lifetimes", lambda s, p: asked.append("l") or lifetimes(s, p))
    monkeypatch.setattr(Bill, "_what_if", lambda s, p: asked.append("w") or what_if(s, p))
    first = report(bill, calls=True, by="day")
    assert asked == ["l"]  # the what-ifs add up the lifetimes worked out for the report
    assert report(bill, calls=True, by="day") == first and asked == ["l"]
    bill.what_if(), bill.lifetimes()
    assert asked == ["l"]  # kept
    bill.lifetimes(dict(PRICES))
    assert asked == ["l", "l"]


def test_writes_the_split_leaves_out_are_five_minute_ones_for_the_lifetime_too() -> None:
    """A usage built by hand with writes and no split: `pricing.cost` prices them as
    5-minute writes, and the next call's gap is weighed against 5 minutes (not a crash)."""
    from context_budget.sessions.session import Call, ThreadId
    from context_budget.usage import Usage

    thread = ThreadId("s", "main")
    first = Call(thread, 0.0, "claude-sonnet-4-5", Usage(0, 1, 5_000, 0, 0, 0))
    later = Call(thread, 400.0, "claude-sonnet-4-5", Usage(0, 1, 5_000, 0, 0, 0))
    (rebuild,) = Bill((first, later), "claude-code").rebuilds()
    assert rebuild.cause == "ttl" and rebuild.lost_tokens == 5_000


def test_a_bill_made_with_calls_that_are_no_calls_is_refused() -> None:
    """A string was taken as its letters: `with_calls("abc")` made a bill of three 'calls'."""
    bill = read_bill(PROJECT / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
    for bad, said in (("abc", "calls must be"), ([bill.calls[0], 3], r"calls\[1\] must be a Call")):
        with pytest.raises(TypeError, match=said):
            bill.with_calls(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="caches must be a dict"):
        bill.with_calls(bill.calls, caches=["x"])  # type: ignore[arg-type]
    assert bill.with_calls(list(bill.calls)).calls == bill.calls


def test_a_bill_made_with_caches_that_are_no_cache_policies_is_refused_at_once() -> None:
    """A cache of 1 was taken, and the bill failed when first priced, deep in pricing."""
    bill = read_bill(PROJECT / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
    model = bill.calls[0].model
    row = model_for(model)
    assert row is not None
    assert bill.with_calls(bill.calls, caches={model: row.cache}).caches == {model: row.cache}
    for bad in ({model: 1}, {3: row.cache}):
        with pytest.raises(TypeError, match=r"caches must be a dict of model id -> CachePolicy"):
            bill.with_calls(bill.calls, caches=bad)  # type: ignore[dict-item]


@pytest.mark.parametrize("strict", ["yes", None, 1])
def test_strict_that_is_no_bool_is_refused(strict: object) -> None:
    """`strict="no"` read as true refused the first skip a caller meant to keep."""
    with pytest.raises(TypeError, match="strict must be True or False"):
        read_bill(PROJECT, strict=strict)  # type: ignore[arg-type]


@pytest.mark.parametrize("lazy", ["no", None, 0])
def test_lazy_that_is_no_bool_is_refused(lazy: object) -> None:
    """`lazy="no"` read as true would leave a child waiting that the caller said not to."""
    with pytest.raises(TypeError, match=f"lazy must be True or False, got {lazy!r}"):
        read_bill(PROJECT, lazy=lazy)  # type: ignore[arg-type]


def test_a_list_of_paths_with_one_that_is_no_path_names_that_one() -> None:
    """`read_bill([path, 5])` repeated the whole list (cut at 60 characters, so a long
    list hid the item at fault); it names the item and its place."""
    paths = [str(PROJECT)] * 3 + [5]
    with pytest.raises(TypeError, match=r"path must be a list of paths; item 3 is 5$"):
        read_bill(paths)  # type: ignore[arg-type]


@pytest.mark.parametrize("given", [b"docs", bytearray(b"docs")])
def test_a_path_given_as_bytes_is_refused_as_one_path(given: bytes) -> None:
    """Bytes are a sequence of ints: `read_bill(b"docs")` said item 0 was 100."""
    with pytest.raises(TypeError, match=r"path must be a str or a path object, got b"):
        read_bill(given)  # type: ignore[arg-type]
