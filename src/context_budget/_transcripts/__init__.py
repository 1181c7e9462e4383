"""The readers behind `load_transcript`, one module per family of files.

- `_common`: what every reader shares: JSON parsing that names the place, the
  checks on messages, and `Transcript`, `Thread` and `Boundary`, the shapes
  a file is read into;
- `_claude_code`: Claude Code session files, with their sub-agent threads and
  compaction boundaries;
- `_openai`: OpenAI Chat Completions messages and mini-swe-agent trajectories;
- `_codex`: Codex CLI rollouts;
- `_openhands`: OpenHands event lists.

The modules are private; the names inside them are public, for the package's
own use (`transcripts`, the `inspect` command).
"""
