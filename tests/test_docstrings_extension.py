"""docsite/docstrings.py: a docstring's ``Example:`` section is parsed as ``Examples:``,
so its ``>>>`` lines show as code on the API pages, not as quoted prose."""

from __future__ import annotations

import griffe

from docsite.docstrings import ExampleSections, plural_examples

BILLS_LIKE = '''"""The bill of a saved session.

Example:
    >>> 1 + 1
    2
"""

def civil(days: int) -> int:
    """A day.

    Example:
        >>> civil(0)
        0

    Example: `civil(1)` -> 1, a sentence that stays.
    """
    return days
'''


def test_only_a_header_alone_on_its_line_is_renamed() -> None:
    text = "Sum.\n\n    Example:  \n        >>> 1\n\nExample: a -> b\nAn Example:\n"
    renamed = "Sum.\n\n    Examples:\n        >>> 1\n\nExample: a -> b\nAn Example:\n"
    assert plural_examples(text) == renamed


def test_an_example_section_parses_as_examples_of_code() -> None:
    plain = griffe.visit("mod", filepath=None, code=BILLS_LIKE)  # type: ignore[arg-type]
    renamed = griffe.visit(
        "mod",
        filepath=None,  # type: ignore[arg-type]
        code=BILLS_LIKE,
        extensions=griffe.load_extensions(ExampleSections),
    )

    def kinds(module: griffe.Module) -> list[list[str]]:
        objects = [module, module["civil"]]
        return [
            [section.kind.value for section in obj.docstring.parse("google")]  # type: ignore[union-attr]
            for obj in objects
        ]

    assert kinds(plain) == [["text", "admonition"], ["text", "admonition", "text"]]
    assert kinds(renamed) == [["text", "examples"], ["text", "examples", "text"]]
