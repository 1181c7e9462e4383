"""The prompt-cache model against the cases Anthropic's prompt-caching docs state.

The rules and the worked examples (automatic caching, breakpoints and the
20-block lookback, minimum lengths, TTLs, what invalidates what, usage fields)
are those of https://platform.claude.com/docs/en/build-with-claude/prompt-caching.
Each test is named for the rule it proves.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget import (
    MIN_CACHEABLE_TOKENS,
    PromptCache,
    SimulatedClock,
    TooManyBreakpointsError,
    Usage,
    cache_report,
)
from context_budget.cache import DEFAULT_EFFORT, LAST_TURN_THINKING_ONLY
from context_budget.errors import (
    AutomaticCacheConflictError,
    CacheTTLOrderError,
    InvalidRequestError,
)

EPHEMERAL = {"type": "ephemeral"}
ONE_HOUR = {"type": "ephemeral", "ttl": "1h"}


def per_block(tokens: int) -> Any:
    """A counter that makes every block cost `tokens`, whatever its text."""
    return lambda text: tokens


def marked(text: str, control: dict[str, str] | None = EPHEMERAL) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": text}
    if control is not None:
        block["cache_control"] = control
    return block


def blocks(count: int, *, marks: dict[int, dict[str, str]] | None = None) -> list[dict[str, Any]]:
    """`count` one-block user messages, cache_control on the 1-based positions in `marks`."""
    marks = marks or {}
    return [{"role": "user", "content": [marked(f"m{i}", marks.get(i + 1))]} for i in range(count)]


def check_fields_add_up(usage: Usage, prompt: int) -> None:
    assert usage.cache_creation_input_tokens == (
        usage.ephemeral_5m_input_tokens + usage.ephemeral_1h_input_tokens
    )
    assert usage.prompt_tokens == prompt


# the usage fields add up ----------------------------------------------------


def test_creation_is_the_sum_of_its_split_and_the_inputs_add_up_to_the_prompt() -> None:
    """On a mixed-TTL request: 1h on the system prompt, 5m on the last message."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(1100))
    request = {
        "system": [marked("rules", ONE_HOUR)],
        "messages": blocks(6, marks={6: EPHEMERAL}),
    }
    for _ in range(3):
        usage = cache.usage(request)
        check_fields_add_up(usage, cache.prompt_tokens(request))
    assert usage.as_dict()["cache_creation"] == {
        "ephemeral_5m_input_tokens": 0,
        "ephemeral_1h_input_tokens": 0,
    }


# the lookback of 20 blocks --------------------------------------------------


def test_lookback_reads_at_most_20_blocks_back_from_a_breakpoint() -> None:
    """Worked example of the docs: 10 -> 15 -> 35 blocks, breakpoint on the last; T3 misses."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(200))
    t1 = cache.usage(messages=blocks(10, marks={10: EPHEMERAL}))
    t2 = cache.usage(messages=blocks(15, marks={15: EPHEMERAL}))
    t3 = cache.usage(messages=blocks(35, marks={35: EPHEMERAL}))
    assert (t1.cache_read_input_tokens, t1.cache_creation_input_tokens) == (0, 2000)
    assert (t2.cache_read_input_tokens, t2.cache_creation_input_tokens) == (2000, 1000)
    assert (t3.cache_read_input_tokens, t3.cache_creation_input_tokens) == (0, 7000)


def test_a_second_breakpoint_inside_the_window_makes_the_long_turn_hit() -> None:
    """The same T3 with an extra breakpoint at block 15 reads 3,000 and writes 4,000."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(200))
    cache.usage(messages=blocks(10, marks={10: EPHEMERAL}))
    cache.usage(messages=blocks(15, marks={15: EPHEMERAL}))
    t3 = cache.usage(messages=blocks(35, marks={15: EPHEMERAL, 35: EPHEMERAL}))
    assert (t3.cache_read_input_tokens, t3.cache_creation_input_tokens) == (3000, 4000)


def test_the_block_exactly_20_back_is_still_inside_the_window() -> None:
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(200))
    cache.usage(messages=blocks(15, marks={15: EPHEMERAL}))
    hit = cache.usage(messages=blocks(34, marks={34: EPHEMERAL}))  # checks 34..15
    assert hit.cache_read_input_tokens == 3000


# the timestamp trap ---------------------------------------------------------


def timestamped(stamp: str, question: str) -> list[dict[str, Any]]:
    static = [marked(f"static {i}", None) for i in range(5)]
    return [{"role": "user", "content": [*static, marked(f"{stamp} {question}", None)]}]


def counter_2000_50(text: str) -> int:
    return 50 if text.startswith("12:") else 400  # five static blocks -> 2,000 tokens


def test_a_breakpoint_on_the_timestamp_block_writes_every_time_and_never_reads() -> None:
    """Worked example of the docs: breakpoint on block 6, whose text changes each request."""
    cache = PromptCache("claude-sonnet-4-6", counter=counter_2000_50)
    for minute in range(4):
        messages = timestamped(f"12:0{minute}", "status?")
        messages[0]["content"][5]["cache_control"] = EPHEMERAL
        usage = cache.usage(messages=messages)
        assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (2050, 0)


