"""Writing a file whole or not at all: the one way the package (and its tools) write a file.

`write_atomic(path, text)` writes `text` to a temporary file beside `path`
(`.NAME.<8 random characters>.tmp`), flushes it to disk and renames it over
`path` in one step. A reader sees the old file or the new one, never part of
either; a writer killed half-way leaves the old file as it was (and its
temporary file, which `is_temporary` recognizes; the writer holds an
exclusive `flock` on it while it lives, where the system has `flock`).

The file mode is the one policy for every file written so (notes, evidence,
the bill's page, the benchmark tables): the mode a plain `open(path, "w")`
gives. A file that exists keeps its mode; a new one gets 0o666 less the
process's umask (0o644 under the usual umask 022), the kernel applying the
umask as it does to any new file. Nothing is made private that a plain write
would share, or shared that was private.

The text is written exactly as given (no newline translation), in UTF-8
unless told otherwise. As with a plain write, a symbolic link is written
through (the file it points to is replaced, the link stays); a path that names
a folder, or something that is not a regular file (a device such as
`/dev/null`, a named pipe, a socket), is refused, never renamed over.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["is_temporary", "write_atomic"]

_CHUNK_CHARS = 1 << 16  # characters encoded and written at a time, so a long text is not copied
_TRIES = 100  # temporary names tried before giving up (each is 32 random bits)
#: What the random part of a temporary name may be made of: `bytes.hex`'s digits
#: and, for the files of earlier versions, `tempfile.mkstemp`'s letters.
_RANDOM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


def is_temporary(name: str, target: str) -> bool:
    """Whether the file name `name` is a temporary file `write_atomic` makes for `target`.

    Examples:
        >>> is_temporary(".NOTES.md.0a1b2c3d.tmp", "NOTES.md"), is_temporary("NOTES.md", "NOTES.md")
        (True, False)
    """
    prefix = f".{target}."
    if not (name.startswith(prefix) and name.endswith(".tmp")):
        return False
    middle = name[len(prefix) : -len(".tmp")]
    return len(middle) == 8 and set(middle) <= _RANDOM


def _random_part() -> str:
    """Eight random hexadecimal digits (32 bits from the system's source), for a name."""
    return os.urandom(4).hex()


def _temporary(target: Path) -> tuple[int, Path]:
    """A new temporary file beside `target`, open for writing: (descriptor, path)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(_TRIES):
        path = target.with_name(f".{target.name}.{_random_part()}.tmp")
        try:
            # subtle: 0o666 here, and the kernel takes the umask off, as for any new file
            return os.open(path, flags, 0o666), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {target} after {_TRIES} tries")


def _destination(path: Path) -> tuple[Path, int | None]:
    """The file a write to `path` replaces, through any link, and its mode (None: a new file).

    Raises:
        IsADirectoryError: `path` names a folder (`""`, `.`, `..` among them).
        OSError: `path` is there and is not a regular file (a device, a pipe, a socket).
    """
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        found = os.stat(target)
    except FileNotFoundError:
        if target.name in ("", ".", ".."):  # a folder's name, even where it is gone
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path)) from None
        return target, None
    if stat.S_ISDIR(found.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if not stat.S_ISREG(found.st_mode):
        raise OSError(errno.EINVAL, "not a regular file, so not replaced", str(path))
    return target, found.st_mode & 0o777


def write_atomic(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> Path:
    """Replace the file at `path` with `text`, whole or not at all; the path written.

    Args:
        path: the file to write; its folder must exist.
        text: the whole new content, written exactly as given.
        encoding: the text's encoding on disk.

    Returns:
        `path`, as a `Path`.

    Raises:
        TypeError: `text` is not a str.
        IsADirectoryError: `path` names a folder.
        OSError: the folder is missing or cannot be written, or `path` is not a
            regular file (nothing is left behind, nothing is replaced).
        UnicodeEncodeError: `text` cannot be encoded (the old file stays as it was).
    """
    if not isinstance(text, str):
        raise TypeError(f"the text to write must be a str, got {type(text).__name__}")
    target, mode = _destination(Path(path))
    descriptor, temporary = _temporary(target)
    try:
        if fcntl is not None:
            # held until the file is closed, or the writer dies; a file system without
            # locks only means a cleaner cannot tell this file from a dead writer's
            with contextlib.suppress(OSError):
                fcntl.flock(descriptor, fcntl.LOCK_EX)
        if mode is not None:  # an existing file keeps its mode
            os.chmod(descriptor if os.chmod in os.supports_fd else temporary, mode)
        with os.fdopen(descriptor, "w", encoding=encoding, newline="") as handle:
            for start in range(0, len(text), _CHUNK_CHARS):
                handle.write(text[start : start + _CHUNK_CHARS])
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)  # subtle: the only step that changes what readers see
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return Path(path)
