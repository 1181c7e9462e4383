"""NOTES.md: atomic writes, no escape from the root, no interleaved writers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from context_budget import NOTES_TOOL, NotesFile
from context_budget.notes import EMPTY_NOTES, STALE_SECONDS


def test_reading_before_any_write_gives_the_empty_marker(tmp_path: Path) -> None:
    assert NotesFile(tmp_path / "NOTES.md").read() == EMPTY_NOTES == "(NOTES.md is still empty)"


def test_a_write_replaces_the_whole_file(tmp_path: Path) -> None:
    notes = NotesFile(tmp_path / "NOTES.md")
    notes.write("a long first version\n" * 10)
    notes.write("short")
    assert notes.read() == "short"


def test_odd_unicode_and_newlines_round_trip(tmp_path: Path) -> None:
    text = "## Décisions\r\n- 乐观锁 🔒\n- zero\u200bwidth\n"
    notes = NotesFile(tmp_path / "NOTES.md")
    notes.write(text)
    assert notes.read() == text


def test_no_temporary_file_is_left_behind(tmp_path: Path) -> None:
    NotesFile(tmp_path / "NOTES.md").write("x" * 200_000)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["NOTES.md"]


def test_the_tool_writes_and_confirms(tmp_path: Path) -> None:
    notes = NotesFile(tmp_path / "NOTES.md")
    assert notes.update_notes({"content": "## Decisions"}) == "NOTES.md updated"
    assert notes.read() == "## Decisions"
    assert NOTES_TOOL["name"] == "update_notes"
    assert NOTES_TOOL["input_schema"]["required"] == ["content"]


@pytest.mark.parametrize("bad", [{}, {"content": 3}, "content"])
def test_the_tool_refuses_input_without_string_content(tmp_path: Path, bad: object) -> None:
    with pytest.raises(ValueError, match="needs a string 'content'"):
        NotesFile(tmp_path / "NOTES.md").update_notes(bad)  # type: ignore[arg-type]


def test_writing_something_other_than_text_is_a_type_error(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="must be a str, got bytes"):
        NotesFile(tmp_path / "NOTES.md").write(b"bytes")  # type: ignore[arg-type]


def test_a_relative_path_is_taken_inside_the_root(tmp_path: Path) -> None:
    notes = NotesFile("sub/NOTES.md", root=tmp_path)
    notes.write("kept")
    assert (tmp_path / "sub" / "NOTES.md").read_text(encoding="utf-8") == "kept"


def test_dot_dot_out_of_the_root_is_refused_naming_both(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    with pytest.raises(ValueError, match="outside the notes root") as caught:
        NotesFile("../NOTES.md", root=root)
    assert "../NOTES.md" in str(caught.value) and str(root) in str(caught.value)


def test_an_absolute_path_outside_the_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    with pytest.raises(ValueError, match="outside the notes root"):
        NotesFile(tmp_path / "elsewhere" / "NOTES.md", root=root)


def test_the_root_itself_is_not_a_notes_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="outside the notes root"):
        NotesFile(tmp_path, root=tmp_path)


@pytest.mark.parametrize(("path", "root"), [(None, None), (5, None), ("NOTES.md", 5)])
def test_a_path_or_root_that_is_no_path_is_named(path: object, root: object) -> None:
    name = "root" if root is not None else "path"
    with pytest.raises(TypeError, match=rf"^notes {name} must be a str or a path, got "):
        NotesFile(path, root=root)  # type: ignore[arg-type]


def test_a_folder_is_refused_as_the_notes_file(tmp_path: Path) -> None:
    """It used to open, and fail at the first read with IsADirectoryError."""
    (tmp_path / "notes").mkdir()
    with pytest.raises(ValueError, match=r"is a folder; give the notes file in it"):
        NotesFile(tmp_path / "notes")


def test_a_symlink_pointing_out_is_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "project", tmp_path / "secret.md"
    root.mkdir()
    outside.write_text("do not touch", encoding="utf-8")
    (root / "NOTES.md").symlink_to(outside)
    with pytest.raises(ValueError, match="outside the notes root"):
        NotesFile(root / "NOTES.md")
    with pytest.raises(ValueError, match="outside the notes root"):
        NotesFile("NOTES.md", root=root)
    assert outside.read_text(encoding="utf-8") == "do not touch"


def test_a_symlink_planted_after_opening_is_refused_at_write_time(tmp_path: Path) -> None:
    root, outside = tmp_path / "project", tmp_path / "secret.md"
    root.mkdir()
    outside.write_text("do not touch", encoding="utf-8")
    notes = NotesFile(root / "NOTES.md")
    (root / "NOTES.md").symlink_to(outside)
    with pytest.raises(ValueError, match="outside the notes root"):
        notes.write("overwrite")
    with pytest.raises(ValueError, match="outside the notes root"):
        notes.read()
    assert outside.read_text(encoding="utf-8") == "do not touch"


def test_a_symlinked_folder_inside_the_root_is_allowed(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    NotesFile("alias/NOTES.md", root=tmp_path).write("fine")
    assert (tmp_path / "real" / "NOTES.md").read_text(encoding="utf-8") == "fine"


# The writer process: old notes first, then a large write whose slicing
# announces itself half-way and then hangs, so the kill lands mid-write.
_WRITER = textwrap.dedent(
    """
    import sys, time
    from context_budget import _files as module  # the one writer the notes use
    from context_budget import NotesFile

    module._CHUNK_CHARS = 1 << 12
    notes = NotesFile(sys.argv[1])

    class Slow(str):
        calls = 0
        def __getitem__(self, key):
            Slow.calls += 1
            if Slow.calls == 64:
                print("half-way", flush=True)
                time.sleep(60)
            return str.__getitem__(self, key)

    notes.write(Slow("NEW " * (1 << 16)))
    """
)


def test_a_writer_killed_mid_write_leaves_the_previous_notes_intact(tmp_path: Path) -> None:
    path = tmp_path / "NOTES.md"
    NotesFile(path).write("## Decisions\n- the previous notes\n")
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "half-way"
        partial = [p for p in tmp_path.iterdir() if p.name != "NOTES.md"]
        assert len(partial) == 1, "the write goes to a temporary file beside the notes"
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(timeout=10)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    # 63 chunks of 4,096 characters were written before the kill
    assert 0 < partial[0].stat().st_size < 4 * (1 << 16)
    assert NotesFile(path).read() == "## Decisions\n- the previous notes\n"


def test_concurrent_writers_never_interleave(tmp_path: Path) -> None:
    path = tmp_path / "NOTES.md"
    versions = [letter * 300_000 for letter in "abcd"]
    seen: list[str] = []
    stop = threading.Event()

    def write(text: str) -> None:
        notes = NotesFile(path)
        for _ in range(8):
            notes.write(text)

    def read() -> None:
        notes = NotesFile(path)
        while not stop.is_set():
            seen.append(notes.read())

    reader = threading.Thread(target=read)
    reader.start()
    writers = [threading.Thread(target=write, args=(text,)) for text in versions]
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join()
    stop.set()
    reader.join()
    seen.append(NotesFile(path).read())
    assert all(text in versions or text == EMPTY_NOTES for text in seen)
    assert seen[-1] in versions
    assert sorted(p.name for p in tmp_path.iterdir()) == ["NOTES.md"]


def test_a_failed_rename_removes_the_temporary_file_and_keeps_the_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = NotesFile(tmp_path / "NOTES.md")
    notes.write("old")

    def refuse(source: str, target: object) -> None:
        raise PermissionError(f"cannot rename {source}")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(PermissionError, match="cannot rename"):
        notes.write("new")
    monkeypatch.undo()
    assert notes.read() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["NOTES.md"]


def test_the_repr_names_the_path_and_the_root(tmp_path: Path) -> None:
    notes = NotesFile("NOTES.md", root=tmp_path)
    assert repr(notes) == f"NotesFile({str(tmp_path / 'NOTES.md')!r}, root={str(tmp_path)!r})"


# Stale temporary files: a killed writer's is removed on open, a live writer's stays.


def _hung_writer(path: Path) -> tuple[subprocess.Popen[str], Path]:
    """A writer stopped half-way through a write, and its temporary file."""
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "half-way"
    (partial,) = [p for p in path.parent.iterdir() if p.name != path.name]
    return writer, partial


def _age(path: Path, seconds: float) -> None:
    """Make `path` look last written `seconds` ago."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_opening_removes_the_temporary_file_a_killed_writer_left(tmp_path: Path) -> None:
    path = tmp_path / "NOTES.md"
    NotesFile(path).write("## Decisions\n- the previous notes\n")
    writer, partial = _hung_writer(path)
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=10)
    assert partial.exists() and partial.name.startswith(".NOTES.md.")
    assert NotesFile(path).removed_temporaries == 0  # written a moment ago: not yet stale
    _age(partial, STALE_SECONDS + 1)
    notes = NotesFile(path)
    assert notes.removed_temporaries == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["NOTES.md"]
    assert notes.read() == "## Decisions\n- the previous notes\n"


