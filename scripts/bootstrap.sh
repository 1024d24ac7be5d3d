#!/usr/bin/env bash
# Installs everything the project needs into .venv, from requirements.lock (hash-checked),
# once: a second call with the same lock, pyproject.toml and Python returns at once.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
STAMP=.venv/.aimind-installed
WANT=$({ cat requirements.lock pyproject.toml; .venv/bin/python -VV; } | sha256sum | cut -d' ' -f1)
if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
  LOG=$(mktemp)
  trap 'rm -f "$LOG"' EXIT
  echo "Installing the locked dependencies into .venv (first start, or the lock changed)..."
  if ! {
    .venv/bin/python -m pip install --require-hashes -r requirements.lock &&
      .venv/bin/python -m pip install --no-deps -e . &&
      .venv/bin/python -c "import memory, adapters, graphs"
  } >"$LOG" 2>&1; then
    cat "$LOG" >&2
    echo "bootstrap: installing the dependencies failed (the log is above)" >&2
    exit 1
  fi
  echo "$WANT" >"$STAMP"
fi
# The browser tests drive Debian's Chromium (no browser download at run time).
if [ "${AIMIND_SKIP_BROWSER_INSTALL:-0}" != "1" ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is missing: install Debian's 'chromium' package for the browser tests" >&2
    exit 1
  fi
fi
# --- npm: the official LangGraph JS SDK for tests/node (the stock-client test) -----------
# `npm ci` from the committed lock, only when node_modules is missing or the lock changed.
NODE_TESTS=tests/node
if [ -f "$NODE_TESTS/package-lock.json" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "npm is missing: install Node.js 20+ (Debian's 'nodejs' and 'npm') for tests/node" >&2
    exit 1
  fi
  lock_sum=$(sha256sum "$NODE_TESTS/package-lock.json" | cut -d' ' -f1)
  stamp="$NODE_TESTS/node_modules/.aimind-lock.sha256"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$lock_sum" ]; then
    (cd "$NODE_TESTS" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    echo "$lock_sum" > "$stamp"
  fi
fi
# --- end npm -------------------------------------------------------------------------------
