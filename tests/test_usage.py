"""Usage: one record from the API's JSON, the SDK's objects or itself; the two counters."""

from __future__ import annotations

import re
from dataclasses import fields
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import context_budget.usage as usage_module
from context_budget import PRICES, Usage, cost, should_compact, track_usage
from context_budget.models import model_for
from context_budget.pricing import Unpriced
from context_budget.usage import MOST_TOKENS, usage_shape, window_usage

COUNTS = st.integers(0, 10**7)


def test_a_usage_reads_as_itself() -> None:
    usage = Usage(input_tokens=3, output_tokens=1)
    assert Usage.of(usage) is usage


def test_an_sdk_object_with_none_cache_fields_reads_as_zero() -> None:
    sdk = SimpleNamespace(
        usage=SimpleNamespace(
            input_tokens=50,
            output_tokens=12,
            cache_creation_input_tokens=None,
            cache_read_input_tokens=None,
            cache_creation=None,
        )
    )
    assert Usage.of(sdk) == Usage(input_tokens=50, output_tokens=12)


def test_the_lifetime_split_is_read_when_given() -> None:
    usage = Usage.of(
        {
            "input_tokens": 2_048,
            "output_tokens": 503,
            "cache_read_input_tokens": 1_800,
            "cache_creation_input_tokens": 248,
            "cache_creation": {"ephemeral_5m_input_tokens": 148, "ephemeral_1h_input_tokens": 100},
        }
    )
    assert (usage.ephemeral_5m_input_tokens, usage.ephemeral_1h_input_tokens) == (148, 100)
    assert usage.prompt_tokens == 4_096
    assert usage.window_tokens == 4_599


def test_without_the_split_every_write_is_a_five_minute_one() -> None:
    usage = Usage.of({"input_tokens": 1, "output_tokens": 1, "cache_creation_input_tokens": 40})
    assert (usage.ephemeral_5m_input_tokens, usage.ephemeral_1h_input_tokens) == (40, 0)


@pytest.mark.parametrize("missing", ["input_tokens", "output_tokens"])
def test_a_missing_required_field_is_named(missing: str) -> None:
    fields = {"input_tokens": 1, "output_tokens": 1}
    del fields[missing]
    with pytest.raises(ValueError, match=f"usage has no '{missing}'"):
        Usage.of(fields)


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True])
def test_a_field_that_is_not_a_count_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match=r"Usage\.input_tokens must be a non-negative int"):
        Usage(input_tokens=bad)  # type: ignore[arg-type]


@given(COUNTS, COUNTS, COUNTS, COUNTS, COUNTS)
def test_as_dict_reads_back_as_the_same_usage(
    inp: int, out: int, read: int, short: int, long: int
) -> None:
    usage = Usage(inp, out, short + long, read, short, long)  # the writes are their split
    assert Usage.of(usage.as_dict()) == usage
    assert Usage.of({"usage": usage.as_dict()}) == usage


@given(COUNTS, COUNTS, COUNTS)
def test_track_usage_adds_input_and_output_only(counter: int, inp: int, out: int) -> None:
    response = {"usage": {"input_tokens": inp, "output_tokens": out, "cache_read_input_tokens": 9}}
    assert track_usage(counter, response) == counter + inp + out


def test_should_compact_triggers_at_the_threshold_itself() -> None:
    assert should_compact(1_400, 2_000, 0.7) is True
    assert should_compact(1_399, 2_000, 0.7) is False


