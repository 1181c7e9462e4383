"""A griffe extension (mkdocstrings loads it, mkdocs.yml): a docstring's ``Example:``
section is read as its ``Examples:`` section.

Griffe's Google-style parser knows ``Examples:`` as the section of ``>>>`` examples,
which it shows as highlighted code; ``Example:`` it takes for an admonition titled
Example, whose text is Markdown, where each ``>>>`` is three quotes, one in another,
and the code's lines run together into one paragraph. The package's docstrings use
both words for one section, so this extension renames the singular before griffe
parses the docstring. ``Example:`` followed by text on its own line (``Example: a -> b``)
is a sentence, not a section, and is kept.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

__all__ = [
    "ExampleSections",
    "plural_examples",
]

#: ``Example:`` alone on its line, at any indentation: the header of a section.
_SINGULAR = re.compile(r"^(?P<indent>[ \t]*)Example:[ \t]*$", re.MULTILINE)


def plural_examples(docstring: str) -> str:
    """`docstring` with each section header ``Example:`` made ``Examples:``.

    Example: ``"Sum.\\n\\nExample:\\n    >>> 1 + 1\\n    2"`` -> the same with
    ``Examples:``; ``"Example: a -> b"`` is kept.
    """
    return _SINGULAR.sub(r"\g<indent>Examples:", docstring)


class ExampleSections(griffe.Extension):
    """Renames a docstring's ``Example:`` section ``Examples:`` as each object is made."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rename the section in `obj`'s docstring, if it has one (before it is parsed)."""
        if obj.docstring is not None:
            obj.docstring.value = plural_examples(obj.docstring.value)
