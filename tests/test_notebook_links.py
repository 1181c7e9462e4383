"""A notebook page's links to other pages of the course, and its download's
(`docsite.notebook_links`)."""

from __future__ import annotations

import pytest
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs_jupyter.plugin import NotebookFile

from docsite.notebook_links import on_page_content, site_links


def _site() -> tuple[Page, Files]:
    """A lesson notebook's page, among a second lesson's and a chapter's."""

    def file(src: str) -> File:
        plain = File(src, src_dir="/docs", dest_dir="/site", use_directory_urls=True)
        if not src.endswith(".py"):
            return plain
        return NotebookFile(plain, use_directory_urls=True, site_dir="/site")

    lesson = file("notebooks/unit-a-worked.py")
    files = Files([lesson, file("notebooks/unit-a-student.py"), file("budget/layers.md")])
    return Page("Unit A", lesson, config={}), files  # type: ignore[arg-type]


def test_a_lesson_s_links_to_pages_become_their_urls() -> None:
    page, files = _site()
    html = (
        '<a href="../budget/layers.md#the-report">a</a> <a href="unit-a-student.py">b</a>'
        ' <a href="#top">c</a> <a href="https://example.org/x.md">d</a>'
    )
    assert on_page_content(html, page, None, files) == (  # type: ignore[arg-type]
        '<a href="../../budget/layers/#the-report">a</a> <a href="../unit-a-student/">b</a>'
        ' <a href="#top">c</a> <a href="https://example.org/x.md">d</a>'
    )


def test_a_link_to_no_page_fails_the_build() -> None:
    page, files = _site()
    with pytest.raises(PluginError, match=r"'\.\./budget/gone\.md' names budget/gone\.md"):
        on_page_content('<a href="../budget/gone.md">x</a>', page, None, files)  # type: ignore[arg-type]


def test_a_download_links_the_pages_by_their_addresses_on_the_site() -> None:
    _, files = _site()
    cell = (
        "See [Layers](../budget/layers.md#the-report) and [the student edition]"
        '(unit-a-student.py "first"), [the API](https://example.org/api.md), [here](#top).'
    )
    assert site_links(cell, "notebooks/unit-a-worked.py", files, "https://course.example/cb/") == (
        "See [Layers](https://course.example/cb/budget/layers/#the-report) and [the student"
        ' edition](https://course.example/cb/notebooks/unit-a-student/ "first"),'
        " [the API](https://example.org/api.md), [here](#top)."
    )