def test_a_breakpoint_on_the_last_static_block_reads_from_the_second_request() -> None:
    """Breakpoint on block 5 gives creation 2000 + input 50, then read 2000 + input 50."""
    cache = PromptCache("claude-sonnet-4-6", counter=counter_2000_50)
    seen = []
    for minute in range(3):
        messages = timestamped(f"12:0{minute}", "status?")
        messages[0]["content"][4]["cache_control"] = EPHEMERAL
        u = cache.usage(messages=messages)
        seen.append((u.cache_creation_input_tokens, u.cache_read_input_tokens, u.input_tokens))
    assert seen == [(2000, 0, 50), (0, 2000, 50), (0, 2000, 50)]


def test_automatic_caching_falls_into_the_timestamp_trap() -> None:
    """The automatic breakpoint lands on the varying last block."""
    cache = PromptCache("claude-sonnet-4-6", counter=counter_2000_50)
    for minute in range(3):
        usage = cache.usage(
            messages=timestamped(f"12:0{minute}", "status?"), cache_control=EPHEMERAL
        )
        assert usage.cache_read_input_tokens == 0


# the minimum cacheable length -----------------------------------------------


def below_minimum_request() -> dict[str, Any]:
    return {
        "system": "s" * 12_000,  # 3,000 estimated tokens
        "messages": [{"role": "user", "content": "q" * 400}],  # 100
        "cache_control": EPHEMERAL,
    }


def test_a_prompt_below_the_minimum_silently_never_caches() -> None:
    """Haiku 4.5 (4,096): 3,000 + 100 tokens -> read 0, creation 0, input 3,100."""
    cache = PromptCache("claude-haiku-4-5")
    for _ in range(2):
        usage = cache.usage(below_minimum_request())
        assert usage.as_dict() == {
            "input_tokens": 3100,
            "output_tokens": 0,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        }


def test_the_same_prompt_caches_on_a_model_with_a_lower_minimum() -> None:
    """On Sonnet 4.6 (1,024) the same request writes 3,100 and then reads it."""
    cache = PromptCache("claude-sonnet-4-6")
    assert cache.usage(below_minimum_request()).cache_creation_input_tokens == 3100
    assert cache.usage(below_minimum_request()).cache_read_input_tokens == 3100


def test_minimums_are_dated_data_and_a_parameter() -> None:
    assert MIN_CACHEABLE_TOKENS["claude-haiku-4-5"].tokens == 4096
    assert MIN_CACHEABLE_TOKENS["claude-opus-5"].tokens == 512
    assert MIN_CACHEABLE_TOKENS["claude-sonnet-4-6"].as_of == "2026-08-21"
    cache = PromptCache("claude-haiku-4-5", min_tokens=1024)
    assert cache.usage(below_minimum_request()).cache_creation_input_tokens == 3100
    with pytest.raises(ValueError, match="claude-unknown"):
        PromptCache("claude-unknown")


# automatic caching and the four breakpoints ---------------------------------


def test_automatic_breakpoint_on_a_block_with_the_same_ttl_is_a_no_op() -> None:
    """Four explicit marks, the last on the last block, plus automatic: accepted."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(300))
    messages = blocks(6, marks={3: EPHEMERAL, 4: EPHEMERAL, 5: EPHEMERAL, 6: EPHEMERAL})
    usage = cache.usage(messages=messages, cache_control=EPHEMERAL)
    assert usage.cache_creation_input_tokens == 1800


def test_automatic_breakpoint_with_a_different_ttl_is_refused() -> None:
    """The last block has a 5m mark, the top level asks for 1h -> 400."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(300))
    with pytest.raises(AutomaticCacheConflictError, match="ttl") as error:
        cache.usage(messages=blocks(3, marks={3: EPHEMERAL}), cache_control=ONE_HOUR)
    assert error.value.status_code == 400


def test_automatic_breakpoint_on_top_of_four_explicit_ones_is_refused() -> None:
    """Four explicit breakpoints leave no slot for the automatic one."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(300))
    messages = blocks(6, marks={1: EPHEMERAL, 2: EPHEMERAL, 3: EPHEMERAL, 4: EPHEMERAL})
    with pytest.raises(TooManyBreakpointsError, match="Found 5"):
        cache.usage(messages=messages, cache_control=EPHEMERAL)


def test_a_fifth_breakpoint_is_refused_with_the_api_words() -> None:
    """Five explicit breakpoints -> 400."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(300))
    marks = dict.fromkeys(range(1, 6), EPHEMERAL)
    with pytest.raises(TooManyBreakpointsError) as error:
        cache.usage(messages=blocks(6, marks=marks))
    assert str(error.value) == "A maximum of 4 blocks with cache_control may be provided. Found 5."
    assert isinstance(error.value, InvalidRequestError)


