#!/usr/bin/env bash
# Make sure Debian's Chromium is at /usr/bin/chromium for the browser check.
# Playwright drives this browser; it never downloads one of its own.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure-chromium: /usr/bin/chromium is missing; install Debian's 'chromium' package (apt-get install chromium) and run again" >&2
  exit 2
fi
echo "ensure-chromium: installing Debian's chromium package" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium > /dev/null
