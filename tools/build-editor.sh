#!/usr/bin/env bash
# Build the site's code editor (CodeMirror 6, bundled with esbuild) from the npm
# registry, at the versions pinned in tools/editor/package-lock.json (npm ci checks
# each package against the lock's integrity hash), into .cache/editor/cb-editor.js.
# docsite/browser_run.py serves it as javascripts/cb-editor.js. Cached: the bundle
# carries the sha256 of its inputs (the lock and tools/editor/entry.js) in
# .cache/editor/cb-editor.key, and a second run with the same inputs does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
SOURCE=tools/editor
CACHE=.cache/editor
KEY=$(cat "$SOURCE/package-lock.json" "$SOURCE/entry.js" | sha256sum | cut -d' ' -f1)
if [ -f "$CACHE/cb-editor.js" ] && [ "$(cat "$CACHE/cb-editor.key" 2>/dev/null)" = "$KEY" ]; then
  exit 0
fi
BUILD=$CACHE/build
mkdir -p "$BUILD"
cp "$SOURCE/package.json" "$SOURCE/package-lock.json" "$SOURCE/entry.js" "$BUILD/"
# --ignore-scripts: esbuild's binary comes in its platform package; nothing needs to run.
(cd "$BUILD" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error > /dev/null)
"$BUILD/node_modules/.bin/esbuild" "$BUILD/entry.js" --bundle --minify --format=iife \
  --target=es2020 --legal-comments=none --log-level=warning --outfile="$CACHE/cb-editor.js.tmp"
mv "$CACHE/cb-editor.js.tmp" "$CACHE/cb-editor.js"
echo "$KEY" > "$CACHE/cb-editor.key"
echo "build-editor: $CACHE/cb-editor.js ($(du -h "$CACHE/cb-editor.js" | cut -f1))"