def test_a_one_hour_breakpoint_after_a_five_minute_one_is_refused() -> None:
    """Tools -> system -> messages order; 1h must come first."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(300))
    with pytest.raises(CacheTTLOrderError, match="must not come after"):
        cache.usage(system=[marked("s", EPHEMERAL)], messages=blocks(2, marks={2: ONE_HOUR}))


def test_the_automatic_breakpoint_skips_thinking_and_empty_text_blocks() -> None:
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(300))
    messages = [
        *blocks(4),
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "a"},
                {"type": "thinking", "thinking": "hmm", "signature": "s"},
                {"type": "text", "text": ""},
            ],
        },
    ]
    usage = cache.usage(messages=messages, cache_control=EPHEMERAL)
    assert (usage.cache_creation_input_tokens, usage.input_tokens) == (1500, 600)


# TTL and refresh ------------------------------------------------------------


def test_a_read_refreshes_the_entry_from_the_start_of_the_request() -> None:
    """Written at 0:00, read at 4:00, alive until 9:00; a request at 10:00 misses."""
    clock = SimulatedClock()
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(300), clock=clock)
    request = {"messages": blocks(5), "cache_control": EPHEMERAL}
    cache.usage(request)
    clock.advance(240)
    assert cache.usage(request).cache_read_input_tokens == 1500  # 4:00, refreshed
    clock.advance(299)
    assert cache.usage(request).cache_read_input_tokens == 1500  # 8:59, refreshed again


def test_an_entry_not_read_for_five_minutes_is_gone() -> None:
    clock = SimulatedClock()
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(300), clock=clock)
    request = {"messages": blocks(5), "cache_control": EPHEMERAL}
    cache.usage(request)
    clock.advance(240)
    cache.usage(request)  # read at 4:00 -> lives until 9:00
    clock.advance(360)  # 10:00
    usage = cache.usage(request)
    assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (0, 1500)


def test_a_request_sent_before_another_response_began_misses_what_that_one_writes() -> None:
    """Parallel requests: an entry is readable once the response that writes it has begun."""
    clock = SimulatedClock()
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(1100), clock=clock)
    request = {"system": [marked("shared prompt")], "messages": blocks(1)}
    first = cache.usage(request, responded_at=2.4)  # sent at 0:00, answered from 0:02.4
    clock.advance(0.1)
    second = cache.usage(request, responded_at=2.6)  # sent before that answer began
    assert (first.cache_read_input_tokens, second.cache_read_input_tokens) == (0, 0)
    assert second.cache_creation_input_tokens == 1100  # each pays to write the same prefix
    clock.advance(2.5)  # 0:02.6, after the first answer began
    assert cache.usage(request).cache_read_input_tokens == 1100
    # and the lifetime still runs from the request's start, not the answer's
    clock.advance(300 - 2.6 - 0.1 + 0.1)
    assert cache.usage(request).cache_read_input_tokens == 1100  # refreshed at 0:02.6


def test_responded_at_is_checked_and_never_before_the_request() -> None:
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(1100), clock=SimulatedClock(10.0))
    request = {"system": [marked("shared prompt")], "messages": blocks(1)}
    with pytest.raises(TypeError, match="responded_at must be a number"):
        cache.usage(request, responded_at="soon")  # type: ignore[arg-type]
    cache.usage(request, responded_at=5.0)  # before the request: readable at once
    assert cache.usage(request).cache_read_input_tokens == 1100


def test_after_thirty_minutes_the_hour_part_is_read_and_the_five_minute_part_rewritten() -> None:
    """On a mixed-TTL request: 1h on the system prompt, 5m on the last message."""
    clock = SimulatedClock()
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(1100), clock=clock)
    request = {"system": [marked("rules", ONE_HOUR)], "messages": blocks(5, marks={5: EPHEMERAL})}
    first = cache.usage(request)
    assert (first.ephemeral_1h_input_tokens, first.ephemeral_5m_input_tokens) == (1100, 5500)
    clock.advance(30 * 60)
    later = cache.usage(request)
    assert later.cache_read_input_tokens == 1100
    assert (later.ephemeral_1h_input_tokens, later.ephemeral_5m_input_tokens) == (0, 5500)


def test_writes_split_at_the_last_one_hour_breakpoint_after_the_hit() -> None:
    """A = highest hit, B = last 1h breakpoint after A, C = last breakpoint."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(100))
    tools = [{"name": f"t{i}", "description": "d", "input_schema": {}} for i in range(12)]
    tools[-1] = {**tools[-1], "cache_control": ONE_HOUR}
    request = {
        "tools": tools,
        "system": [marked("rules", ONE_HOUR)],
        "messages": blocks(4, marks={4: EPHEMERAL}),
    }
    cache.usage({**request, "system": [marked("other rules", ONE_HOUR)]})  # warms the tools only
    usage = cache.usage(request)
    assert usage.cache_read_input_tokens == 1200  # A: the tools
    assert usage.ephemeral_1h_input_tokens == 100  # B - A: the system block
    assert usage.ephemeral_5m_input_tokens == 400  # C - B: the messages


# what invalidates what ------------------------------------------------------


def invalidation_request(**changes: Any) -> dict[str, Any]:
    request: dict[str, Any] = {
        "tools": [{"name": "read", "description": "Read a file.", "input_schema": {}}],
        "system": [marked("You are terse.")],
        "messages": blocks(3),
        "tool_choice": {"type": "auto"},
        "cache_control": EPHEMERAL,
    }
    request.update(changes)
    return request


