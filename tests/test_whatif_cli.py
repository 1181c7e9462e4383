"""`context-budget whatif`: the replay from the command line, its JSON and its refusals."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from context_budget import read_bill
from context_budget.cli import main

SESSIONS = Path(__file__).resolve().parent.parent / "docs" / "measured" / "sessions"
PROJECT = SESSIONS / "sample-project"
SYNTHETIC = SESSIONS / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"
ROLLOUT = SESSIONS / "synthetic" / "rollout-2026-03-02T09-00-00-synthetic.jsonl"
OPENHANDS = (
    Path(__file__).resolve().parent
    / "fixtures"
    / "transcripts"
    / "openhands"
    / "basic_interactions.json"
)
ROW_KEYS = {
    "call",
    "thread",
    "time",
    "model",
    "input",
    "cache_read",
    "cache_write_5m",
    "cache_write_1h",
    "output",
    "cost_usd",
}


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["whatif", *args, "--json"]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_the_json_keeps_the_bills_conventions(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, str(PROJECT), "--calls")
    bill = read_bill(PROJECT)
    assert data["bill_usd"] == round(bill.cost().total, 6)
    assert data["threads"] == bill.threads
    assert isinstance(data["replayed_usd"], float)
    assert abs(data["replayed_usd"] / data["bill_usd"] - 1) < 0.02  # type: ignore[operator]
    assert (data["clearings"], data["compactions"]) == (0, 0)
    assert isinstance(data["assumption"], str) and data["assumption"].endswith(".")
    rows = data["per_call"]
    assert isinstance(rows, list) and len(rows) == len(bill.calls)
    assert all(set(row) >= ROW_KEYS for row in rows)
    rent = data["rent"]
    assert isinstance(rent, list)
    assert set(rent[0]) == {"tool", "results", "tokens", "cost_usd"}
    costs = [r["cost_usd"] for r in rent]
    assert costs == sorted(costs, reverse=True)


def test_a_bill_with_no_priced_call_is_unpriced_not_free(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unknown = tmp_path / "unknown-model.jsonl"  # a model the table has no rate for
    unknown.write_text(SYNTHETIC.read_text("utf-8").replace("claude-", "house-"), "utf-8")
    data = _json(capsys, str(unknown))
    assert data["bill_usd"] is None and data["replayed_usd"] is None
    assert main(["whatif", str(unknown)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "calls: " in lines[3] and lines[3].endswith(" on no model replayed")
    assert lines[4] == "bill unpriced · replayed: no replayed call is on a model with a price"
    moved = _json(capsys, str(unknown), "--model", "claude-sonnet-4-6")  # a priced replay
    assert moved["bill_usd"] is None and isinstance(moved["replayed_usd"], float)


def test_a_bill_with_one_unpriced_call_prices_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines, first = [], None  # the first response in fast mode, which this model has no rate for
    for line in SYNTHETIC.read_text("utf-8").splitlines():
        record = json.loads(line.replace("claude-sonnet-4-5-20250929", "claude-3-7-sonnet"))
        message = record.get("message", {})
        if record.get("type") == "assistant" and isinstance(message.get("usage"), dict):
            first = first or message["id"]
            if message["id"] == first:
                message["usage"]["speed"] = "fast"
        lines.append(json.dumps(record) + "\n")
    path = tmp_path / "fast.jsonl"
    path.write_text("".join(lines), "utf-8")
    bill = read_bill(path)
    assert len(bill.unpriced_calls()) == 1 < len(bill.calls)
    data = _json(capsys, str(path))
    assert data["bill_usd"] == round(bill.cost().total, 6)
    assert isinstance(data["replayed_usd"], float)


def test_clearing_and_compaction_say_how_often_they_fired(
    capsys: pytest.CaptureFixture[str],
) -> None:
    plain = _json(capsys, str(PROJECT))
    cleared = _json(capsys, str(PROJECT), "--clear-at", "20000", "--keep", "5")
    compacted = _json(capsys, str(PROJECT), "--compact-at", "25,000", "--calls")
    assert cleared["clearings"] and cleared["policy"]["keep"] == 5  # type: ignore[index]
    assert compacted["compactions"]
    assert plain["replayed_usd"] not in (cleared["replayed_usd"], compacted["replayed_usd"])
    rows = compacted["per_call"]
    assert isinstance(rows, list)
    summaries = [row for row in rows if row["summarizing"]]
    assert len(summaries) == compacted["summarizing_calls"] > 0


def test_the_text_names_the_ten_costliest_results_and_where_they_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["whatif", str(PROJECT)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    start = lines.index("rent: the 10 costliest tool results")
    named = lines[start + 1 : start + 11]
    assert len(named) == 10 and all(".jsonl:" in line for line in named)
    assert lines[start + 11].startswith("rent by tool: Read ")
    assert "assumption: The replay keeps each session's trajectory" in out
    assert "departs from the bill on 6 of 199 calls:" in out


def test_one_hour_writes_on_the_synthetic_session(capsys: pytest.CaptureFixture[str]) -> None:
    five = _json(capsys, str(SYNTHETIC))
    hour = _json(capsys, str(SYNTHETIC), "--ttl", "1h")
    assert five["rebuilds"] == {"ttl": 2, "prefix-changed": 1, "compaction": 1}
    assert hour["rebuilds"] == {"prefix-changed": 1, "compaction": 1}
    assert hour["replayed_usd"] < five["replayed_usd"]  # type: ignore[operator]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([str(ROLLOUT), "--ttl", "1h"], "gpt-5-codex's provider offers no choice"),
        ([str(PROJECT), "--keep", "2"], "--keep needs --clear-at"),
        ([str(PROJECT), "--summary-tokens", "900"], "--summary-tokens needs --compact-at"),
        (  # a summary the size of the threshold or more: no compaction could make room
            [str(PROJECT), "--compact-at", "20000", "--summary-tokens", "200000"],
            "--summary-tokens (200,000) must be below --compact-at (20,000)",
        ),
        (  # no summary given: the default one, 2,000 tokens, is held to the same rule
            [str(PROJECT), "--compact-at", "1500"],
            "--compact-at (1,500) must be above the summary's size (2,000 tokens",
        ),
        (
            [str(PROJECT), "--compact-at", "1500"],
            "give a --compact-at above 2,000, or a --summary-tokens below 1,500",
        ),
        ([str(PROJECT), "--model", "gpt-9"], "model 'gpt-9': no row with prices in the table"),
        ([str(PROJECT), "--model", ""], "model must be a model id, got ''"),
        ([str(PROJECT), "--cache", "explicit"], "has no such cache mode (its modes: breakpoints)"),
        ([str(PROJECT), "--model", "gpt-5.5", "--cache", "explicit"], "its modes: automatic"),
        ([str(PROJECT), "--cache", ""], "cache must be the name of a model's cache mode"),
        ([str(PROJECT), "--clear-at", "0"], "must be >= 1 token"),
        # no summary (of 1 token or more) is below a threshold of 1: the advice to give
        # one below it could not be followed
        ([str(PROJECT), "--compact-at", "1"], "must be >= 2 tokens, got 1"),
        ([str(PROJECT), "--compact-at", "lots"], "not a whole number of tokens"),
        ([str(PROJECT), "--ttl", "2h"], "invalid choice: '2h'"),
        (["no/such/folder"], "no/such/folder"),
        (["README.md"], "not a session in a format bills read"),
    ],
)
def test_bad_input_is_one_line_and_exit_two(
    capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    assert main(["whatif", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("context-budget: error: ")
    assert said in captured.err and captured.err.count("\n") == 1


def test_a_cache_mode_is_named_in_the_json_and_prices_its_storage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = (str(PROJECT), "--model", "gemini-3.1-pro")
    implicit = _json(capsys, *args)
    explicit = _json(capsys, *args, "--cache", "explicit")
    assert implicit["policy"]["cache"] is None  # type: ignore[index]
    assert explicit["policy"]["cache"] == "explicit"  # type: ignore[index]
    assert "gemini-3.1-pro's explicit mode" in str(explicit["assumption"])
    assert implicit["cost"]["storage"] == 0 < explicit["cost"]["storage"]  # type: ignore[index]
    assert main(["whatif", *args, "--cache", "explicit"]) == 0
    out = capsys.readouterr().out
    assert "its explicit cache" in out and " + storage $" in out


def test_a_prefix_written_outside_the_bill_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    alone = PROJECT / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
    data = _json(capsys, str(alone))
    assert data["warm_starts"] == [{"call": 1, "tokens": 4_734}]
    assert main(["whatif", str(alone)]) == 0
    said = "a prefix written outside the bill, taken as given: call 1 (4,734 tokens)"
    assert said in capsys.readouterr().out


def test_results_cleared_before_any_call_carried_them_are_not_said_absent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Clearing every result from every request leaves no rent: the files still hold them."""
    assert main(["whatif", str(SYNTHETIC), "--clear-at", "1", "--keep", "0"]) == 0
    out = capsys.readouterr().out
    assert "no tool result in the files" not in out
    assert "rent: no request carried a tool result (clearing or compaction took each out)" in out
    assert main(["whatif", str(ROLLOUT)]) == 0  # a rollout whose requests are sizes alone
    assert "rent: no tool result in the files" in capsys.readouterr().out