@pytest.mark.parametrize(
    ("window", "ratio", "error", "message"),
    [
        (0, 0.7, ValueError, "context_window must be a positive int, got 0"),
        (2_000.0, 0.7, TypeError, "context_window must be an int, got 2000.0"),
        (2_000, 0, ValueError, "compact_ratio must be strictly between 0 and 1, got 0"),
        (2_000, 1, ValueError, "compact_ratio must be strictly between 0 and 1, got 1"),
    ],
)
def test_bad_settings_are_named(
    window: object, ratio: float, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        should_compact(0, window, ratio)  # type: ignore[arg-type]


def test_a_split_that_does_not_add_up_keeps_the_total_and_its_one_hour_part() -> None:
    """1,000,000 written with an all-zero split once billed $0 for writes: the total counts."""
    usage = {
        "input_tokens": 1,
        "output_tokens": 1,
        "cache_creation_input_tokens": 1_000_000,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
    }
    read = Usage.of(usage)
    assert (read.ephemeral_5m_input_tokens, read.ephemeral_1h_input_tokens) == (1_000_000, 0)
    over = Usage.of({**usage, "cache_creation": {"ephemeral_1h_input_tokens": 1_500_000}})
    assert (over.ephemeral_5m_input_tokens, over.ephemeral_1h_input_tokens) == (0, 1_000_000)
    part = Usage.of(
        {
            **usage,
            "cache_creation": {"ephemeral_5m_input_tokens": 9, "ephemeral_1h_input_tokens": 400},
        }
    )
    assert (part.ephemeral_5m_input_tokens, part.ephemeral_1h_input_tokens) == (999_600, 400)
    with pytest.raises(ValueError, match="ephemeral_1h_input_tokens"):
        Usage.of({**usage, "cache_creation": {"ephemeral_1h_input_tokens": -1}})


@pytest.mark.parametrize("split", [{}, None, SimpleNamespace()])
def test_a_missing_split_bills_every_write_at_the_five_minute_rate(split: object) -> None:
    usage = {
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_creation_input_tokens": 1_000_000,
        "cache_creation": split,
    }
    read = Usage.of(usage)
    assert (read.ephemeral_5m_input_tokens, read.ephemeral_1h_input_tokens) == (1_000_000, 0)
    price = PRICES["claude-sonnet-4-6"]
    assert cost(usage, price).cache_writes == pytest.approx(price.write_5m)


def test_a_missing_field_error_is_short_even_for_a_deep_usage() -> None:
    deep: dict[str, object] = {}
    for _ in range(10_000):
        deep = {"k": deep}
    with pytest.raises(ValueError, match="usage has no 'input_tokens'") as raised:
        Usage.of({"output_tokens": 1, "extra": deep})
    assert len(str(raised.value)) < 200


@pytest.mark.parametrize(
    ("tokens", "window", "ratio", "words"),
    [
        (float("nan"), 2_000, 0.7, "tokens_used must be a finite number >= 0, got nan"),
        (float("inf"), 2_000, 0.7, "got inf"),
        (-1, 2_000, 0.7, "got -1"),
        (0, 2_000, float("nan"), "compact_ratio must be strictly between 0 and 1, got nan"),
        (0, 10**400, 0.5, "context_window is too large"),
    ],
)
def test_should_compact_refuses_what_no_threshold_can_judge(
    tokens: object, window: object, ratio: object, words: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(words)):
        should_compact(tokens, window, ratio)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("tokens", "ratio", "words"),
    [
        ("9", 0.7, "tokens_used must be a number, got '9'"),
        (0, "0.5", "compact_ratio must be a number"),
    ],
)
def test_should_compact_calls_a_value_of_the_wrong_type_a_type_error(
    tokens: object, ratio: object, words: str
) -> None:
    with pytest.raises(TypeError, match=re.escape(words)):
        should_compact(tokens, 2_000, ratio)  # type: ignore[arg-type]


def test_should_compact_takes_a_huge_counter() -> None:
    assert should_compact(10**400, 2_000, 0.7) is True


def test_a_deep_or_huge_field_is_refused_with_a_short_message() -> None:
    deep: list[object] = []
    for _ in range(10_000):
        deep = [deep]
    for bad in (deep, -(10**5000)):
        with pytest.raises(
            ValueError, match=r"usage\.input_tokens must be a whole number"
        ) as raised:
            Usage.of({"input_tokens": bad, "output_tokens": 1})
        assert len(str(raised.value)) < 200


# The window after a call with server tools: the last message iteration


def test_the_window_is_the_last_message_iteration_not_the_top_level_sum() -> None:
    usage = {
        "input_tokens": 6_000,
        "output_tokens": 2_400,
        "cache_read_input_tokens": 243_000,
        "iterations": [
            {
                "type": "message",
                "input_tokens": 2_000,
                "output_tokens": 700,
                "cache_read_input_tokens": 60_000,
            },
            {
                "type": "message",
                "input_tokens": 2_000,
                "output_tokens": 1_000,
                "cache_read_input_tokens": 61_350,
            },
        ],
    }
    assert Usage.of(usage).window_tokens == 251_400
    assert window_usage({"usage": usage}).window_tokens == 64_350


