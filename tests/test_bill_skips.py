"""A folder as it is: what no reader can take is skipped, counted and named; the rest is billed."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget import read_bill
from context_budget.cli import main
from context_budget.sessions import text
from context_budget.sessions.detect import _broken, _complete
from context_budget.sessions.skips import Skip, summary
from context_budget.sessions.text import Source, whole_characters

SESSIONS = Path(__file__).resolve().parent.parent / "docs" / "measured" / "sessions"
PROJECT = SESSIONS / "sample-project"
ROLLOUT = SESSIONS / "synthetic" / "rollout-2026-03-02T09-00-00-synthetic.jsonl"
SMALL = "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
JOURNAL = (
    '{"type":"started","key":"k1","agentId":"a1"}\n{"type":"done","key":"k1","agentId":"a1"}\n'
)


def _live_folder(root: Path) -> Path:
    """The shipped project and a rollout, plus a half-written line, a journal, an empty rollout."""
    folder = root / "projects"
    shutil.copytree(PROJECT, folder)
    shutil.copy(ROLLOUT, folder / ROLLOUT.name)
    with (folder / SMALL).open("a", encoding="utf-8") as file:
        file.write('{"parentUuid":"x","type":"assistant","message":{"id":"msg_')
    journal = folder / "s" / "subagents" / "workflows" / "w1" / "journal.jsonl"
    journal.parent.mkdir(parents=True)
    journal.write_text(JOURNAL, encoding="utf-8")
    first = ROLLOUT.read_text(encoding="utf-8").split("\n", 1)[0]
    (folder / "rollout-empty.jsonl").write_text(first + "\n", encoding="utf-8")
    return folder


def test_a_live_folder_bills_every_good_call_and_names_the_skips(tmp_path: Path) -> None:
    clean = read_bill([PROJECT, ROLLOUT])
    live = read_bill(_live_folder(tmp_path))
    assert len(live.calls) == len(clean.calls) and live.tokens() == clean.tokens()
    assert live.cost().total == pytest.approx(clean.cost().total, abs=1e-12)
    assert sorted((s.kind, s.place) for s in live.skipped) == [
        ("empty rollout", "rollout-empty.jsonl"),
        ("half-written line", f"{SMALL}:30"),
        ("not a session", "journal.jsonl"),
    ]


def test_the_cli_warns_in_one_line_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bill", str(_live_folder(tmp_path)), "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and captured.err.startswith("context-budget: warning: ")
    for named in (
        "3 skipped",
        "1 half-written line",
        "1 file that is no session",
        "1 empty rollout",
    ):
        assert named in captured.err, captured.err
    data = json.loads(captured.out)
    assert [s["kind"] for s in data["skipped"]].count("half-written line") == 1
    assert data["calls"] == len(read_bill([PROJECT, ROLLOUT]).calls)


def test_strict_refuses_any_skip_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bill", str(_live_folder(tmp_path)), "--strict"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("context-budget: error: ")
    with pytest.raises(ValueError, match=r"\.jsonl: line 30: not valid JSON"):
        read_bill(_live_folder(tmp_path / "again"), strict=True)


def test_a_clean_folder_prints_no_warning(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bill", str(PROJECT)]) == 0
    assert capsys.readouterr().err == ""
    assert read_bill(PROJECT).skipped == ()


def test_a_half_written_copy_of_a_response_costs_nothing_before_it(tmp_path: Path) -> None:
    """The line cut short is the second copy of the last response: that call stays billed."""
    lines = (PROJECT / SMALL).read_text(encoding="utf-8").splitlines()
    path = tmp_path / SMALL
    path.write_text("\n".join([*lines, lines[-1][: len(lines[-1]) // 2]]), encoding="utf-8")
    bill, whole = read_bill(path), read_bill(PROJECT / SMALL)
    assert bill.tokens() == whole.tokens() and len(bill.calls) == len(whole.calls)
    assert [(s.kind, s.line) for s in bill.skipped] == [("half-written line", len(lines) + 1)]


def test_a_bad_line_in_the_middle_is_skipped_and_named(tmp_path: Path) -> None:
    lines = (PROJECT / SMALL).read_text(encoding="utf-8").splitlines()
    path = tmp_path / SMALL
    path.write_text("\n".join([*lines[:3], "{oops", *lines[3:]]) + "\n", encoding="utf-8")
    bill = read_bill(path)
    assert len(bill.calls) == len(read_bill(PROJECT / SMALL).calls)
    assert [(s.kind, s.line) for s in bill.skipped] == [("bad line", 4)]
    with pytest.raises(ValueError, match=r"line 4: not valid JSON"):
        read_bill(path, strict=True)


def test_a_line_nested_too_deeply_is_a_bad_line_not_the_end_of_the_bill(tmp_path: Path) -> None:
    """A line of JSON nested deeper than Python parses stopped the bill of the whole folder
    (every other session in it unbilled), where a line that is no JSON is skipped."""
    lines = (PROJECT / SMALL).read_text(encoding="utf-8").splitlines()
    deep = '{"type": "user", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    (tmp_path / SMALL).write_text("\n".join([*lines[:3], deep, *lines[3:]]) + "\n", "utf-8")
    shutil.copy(ROLLOUT, tmp_path / ROLLOUT.name)
    bill = read_bill(tmp_path)
    alone = read_bill([PROJECT / SMALL, ROLLOUT])
    assert len(bill.calls) == len(alone.calls)
    assert [(s.kind, s.line) for s in bill.skipped] == [("bad line", 4)]
    with pytest.raises(ValueError, match=r"line 4: the JSON is nested too deeply to read"):
        read_bill(tmp_path, strict=True)


def test_a_line_that_is_no_json_is_said_where_it_breaks(tmp_path: Path) -> None:
    """The reason names the column where the JSON breaks off: it once ended mid-phrase,
    "not valid JSON: Unterminated string starting at", in the CLI's warning, its JSON and
    the bill's page, with the place json's own message gives left out."""
    lines = (PROJECT / SMALL).read_text(encoding="utf-8").splitlines()
    path = tmp_path / SMALL
    path.write_text("\n".join([*lines[:3], "{oops", *lines[3:], '{"type":"ass']), "utf-8")
    skipped = sorted(read_bill(path).skipped, key=lambda skip: skip.line or 0)
    assert [(s.line, s.reason.split(": not valid JSON: ")[1]) for s in skipped] == [
        (4, "Expecting property name enclosed in double quotes at column 2"),
        (len(lines) + 2, "Unterminated string starting at column 9"),
    ]


def test_nothing_left_to_bill_is_still_an_error(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    journal.write_text(JOURNAL, encoding="utf-8")
    empty = tmp_path / "rollout-empty.jsonl"
    empty.write_text(ROLLOUT.read_text(encoding="utf-8").split("\n", 1)[0] + "\n", "utf-8")
    with pytest.raises(ValueError, match=r"nothing to bill: 2 skipped"):
        read_bill([journal, empty])
    with pytest.raises(ValueError, match=r"journal.jsonl: not a session"):
        read_bill(journal)


@pytest.mark.parametrize("lines", [1, 2])
def test_a_journal_is_not_a_session_however_short(tmp_path: Path, lines: int) -> None:
    journal = tmp_path / "journal.jsonl"
    journal.write_text("".join(JOURNAL.splitlines(keepends=True)[:lines]), encoding="utf-8")
    bill = read_bill([PROJECT / SMALL, journal])
    assert [(s.kind, s.place) for s in bill.skipped] == [("not a session", "journal.jsonl")]


def test_the_summary_names_a_few_places_per_kind() -> None:
    skips = [Skip("bad line", "/a/f.jsonl", n, "r") for n in range(1, 6)]
    said = summary([*skips, Skip("not a session", "/a/j.jsonl", None, "r")])
    assert said == (
        "6 skipped: 5 bad lines (f.jsonl:1, f.jsonl:2, f.jsonl:3 and 2 more); "
        "1 file that is no session (j.jsonl)"
    )


def test_the_summary_tells_apart_files_of_one_name_by_their_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A home folder holds many `journal.jsonl` and `a.jsonl`: the warning names the folder
    that tells each from the other, and nothing more."""
    said = summary(
        [
            Skip("half-written line", "/h/p1/s/a.jsonl", 3, "r"),
            Skip("half-written line", "/h/p2/s/a.jsonl", 5, "r"),
            Skip("not a session", "/h/p1/journal.jsonl", None, "r"),
            Skip("not a session", "/h/x/other.jsonl", None, "r"),
        ]
    )
    assert said == (
        "4 skipped: 2 half-written lines (p1/s/a.jsonl:3, p2/s/a.jsonl:5); "
        "2 files that are no session (journal.jsonl, other.jsonl)"
    )
    for project in ("p1", "p2"):
        (tmp_path / project).mkdir()
        (tmp_path / project / "journal.jsonl").write_text(JOURNAL, encoding="utf-8")
    assert main(["bill", str(PROJECT / SMALL), str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "(p1/journal.jsonl, p2/journal.jsonl)" in err, err


def test_a_bad_line_inside_a_rollout_is_skipped(tmp_path: Path) -> None:
    lines = ROLLOUT.read_text(encoding="utf-8").splitlines()
    path = tmp_path / ROLLOUT.name
    path.write_text("\n".join([*lines[:2], "{oops", *lines[2:]]) + "\n", encoding="utf-8")
    bill = read_bill(path)
    assert bill.tokens() == read_bill(ROLLOUT).tokens()
    assert [(s.kind, s.line) for s in bill.skipped] == [("bad line", 3)]


def test_the_page_lists_what_was_left_out(tmp_path: Path) -> None:
    page = tmp_path / "bill.html"
    assert main(["bill", str(_live_folder(tmp_path)), "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert "<h2>Left out</h2>" in text and "half-written line" in text


def _last_line_as_stripped(text: str) -> tuple[int, str | None]:
    """(the last line's number, why it is no JSON) as stripping the text's end finds them."""
    body = text.rstrip()
    return body.count("\n") + 1, _broken(body[body.rfind("\n") + 1 :])


@given(
    st.lists(
        st.sampled_from(['{"type": "user"}', '{"type": "user"', "", " ", "\r", "\u2028", "x"]),
        max_size=4,
    ),
    st.sampled_from(["", "\n", " \n", "\n\n", "\u00a0", "\r\n"]),
)
def test_the_half_written_last_line_is_the_one_stripping_the_text_finds(
    lines: list[str], end: str
) -> None:
    text = "\n".join(lines) + end
    skipped: list[Skip] = []
    _complete(Source("f.jsonl", text), skipped)
    number, problem = _last_line_as_stripped(text)
    assert [(s.line, s.reason) for s in skipped] == (
        [] if problem is None else [(number, f"f.jsonl: line {number}: not valid JSON: {problem}")]
    )


def _wide_session(tmp_path: Path) -> bytes:
    """The shipped session with a last line whose text is all characters of two to four
    bytes, as Claude Code writes them (unescaped)."""
    lines = (PROJECT / SMALL).read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])
    last["message"]["content"] = [{"type": "text", "text": "é日本語😀 ñ"}]
    wide = json.dumps(last, ensure_ascii=False, separators=(",", ":"))
    return "\n".join([*lines[:-1], wide]).encode()


@given(st.data())
def test_a_last_line_cut_inside_a_character_is_a_half_written_line(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    # a live file read while its last line is written may stop inside a character: the
    # bill is that of the lines before it, the cut line skipped, on either decoder
    folder = tmp_path_factory.mktemp("cut")
    whole = _wide_session(folder)
    inside = [at for at in range(whole.rindex(b"\n") + 1, len(whole)) if 0x80 <= whole[at] < 0xC0]
    cut = data.draw(st.sampled_from(inside))
    path = folder / SMALL
    path.write_bytes(whole[:cut])
    before = folder / "before.jsonl"
    before.write_bytes(whole[: whole.rindex(b"\n") + 1])
    bill, kept = read_bill(path), read_bill(before)
    assert bill.tokens() == kept.tokens() and len(bill.calls) == len(kept.calls)
    lines = whole.count(b"\n") + 1
    assert [(s.kind, s.line) for s in bill.skipped] == [("half-written line", lines)]


@pytest.mark.parametrize("command", ["bill", "bill folder", "whatif", "inspect"])
def test_each_command_reads_a_file_cut_inside_a_character(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    whole = _wide_session(tmp_path)
    path = tmp_path / SMALL
    path.write_bytes(whole[: whole.rindex("日".encode()) + 2])
    name, _, folder = command.partition(" ")
    assert main([name, str(tmp_path if folder else path)]) == 0
    lines = whole.count(b"\n") + 1
    assert f"1 half-written line ({SMALL}:{lines})" in capsys.readouterr().err


def test_a_first_line_that_is_not_utf8_is_still_refused_with_its_offset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file whose first line is no text is no session: named whole, never line by line."""
    whole = _wide_session(tmp_path)
    path = tmp_path / SMALL
    path.write_bytes(whole[:40] + b"\xff" + whole[40:])
    assert main(["bill", str(path)]) == 2
    assert "not UTF-8 text (byte 0xff at offset 40)" in capsys.readouterr().err
    shutil.copy(ROLLOUT, tmp_path / ROLLOUT.name)
    bill = read_bill(tmp_path)
    assert [(s.kind, s.place) for s in bill.skipped] == [("not a session", SMALL)]
    assert bill.tokens() == read_bill(ROLLOUT).tokens()


@pytest.mark.parametrize("fast", [True, False], ids=["msgspec", "json"])
@pytest.mark.parametrize("where", ["middle", "last"])
@pytest.mark.parametrize("file", [SMALL, ROLLOUT.name])
def test_a_line_that_is_not_utf8_is_a_named_bad_line_and_the_rest_is_billed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fast: bool,
    where: str,
    file: str,
) -> None:
    """A byte that is not UTF-8 inside one line refused the whole file (and the bill)."""
    monkeypatch.setattr(text, "_BYTES_READ", fast and text._BYTES_READ)
    source = PROJECT / SMALL if file == SMALL else ROLLOUT
    lines = source.read_bytes().splitlines()
    number = 3 if where == "middle" else len(lines)
    spoiled = [*lines]
    spoiled[number - 1] = lines[number - 1][:25] + b"\xc3\x28" + lines[number - 1][25:]
    path = tmp_path / "live" / file
    path.parent.mkdir()
    path.write_bytes(b"\n".join(spoiled) + b"\n")
    without = tmp_path / file
    without.write_bytes(b"\n".join([*lines[: number - 1], b"", *lines[number:]]) + b"\n")
    for named in (path, path.parent):
        bill = read_bill(named)
        assert [(s.kind, s.place) for s in bill.skipped] == [("bad line", f"{file}:{number}")]
        assert "not UTF-8 text (byte 0xc3 at offset" in bill.skipped[0].reason
    assert read_bill(path).tokens() == read_bill(without).tokens()
    with pytest.raises(ValueError, match="not UTF-8 text"):
        read_bill(path, strict=True)
    assert main(["bill", str(path)]) == 0
    assert f"1 bad line ({file}:{number})" in capsys.readouterr().err


def test_only_the_start_of_a_character_at_the_end_is_left_out() -> None:
    for character in ("é", "日", "😀"):
        encoded = ("ab" + character).encode()
        assert [whole_characters(encoded[:stop]) for stop in range(2, len(encoded))] == [b"ab"] * (
            len(encoded) - 2
        )
        assert whole_characters(encoded) == encoded
    for kept in (b"", b"ab", b"a\x80", b"a\xff", b"a\xe0\x80", b"\xbf\xbf\xbf\xbf"):
        assert whole_characters(kept) == kept  # not UTF-8: left for the decoder to refuse


def test_a_file_another_tool_wrote_is_named_when_told_the_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--format claude-code` read a Codex rollout as a Claude Code session holding nothing:
    left out with no word, even under `--strict`."""
    folder = tmp_path / "projects"
    folder.mkdir()
    shutil.copy(PROJECT / SMALL, folder / SMALL)
    shutil.copy(ROLLOUT, folder / ROLLOUT.name)
    bill = read_bill(folder, format="claude-code")
    assert len(bill.calls) == 7
    assert [(s.kind, Path(s.file).name) for s in bill.skipped] == [("not a session", ROLLOUT.name)]
    assert "'session_meta', which Claude Code never writes" in bill.skipped[0].reason
    assert main(["bill", str(folder), "--format", "claude-code", "--strict"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a Claude Code session, though read as one" in err
    assert main(["bill", str(ROLLOUT), "--format", "claude-code"]) == 2
    assert "its first record is of type 'session_meta'" in capsys.readouterr().err


TRAJECTORY = SESSIONS / "mini-swe-agent" / "astropy__astropy-12907.traj.json"
EVENTS = SESSIONS / "openhands" / "basic_gui_mode.json"


@pytest.mark.parametrize(
    ("session", "beside", "format"),
    [
        (TRAJECTORY, "preds.json", "mini-swe-agent"),
        (EVENTS, "metadata.json", "openhands"),
    ],
)
def test_a_run_folder_told_its_format_skips_the_files_the_run_writes_beside(
    tmp_path: Path, session: Path, beside: str, format: str
) -> None:
    """A mini-swe-agent batch writes `preds.json` beside its trajectories, an OpenHands
    evaluation its `metadata.json`: told the format, the folder is billed as it is
    without it, the other file named as no session in that format (not an error)."""
    folder = tmp_path / "run"
    (folder / "instance").mkdir(parents=True)
    shutil.copy(session, folder / "instance" / session.name)
    (folder / beside).write_text(json.dumps({"instance": {"model_patch": "diff"}}))
    alone = read_bill(session, format=format)
    bill = read_bill(folder, format=format)
    assert bill.tokens() == alone.tokens() and len(bill.calls) == len(alone.calls)
    assert [(s.kind, s.place) for s in bill.skipped] == [("not a session", beside)]
    assert f"no {format} session, though read as one" in bill.skipped[0].reason


def test_a_trajectory_told_openhands_is_no_session_in_it(tmp_path: Path) -> None:
    """A mini-swe-agent trajectory names its `instance_id` too, with no event history."""
    folder = tmp_path / "run"
    folder.mkdir()
    shutil.copy(TRAJECTORY, folder)
    trajectory = json.loads(TRAJECTORY.read_text(encoding="utf-8"))
    trajectory["instance_id"] = "astropy__astropy-12907"
    (folder / TRAJECTORY.name).write_text(json.dumps(trajectory), encoding="utf-8")
    shutil.copy(EVENTS, folder)
    bill = read_bill(folder, format="openhands")
    assert bill.tokens() == read_bill(EVENTS).tokens()
    assert [(s.kind, s.place) for s in bill.skipped] == [("not a session", TRAJECTORY.name)]
    # it said "found null" of a history the instance does not have
    assert "an instance with a history of events, found one with no 'history'" in (
        bill.skipped[0].reason
    )


@pytest.mark.parametrize("format", ["mini-swe-agent", "openhands"])
def test_a_claude_code_file_told_a_document_format_is_no_session_in_it(
    tmp_path: Path, format: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    shutil.copy(TRAJECTORY if format == "mini-swe-agent" else EVENTS, folder)
    shutil.copy(PROJECT / SMALL, folder / SMALL)
    bill = read_bill(folder, format=format)
    assert [(s.kind, s.place) for s in bill.skipped] == [("not a session", SMALL)]
    assert main(["bill", str(folder / SMALL), "--format", format]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"no {format} session, though read as one" in err


@pytest.mark.parametrize("format", ["claude-code", "codex"])
def test_one_json_document_told_a_format_of_lines_is_named_not_read_line_by_line(
    tmp_path: Path, format: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A trajectory is one JSON document over many lines: read as JSON Lines, every line
    was a bad line and the last a half-written one (thousands named)."""
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(TRAJECTORY, folder)
    shutil.copy(PROJECT / SMALL if format == "claude-code" else ROLLOUT, folder)
    bill = read_bill(folder, format=format)
    assert [(s.kind, s.place) for s in bill.skipped] == [("not a session", TRAJECTORY.name)]
    assert "one JSON document (an object), not JSON Lines" in bill.skipped[0].reason
    assert main(["bill", str(TRAJECTORY), "--format", format]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "one JSON document (an object), not JSON Lines" in err


def test_a_claude_code_file_told_codex_is_named_not_an_empty_rollout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--format codex` on a folder holding Claude Code files called each an empty rollout."""
    folder = tmp_path / "home"
    folder.mkdir()
    shutil.copy(PROJECT / SMALL, folder / SMALL)
    shutil.copy(ROLLOUT, folder / ROLLOUT.name)
    bill = read_bill(folder, format="codex")
    assert bill.tokens() == read_bill(ROLLOUT).tokens()
    assert [(s.kind, s.place) for s in bill.skipped] == [("not a session", SMALL)]
    assert "not a Codex session, though read as one" in bill.skipped[0].reason
    assert main(["bill", str(PROJECT / SMALL), "--format", "codex"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "of type 'user', which Codex never writes" in err


def _with_usage_figure(path: Path, figure: object) -> tuple[int, Path]:
    """The small session with the usage of its first assistant line's `input_tokens` set to
    `figure` (at `path`), and that line's number; beside it, the file without that line."""
    lines = (PROJECT / SMALL).read_text(encoding="utf-8").splitlines()
    number = next(n for n, line in enumerate(lines) if '"usage"' in line and "assistant" in line)
    record = json.loads(lines[number])
    record["message"]["usage"]["input_tokens"] = figure
    changed = [*lines[:number], json.dumps(record, separators=(",", ":")), *lines[number + 1 :]]
    path.write_text("\n".join(changed) + "\n", encoding="utf-8")
    without = path.with_name("without.jsonl")
    without.write_text("\n".join([*lines[:number], "", *lines[number + 1 :]]) + "\n", "utf-8")
    return number + 1, without


@pytest.mark.parametrize("figure", ["12", True, 1.5, 12.0, [3], {"n": 1}])
def test_a_usage_figure_that_is_no_count_is_a_named_bad_line(
    tmp_path: Path, figure: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """The line is left out and named, as a line that is no JSON is; the rest is billed
    (a string once stopped the whole bill), and --strict refuses it."""
    path = tmp_path / SMALL
    number, without = _with_usage_figure(path, figure)
    bill = read_bill(path)
    assert [(s.kind, s.place) for s in bill.skipped] == [("bad line", f"{SMALL}:{number}")]
    assert "input_tokens" in bill.skipped[0].reason and str(path) in bill.skipped[0].reason
    assert bill.tokens() == read_bill(without).tokens()
    with pytest.raises(ValueError, match=rf"line {number} message\.usage\.input_tokens"):
        read_bill(path, strict=True)
    assert main(["bill", str(tmp_path)]) == 0
    assert f"1 bad line ({SMALL}:{number})" in capsys.readouterr().err
    assert main(["bill", str(path), "--strict"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_rollout_total_that_is_no_count_is_a_named_bad_line(tmp_path: Path) -> None:
    """The next total's rise takes the skipped call in: the rollout's tokens are kept."""
    lines = ROLLOUT.read_text(encoding="utf-8").splitlines()
    number = next(n for n, line in enumerate(lines) if '"total_token_usage"' in line)
    record = json.loads(lines[number])
    record["payload"]["info"]["total_token_usage"]["output_tokens"] = "7"
    lines[number] = json.dumps(record, separators=(",", ":"))
    path = tmp_path / ROLLOUT.name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bill = read_bill(path)
    assert [(s.kind, s.line) for s in bill.skipped] == [("bad line", number + 1)]
    assert bill.tokens() == read_bill(ROLLOUT).tokens()
    with pytest.raises(ValueError, match=rf"line {number + 1} total_token_usage\.output_tokens"):
        read_bill(path, strict=True)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_or_a_link_to_nothing_in_a_folder_is_a_named_skip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each was left out without a word: a session file someone moved, and the link to it
    left behind, vanished from the bill unsaid."""
    folder = tmp_path / "my sessions"  # a space in the path too
    folder.mkdir()
    shutil.copy(PROJECT / SMALL, folder / SMALL)
    os.mkfifo(folder / "pipe.jsonl")
    (folder / "moved.jsonl").symlink_to(tmp_path / "gone.jsonl")
    bill = read_bill(folder)
    assert [(s.kind, s.place) for s in bill.skipped] == [
        ("not a session", "moved.jsonl"),
        ("not a session", "pipe.jsonl"),
    ]
    reasons = [s.reason for s in bill.skipped]
    assert reasons[0].endswith(
        f"a symbolic link to {tmp_path / 'gone.jsonl'}, which does not exist"
    )
    assert reasons[1].endswith("pipe.jsonl: a FIFO (named pipe), not a regular file or a folder")
    assert bill.tokens() == read_bill(PROJECT / SMALL).tokens()
    with pytest.raises(ValueError, match=r"moved\.jsonl: a symbolic link"):
        read_bill(folder, strict=True)
    assert main(["bill", str(folder / "moved.jsonl")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["bill", str(folder)]) == 0
    assert "2 files that are no session (moved.jsonl, pipe.jsonl)" in capsys.readouterr().err


def test_skips_noted_in_no_list_are_refused_before_any_read(tmp_path: Path) -> None:
    """A tuple given for the skips failed at the first skip, as "'tuple' object has no
    attribute 'append'"."""
    from context_budget.sessions import read_paths

    folder = _live_folder(tmp_path)
    with pytest.raises(TypeError, match="skipped must be a list or None, got tuple"):
        read_paths([folder], skipped=())  # type: ignore[arg-type]


TRAJECTORY = SESSIONS / "mini-swe-agent" / "astropy__astropy-12907.traj.json"


@pytest.mark.parametrize("figure", ["12", True, 1.5])
def test_a_document_whose_usage_figure_is_no_count_is_a_named_skip(
    tmp_path: Path, figure: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """A trajectory has no line to leave out alone: it is skipped whole and named, and the
    rest of the folder billed, where it stopped the whole bill."""
    data = json.loads(TRAJECTORY.read_text(encoding="utf-8"))
    reply = next(m for m in data["messages"] if m["role"] == "assistant")
    reply["extra"]["response"]["usage"]["prompt_tokens"] = figure
    (tmp_path / TRAJECTORY.name).write_text(json.dumps(data), encoding="utf-8")
    shutil.copy(PROJECT / SMALL, tmp_path / SMALL)
    bill = read_bill(tmp_path)
    assert [(s.kind, s.place) for s in bill.skipped] == [("bad usage", TRAJECTORY.name)]
    assert "prompt_tokens" in bill.skipped[0].reason
    assert bill.tokens() == read_bill(PROJECT / SMALL).tokens()
    with pytest.raises(ValueError, match=r"messages\[\d+\].*prompt_tokens"):
        read_bill(tmp_path, strict=True)
    assert main(["bill", str(tmp_path)]) == 0
    assert f"1 session whose usage is refused ({TRAJECTORY.name})" in capsys.readouterr().err
