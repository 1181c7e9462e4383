"""A simulated model that works the incident-report task from the request alone.

`SimulatedModel.respond(request)` takes the keyword arguments of one Messages
API call (`system`, `tools`, `messages`, `max_tokens`, `tool_choice`, ...)
and returns the API's response JSON. Like a real model it keeps nothing between
calls: everything it does follows from what the request shows it, so a new
instance for every call gives the same run as one instance kept for all of them.

What it reads in the request:

- the file names: from a visible `list_files` result, its own plan line (an
  assistant text, which clearing never removes), or a `Still to read:` line;
- reports in full: any text in a user message from `INCIDENT REPORT INC-n` to
  `END OF REPORT INC-n` with its `Service:`, `Downtime:` and `Cause category:`
  fields; a tool result that no longer holds that text counts as cleared,
  whatever its placeholder says;
- its notes: the `note` input of its own `save_note` calls (unless the result
  was an error), and the lines under a `Saved notes:` heading in user text;
- remembered facts: other note-shaped lines in user text, such as the facts a
  progress summary carried into a restart.

What it does, in this order:

1. Tools off (`tools` absent or empty, or `tool_choice` `{"type": "none"}`,
   or the last user message says in words not to call any tool) and the last
   user message asks for a summary: a progress summary (reports
   done, facts not yet in notes, files still to read) within the word limit
   the question states (`under N words`). Facts that do not fit are left out
   and nothing else keeps them: a summary's brevity bias.
2. Tools off otherwise: the answer, from what it knows.
3. With `save_note`: one note per report it sees in full and has not noted,
   and one per remembered fact not yet noted (marked `(from memory, ...)`).
   Then up to `reads_per_step` `read_file` calls, in file order, for reports
   it has no note on and cannot see; reports read before (their results were
   cleared) come first in line but last in the response, so their results
   are the freshest. Without `save_note` it reads every report it can neither
   see nor remember.
4. Knowing no file name and no fact at all: `list_files` instead of reads.
5. Nothing left to note or read: the answer (`end_turn`), computed from its
   facts: the service with the most minutes, its total, and the cause with
   the most of those minutes. It says so when some figures came from memory,
   when it had to read reports again, and when some reports are missing.

A report it has asked for `max_reads` times, or whose read returned an error,
is given up on (and named in the answer), so every run ends.

For a client that clears results on the server's behalf: a cleared
`tool_result` may hold any text (or none) that is not the report; keep the
`tool_use` blocks' inputs (so it can count its reads), above all those of
`save_note`, which are its notes. A `compaction` block in an assistant
message is read like a restart message's summary. Parsing is cached by text, which
saves time and changes nothing: the same text always gives the same facts.

Examples:
    >>> model = SimulatedModel()
    >>> request = {"messages": [{"role": "user", "content": "Which service?"}],
    ...            "tools": [{"name": "list_files", "input_schema": {"type": "object"}}]}
    >>> reply = model.respond(request)
    >>> reply["stop_reason"], [block["type"] for block in reply["content"]]
    ('tool_use', ['text', 'tool_use'])
    >>> reply["content"][1]["name"], reply == SimulatedModel().respond(request)
    ('list_files', True)
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from context_budget._checks import bad_scalar
from context_budget._json import canonical_json
from context_budget._values import short_repr
from context_budget.tokens import estimate_tokens

__all__ = ["SimulatedModel"]

# A report in full: the header line, the body, the closing line of the same id.
_REPORT = re.compile(r"^INCIDENT REPORT (INC-\d+)[ \t]*$(.*?)^END OF REPORT \1[ \t]*$", re.M | re.S)
_FIELD = {
    "service": re.compile(r"^Service:[ \t]*(\S[^\n]*?)[ \t]*$", re.M),
    "minutes": re.compile(r"^Downtime:[ \t]*(\d+) minutes?\b", re.M),
    "cause": re.compile(r"^Cause category:[ \t]*(\S[^\n]*?)[ \t]*$", re.M),
}
# A note, "INC-1007: auth, 42 min, bad deploy", maybe with the memory marker after it.
_NOTE = re.compile(
    r"^[ \t]*(?:[-*][ \t]*)?(INC-\d+):[ \t]*([^,\n]+?),[ \t]*(\d+)[ \t]*min(?:utes)?,"
    r"[ \t]*([^\n(]+?)[ \t]*(\(from memory[^\n)]*\))?[ \t]*$",
    re.M,
)
_FILE = re.compile(r"\bINC-\d+\.md\b")
_REPORT_ID = re.compile(r"\bINC-\d+")
_SUMMARY_ASKED = re.compile(r"\bsummar(?:y|ies|ise|ize|ising|izing)\b", re.I)
_WORD_LIMIT = re.compile(
    r"\b(?:under|at most|no more than|fewer than|within)\s+(\d+)\s+words", re.I
)
# "do not call any tools", "don't use tools", "without calling tools", "no tool calls"
_NO_TOOLS = re.compile(
    r"\b(?:(?:do not|don't|without)\s+(?:call|use|calling|using)\s+(?:any\s+)?tools?"
    r"|no\s+tool\s+(?:calls|use))\b",
    re.I,
)
_TOTAL = re.compile(r"^Progress: \d+ of (\d+) reports", re.M)
_NOTES_HEADING = "Saved notes:"
_TO_READ = "Still to read:"
_PLAN = "Reports to read:"
_MEMORY_MARK = "(from memory, report not in view)"


class _Fact(NamedTuple):
    report: str  # "INC-1007"
    service: str
    minutes: int  # minutes of downtime
    cause: str
    from_memory: bool  # written or known without the report in view

    def note(self) -> str:
        line = f"{self.report}: {self.service}, {self.minutes} min, {self.cause}"
        return f"{line} {_MEMORY_MARK}" if self.from_memory else line


@dataclass
class _View:
    """What one request shows the model; built fresh for every call."""

    tools: set[str] = field(default_factory=set)
    tools_on: bool = False
    summary_asked: bool = False
    word_limit: int | None = None
    files: list[str] = field(default_factory=list)  # in file order
    listing_in_last_message: bool = False
    seen: dict[str, _Fact] = field(default_factory=dict)  # reports in full
    notes: dict[str, _Fact] = field(default_factory=dict)
    remembered: dict[str, _Fact] = field(default_factory=dict)
    reads: dict[str, int] = field(default_factory=dict)  # file name -> read_file calls
    failed: set[str] = field(default_factory=set)  # file names whose read was an error
    total_hint: int = 0  # reports in all, as a progress summary gave it
    listings: int = 0  # list_files calls
    tool_uses: int = 0
    turns: int = 0  # assistant messages


def _file_id(name: str) -> str:
    found = _REPORT_ID.search(name)
    return found.group() if found else name


def _text_of(content: object, where: str) -> str:
    """The text of a `tool_result`'s content: a str or a list of text blocks."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            block["text"]
            for block in content
            if isinstance(block, Mapping) and block.get("type") == "text"
            if isinstance(block.get("text"), str)
        )
    raise TypeError(
        f"{where}: tool_result content must be a str or a list, got {short_repr(content)}"
    )


