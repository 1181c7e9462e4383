"""The Codex bill benchmark's wiring: a small generated sessions folder, its table, the page."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.bill import BILL_FAST, BILL_ONE_CORE, BILL_STANDARD, bill_argv, bill_totals
from benchmarks.codex_bill import (
    CCUSAGE_CODEX,
    RESULTS,
    codex_region,
    generate_sessions,
    render,
)
from benchmarks.page import PAGE
from benchmarks.peer import Run, ccusage_totals, run_process
from context_budget import read_bill


def test_the_generated_folder_is_the_same_on_every_run(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert generate_sessions(one, 400_000) == generate_sessions(two, 400_000)
    names = sorted(p.relative_to(one) for p in one.rglob("*.jsonl"))
    assert names == sorted(p.relative_to(two) for p in two.rglob("*.jsonl"))
    assert all((one / n).read_bytes() == (two / n).read_bytes() for n in names)
    assert all(len(n.parts) == 4 and n.name.startswith("rollout-") for n in names)  # Y/M/D/file


def test_the_generated_rollouts_bill_as_codex_with_rises_and_lost_caches(tmp_path: Path) -> None:
    generate_sessions(tmp_path, 600_000)
    bill = read_bill(tmp_path)
    assert bill.format == "codex" and not bill.skipped
    assert len(bill.calls) > 100
    assert any(call.cache_read_input_tokens == 0 for call in bill.calls)  # the cache lost
    assert sum(c.cache_read_input_tokens for c in bill.calls) > sum(
        c.input_tokens for c in bill.calls
    )


def _ccusage_output(totals: dict[str, float]) -> str:
    """What ccusage's `codex session --json` prints, in its shape, with these totals."""
    keys = {
        "inputTokens": totals["input"],
        "cacheReadTokens": totals["cache_read"],
        "cacheCreationTokens": totals["cache_write"],
        "outputTokens": totals["output"],
        "costUSD": totals["cost_usd"],
    }
    return json.dumps({"sessions": [], "totals": keys})


def test_the_table_says_the_ratio_and_whether_the_totals_agree(tmp_path: Path) -> None:
    size = generate_sessions(tmp_path, 300_000)
    bill = run_process(bill_argv(tmp_path))
    data = json.loads(bill.stdout)
    ours = bill_totals(data)
    peer = Run(bill.seconds / 2, 10.0, _ccusage_output(ours | {"output": ours["output"] + 1}))
    runs = {BILL_FAST: [bill], BILL_ONE_CORE: [bill], BILL_STANDARD: [bill], CCUSAGE_CODEX: [peer]}
    text = render(size, 3, runs, data, (0.5, 0.5))
    assert f"| 3 | {data['calls']:,} | {bill.seconds:.1f} | 2.00× |" in text
    assert f"- {BILL_STANDARD} and {BILL_FAST}: tokens of every kind equal; costs equal" in text
    assert f"- {CCUSAGE_CODEX} and {BILL_FAST}: tokens differ in output" in text
    assert ccusage_totals(peer.stdout)["output"] == ours["output"] + 1
    assert codex_region(PAGE.read_text(encoding="utf-8")) == RESULTS.read_text(encoding="utf-8")
