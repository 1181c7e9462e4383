"""The incident-report scenario: its ground truth, size, determinism and tools."""

from __future__ import annotations

import hashlib
import re

import pytest

from context_budget import estimate_tokens
from context_budget.scenarios import incidents
from context_budget.scenarios.incidents import (
    FILES,
    GROUND_TRUTH,
    SYSTEM,
    SYSTEM_NO_NOTES,
    TASK,
    TOOLS,
    TOOLS_NO_NOTES,
    is_correct,
    reports,
    run_tool,
    tool_impls,
)

# Read the facts back from the text, independently of how the generator holds them.
SERVICE = re.compile(r"^Service: (\S+)$", re.M)
DOWNTIME = re.compile(r"^Downtime: (\d+) minutes$", re.M)
CAUSE = re.compile(r"^Cause category: (.+)$", re.M)
BEGAN = re.compile(r"^(\d\d):(\d\d)  Outage began", re.M)
RESTORED = re.compile(r"^(\d\d):(\d\d)  Service restored", re.M)


def facts() -> list[tuple[str, int, str]]:
    found = []
    for text in reports().values():
        service, minutes, cause = SERVICE.findall(text), DOWNTIME.findall(text), CAUSE.findall(text)
        assert len(service) == len(minutes) == len(cause) == 1
        found.append((service[0], int(minutes[0]), cause[0]))
    return found


def totals() -> dict[str, int]:
    per_service: dict[str, int] = {}
    for service, minutes, _ in facts():
        per_service[service] = per_service.get(service, 0) + minutes
    return per_service


def test_there_are_24_reports_with_ids_in_order() -> None:
    texts = reports()
    assert list(texts) == [f"INC-{1001 + i}" for i in range(24)]
    assert [f"{report}.md" for report in texts] == list(FILES)
    for report, text in texts.items():
        assert text.splitlines()[0] == f"INCIDENT REPORT {report}"
        assert text.splitlines()[-1] == f"END OF REPORT {report}"


def test_the_reports_are_about_45000_tokens_in_all() -> None:
    total = sum(estimate_tokens(text) for text in reports().values())
    assert 45_000 * 0.95 <= total <= 45_000 * 1.05


def test_auth_has_the_most_downtime_760_minutes() -> None:
    per_service = totals()
    ranked = sorted(per_service, key=per_service.__getitem__, reverse=True)
    assert ranked[0] == "auth" == GROUND_TRUTH.service
    assert per_service["auth"] == 760 == GROUND_TRUTH.minutes


def test_database_failover_is_auths_main_cause_by_minutes() -> None:
    causes: dict[str, int] = {}
    for service, minutes, cause in facts():
        if service == "auth":
            causes[cause] = causes.get(cause, 0) + minutes
    assert max(causes, key=causes.__getitem__) == "database failover" == GROUND_TRUTH.cause
    assert causes["database failover"] > sum(causes.values()) / 2


def test_every_other_service_is_clearly_below_auth() -> None:
    others = {service: minutes for service, minutes in totals().items() if service != "auth"}
    assert len(others) >= 4
    assert max(others.values()) <= 0.6 * 760


def test_the_longest_single_incident_is_not_auths() -> None:
    # a trap for an agent that answers from one report instead of the totals
    service, _, _ = max(facts(), key=lambda fact: fact[1])
    assert service != "auth"


def test_each_timeline_spans_exactly_the_downtime() -> None:
    for text in reports().values():
        (start,), (end,) = BEGAN.findall(text), RESTORED.findall(text)
        span = (int(end[0]) * 60 + int(end[1])) - (int(start[0]) * 60 + int(start[1]))
        assert span == int(DOWNTIME.findall(text)[0])


def test_each_report_carries_noise_around_the_facts() -> None:
    for text in reports().values():
        for heading in ("## Timeline (UTC)", "## Log excerpt", "## Metrics", "## Follow-ups"):
            assert heading in text
        assert "## Channel excerpt" in text and "Incident commander: " in text
        assert len(re.findall(r"^\d{4}-\d\d-\d\dT", text, re.M)) >= 40  # log lines


def test_generation_is_deterministic_and_returns_new_dicts() -> None:
    first, second = reports(), reports()
    assert first == second and first is not second
    first["INC-1001"] = "changed"
    assert reports()["INC-1001"].startswith("INCIDENT REPORT INC-1001")


def test_the_reports_are_the_same_on_every_platform() -> None:
    # a fixed digest: it changes only when the generator does (then update it on purpose)
    joined = "\n".join(reports().values()).encode("utf-8")
    assert hashlib.sha256(joined).hexdigest()[:16] == DIGEST


DIGEST = "063ef884a6357b6f"  # sha256 of the 24 texts joined by newlines, first 16 hex digits


