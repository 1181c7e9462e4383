"""mkdocs hook events: the search that Material's worker runs finds every word it holds.

The worker bundles lunr 2.3.9, whose set of indexed words (`TokenSet`) merges equal
nodes by a key made of each edge's letter followed by the number of the node it leads
to, run together: `"0" + "a" + "12" + "b" + "3"`. Once letters are digits, two nodes
get one key (an edge "1" to node 23 reads as an edge "1" to node 2 followed by
something else), and are merged. The course's numbers and ids give the set such
edges, and a search for "tool" (every search ends in a wildcard) expanded into a word
the index does not hold: lunr failed the query (TypeError, reading `_index`), and the
search box said "No matching documents" for "tool", "tool result" and each of their
first letters. The lunr issue: https://github.com/olivernn/lunr.js/issues/279 (open).

This hook ends each edge's part of the key with a space, which no letter of an
indexed word can be (the search separates words at spaces): distinct nodes get
distinct keys.

It also reads what a reader types as words, before the theme turns it into a lunr
query. The course's words hold hyphens (`context-budget`, `claude-opus-4-7`,
`prefix-changed`) and its commands' options start with two (`--timezone`): at each
key the box searched for `context-`, which the theme made `context-*`, the hyphen a
word break and the lone `*` every word of the index (every page matched, and the
search took seconds, the results of an earlier query on show meanwhile); and
`--timezone` was a query lunr refused (an operator with no word after it), so the
box said "No matching documents". A hyphen that ends a word and the hyphens that
start an option are left out (`_READ_AS_WORDS`). So is a `~` or `^` with no digit
after it: lunr reads each as an operator (`~1`, `^2`, which stay), so the box refused
`~/.claude/projects`, a path the site's search separator (mkdocs.yml) cuts at its `~`
anyway. The build fails if the worker no longer holds a line it changes.
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

__all__ = [
    "on_files",
    "read_as_words",
    "unambiguous_token_set",
]

#: The theme's search worker, under the site's root (its name carries a hash).
WORKER = re.compile(r"assets/javascripts/workers/search\.[0-9a-f]+\.min\.js")
#: lunr's `TokenSet.prototype.toString`, minified: the key of a node, one edge at a time.
_KEY = "e=e+s+o.id}return e}"
_DELIMITED_KEY = 'e=e+s+o.id+" "}return e}'


#: The start of the worker's `search(query)`, minified (the query, as typed, is `e`), and
#: its first step (it segments Chinese words).
_SEARCH_START = "search(e){if("
_SEARCH = _SEARCH_START + 'e=e.replace(new RegExp("\\\\p{sc=Han}+","gu")'
#: What `search` does first: leave out the hyphens that end a word (`context-`), those
#: that start a word with two or more (`--timezone`), and a `~` or `^` that no digit
#: follows (`~/.claude`).
_READ_AS_WORDS = (
    'e=e.replace(/-+(?=\\s|$)/g,"").replace(/(^|\\s)-{2,}(?=\\S)/g,"$1")'
    '.replace(/[~^](?!\\d)/g," "),'
)


def _replace_once(worker: str, line: str, by: str, what: str) -> str:
    """`worker` with its one `line` replaced `by`; a `ValueError` naming `what` the line
    is and how many times it was found, unless once."""
    count = worker.count(line)
    if count != 1:
        raise ValueError(
            f"the search worker holds {what} {line!r} {count} times,"
            " not once: see docsite/search_worker.py"
        )
    return worker.replace(line, by)


def unambiguous_token_set(worker: str) -> str:
    """`worker` (the search worker's script) with each edge's part of a node's key ended
    by a space; a `ValueError` naming what it found unless the key's line is there once."""
    return _replace_once(worker, _KEY, _DELIMITED_KEY, "lunr's TokenSet key line")


def read_as_words(worker: str) -> str:
    """`worker` whose search first leaves out the hyphens that end a word or start an
    option (`_READ_AS_WORDS`); a `ValueError` naming what it found unless the start of
    `search` is there once."""
    words = _SEARCH_START + _READ_AS_WORDS + _SEARCH.removeprefix(_SEARCH_START)
    return _replace_once(worker, _SEARCH, words, "the start of search")


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Serve the theme's search worker with lunr's node keys made unambiguous and the
    reader's query read as words (a set of files without the worker, such as a test's,
    is left as it is; the browser check of the search fails if the built site's worker
    is not this one)."""
    for worker in (file for file in files if WORKER.fullmatch(file.src_uri)):
        try:
            worker.content_string = read_as_words(unambiguous_token_set(worker.content_string))
        except ValueError as error:
            raise PluginError(str(error)) from error
    return files
