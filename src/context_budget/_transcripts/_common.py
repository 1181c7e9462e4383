"""What every transcript reader shares: parsing that names the place, and the shapes read into.

A reader turns a file's text into a `Transcript`: the main conversation as
`Layers`, and beside it what the file held that is not the main conversation:
sub-agent threads (`Thread`), the compaction boundaries that split the main
conversation into segments (`Boundary`), and a run's final output (`FinalOutput`).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

from context_budget._checks import bad_scalar, check_message
from context_budget.layers import Layers
from context_budget.messages import Message

_KINDS = {
    dict: "an object",
    list: "a list",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


@dataclass(frozen=True)
class Thread:
    """A sub-agent's conversation, kept apart from the main one.

    Attributes:
        name: `agent-<id>` for a sub-agent's own file, `sidechain at line N`
            for one written inline in the session file (N: its first line).
        messages: its messages, in this package's shapes.
        description: what the main conversation asked of it (the `Task`
            call's description, or the `description` of its `.meta.json`), or "".
        file: the file it was read from.
    """

    name: str
    messages: list[Message]
    description: str = ""
    file: str = ""


@dataclass(frozen=True)
class Boundary:
    """A compaction boundary: where a new segment of the main conversation starts.

    Attributes:
        index: the index, in the main conversation, of the segment's first message.
        line: the boundary's line in the file (1-based).
        trigger: what started the compaction (`"auto"`, `"manual"`), or None.
        pre_tokens: the tokens before compaction, as the file records them, or None.
    """

    index: int
    line: int
    trigger: str | None = None
    pre_tokens: int | None = None


@dataclass(frozen=True)
class FinalOutput:
    """A run's final output, which is not a turn (mini-swe-agent's `role: "exit"`).

    Attributes:
        status: the exit status the run recorded, e.g. `"Submitted"`.
        text: the submission (a diff), or the message's content when there is none.
    """

    status: str
    text: str


@dataclass(frozen=True)
class Transcript:
    """A file read as layers, with what the reader found on the way.

    Attributes:
        layers: the main conversation's context.
        format: the format read, one of `FORMATS` but `"auto"`.
        detected: True when `format="auto"` chose it.
        skipped: records or events skipped as not messages (the formats of
            records and events only).
        threads: the sub-agent threads, in the order they start (claude-code).
        boundaries: the compaction boundaries in the main conversation (claude-code).
        final: the run's final output, when the file records one.
        files: the files read, the main one first.
    """

    layers: Layers
    format: str
    detected: bool
    skipped: int = 0
    threads: tuple[Thread, ...] = ()
    boundaries: tuple[Boundary, ...] = ()
    final: FinalOutput | None = None
    files: tuple[str, ...] = ()


def object_at(holder: dict[str, Any], key: str) -> dict[str, Any]:
    """`holder[key]` when it is an object, else an empty one (a field left out or null)."""
    value = holder.get(key)
    return value if isinstance(value, dict) else {}


def kind_of(value: object) -> str:
    return _KINDS.get(type(value), type(value).__name__)


def loads_json(text: str) -> object:
    """`json.loads`, with a number too long for Python refused as bad JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # subtle: int("9" * 5000) is refused by Python, not by the parser
        limit = sys.get_int_max_str_digits()
        raise ValueError(f"a number has more than {limit:,} digits, too long to read") from None
    except RecursionError:
        raise ValueError("the JSON is nested too deeply to read") from None


def try_json(text: str) -> tuple[object, bool]:
    """(the parsed document, True) or (None, False) when `text` is not one JSON document."""
    try:
        return loads_json(text), True
    except json.JSONDecodeError:
        return None, False


def strict_json(text: str) -> object:
    try:
        return loads_json(text)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None


def split_lines(text: str) -> list[str]:
    """The lines of JSON Lines text: split at line feeds only.

    A JSON string may hold U+2028, U+0085 or a form feed unescaped (JavaScript
    writers leave them so), which `str.splitlines` would take for line ends.
    """
    return [line.removesuffix("\r") for line in text.split("\n")]


def json_lines(text: str) -> list[tuple[int, dict[str, Any]]]:
    """The records of a JSON Lines text, each with its line number (1-based), blank lines aside."""
    records = []
    for number, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        try:
            record = loads_json(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"line {number}: not valid JSON: {error.msg}") from None
        except ValueError as error:
            raise ValueError(f"line {number}: {error}") from None
        if not isinstance(record, dict):
            raise ValueError(
                f"line {number}: expected a record (an object), found {kind_of(record)}"
            )
        records.append((number, record))
    return records


def checked_layers(layers: Layers) -> Layers:
    """The layers, once every message and every string in them is known to be sound."""
    for where, text in [("system", layers.system)] + [
        (f"pinned record {number}", record) for number, record in enumerate(layers.pinned)
    ]:
        if (problem := bad_scalar(text)) is not None:
            raise ValueError(f"{where}: {problem}")
    for index, message in enumerate(layers.conversation):
        check_message(message, index)
    return layers


def as_blocks(content: str | list[Any]) -> list[Any]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def count_of(count: int, word: str) -> str:
    """`3 records`, `1 record`: a count and its noun."""
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


def tally(kinds: dict[str, int]) -> str:
    """`{"summary": 1, "progress": 3}` as "progress 3, summary 1" (most first, then by name)."""
    return ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items(), key=_most))


def _most(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]