def test_changing_tool_choice_keeps_tools_and_system_and_rewrites_the_messages() -> None:
    """Read = tokens up to the end of the system prompt."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(600))
    cache.usage(invalidation_request())
    usage = cache.usage(invalidation_request(tool_choice={"type": "any"}))
    assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (1200, 1800)


def test_changing_a_tool_description_rewrites_everything() -> None:
    """Tools come first, so the whole prefix is new."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(600))
    cache.usage(invalidation_request())
    tools = [{"name": "read", "description": "Read one file.", "input_schema": {}}]
    usage = cache.usage(invalidation_request(tools=tools))
    assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (0, 3000)


@pytest.mark.parametrize(
    "change",
    [
        {"thinking": {"type": "enabled", "budget_tokens": 2048}},
        {"output_config": {"effort": "medium"}},
    ],
)
def test_thinking_settings_invalidate_the_messages_only(change: dict[str, Any]) -> None:
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(600))
    cache.usage(invalidation_request())
    assert cache.usage(invalidation_request(**change)).cache_read_input_tokens == 1200


def test_naming_the_default_effort_is_the_same_prompt_as_omitting_it() -> None:
    """Effort set explicitly to the API's default ("high") invalidates nothing."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(600))
    cache.usage(invalidation_request())
    named = cache.usage(invalidation_request(output_config={"effort": DEFAULT_EFFORT}))
    assert (named.cache_read_input_tokens, named.cache_creation_input_tokens) == (3000, 0)
    back = cache.usage(invalidation_request(output_config={}))
    assert back.cache_read_input_tokens == 3000


def thinking_turns(last_user: Any) -> list[dict[str, Any]]:
    """The docs' three-request example: a tool turn with thinking, a text turn, then `last_user`."""
    think = [{"type": "thinking", "thinking": "t1", "signature": "s1"}]
    return [
        {"role": "user", "content": "What's the weather in Paris?"},
        {
            "role": "assistant",
            "content": [*think, {"type": "tool_use", "id": "t", "name": "w", "input": {}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "9C"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "t2", "signature": "s2"},
                {"type": "text", "text": "It is 9C."},
            ],
        },
        last_user,
    ]


@pytest.mark.parametrize(
    ("model", "kept"),
    [("claude-sonnet-4-5", False), ("claude-haiku-4-5", False), ("claude-sonnet-4-6", True)],
)
def test_older_models_strip_prior_thinking_once_the_user_says_something_new(
    model: str, kept: bool
) -> None:
    """Thinking preservation by model: new user text drops earlier turns' thinking there."""
    cache = PromptCache(model, counter=per_block(1100), min_tokens=1024)
    in_loop = thinking_turns({"role": "user", "content": "x"})[:3]
    first = cache.usage(messages=in_loop, cache_control=EPHEMERAL)  # 4 blocks, thinking kept
    assert first.cache_creation_input_tokens == 4 * 1100
    later = thinking_turns({"role": "user", "content": "And tomorrow?"})
    usage = cache.usage(messages=later, cache_control=EPHEMERAL)
    blocks_sent = 7 if kept else 5  # the two thinking blocks are gone on the older models
    assert usage.prompt_tokens == blocks_sent * 1100
    # kept: the first request's 4 blocks are read back; stripped: the prefix breaks at
    # block 1, before any entry was written, so nothing is read
    assert usage.cache_read_input_tokens == (4 * 1100 if kept else 0)
    assert (model in LAST_TURN_THINKING_ONLY) is not kept


def test_a_turn_of_tool_results_keeps_the_thinking_on_every_model() -> None:
    cache = PromptCache("claude-haiku-4-5", counter=per_block(1100), min_tokens=1024)
    history = thinking_turns({"role": "user", "content": "x"})[:3]
    assert cache.prompt_tokens(messages=history) == 4 * 1100


def test_adding_an_image_invalidates_the_messages_only() -> None:
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(600))
    cache.usage(invalidation_request())
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}
    messages = [*blocks(3), {"role": "user", "content": [image]}]
    assert cache.usage(invalidation_request(messages=messages)).cache_read_input_tokens == 1200


