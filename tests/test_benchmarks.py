"""The benchmarks: valid inputs, an end-to-end quick run, and a page that shows the last run.

Speed is measured by ``python -m benchmarks``, not asserted here: these tests
check the generator, the wiring and the page, never a timing.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import (
    OPERATIONS,
    PAGE,
    RESULTS,
    SIZES,
    generate_history,
    langchain_counter,
    page_region,
    replace_region,
    to_langchain,
)
from benchmarks.page import Region
from context_budget import MESSAGE_OVERHEAD_TOKENS, message_tokens, validate_history

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("n", [0, 1, 2, 3, 57, 1_000])
def test_generated_history_has_exactly_n_messages(n: int) -> None:
    assert len(generate_history(n)) == n


@pytest.mark.parametrize("n", [1, 2, 3, 57, 2_000])
def test_generated_history_keeps_every_tool_pair(n: int) -> None:
    assert validate_history(generate_history(n)) == []


def test_generated_history_is_the_same_on_every_call() -> None:
    assert generate_history(500) == generate_history(500)
    assert generate_history(500, seed=1) != generate_history(500)


def test_a_shorter_history_is_a_prefix_of_a_longer_one() -> None:
    assert generate_history(300) == generate_history(1_000)[:300]


def test_generated_history_has_calls_results_errors_and_questions() -> None:
    history = generate_history(2_000)
    lists = [message["content"] for message in history if isinstance(message["content"], list)]
    blocks = [block for content in lists for block in content]
    kinds = {block["type"] for block in blocks}
    assert {"text", "tool_use", "tool_result"} <= kinds
    assert any(block.get("is_error") for block in blocks)
    assert any(isinstance(message["content"], str) for message in history)  # questions
    roles = [message["role"] for message in history]
    assert all(a != b for a, b in itertools.pairwise(roles))  # roles alternate


def test_langchain_twin_counts_the_same_text() -> None:
    # one ToolMessage per result, so only the framing of extra messages differs
    history = generate_history(1_000)
    messages = to_langchain(history)
    ours = sum(message_tokens(message) for message in history)
    extra_framing = MESSAGE_OVERHEAD_TOKENS * (len(messages) - len(history))
    assert langchain_counter()(messages) - ours == pytest.approx(extra_framing, rel=0.05)
    first_call = next(m for m in messages if getattr(m, "tool_calls", None))
    answered = {m.tool_call_id for m in messages if type(m).__name__ == "ToolMessage"}
    assert first_call.tool_calls[0]["id"] in answered


def test_quick_run_works_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "results.md"
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    table = out.read_text(encoding="utf-8")
    assert run.stdout == table
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert len(rows) == 2 * len(OPERATIONS)
    assert table.count("**met**") + table.count("**missed**") == 3
    assert "Machine: " in table


def test_quick_run_cannot_rewrite_the_page() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--write-page"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2
    assert "--write-page publishes a full run only" in run.stderr


def test_results_cover_every_operation_at_every_size() -> None:
    lines = RESULTS.read_text(encoding="utf-8").splitlines()
    rows = [line.split(" | ") for line in lines if line.startswith("| `")]
    sizes = [int(row[1].replace(",", "")) for row in rows]
    assert sizes == list(SIZES) * len(OPERATIONS)


def test_page_shows_the_table_of_the_last_run() -> None:
    assert page_region(PAGE.read_text(encoding="utf-8")) == RESULTS.read_text(encoding="utf-8"), (
        "docs/measured/speed.md does not show benchmarks/results.md: "
        "run `.venv/bin/python -m benchmarks --write-page`"
    )


def test_replace_region_touches_only_the_region() -> None:
    # a marker quoted inside a line is not a marker
    page = "# T\n<!-- bench:start -->\nold\n<!-- bench:end -->\nsee `<!-- bench:start -->`\n"
    new = replace_region(page, "| a | b |\n")
    assert new == page.replace("old\n", "| a | b |\n")
    assert page_region(new) == "| a | b |\n"


def test_a_page_without_one_region_is_refused() -> None:
    with pytest.raises(ValueError, match="found 0"):
        page_region("no markers here\n")


def test_a_benchmark_shows_its_table_and_writes_it_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.md"
    page.write_text("# P\n<!-- demo:start -->\nold\n<!-- demo:end -->\n", encoding="utf-8")
    region = Region("demo", tmp_path / "results.md", page)
    region.show("| new |\n", write_page=False)
    assert capsys.readouterr().out == "| new |\n"
    assert not region.results.exists() and "old" in page.read_text(encoding="utf-8")
    region.show("| new |\n", write_page=True)
    assert region.results.read_text(encoding="utf-8") == "| new |\n"
    assert region.read(page.read_text(encoding="utf-8")) == "| new |\n"
    assert f"wrote {region.results} and the table on {page}" in capsys.readouterr().err