def test_results_of_calls_not_replayed_are_not_said_absent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A session on a model the table lacks is not replayed: its files still hold results."""
    source = PROJECT / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
    lines = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        if line.get("type") == "assistant" and isinstance(line.get("message"), dict):
            line["message"]["model"] = "my-local-model"
    copy = tmp_path / source.name
    copy.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert main(["whatif", str(copy)]) == 0
    out = capsys.readouterr().out
    assert "not replayed (no cache model): my-local-model" in out
    assert "no tool result in the files" not in out
    assert "rent: no replayed call carried a tool result" in out
    page = tmp_path / "whatif.html"
    assert main(["whatif", str(copy), "--html", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "The files hold no tool result" not in html
    assert "No replayed call carried a tool result" in html and "my-local-model" in html


def _hostile_files(root: Path) -> dict[str, Path]:
    """What a tired user points `whatif` at: each a path under `root`."""
    (root / "empty").mkdir()
    deep = root / "deep" / "a" / "b"
    deep.mkdir(parents=True)
    (deep / SYNTHETIC.name).write_bytes(SYNTHETIC.read_bytes())
    whole = SYNTHETIC.read_bytes()
    (root / "half.jsonl").write_bytes(whole[: whole.rindex(b"{") + 12])  # a live last line
    (root / "prose.json").write_text("not json at all\n", encoding="utf-8")
    (root / "numbers.json").write_text("[1, 2, 3]\n", encoding="utf-8")
    (root / "messages.json").write_text('[{"role": "user", "content": "hi"}]', encoding="utf-8")
    (root / "cut.json").write_text('{"a":', encoding="utf-8")
    (root / "zero.jsonl").write_bytes(b"")
    return {path.name: path for path in root.iterdir()}


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--clear-at", "1e5"], "not a whole number of tokens: '1e5'"),
        (["--clear-at", "-20000"], "must be >= 1 token, got -20000"),
        (["--compact-at", "nan"], "not a whole number of tokens: 'nan'"),
        (["--compact-at", ""], "not a whole number of tokens: ''"),
        (["--summary-tokens", "0", "--compact-at", "9000"], "must be >= 1 token, got 0"),
        (["--keep", "2.5", "--clear-at", "9000"], "not a whole number: '2.5'"),
        (["--keep", "3"], "--keep needs --clear-at"),
        (["--ttl", "1h", "--model", "gpt-5.5"], "gpt-5.5's provider offers no choice"),
        (["--model", "claude-sonnet-9"], "model 'claude-sonnet-9': no row with prices"),
        (["--html", str(SYNTHETIC)], "that is a file the bill reads"),
    ],
)
def test_a_tired_users_flags_are_one_line_and_exit_two(
    capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    assert main(["whatif", str(SYNTHETIC), *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("context-budget: error: ")
    assert said in captured.err and captured.err.count("\n") == 1


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("empty", "a folder with no session file"),
        ("prose.json", "not valid JSON"),
        ("numbers.json", "not a session in a format bills read"),
        ("messages.json", "it reads as messages, which records no usage"),
        ("cut.json", "not valid JSON"),
        ("zero.jsonl", "the file is empty"),
    ],
)
def test_paths_that_hold_no_session_are_one_line_and_exit_two(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, said: str
) -> None:
    path = _hostile_files(tmp_path)[name]
    assert main(["whatif", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("context-budget: error: ") and said in captured.err


def test_what_a_live_folder_holds_is_replayed_as_the_bill_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A half-written last line, a folder of folders, one file twice, a huge threshold."""
    files = _hostile_files(tmp_path)
    plain = _json(capsys, str(SYNTHETIC))
    half = main(["whatif", str(files["half.jsonl"]), "--json"])
    captured = capsys.readouterr()
    assert half == 0 and "half-written line" in captured.err
    assert json.loads(captured.out)["calls"] == plain["calls"]
    deep = _json(capsys, str(files["deep"]))
    twice = _json(capsys, str(SYNTHETIC), str(SYNTHETIC))
    huge = _json(capsys, str(SYNTHETIC), "--clear-at", "9" * 40, "--compact-at", "9" * 40)
    for data in (deep, twice, huge):
        assert (data["calls"], data["replayed_usd"]) == (plain["calls"], plain["replayed_usd"])
    assert (huge["clearings"], huge["compactions"]) == (0, 0)
    lone = ["--compact-at", "1", "--summary-tokens", "9" * 30]  # no summary so large makes room
    assert main(["whatif", str(SYNTHETIC), *lone]) == 2
    assert "must be >= 2 tokens, got 1" in capsys.readouterr().err


