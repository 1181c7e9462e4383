"""An OpenHands evaluation output (`output.jsonl`, an instance a line) bills each instance as
a session of its own, as its events would bill saved alone.

The real file is OpenHands' own example output of a Multi-SWE-bench run
(`tests/fixtures/transcripts/openhands/output.jsonl`, three instances); each
instance keeps its totals (`metrics.accumulated_token_usage`), which the bill
must give again. The other cases are built from the shipped event lists.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openhands_files import EVALUATION

from context_budget.bills import read_bill
from context_budget.cli import main
from context_budget.sessions import read_paths, read_text
from context_budget.sessions.skips import Skip

ROOT = Path(__file__).resolve().parents[1]
EVENTS = ROOT / "docs" / "measured" / "sessions" / "openhands" / "basic_gui_mode.json"


def _instances() -> list[dict[str, Any]]:
    return [json.loads(line) for line in EVALUATION.read_text(encoding="utf-8").splitlines()]


def _responses(instance: dict[str, Any]) -> set[str]:
    """The ids of the model responses an instance's events hold (each one call)."""
    return {
        event["tool_call_metadata"]["model_response"]["id"]
        for event in instance["history"]
        if (event.get("tool_call_metadata") or {}).get("model_response")
    }


def _output(path: Path, instances: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(each) + "\n" for each in instances), encoding="utf-8")
    return path


def _instance(ident: str, **more: Any) -> dict[str, Any]:
    """An instance whose events are the shipped event list's."""
    return {"instance_id": ident, "history": json.loads(EVENTS.read_text()), **more}


def test_each_real_instance_bills_the_totals_it_kept() -> None:
    bill = read_bill(EVALUATION)
    instances = _instances()
    assert list(bill.threads) == [f"{each['instance_id']}/main" for each in instances]
    for each in instances:
        calls = [call for call in bill.calls if call.thread.session == each["instance_id"]]
        kept = each["metrics"]["accumulated_token_usage"]
        assert len(calls) == len(_responses(each)) > 0  # one call per model response
        assert sum(call.usage.input_tokens for call in calls) == kept["prompt_tokens"]
        assert sum(call.usage.output_tokens for call in calls) == kept["completion_tokens"]
    assert bill.format == "openhands"


def test_an_instance_bills_as_its_events_saved_alone(tmp_path: Path) -> None:
    events = read_bill(EVENTS)
    output = read_bill(_output(tmp_path / "output.jsonl", [_instance("a__b-1")]))
    assert [call.usage for call in output.calls] == [call.usage for call in events.calls]
    assert output.cost() == events.cost()
    assert list(output.threads) == ["a__b-1/main"]


def test_the_events_of_an_instance_saved_beside_it_are_billed_once(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    _output(folder / "output.jsonl", [_instance("a__b-1"), _instance("a__b-2")])
    (folder / "a__b-1.json").write_text(EVENTS.read_text())  # that instance's events alone
    alone = len(read_bill(EVENTS).calls)
    assert len(read_bill(folder).calls) == 2 * alone


def test_the_cost_an_instance_kept_is_its_events_running_total_else_its_own() -> None:
    line = _instance("a__b-1", metrics={"accumulated_cost": 0.25})
    assert read_text(json.dumps(line), "openhands").recorded_cost == 0.25
    line["history"][1]["llm_metrics"] = {"accumulated_cost": 0.125}
    assert read_text(json.dumps(line), "openhands").recorded_cost == 0.125
    line["history"][1]["llm_metrics"] = {}
    line["metrics"]["accumulated_cost"] = -1
    refused = read_text(json.dumps(line), "openhands").usage_error
    assert "metrics.accumulated_cost: a cost must be a number" in str(refused)


def test_one_instance_reads_as_a_session_and_several_name_their_ids() -> None:
    text = EVALUATION.read_text(encoding="utf-8")
    first = text.splitlines()[0]
    assert read_text(first + "\n").main.name == "ponylang__ponyc-4595/main"
    with pytest.raises(ValueError, match=r"output of 3 instances \(ponylang__ponyc-4595, "):
        read_text(text)


def test_a_half_written_last_instance_is_skipped_and_named(tmp_path: Path) -> None:
    data = EVALUATION.read_bytes()
    cut = tmp_path / "output.jsonl"
    cut.write_bytes(data[: data.rindex(b"\n", 0, len(data) - 1) + 5000])
    skipped: list[Skip] = []
    sessions = read_paths([cut], skipped=skipped)
    assert [session.main.session for session in sessions] == [
        each["instance_id"] for each in _instances()[:2]
    ]
    assert [(skip.kind, skip.line) for skip in skipped] == [("half-written line", 3)]
    with pytest.raises(ValueError, match=r"line 3: not valid JSON"):
        read_paths([cut])


def test_an_instance_without_a_call_and_a_line_of_no_object_are_named_skips(
    tmp_path: Path,
) -> None:
    quiet = {"instance_id": "c__d-9", "history": [{"source": "user", "action": "message"}]}
    path = _output(tmp_path / "output.jsonl", [_instance("a__b-1"), quiet])
    skipped: list[Skip] = []
    assert len(read_paths([path], skipped=skipped)) == 1
    assert [skip.reason for skip in skipped] == [
        f"{path}: no API call recording usage in this openhands evaluation instance 'c__d-9'"
    ]
    path.write_text(path.read_text() + "[1]\n", encoding="utf-8")
    skipped.clear()
    assert len(read_paths([path], skipped=skipped)) == 1
    assert [(skip.kind, skip.line) for skip in skipped] == [("bad line", 3), ("no call", None)]


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ('{"a": 1}', "line 2: expected an evaluation instance, found an object with no"),
        ('{"instance_id": true, "history": []}', "line 2 instance_id: expected a name"),
        ('{"instance_id": "x", "history": 3}', "line 2 history: expected a list of OpenHands"),
        ('{"instance_id": "x", "history": [7]}', "line 2 event 0 has type a number"),
    ],
)
def test_a_line_that_is_no_instance_stops_the_bill_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, named: str
) -> None:
    path = tmp_path / "output.jsonl"
    path.write_text(json.dumps(_instance("a__b-1")) + "\n" + line + "\n", encoding="utf-8")
    assert main(["bill", str(path), "--timezone", "UTC"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and f"{path}: {named}" in error
