"""`replay`: a bill's calls sent again to the cache model under another policy, and priced."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import cases

from context_budget import Bill, Policy, read_bill, replay
from context_budget.models import model_for
from context_budget.pricing import cost, price_for
from context_budget.replay import (
    ASSUMPTION,
    DEFAULT_SUMMARY_TOKENS,
    lifetimes_offered,
    summary_size,
)
from context_budget.usage import Usage

SESSIONS = Path(__file__).resolve().parent.parent / "docs" / "measured" / "sessions"
PROJECT = SESSIONS / "sample-project"
FE5E = PROJECT / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
SYNTHETIC = SESSIONS / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"
CLAUDE_CODE_FILES = [*sorted(PROJECT.glob("*.jsonl")), SYNTHETIC]


def _input_side(bill: Bill) -> float:
    total = bill.cost()
    return total.uncached_input + total.cache_writes + total.cache_reads


# ---------------------------------------------------------------- the replay meets the bill


@pytest.mark.parametrize(
    "path",
    [SESSIONS, PROJECT, SYNTHETIC, *sorted(SESSIONS.glob("*/*.json"))],
    ids=lambda p: p.name[:20],
)
def test_with_the_sessions_own_policy_the_replay_is_within_two_percent_of_the_bill(
    path: Path,
) -> None:
    bill = read_bill(path)
    same = replay(bill)
    assert same.cost == pytest.approx(bill.cost().total, rel=0.02)
    assert same.unreplayed == ()


@pytest.mark.parametrize("path", CLAUDE_CODE_FILES, ids=lambda p: p.name[:12])
def test_every_call_the_replay_does_not_name_agrees_with_its_bill(path: Path) -> None:
    """What the departures do not explain is under half a percent of the bill."""
    bill = read_bill(path)
    same = replay(bill)
    named = sum(d.replayed_usd - d.bill_usd for d in same.departures)
    assert same.cost - named == pytest.approx(bill.cost().total, rel=0.005)
    for departure in same.departures:  # each named call does differ by more than 2%
        assert abs(departure.replayed_usd - departure.bill_usd) > 0.02 * departure.bill_usd


#: Every session file the course ships, each billed alone.
SHIPPED_FILES = sorted(p for p in SESSIONS.rglob("*") if p.is_file() and p.name != "SOURCES")


@pytest.mark.parametrize("path", SHIPPED_FILES, ids=lambda p: p.name[:20])
def test_every_shipped_file_billed_alone_replays_within_two_percent(path: Path) -> None:
    """Billed alone, a file's first call may read a prefix another session wrote: the
    replay takes what its read proves, and still names each call it prices otherwise."""
    bill = read_bill(path)
    same = replay(bill)
    assert same.cost == pytest.approx(bill.cost().total, rel=0.02)
    for departure in same.departures:
        assert departure.why and "\n" not in departure.why


def test_a_first_call_that_read_another_sessions_prefix_reads_it_alone_and_with_it() -> None:
    alone = replay(read_bill(FE5E))
    assert alone.warm == ((1, 14_874),)  # its prefix was written outside the file
    first = alone.bill.calls[0]
    assert first.cache_read_input_tokens == 14_874  # what the record read, now computed
    assert all(d.call != 1 for d in alone.departures)
    other = replay(read_bill(PROJECT / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"))
    assert other.warm == ((1, 4_734),) and other.bill.calls[0].cache_read_input_tokens == 4_734
    folder = read_bill(PROJECT)
    together = replay(folder)
    number = next(k for k, c in enumerate(folder.calls, 1) if c.thread.name == "fe5e1c67/main")
    # with the session that wrote it 282 s before in the bill, the bill explains the read
    assert number not in {call for call, _ in together.warm}
    assert together.bill.calls[number - 1].cache_read_input_tokens > 14_000
    assert folder.calls[number - 1].timestamp - folder.calls[number - 2].timestamp < 300


@pytest.mark.parametrize(
    ("model", "cache", "read"),
    [
        (None, None, 4_734),  # Anthropic: the entry at 4,734 tokens, read whole
        ("gpt-5.5", None, 4_608),  # a prefix cache: 1,024 then steps of 128
        ("gemini-3.1-pro-preview", None, 4_734),  # implicit, past its 4,096 minimum
        ("gemini-3.1-pro-preview", "explicit", 0),  # the explicit cache starts elsewhere
        ("claude-haiku-4-5", None, 4_734),  # its minimum is 4,096
    ],
)
def test_a_prefix_written_outside_the_bill_is_what_the_replays_rules_make_of_it(
    model: str | None, cache: str | None, read: int
) -> None:
    bill = read_bill(PROJECT / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
    done = replay(bill, Policy(model=model, cache=cache))
    assert done.warm == ((1, 4_734),)
    assert done.bill.calls[0].cache_read_input_tokens == read


def test_sub_agents_launched_together_each_write_and_later_ones_read_their_prefix() -> None:
    bill = read_bill(FE5E)
    same = replay(bill)
    firsts: dict[str, int] = {}
    for number, call in enumerate(bill.calls, 1):
        if call.sidechain:
            firsts.setdefault(call.thread, number)
    reads = [same.bill.calls[n - 1].cache_read_input_tokens for n in firsts.values()]
    assert reads[:3] == [0, 0, 0]  # sent before any of them had an answer: all miss
    assert min(reads[3:]) > 11_000  # four minutes later, the shared prefix is read


def test_the_replay_never_copies_the_recorded_cache_figures() -> None:
    """Swap every call's write and uncached split: the replay does not move. Its reads are
    what it takes from the record: a read proves a prefix a session outside the bill wrote
    (`Replay.warm`), or that the start of a request the files show unchanged had changed;
    a record that reads nothing makes the replay read less, never more."""
    bill = read_bill(PROJECT)
    same = replay(bill)
    warm = {call for call, _ in same.warm}
    assert warm == {1}

    def swapped(call: Any, keep_read: bool) -> Any:
        usage = call.usage
        prompt = usage.prompt_tokens
        read = usage.cache_read_input_tokens if keep_read else 0
        written = prompt - read
        five, hour = (0, written) if usage.ephemeral_1h_input_tokens else (written, 0)
        return replace(call, usage=Usage(0, usage.output_tokens, written, read, five, hour))

    def unwritten(call: Any) -> Any:
        usage = call.usage
        uncached = usage.prompt_tokens - usage.cache_read_input_tokens
        read = usage.cache_read_input_tokens
        return replace(call, usage=Usage(uncached, usage.output_tokens, 0, read, 0, 0))

    # every write recorded as uncached input, the reads kept: it does not move
    other = bill.with_calls([unwritten(c) for c in bill.calls])
    assert other.cost().total < 0.96 * bill.cost().total
    assert [c.usage for c in replay(other).bill.calls] == [c.usage for c in same.bill.calls]
    # every read gone: nothing proves call 1's prefix warm, and no call reads more
    cold = replay(bill.with_calls([swapped(c, False) for c in bill.calls])).bill.calls
    assert cold[0].cache_read_input_tokens == 0 < same.bill.calls[0].cache_read_input_tokens
    for now, was in zip(cold, same.bill.calls, strict=True):
        assert now.cache_read_input_tokens <= was.cache_read_input_tokens
        assert now.prompt_tokens == was.prompt_tokens


# ---------------------------------------------------------------- lifetimes


def test_one_hour_writes_remove_exactly_the_rebuilds_after_pauses_of_five_to_sixty_minutes() -> (
    None
):
    bill = read_bill(SYNTHETIC)
    paused = {
        r.call for r in bill.rebuilds() if r.cause == "ttl" and 300 < (r.gap_seconds or 0) <= 3600
    }
    assert paused == {4, 10}
    five = {r.call for r in replay(bill).bill.rebuilds()}
    hour = {r.call for r in replay(bill, Policy(ttl="1h")).bill.rebuilds()}
    assert five - hour == paused


def test_one_hour_writes_agree_with_the_lifetime_advice() -> None:
    for path in (SYNTHETIC, FE5E):
        bill = read_bill(path)
        (cheaper,) = {life.cheaper for life in bill.lifetimes()} - {None}
        five = _input_side(replay(bill, Policy(ttl="5m")).bill)
        hour = _input_side(replay(bill, Policy(ttl="1h")).bill)
        assert ("1h" if hour < five else "5m") == cheaper
    # on the synthetic session, call by call, but where the replay departs from the record
    bill = read_bill(SYNTHETIC)
    departed = {d.call for d in replay(bill).departures}
    hour_bill = replay(bill, Policy(ttl="1h")).bill
    life = bill.lifetimes()[0]
    assert departed == {6, 7, 8}
    kept = [n for n in range(1, len(bill.calls) + 1) if n not in departed]
    price = price_for(bill.calls[0].model)
    assert price is not None
    for number in kept:
        call = hour_bill.calls[number - 1]
        assert call.cache_creation_5m == 0
    assert hour_bill.what_if().actual < life.five_minutes


def test_ttl_is_refused_where_the_provider_offers_no_choice() -> None:
    rollout = read_bill(SESSIONS / "synthetic" / "rollout-2026-03-02T09-00-00-synthetic.jsonl")
    with pytest.raises(ValueError, match="gpt-5-codex's provider offers no choice"):
        replay(rollout, Policy(ttl="1h"))
    assert lifetimes_offered("claude-opus-4-6") == ("5m", "1h")
    assert lifetimes_offered("deepseek-v4-flash") == ()


# ---------------------------------------------------------------- clearing and compaction


def test_clearing_fires_changes_the_price_and_stops_a_results_rent() -> None:
    bill = read_bill(PROJECT)
    same = replay(bill)
    cleared = replay(bill, Policy(clear_at=20_000, keep=3))
    assert same.clearings == 0 and cleared.clearings > 0
    assert cleared.cost != pytest.approx(same.cost, rel=0.01)
    # each request over the trigger holds less than it did, never more
    for before, after in zip(same.bill.calls, cleared.bill.calls, strict=True):
        assert after.prompt_tokens <= before.prompt_tokens
    held = {r.where: r.calls for r in same.results}
    assert any(r.calls < held[r.where] for r in cleared.results)


def test_a_trigger_above_every_request_never_clears_nor_compacts() -> None:
    bill = read_bill(PROJECT)
    largest = max(call.prompt_tokens for call in bill.calls)
    same = replay(bill)
    quiet = replay(bill, Policy(clear_at=largest + 1, compact_at=largest + 1))
    assert (quiet.clearings, quiet.compactions) == (0, 0)
    assert quiet.cost == same.cost


def test_compaction_fires_prices_its_summary_and_the_next_call_rebuilds() -> None:
    bill = read_bill(PROJECT)
    done = replay(bill, Policy(compact_at=25_000))
    assert done.compactions >= len(done.summaries) > 0
    assert done.summary_tokens == DEFAULT_SUMMARY_TOKENS
    assert len(done.bill.calls) == len(bill.calls) + len(done.summaries)
    for number in done.summaries:
        summary = done.bill.calls[number - 1]
        assert summary.output_tokens == DEFAULT_SUMMARY_TOKENS
        assert summary.cache_read_input_tokens > 0  # it reads the history it summarizes
    causes = {r.call: r.cause for r in done.bill.rebuilds()}
    for number in done.summaries:  # the call after each summary writes the new history
        assert causes.get(number + 1) == "compaction"
    assert done.cost != pytest.approx(replay(bill).cost, rel=0.01)


def test_the_files_own_summary_sets_the_summary_size() -> None:
    bill = read_bill(SYNTHETIC)
    done = replay(bill, Policy(compact_at=13_000))
    # the file's own summary line, as its calls' prompts size it
    assert 0 < done.summary_tokens != DEFAULT_SUMMARY_TOKENS
    assert replay(bill, Policy(compact_at=13_000, summary_tokens=500)).summary_tokens == 500


def test_a_threshold_not_above_the_summary_it_would_use_is_refused_naming_both() -> None:
    # the files' own summary (2,072 tokens) and the default one are held to the rule a
    # summary_tokens given is held to: below compact_at, else no compaction makes room
    own = read_bill(SYNTHETIC)
    size = replay(own, Policy(compact_at=13_000)).summary_tokens
    with pytest.raises(
        ValueError, match=rf"compact_at \(2,000\) must be above .*\({size:,} tokens"
    ):
        replay(own, Policy(compact_at=2_000))
    plain = read_bill(PROJECT)
    said = rf"compact_at \({DEFAULT_SUMMARY_TOKENS:,}\) must be above .*the default"
    with pytest.raises(ValueError, match=said):
        replay(plain, Policy(compact_at=DEFAULT_SUMMARY_TOKENS))
    assert replay(plain, Policy(compact_at=1_000, summary_tokens=999)).summary_tokens == 999
    assert summary_size(own) == size and summary_size(plain) == DEFAULT_SUMMARY_TOKENS
    with pytest.raises(TypeError, match=r"^bill must be a Bill \(read_bill\), got 'x'$"):
        summary_size("x")  # type: ignore[arg-type]


# ---------------------------------------------------------------- rent


def test_rent_lists_tools_by_cost_and_adds_up_to_the_results() -> None:
    done = replay(read_bill(PROJECT))
    rent = done.rent()
    costs = [r.cost_usd or 0.0 for r in rent]
    assert costs == sorted(costs, reverse=True)
    assert sum(r.results for r in rent) == len(done.results)
    assert sum(costs) == pytest.approx(sum(r.cost_usd or 0.0 for r in done.results))
    assert sum(costs) < _input_side(done.bill)
    top = done.results[0]
    assert top.where.startswith("fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl:")
    assert top.tool == "Bash" and top.tokens > 10_000


def test_a_result_read_from_the_cache_costs_a_tenth_of_one_written() -> None:
    done = replay(read_bill(FE5E))
    result = done.results[0]
    price = price_for("claude-sonnet-4")
    assert price is not None
    # written once at 1.25x, then read at 0.1x on every later call that carried it
    low = result.tokens * (price.write_5m + price.read * (result.calls - 1)) / 1e6
    assert result.cost_usd == pytest.approx(low, rel=0.02)


# ---------------------------------------------------------------- models and policies


def test_another_model_prices_the_same_requests_at_its_rates() -> None:
    bill = read_bill(FE5E)
    haiku = replay(bill, Policy(model="claude-haiku-4-5"))
    assert haiku.bill.models == ("claude-haiku-4-5",)
    ratio = _input_side(haiku.bill) / _input_side(replay(bill).bill)
    assert ratio == pytest.approx(1 / 3, rel=0.05)  # Haiku 4.5's rates are a third of Sonnet 4's


def test_gemini_explicit_caches_pay_storage_by_the_hour_through_the_price_path() -> None:
    bill = read_bill(FE5E)
    implicit = replay(bill, Policy(model="gemini-3.1-pro-preview"))
    explicit = replay(bill, Policy(model="gemini-3.1-pro-preview", cache="explicit"))
    row = model_for("gemini-3.1-pro-preview")
    assert row is not None
    rules = row.caches["explicit"]
    assert dict(explicit.bill.caches) == {"gemini-3.1-pro-preview": rules}
    assert implicit.bill.cost().storage == 0 < explicit.bill.cost().storage
    held = sum(c.usage.ephemeral_1h_input_tokens for c in explicit.bill.calls)
    assert held > 0 and all(c.cache_creation_5m == 0 for c in explicit.bill.calls)
    assert explicit.bill.cost().storage == pytest.approx(held * rules.storage_per_hour / 1e6)
    for number, call in enumerate(explicit.bill.calls, 1):  # the one price path, call by call
        assert explicit.bill.call_cost(number) == cost(
            call.usage, row, at=call.timestamp, policy=rules
        )
    # one cached content per request, the prefix up to the system prompt's breakpoint
    reads = {c.cache_read_input_tokens for c in explicit.bill.calls} - {0}
    assert len(reads) <= 3 and explicit.cost != pytest.approx(implicit.cost, rel=0.05)
    assert explicit.assumption.endswith("cache runs in gemini-3.1-pro-preview's explicit mode.")
    assert implicit.assumption == ASSUMPTION


def test_a_cache_mode_the_model_lacks_is_refused_naming_its_modes() -> None:
    bill = read_bill(SYNTHETIC)
    with pytest.raises(ValueError, match=r"cache 'explicit': claude-sonnet-4-5-20250929 has no"):
        replay(bill, Policy(cache="explicit"))
    with pytest.raises(ValueError, match=r"its modes: breakpoints"):
        replay(bill, Policy(cache="explicit"))
    with pytest.raises(ValueError, match="cache must be the name of a model's cache mode"):
        Policy(cache="")
    with pytest.raises(ValueError, match=r"ttl '1h': gemini-3\.1-pro-preview's provider offers"):
        replay(bill, Policy(model="gemini-3.1-pro-preview", cache="explicit", ttl="1h"))
    assert lifetimes_offered("gemini-3.1-pro-preview", "explicit") == ()
    assert lifetimes_offered("claude-sonnet-4-5", "breakpoints") == ("5m", "1h")
    assert lifetimes_offered("claude-sonnet-4-5", "no-such-mode") == ()


@pytest.mark.parametrize(
    ("policy", "said"),
    [
        (dict(model="gpt-9"), "no row with prices in the table of models"),
        (dict(ttl="2h"), "ttl must be '5m' or '1h'"),
        (dict(clear_at=0), "clear_at must be an int >= 1"),
        (dict(keep=-1), "keep must be an int >= 0"),
        (dict(compact_at=1.5), "compact_at must be an int >= 2"),
        (dict(compact_at=1), "compact_at must be an int >= 2 tokens, got 1"),
    ],
)
def test_a_bad_policy_names_the_value_and_the_limit(policy: dict[str, Any], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        replay(read_bill(SYNTHETIC), Policy(**policy))


def test_the_assumption_is_one_sentence() -> None:
    assert ASSUMPTION.count(". ") == 0 and ASSUMPTION.endswith(".")
    assert replay(read_bill(SYNTHETIC)).assumption == ASSUMPTION


# ---------------------------------------------------------------- generated sessions


def _line(kind: str, ident: int, parent: int | None, at: float, **more: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "uuid": f"u{ident}",
        "parentUuid": None if parent is None else f"u{parent}",
        "sessionId": "g0000000-0000-4000-8000-000000000000",
        "isSidechain": False,
        "timestamp": f"2026-05-01T{int(at // 3600):02d}:{int(at % 3600 // 60):02d}:"
        f"{at % 60:06.3f}Z",
        **more,
    }


@st.composite
def _session(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A Claude Code session: a task, then calls each answered by a tool result; its first
    call may have read part of its prompt that another session wrote."""
    lines = [_line("user", 0, None, 0.0, message={"role": "user", "content": "Fix it."})]
    prompt, at, parent = draw(st.integers(2_000, 20_000)), 0.0, 0
    first_read = draw(st.sampled_from([0, 0, 1_500, prompt // 2, prompt - 40, prompt]))
    for number in range(draw(st.integers(2, 10))):
        at += draw(st.sampled_from([3.0, 40.0, 400.0, 2_000.0]))
        tool = draw(st.sampled_from(["Read", "Bash"]))
        use = {"type": "tool_use", "id": f"t{number}", "name": tool, "input": {"n": number}}
        read = first_read if number == 0 else 0
        usage = {
            "input_tokens": 0,
            "cache_creation_input_tokens": prompt - read,
            "cache_read_input_tokens": read,
            "output_tokens": 50,
        }
        message = {
            "id": f"m{number}",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [use],
            "usage": usage,
        }
        lines.append(
            _line("assistant", 2 * number + 1, parent, at, message=message, requestId=f"r{number}")
        )
        size = draw(st.integers(0, 4_000))
        result = {"type": "tool_result", "tool_use_id": f"t{number}", "content": "x" * size}
        lines.append(
            _line(
                "user",
                2 * number + 2,
                2 * number + 1,
                at + 1,
                message={"role": "user", "content": [result]},
            )
        )
        parent = 2 * number + 2
        prompt += 60 + size // 2
    return lines


def _bill(tmp_path: Path, lines: list[dict[str, Any]]) -> Bill:
    path = tmp_path / "g0000000-0000-4000-8000-000000000000.jsonl"
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
    return read_bill(path)


@settings(max_examples=40, deadline=None)
@given(_session(), st.sampled_from([None, 5_000, 15_000]), st.sampled_from([None, 8_000]))
def test_a_replayed_request_holds_its_recorded_prompt_unless_edited(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[dict[str, Any]],
    clear_at: int | None,
    compact_at: int | None,
) -> None:
    bill = _bill(tmp_path_factory.mktemp("g"), lines)
    done = replay(bill, Policy(clear_at=clear_at, compact_at=compact_at))
    summaries = set(done.summaries)
    for number, (call, source) in enumerate(zip(done.bill.calls, done.numbers, strict=True), 1):
        recorded = bill.calls[source - 1].prompt_tokens
        if number in summaries:
            continue
        if clear_at is None and compact_at is None:
            assert call.prompt_tokens == recorded
        else:
            assert call.prompt_tokens <= recorded
        assert call.output_tokens == bill.calls[source - 1].output_tokens
    if clear_at is not None and all(c.prompt_tokens <= clear_at for c in bill.calls):
        assert done.clearings == 0
    rented = sum(r.cost_usd or 0.0 for r in done.results)
    assert rented <= _input_side(done.bill) + 1e-9


@settings(max_examples=40, deadline=None)
@given(_session())
def test_one_hour_writes_never_read_less_than_five_minute_ones(
    tmp_path_factory: pytest.TempPathFactory, lines: list[dict[str, Any]]
) -> None:
    bill = _bill(tmp_path_factory.mktemp("g"), lines)
    five = replay(bill, Policy(ttl="5m")).bill.calls
    hour = replay(bill, Policy(ttl="1h")).bill.calls
    for a, b in zip(five, hour, strict=True):
        assert b.cache_read_input_tokens >= a.cache_read_input_tokens
    price = price_for("claude-sonnet-4-5")
    assert price is not None
    assert all(cost(c.usage, price).total >= 0 for c in hour)


#: The models and cache modes a generated policy picks from: every provider's, both
#: Gemini modes, GPT-5.6's explicit one; (None, None) keeps each call's own.
_MODES = [
    (None, None),
    ("claude-haiku-4-5", None),
    ("gpt-5.5", None),
    ("gpt-5.6-sol", "explicit"),
    ("gemini-3.1-pro-preview", None),
    ("gemini-3.1-pro-preview", "explicit"),
    ("deepseek-v4-flash", None),
]


@st.composite
def _policy(draw: st.DrawFn) -> Policy:
    model, cache = draw(st.sampled_from(_MODES))
    anthropic = model in (None, "claude-haiku-4-5")
    compact_at = draw(st.none() | st.integers(2, 40_000))  # a summary of 1 token at least
    most = 6_000 if compact_at is None else min(6_000, compact_at - 1)  # below the threshold
    # the default summary (the generated files hold none) is below the threshold, or one is
    given = compact_at is not None and compact_at <= DEFAULT_SUMMARY_TOKENS
    summary = st.integers(1, most) if given else st.none() | st.integers(1, most)
    return Policy(
        model=model,
        cache=cache,
        ttl=draw(st.sampled_from([None, "5m", "1h"])) if anthropic else None,
        clear_at=draw(st.none() | st.integers(1, 40_000)),
        keep=draw(st.integers(0, 4)),
        compact_at=compact_at,
        summary_tokens=draw(summary),
    )


@cases(0.6)
@given(_session(), _policy())
def test_any_policy_prices_every_call_at_zero_or_more_and_rent_within_its_input(
    tmp_path_factory: pytest.TempPathFactory, lines: list[dict[str, Any]], policy: Policy
) -> None:
    bill = _bill(tmp_path_factory.mktemp("g"), lines)
    done = replay(bill, policy)
    assert len(done.bill.calls) == len(bill.calls) + len(done.summaries)
    for number in range(1, len(done.bill.calls) + 1):
        charged = done.bill.call_cost(number)
        assert charged is not None
        parts = (charged.uncached_input, charged.cache_writes, charged.cache_reads)
        assert min(*parts, charged.output, charged.storage) >= 0
    assert done.cost >= 0
    total = done.bill.cost()
    spent = total.uncached_input + total.cache_writes + total.cache_reads + total.storage
    rents = [r.cost_usd for r in done.results]
    assert all(r is not None and r >= 0 for r in rents)
    assert sum(r or 0.0 for r in rents) <= spent + 1e-9
    if policy.cache is None:
        assert total.storage == 0


@cases(0.3)
@given(_session(), st.integers(0, 5), st.none() | st.integers(1, 9_000))
def test_a_policy_that_changes_nothing_is_the_same_computation_as_none(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[dict[str, Any]],
    keep: int,
    summary: int | None,
) -> None:
    bill = _bill(tmp_path_factory.mktemp("g"), lines)
    same = replay(bill)
    above = max(call.prompt_tokens for call in bill.calls) + 1
    summary = None if summary is None else min(summary, above - 1) or None  # below it
    for policy in (
        Policy(model="claude-sonnet-4-5"),
        Policy(cache="breakpoints"),
        Policy(ttl="5m"),  # the generated session writes 5-minute entries
        Policy(clear_at=above, keep=keep, compact_at=above, summary_tokens=summary),
    ):
        done = replay(bill, policy)
        assert [c.usage for c in done.bill.calls] == [c.usage for c in same.bill.calls]
        assert done.cost == same.cost and done.warm == same.warm
        assert (done.clearings, done.compactions) == (0, 0)


@cases(0.3)
@given(
    _session(),
    st.lists(st.integers(1_000, 30_000), min_size=3, max_size=3, unique=True),
    st.integers(0, 3),
)
def test_clearing_fires_no_more_often_as_its_threshold_rises(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[dict[str, Any]],
    thresholds: list[int],
    keep: int,
) -> None:
    """A conversation that only grows: each threshold's clearings include the higher one's."""
    bill = _bill(tmp_path_factory.mktemp("g"), lines)
    fired = [replay(bill, Policy(clear_at=t, keep=keep)).clearings for t in sorted(thresholds)]
    assert fired == sorted(fired, reverse=True)
    above = max(c.prompt_tokens for c in bill.calls) + 1
    assert replay(bill, Policy(clear_at=above)).clearings == 0


@cases(0.4)
@given(_session(), st.integers(DEFAULT_SUMMARY_TOKENS + 1, 40_000))
def test_compaction_fires_only_once_a_request_reaches_its_threshold(
    tmp_path_factory: pytest.TempPathFactory, lines: list[dict[str, Any]], threshold: int
) -> None:
    bill = _bill(tmp_path_factory.mktemp("g"), lines)
    done = replay(bill, Policy(compact_at=threshold))
    reached = [n for n, c in enumerate(bill.calls, 1) if c.prompt_tokens >= threshold]
    if not reached:
        assert done.compactions == 0 and done.summaries == ()
    for number in done.summaries:  # a summary comes before a call whose request reached it
        assert done.numbers[number - 1] >= reached[0]


@cases(0.4)
@given(_session())
def test_a_first_call_never_reads_more_than_its_record_proves(
    tmp_path_factory: pytest.TempPathFactory, lines: list[dict[str, Any]]
) -> None:
    """Nothing in the bill was sent before its first call: what it reads, its record read."""
    bill = _bill(tmp_path_factory.mktemp("g"), lines)
    done = replay(bill)
    recorded = bill.calls[0].cache_read_input_tokens
    assert done.bill.calls[0].cache_read_input_tokens <= recorded
    if done.warm:  # a read taken as given is the record's, to the sizes' margin
        ((number, tokens),) = done.warm
        assert number == 1 and 0.95 * recorded <= tokens <= recorded


# ---------------------------------------------------------------- other formats and edges

TRAJECTORY = SESSIONS / "mini-swe-agent" / "astropy__astropy-12907.traj.json"
EVENTS = SESSIONS / "openhands" / "basic_gui_mode.json"
ROLLOUT = SESSIONS / "synthetic" / "rollout-2026-03-02T09-00-00-synthetic.jsonl"


def test_a_trajectory_replays_its_conversation_message_by_message() -> None:
    """mini-swe-agent: call k sent the conversation before its k-th answer."""
    from context_budget._requests import rebuild_requests

    bill = read_bill(TRAJECTORY)
    requests = rebuild_requests(bill.calls, bill.sessions_read, bill.places)
    assert all(request.sized for request in requests)
    assert [r.tokens for r in requests] == [c.prompt_tokens for c in bill.calls]
    assert requests[1].blocks[1].where.endswith("system prompt")
    assert requests[1].blocks[-1].where.endswith("message 2")
    done = replay(bill, Policy(model="claude-sonnet-4-5"))
    assert done.unreplayed == () and len(done.bill.calls) == len(bill.calls)
    # each observation is the answer of the bash action before it: a tool result
    assert {result.tool for result in done.results} == {"bash"}
    assert len(done.results) == len(bill.calls) - 1


def test_events_without_per_call_messages_replay_their_sizes_alone() -> None:
    """OpenHands: the file does not say which messages a request held; sizes only."""
    from context_budget._requests import rebuild_requests

    bill = read_bill(EVENTS)
    requests = rebuild_requests(bill.calls, bill.sessions_read, bill.places)
    assert not any(request.sized for request in requests)
    assert [r.tokens for r in requests] == [c.prompt_tokens for c in bill.calls]
    done = replay(bill, Policy(model="claude-sonnet-4-5"))
    reads = [c.cache_read_input_tokens for c in done.bill.calls]
    assert reads[0] == 0 and all(read > 0 for read in reads[1:])  # each grew the one before


@settings(max_examples=5, deadline=None)
@given(_session())
def test_a_model_the_table_lacks_is_named_and_left_out(
    tmp_path_factory: pytest.TempPathFactory, lines: list[dict[str, Any]]
) -> None:
    for line in lines:
        if line["type"] == "assistant":
            line["message"]["model"] = "acme-reasoner-7"
    bill = _bill(tmp_path_factory.mktemp("g"), lines)
    done = replay(bill)
    assert done.unreplayed == ("acme-reasoner-7",)
    assert done.bill.calls == () and done.cost == 0.0
    assert done.departures == ()


def test_a_codex_rollout_replays_on_its_own_providers_cache() -> None:
    """gpt-5-codex caches automatically in 128-token steps from 1,024 tokens."""
    bill = read_bill(ROLLOUT)
    done = replay(bill)
    assert done.unreplayed == ()
    reads = [call.cache_read_input_tokens for call in done.bill.calls]
    assert reads[0] == 0 and all(read > 0 and (read - 1_024) % 128 == 0 for read in reads[1:])
    assert all(call.cache_creation_input_tokens == 0 for call in done.bill.calls)


def test_the_request_time_is_its_last_lines_unless_the_answer_came_much_later() -> None:
    from context_budget._requests import _sent

    assert _sent("2026-01-01T00:00:00Z", 1767225610.0) == 1767225600.0  # 10 s later
    assert _sent("2026-01-01T00:00:00Z", 1767226200.0) == 1767226200.0  # 10 min later
    assert _sent("not a time", 5.0) == 5.0
    assert _sent(None, None) is None
    assert _sent("2026-01-01T00:00:00Z", None) == 1767225600.0


def test_every_departure_is_named_with_its_reason(tmp_path: Path) -> None:
    """A bill whose calls all read nothing, replayed: every later call departs."""
    bill = read_bill(SYNTHETIC)
    cold = bill.with_calls(
        [replace(c, usage=Usage(c.usage.prompt_tokens, c.usage.output_tokens)) for c in bill.calls]
    )
    done = replay(cold)
    said = {d.call: (d.read, d.why) for d in done.departures}
    assert set(said) == set(range(1, 11))  # the record cached nothing, the replay did
    assert said[1] == (0, said[1][1]) and said[1][1].startswith(
        "the replay wrote 12,003 tokens the record left uncached"
    )
    assert said[2][0] == 12_003 and "more tokens in a shared prefix" in said[2][1]
    assert "add up to 1,227 tokens more" in said[6][1]


@settings(max_examples=5, deadline=None)
@given(_session())
def test_a_call_with_no_price_has_no_rent_in_dollars(
    tmp_path_factory: pytest.TempPathFactory, lines: list[dict[str, Any]]
) -> None:
    for line in lines:  # fast mode on a model with no fast-mode rate: no price
        if line["type"] == "assistant":
            line["message"]["model"] = "claude-opus-4-5"
            line["message"]["usage"]["speed"] = "fast"
    bill = _bill(tmp_path_factory.mktemp("g"), lines)
    assert bill.unpriced_models() == ("claude-opus-4-5 (fast)",)
    done = replay(bill)
    assert done.unreplayed == () and done.cost == 0.0
    assert all(result.cost_usd is None for result in done.results)
    assert all(rent.cost_usd is None for rent in done.rent())


def test_a_policy_refuses_a_model_that_is_no_id() -> None:
    with pytest.raises(ValueError, match="model must be a model id"):
        Policy(model="")
    with pytest.raises(TypeError, match="bill must be a Bill"):
        replay("session.jsonl")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="policy must be a Policy"):
        replay(read_bill(SYNTHETIC), {"ttl": "1h"})  # type: ignore[arg-type]


def test_the_shared_prefix_of_two_requests_is_found_whatever_holds_them() -> None:
    from context_budget._requests import first_difference as _first_difference

    assert _first_difference((1, 2, 3), [1, 2, 4]) == 2
    assert _first_difference([1, 2], [1, 2, 3]) == 2
    assert _first_difference((), [1]) == 0
    assert _first_difference(list(range(1000)), [*range(700), -1]) == 700


# ---------------------------------------------------------------- what the record proves changed

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "transcripts"
#: A real Claude Code 2.1 session (marot/spotter, MIT) whose third call read only the
#: part of its thread's cache before the tools: the start of its request had changed.
CHANGED_START = FIXTURES / "spotter" / "tool_heavy.jsonl"


def test_a_start_the_record_proves_changed_is_written_again_in_the_replay() -> None:
    bill = read_bill(CHANGED_START)
    (rebuild,) = bill.rebuilds()
    assert rebuild.cause == "prefix-changed"
    same = replay(bill)
    assert same.cost == pytest.approx(bill.cost().total, rel=0.02)
    changed = same.bill.calls[rebuild.call - 1]
    recorded = bill.calls[rebuild.call - 1]
    assert changed.cache_read_input_tokens <= recorded.cache_read_input_tokens
    assert changed.cache_creation_input_tokens >= recorded.cache_creation_input_tokens
    after = same.bill.calls[rebuild.call]  # the next call reads the changed start back
    assert after.cache_read_input_tokens >= changed.prompt_tokens - recorded.input_tokens


def _cc_line(
    kind: str, uuid: str, parent: str | None, second: int, **fields: Any
) -> dict[str, Any]:
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "c0f0a0e0-0000-4000-8000-00000000000a",
        "timestamp": f"2026-03-02T09:00:{second:02d}.000Z",
        "isSidechain": kind != "user" and parent is None,
        **fields,
    }


def _cc_answer(uuid: str, parent: str, second: int, read: int, write: int, **fields: Any) -> Any:
    message = {
        "id": f"msg_{uuid}",
        "type": "message",
        "role": "assistant",
        "model": "claude-opus-4-6",
        "content": [{"type": "text", "text": "The parser reads the date in two steps. " * 40}],
        "usage": {
            "input_tokens": 3,
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read,
            "output_tokens": 400,
        },
    }
    return _cc_line(
        "assistant", uuid, parent, second, message=message, requestId=f"req_{uuid}", **fields
    )


def _compacted_folder(tmp_path: Path) -> Path:
    """SYNTHETIC: a main session of three calls and the compaction sub-agent that
    summarized it, whose file starts from a line of the main session (as Claude Code
    2.1 writes `subagents/agent-acompact-*.jsonl`) and reads the main conversation's
    cache whole: it sends that conversation under its tools and system prompt."""
    ask = "Explain the date parser and its tests, file by file. " * 60
    main = [
        _cc_line("user", "u1", None, 0, message={"role": "user", "content": ask}),
        _cc_answer("a1", "u1", 5, 0, 20_000),
        _cc_line("user", "u2", "a1", 6, message={"role": "user", "content": ask}),
        _cc_answer("a2", "u2", 10, 20_000, 1_400),
        _cc_line("user", "u3", "a2", 11, message={"role": "user", "content": ask}),
        _cc_answer("a3", "u3", 15, 21_400, 1_400),
    ]
    summarize = "Your task is to create a detailed summary of the conversation so far."
    agent = [
        _cc_line("user", "c1", "a3", 20, message={"role": "user", "content": summarize}),
        _cc_answer("c2", "c1", 40, 22_800, 1_800, agentId="acompact-0a1b2c"),
    ]
    for line in agent:
        line["isSidechain"] = True
    folder = tmp_path / "projects" / "-work-demo"
    agents = folder / "c0f0a0e0-0000-4000-8000-00000000000a" / "subagents"
    agents.mkdir(parents=True)
    for path, lines in (
        (folder / "c0f0a0e0-0000-4000-8000-00000000000a.jsonl", main),
        (agents / "agent-acompact-0a1b2c.jsonl", agent),
    ):
        path.write_text(
            "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines), "utf-8"
        )
    return folder


def test_a_compaction_sub_agent_sends_the_conversation_under_its_own_prefix(
    tmp_path: Path,
) -> None:
    bill = read_bill(_compacted_folder(tmp_path))
    assert len(bill.calls) == 4
    same = replay(bill)
    assert same.cost == pytest.approx(bill.cost().total, rel=0.02)
    summarizing = same.bill.calls[-1]
    assert summarizing.prompt_tokens == bill.calls[-1].prompt_tokens
    assert summarizing.cache_read_input_tokens >= bill.calls[-2].prompt_tokens * 0.95


def test_a_block_keyed_anew_is_one_block_in_every_later_request_that_carries_it() -> None:
    """A thread's later requests carry the changed blocks again: each is made once, so n
    requests cost n blocks, not n squared."""
    from context_budget._requests import rebuild_requests

    bill = read_bill(CHANGED_START)
    (rebuild,) = bill.rebuilds()
    plain = rebuild_requests(bill.calls, bill.sessions_read, bill.places)
    keyed = rebuild_requests(bill.calls, bill.sessions_read, bill.places, changed=[rebuild.call])
    made: dict[tuple[str, str], list[int]] = {}  # (ident, new key) -> each copy's id
    for before, after in zip(plain, keyed, strict=True):
        for old, new in zip(before.blocks, after.blocks, strict=True):
            if new.key != old.key:
                made.setdefault((new.ident, new.key), []).append(id(new))
    assert max(len(copies) for copies in made.values()) > 1  # carried again, later
    assert all(len(set(copies)) == 1 for copies in made.values())


def test_a_replay_reads_no_conversation_where_the_places_rebuild_every_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code's requests come from the places of their messages: the files are not
    read a second time for their conversations (a replay of a large folder read them
    all, for nothing)."""
    from context_budget.sessions.session import Session

    folder = _compacted_folder(tmp_path)
    orphan = _cc_answer("o1", "c1", 50, 0, 2_000, agentId="0b1c2d")  # its parent not kept
    orphan.update(parentUuid=None, isSidechain=True)
    agents = folder / "c0f0a0e0-0000-4000-8000-00000000000a" / "subagents"
    (agents / "agent-0b1c2d.jsonl").write_text(
        json.dumps(orphan, separators=(",", ":")) + "\n", "utf-8"
    )
    bill = read_bill(folder)
    assert len(bill.calls) == 5 and bill.calls[-1].message is None

    def refused(self: Session) -> Session:
        raise AssertionError(f"{self.files} read again for the conversation")

    monkeypatch.setattr(Session, "with_messages", refused)
    same = replay(bill)
    assert same.cost == pytest.approx(bill.cost().total, rel=0.02)


def test_a_place_read_and_not_kept_is_the_place_a_bill_keeps() -> None:
    """`Places.read` reads a message's line again each time and keeps nothing (a replay
    reads every line once, and the contents would otherwise live as long as the bill);
    `places[ident]` keeps the place it reads, and `read` then gives that one."""
    from context_budget.sessions.session import Places

    bill = read_bill(CHANGED_START)
    places = bill.places
    assert isinstance(places, Places)
    ident = bill.calls[-1].message
    assert ident is not None
    once, again = places.read(ident), places.read(ident)
    assert once == again and once is not again and once.content == again.content
    assert once.content is not None and once.logged is not None
    kept = places[ident]
    assert kept == once and kept.content == once.content
    assert places[ident] is kept and places.read(ident) is kept


def test_the_requests_are_rebuilt_reading_each_line_once_and_keeping_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from collections import Counter

    from context_budget._requests import rebuild_requests
    from context_budget.sessions.session import Places

    bill = read_bill(_compacted_folder(tmp_path))
    read: Counter[str] = Counter()
    reading = Places.read

    def counted(self: Places, ident: str, *, keep: bool = False) -> Any:
        assert not keep, f"{ident} kept"
        read[ident] += 1
        return reading(self, ident, keep=keep)

    monkeypatch.setattr(Places, "read", counted)
    requests = rebuild_requests(bill.calls, bill.sessions_read, bill.places)
    assert len(requests) == len(bill.calls) and read
    assert max(read.values()) == 1  # each line read once, shared by every request after


def test_the_lines_read_on_two_cores_rebuild_the_requests_one_process_rebuilds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child reads the later half of the lines and sends them back as plain values:
    the requests are the ones read in one process, block for block, and the child's
    lines are the ones this process reads."""
    from context_budget import _requests
    from context_budget._aside import can_fork

    bill = read_bill(CHANGED_START)
    places = bill.places
    alone = _requests.rebuild_requests(bill.calls, bill.sessions_read, places)
    monkeypatch.setattr(_requests, "ASIDE_LINES", 1)
    read = _requests._read_lines(bill.calls, places)
    wanted = _requests._carried(bill.calls, places)  # type: ignore[arg-type]
    assert len(wanted) > 1
    assert read == ({} if not can_fork() else {i: _requests._line(places, i) for i in wanted})
    split = _requests.rebuild_requests(bill.calls, bill.sessions_read, places)
    assert split == alone
    row = _requests._line_row(_requests._line(places, wanted[-1]))
    assert _requests._line_of_row(row) == _requests._line(places, wanted[-1])


