#!/usr/bin/env bash
# Fetch the Pyodide core (Python compiled to WebAssembly) from the npm registry, at the
# pinned version, check the tarball against the checksum committed beside this script,
# and unpack only the core files into .cache/pyodide/<version>/. hooks/browser_run.py
# copies them into the built site (site/pyodide/). Cached: a second run does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=314.0.7
SHA256=$(cut -d' ' -f1 tools/fetch-pyodide.sha256)
CACHE=.cache/pyodide
DEST=$CACHE/$VERSION
CORE="pyodide.mjs pyodide.asm.mjs pyodide.asm.wasm python_stdlib.zip pyodide-lock.json"
if [ -f "$DEST/.complete" ]; then
  exit 0
fi
mkdir -p "$CACHE"
TARBALL=$CACHE/pyodide-$VERSION.tgz
if [ ! -f "$TARBALL" ] || ! echo "$SHA256  $TARBALL" | sha256sum --check --status; then
  rm -f "$TARBALL"
  (cd "$CACHE" && npm pack --silent "pyodide@$VERSION" > /dev/null)
fi
if ! echo "$SHA256  $TARBALL" | sha256sum --check --status; then
  echo "fetch-pyodide: $TARBALL does not match the sha256 in tools/fetch-pyodide.sha256" >&2
  exit 2
fi
rm -rf "$DEST.tmp" && mkdir -p "$DEST.tmp"
for name in $CORE; do
  tar -xzf "$TARBALL" -C "$DEST.tmp" --strip-components=1 "package/$name"
done
touch "$DEST.tmp/.complete"
rm -rf "$DEST" && mv "$DEST.tmp" "$DEST"
echo "fetch-pyodide: pyodide $VERSION core in $DEST ($(du -sh "$DEST" | cut -f1))"
