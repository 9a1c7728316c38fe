#!/usr/bin/env sh
# The share-page tests drive Debian's Chromium (/usr/bin/chromium) with
# playwright-core; install it when a fresh machine lacks it.
set -eu
if command -v chromium >/dev/null 2>&1; then exit 0; fi
echo "installing Debian's chromium for the browser tests" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