def test_an_image_in_a_tool_result_invalidates_the_messages_only() -> None:
    """An image inside a tool result's content (a block in a list in a block in a list
    in a message) is found as one at a message's top level is; a block that only says
    "image" in its text is not an image."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(600))
    cache.usage(invalidation_request())
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png"}}
    result = {"type": "tool_result", "tool_use_id": "t0", "content": [image]}
    call = {"type": "tool_use", "id": "t0", "name": "read", "input": {"path": "a.png"}}
    said = {"role": "assistant", "content": [call]}
    plain = [*blocks(3), said, {"role": "user", "content": [marked("image")]}]
    pictured = [*blocks(3), said, {"role": "user", "content": [result]}]
    assert cache.usage(invalidation_request(messages=plain)).cache_read_input_tokens == 3000
    assert cache.usage(invalidation_request(messages=pictured)).cache_read_input_tokens == 1200


def test_one_changed_byte_in_the_system_prompt_misses_everything_after_the_tools() -> None:
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(600))
    cache.usage(invalidation_request())
    usage = cache.usage(invalidation_request(system=[marked("You are terse!")]))
    assert usage.cache_read_input_tokens == 0  # no breakpoint on the tools: nothing to read


def test_moving_the_cache_control_marker_does_not_change_the_prefix() -> None:
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(400))
    cache.usage(messages=blocks(4, marks={4: EPHEMERAL}))
    usage = cache.usage(messages=blocks(5, marks={5: EPHEMERAL}))
    assert usage.cache_read_input_tokens == 1600


# Bad input -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("control", "match"),
    [({"type": "persistent"}, "ephemeral"), ({"type": "ephemeral", "ttl": "2h"}, "'2h'")],
)
def test_a_malformed_cache_control_names_the_block(control: dict[str, str], match: str) -> None:
    cache = PromptCache("claude-sonnet-4-6")
    with pytest.raises(ValueError, match=match):
        cache.usage(messages=blocks(2, marks={2: control}))


def test_bad_arguments_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="min_tokens"):
        PromptCache("claude-sonnet-4-6", min_tokens=-1)
    with pytest.raises(ValueError, match="seconds"):
        SimulatedClock().advance(-1)
    with pytest.raises(TypeError, match="message 1"):
        PromptCache("claude-sonnet-4-6").usage(messages=[{"role": "user", "content": "a"}, "b"])


def test_the_request_is_not_mutated() -> None:
    request = invalidation_request()
    before = repr(request)
    PromptCache("claude-sonnet-4-6").usage(request)
    assert repr(request) == before


# Properties over generated request sequences ---------------------------------

texts = st.sampled_from(["a", "tubs ", "héllo ", "日本語", "🙂", '{"n": 12}', "\u200b"])


@st.composite
def growing_runs(draw: st.DrawFn) -> tuple[list[list[dict[str, Any]]], list[int], bool]:
    """An append-only run: each request adds 1-3 messages; gaps between requests in seconds."""
    steps = draw(st.integers(1, 6))
    history: list[dict[str, Any]] = []
    runs = []
    for _ in range(steps):
        for _ in range(draw(st.integers(1, 3))):
            role = "user" if len(history) % 2 == 0 else "assistant"
            history.append({"role": role, "content": draw(texts) * draw(st.integers(1, 60))})
        runs.append(list(history))
    gaps = draw(st.lists(st.integers(0, 299), min_size=steps, max_size=steps))
    return runs, gaps, draw(st.booleans())


@given(growing_runs())
def test_property_the_three_input_fields_add_up_to_the_prompt(
    run: tuple[list[list[dict[str, Any]]], list[int], bool],
) -> None:
    runs, gaps, system_mark = run
    clock = SimulatedClock()
    cache = PromptCache("claude-sonnet-4-6", clock=clock, min_tokens=16)
    system = [marked("Be brief. " * 10, EPHEMERAL if system_mark else None)]
    for messages, gap in zip(runs, gaps, strict=True):
        clock.advance(gap)
        request = {"system": system, "messages": messages, "cache_control": EPHEMERAL}
        usage = cache.usage(request)
        check_fields_add_up(usage, cache.prompt_tokens(request))


@given(growing_runs())
def test_property_an_append_only_request_never_reads_less_than_the_one_before(
    run: tuple[list[list[dict[str, Any]]], list[int], bool],
) -> None:
    runs, gaps, system_mark = run
    clock = SimulatedClock()
    cache = PromptCache("claude-sonnet-4-6", clock=clock, min_tokens=16)
    system = [marked("Be brief. " * 10, EPHEMERAL if system_mark else None)]
    before = None
    for messages, gap in zip(runs, gaps, strict=True):
        clock.advance(gap)  # within the 5-minute TTL
        # the breakpoint on the last message stays within 20 blocks of the previous one
        usage = cache.usage(system=system, messages=messages, cache_control=EPHEMERAL)
        if before is not None:
            assert usage.cache_read_input_tokens >= before.cache_read_input_tokens
        before = usage


def test_usage_round_trips_through_the_api_shape() -> None:
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(1100))
    usage = cache.usage({"messages": blocks(2)}, cache_control=EPHEMERAL)  # dict and keywords
    assert Usage.of(usage.as_dict()) == usage
    assert usage.cache_creation_input_tokens == 2200


def test_a_system_block_that_is_not_text_names_its_index() -> None:
    with pytest.raises(TypeError, match=r"system\[1\]"):
        PromptCache("claude-sonnet-4-6").usage(system=[marked("a", None), {"type": "image"}])


# Where cache_control may go -----------------------------------------------------


def deep(levels: int) -> Any:
    """A dict nested `levels` deep, too deep for `repr` or `json.dumps` to recurse through."""
    value: Any = {}
    for _ in range(levels):
        value = {"k": value}
    return value


@pytest.mark.parametrize(
    ("request_", "path"),
    [
        (
            {"messages": [{"role": "user", "content": [marked("q", None), marked("")]}]},
            "messages.0.content.1.text: cache_control cannot be set for empty text blocks",
        ),
        (
            {"system": [marked("")], "messages": blocks(1)},
            "system.0.text: cache_control cannot be set for empty text blocks",
        ),
        (
            {
                "messages": [
                    *blocks(1),
                    {
                        "role": "assistant",
                        "content": [
                            {
                                "type": "thinking",
                                "thinking": "hmm",
                                "signature": "s",
                                "cache_control": EPHEMERAL,
                            },
                            marked("a", None),
                        ],
                    },
                ]
            },
            "messages.1.content.0.thinking.cache_control: Extra inputs are not permitted",
        ),
    ],
    ids=["empty-text", "empty-system-text", "thinking"],
)
def test_cache_control_where_the_api_refuses_it_is_a_400(
    request_: dict[str, Any], path: str
) -> None:
    """Empty text blocks and thinking blocks cannot carry cache_control (the API answers 400)."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(1100))
    with pytest.raises(InvalidRequestError) as error:
        cache.usage(request_)
    assert str(error.value) == path
    assert error.value.status_code == 400


