"""One way to write a file: whole or not at all, with the mode a plain write gives.

Every file the package and its tools write (the notes, a unit's evidence, the
bill's page, the benchmark tables, the site's block lists) goes through
`context_budget._files.write_atomic`, and so has one mode policy: a file that
exists keeps its mode, a new one gets 0o666 less the umask.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from context_budget._files import is_temporary, write_atomic
from context_budget.bill_page import write_page
from context_budget.grading import save_evidence
from context_budget.notes import NotesFile

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def umask() -> Iterator[Callable[[int], None]]:
    """Set the process's umask for one test, and put the old one back after it."""
    old = os.umask(0o022)
    os.umask(old)
    yield os.umask
    os.umask(old)


def _notes(path: Path, text: str) -> Path:
    NotesFile(path).write(text)
    return path


def _evidence(path: Path, text: str) -> Path:
    return save_evidence(path.parent, path.name, text)


#: Every writer of the package: name -> (path, text) -> the path written.
WRITERS: dict[str, Callable[[Path, str], Path]] = {
    "write_atomic": write_atomic,
    "NotesFile.write": _notes,
    "save_evidence": _evidence,
    "write_page": write_page,
}


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o027])
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_new_file_gets_the_mode_a_plain_write_gives(
    tmp_path: Path, umask: Callable[[int], None], writer: str, mask: int
) -> None:
    umask(mask)
    plain = tmp_path / "plain.txt"
    plain.write_text("x", encoding="utf-8")
    written = WRITERS[writer](tmp_path / "written.txt", "x")
    assert written.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777 == 0o666 & ~mask


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o664])
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_file_that_exists_keeps_its_mode(tmp_path: Path, writer: str, mode: int) -> None:
    target = tmp_path / "kept.txt"
    target.write_text("old", encoding="utf-8")
    target.chmod(mode)
    WRITERS[writer](target, "new")
    assert target.stat().st_mode & 0o777 == mode
    assert sorted(path.name for path in tmp_path.iterdir()) == ["kept.txt"]


def test_the_text_is_written_exactly_and_nothing_else_is_left(tmp_path: Path) -> None:
    target = tmp_path / "t.md"
    text = "a\r\nb\nc\u00fc" * 50_000  # longer than one chunk, with both line endings
    assert write_atomic(target, text) == target
    assert target.read_bytes() == text.encode("utf-8")
    assert os.listdir(tmp_path) == ["t.md"]


def test_a_text_that_cannot_be_encoded_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "t.md"
    write_atomic(target, "old")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "new \ud800")
    with pytest.raises(TypeError, match="must be a str"):
        write_atomic(target, b"bytes")  # type: ignore[arg-type]
    assert target.read_text(encoding="utf-8") == "old"
    assert os.listdir(tmp_path) == ["t.md"]


def test_a_missing_folder_is_an_os_error_and_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_atomic(tmp_path / "absent" / "t.md", "x")
    assert os.listdir(tmp_path) == []


def test_the_temporary_name_is_recognized() -> None:
    assert is_temporary(".NOTES.md.0a1b2c3d.tmp", "NOTES.md")
    assert is_temporary(".NOTES.md.q_9zk2ab.tmp", "NOTES.md")  # mkstemp's, of older versions
    for other in (".NOTES.md.short.tmp", "NOTES.md.0a1b2c3d.tmp", ".OTHER.md.0a1b2c3d.tmp"):
        assert not is_temporary(other, "NOTES.md")


def _renames(path: Path) -> list[str]:
    """Where `path` renames or makes a temporary file itself: `os.replace`, `mkstemp` and kin."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in {
            "replace",
            "rename",
            "mkstemp",
            "NamedTemporaryFile",
        }:
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in {"os", "tempfile"}:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {owner.id}.{node.attr}")
    return found


def test_every_file_is_written_by_the_one_writer() -> None:
    sources = [
        *sorted((ROOT / "src" / "context_budget").rglob("*.py")),
        *sorted((ROOT / "benchmarks").glob("*.py")),
        *sorted((ROOT / "docsite").glob("*.py")),
    ]
    own = ROOT / "src" / "context_budget" / "_files.py"
    assert _renames(own) != []  # the check sees the one writer's own rename
    assert [found for path in sources if path != own for found in _renames(path)] == []


def test_a_taken_temporary_name_is_passed_over_and_none_free_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from context_budget import _files

    target = tmp_path / "t.md"
    (tmp_path / ".t.md.00000000.tmp").write_text("a live writer's", encoding="utf-8")
    names = iter(["00000000", "11111111"])
    monkeypatch.setattr(_files, "_random_part", lambda: next(names))
    write_atomic(target, "x")
    assert target.read_text(encoding="utf-8") == "x"
    assert (tmp_path / ".t.md.00000000.tmp").read_text(encoding="utf-8") == "a live writer's"
    monkeypatch.setattr(_files, "_random_part", lambda: "00000000")
    with pytest.raises(FileExistsError, match="no free temporary name beside"):
        write_atomic(target, "y")
    assert target.read_text(encoding="utf-8") == "x"


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_link_is_written_through_as_a_plain_write_goes(tmp_path: Path, writer: str) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.txt"
    os.symlink(real.name, link)
    WRITERS[writer](link, "new")
    assert link.is_symlink() and os.readlink(link) == real.name
    assert "new" in real.read_text(encoding="utf-8")  # the evidence writes it as JSON
    assert sorted(path.name for path in tmp_path.iterdir()) == ["link.txt", "real.txt"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")
def test_what_is_not_a_regular_file_is_never_replaced(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe.html"
    os.mkfifo(pipe)  # a device such as /dev/null is the same case, and must not be renamed over
    with pytest.raises(OSError, match="not a regular file"):
        write_atomic(pipe, "x")
    with pytest.raises(IsADirectoryError):
        write_atomic(tmp_path, "x")
    assert pipe.is_fifo() and sorted(path.name for path in tmp_path.iterdir()) == ["pipe.html"]


@pytest.mark.parametrize("name", ["", ".", ".."])
def test_a_path_that_names_a_folder_is_an_os_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    monkeypatch.chdir(inner)
    with pytest.raises(IsADirectoryError):
        write_atomic(name, "x")
    assert os.listdir(tmp_path) == ["inner"] and os.listdir(inner) == []
