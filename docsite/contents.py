"""What the site's contents must hold: every page in the nav and in its part's table,
every page directive in the contributing page's table.

A page is a Markdown file under ``docs/`` or a notebook lesson ``docs/notebooks/*.py``
(the files mkdocs-jupyter renders). The nav is ``mkdocs.yml``'s ``nav``, as plain data:
a list whose items are a page path, ``{title: path}`` or ``{title: [items]}``. A part is
a top-level ``{title: [items]}`` section; its index page is its first item when that is
an ``index.md`` (the page the part's tab opens, ``navigation.indexes``). Each other page
of a part must be linked from its index page, where the part's table of chapters is;
a part with no index page lists its pages on the home page, ``index.md``.

A page directive is an HTML comment that opens with a name and a colon, ``<!-- check:``;
each one a page uses must be a row of the directive table on ``contributing.md``.

Example: ``nav_problems([{"I. Part": ["part/index.md", "part/a.md"]}], Path("docs"))``
-> ``[]`` when ``docs/part/index.md`` links ``a.md`` and ``docs`` holds no other page.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "HOME",
    "directive_problems",
    "directive_rows",
    "directives",
    "linked_pages",
    "nav_parts",
    "nav_problems",
    "site_pages",
]

#: The home page: it lists the pages of a part that has no index page.
HOME = "index.md"
#: A Markdown link's target, up to an anchor or a title: `[text](target#anchor "title")`.
_LINK = re.compile(r"\]\(\s*<?(?P<target>[^)\s#>]+)")
#: A page directive: an HTML comment that opens with a name and a colon.
_DIRECTIVE = re.compile(r"<!--+[ \t]*(?P<name>[a-z][a-z-]*):")
#: A row of the directive table: its first cell is the directive's name in code, `` `name:` ``.
_DIRECTIVE_ROW = re.compile(r"^\|[ \t]*`(?P<name>[a-z][a-z-]*):`[ \t]*\|", re.MULTILINE)


def site_pages(docs_dir: Path) -> list[str]:
    """Every page under `docs_dir`, as a path relative to it: each ``*.md`` and each
    notebook lesson ``notebooks/*.py``, sorted."""
    markdown = list(docs_dir.rglob("*.md"))
    lessons = list((docs_dir / "notebooks").glob("*.py"))
    return sorted(path.relative_to(docs_dir).as_posix() for path in [*markdown, *lessons])


def _paths(items: Iterable[object]) -> list[str]:
    """The page paths of nav items, in nav order, sections flattened."""
    found: list[str] = []
    for item in items:
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            for value in item.values():
                found += _paths(value) if isinstance(value, list) else _paths([value])
    return found


def nav_parts(nav: list[object]) -> list[tuple[str | None, list[str]]]:
    """The nav as parts: ``(title, page paths)`` for each top-level section, and
    ``(None, [path])`` for each top-level page (the home page, say)."""
    parts: list[tuple[str | None, list[str]]] = []
    for item in nav:
        if isinstance(item, dict):
            for title, value in item.items():
                is_part = isinstance(value, list)
                pages = _paths(value) if isinstance(value, list) else _paths([value])
                parts.append((str(title) if is_part else None, pages))
        else:
            parts.append((None, _paths([item])))
    return parts


def linked_pages(page: str, text: str) -> set[str]:
    """The site paths the Markdown `text` of `page` links to, resolved from its folder
    (external links and anchors alone left out)."""
    folder = posixpath.dirname(page)
    found: set[str] = set()
    for match in _LINK.finditer(text):
        target = match.group("target")
        if "://" in target or target.startswith(("mailto:", "/")):
            continue
        found.add(posixpath.normpath(posixpath.join(folder, target)))
    return found


#: A numbered part of the course: "I. The budget", "IV. Measured".
_NUMBERED = re.compile(r"^[IVX]+\. ")


def _index_of(items: list[object]) -> str | None:
    """The section's index page: its first item, when that is an ``index.md``, or a page
    ``X.md`` beside the folder ``X/`` that holds the section's other pages (the API
    reference: ``reference/api.md`` and ``reference/api/*.md``)."""
    first = _paths(items[:1])
    if not first:
        return None
    if posixpath.basename(first[0]) == "index.md":
        return first[0]
    folder = posixpath.splitext(first[0])[0] + "/"
    rest = _paths(items[1:])
    return first[0] if rest and all(path.startswith(folder) for path in rest) else None


def _section_problems(title: str, items: list[object], docs_dir: Path, above: str) -> list[str]:
    """The pages of one nav section that its index page (or, without one, `above`, the
    index page of the section it sits in) does not link to. A nested section with an
    index page of its own is linked by its index and lists its own pages."""
    index = _index_of(items) or above
    listed: list[str] = []
    problems: list[str] = []
    for item in items:
        values = item.values() if isinstance(item, dict) else [item]
        for value in values:
            if isinstance(value, list) and _index_of(value):
                nested = next(iter(item)) if isinstance(item, dict) else title
                listed.append(str(_index_of(value)))
                problems += _section_problems(str(nested), value, docs_dir, index)
            else:
                listed += _paths(value if isinstance(value, list) else [value])
    source = docs_dir / index
    links = linked_pages(index, source.read_text(encoding="utf-8") if source.is_file() else "")
    problems += [
        f"{path}: in part {title!r} of the nav, but {index} does not link to it"
        for path in listed
        if path != index and path not in links
    ]
    return problems


def nav_problems(nav: list[object], docs_dir: Path) -> list[str]:
    """One line for each page under `docs_dir` missing from `nav`, each nav entry that is
    no page, each numbered part without an index page, and each page of a part that its
    part's index page (or, for a part with none, the home page) does not link to. A
    section nested in a part with an index page of its own (the API reference, one page
    a module) lists its pages there. Empty when the contents are whole."""
    pages = site_pages(docs_dir)
    parts = nav_parts(nav)
    in_nav = [path for _, paths in parts for path in paths]
    problems = [f"{page}: not in mkdocs.yml's nav" for page in pages if page not in in_nav]
    problems += [f"{path}: in the nav, but no such page" for path in in_nav if path not in pages]
    for item in nav:
        for title, value in item.items() if isinstance(item, dict) else []:
            if not isinstance(value, list) or not value:
                continue
            if _NUMBERED.match(str(title)) and _index_of(value) is None:
                problems.append(f"part {title!r} has no index page (its first item, an index.md)")
            problems += _section_problems(str(title), value, docs_dir, HOME)
    return problems


def directives(text: str) -> set[str]:
    """The names of the page directives `text` uses: ``check`` for ``<!-- check: ...``."""
    return {match.group("name") for match in _DIRECTIVE.finditer(text)}


def directive_rows(text: str) -> set[str]:
    """The directives the table of `text` names: each row whose first cell is `` `name:` ``."""
    return {match.group("name") for match in _DIRECTIVE_ROW.finditer(text)}


def directive_problems(pages: dict[str, str], table_page: str) -> list[str]:
    """One line for each directive a page uses that the table on `table_page` leaves out.

    Args:
        pages: page path -> its Markdown text; `table_page` is one of them.
        table_page: the page whose table lists the directives (``contributing.md``).
    """
    rows = directive_rows(pages[table_page])
    return [
        f"{page}: uses <!-- {name}: -->, which the table on {table_page} does not list"
        for page, text in sorted(pages.items())
        for name in sorted(directives(text) - rows)
    ]
