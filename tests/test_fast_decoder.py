"""msgspec (the `fast` extra) and the standard library's json read every file the same.

Each format's record is declared once (`sessions/records.py`) and filled by
whichever decoder runs. Here every shipped session and fixture, and generated
files written every way JSON allows (escaped or not, spaced or not, odd
values in fields no reader reads, Windows line ends, a byte-order mark), are
billed and inspected both ways, and the outputs compared byte for byte.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from array import array
from pathlib import Path
from typing import Any

import pytest
from forking import SHIPPED
from hypothesis import given
from hypothesis import strategies as st
from profiles import cases

from context_budget.cli import main
from context_budget.sessions import records

ROOT = Path(__file__).resolve().parent.parent
SESSIONS = ROOT / "docs" / "measured" / "sessions"
FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"
REAL = SHIPPED

pytestmark = pytest.mark.skipif(not records.FAST, reason="msgspec is not installed")


def _run(argv: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return f"{status}\n{err.getvalue()}\n{out.getvalue()}"


def _both(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> tuple[str, str]:
    """The command's output with msgspec decoding, then with json alone."""
    fast = _run(argv)
    with monkeypatch.context() as patched:
        patched.setattr(records, "_FAST", None)
        slow = _run(argv)
    return fast, slow


_COMMANDS = (
    ["bill", "--json", "--calls"],
    ["bill", "--by", "thread"],
    ["bill", "--calls"],
    ["whatif", "--json", "--calls"],  # the replay reads the messages the bill did not
)


@pytest.mark.parametrize("path", REAL, ids=lambda path: path.name)
def test_every_shipped_file_reads_the_same_both_ways(
    monkeypatch: pytest.MonkeyPatch, path: Path
) -> None:
    for command in (*_COMMANDS, ["inspect", "--json"]):
        fast, slow = _both(monkeypatch, [command[0], str(path), *command[1:]])
        assert fast == slow, command


def test_a_folder_of_every_format_reads_the_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    for command in _COMMANDS:
        fast, slow = _both(monkeypatch, [command[0], str(SESSIONS), *command[1:]])
        assert fast == slow, command
        assert fast.startswith("0\n")


#: Values a field no reader reads may hold, each a case where the two decoders differ
#: in what they accept or skip: an infinite number, NaN, a whole number too long for
#: Python, a lone surrogate, deep nesting, every escape.
_ODD = [
    "1e400",
    "-1e400",
    "NaN",
    "Infinity",
    "9" * 5000,
    '"\\ud800"',
    '"\\u00e9\\u2028\\n\\t\\"\\\\/"',
    "[" * 300 + "]" * 300,
    '{"": null, "a": [true, false, -0, 0.5e-3]}',
    '"\U0001f600 caf\u00e9"',
]


@st.composite
def _written(draw: st.DrawFn) -> bytes:
    """One shipped session written another way: each record's JSON spaced or escaped,
    some given a field no reader reads holding an odd value, its lines ended by CRLF,
    blank lines between, a byte-order mark before."""
    source = draw(st.sampled_from([p for p in REAL if p.suffix == ".jsonl"]))
    lines = [line for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    lines = lines[: draw(st.integers(1, 40))]
    out = []
    for line in lines:
        record: Any = json.loads(line)
        if isinstance(record, dict) and draw(st.booleans()):
            record[draw(st.sampled_from(["zz", "extra", "_x"]))] = "ODD"
        text = json.dumps(
            record,
            ensure_ascii=draw(st.booleans()),
            separators=draw(st.sampled_from([(",", ":"), (", ", ": ")])),
        )
        out.append(text.replace('"ODD"', draw(st.sampled_from(_ODD))))
        if draw(st.integers(0, 9)) == 0:
            out.append(draw(st.sampled_from(["", "   ", "\t"])))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    body = (end.join(out) + end).encode("utf-8")
    return (b"\xef\xbb\xbf" + body) if draw(st.booleans()) else body


@cases(0.3)
@given(_written())
def test_any_way_of_writing_a_session_reads_the_same_both_ways(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    path = tmp_path_factory.mktemp("written") / "session.jsonl"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as monkeypatch:
        for command in _COMMANDS:
            fast, slow = _both(monkeypatch, [command[0], str(path), *command[1:]])
            assert fast == slow, (command, fast, slow)


def test_the_environment_turns_the_fast_decoder_off(tmp_path: Path) -> None:
    code = "from context_budget.sessions import records; print(records.FAST)"
    env = {**os.environ, "CONTEXT_BUDGET_NO_FAST": "1"}
    off = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    on = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (off.stdout.strip(), on.stdout.strip()) == ("False", "True")
    # the standard library's records are built otherwise when msgspec is off from the
    # start (`records._Plain`): every format's folder and the fixtures, call by call
    for path in (SESSIONS, FIXTURES):
        argv = [sys.executable, "-m", "context_budget", "bill", str(path), "--json", "--calls"]
        argv += ["--timezone", "UTC"]
        bills = [
            subprocess.run(argv, env=environ, capture_output=True, text=True, check=True).stdout
            for environ in (env, dict(os.environ))
        ]
        assert bills[0] == bills[1]
        assert json.loads(bills[0])["calls"] > 0


_LINE = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "system"]), "text": st.text(max_size=12)}
)


@given(st.lists(st.one_of(_LINE, st.just(None)), min_size=1, max_size=8), st.booleans())
def test_both_decoders_note_where_each_line_starts_in_the_bytes(
    lines: list[dict[str, str] | None], crlf: bool
) -> None:
    # a bill reads a rebuild's trigger line again from where the read found it: the
    # offsets must be those of the bytes, whichever decoder parsed the line (text that
    # is not ASCII makes the text's offsets differ from them)
    from context_budget.sessions.claude_code import RECORD
    from context_budget.sessions.text import Source

    end = "\r\n" if crlf else "\n"
    text = end.join("" if line is None else json.dumps(line, ensure_ascii=False) for line in lines)
    data = text.encode("utf-8")
    expected = [0] + [at + 1 for at, byte in enumerate(data) if byte == 10] if data else []
    found: dict[str, list[int]] = {}
    for name, fast in (("msgspec", records._FAST), ("json", None)):
        starts = array("q")
        with pytest.MonkeyPatch.context() as patched:
            patched.setattr(records, "_FAST", fast)
            read = list(records.records(Source("s.jsonl", None, data=data), RECORD, starts))
        assert len(read) == sum(line is not None for line in lines)
        found[name] = list(starts)
    assert found["json"] == found["msgspec"] == expected
