"""The site's contents are whole: every page is in the nav and in its part's table, and
every directive a page uses is in the contributing page's table (`docsite.contents`)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from mkdocs.utils.yaml import yaml_load

from context_budget import cli
from docsite.contents import (
    directive_problems,
    directive_rows,
    directives,
    linked_pages,
    nav_parts,
    nav_problems,
    site_pages,
)

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FIXTURE = Path(__file__).parent / "fixtures" / "site" / "docs"
#: The fixture's nav: a part with an index page, a part without one, and a page that is not.
FIXTURE_NAV: list[object] = [
    {"Home": "index.md"},
    {"A part": ["part/index.md", {"A": "part/a.md"}, {"B": "part/b.md"}]},
    {"No index": [{"Lab": "notebooks/listed.py"}, "notebooks/unlisted.py", "measured/speed.md"]},
    {"Gone": "gone.md"},
]


def _nav() -> list[object]:
    with (ROOT / "mkdocs.yml").open(encoding="utf-8") as config:
        nav: list[object] = yaml_load(config)["nav"]
    return nav


def test_every_page_is_in_the_nav_and_in_its_parts_table() -> None:
    assert nav_problems(_nav(), DOCS) == []


def test_the_check_reads_every_page_and_every_part() -> None:
    """Not an empty pass: the pages it reads are the site's, lessons included."""
    pages = site_pages(DOCS)
    assert {"index.md", "contributing.md", "budget/tokens.md", "notebooks/the-bill.py"} <= set(
        pages
    )
    assert not any(page.startswith(("figures/", "javascripts/")) for page in pages)
    parts = dict(nav_parts(_nav()))
    assert parts["I. The budget"][0] == "budget/index.md"
    assert "notebooks/the-bill.py" in parts["I. The budget"]


def test_a_page_missing_from_the_nav_or_its_index_is_named() -> None:
    assert nav_problems(FIXTURE_NAV, FIXTURE) == [
        "stray.md: not in mkdocs.yml's nav",
        "gone.md: in the nav, but no such page",
        "part/b.md: in part 'A part' of the nav, but part/index.md does not link to it",
        "notebooks/unlisted.py: in part 'No index' of the nav, but index.md does not link to it",
        "measured/speed.md: in part 'No index' of the nav, but index.md does not link to it",
    ]


def test_links_resolve_from_the_pages_folder() -> None:
    text = (
        "[a](a.md) [up](../notebooks/lab.py#cell) [web](https://example.org/x.md) "
        '[anchor](#here) [titled](<b.md> "B")'
    )
    assert linked_pages("part/index.md", text) == {
        "part/a.md",
        "notebooks/lab.py",
        "part/b.md",
    }


def test_every_directive_a_page_uses_is_in_the_contributing_table() -> None:
    pages = {
        path.relative_to(DOCS).as_posix(): path.read_text("utf-8") for path in DOCS.rglob("*.md")
    }
    pages["../README.md"] = (ROOT / "README.md").read_text(encoding="utf-8")
    assert directive_problems(pages, "contributing.md") == []
    used = set().union(*(directives(text) for text in pages.values()))
    assert {"check", "invisible-code-block", "output-table", "skip", "figure"} <= used
    assert directive_rows(pages["contributing.md"]) >= used


def test_a_directive_missing_from_the_table_is_named() -> None:
    pages = {
        "contributing.md": "| directive | read by |\n|---|---|\n| `check:` | the checker |\n",
        "a.md": "<!-- check: pycon\n>>> 1\n1\n-->\n\n<!-- new-thing: x -->\n<!-- a comment -->\n",
    }
    assert directive_problems(pages, "contributing.md") == [
        "a.md: uses <!-- new-thing: -->, which the table on contributing.md does not list"
    ]


def test_a_numbered_part_without_an_index_page_is_named() -> None:
    """Part IV once opened on its first chapter: no page said what the part holds."""
    nav: list[object] = [{"IV. Measured": [{"Speed": "measured/speed.md"}]}]
    problems = nav_problems(nav, FIXTURE)
    assert "part 'IV. Measured' has no index page (its first item, an index.md)" in problems


def test_a_nested_section_lists_its_pages_on_its_own_index(tmp_path: Path) -> None:
    """The API reference is a section of its own: its index links each module's page,
    and the part's index links the section's index."""
    (tmp_path / "ref" / "api").mkdir(parents=True)
    (tmp_path / "index.md").write_text("[home](index.md)", encoding="utf-8")
    (tmp_path / "ref" / "index.md").write_text("[API](api/index.md)", encoding="utf-8")
    (tmp_path / "ref" / "api" / "index.md").write_text("[a](a.md)", encoding="utf-8")
    (tmp_path / "ref" / "api" / "a.md").write_text("# a", encoding="utf-8")
    (tmp_path / "ref" / "api" / "b.md").write_text("# b", encoding="utf-8")
    nav: list[object] = [
        {"Home": "index.md"},
        {
            "Reference": [
                "ref/index.md",
                {"API": ["ref/api/index.md", "ref/api/a.md", "ref/api/b.md"]},
            ]
        },
    ]
    assert nav_problems(nav, tmp_path) == [
        "ref/api/b.md: in part 'API' of the nav, but ref/api/index.md does not link to it"
    ]


# --- the reference: titles as in the nav, every command documented ----------------------

_H1 = re.compile(r"^# (.+)$", re.MULTILINE)


def reference_title_problems(nav: list[object], docs_dir: Path) -> list[str]:
    """The Reference pages whose nav title is not their own title (backticks aside)."""
    reference = next(
        (item["Reference"] for item in nav if isinstance(item, dict) and "Reference" in item), []
    )
    problems = []
    for title, path in _titled(reference):
        heading = _H1.search((docs_dir / path).read_text(encoding="utf-8"))
        own = heading.group(1).replace("`", "") if heading else None
        if own != title:
            problems.append(f"{path}: the nav calls it {title!r}, the page {own!r}")
    return problems


def _titled(items: list[object]) -> list[tuple[str, str]]:
    """`(nav title, path)` of every titled page under `items`, sections flattened."""
    found: list[tuple[str, str]] = []
    for item in items:
        for title, value in item.items() if isinstance(item, dict) else []:
            found += _titled(value) if isinstance(value, list) else [(str(title), str(value))]
    return found


def undocumented_commands(page: str, commands: list[str]) -> list[str]:
    """The CLI's commands the reference page neither heads a section with nor runs."""
    return [
        name
        for name in commands
        if f"context-budget {name}" not in page or f"$ context-budget {name} " not in page
    ]


def _commands() -> list[str]:
    parser = cli._parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(action.choices)


def test_the_reference_checks_fail_on_the_page_as_it_stood() -> None:
    """The command's reference once showed neither `bill` nor the title its nav gave it."""
    nav: list[object] = [{"Reference": [{"The inspect and demo commands": "reference/cli.md"}]}]
    assert reference_title_problems(nav, DOCS) == [
        "reference/cli.md: the nav calls it 'The inspect and demo commands',"
        " the page 'The context-budget command'"
    ]
    old_page = (
        "# The `context-budget` command\n\n```console\n$ context-budget inspect x.json\n```\n"
    )
    assert undocumented_commands(old_page, ["bill", "demo", "inspect"]) == ["bill", "demo"]


def test_the_reference_is_titled_as_in_the_nav_and_documents_every_command() -> None:
    assert reference_title_problems(_nav(), DOCS) == []
    assert {"bill", "demo", "inspect"} <= set(_commands())
    page = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    assert undocumented_commands(page, _commands()) == []