def test_a_compaction_iteration_is_skipped_for_the_message_after_it() -> None:
    usage = {
        "input_tokens": 23_000,
        "output_tokens": 1_000,
        "iterations": [
            {"type": "compaction", "input_tokens": 180_000, "output_tokens": 3_500},
            {"type": "message", "input_tokens": 23_000, "output_tokens": 1_000},
        ],
    }
    assert window_usage(usage) == Usage(input_tokens=23_000, output_tokens=1_000)


def test_sdk_iteration_objects_are_read_too() -> None:
    last = SimpleNamespace(
        type="message",
        input_tokens=40,
        output_tokens=5,
        cache_read_input_tokens=None,
        cache_creation_input_tokens=7,
        cache_creation=None,
    )
    first = SimpleNamespace(type="message", input_tokens=1, output_tokens=1)
    sdk = SimpleNamespace(
        usage=SimpleNamespace(input_tokens=41, output_tokens=6, iterations=[first, last])
    )
    assert window_usage(sdk).window_tokens == 52


@pytest.mark.parametrize(
    "iterations", [None, [], [{"type": "compaction", "input_tokens": 9, "output_tokens": 1}]]
)
def test_without_a_message_iteration_the_top_level_is_the_window(iterations: Any) -> None:
    usage = {"input_tokens": 30, "output_tokens": 3, "iterations": iterations}
    assert window_usage(usage) == Usage.of(usage)
    assert (Usage.of(usage).input_tokens, Usage.of(usage).window_tokens) == (30, 33)
    assert window_usage(Usage.of(usage)) == Usage.of(usage)


@pytest.mark.parametrize("read", [5, {"input_tokens": 7, "output_tokens": 1}])
def test_window_usage_names_a_read_that_is_no_usage(read: object) -> None:
    """It came back as the window itself: `window_usage(usage, read=5)` was 5."""
    with pytest.raises(TypeError, match=r"^read must be a Usage \(Usage\.of\(source\)\) or None"):
        window_usage({"input_tokens": 1, "output_tokens": 1}, read=read)  # type: ignore[arg-type]


def test_malformed_iterations_are_named() -> None:
    with pytest.raises(ValueError, match=r"usage\.iterations must be a list"):
        window_usage({"input_tokens": 1, "output_tokens": 1, "iterations": "message"})
    broken = {"input_tokens": 1, "output_tokens": 1, "iterations": [{"type": "message"}]}
    with pytest.raises(ValueError, match=r"usage\.iterations\[0\] has no 'input_tokens'"):
        window_usage(broken)


@pytest.mark.parametrize("bad", ["oops", [40], 40, True])
@pytest.mark.parametrize(
    ("usage", "field"),
    [
        ({"input_tokens": 9, "output_tokens": 1, "cache_read_input_tokens": 5}, "cache_creation"),
        ({"prompt_tokens": 100, "completion_tokens": 5}, "prompt_tokens_details"),
        ({"input_tokens": 100, "output_tokens": 5}, "input_tokens_details"),
        ({"input_tokens": 9, "output_tokens": 1}, "server_tool_use"),
    ],
    ids=["split", "chat-details", "responses-details", "server-tools"],
)
@pytest.mark.parametrize("strict", [True, False])
def test_a_part_of_a_usage_that_is_not_an_object_is_named(
    usage: dict[str, Any], field: str, bad: object, strict: bool
) -> None:
    """`"prompt_tokens_details": "oops"` once read as no details at all: a corrupt line's
    cached tokens billed as uncached, unsaid, where a corrupt count is refused by name."""
    with pytest.raises(ValueError, match=rf"^usage\.{field} must be an object, got "):
        Usage.of({**usage, field: bad}, strict=strict)


# One reader for every provider's words


def _in_words(shape: str, uncached: int, read: int, output: int) -> dict[str, Any]:
    """One call of `uncached` + `read` prompt tokens and `output` out, as `shape` reports it."""
    prompt = uncached + read
    return {
        "anthropic": {
            "input_tokens": uncached,
            "cache_read_input_tokens": read,
            "output_tokens": output,
        },
        "responses": {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": read},
            "output_tokens": output,
        },
        "chat": {
            "prompt_tokens": prompt,
            "prompt_tokens_details": {"cached_tokens": read},
            "completion_tokens": output,
        },
        "deepseek": {
            "prompt_tokens": prompt,
            "prompt_cache_hit_tokens": read,
            "prompt_cache_miss_tokens": uncached,
            "completion_tokens": output,
        },
        "gemini": {
            "prompt_token_count": prompt,
            "cached_content_token_count": read,
            "candidates_token_count": output,
        },
        "gemini-rest": {
            "promptTokenCount": prompt,
            "cachedContentTokenCount": read,
            "candidatesTokenCount": output,
        },
        "codex": {"input_tokens": prompt, "cached_input_tokens": read, "output_tokens": output},
    }[shape]


