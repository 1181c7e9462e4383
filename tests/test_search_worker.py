"""docsite/search_worker.py: the theme's search worker is served with lunr's node keys
made unambiguous, or the build says why it cannot be."""

from __future__ import annotations

from pathlib import Path

import material
import pytest
from mkdocs.structure.files import File, Files

from docsite.search_worker import WORKER, on_files, read_as_words, unambiguous_token_set

THEME = Path(material.__file__).parent / "templates"


def test_the_theme_s_worker_gets_one_space_after_each_edge_s_node() -> None:
    workers = [
        path
        for path in THEME.rglob("search.*.min.js")
        if WORKER.fullmatch(path.relative_to(THEME).as_posix())
    ]
    assert len(workers) == 1, workers
    original = workers[0].read_text(encoding="utf-8")
    patched = unambiguous_token_set(original)
    assert patched.count('e=e+s+o.id+" "}return e}') == 1
    assert len(patched) == len(original) + len('+" "')


@pytest.mark.parametrize("times", [0, 2])
def test_a_worker_without_the_key_line_once_is_refused_with_its_count(times: int) -> None:
    worker = "var x=1;" + "e=e+s+o.id}return e}" * times
    with pytest.raises(ValueError, match=f"{times} times, not once"):
        unambiguous_token_set(worker)


def test_the_hook_serves_the_worker_patched_and_leaves_other_files_alone(tmp_path: Path) -> None:
    worker = next(THEME.rglob("search.*.min.js")).relative_to(THEME).as_posix()
    files = Files(
        [
            File(worker, str(THEME), str(tmp_path), True),
            File("index.md", "docs", str(tmp_path), True),
        ]
    )
    on_files(files, config=None)  # type: ignore[arg-type]  # the hook reads no setting
    served = files.get_file_from_path(worker)
    assert served is not None and served.content_string.count('o.id+" "') == 1
    assert served.content_string.count("search(e){if(e=e.replace(/-+(?=") == 1
    assert on_files(Files([]), config=None) is not None  # type: ignore[arg-type]


def test_the_worker_s_search_reads_the_query_as_words_first() -> None:
    worker = next(THEME.rglob("search.*.min.js")).read_text(encoding="utf-8")
    patched = read_as_words(worker)
    start = patched.index("search(e){if(")
    assert patched[start:].startswith('search(e){if(e=e.replace(/-+(?=\\s|$)/g,"")')
    # a `~` that no digit follows is a space before lunr reads it as an operator
    assert '.replace(/[~^](?!\\d)/g," ")' in patched[start : patched.index("p{sc=Han}", start)]
    with pytest.raises(ValueError, match=r"the start of search .* 2 times, not once"):
        read_as_words(worker + worker)