def _blocks(message: Mapping[str, Any], index: int) -> list[Mapping[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise TypeError(f"message {index}: content must be a str or a list of blocks")
    for number, block in enumerate(content):
        if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
            raise TypeError(
                f"message {index}, block {number}: not a content block: {short_repr(block)}"
            )
    return content


def _facts_in_report(report: str, body: str) -> _Fact | None:
    found = {name: pattern.search(body) for name, pattern in _FIELD.items()}
    service, minutes, cause = found["service"], found["minutes"], found["cause"]
    if service is None or minutes is None or cause is None:
        return None
    return _Fact(report, service.group(1), int(minutes.group(1)), cause.group(1), False)


def _note_facts(text: str) -> list[_Fact]:
    return [
        _Fact(m.group(1), m.group(2).strip(), int(m.group(3)), m.group(4).strip(), bool(m.group(5)))
        for m in _NOTE.finditer(text)
    ]


class _TextFacts(NamedTuple):
    """What one user text holds; a pure function of the text."""

    seen: tuple[_Fact, ...]  # reports in full
    notes: tuple[_Fact, ...]  # lines under "Saved notes:"
    remembered: tuple[_Fact, ...]  # other note-shaped lines
    files: tuple[str, ...]  # names on "Still to read:" lines
    total: int  # the largest "of N reports" in a progress line, else 0


@functools.lru_cache(maxsize=4096)
def _parse_text(text: str) -> _TextFacts:
    """Parse one user text. Cached by the text alone: a speed-up, not a memory,
    since the same text always gives the same facts."""
    seen = []
    if "INCIDENT REPORT" in text:
        for match in _REPORT.finditer(text):
            fact = _facts_in_report(match.group(1), match.group(2))
            if fact is not None:
                seen.append(fact)
    head, _, notes = text.partition(_NOTES_HEADING)
    files = [
        name
        for line in head.splitlines()
        if line.strip().startswith(_TO_READ)
        for name in _FILE.findall(line)
    ]
    totals = [int(total) for total in _TOTAL.findall(head)]
    return _TextFacts(
        tuple(seen),
        tuple(_note_facts(notes)),
        tuple(_note_facts(head)) if not seen else (),  # subtle: a report holds no notes
        tuple(files),
        max(totals, default=0),
    )


def _read_user_text(text: str, view: _View) -> None:
    """Add the reports, saved notes, remembered facts and file names in a user's text."""
    found = _parse_text(text)
    for fact in found.seen:
        view.seen[fact.report] = fact
    for fact in found.notes:
        view.notes.setdefault(fact.report, fact)
    for fact in found.remembered:
        view.remembered.setdefault(fact.report, fact)
    _add_files(view, found.files)
    view.total_hint = max(view.total_hint, found.total)


def _add_files(view: _View, names: Sequence[str]) -> None:
    for name in names:
        if name not in view.files:
            view.files.append(name)


@dataclass
class _Calls:
    """A request's tool calls read so far.

    Attributes:
        uses: tool_use id -> (tool name, its input).
        notes: tool_use id -> the note a `save_note` call saves, until its result
            says it failed.
    """

    uses: dict[str, tuple[str, Mapping[str, Any]]] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)


def _read_request(request: Mapping[str, Any]) -> _View:
    """Everything the model uses from one request, checked as it is read."""
    view = _View()
    _read_tools(request, view)
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ValueError("messages must be a non-empty list of messages")
    calls = _Calls()
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping) or message.get("role") not in ("user", "assistant"):
            raise ValueError(f"message {index}: needs role 'user' or 'assistant'")
        last = index == len(messages) - 1
        if message["role"] == "assistant":
            _read_assistant(message, index, view, calls)
            continue
        if last:
            _read_last_ask(message, index, view)
        _read_user(message, index, view, calls, last)
    for note in calls.notes.values():
        for fact in _note_facts(note):
            view.notes.setdefault(fact.report, fact)
    return view


