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
distinct keys. The build fails if the worker no longer holds the line it changes.
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

__all__ = [
    "on_files",
    "unambiguous_token_set",
]

#: The theme's search worker, under the site's root (its name carries a hash).
WORKER = re.compile(r"assets/javascripts/workers/search\.[0-9a-f]+\.min\.js")
#: lunr's `TokenSet.prototype.toString`, minified: the key of a node, one edge at a time.
_KEY = "e=e+s+o.id}return e}"
_DELIMITED_KEY = 'e=e+s+o.id+" "}return e}'


def unambiguous_token_set(worker: str) -> str:
    """`worker` (the search worker's script) with each edge's part of a node's key ended
    by a space; a `ValueError` naming what it found unless the key's line is there once."""
    count = worker.count(_KEY)
    if count != 1:
        raise ValueError(
            f"the search worker holds lunr's TokenSet key line {_KEY!r} {count} times,"
            " not once: see docsite/search_worker.py"
        )
    return worker.replace(_KEY, _DELIMITED_KEY)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Serve the theme's search worker with lunr's node keys made unambiguous (a set of
    files without the worker, such as a test's, is left as it is; the browser check of
    the search fails if the built site's worker is not this one)."""
    for worker in (file for file in files if WORKER.fullmatch(file.src_uri)):
        try:
            worker.content_string = unambiguous_token_set(worker.content_string)
        except ValueError as error:
            raise PluginError(str(error)) from error
    return files
