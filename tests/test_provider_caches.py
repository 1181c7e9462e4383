"""One cache model, each provider's policy as data: `PromptCache` against each provider's pages.

OpenAI (https://developers.openai.com/api/docs/guides/prompt-caching): up to
GPT-5.5, prompts from 1,024 tokens cached whole, hits in 128-token steps, no
write fee; from GPT-5.6, writes at breakpoints at 1.25 times input that live
30 minutes from their last use. Gemini
(https://ai.google.dev/gemini-api/docs/caching): implicit hits unpromised,
explicit caches held for their TTL and billed by the hour. DeepSeek
(https://api-docs.deepseek.com/guides/kv_cache): prefix units matched whole,
no write fee. vLLM (https://docs.vllm.ai/en/latest/design/prefix_caching.html):
whole blocks, least recently used out first.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget import PromptCache, SimulatedClock, cost
from context_budget.cache_policy import CachePolicy, MinimumLength
from context_budget.models import model_for


def _tokens(sizes: dict[str, int]) -> Any:
    """A counter that gives each block text its size in `sizes` (1 token otherwise)."""
    return lambda text: sizes.get(text, 1)


def _turns(count: int, *, system: str = "S", marked: bool = True) -> dict[str, Any]:
    """A request of `count` earlier turns and a new question, its system prompt marked."""
    block: dict[str, Any] = {"type": "text", "text": system}
    if marked:
        block["cache_control"] = {"type": "ephemeral"}
    messages: list[dict[str, Any]] = []
    for number in range(count):
        messages += [
            {"role": "user", "content": f"q{number}"},
            {"role": "assistant", "content": f"a{number}"},
        ]
    messages.append({"role": "user", "content": f"q{count}"})
    return {"system": [block], "messages": messages}


SIZES = {"S": 1_000, **{f"q{n}": 100 for n in range(40)}, **{f"a{n}": 200 for n in range(40)}}


# ---------------------------------------------------------------- OpenAI up to GPT-5.5


def test_gpt_5_5_reads_in_128_token_steps_from_1024_and_writes_for_free() -> None:
    clock = SimulatedClock()
    cache = PromptCache("gpt-5.5", counter=_tokens(SIZES), clock=clock)
    first = cache.usage(_turns(0))  # 1,100 tokens: cached whole
    assert (first.input_tokens, first.cache_read_input_tokens) == (1_100, 0)
    assert first.cache_creation_input_tokens == 0  # nothing reported as written
    reads = []
    for count in range(1, 6):
        clock.advance(60)
        usage = cache.usage(_turns(count))
        assert usage.cache_creation_input_tokens == 0
        reads.append(usage.cache_read_input_tokens)
        shared = 1_000 + 300 * count - 200  # every earlier block but the last reply
        assert usage.cache_read_input_tokens <= shared
    assert all(read >= 1_024 and (read - 1_024) % 128 == 0 for read in reads), reads
    assert reads[0] == 1_024  # 1,100 shared: one step past the minimum is not reached
    price = model_for("gpt-5.5").price
    usage = cache.usage(_turns(5))
    by_hand = (usage.input_tokens * price.input + usage.cache_read_input_tokens * price.read) / 1e6
    assert cost(usage, model_for("gpt-5.5")).total == pytest.approx(by_hand)


def test_gpt_5_5_caches_nothing_under_1024_tokens() -> None:
    cache = PromptCache("gpt-5.5", counter=_tokens({"S": 500}))
    for _ in range(3):
        assert cache.usage(_turns(0)).cache_read_input_tokens == 0


def test_gpt_5_5_ignores_breakpoints_and_a_changed_system_prompt_misses_whole() -> None:
    cache = PromptCache("gpt-5.5", counter=_tokens(SIZES | {"T": 1_000}))
    cache.usage(_turns(2, marked=False))
    assert cache.usage(_turns(2)).cache_read_input_tokens >= 1_024  # markers change nothing
    assert cache.usage(_turns(3, system="T")).cache_read_input_tokens == 0


def test_a_retention_the_request_names_sets_how_long_a_prefix_lives() -> None:
    clock = SimulatedClock()
    cache = PromptCache("gpt-5.5", counter=_tokens(SIZES), clock=clock)
    short = {**_turns(0), "prompt_cache_retention": "in_memory"}
    cache.usage(short)
    clock.advance(11 * 60)  # past the 10 minutes assumed for memory
    assert cache.usage(short).cache_read_input_tokens == 0
    assert cache.usage(_turns(0)).cache_read_input_tokens == 1_024  # stored for 24 hours
    clock.advance(23 * 3600)
    assert cache.usage(_turns(0)).cache_read_input_tokens == 1_024


# ---------------------------------------------------------------- OpenAI from GPT-5.6


def test_a_gpt_5_6_write_costs_a_quarter_more_than_input_and_lives_30_minutes() -> None:
    clock = SimulatedClock()
    cache = PromptCache("gpt-5.6-sol", counter=_tokens(SIZES), clock=clock)
    first = cache.usage(_turns(1))
    assert first.cache_creation_input_tokens == first.ephemeral_30m_input_tokens == 1_400
    assert first.input_tokens == 0
    price = model_for("gpt-5.6-sol").price_at("2026-12-05")
    bill = cost(first, price)
    assert bill.cache_writes == pytest.approx(1_400 * price.input * 1.25 / 1e6)
    clock.advance(29 * 60)  # read 29 minutes on: a hit, which starts the 30 minutes again
    assert cache.usage(_turns(1)).cache_read_input_tokens == 1_400
    clock.advance(29 * 60)
    assert cache.usage(_turns(1)).cache_read_input_tokens == 1_400
    clock.advance(30 * 60 + 1)  # 30 minutes after its last use: gone
    gone = cache.usage(_turns(1))
    assert gone.cache_read_input_tokens == 0 and gone.ephemeral_30m_input_tokens == 1_400


def test_gpt_5_6_reads_any_earlier_breakpoint_with_no_lookback_limit() -> None:
    """Anthropic's 20-block lookback misses here; OpenAI considers the latest 80 breakpoints."""
    sizes = {f"b{n}": 100 for n in range(60)} | {"S": 1_000}
    first = {"system": "S", "messages": [{"role": "user", "content": "b0"}]}
    blocks = [{"type": "text", "text": f"b{n}"} for n in range(40)]
    later = {"system": "S", "messages": [{"role": "user", "content": blocks}]}
    openai = PromptCache("gpt-5.6-sol", counter=_tokens(sizes))
    openai.usage(first)
    assert openai.usage(later).cache_read_input_tokens == 1_100
    anthropic = PromptCache("claude-sonnet-4-6", counter=_tokens(sizes))
    anthropic.usage({**first, "cache_control": {"type": "ephemeral"}})
    assert (
        anthropic.usage({**later, "cache_control": {"type": "ephemeral"}}).cache_read_input_tokens
        == 0
    )