def _read_tools(request: Mapping[str, Any], view: _View) -> None:
    """The tools offered, and whether the model may call them (`tool_choice` not none)."""
    tools = request.get("tools")
    tools = [] if tools is None else tools
    if not isinstance(tools, list):
        raise TypeError(f"tools must be a list of tool definitions, got {type(tools).__name__}")
    view.tools = {tool["name"] for tool in tools if isinstance(tool, Mapping) and "name" in tool}
    choice = request.get("tool_choice")
    view.tools_on = bool(view.tools) and not (
        isinstance(choice, Mapping) and choice.get("type") == "none"
    )


def _read_assistant(message: Mapping[str, Any], index: int, view: _View, calls: _Calls) -> None:
    """An assistant turn: its plan's files, a server-side summary, its tool calls (noted
    in `calls`)."""
    view.turns += 1
    for block in _blocks(message, index):
        if block["type"] == "text" and isinstance(block.get("text"), str):
            for line in block["text"].splitlines():
                if line.startswith(_PLAN):
                    _add_files(view, _FILE.findall(line))
        elif block["type"] == "compaction" and isinstance(block.get("content"), str):
            _read_user_text(block["content"], view)  # a server-side summary
        elif block["type"] == "tool_use":
            view.tool_uses += 1
            name, arguments = block.get("name"), block.get("input")
            arguments = arguments if isinstance(arguments, Mapping) else {}
            calls.uses[str(block.get("id"))] = (str(name), arguments)
            path = arguments.get("path")
            if name == "read_file" and isinstance(path, str):
                view.reads[path] = view.reads.get(path, 0) + 1
            view.listings += name == "list_files"
            note = arguments.get("note")
            if name == "save_note" and isinstance(note, str):
                calls.notes[str(block.get("id"))] = note


