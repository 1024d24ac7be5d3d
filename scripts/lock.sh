#!/usr/bin/env bash
# Refreshes the two hash-locked dependency sets from pyproject.toml, from one resolution:
#   requirements.lock        everything: the library, the servers, the tests, the docs, the
#                            bench (scripts/test.sh, CI; scripts/bootstrap.sh)
#   requirements-serve.lock  what serving needs: the library and the [server] extra
#                            (scripts/serve.sh; scripts/bootstrap.sh serve), resolved under
#                            the first as constraints, so it is a subset pinned the same
#                            (tests/layout/test_packaging.py checks it)
# Needs uv on the PATH (`pip install uv`). Versions already locked stay unless a
# bound in pyproject.toml moves them; extra arguments go to the first resolution
# (`bash scripts/lock.sh --upgrade` moves everything to the newest allowed). Then run the
# whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
COMMON=(--universal --python-version 3.12 --generate-hashes --no-header --quiet)

lock() {  # lock FILE HEADER ARGS...: resolve into FILE, the header comment first
  local file=$1 header=$2
  shift 2
  uv pip compile pyproject.toml "${COMMON[@]}" "$@" -o "$file"
  { printf '%s\n' "$header"; grep -v '^# [A-Z]' "$file"; } >"$file.tmp"
  mv "$file.tmp" "$file"
}

lock requirements.lock \
  "# Everything the tests, CI and the docs install (with hashes): bash scripts/lock.sh makes it." \
  --extra server --extra production --extra dev --extra docs --extra bench "$@"
lock requirements-serve.lock \
  "# What bash scripts/serve.sh installs (with hashes): the library and [server], pinned as requirements.lock. bash scripts/lock.sh makes it." \
  --extra server -c requirements.lock
