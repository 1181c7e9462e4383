#!/usr/bin/env bash
# Make sure Debian's Chromium is here: /usr/bin/chromium-headless-shell, which the browser
# check drives, and /usr/bin/chromium, which the browser benchmark times as a reader's
# browser. Playwright drives them; it never downloads a browser of its own.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromium-headless-shell ] || missing+=(chromium-headless-shell)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure-chromium: missing Debian package(s) ${missing[*]}; install them (apt-get install ${missing[*]}) and run again" >&2
  exit 2
fi
echo "ensure-chromium: installing Debian's ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" > /dev/null