def _read_last_ask(message: Mapping[str, Any], index: int, view: _View) -> None:
    """What the last user message asks in words: a summary, no tools, a word limit."""
    asked = " ".join(str(b.get("text")) for b in _blocks(message, index) if b["type"] == "text")
    view.summary_asked = bool(_SUMMARY_ASKED.search(asked))
    if view.summary_asked and _NO_TOOLS.search(asked):
        view.tools_on = False  # asked in words: the tools stay, unused
    limit = _WORD_LIMIT.search(asked)
    view.word_limit = int(limit.group(1)) if limit else None


def _read_user(
    message: Mapping[str, Any], index: int, view: _View, calls: _Calls, last: bool
) -> None:
    """A user turn's text and tool results; a failed call's note dropped and its file
    marked failed."""
    for number, block in enumerate(_blocks(message, index)):
        if block["type"] == "text" and isinstance(block.get("text"), str):
            _read_user_text(block["text"], view)
        elif block["type"] == "tool_result":
            where = f"message {index}, block {number}"
            text = _text_of(block.get("content"), where)
            name, arguments = calls.uses.get(str(block.get("tool_use_id")), ("", {}))
            if block.get("is_error") is True:
                calls.notes.pop(str(block.get("tool_use_id")), None)
                if name == "read_file" and isinstance(arguments.get("path"), str):
                    view.failed.add(arguments["path"])
                continue
            if name == "list_files":
                _add_files(view, _FILE.findall(text))
                view.listing_in_last_message |= last
            _read_user_text(text, view)


@dataclass(frozen=True)
class SimulatedModel:
    """A deterministic stand-in for a model on the incident-report task.

    It holds only settings, never state: `respond` is a pure function of the
    request and these settings.

    Attributes:
        reads_per_step: `read_file` calls per response (parallel tool uses), >= 1.
        max_reads: how many times it asks for one report before giving up, >= 1.
        model: the `model` it reports when the request names none.
    """

    reads_per_step: int = 2
    max_reads: int = 3
    model: str = "simulated-analyst"

    def __post_init__(self) -> None:
        for name in ("reads_per_step", "max_reads"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, got {short_repr(value)}")

    def __call__(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The same as `respond`, so the model can be passed as a function."""
        return self.respond(request)

    def respond(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The response to one request, as the Messages API returns it (JSON).

        Args:
            request: the keyword arguments of one `messages.create` call:
                `messages` (required; the last one the user's), and optionally
                `tools`, `tool_choice`, `max_tokens`, `model`, `system` (read
                for nothing but its presence).

        Returns:
            `{"id", "type": "message", "role": "assistant", "model",
            "content": [blocks], "stop_reason": "tool_use" | "end_turn" |
            "max_tokens", "stop_sequence": None, "usage": {"input_tokens",
            "output_tokens"}}`. `input_tokens` is a rough estimate (tokens of
            the request's JSON), for a caller's cache model to replace;
            `output_tokens` is `estimate_tokens` of the text written plus the
            JSON of each tool use's name and input.

        Raises:
            TypeError: the request or one of its messages has the wrong shape;
                the message names where.
            ValueError: no messages, a role other than user or assistant, or a
                last message that is not the user's.
        """
        if not isinstance(request, Mapping):
            raise TypeError(
                f"request must be a mapping of keyword arguments, got {short_repr(request)}"
            )
        view = _read_request(request)
        messages = request["messages"]
        if messages[-1]["role"] != "user":
            raise ValueError(f"message {len(messages) - 1}: the last message must be the user's")
        text, uses = self._decide(view)
        canonical = _canonical(request)
        digest = hashlib.sha256(canonical.encode()).hexdigest()
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        for number, (name, arguments) in enumerate(uses):
            use_id = f"toolu_{view.tool_uses + number + 1:03d}_{digest[:8]}"
            content.append({"type": "tool_use", "id": use_id, "name": name, "input": arguments})
        output = estimate_tokens(text) + sum(
            estimate_tokens(json.dumps({"name": name, "input": arguments}, ensure_ascii=False))
            for name, arguments in uses
        )
        stop = "tool_use" if uses else "end_turn"
        limit = request.get("max_tokens")
        if isinstance(limit, int) and not isinstance(limit, bool) and 0 <= limit < output:
            content, output, stop = (
                [{"type": "text", "text": text[: 4 * limit]}],
                limit,
                "max_tokens",
            )
            if not text[: 4 * limit]:
                content = []
        model = request.get("model")
        return {
            "id": f"msg_sim_{digest[:20]}",
            "type": "message",
            "role": "assistant",
            "model": model if isinstance(model, str) else self.model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": estimate_tokens(canonical),
                "output_tokens": output,
            },
        }

    def _decide(self, view: _View) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
        """The text to write and the tool uses to make, from one request's view."""
        if not view.tools_on:
            return (_summary(view) if view.summary_asked else _answer(view)), []
        with_notes = "save_note" in view.tools
        known = view.notes if with_notes else _facts(view)
        to_note: list[_Fact] = []
        if with_notes:
            for report, fact in [*view.seen.items(), *view.remembered.items()]:
                if report not in known and report not in {f.report for f in to_note}:
                    to_note.append(fact if report in view.seen else fact._replace(from_memory=True))
        uses: list[tuple[str, dict[str, Any]]] = [
            ("save_note", {"note": f.note()}) for f in to_note
        ]
        facts = len(known) + len(to_note)
        if (
            not view.files
            and "list_files" in view.tools
            and view.listings < self.max_reads
            and facts == 0
        ):
            uses.append(("list_files", {}))
            return "I'll start by listing the reports.", uses
        noting = {fact.report for fact in to_note}
        exhausted = view.turns >= 4 * max(len(view.files), 1) + 8  # a guard: every run ends
        wanted = [
            name
            for name in view.files
            if _file_id(name) not in known
            and _file_id(name) not in noting
            and not (with_notes and _file_id(name) in view.seen)
            and name not in view.failed
            and view.reads.get(name, 0) < self.max_reads
            and "read_file" in view.tools
            and not exhausted
        ]
        # Reads again come first in line but last in the response, so their results
        # are the freshest ones and survive a clearing that keeps only the latest few.
        wanted.sort(key=lambda name: view.reads.get(name, 0) == 0)
        reads = sorted(wanted[: self.reads_per_step], key=lambda name: view.reads.get(name, 0) > 0)
        if not uses and not reads:
            return _answer(view), []
        uses += [("read_file", {"path": name}) for name in reads]
        return _step_text(view, to_note, reads), uses


def _canonical(request: Mapping[str, Any]) -> str:
    """The request's canonical JSON, which the model hashes (UTF-8) for its ids."""
    try:
        text = canonical_json(request)
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"the request must be JSON data (dicts, lists, str, numbers): {error}"
        ) from None
    problem = bad_scalar(text)
    if problem is not None:  # a lone surrogate: no request could carry it
        raise TypeError(f"the request must be JSON data UTF-8 can encode: {problem}")
    return text