def test_the_tools_have_the_api_shape() -> None:
    assert [tool["name"] for tool in TOOLS] == ["list_files", "read_file", "save_note"]
    assert [tool["name"] for tool in TOOLS_NO_NOTES] == ["list_files", "read_file"]
    for tool in TOOLS:
        assert set(tool) == {"name", "description", "input_schema"}
        assert tool["input_schema"]["type"] == "object"
    assert TOOLS[1]["input_schema"]["required"] == ["path"]
    assert TOOLS[2]["input_schema"]["required"] == ["note"]


def test_only_the_notes_variant_asks_for_notes() -> None:
    assert "save_note" in SYSTEM and "INC-1007: auth, 42 min, bad deploy" in SYSTEM
    assert "save_note" not in SYSTEM_NO_NOTES and "note" not in SYSTEM_NO_NOTES
    assert "save_note" not in tool_impls([], with_notes=False)


def test_the_task_asks_the_three_things_and_holds_no_note() -> None:
    assert "service" in TASK and "minutes" in TASK and "cause" in TASK
    assert not re.search(r"INC-\d+", TASK)


def test_save_note_appends_to_the_runs_list_and_counts() -> None:
    notes: list[str] = ["earlier"]
    save = tool_impls(notes)["save_note"]
    assert save(note="INC-1001: payments, 60 min, bad deploy") == "Note kept: 2 on file."
    assert notes == ["earlier", "INC-1001: payments, 60 min, bad deploy"]


@pytest.mark.parametrize("note", ["", "   ", 7, None])
def test_save_note_refuses_an_empty_or_non_text_note(note: object) -> None:
    notes: list[str] = []
    use = {"type": "tool_use", "id": "t", "name": "save_note", "input": {"note": note}}
    result = run_tool(use, tool_impls(notes))
    assert result["is_error"] is True and "save_note failed" in result["content"]
    assert notes == []


def test_list_and_read_give_the_files_and_their_text() -> None:
    impls = tool_impls([])
    assert impls["list_files"]().splitlines() == list(FILES)
    assert impls["read_file"](path="INC-1007.md") == reports()["INC-1007"]
    assert impls["read_file"](path="INC-1007") == reports()["INC-1007"]


@pytest.mark.parametrize("path", ["INC-0999.md", "../etc/passwd", "", "inc-1001.md", "😀"])
def test_reading_an_unknown_file_is_an_error_result(path: str) -> None:
    use = {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": path}}
    result = run_tool(use, tool_impls([]))
    assert result == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": result["content"],
        "is_error": True,
    }
    assert repr(path) in result["content"] and "24 reports" in result["content"]


def test_a_missing_argument_or_unknown_tool_is_an_error_result() -> None:
    impls = tool_impls([])
    missing = run_tool({"type": "tool_use", "id": "a", "name": "read_file", "input": {}}, impls)
    unknown = run_tool({"type": "tool_use", "id": "b", "name": "grep", "input": {}}, impls)
    assert missing["is_error"] and unknown["is_error"]
    assert "'grep'" in unknown["content"] and "list_files" in unknown["content"]


def test_a_malformed_tool_use_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="tool_use"):
        run_tool({"type": "text", "text": "hi"}, tool_impls([]))
    with pytest.raises(TypeError, match="dict input"):
        run_tool({"type": "tool_use", "id": "a", "name": "read_file", "input": "x"}, {})
    with pytest.raises(TypeError, match="list of str"):
        tool_impls(("not", "a", "list"))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("answer", "correct"),
    [
        ("auth: 760 minutes, mostly database failover", True),
        ("AUTH was down 760 min, chiefly failover of its database.", True),
        ("auth: 1760 minutes, database failover", False),
        ("payments: 760 minutes, database failover", False),
        ("auth: 760 minutes, bad deploy", False),
    ],
)
def test_is_correct_needs_the_service_the_total_and_the_cause(answer: str, correct: bool) -> None:
    assert is_correct(answer) is correct


def test_scenario_names_stay_out_of_the_top_level() -> None:
    import context_budget

    assert "GROUND_TRUTH" not in context_budget.__all__
    assert set(incidents.__all__) <= set(dir(incidents))


def test_both_system_prompts_carry_the_brief_and_it_agrees_with_the_reports() -> None:
    assert incidents.SYSTEM.endswith(incidents.BRIEF)
    assert incidents.SYSTEM_NO_NOTES.endswith(incidents.BRIEF)
    assert 600 <= estimate_tokens(incidents.BRIEF) <= 800
    # every service the reports name is in the brief's catalogue, under that name
    services = {re.search(r"^Service: (\S+)", t, re.M).group(1) for t in reports().values()}  # type: ignore[union-attr]
    catalogue = set(re.findall(r"^- ([a-z]+):", incidents.BRIEF, re.M))
    assert services == catalogue
    # the brief names no report and no figure a model could take for a fact
    assert not re.search(r"INC-\d|\b\d+ min", incidents.BRIEF)