WORDS = ["anthropic", "responses", "chat", "deepseek", "gemini", "gemini-rest", "codex"]


@given(st.sampled_from(WORDS), COUNTS, COUNTS, COUNTS)
def test_every_providers_words_read_as_the_same_usage(
    shape: str, uncached: int, read: int, output: int
) -> None:
    expected = Usage(input_tokens=uncached, output_tokens=output, cache_read_input_tokens=read)
    assert Usage.of(_in_words(shape, uncached, read, output)) == expected
    assert Usage.of({"usage": _in_words(shape, uncached, read, output)}) == expected


@pytest.mark.parametrize("shape", WORDS)
def test_every_count_in_every_providers_words_has_the_one_bound(shape: str) -> None:
    words = _in_words(shape, 1, 1, 1)
    for name in words:
        value = words[name]
        if isinstance(value, dict):
            continue
        with pytest.raises(ValueError, match=rf"usage\.{name} must be a whole number from 0 to"):
            Usage.of({**words, name: MOST_TOKENS + 1})
        with pytest.raises(ValueError, match=rf"usage\.{name} must be a whole number"):
            Usage.of({**words, name: True})


@pytest.mark.parametrize(
    ("usage", "words"),
    [
        (
            {"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": 11}},
            "the cached (11) and written (0) tokens exceed prompt_tokens (10)",
        ),
        (
            {
                "input_tokens": 10,
                "input_tokens_details": {"cached_tokens": 4},
                "cache_write_tokens": 7,
            },
            "the cached (4) and written (7) tokens exceed input_tokens (10)",
        ),
        (
            {"prompt_token_count": 3, "cached_content_token_count": 4},
            "the cached (4) and written (0) tokens exceed prompt_token_count (3)",
        ),
    ],
)
def test_cached_tokens_above_the_input_that_holds_them_are_refused(
    usage: dict[str, Any], words: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(f"usage: {words}")):
        Usage.of(usage, strict=False)


def test_writes_inside_an_openai_input_leave_its_uncached_tail() -> None:
    usage = {
        "input_tokens": 10_000,
        "input_tokens_details": {"cached_tokens": 6_000, "cache_write_tokens": 3_000},
        "output_tokens": 50,
    }
    read = Usage.of(usage)
    assert (read.input_tokens, read.cache_read_input_tokens) == (1_000, 6_000)
    assert read.cache_creation_input_tokens == 3_000 and read.prompt_tokens == 10_000


def test_litellm_anthropic_writes_read_inside_or_outside_the_prompt_as_recorded() -> None:
    # an OpenHands event list through a LiteLLM proxy (claude-3-7-sonnet) recorded this
    # first call, and its own running cost for it, $0.00517755: the figure an older
    # LiteLLM wrote, the reads inside `prompt_tokens` and the 467 written tokens not
    older = {
        "prompt_tokens": 5_435,
        "completion_tokens": 119,
        "prompt_tokens_details": {"audio_tokens": None, "cached_tokens": 5_431},
        "cache_creation_input_tokens": 467,
        "cache_read_input_tokens": 5_431,
    }
    today = {**older, "prompt_tokens": 5_435 + 467}  # today's LiteLLM: the writes inside too
    expected = Usage(4, 119, 467, 5_431, ephemeral_5m_input_tokens=467)
    assert Usage.of(older) == Usage.of(today) == expected
    assert round(cost(older, PRICES["claude-3-7-sonnet"]).total, 8) == 0.00517755
    with pytest.raises(ValueError, match=r"the cached \(5,436\) and written"):
        Usage.of({**older, "cache_read_input_tokens": 5_436})  # more read than sent


def test_gemini_thinking_is_output_and_the_tool_prompt_is_input() -> None:
    usage = {
        "prompt_token_count": 900,
        "tool_use_prompt_token_count": 100,
        "cached_content_token_count": 400,
        "candidates_token_count": 30,
        "thoughts_token_count": 70,
    }
    assert Usage.of({"usage_metadata": usage}) == Usage(600, 100, cache_read_input_tokens=400)
    rest = {"promptTokenCount": 900, "cachedContentTokenCount": 400, "candidatesTokenCount": 30}
    assert Usage.of({"usageMetadata": rest}) == Usage(500, 30, cache_read_input_tokens=400)


