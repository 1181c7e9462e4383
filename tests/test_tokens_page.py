"""*Tokens and estimates*: what a reader pastes runs where the reader pastes it.

The page's *Try it* box needs the real tokenizer, which the browser lacks, so what it
defines is not there in the browser. An exercise's solution must run on its own: pasted
into the exercise's attempt block, it prints `PASS`.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from docsite.pagecheck import browser_blocks

PAGE = Path(__file__).resolve().parents[1] / "docs" / "budget" / "tokens.md"


def test_exercise_three_solution_runs_pasted_into_its_attempt() -> None:
    blocks = browser_blocks(PAGE)
    attempt, solution = [block for block in blocks if "check_digit_aware(" in block.source]
    assert solution.runnable, solution.why
    namespace: dict[str, object] = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        # what the browser has before the attempt: the page's first import
        exec("from context_budget import estimate_tokens", namespace)
        exec(attempt.source, namespace)
        exec(solution.source, namespace)
    assert printed.getvalue().splitlines()[-1] == "PASS"


def test_every_exercise_solution_on_the_page_runs_in_the_browser() -> None:
    checkers = [block for block in browser_blocks(PAGE) if "check_" in block.source]
    assert len(checkers) == 6  # three exercises: an attempt and a solution each
    assert all(block.runnable for block in checkers), [
        (block.line, block.why) for block in checkers if not block.runnable
    ]
