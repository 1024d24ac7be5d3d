#!/usr/bin/env bash
# Installs everything the project needs into .venv, from requirements.lock (hash-checked),
# once: a second call with the same lock, pyproject.toml and Python returns at once.
set -euo pipefail
cd "$(dirname "$0")/.."
# Replicas started at the same moment on a fresh machine install once, one after another.
exec 8<scripts/bootstrap.sh
command -v flock >/dev/null 2>&1 && flock 8
# --- a Python >= 3.12 (Aegra's floor; one interpreter for development and production) ---
is_312() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; }
find_python() {
  if [ -n "${PYTHON:-}" ]; then
    is_312 "$PYTHON" && { echo "$PYTHON"; return; }
    echo "bootstrap: PYTHON=$PYTHON is not a Python 3.12 or newer" >&2
    return 1
  fi
  local c v
  for c in python3.13 python3.12 python3; do
    command -v "$c" >/dev/null 2>&1 && is_312 "$c" && { command -v "$c"; return; }
  done
  if command -v pyenv >/dev/null 2>&1; then
    for v in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.(1[2-9]|[2-9][0-9])(\.|$)' | sort -rV); do
      c="$(pyenv root)/versions/$v/bin/python3"
      is_312 "$c" && { echo "$c"; return; }
    done
  fi
  echo "bootstrap: no Python 3.12 or newer found: install one (e.g. Debian's python3.12, or 'pyenv install 3.12'), or point PYTHON= at it" >&2
  return 1
}
if [ -x .venv/bin/python ] && ! is_312 .venv/bin/python; then
  rm -rf .venv  # made by an older Python: start again on 3.12+
fi
if [ ! -x .venv/bin/python ]; then
  PY=$(find_python)
  "$PY" -m venv .venv
fi
# Which lock: `bootstrap.sh serve` installs what serving needs (requirements-serve.lock:
# the library and the [server] extra), plain `bootstrap.sh` everything (requirements.lock:
# the tests, the docs, the bench, Aegra). Both are one resolution (scripts/lock.sh), so the
# second adds to the first and changes nothing it installed.
case "${1:-all}" in
  serve) lock=requirements-serve.lock stamp=.venv/.aimind-installed-serve what="what serving needs" ;;
  all) lock=requirements.lock stamp=.venv/.aimind-installed what="the locked dependencies" ;;
  *)
    echo "bootstrap: unknown set '$1' (serve, or nothing for everything)" >&2
    exit 2
    ;;
esac
stamp_of() { { cat "$1" pyproject.toml; .venv/bin/python -VV; } | sha256sum | cut -d' ' -f1; }
installed() { [ "$(cat "$2" 2>/dev/null)" = "$(stamp_of "$1")" ]; }  # installed lock stamp
# Everything installed (requirements.lock's stamp matches) serves too.
if ! installed "$lock" "$stamp" &&
  ! { [ "$lock" = requirements-serve.lock ] && installed requirements.lock .venv/.aimind-installed; }; then
  LOG=$(mktemp)
  trap 'rm -f "$LOG"' EXIT
  total=$(grep -c '^[A-Za-z0-9]' "$lock" || true)
  echo "Installing $what into .venv ($total packages from $lock; first start, or the lock changed)..."
  start=$SECONDS
  # pip's own lines go to the log (shown whole if it fails); one line per package it
  # fetches goes to the terminal, so a first start of several minutes is never silent.
  if ! {
    .venv/bin/python -m pip install --require-hashes -r "$lock" 2>&1 | tee -a "$LOG" |
      awk -v total="$total" '
        /^Collecting / { n++; printf "  [%3d/%d] %s\n", n, total, $2; fflush() }
        /^(Requirement already satisfied|Ignoring) / { n++ }
        /^Installing collected packages: / { print "  unpacking them into .venv..."; fflush() }' &&
      .venv/bin/python -m pip install --no-deps -e . >>"$LOG" 2>&1 &&
      .venv/bin/python -c "import aimind_memory.memory, aimind_memory.adapters, aimind_memory.graphs" >>"$LOG" 2>&1
  }; then
    cat "$LOG" >&2
    echo "bootstrap: installing the dependencies failed (the log is above)" >&2
    exit 1
  fi
  echo "  installed in $((SECONDS - start)) s"
  stamp_of "$lock" >"$stamp"
fi
if [ "$lock" = requirements-serve.lock ]; then
  exit 0  # serving needs no browser, Redis, PgBouncer or Node
fi
# The tests drive Debian's Chromium (no browser download at run time) with a CJK font, so
# screenshots of Chinese text are legible (fonts-wqy-microhei), start Debian's
# redis-server for the production replicas and pgbouncer in front of PostgreSQL, and run
# the JS SDK from tests/node; serving needs none of these (`bootstrap.sh serve` stops
# above; serve-prod.sh sets AIMIND_SKIP_BROWSER_INSTALL=1).
if [ "${AIMIND_SKIP_BROWSER_INSTALL:-0}" = "1" ]; then
  exit 0
fi
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
fc-list ":family=WenQuanYi Micro Hei" family 2>/dev/null | grep -q . || missing+=(fonts-wqy-microhei)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq >/dev/null &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "missing for the tests: ${missing[*]} (install Debian's packages of those names)" >&2
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