def test_gpt_5_6_writes_the_latest_three_markers_and_refuses_none() -> None:
    blocks = [
        {"type": "text", "text": f"b{n}", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
        for n in range(6)
    ]
    request = {"system": "S", "messages": [{"role": "user", "content": blocks}]}
    sizes = {"S": 1_000} | {f"b{n}": 100 for n in range(6)}
    cache = PromptCache("gpt-5.6-sol", counter=_tokens(sizes))
    usage = cache.usage(request)  # six markers: Anthropic would refuse the request
    assert usage.ephemeral_30m_input_tokens == 1_600 and usage.ephemeral_1h_input_tokens == 0
    written = [key for key in cache.last_keys if key in cache._entries]
    assert len(written) == 3  # the implicit breakpoint sits on the last marked block


def test_gpt_5_6_explicit_mode_writes_only_markers() -> None:
    explicit = model_for("gpt-5.6-sol").caches["explicit"]
    cache = PromptCache("gpt-5.6-sol", counter=_tokens(SIZES | {"S": 1_100}), policy=explicit)
    usage = cache.usage(_turns(2))
    assert usage.ephemeral_30m_input_tokens == 1_100  # the marked system prompt alone
    assert usage.input_tokens == 700


# ---------------------------------------------------------------- Gemini


def test_a_gemini_explicit_cache_is_billed_by_the_hour_and_no_hit_extends_it() -> None:
    row = model_for("gemini-3.1-pro")
    explicit = row.caches["explicit"]
    clock = SimulatedClock()
    cache = PromptCache(
        "gemini-3.1-pro", counter=_tokens(SIZES | {"S": 5_000}), clock=clock, policy=explicit
    )
    first = cache.usage(_turns(3))
    assert first.ephemeral_1h_input_tokens == 5_000  # the prefix up to the first marker
    bill = cost(first, row, policy=explicit)
    assert bill.cache_writes == pytest.approx(5_000 * row.price.input / 1e6)  # at the input rate
    assert bill.storage == pytest.approx(5_000 * 4.50 / 1e6)  # an hour held, $4.50 an hour
    assert cost(first, row).storage == 0.0  # implicit caching stores nothing
    clock.advance(59 * 60)
    assert cache.usage(_turns(4)).cache_read_input_tokens == 5_000
    clock.advance(2 * 60)  # 61 minutes after it was made: the read did not extend it
    again = cache.usage(_turns(5))
    assert again.cache_read_input_tokens == 0 and again.ephemeral_1h_input_tokens == 5_000


def test_gemini_implicit_hits_are_an_assumption_the_caller_can_change() -> None:
    row = model_for("gemini-3.5-flash")
    assert row.cache.hit_unit == "prefix" and row.cache.assumptions
    assert any("hit_rate" in line for line in row.cache.assumptions)
    best = PromptCache("gemini-3.5-flash", counter=_tokens(SIZES))
    none = PromptCache(
        "gemini-3.5-flash", counter=_tokens(SIZES), policy=replace(row.cache, hit_rate=0.0)
    )
    half = PromptCache(
        "gemini-3.5-flash", counter=_tokens(SIZES), policy=replace(row.cache, hit_rate=0.5)
    )
    for cache in (best, none, half):
        cache.usage(_turns(2))
    reads = [cache.usage(_turns(3)).cache_read_input_tokens for cache in (best, none, half)]
    assert reads == [1_700, 0, 850]  # the whole earlier prompt, times the rate assumed


def test_gemini_pro_caches_nothing_under_4096_tokens() -> None:
    cache = PromptCache("gemini-3.1-pro-preview", counter=_tokens(SIZES))
    for count in range(4):
        assert cache.usage(_turns(count)).cache_read_input_tokens == 0


# ---------------------------------------------------------------- DeepSeek


def test_a_deepseek_write_costs_nothing_extra() -> None:
    row = model_for("deepseek-v4-flash")
    cache = PromptCache("deepseek-v4-flash", counter=_tokens(SIZES))
    first = cache.usage(_turns(2))
    assert first.cache_creation_input_tokens == 0 and first.input_tokens == 1_700
    assert cost(first, row).total == pytest.approx(1_700 * row.price.input / 1e6)


def test_deepseek_reads_the_unit_a_reply_ended_and_a_shared_prefix_once_seen_twice() -> None:
    policy = replace(model_for("deepseek-v4-flash").cache, step_tokens=10**6)  # no interval units
    cache = PromptCache("deepseek-v4-flash", counter=_tokens(SIZES | {"T": 1_000}), policy=policy)
    cache.usage(_turns(1))
    # the prompt it sent and the reply the next request carries are whole units
    assert cache.usage(_turns(2)).cache_read_input_tokens == 1_000 + 300 + 100 + 200
    # A + B then A + C: C cannot hit (the unit A + B is not matched whole) ...
    cache.usage({"system": "T", "messages": [{"role": "user", "content": "q1"}]})
    missed = cache.usage({"system": "T", "messages": [{"role": "user", "content": "q2"}]})
    assert missed.cache_read_input_tokens == 0
    # ... but the common prefix A is stored, and A + D reads it
    shared = cache.usage({"system": "T", "messages": [{"role": "user", "content": "q3"}]})
    assert shared.cache_read_input_tokens == 1_000


def test_deepseek_stores_long_prompts_at_its_assumed_interval() -> None:
    row = model_for("deepseek-v4-flash")
    assert row.cache.step_tokens == 64 and any("64 tokens" in a for a in row.cache.assumptions)
    cache = PromptCache("deepseek-v4-flash", counter=_tokens({"S": 1_000, "X": 50}))
    cache.usage({"system": "S", "messages": [{"role": "user", "content": "X"}]})
    changed = cache.usage({"system": "S", "messages": [{"role": "user", "content": "Y"}]})
    assert changed.cache_read_input_tokens == 960  # 15 whole intervals of 64 inside the system


# ---------------------------------------------------------------- vLLM


@given(st.lists(st.integers(1, 300), min_size=1, max_size=12), st.integers(0, 11))
def test_a_vllm_read_is_a_whole_number_of_blocks(sizes: list[int], changed: int) -> None:
    texts = {f"m{n}": size for n, size in enumerate(sizes)}
    cache = PromptCache("any", counter=_tokens(texts | {"x": 7}), policy=CachePolicy.vllm())
    content = [{"type": "text", "text": f"m{n}"} for n in range(len(sizes))]
    cache.usage({"messages": [{"role": "user", "content": content}]})
    if changed < len(content):
        content[changed] = {"type": "text", "text": "x"}
    usage = cache.usage({"messages": [{"role": "user", "content": content}]})
    assert usage.cache_read_input_tokens % 16 == 0
    assert usage.cache_read_input_tokens < usage.prompt_tokens or usage.prompt_tokens == 0
    assert usage.cache_creation_input_tokens == 0


def test_vllm_evicts_the_least_recently_used_blocks_past_its_capacity() -> None:
    sizes = {"A": 1_600, "B": 1_600, "C": 1_600, "q": 16}
    policy = CachePolicy.vllm(block_tokens=16, capacity_tokens=3_300)
    cache = PromptCache("any", counter=_tokens(sizes), policy=policy)

    def ask(system: str) -> int:
        return cache.usage(
            {"system": system, "messages": [{"role": "user", "content": "q"}]}
        ).cache_read_input_tokens

    assert ask("A") == 0 and ask("B") == 0
    assert ask("A") == 1_600  # A used again: B is now the least recent
    assert ask("C") == 0  # C needs room: B's blocks go first
    assert ask("A") == 1_600 and ask("B") == 0


def test_a_vllm_policy_is_free_and_reports_no_writes() -> None:
    policy = CachePolicy.vllm()
    assert policy.read_multiple == 0.0 and not policy.writes_reported
    price = model_for("claude-sonnet-4-6").price.under(policy)
    assert price.read == 0.0


# ---------------------------------------------------------------- any policy, any model


def test_a_policy_passed_in_replaces_the_models_own() -> None:
    deepseek = model_for("deepseek-v4-flash").cache
    cache = PromptCache("claude-sonnet-4-6", counter=_tokens(SIZES), policy=deepseek)
    assert cache.policy is deepseek and cache.usage(_turns(1)).cache_creation_input_tokens == 0


def test_a_model_without_caching_reads_nothing() -> None:
    cache = PromptCache("claude-3-sonnet-20240229", counter=_tokens(SIZES))
    for count in range(3):
        usage = cache.usage(_turns(count))
        assert usage.input_tokens == usage.prompt_tokens


def test_a_bad_policy_is_named() -> None:
    with pytest.raises(ValueError, match="hit_unit must be one of"):
        replace(CachePolicy.vllm(), hit_unit="page")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="hit_rate must be at most 1"):
        replace(CachePolicy.vllm(), hit_rate=2.0)
    with pytest.raises(ValueError, match="lifetimes a Usage holds"):
        CachePolicy("x", "breakpoint", MinimumLength(0, "", ""), lifetimes=(("2h", 7200.0),))
    with pytest.raises(ValueError, match="offers lifetimes"):
        CachePolicy.vllm().seconds("5m")
    with pytest.raises(TypeError, match="policy must be a CachePolicy"):
        PromptCache("claude-sonnet-4-6", policy="vllm")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("change", "error", "words"),
    [
        ({"automatic": "sometimes"}, ValueError, "CachePolicy.automatic must be one of"),
        ({"minimum": 1024}, TypeError, "CachePolicy.minimum must be a MinimumLength, got 1024"),
        ({"storage_per_hour": float("inf")}, ValueError, "storage_per_hour must be a finite"),
        ({"read_multiple": float("inf")}, ValueError, "read_multiple must be a finite"),
    ],
    ids=["automatic", "minimum-int", "storage-inf", "read-inf"],
)
def test_a_policy_field_once_taken_unread_is_named(
    change: dict[str, Any], error: type[Exception], words: str
) -> None:
    """An unknown `automatic` acted as "asked", a bare minimum failed on `.tokens`, and an
    infinite rate priced a write at infinity."""
    with pytest.raises(error, match=re.escape(words)):
        replace(model_for("claude-sonnet-4-6").cache, **change)