def test_counting_tokens_does_not_refuse_a_marker_the_api_would() -> None:
    """A guard or a clearing edit can count a history that `usage` would refuse."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(10))
    messages = [{"role": "user", "content": [marked("q", None), marked("")]}]
    assert cache.prompt_tokens(messages=messages) == 20
    with pytest.raises(InvalidRequestError):
        cache.usage(messages=messages)


def result_message(text: str, control: dict[str, str] | None, *, outer: bool = False) -> Any:
    inner = marked(text, None if outer else control)
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": "t", "content": [inner]}
    if outer and control is not None:
        block["cache_control"] = control
    return {"role": "user", "content": [block]}


def tool_turn(control: dict[str, str] | None, *, outer: bool = False) -> list[dict[str, Any]]:
    call = {"type": "tool_use", "id": "t", "name": "read", "input": {}}
    return [
        *blocks(2),
        {"role": "assistant", "content": [call]},
        result_message("R", control, outer=outer),
    ]


def test_a_marker_inside_a_tool_result_is_a_breakpoint_on_that_result() -> None:
    """The docs' tool runners cache a result with cache_control on its inner text block."""
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(1100))
    first = cache.usage(messages=tool_turn(EPHEMERAL))
    assert (first.cache_creation_input_tokens, first.input_tokens) == (4400, 0)
    later = [*tool_turn(None), {"role": "assistant", "content": "ok"}, *blocks(1)]
    second = cache.usage(messages=later, cache_control=EPHEMERAL)
    assert (second.cache_read_input_tokens, second.cache_creation_input_tokens) == (4400, 2200)


def test_every_nested_marker_counts_toward_the_four() -> None:
    """Six markers inside tool results are six breakpoints: refused like six anywhere."""
    messages: list[dict[str, Any]] = []
    for i in range(6):
        call = {"type": "tool_use", "id": f"t{i}", "name": "read", "input": {}}
        inner = [marked(f"R{i}")]
        result = {"type": "tool_result", "tool_use_id": f"t{i}", "content": inner}
        messages += [
            {"role": "assistant", "content": [call]},
            {"role": "user", "content": [result]},
        ]
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(300))
    with pytest.raises(TooManyBreakpointsError, match="Found 6"):
        cache.usage(messages=[*blocks(1), *messages])
    with pytest.raises(TooManyBreakpointsError, match="Found 5"):
        cache.usage(messages=[*blocks(1), *messages[:8], *blocks(1)], cache_control=EPHEMERAL)
    # four inside, the last on the last block: the automatic one is a no-op there
    assert cache.usage(messages=[*blocks(1), *messages[:8]], cache_control=EPHEMERAL)


def test_a_nested_marker_is_not_content_and_the_prefix_guard_agrees() -> None:
    """Moving a marker into, out of or around a tool result changes neither hash nor guard."""
    from context_budget import PrefixGuard

    cache = PromptCache("claude-sonnet-4-6", counter=per_block(1100))
    keys = {
        tuple(block.key for block in cache._row({"messages": history}))
        for history in (tool_turn(None), tool_turn(EPHEMERAL), tool_turn(EPHEMERAL, outer=True))
    }
    assert len(keys) == 1
    guard = PrefixGuard(strict=True)
    guard.check(tool_turn(EPHEMERAL))
    assert guard.check([*tool_turn(None), {"role": "assistant", "content": "ok"}]).kind == "append"


def test_a_nested_marker_follows_the_same_rules_as_any_other() -> None:
    cache = PromptCache("claude-sonnet-4-6", counter=per_block(1100))
    with pytest.raises(InvalidRequestError, match=r"messages\.3\.content\.0\.content\.0\.text:"):
        cache.usage(messages=[*tool_turn(None)[:3], result_message("", EPHEMERAL)])
    with pytest.raises(ValueError, match="'2h'"):
        cache.usage(messages=tool_turn({"type": "ephemeral", "ttl": "2h"}))
    with pytest.raises(CacheTTLOrderError):  # a 5m marker inside, then a 1h one on the result
        history = tool_turn(EPHEMERAL)
        history[3]["content"][0]["cache_control"] = ONE_HOUR
        cache.usage(messages=history)
    with pytest.raises(AutomaticCacheConflictError):  # the last block holds a 5m marker inside
        cache.usage(messages=tool_turn(EPHEMERAL), cache_control=ONE_HOUR)


