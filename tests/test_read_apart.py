"""A folder's files that are not Claude Code's, read on two cores, bill as read in one pass.

A forked child reads the later files (Codex rollouts, mini-swe-agent
trajectories, OpenHands event lists) and sends back their sessions; this
process reads the earlier ones, then takes the child's, then reads from the
file the child stopped at. Generated folders mix shipped files of every
format, copies of them, half-written last lines, files of no format and
files that are not text, and every bill (its output, its warnings, its exit
status, with and without `--strict`) is compared with the one-pass bill.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from forking import LINUX, SHIPPED, split_every_read
from hypothesis import given
from hypothesis import strategies as st
from profiles import cases

import context_budget._aside as _aside
import context_budget.sessions.claude_code as claude_code
import context_budget.sessions.detect as detect
from context_budget.cli import main

ROOT = Path(__file__).resolve().parent.parent
SESSIONS = ROOT / "docs" / "measured" / "sessions"
FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"
POOL = [path for path in SHIPPED if not path.name.endswith(".meta.json")]
CODEX = FIXTURES / "synthetic" / "codex_rollout.jsonl"
pytestmark = pytest.mark.skipif(not LINUX, reason="children are made on Linux alone")
#: From how many files the glances are split, as the package has it (each test lowers it).
_GLANCE_SPLIT = detect.GLANCE_SPLIT


@pytest.fixture(autouse=True, params=["forked", "here"])
def _split_every_folder(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[None]:
    """Every read of two files or more split, by a forked child or by its steps run here
    (where coverage measures them)."""
    with split_every_read(monkeypatch, detect, request.param):
        yield


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _both(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> tuple[Any, Any, list[int | None]]:
    """(the command split, the command in one process, the cuts the split made)."""
    cuts: list[int | None] = []
    cut = detect._cut

    def noting(files: Any, glances: Any) -> int | None:
        found = cut(files, glances)
        cuts.append(found)
        return found

    with monkeypatch.context() as patched:
        patched.setattr(detect, "_cut", noting)
        split = _run(argv)
        patched.setattr(detect, "can_fork", lambda: False)
        patched.setattr(claude_code, "can_fork", lambda: False)
        alone = _run(argv)
    return split, alone, cuts


def _rollouts(folder: Path, count: int) -> None:
    """`count` copies of the shipped rollout, each a session of its own."""
    records = [json.loads(line) for line in CODEX.read_text(encoding="utf-8").splitlines()]
    for number in range(count):
        for record in records:
            if record["type"] == "session_meta":
                record["payload"]["id"] = f"0199a000-0000-7000-8000-{number:012d}"
        lines = [json.dumps(record, separators=(",", ":")) for record in records]
        path = folder / f"rollout-2026-03-03T14-00-{number:02d}-{number:04d}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("argv", [["--json", "--calls"], ["--by", "session"], []])
def test_the_shipped_folders_bill_the_same_split(
    monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    split, alone, cuts = _both(
        monkeypatch, ["bill", str(SESSIONS), str(FIXTURES), "--timezone", "UTC", *argv]
    )
    assert cuts and cuts[0] is not None  # read on two cores
    assert split == alone
    assert split[0] == 0


def test_a_codex_folder_bills_the_same_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _rollouts(tmp_path, 12)
    split, alone, cuts = _both(monkeypatch, ["bill", str(tmp_path), "--json", "--calls"])
    assert cuts[0] is not None and split == alone
    one = json.loads(_run(["bill", str(CODEX), "--json"])[1])["calls"]
    assert json.loads(split[1])["calls"] == 12 * one  # each rollout's calls, once


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("spoil", ["figure", "not text"])
def test_a_spoiled_file_in_the_childs_part_is_met_as_one_pass_meets_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, strict: bool, spoil: str
) -> None:
    _rollouts(tmp_path, 6)
    bad = sorted(tmp_path.iterdir())[-2]  # read by the child
    if spoil == "figure":  # a line skipped, named: refused where the bill is strict
        bad.write_bytes(bad.read_bytes().replace(b'"input_tokens":', b'"input_tokens":-', 1))
    else:  # no text: the child stops, this process reads it again and names it
        bad.write_bytes(b"\xff\xfe not text")
    (tmp_path / "zz-notes.json").write_text('{"no": "session"}', encoding="utf-8")
    argv = ["bill", str(tmp_path), "--json", *(["--strict"] if strict else [])]
    split, alone, cuts = _both(monkeypatch, argv)
    assert split == alone
    assert cuts == [] if strict else cuts[0] is not None  # a skip that is an error: one pass
    assert split[0] == (2 if strict else 0) and bad.name in split[2]  # skipped, or refused


def test_one_file_is_read_in_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _rollouts(tmp_path, 1)
    split, alone, cuts = _both(monkeypatch, ["bill", str(tmp_path), "--json"])
    assert cuts == [None, None] and split == alone


def test_a_folder_under_the_size_is_read_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _rollouts(tmp_path, 4)
    monkeypatch.setattr(detect, "SPLIT_BYTES", sum(p.stat().st_size for p in tmp_path.iterdir()))
    assert _both(monkeypatch, ["bill", str(tmp_path), "--json"])[2][0] is not None
    monkeypatch.setattr(detect, "SPLIT_BYTES", detect.SPLIT_BYTES + 1)
    split, alone, cuts = _both(monkeypatch, ["bill", str(tmp_path), "--json"])
    assert cuts[0] is None and split == alone


def test_claude_code_files_weigh_nothing_in_the_cut(tmp_path: Path) -> None:
    files = [tmp_path / name for name in ("a.jsonl", "b.jsonl", "c.jsonl")]
    for path, size in zip(files, (10, 1000, 1000), strict=True):
        path.write_bytes(b"x" * size)
    glances: dict[Path, str | None] = {files[0]: None, files[1]: "claude-code", files[2]: None}
    assert detect._cut(files, glances) == 2  # the first file and the Claude Code one
    even = [tmp_path / f"{n}.json" for n in range(4)]
    for path, size in zip(even, (600, 300, 300, 300), strict=True):
        path.write_bytes(b"x" * size)
    assert detect._cut(even, dict.fromkeys(even)) == 2  # 900 of 1,500 bytes: nearest 55%


# ------------------------------------------------------------ generated folders


@st.composite
def _file(draw: st.DrawFn) -> tuple[str, bytes]:
    """A shipped file, or one spoiled: cut short, of no format, empty, or not text."""
    source = draw(st.sampled_from(POOL))
    data = source.read_bytes()
    spoil = draw(st.sampled_from(["none", "none", "none", "cut", "junk", "empty", "binary"]))
    if spoil == "cut":
        data = data[: draw(st.integers(1, len(data) - 1))]
    elif spoil == "junk":
        data = b"not a session at all\n"
    elif spoil == "empty":
        data = b""
    elif spoil == "binary":
        data = b"\xff\xfe\x00junk"
    return source.name, data


@cases(0.2)
@given(st.lists(_file(), min_size=2, max_size=7), st.booleans())
def test_any_folder_bills_the_same_split(
    tmp_path_factory: pytest.TempPathFactory, files: list[tuple[str, bytes]], strict: bool
) -> None:
    folder = tmp_path_factory.mktemp("folder")
    for number, (name, data) in enumerate(files):
        (folder / f"{number}-{name}").write_bytes(data)
    argv = ["bill", str(folder), "--json", "--calls", "--timezone", "UTC"]
    with pytest.MonkeyPatch.context() as monkeypatch:
        split, alone, _ = _both(monkeypatch, [*argv, *(["--strict"] if strict else [])])
    assert split == alone


def test_the_size_at_which_a_folder_is_split_is_the_one_the_docs_give() -> None:
    mib = _aside.SPLIT_BYTES / 2**20
    cli = " ".join((ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8").split())
    assert f"evaluation outputs) of {mib:g} MiB or more are read the same way" in cli
    assert f"folder of {_GLANCE_SPLIT:,} files or more is read" in cli


def test_evaluation_outputs_bill_the_same_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = (FIXTURES / "openhands" / "output.jsonl").read_text(encoding="utf-8").splitlines()
    for number in range(4):  # each file several sessions, an instance a line
        renamed = [
            json.dumps({**json.loads(line), "instance_id": f"run{number}-{k}"})
            for k, line in enumerate(lines)
        ]
        (tmp_path / f"output-{number}.jsonl").write_text("\n".join(renamed) + "\n")
    split, alone, cuts = _both(monkeypatch, ["bill", str(tmp_path), "--json", "--calls"])
    assert cuts[0] is not None and split == alone
    assert len(json.loads(split[1])["threads"]) == 4 * len(lines)


def test_a_child_glances_at_the_later_half_of_many_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the same formats as glancing at each file here, in the files' order
    for number, path in enumerate(POOL):
        (tmp_path / f"{number:03d}-{path.name}").write_bytes(path.read_bytes())
    files = detect._files([tmp_path])
    made: list[bool] = []
    real = detect.aside

    def noted(work: Any, *, worth: bool = True) -> Any:
        made.append(worth)
        return real(work, worth=worth)

    monkeypatch.setattr(detect, "aside", noted)
    found = detect._glances(files, "auto")
    assert list(found) == files and made == [True]
    assert list(found.values()) == [detect._glance(path, "auto") for path in files]
    assert "claude-code" in found.values() and "codex" in found.values()
    monkeypatch.setattr(detect, "GLANCE_SPLIT", len(files) + 1)
    assert detect._glances(files, "auto") == found and made == [True, False]