def _names(reports: Sequence[str]) -> str:
    """`INC-1`, `INC-1 and INC-2`, `INC-1, INC-2 and INC-3`; past 8, a count and the ends."""
    items = list(reports)
    if len(items) > 8:
        return f"{len(items)} reports between {items[0]} and {items[-1]}"
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _count(incidents: int) -> str:
    return f"{incidents} incident" if incidents == 1 else f"{incidents} incidents"


def _step_text(view: _View, to_note: Sequence[_Fact], reads: Sequence[str]) -> str:
    parts = []
    if view.listing_in_last_message:
        parts.append(f"{_PLAN} {', '.join(view.files)}.")
    fresh = [fact.report for fact in to_note if not fact.from_memory]
    recalled = [fact.report for fact in to_note if fact.from_memory]
    if fresh:
        parts.append(f"Noting {_names(fresh)}.")
    if recalled:
        parts.append(f"Noting {_names(recalled)} from my summary; the reports are out of view.")
    again = [_file_id(name) for name in reads if view.reads.get(name, 0) > 0]
    if len(again) == 1:
        parts.append(f"The result for {again[0]} is gone, so I'm reading it again.")
    elif again:
        parts.append(f"The results for {_names(again)} are gone, so I'm reading them again.")
    if reads:
        parts.append(f"Reading {_names(reads)}.")
    return " ".join(parts)


def _facts(view: _View) -> dict[str, _Fact]:
    """report -> the best fact known: the report itself, else a note, else memory."""
    merged = {report: fact._replace(from_memory=True) for report, fact in view.remembered.items()}
    merged.update(view.notes)
    merged.update(view.seen)
    return merged