# Malformed requests and values ------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "error", "words"),
    [
        ({"output_config": ["high"]}, TypeError, "output_config must be a dict, got ['high']"),
        ({"output_config": {"effort": "turbo"}}, ValueError, "got 'turbo'"),
        ({"thinking": "on"}, TypeError, "thinking must be a dict"),
        ({"tool_choice": 1}, TypeError, "tool_choice must be a dict"),
        ({"speed": 2}, TypeError, "speed must be a str"),
        ({"system": [{"type": "text"}]}, ValueError, "system[0] (text) has no 'text'"),
        ({"system": [{"type": "text", "text": 3}]}, TypeError, "'text' of type int"),
        ({"tools": [{"name": "t", "input_schema": deep(5000)}]}, TypeError, "tools[0] at"),
        ({"cache_control": deep(5000)}, ValueError, "top-level: cache_control must be"),
        ({"cache_control": {"type": "ephemeral", "ttl": ["1h"]}}, ValueError, "got ['1h']"),
    ],
    ids=[
        "output-config-list",
        "effort-unknown",
        "thinking-str",
        "tool-choice-int",
        "speed-int",
        "system-no-text",
        "system-text-int",
        "tools-deep",
        "control-deep",
        "ttl-list",
    ],
)
def test_a_malformed_request_raises_a_named_error(
    change: dict[str, Any], error: type[Exception], words: str
) -> None:
    request = {**invalidation_request(), **change}
    with pytest.raises(error) as raised:
        PromptCache("claude-sonnet-4-6").usage(request)
    assert words in str(raised.value)
    assert len(str(raised.value)) < 300  # a deep value is shown cut short, never in full


@pytest.mark.parametrize(
    ("start", "error"),
    [
        (10**400, ValueError),
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        ("0", TypeError),
    ],
    ids=["huge", "nan", "inf", "text"],
)
def test_a_clock_that_cannot_start_says_why(start: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="start"):
        SimulatedClock(start)


@pytest.mark.parametrize(
    ("seconds", "error"),
    [
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        (-0.5, ValueError),
        (10**400, ValueError),
        (True, TypeError),
        ("3", TypeError),
    ],
    ids=["nan", "inf", "negative", "huge", "bool", "text"],
)
def test_a_clock_refuses_to_move_by_a_bad_amount(seconds: Any, error: type[Exception]) -> None:
    clock = SimulatedClock(5)
    with pytest.raises(error, match="seconds"):
        clock.advance(seconds)
    assert clock.now == 5.0


@pytest.mark.parametrize("clock", [5, "now", {"now": 0.0}])
def test_a_clock_that_is_not_a_clock_is_refused_when_the_cache_is_made(clock: Any) -> None:
    """It used to pass, and break the first request with an AttributeError on `.now`."""
    with pytest.raises(TypeError, match=r"^clock must be a SimulatedClock or None, got "):
        PromptCache("claude-sonnet-4-6", clock=clock)


def test_a_message_passed_for_a_request_is_named_not_counted_as_nothing() -> None:
    """`usage({"role": "user", "content": ...})` read no key it knew, so it reported a
    prompt of 0 tokens; `cache_report(messages, model)` did so for every message."""
    message = {"role": "user", "content": "x" * 8_000}
    for call in (
        lambda: PromptCache("claude-sonnet-4-6").usage(message),
        lambda: PromptCache("claude-sonnet-4-6").prompt_tokens(message),
        lambda: cache_report([message, message], "claude-sonnet-4-6"),
    ):
        with pytest.raises(TypeError, match=r"a message \(role 'user'\), not a request"):
            call()


def test_a_clock_never_reaches_infinity() -> None:
    clock = SimulatedClock(1e308)
    with pytest.raises(ValueError, match="finite"):
        clock.advance(1e308)
    assert clock.now == 1e308


def test_a_bad_model_min_tokens_or_request_is_named_briefly() -> None:
    with pytest.raises(TypeError, match="model must be a str"):
        PromptCache(deep(10_000))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="min_tokens must be an int >= 0") as raised:
        PromptCache("claude-sonnet-4-6", min_tokens=-(10**5000))
    assert len(str(raised.value)) < 200
    with pytest.raises(TypeError, match="request must be a dict") as wrong:
        PromptCache("claude-sonnet-4-6").usage([deep(10_000)])  # type: ignore[arg-type]
    assert len(str(wrong.value)) < 200


