"""The gate over the pages: no fence escapes the checks, and a wrong page fails.

``test_every_fence_is_checked`` counts, page by page, the fenced blocks in the
file and the Sybil examples made of them; a fence that no example covers fails
the test with its line number. The fixture pages under tests/fixtures/pages/
prove that the page checks can fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from profiles import cases
from sybil.example import SybilFailure

from docsite.pagecheck import ROOT, PageCoverage, page_coverage, run_page, table_cells

FIXTURES = Path(__file__).parent / "fixtures" / "pages"
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
COVERAGE: dict[str, PageCoverage] = {}  # page -> PageCoverage, for the terminal summary


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_fence_is_checked(page: Path) -> None:
    coverage = page_coverage(page)
    COVERAGE[page.relative_to(ROOT).as_posix()] = coverage
    assert coverage.unchecked == (), (
        f"{page}: fences at lines {list(coverage.unchecked)} are checked by nothing"
    )


def test_the_guard_sees_every_kind_of_fence() -> None:
    coverage = page_coverage(FIXTURES / "good.md")
    # python, py with attributes, pycon, doctest after a comment, two outputs, console,
    # and the python block whose output is shown as a table
    assert coverage.fences == 8
    assert coverage.checked == 8
    assert coverage.skips == 1
    # one invisible-code-block setup and one check comment; one output table
    assert coverage.hidden == 2
    assert coverage.tables == 1
    assert coverage.unchecked == ()


def test_a_good_page_passes() -> None:
    skipped = run_page(FIXTURES / "good.md")
    assert skipped == ["shows a command that rebuilds the whole site"]


def test_a_wrong_doctest_output_fails() -> None:
    with pytest.raises(SybilFailure, match=r"Expected:\s+5\s+Got:\s+4"):
        run_page(FIXTURES / "wrong_doctest.md")


def test_a_py_fence_with_attributes_that_raises_fails() -> None:
    with pytest.raises(RuntimeError, match="must fail the gate"):
        run_page(FIXTURES / "py_fence_raises.md")


def test_output_that_the_code_does_not_print_fails() -> None:
    with pytest.raises(SybilFailure, match=r"-tokens: 401\n\+tokens: 400"):
        run_page(FIXTURES / "wrong_output.md")


def test_a_skip_without_a_reason_is_refused() -> None:
    with pytest.raises(ValueError, match="line 3: a skip needs a reason"):
        run_page(FIXTURES / "unreasoned_skip.md")


def test_a_fence_no_checker_runs_fails() -> None:
    with pytest.raises(SybilFailure, match="'text' fence is checked by nothing"):
        run_page(FIXTURES / "unchecked_text.md")


def test_docstrings_use_doctests_not_fences() -> None:
    fenced = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "src").rglob("*.py")
        if "```" in path.read_text(encoding="utf-8")
    ]
    assert fenced == [], "docstring fences are not run; write >>> examples instead"


def test_a_failing_hidden_check_fails() -> None:
    with pytest.raises(SybilFailure, match=r"Expected:\s+5\s+Got:\s+4"):
        run_page(FIXTURES / "hidden_check_fails.md")


def test_a_hidden_python_check_that_raises_fails() -> None:
    with pytest.raises(AssertionError, match="the slots do not fill the session"):
        run_page(FIXTURES / "hidden_python_fails.md")


def test_the_guard_counts_hidden_checks() -> None:
    coverage = page_coverage(FIXTURES / "hidden_check_fails.md")
    assert (coverage.fences, coverage.hidden, coverage.examples) == (0, 1, 1)
    assert coverage.unchecked == ()


def test_a_table_the_block_does_not_print_fails() -> None:
    with pytest.raises(SybilFailure, match=r"-400 \| 6\n\+400 \| 5"):
        run_page(FIXTURES / "wrong_table.md")


def test_an_output_table_needs_a_block_above() -> None:
    with pytest.raises(SybilFailure, match="must directly follow a plain python block"):
        run_page(FIXTURES / "orphan_table_marker.md")


@pytest.mark.parametrize(
    ("text", "cells"),
    [
        ("| a | b |\n|---|:--:|\n| 1 | 2 |", [["a", "b"], ["1", "2"]]),
        ("|a|b|\n| --- | ---: |\n|x \\| y|z|", [["a", "b"], ["x | y", "z"]]),
        ("| `pinned` | kept |\nnot a row", [["`pinned`", "kept"], ["not a row"]]),
        ("\n\n| é 🍦 |\n", [["é 🍦"]]),
    ],
)
def test_table_cells(text: str, cells: list[list[str]]) -> None:
    assert table_cells(text) == cells


_CELL = st.one_of(
    st.sampled_from(["-", "---", ":-:", "LOST", "é 🍦", "a | b"]),
    st.text(
        st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\\`"),
        max_size=12,
    ),
).map(str.strip)


@cases(0.5)
@given(st.lists(st.lists(_CELL, min_size=1, max_size=5), min_size=1, max_size=6), st.data())
def test_table_cells_reads_back_any_printed_table(
    rows: list[list[str]], data: st.DataObject
) -> None:
    """Any cells (unicode, pipes, dashes, spaces): print a table, read the same cells back."""
    width = len(rows[0])
    rows = [(row + [""] * width)[:width] for row in rows]
    rows = [row for row in rows if any(row)] or [["x"] * width]
    padding = data.draw(st.sampled_from(["", " ", "   "]))

    def line(cells: list[str]) -> str:
        escaped = [cell.replace("|", "\\|") for cell in cells]
        return "|" + "|".join(f"{padding}{cell}{padding}" for cell in escaped) + "|"

    delimiter = (
        "|"
        + "|".join(data.draw(st.sampled_from(["---", ":--", "--:", ":-:"])) for _ in range(width))
        + "|"
    )
    text = "\n".join([line(rows[0]), delimiter, *(line(row) for row in rows[1:])])
    assert table_cells(text) == rows
