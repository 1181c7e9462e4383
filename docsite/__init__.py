"""The site's toolchain: the page checker and the mkdocs hooks, one importable package.

Nothing here ships with ``context_budget``; it builds and checks the course site.

- ``pagecheck``: the Sybil parsers that run every code block of every page in CI, and
  ``browser_blocks``, which says which of them the reader's browser can run.
- ``browser_run``: the hook that gives each Python block its Run button.
- ``figures``: the hook that draws each ``<!-- figure: NAME -->`` from ``docs/figures/``.
- ``notebook_download`` and ``selfcontained``: the hook and the builder of each notebook
  lesson's self-contained ``.ipynb`` download.
- ``notebook_toc``: the hook that keeps a notebook page's headings' inline code in its
  table of contents.
- ``notebook_links``: the hook that points a notebook page's links to other pages (by
  their source files, as a Markdown page links them) at those pages' URLs.
- ``code_ids``: the hook that numbers the line ids of each highlighted block of a page
  apart (an API page's docstrings each began at block 0).
- ``release``: the hook that stops a release build whose links point at this machine.
- ``contents``: the rules the site's contents keep (every page in the nav and in its
  part's table, every page directive in the contributing page's table), for the tests.

``mkdocs.yml`` names the thin files in ``hooks/``, which import their events from here;
the root ``conftest.py`` wires ``pagecheck`` into pytest. ``docs/contributing.md`` has
the table of every page directive and the program that reads it.
"""
