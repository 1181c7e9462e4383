"""What a reader reads: no word about how the course was made, and no sentence against its numbers.

Two checks over the pages (``docs/**/*.md``, the notebooks' and figures'
``.py`` files) and the package (``src/``):

- **Internal words.** A reader never saw the documents the course was written
  from, nor its tracker: phrases such as "the seed", "seed 004", "the starter
  loop", "fact sheet" or "(issue 9)" mean nothing to them. A random seed
  (``seed=``, ``SEED = 20260512``, ``--hypothesis-seed``) is part of the lessons
  and stays. An outside measurement is named by where it was published.
- **Sentences tied to their numbers.** Each sentence listed in ``CLAIMS`` states
  a number (or a comparison) that a run computes; the test runs it and checks
  the sentence says what the run shows.

Each check is shown to fail on a fixture page in ``tests/fixtures/pages``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FIXTURES = Path(__file__).parent / "fixtures" / "pages"

# --- internal words -------------------------------------------------------------------

#: (what it is, pattern): phrases that speak of the course's making, not of its subject.
INTERNAL: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("the specification documents", re.compile(r"\bthe seeds?\b(?!\s*[=:(])", re.IGNORECASE)),
    ("a specification document's", re.compile(r"\bseed['\u2019]s\b", re.IGNORECASE)),
    ("a numbered specification", re.compile(r"\bseeds?\s+0\d\d\b", re.IGNORECASE)),
    ("the code the course began from", re.compile(r"\bstarter[ _-]?(loop|code)\b", re.IGNORECASE)),
    ("the code the course began from", re.compile(r"\bthis course began\b", re.IGNORECASE)),
    ("the notes the course was written from", re.compile(r"\bfact[ -]sheets?\b", re.IGNORECASE)),
    ("an issue of the tracker", re.compile(r"\(issues? #?\d+\)|\bissue #?\d+:", re.IGNORECASE)),
    (
        "a file outside the repository",
        re.compile(r"HARNESS-CACHE|ANCHORS\.md|DOCS-TOOLING|COURSE\.md|\.\./shared\b|\bshared/seeds"),
    ),
)
#: An upper-case name with SEED in it is a random seed only when it is set to a number.
_SEED_NAME = re.compile(r"\b_?[A-Z_]*SEEDS?[A-Z_]*\b")
_SEED_NUMBER = r"\b{}\s*(?::\s*int\s*)?=\s*[0-9_]+\b"


@dataclass(frozen=True)
class Finding:
    """One internal word: the file, its line number (from 1), what it is, the line."""

    path: Path
    line: int
    what: str
    text: str

    def __str__(self) -> str:
        where = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{where}:{self.line}: {self.what}: {self.text.strip()}"


def internal_words(path: Path) -> list[Finding]:
    """Every line of `path` that speaks of how the course was made, with what it says."""
    text = path.read_text(encoding="utf-8")
    numbers = {name for name in set(_SEED_NAME.findall(text)) if re.search(_SEED_NUMBER.format(name), text)}
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for what, pattern in INTERNAL:
            if pattern.search(line):
                found.append(Finding(path, number, what, line))
                break
        else:
            names = set(_SEED_NAME.findall(line)) - numbers
            if names:
                found.append(Finding(path, number, f"a name for a specification ({min(names)})", line))
    return found


def reader_files() -> Iterator[Path]:
    """The pages, notebooks and figures of the site, the package, and the site's config."""
    yield from sorted(DOCS.rglob("*.md"))
    for folder in ("notebooks", "figures"):
        yield from sorted((DOCS / folder).glob("*.py"))
    yield from sorted((ROOT / "src").rglob("*.py"))
    yield ROOT / "mkdocs.yml"


def test_the_words_check_flags_every_line_of_the_fixture() -> None:
    fixture = FIXTURES / "internal_words.md"
    bullets = [
        n for n, line in enumerate(fixture.read_text().splitlines(), 1) if line.startswith("- ")
    ]
    assert len(bullets) >= 10
    assert [f.line for f in internal_words(fixture)] == bullets


def test_random_seeds_are_not_internal_words() -> None:
    assert [str(f) for f in internal_words(FIXTURES / "random_seeds.md")] == []


def test_no_reader_page_or_module_speaks_of_how_the_course_was_made() -> None:
    files = list(reader_files())
    assert len(files) > 60, "the scan must see the pages and the package"
    found = [str(f) for path in files for f in internal_words(path)]
    assert found == [], "\n".join(found)