def test_opening_leaves_a_live_writer_s_temporary_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "NOTES.md"
    writer, partial = _hung_writer(path)
    try:
        _age(partial, 3_600)  # a writer stuck for an hour still holds its lock
        assert NotesFile(path).removed_temporaries == 0
        assert partial.exists()
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(timeout=10)
        assert NotesFile(path).removed_temporaries == 1  # now nobody holds it
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    assert not partial.exists()


def test_only_this_file_s_regular_temporaries_are_candidates(tmp_path: Path) -> None:
    keep = [
        ".OTHER.md.abcd1234.tmp",  # another notes file's
        ".NOTES.md.abcd1234.bak",
        ".NOTES.md.short.tmp",
        "NOTES.md.abcd1234.tmp",
    ]
    for name in keep:
        (tmp_path / name).write_text("x", encoding="utf-8")
        _age(tmp_path / name, 3_600)
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("do not touch", encoding="utf-8")
    (tmp_path / ".NOTES.md.link0000.tmp").symlink_to(outside)
    orphan = tmp_path / ".NOTES.md.q_9zk2ab.tmp"
    orphan.write_text("half", encoding="utf-8")
    _age(orphan, 3_600)
    assert NotesFile(tmp_path / "NOTES.md").removed_temporaries == 1
    assert not orphan.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [*keep, ".NOTES.md.link0000.tmp", "elsewhere.txt"]
    )
    assert outside.read_text(encoding="utf-8") == "do not touch"


def test_opening_in_a_folder_that_does_not_exist_yet_is_fine(tmp_path: Path) -> None:
    notes = NotesFile(tmp_path / "later" / "NOTES.md")
    assert notes.removed_temporaries == 0
    notes.write("made")
    assert notes.read() == "made"


def test_text_no_file_could_hold_is_named_and_the_old_notes_stay(tmp_path: Path) -> None:
    """A lone surrogate cannot be written as UTF-8: the error names the notes, the
    character and where it is (it was the codec's own error from inside the write)."""
    notes = NotesFile(tmp_path / "NOTES.md")
    notes.write("kept")
    with pytest.raises(
        ValueError, match=r"notes content holds a lone surrogate \(U\+D800\) at character 5"
    ):
        notes.write("step \ud800 done")
    assert notes.read() == "kept"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["NOTES.md"]


def test_the_tools_error_shows_its_input_briefly(tmp_path: Path) -> None:
    """A model's malformed call is named in a line, not by its whole input (10,000 chars)."""
    notes = NotesFile(tmp_path / "NOTES.md")
    with pytest.raises(ValueError, match="update_notes needs a string 'content'") as raised:
        notes.update_notes({"content": 5, "log": "y" * 10_000})
    assert len(str(raised.value)) < 300