def test_the_files_are_only_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / SYNTHETIC.name
    copy.write_bytes(SYNTHETIC.read_bytes())
    before = copy.read_bytes()
    assert main(["whatif", str(copy), "--compact-at", "14000", "--clear-at", "12000"]) == 0
    assert copy.read_bytes() == before
    assert list(tmp_path.iterdir()) == [copy]


def _cold_copy(tmp_path: Path, source: Path) -> Path:
    """`source` with every call's prompt recorded as uncached input: a session that cached
    nothing, so the replay, which caches, departs from it on almost every call."""
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        usage = (record.get("message") or {}).get("usage") if isinstance(record, dict) else None
        if isinstance(usage, dict):
            prompt = (
                usage["input_tokens"]
                + usage.get("cache_read_input_tokens", 0)
                + usage.get("cache_creation_input_tokens", 0)
            )
            usage.update(input_tokens=prompt, cache_read_input_tokens=0)
            usage.update(cache_creation_input_tokens=0)
            usage.pop("cache_creation", None)
        lines.append(json.dumps(record, separators=(",", ":")))
    copy = tmp_path / source.name
    copy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return copy


def test_the_text_names_ten_departures_then_how_many_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cold = _cold_copy(tmp_path, PROJECT / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
    assert main(["whatif", str(cold)]) == 0
    out = capsys.readouterr().out
    start = next(k for k, line in enumerate(out.splitlines()) if line.startswith("departs"))
    lines = out.splitlines()[start:]
    assert lines[0].startswith("departs from the bill on ") and lines[0].endswith(" of 170 calls:")
    assert all(line.startswith("  call ") for line in lines[1:11])
    assert lines[11].startswith("  … and ") and lines[11].endswith(" more (--json lists them)")


def test_calls_on_a_model_the_table_lacks_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unknown = tmp_path / SYNTHETIC.name
    unknown.write_text(
        SYNTHETIC.read_text(encoding="utf-8").replace("claude-sonnet-4-5-20250929", "acme-7"),
        encoding="utf-8",
    )
    assert main(["whatif", str(unknown)]) == 0
    out = capsys.readouterr().out
    assert "  not replayed (no cache model): acme-7" in out
    assert "replayed: no replayed call is on a model with a price" in out
    data = _json(capsys, str(unknown))
    assert data["replayed_usd"] is None and data["unreplayed_models"] == ["acme-7"]
    # with --calls and no call replayed, the table of calls raised (max() of no row): a
    # traceback, exit 1, where the rest of the replay was said
    assert main(["whatif", str(unknown), "--calls"]) == 0
    out = capsys.readouterr().out
    assert out.endswith("\ncalls replayed: none, so no row per call\n")


def test_the_page_is_written_whole_and_said_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from context_budget.cli._whatif import page

    target = tmp_path / "whatif.html"
    assert main(["whatif", str(SYNTHETIC), "--html", str(target)]) == 0
    assert capsys.readouterr().out.endswith(f"page: {target}\n")
    html = target.read_text(encoding="utf-8")
    assert "<h2>What it would have cost</h2>" in html and "<script" not in html
    assert main(["whatif", str(SYNTHETIC), "--html", str(target), "--json"]) == 0
    assert "page:" not in capsys.readouterr().out
    said: list[str] = []
    assert page([str(SYNTHETIC)], said.append) == html
    assert said[0] == "reading the files" and said[1].startswith("replaying 1 of 7: ")
    assert main(["whatif", str(SYNTHETIC), "--html", str(tmp_path / "no" / "page.html")]) == 2
    assert "cannot write the page" in capsys.readouterr().err


def test_the_pages_replays_on_two_cores_make_the_page_one_process_makes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A child replays the later half of the page's policies: the page is the one that
    replaying them one after another makes, and its progress says so."""
    from context_budget._aside import can_fork
    from context_budget.cli import _whatif

    alone: list[str] = []
    html = _whatif.page([str(SYNTHETIC)], alone.append)
    monkeypatch.setattr(_whatif, "ASIDE_CALLS", 0)  # a child, however few the calls
    said: list[str] = []
    assert _whatif.page([str(SYNTHETIC)], said.append) == html
    assert len(alone) == 8 and alone[-1].startswith("replaying 7 of 7: ")
    if can_fork():
        assert (
            said[:5] == alone[:5] and said[5] == "replaying 5 of 7: the last 3 in a second process"
        )


@pytest.mark.parametrize(("keep", "said"), [("x", "not a whole number"), ("-1", "must be >= 0")])
def test_keep_is_a_whole_number_of_tool_uses(
    capsys: pytest.CaptureFixture[str], keep: str, said: str
) -> None:
    assert main(["whatif", str(SYNTHETIC), "--clear-at", "1000", "--keep", keep]) == 2
    assert said in capsys.readouterr().err


def test_gpt_5_5_reads_in_128_token_steps_and_writes_for_free(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = _json(capsys, str(PROJECT), "--model", "gpt-5.5", "--calls")
    rows = data["per_call"]
    assert isinstance(rows, list) and {row["model"] for row in rows} == {"gpt-5.5"}
    reads = [row["cache_read"] for row in rows if row["cache_read"]]
    assert len(reads) > 150 and all((read - 1_024) % 128 == 0 for read in reads)
    assert all(row["cache_write_5m"] + row["cache_write_1h"] == 0 for row in rows)
    assert data["replayed_usd"] != data["bill_usd"]


def _dollars(line: str) -> list[float]:
    return [float(found.replace(",", "")) for found in re.findall(r"\$([\d,]+\.\d+)", line)]


@pytest.mark.parametrize(
    "flags", [[], ["--ttl", "1h"], ["--model", "gpt-5"], ["--clear-at", "20000"]]
)
def test_the_replayed_parts_add_up_to_the_replayed_total_as_shown(
    flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Each part was rounded on its own: `replayed $3.2545 = input $0.0006 + writes $1.1825
    + reads $1.2233 + output $0.8480` (which add up to $3.2544)."""
    assert main(["whatif", str(PROJECT), *flags]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if " · replayed $" in line)
    _, replayed, *parts = _dollars(line)
    assert round(sum(parts), 4) == replayed


def test_web_search_is_a_part_of_the_replayed_cost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three searches ($0.03) were in the replayed total and in no part the text showed."""
    usage = {"input_tokens": 10, "output_tokens": 500, "cache_read_input_tokens": 0}
    usage["server_tool_use"] = {"web_search_requests": 3}  # type: ignore[assignment]
    record = {
        "type": "assistant",
        "uuid": "a1",
        "sessionId": "5e55a000-0000-4000-8000-000000000000",
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {
            "id": "msg-1",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "ok"}],
            "usage": usage,
        },
    }
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert main(["whatif", str(path)]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if " · replayed $" in line)
    assert " + web search $0.0300" in line
    _, replayed, *parts = _dollars(line)
    assert round(sum(parts), 4) == replayed


def test_one_result_is_said_in_the_singular(capsys: pytest.CaptureFixture[str]) -> None:
    """The rent by tool read `Write $0.0001 (1 results, 28 tokens)`."""
    session = PROJECT / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
    assert main(["whatif", str(session)]) == 0
    out = capsys.readouterr().out
    rent = next(line for line in out.splitlines() if line.startswith("rent by tool: "))
    assert "(1 result, 28 tokens)" in rent and "1 results" not in out


def test_a_tool_result_cut_inside_a_surrogate_pair_is_replayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tool result cut inside an emoji's surrogate pair is JSON's `"\\ud83d"`; the replay
    could not hash it (`error: 'utf-8' codec can't encode character '\\ud83d' ...`)."""
    session = "5e55a000-0000-4000-8000-000000000000"
    usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 3_000}
    records = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "run it"}},
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "message": {
                "id": "msg-1",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
                "usage": usage,
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "parentUuid": "a1",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok \ud83d"}],
            },
        },
        {
            "type": "assistant",
            "uuid": "a2",
            "parentUuid": "u2",
            "message": {
                "id": "msg-2",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "done"}],
                "usage": usage,
            },
        },
    ]
    path = tmp_path / f"{session}.jsonl"
    path.write_text(
        "".join(
            json.dumps({**r, "sessionId": session, "timestamp": f"2026-01-01T00:00:0{k}Z"}) + "\n"
            for k, r in enumerate(records)
        ),
        encoding="utf-8",
    )
    data = _json(capsys, str(path))
    assert data["calls"] == 2 and data["rent"][0]["tool"] == "Bash"
    page = tmp_path / "whatif.html"
    assert main(["whatif", str(path), "--html", str(page)]) == 0
    assert page.read_text(encoding="utf-8").startswith("<!doc")