@pytest.mark.parametrize(
    "policy",
    [Policy(), Policy(clear_at=20_000, keep=1), Policy(compact_at=30_000)],
    ids=["as recorded", "clearing", "compaction"],
)
def test_the_sums_the_replay_hands_the_cache_are_those_of_its_rows(
    monkeypatch: pytest.MonkeyPatch, policy: Policy
) -> None:
    """The replay carries each thread's prefix sums from one request to the next instead of
    letting the cache add every block up again: they must be the row's own."""
    import itertools

    from context_budget.cache import PromptCache

    settled = PromptCache._usage_of_summed_row
    seen: list[int] = []

    def checked(
        self: PromptCache, row: Any, roles: Any, prefix: list[int], responded_at: Any
    ) -> Usage:
        assert prefix == [0, *itertools.accumulate(block.tokens for block in row)]
        assert all(-1 <= block.message < len(roles) for block in row)
        seen.append(len(row))
        return settled(self, row, roles, prefix, responded_at)

    monkeypatch.setattr(PromptCache, "_usage_of_summed_row", checked)
    replay(read_bill(SESSIONS), policy)
    assert len(seen) > 100 and max(seen) > 50


@given(st.text(max_size=6), st.text(max_size=6), st.text(max_size=6), st.text(max_size=6))
def test_two_pairs_of_keys_chain_to_one_key_only_when_they_are_the_same_pair(
    a: str, b: str, c: str, d: str
) -> None:
    # the key of a prefix one block longer: "ab" + "c" and "a" + "bc" are not one prefix
    from context_budget._requests import chained

    assert (chained(a, b) == chained(c, d)) == ((a, b) == (c, d))
    assert len(chained(a, b)) == 20 and chained("ab", "c") != chained("a", "bc")


