#!/usr/bin/env sh
# The share-page tests drive Debian's Chromium (/usr/bin/chromium) with
# playwright-core, and the /workflow dashboard test drives the real pi CLI
# under tmux (the tmux-panes inspection opens transcripts in less); install
# what a fresh machine lacks. The remote-agents tests start their own
# PostgreSQL cluster from Debian's postgresql (under /usr/lib/postgresql).
set -eu
missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v tmux >/dev/null 2>&1 || missing="$missing tmux"
command -v git >/dev/null 2>&1 || missing="$missing git"
command -v less >/dev/null 2>&1 || missing="$missing less"
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || command -v pg_ctl >/dev/null 2>&1 || missing="$missing postgresql"
[ -z "$missing" ] && exit 0
echo "installing for the tests:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq $missing >/dev/null