def test_a_replay_that_prices_calls_the_bill_leaves_out_is_not_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bill left out its two calls on a model with no price; the replay on GPT-5
    priced them, and the text said `+11.7%` of dollars over different calls."""
    records = [json.loads(line) for line in SYNTHETIC.read_text("utf-8").splitlines()]
    ids = list(dict.fromkeys(r["message"]["id"] for r in records if r.get("type") == "assistant"))
    for record in records:  # the session's first two responses on a model of one's own
        if record.get("type") == "assistant" and record["message"]["id"] in ids[:2]:
            record["message"]["model"] = "house-model"
    path = tmp_path / SYNTHETIC.name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    own = _json(capsys, str(path))
    assert own["bill_unpriced_calls"] == own["replayed_unpriced_calls"] == [1, 2]
    moved = _json(capsys, str(path), "--model", "gpt-5")
    assert (moved["bill_unpriced_calls"], moved["replayed_unpriced_calls"]) == ([1, 2], [])
    assert main(["whatif", str(path), "--model", "gpt-5"]) == 0
    line, note = [
        line
        for line in capsys.readouterr().out.splitlines()
        if "replayed $" in line or "not compared" in line
    ]
    assert "%" not in line
    assert note == (
        "  not compared: they price different calls (left out with no price: the bill's "
        "2 calls (1, 2), the replay's none)"
    )
    assert main(["whatif", str(path)]) == 0  # the same calls left out: compared
    assert "%) = input" in capsys.readouterr().out


def test_the_page_compacts_only_above_the_summary_it_would_write() -> None:
    # its one call holds 2,473 tokens: the page's lower threshold rounds to 2,000, the
    # size of the summary a compaction there would write, and no compaction makes room
    from context_budget.cli._whatif import page_policies
    from context_budget.replay import summary_size

    bill = read_bill(OPENHANDS)
    found = [policy.compact_at for _, policy in page_policies(bill) if policy.compact_at]
    assert all(at > summary_size(bill) for at in found)