def test_strict_asks_for_the_input_and_output_figures_and_a_file_reads_them_as_zero() -> None:
    with pytest.raises(ValueError, match="usage has no 'completion_tokens'"):
        Usage.of({"prompt_tokens": 5})
    assert Usage.of({"prompt_tokens": 5}, strict=False) == Usage(input_tokens=5)
    with pytest.raises(ValueError, match=r"line 7 usage must be an object, got None"):
        Usage.of(None, where="line 7 usage")


def test_a_sdk_object_in_openai_words_is_read_by_its_attributes() -> None:
    details = SimpleNamespace(cached_tokens=1_024, cache_write_tokens=None)
    sdk = SimpleNamespace(
        usage=SimpleNamespace(input_tokens=1_500, input_tokens_details=details, output_tokens=9)
    )
    assert Usage.of(sdk) == Usage(476, 9, cache_read_input_tokens=1_024)
    assert usage_shape(sdk.usage) == "responses"


def test_billed_adds_up_the_iterations_and_cost_prices_the_same_parts() -> None:
    usage = Usage.of(
        {
            "input_tokens": 23_000,
            "output_tokens": 1_000,
            "iterations": [
                {"type": "compaction", "input_tokens": 180_000, "output_tokens": 3_500},
                {"type": "message", "input_tokens": 23_000, "output_tokens": 1_000},
            ],
        }
    )
    assert (usage.billed.input_tokens, usage.billed.output_tokens) == (203_000, 4_500)
    price = PRICES["claude-opus-4-6"]
    assert cost(usage, price).total == pytest.approx(cost(usage.billed, price).total)
    assert cost(usage, price).total == pytest.approx(1.1275)
    plain = Usage(5, 1)
    assert plain.billed is plain and plain.parts == (plain,)


_CODEX_KEYS = (
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "cache_write_input_tokens",
    "reasoning_output_tokens",
    "total_tokens",
    "prompt_tokens",
    "candidates_token_count",
    "input_tokens_details",
    "speed",
    "inference_geo",
)
_ODD_COUNTS = st.one_of(
    st.integers(0, 3_000),
    st.integers(-5, 10**16),
    st.sampled_from([None, True, False, 2.5, 0.0, "12", 10**15, 10**15 + 1]),
)


@st.composite
def _codex_figures(draw: st.DrawFn) -> dict[str, Any]:
    """A sound Codex figure (with or without writes), then perhaps a few fields made odd."""
    sent = draw(st.integers(0, 5_000))
    read = draw(st.integers(0, sent))
    usage: dict[str, Any] = {
        "input_tokens": sent,
        "cached_input_tokens": read,
        "output_tokens": draw(st.integers(0, 900)),
    }
    if draw(st.booleans()):
        usage["cache_write_input_tokens"] = draw(st.integers(0, sent - read))
    odd = draw(st.dictionaries(st.sampled_from(_CODEX_KEYS), _ODD_COUNTS, max_size=3))
    return usage | (odd if draw(st.booleans()) else {})


@given(_codex_figures(), st.booleans())
@example(
    {
        "input_tokens": 5,
        "cached_input_tokens": 1,
        "output_tokens": 1,
        "cache_write_input_tokens": False,
    },
    False,
)
def test_a_codex_figure_reads_the_same_at_once_as_field_by_field(
    usage: dict[str, Any], strict: bool
) -> None:
    """The quick route a sound Codex figure takes gives what the checked reader gives, and
    leaves every doubtful figure to it (its error the same)."""

    def outcome(read: Any) -> Any:
        try:
            found = read()
        except ValueError as error:
            return str(error)
        return found, [(f.name, type(getattr(found, f.name))) for f in fields(found)]

    quick = outcome(lambda: Usage.of(usage, strict=strict))
    checked = outcome(lambda: usage_module._parse(usage, "usage", strict))
    assert quick == checked


