#!/usr/bin/env bash
# Install (if needed) Debian's Chromium for the browser tests (tests/test_web_browser.py),
# the way .ci/start-postgres.sh installs PostgreSQL. Idempotent; prints where it is.
# Playwright drives this binary through `executable_path`: its own browser download is
# not used. Exits non-zero when no Chromium could be installed (the tests then skip).
set -euo pipefail

found() { command -v chromium || command -v chromium-browser || true; }

if [ -z "$(found)" ]; then
  export DEBIAN_FRONTEND=noninteractive
  if command -v apt-get >/dev/null; then
    apt-get update -qq || true
    apt-get install -y -qq chromium fonts-dejavu-core >/dev/null || true
  fi
fi
BIN=$(found)
if [ -z "$BIN" ]; then
  echo "chromium: could not be installed; the browser tests will be skipped" >&2
  exit 1
fi
echo "chromium: $("$BIN" --version 2>/dev/null || echo "$BIN")"
