"""mkdocs hook: each highlighted block of a page numbers its lines' ids apart.

pymdownx.highlight gives every line of a block an id, ``__span-B-L``
(``line_spans`` in mkdocs.yml; the stylesheet marks a wrapped line's
continuation by it), where ``B`` counts the blocks of one Markdown
conversion. mkdocstrings converts each signature and each docstring of an API
page on its own, so each starts at block 0 again: the bills module's page gave
``__span-0-1`` to 30 lines, and a link to one of them landed on the first.

This hook numbers the blocks of a built page again, in the order they stand,
so that each id names one line of one block. A page whose blocks were numbered
in order already keeps its ids.
"""

from __future__ import annotations

import re
from typing import Any

#: A line's id: its block's number, between the prefix and the line's number.
_LINE_ID = re.compile(r"(__span-)\d+(-\d+)")
_BLOCK = re.compile(r"<pre\b.*?</pre>", re.DOTALL)


def number_blocks(html: str) -> str:
    """`html` with the line ids of its `k`-th highlighted block (a `<pre>` that holds
    any) numbered `__span-k-L`, `k` counted from 0.

    Example: two blocks both numbered 0 -> the second's ids become `__span-1-1`, ...
    """
    count = 0

    def renumber(block: re.Match[str]) -> str:
        nonlocal count
        text = block.group(0)
        if not _LINE_ID.search(text):
            return text
        number = count
        count += 1
        return _LINE_ID.sub(lambda line: f"{line.group(1)}{number}{line.group(2)}", text)

    return _BLOCK.sub(renumber, html)


def on_post_page(output: str, **kwargs: Any) -> str:
    """Number the highlighted blocks of the built page `output` apart (`number_blocks`)."""
    return number_blocks(output)