@pytest.mark.parametrize("tokens", [-5, 5.5, True])
def test_a_minimum_length_that_is_no_count_is_named(tokens: object) -> None:
    with pytest.raises(ValueError, match=r"^MinimumLength.tokens must be an int >= 0, got "):
        MinimumLength(tokens, "", "")  # type: ignore[arg-type]


def test_gpt_5_6_matches_only_the_latest_80_breakpoints() -> None:
    """An entry written 81 breakpoints ago is no longer matched, though still alive."""
    sizes = {"S": 1_100} | {f"m{n}": 10 for n in range(100)}
    clock = SimulatedClock()
    cache = PromptCache("gpt-5.6-sol", counter=_tokens(sizes), clock=clock)
    first = {"system": "S", "messages": [{"role": "user", "content": "m0"}]}
    cache.usage(first)
    for n in range(1, 80):  # 79 more entries, each on a prompt of its own
        clock.advance(1)
        cache.usage({"system": "S", "messages": [{"role": "user", "content": f"m{n}"}]})
    clock.advance(1)
    assert cache.usage(first).cache_read_input_tokens == 1_110  # still among the latest 80
    for n in range(80, 100):
        clock.advance(1)
        cache.usage({"system": "S", "messages": [{"role": "user", "content": f"m{n}"}]})
    clock.advance(1)
    later = {"system": "S", "messages": [{"role": "user", "content": "m1"}]}
    assert cache.usage(later).cache_read_input_tokens == 0  # m1's entry is 99 writes old


@pytest.mark.parametrize("field", ["lifetimes", "write_multiples"])
def test_a_policys_pairs_given_as_a_dict_are_read_as_its_pairs(field: str) -> None:
    """`lifetimes={"5m": 300.0}` is how one writes a table of lifetimes: it was iterated as
    its keys and refused as "lifetimes['5'] must be a number > 0, got 'm'"."""
    base = CachePolicy.anthropic(MinimumLength(1024, "", ""))
    as_pairs = dict(getattr(base, field))
    policy = replace(base, **{field: as_pairs})
    assert policy == base and getattr(policy, field) == getattr(base, field)


@pytest.mark.parametrize("bad", [(("5m",),), ("5m",), 300.0])
def test_a_policys_lifetimes_that_are_no_pairs_are_named(bad: object) -> None:
    base = CachePolicy.anthropic(MinimumLength(1024, "", ""))
    with pytest.raises(
        TypeError, match=re.escape("CachePolicy.lifetimes must be (name, number) pairs")
    ):
        replace(base, lifetimes=bad)
