#!/usr/bin/env bash
# The whole test suite: installs what it needs, then runs pytest (all tests, no skips).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh  # everything: requirements.lock (serve.sh installs a subset of it)
exec .venv/bin/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder "$@"  # two workers, a file (or a server-sharing folder) each, the longest first: tests/support/schedule.py
