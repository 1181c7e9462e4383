"""`context-budget bill`: the summary, `--json`, `--calls`, and bad input in one line."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from context_budget import PRICES, read_bill
from context_budget.cli import main
from context_budget.cli._bill import calls_table

SESSIONS = Path(__file__).resolve().parent.parent / "docs" / "measured" / "sessions"
FE5E = SESSIONS / "sample-project" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
SYNTHETIC = SESSIONS / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"
KEYS = {
    "format",
    "calls",
    "models",
    "threads",
    "tokens",
    "cost_usd",
    "cost",
    "cache_read_share",
    "rebuilds",
    "what_if",
}


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["bill", *argv, "--json"]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_json_has_the_contract_keys(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, str(FE5E))
    assert set(data) >= KEYS
    assert data["calls"] == 170 and data["format"] == "claude-code"
    assert data["tokens"] == {
        "input": 818,
        "cache_read": 3_647_854,
        "cache_write_5m": 137_976,
        "cache_write_1h": 0,
        "cache_write_30m": 0,
        "output": 51_933,
    }
    assert round(data["cost_usd"], 2) == 2.39  # type: ignore[arg-type]
    assert data["cache_read_share"] == 0.9633
    assert data["rebuilds"] == []
    # every dollar a float, a sum of nothing too (`0.0`, where an empty sum gave `0`)
    dollars = {k: v for k, v in data["what_if"].items() if k != "lifetimes"}
    assert all(type(value) is float for value in dollars.values()), dollars


def test_json_reports_the_synthetic_rebuilds(capsys: pytest.CaptureFixture[str]) -> None:
    rebuilds = _json(capsys, str(SYNTHETIC))["rebuilds"]
    assert isinstance(rebuilds, list)
    assert [r["cause"] for r in rebuilds] == ["ttl", "prefix-changed", "compaction", "ttl"]
    assert {"call", "thread", "cause", "lost_tokens", "gap_seconds", "extra_usd"} <= set(
        rebuilds[0]
    )


def test_the_summary_and_the_calls_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bill", str(SYNTHETIC), "--calls"]) == 0
    out = capsys.readouterr().out
    assert "calls: 10 (from 20 usage lines)" in out
    assert "rebuild: call 6 at 2026-03-02T09:14:02Z (synthetic/main): prefix-changed" in out
    rows = [line for line in out.splitlines() if line.startswith(("   1 ", "  10 "))]
    assert len(rows) == 2 and rows[1].endswith("<- ttl")


def test_an_unpriced_bill_shows_tokens_and_the_recorded_cost(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = SESSIONS / "mini-swe-agent" / "astropy__astropy-12907.traj.json"
    path = tmp_path / "t.traj.json"  # the same run, on a model the table lacks
    path.write_text(source.read_text().replace("deepseek-v4-flash", "llama-9-70b"))
    data = _json(capsys, str(path))
    assert data["cost_usd"] is None and data["unpriced_models"] == ["llama-9-70b"]
    assert data["recorded_cost_usd"] == pytest.approx(0.042822, abs=1e-6)
    assert main(["bill", str(path)]) == 0
    assert "cost: no call is on a model with a list price" in capsys.readouterr().out


@pytest.mark.parametrize("content", ["", "not json\n", '{"x": 1}\n', "[]\n"])
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    path = tmp_path / "bad\nname.jsonl"
    path.write_text(content, encoding="utf-8")
    assert main(["bill", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("context-budget: error: ")


def test_a_missing_path_and_a_bad_format_are_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bill", str(tmp_path / "nope")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["bill", str(FE5E), "--format", "aider"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["bill"]) == 2


@pytest.mark.parametrize("command", ["bill", "whatif"])
def test_an_empty_path_is_refused_not_read_as_the_folder_one_is_in(
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`bill "$SESSIONS"` with the variable unset billed the folder one was in."""
    (tmp_path / FE5E.name).write_bytes(FE5E.read_bytes())
    monkeypatch.chdir(tmp_path)
    for argv in ([""], [str(FE5E), ""]):
        assert main([command, *argv]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1
        assert "an empty path names no file or folder" in captured.err
    with pytest.raises(ValueError, match="an empty path"):
        read_bill("")


def test_a_binary_file_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["bill", str(path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


DEEP = '{"type": "assistant", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
#: A number too long for Python's int, in a field no reader reads: the file's real
#: problem (no call) is what the error names.
LONG_NUMBER = '{"type": "assistant", "n": ' + "9" * 5_000 + "}\n"


@pytest.mark.parametrize("format", ["auto", "claude-code", "codex"])
@pytest.mark.parametrize(
    ("content", "said"),
    [
        (DEEP, "nested too deeply"),
        (LONG_NUMBER, "no "),
        (b"\xff\xfe bad\n", "not UTF-8 text"),
    ],
    ids=["nested 100,000 deep", "a 5,000-digit number", "not UTF-8"],
)
def test_json_no_parser_can_take_is_one_line_naming_the_file(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    format: str,
    content: str | bytes,
    said: str,
) -> None:
    """Not a RecursionError traceback: the file (and, read as a session, the line) is named."""
    path = tmp_path / "hostile.jsonl"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    assert main(["bill", str(path), "--format", format]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "hostile.jsonl" in err, err
    if format == "codex" and content == LONG_NUMBER:  # a Claude Code record, told codex
        said = "which Codex never writes"
    if format != "auto" and content == DEEP:  # a bad line, as a line that is no JSON is
        said = "1 bad line (hostile.jsonl:1)"
    if format != "auto" or said == "not UTF-8 text":
        assert said in err, err


def test_since_after_until_is_said_in_the_flags_words(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bill", str(SYNTHETIC), "--since", "2026-02-01", "--until", "2026-01-31"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "--since 2026-02-01 is after --until 2026-01-31" in err, err
    main([*argv[:4], "--until", "2026-02-01", "--timezone", "UTC"])  # one day: no such refusal
    assert "is after" not in capsys.readouterr().err


def test_a_utf16_copy_of_a_session_is_said_to_be_utf16(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Windows PowerShell's `>` saves a copy as UTF-16 with its byte-order mark."""
    line = SYNTHETIC.read_text(encoding="utf-8").splitlines()[0]
    for encoding, mark in (("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff")):
        path = tmp_path / f"{encoding}.jsonl"
        path.write_bytes(mark + (line + "\n").encode(encoding))
        assert main(["bill", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "not UTF-8 text" in err, err
        assert "it is UTF-16" in err and "save it as UTF-8" in err, err
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"type": "user", "x": "caf\xe9"}\n')
    assert main(["bill", str(latin)]) == 2
    assert "UTF-16" not in capsys.readouterr().err  # only a file that says it is one


def test_a_count_too_long_for_python_is_named_as_a_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    usage = '{"input_tokens":' + "9" * 5_000 + ',"output_tokens":1}'
    message = '{"id":"m1","model":"claude-sonnet-4-5","content":"ok","usage":' + usage + "}"
    path = tmp_path / "long.jsonl"
    path.write_text('{"type":"assistant","sessionId":"s1","message":' + message + "}\n")
    assert main(["bill", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 1 message.usage.input_tokens must be a whole number" in err, err
    assert err.count("\n") == 1


# ---------------------------------------------------------------- hostile files, one line each


def _one_line(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["bill", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured.err
    assert captured.err.startswith("context-budget: error: "), captured.err
    return captured.err


def _claude(tmp_path: Path, **usage: object) -> dict[str, object]:
    return {
        "type": "assistant",
        "uuid": "a1",
        "sessionId": "5e55a000-0000-4000-8000-000000000000",
        "timestamp": usage.pop("timestamp", "2026-01-01T00:00:00Z"),
        "message": {
            "id": "msg-1",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": 5, "output_tokens": 5, **usage},
        },
    }


def _write(path: Path, *records: object) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_trajectory_with_a_message_that_is_not_an_object_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(
        (SESSIONS / "mini-swe-agent" / "astropy__astropy-12907.traj.json").read_text()
    )
    data["messages"].insert(3, "not a message")
    path = tmp_path / "t.traj.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert "messages[3]" in _one_line(capsys, str(path))


@pytest.mark.parametrize("when", ["9999-12-31T23:59:59-12:00", 1e300, -1e300])
def test_a_time_no_calendar_holds_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], when: object
) -> None:
    path = _write(tmp_path / "s.jsonl", _claude(tmp_path, timestamp=when))
    assert "line 1 timestamp" in _one_line(capsys, str(path), "--calls")


def test_a_first_record_whose_type_is_a_list_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "s.jsonl", {"type": []}, {"type": {}})
    assert "s.jsonl" in _one_line(capsys, str(path))


def test_a_token_count_too_large_for_a_price_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "s.jsonl", _claude(tmp_path, cache_read_input_tokens=10**400))
    assert "cache_read_input_tokens" in _one_line(capsys, str(path))


@pytest.mark.parametrize(
    ("count", "said"),
    [(-5, "got -5\n"), (5.0, "got 5.0 (float, not int)\n"), ("5", "got '5' (str, not int)\n")],
    ids=["negative", "float", "string"],
)
def test_a_count_that_is_no_whole_number_says_what_it_is_and_its_file_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], count: object, said: str
) -> None:
    """A folder's bad figure was named after three of its files, then its own file (the
    folder's other file is billed, and --strict refuses the line)."""
    other = _claude(tmp_path) | {"sessionId": "5e55a000-0000-4000-8000-000000000001"}
    _write(tmp_path / "a.jsonl", other)
    path = _write(tmp_path / "b.jsonl", _claude(tmp_path, input_tokens=count))
    for given in ([str(path)], [str(tmp_path), "--strict"]):
        err = _one_line(capsys, *given)
        assert err.endswith(
            f"{path}: line 1 message.usage.input_tokens must be a whole number "
            f"from 0 to 1,000,000,000,000,000, {said}"
        )
        assert err.count("a.jsonl") == 0 and err.count("b.jsonl") == 1


def test_a_count_too_long_for_python_to_read_is_said_too_large(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "s.jsonl", _claude(tmp_path, input_tokens=7))
    path.write_text(path.read_text().replace('"input_tokens": 7', '"input_tokens": ' + "9" * 5000))
    assert _one_line(capsys, str(path)).endswith(
        "message.usage.input_tokens must be a whole number from 0 to 1,000,000,000,000,000, "
        "got inf (a number too large)\n"
    )


SEARCHES = "server_tool_use.web_search_requests"


@pytest.mark.parametrize(
    ("usage", "field"),
    [
        (
            {"iterations": [{"type": "message", "input_tokens": 10**400, "output_tokens": 1}]},
            "iterations[0].input_tokens",
        ),
        ({"server_tool_use": {"web_search_requests": 10**400}}, SEARCHES),
        ({"server_tool_use": {"web_search_requests": 10**20}}, SEARCHES),
    ],
    ids=["huge-iteration", "huge-searches", "1e20-searches"],
)
def test_every_count_of_a_usage_is_bounded_as_a_top_level_one_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], usage: dict[str, object], field: str
) -> None:
    """A count past 10**15 in the iterations or the web searches once ended in an
    OverflowError traceback, or billed 10**20 searches as $1e18."""
    path = _write(tmp_path / "s.jsonl", _claude(tmp_path, **usage))
    said = f"line 1 message.usage.{field} must be a whole number from 0 to 1,000,000,000,000,000"
    with pytest.raises(ValueError, match=re.escape(said)):
        read_bill(path)
    assert "must be a whole number" in _one_line(capsys, str(path))


def test_the_tokens_the_share_and_the_groups_count_what_the_dollars_bill(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With `usage.iterations` the dollars billed every iteration (203,000 input tokens)
    while the tokens line, the groups and the cache-read share counted the top level (a
    group's hit rate did until later)."""
    compacted = _claude(
        tmp_path,
        input_tokens=23_000,
        output_tokens=1_000,
        cache_read_input_tokens=1_000,
        iterations=[
            {"type": "compaction", "input_tokens": 180_000, "output_tokens": 3_500},
            {
                "type": "message",
                "input_tokens": 23_000,
                "output_tokens": 1_000,
                "cache_read_input_tokens": 1_000,
            },
        ],
    )
    path = _write(tmp_path / "s.jsonl", compacted)
    assert main(["bill", str(path), "--json", "--by", "model", "--calls"]) == 0
    data = json.loads(capsys.readouterr().out)
    tokens = {"input": 203_000, "cache_read": 1_000, "output": 4_500}
    assert {k: data["tokens"][k] for k in tokens} == tokens
    assert {k: data["groups"][0]["tokens"][k] for k in tokens} == tokens
    assert data["cache_read_share"] == round(1_000 / 204_000, 4)
    # the one group, every call, reads its hit rate as the bill does (it read 1,000 / 24,000)
    assert data["groups"][0]["cache_read_share"] == data["cache_read_share"]
    assert {k: data["per_call"][0][k] for k in tokens} == tokens
    price = PRICES["claude-sonnet-4-5"]
    dollars = (203_000 * price.input + 1_000 * price.read + 4_500 * price.output) / 1e6
    assert data["cost_usd"] == pytest.approx(dollars, abs=1e-6)
    assert main(["bill", str(path)]) == 0
    assert "tokens: input 203,000 · cache read 1,000" in capsys.readouterr().out


def test_bill_and_inspect_name_the_same_problem_in_json_no_parser_takes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for content, said in [(DEEP, "nested too deeply")]:
        path = tmp_path / "hostile.jsonl"
        path.write_text(content, encoding="utf-8")
        assert said in _one_line(capsys, str(path))
        assert main(["inspect", str(path)]) == 2
        assert said in capsys.readouterr().err


def test_a_loop_of_symbolic_links_is_named_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.jsonl").symlink_to(tmp_path / "b.jsonl")
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "a.jsonl")
    err = _one_line(capsys, str(tmp_path / "a.jsonl"))
    assert "loop of symbolic links" in err and "no such file" not in err


def test_a_file_that_may_not_be_read_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path / "s.jsonl", _claude(tmp_path))
    real = os.open

    def refuse(name: Any, *args: Any, **kwargs: Any) -> int:
        if os.fspath(name) == str(path):
            raise PermissionError(13, "Permission denied", str(name))
        return real(name, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)  # where a file's bytes are read (`read_at`)
    assert "s.jsonl: permission denied" in _one_line(capsys, str(path))


def test_a_sub_folder_that_may_not_be_read_is_named_not_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    _write(tmp_path / "s.jsonl", _claude(tmp_path))
    (tmp_path / "locked").mkdir()
    scandir = os.scandir

    def refuse(path: object = ".") -> object:
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", refuse)
    err = _one_line(capsys, str(tmp_path))
    assert "locked" in err and "permission denied" in err


def _dollars(line: str) -> list[float]:
    return [float(found.replace(",", "")) for found in re.findall(r"\$([\d,]+\.\d+)", line)]


def test_the_parts_and_the_groups_add_up_to_the_total_as_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """$0.00435 (1,200 input and 50 output tokens on Sonnet 4.5) is 0.0043499… as a float:
    the total read $0.0043 while its parts and its one group were rounded to add to $0.0044."""
    path = _write(tmp_path / "s.jsonl", _claude(tmp_path, input_tokens=1_200, output_tokens=50))
    assert main(["bill", str(path), "--by", "thread", "--timezone", "UTC"]) == 0
    lines = capsys.readouterr().out.splitlines()
    total, *parts = _dollars(next(line for line in lines if line.startswith("cost: ")))
    assert total == 0.0043 and round(sum(parts), 4) == total
    (group,) = [line for line in lines if line.startswith("5e55a000/main ")]
    assert _dollars(group) == _dollars(next(line for line in lines if line.startswith("total")))


def test_no_bar_of_the_calls_table_is_longer_than_the_widest_prompt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """80 tokens uncached, then 39 read, 39 written and 2 uncached: each part rounded on its
    own drew 20 + 20 + 1 = 41 characters for a prompt as wide as the 40 of the first."""
    first = _claude(tmp_path, input_tokens=80)
    second = _claude(
        tmp_path,
        input_tokens=2,
        cache_read_input_tokens=39,
        cache_creation_input_tokens=39,
        timestamp="2026-01-01T00:01:00Z",
    )
    second["uuid"], second["message"]["id"] = "a2", "msg-2"  # type: ignore[index]
    path = _write(tmp_path / "s.jsonl", first, second)
    assert main(["bill", str(path), "--calls", "--timezone", "UTC"]) == 0
    rows = capsys.readouterr().out.splitlines()[-2:]
    bars = [re.search(r"[=+-]+", row[46:]) for row in rows]
    assert [len(bar.group()) if bar else 0 for bar in bars] == [40, 40]
    assert len({row.index("$") for row in rows}) == 1  # the cost column stays in line


@pytest.mark.parametrize("command", ["bill", "whatif"])
@pytest.mark.parametrize("where", ["", "folder", "missing/page.html"])
def test_a_page_that_cannot_be_a_file_is_refused_before_the_files_are_read(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
    where: str,
) -> None:
    """`--html ""` (an unset variable) said `: cannot write the page: Is a directory`, and a
    folder or a missing one was found only after the whole bill was read."""
    import context_budget.cli._bill as bill_module

    (tmp_path / "folder").mkdir()
    page = str(tmp_path / where) if where else ""
    read_calls: list[object] = []
    monkeypatch.setattr(bill_module, "read_bill", lambda *a, **k: read_calls.append(a))
    assert main([command, str(FE5E), "--html", page]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("context-budget: error: argument --html: ")
    said = {"": "an empty path", "folder": "it is a folder", "missing/page.html": "no folder"}
    assert "cannot write the page" in err and said[where] in err, err
    assert read_calls == []


@pytest.mark.parametrize("command", ["bill", "whatif"])
def test_a_page_asked_for_on_standard_output_is_refused_not_written_as_a_file_named_dash(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
) -> None:
    """`--html -` wrote the page to a file named `-` in the folder one was in."""
    monkeypatch.chdir(tmp_path)
    assert main([command, str(FE5E), "--html", "-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "standard output" in err
    assert list(tmp_path.iterdir()) == []


def test_the_calls_table_of_no_row_is_no_table() -> None:
    """`calls_table([], [])` raised max() of an empty sequence."""
    assert calls_table([], []) == []