def _summary(view: _View) -> str:
    """A progress summary: what is done, facts not yet in notes, files still to read.

    Facts that would take it past the question's word limit are left out, and
    nothing else remembers them: that is the summary's brevity bias, and the
    answer later says how many reports its figures lack.
    """
    facts = _facts(view)
    with_notes = _notes_mode(view)
    done = view.notes if with_notes else facts
    pending = [fact for report, fact in facts.items() if not with_notes or report not in done]
    unread = [name for name in view.files if _file_id(name) not in facts]
    lines = [f"Progress: {len(done)} of {_total(view, facts)} reports done."]
    heading = "Facts not yet in my notes:" if with_notes else "Facts so far:"
    kept: list[str] = []
    for fact in pending:
        line = fact._replace(from_memory=False).note()
        trial = [*lines, heading, *kept, line, _to_read(unread)]
        if view.word_limit is None or len(" ".join(trial).split()) <= view.word_limit:
            kept.append(line)
    if kept:
        lines += [heading, *kept]
    if unread:
        lines.append(_to_read(unread))
    return "\n".join(lines)


def _notes_mode(view: _View) -> bool:
    return "save_note" in view.tools or bool(view.notes)


def _total(view: _View, facts: Mapping[str, _Fact]) -> int:
    """How many reports there are, as far as the request shows."""
    return max(len({_file_id(name) for name in view.files} | facts.keys()), view.total_hint)


def _to_read(names: Sequence[str]) -> str:
    return f"{_TO_READ} {', '.join(names)}" if names else ""


def _answer(view: _View) -> str:
    """The final answer from the facts in view, with what it could not check."""
    facts = _facts(view)
    if not facts:
        return "I could not see any incident report, so I cannot tell which service was down most."
    return " ".join([*_ranking(facts), *_caveats(view, facts)])


def _ranking(facts: Mapping[str, _Fact]) -> list[str]:
    """The service with the most downtime, its main cause, and the runner-up."""
    totals: dict[str, list[_Fact]] = {}
    for fact in facts.values():
        totals.setdefault(fact.service, []).append(fact)
    ranked = sorted(totals, key=lambda service: (-sum(f.minutes for f in totals[service]), service))
    top = totals[ranked[0]]
    causes: dict[str, list[_Fact]] = {}
    for fact in top:
        causes.setdefault(fact.cause, []).append(fact)
    cause = min(causes, key=lambda name: (-sum(f.minutes for f in causes[name]), name))
    minutes = sum(f.minutes for f in top)
    parts = [
        f"{ranked[0]} had the most downtime: {minutes} minutes over {_count(len(top))}. "
        f"Most of it came from {cause} ({sum(f.minutes for f in causes[cause])} minutes "
        f"in {_count(len(causes[cause]))})."
    ]
    if len(ranked) > 1:
        second = ranked[1]
        parts.append(f"Next was {second} with {sum(f.minutes for f in totals[second])} minutes.")
    return parts


def _caveats(view: _View, facts: Mapping[str, _Fact]) -> list[str]:
    """What the answer could not check: figures from memory, reports read twice, reports
    missing."""
    parts = []
    recalled = sorted(report for report, fact in facts.items() if fact.from_memory)
    if recalled and _notes_mode(view):
        parts.append(
            f"I noted {_names(recalled)} after their reports had left my context, working "
            "from my own summary, so those figures are unchecked; read those reports again "
            "before trusting the result."
        )
    elif recalled:
        parts.append(
            f"The figures for {_names(recalled)} come from my own progress summary, not from "
            "the reports; read those reports again before trusting the result."
        )
    again = sorted(_file_id(name) for name, count in view.reads.items() if count > 1)
    if again:
        parts.append(
            f"I had to read {_names(again)} again, because "
            f"{'its result was' if len(again) == 1 else 'their results were'} cleared "
            f"before I could {'note' if _notes_mode(view) else 'use'} them."
        )
    missing = [_file_id(name) for name in view.files if _file_id(name) not in facts]
    if missing:
        parts.append(
            f"I could not see {_names(missing)} in full, so they are missing from these "
            "totals and the answer may be wrong."
        )
    elif _total(view, facts) > len(facts):
        parts.append(
            f"My figures cover only {len(facts)} of the {_total(view, facts)} reports, "
            "so the answer may be wrong."
        )
    return parts