@pytest.mark.parametrize("iterations", [{}, "", 0, False])
def test_iterations_that_are_empty_of_another_type_are_named_by_every_reader(
    iterations: object,
) -> None:
    """`iterations: {}` is no list: `window_usage` named it while `Usage.of` (so the bill,
    the loop's counter and `cost`) read it as no iterations, unsaid."""
    response = {"usage": {"input_tokens": 5, "output_tokens": 1, "iterations": iterations}}
    for read in (Usage.of, window_usage):
        with pytest.raises(ValueError, match=r"usage\.iterations must be a list"):
            read(response)


@pytest.mark.parametrize(
    ("written", "five", "thirty", "hour"),
    [(100, 0, 150, 0), (100, 0, 150, 40), (100, 30, 60, 30), (0, 0, 5, 0), (100, 0, 100, 0)],
)
def test_a_usage_built_by_hand_bills_its_writes_as_its_own_json_reads_them(
    written: int, five: int, thirty: int, hour: int
) -> None:
    """More 30-minute writes than were written: `Usage.of` keeps them up to the total,
    `billed_writes` billed them whole and -50 one-hour writes beside them, so a GPT-5.6
    call cost one thing built by hand and another read from its own JSON."""
    usage = Usage(
        10,
        5,
        cache_creation_input_tokens=written,
        ephemeral_5m_input_tokens=five,
        ephemeral_1h_input_tokens=hour,
        ephemeral_30m_input_tokens=thirty,
    )
    read = Usage.of(usage.as_dict())
    assert usage.billed_writes == read.billed_writes
    assert min(usage.billed_writes) >= 0 and sum(usage.billed_writes) == written
    price = PRICES["gpt-5.6-sol"]
    assert cost(usage, price) == cost(read, price)


_COUNT = st.integers(0, 300_000)


@st.composite
def _usages(draw: st.DrawFn, *, parts: bool = True) -> Usage:
    """A usage built by hand: any split of its writes, maybe iterations and price rules."""
    iterations: tuple[Usage, ...] = ()
    if parts and draw(st.booleans()):
        iterations = tuple(draw(st.lists(_usages(parts=False), min_size=1, max_size=3)))
    return Usage(
        draw(_COUNT),
        draw(_COUNT),
        cache_creation_input_tokens=draw(_COUNT),
        cache_read_input_tokens=draw(_COUNT),
        ephemeral_5m_input_tokens=draw(_COUNT),
        ephemeral_1h_input_tokens=draw(_COUNT),
        ephemeral_30m_input_tokens=draw(st.one_of(st.just(0), _COUNT)),
        speed=draw(st.sampled_from(["", "fast", "standard"])),
        inference_geo=draw(st.sampled_from(["", "us", "global"])),
        web_search_requests=draw(st.integers(0, 5)),
        iterations=iterations,
    )


@given(_usages(), st.sampled_from(sorted(PRICES)))
def test_property_a_usage_and_its_json_are_billed_alike(usage: Usage, model: str) -> None:
    """Two ways of asking one call's bill: the `Usage` as built, and its own JSON read
    back (`Usage.of`), by the model's rates and by its row under each of its cache modes
    (storage by the hour included). Each part's writes add up to what it wrote, none
    below 0."""
    read = Usage.of(usage.as_dict())
    for part in (usage, *usage.iterations):
        assert min(part.billed_writes) >= 0
        assert sum(part.billed_writes) == part.cache_creation_input_tokens
    assert read.billed_writes == usage.billed_writes
    row = model_for(model)
    assert row is not None
    for price, policy in [(PRICES[model], None), *((row, mode) for mode in row.caches.values())]:
        outcomes = []
        for given_usage in (usage, usage.as_dict()):
            try:
                outcomes.append(cost(given_usage, price, policy=policy))
            except Unpriced:
                outcomes.append(None)
            except ValueError as error:  # a lifetime the mode does not offer, named alike
                outcomes.append(str(error))
        assert outcomes[0] == outcomes[1]


def test_a_read_that_is_not_the_sources_own_is_named() -> None:
    """`read` stands for `Usage.of(source)`; one with fewer iterations than the source
    failed as "tuple index out of range"."""
    response = {
        "usage": {
            "input_tokens": 5,
            "output_tokens": 1,
            "iterations": [
                {"type": "compaction", "input_tokens": 100, "output_tokens": 5},
                {"type": "message", "input_tokens": 20, "output_tokens": 3},
            ],
        }
    }
    assert window_usage(response, read=Usage.of(response)) == Usage(20, 3)
    with pytest.raises(ValueError, match=r"read holds 0 iterations where the source holds 2"):
        window_usage(response, read=Usage(1, 1))