def test_a_block_no_reader_checked_is_sized_not_fatal(tmp_path: Path) -> None:
    # the bill reads usage alone; the replay rebuilt each request from the raw lines and
    # failed on a tool use without a name (KeyError) or a result holding `true` (TypeError)
    source = PROJECT / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
    lines = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    uses = [
        block
        for line in lines
        if line.get("type") == "assistant"
        for block in line["message"]["content"]
        if block.get("type") == "tool_use"
    ]
    results = [
        block
        for line in lines
        if line.get("type") == "user" and isinstance(line["message"]["content"], list)
        for block in line["message"]["content"]
        if block.get("type") == "tool_result"
    ]
    del uses[0]["name"], uses[1]["input"]
    results[0]["content"] = ["a line", True, {"no": "type"}]
    copy = tmp_path / source.name
    copy.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    bill = read_bill(copy)
    done = replay(bill)
    assert [c.prompt_tokens for c in done.bill.calls] == [c.prompt_tokens for c in bill.calls]


def test_each_result_of_an_evaluation_output_is_rented_by_its_own_instance() -> None:
    # the instances of one file named their blocks by the file alone: a result of one
    # instance was counted on every instance's calls (7,088 tokens in 90 calls, where its
    # instance made 23)
    output = FIXTURES / "openhands" / "output.jsonl"
    bill = read_bill(output)
    calls: dict[str, int] = {}
    for call in bill.calls:
        calls[call.thread.name] = calls.get(call.thread.name, 0) + 1
    done = replay(bill, Policy(model="gpt-5.5"))
    assert done.results
    for result in done.results:
        assert result.calls <= calls[result.thread], result
    threads = {result.thread for result in done.results}
    assert len(threads) == len(calls) > 1


def test_a_replay_runs_with_the_collector_held_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """A library user's replay makes objects by the call, none in a cycle: it runs with the
    cyclic collector held off, as the command's does, and leaves it on after."""
    import gc
    import importlib

    replaying = importlib.import_module(
        "context_budget.replay"
    )  # the package's `replay` is its function
    seen: list[bool] = []
    run = replaying._Run.run
    monkeypatch.setattr(
        replaying._Run, "run", lambda self: seen.append(gc.isenabled()) or run(self)
    )
    replay(read_bill(FE5E))
    assert seen == [False]
    assert gc.isenabled()
