"""Saved sessions of coding agents, each file read once: conversation and calls together.

`read_text(text, format)` reads one file's text, `read_sources(sources,
format)` a Claude Code session from several files (the session and its
sub-agents' files), `read_paths(paths, format)` the files and folders a bill
is asked for. Each gives a `Session`: the main conversation as `Layers`, the
sub-agents' `Thread`s, the compaction `Boundary`s, a run's `FinalOutput`, and
the API `Call`s with their usage. `load_transcript` (the conversation) and
`read_bill` (the calls) are its two faces, and `inspect` and `bill` print
them: one encoding rule, one thread naming, one compaction rule.

One module per format, each with a `read` function and a docstring saying
what it reads and what it skips:

- `claude_code`: Claude Code session files, sub-agents and compactions;
- `codex`: Codex CLI rollouts;
- `mini_swe_agent`: mini-swe-agent trajectories;
- `openhands`: OpenHands event lists;
- `openai_chat`: OpenAI Chat Completions messages;
- `own`: this package's own messages and layers files.

A call's usage, in whatever provider's words the file keeps it (Claude
Code's Messages API figures, Codex's totals, the LiteLLM figures of
mini-swe-agent and OpenHands), is read by the one usage reader,
`context_budget.usage.Usage.of`.

`detect` tells a file's format and hands it to its reader; `session` holds
the shapes; `text` the parsing, encoding and folder walk every reader shares;
`skips` names what a bill leaves out of a folder as it is (a half-written
line, a file that is not a session, an empty rollout).
"""

from __future__ import annotations

from context_budget.sessions.detect import (
    BILL_FORMATS,
    FORMATS,
    FormatError,
    check_format,
    detect_format,
    read_paths,
    read_sources,
    read_text,
)
from context_budget.sessions.session import (
    Boundary,
    Call,
    FinalOutput,
    Place,
    Session,
    Thread,
    ThreadId,
    ThreadKind,
    checked_layers,
)
from context_budget.sessions.text import Source, agent_meta, decode, description, session_files

__all__ = [
    "BILL_FORMATS",
    "FORMATS",
    "Boundary",
    "Call",
    "FinalOutput",
    "FormatError",
    "Place",
    "Session",
    "Source",
    "Thread",
    "ThreadId",
    "ThreadKind",
    "agent_meta",
    "check_format",
    "checked_layers",
    "decode",
    "description",
    "detect_format",
    "read_paths",
    "read_sources",
    "read_text",
    "session_files",
]