def test_a_row_of_keyed_blocks_is_read_and_written_as_a_request_is() -> None:
    """`usage_of_row` settles pre-keyed, pre-counted blocks by the same rules as `usage`."""
    from context_budget._prompt_row import Block

    by_request = PromptCache("claude-sonnet-4-6", counter=per_block(700))
    by_row = PromptCache("claude-sonnet-4-6")
    for turns in (2, 3, 5):
        request = {"messages": blocks(turns), "cache_control": EPHEMERAL}
        expected = by_request.usage(request)
        row = [
            Block("/".join(f"m{i}" for i in range(k + 1)), 700, True, (), k) for k in range(turns)
        ]
        row[-1] = Block(row[-1].key, 700, True, ("5m",), turns - 1)
        got = by_row.usage_of_row(row, roles=["user"] * turns)
        assert got == expected


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "codex-mini-latest", "deepseek-chat"])
def test_a_row_cut_from_each_request_gives_what_the_request_gives(model: str) -> None:
    """On a cache of each kind of hit (breakpoints, prefixes, DeepSeek's units, which read
    the messages' roles), a conversation sent as rows settles as it does sent whole."""
    by_request = PromptCache(model, counter=per_block(700))
    by_row = PromptCache(model, counter=per_block(700))
    messages: list[dict[str, Any]] = []
    for turn in range(6):
        asked = {"role": "user", "content": [marked(f"ask {turn}")]}  # the breakpoint moves on
        request = {"messages": [*messages, asked]}
        messages.append({"role": "user", "content": [marked(f"ask {turn}", None)]})
        row = by_request._row(request)
        roles = [str(message["role"]) for message in request["messages"]]
        assert by_row.usage_of_row(row, roles=roles) == by_request.usage(request)
        assert by_row.last_keys == by_request.last_keys == tuple(block.key for block in row)
        messages.append({"role": "assistant", "content": [marked(f"answer {turn}", None)]})
        by_request.clock.advance(30.0)
        by_row.clock.advance(30.0)


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "codex-mini-latest", "deepseek-chat"])
def test_a_row_summed_by_the_replay_settles_as_the_row_itself(model: str) -> None:
    """The replay hands each row with the sums it carried from its thread's last request
    (`_usage_of_summed_row`): the usage and the cache left are those of the request sent
    whole, and the row and the sums are kept as they were given."""
    import itertools

    given = PromptCache(model, counter=per_block(700))
    summed = PromptCache(model, counter=per_block(700))
    messages: list[dict[str, Any]] = []
    for turn in range(6):
        asked = {"role": "user", "content": [marked(f"ask {turn}")]}
        request = {"messages": [*messages, asked]}
        messages.append({"role": "user", "content": [marked(f"ask {turn}", None)]})
        row = given._row(request)
        roles = [str(message["role"]) for message in request["messages"]]
        prefix = [0, *itertools.accumulate(block.tokens for block in row)]
        mine, sums = list(row), list(prefix)
        expected = given.usage(request)  # its own row, its own sums
        assert summed._usage_of_summed_row(mine, roles, sums, None) == expected
        assert summed.last_keys == given.last_keys and (mine, sums) == (row, prefix)
        messages.append({"role": "assistant", "content": [marked(f"answer {turn}", None)]})
        given.clock.advance(400.0 if turn == 3 else 30.0)  # one entry lets go
        summed.clock.advance(400.0 if turn == 3 else 30.0)


def test_a_block_marked_is_the_block_replace_gives_every_other_field_kept() -> None:
    """Every field away from its default, so a field `marked` forgets fails."""
    from dataclasses import fields, replace

    from context_budget._prompt_row import Block

    block = Block("k", 7, False, ("5m", "5m"), 3)
    defaults = Block("", 0, True)
    assert all(getattr(block, f.name) != getattr(defaults, f.name) for f in fields(Block))
    assert block.marked("1h") == replace(block, markers=("1h",))


def test_a_row_that_does_not_add_up_is_refused() -> None:
    from context_budget._prompt_row import Block

    cache = PromptCache("claude-sonnet-4-6")
    with pytest.raises(ValueError, match="an int >= 0"):
        cache.usage_of_row([Block("a", -1, True, (), 0)], roles=["user"])
    with pytest.raises(ValueError, match="outside the 1 messages given"):
        cache.usage_of_row([Block("a", 1, True, (), 1)], roles=["user"])
    with pytest.raises(TooManyBreakpointsError):
        row = [Block(f"k{k}", 1, True, ("5m",), 0) for k in range(5)]
        cache.usage_of_row(row, roles=["user"])


@pytest.mark.parametrize(
    ("part", "value"),
    [
        ("messages", {}),
        ("messages", ""),
        ("messages", 0),
        ("tools", {}),
        ("tools", ""),
        ("tools", False),
        ("system", 0),
        ("system", {}),
        ("system", False),
    ],
)
def test_a_part_of_a_request_that_is_empty_of_another_type_is_named_not_read_as_none(
    part: str, value: object
) -> None:
    """`messages={}` is no list of messages; read as none, the request was a prompt of 0
    tokens that wrote and read nothing, unsaid. A part left out or None is still none."""
    request: dict[str, Any] = {"messages": [{"role": "user", "content": "hi"}], part: value}
    cache = PromptCache("claude-sonnet-4-6")
    with pytest.raises(TypeError, match=part):
        cache.usage(request)
    with pytest.raises(TypeError, match=part):
        cache.prompt_tokens(request)
    assert cache.prompt_tokens({**request, part: None}) == cache.prompt_tokens(
        {k: v for k, v in request.items() if k != part}
    )
