#!/usr/bin/env bash
# The whole test suite: installs what it needs, then runs pytest (all tests, no skips).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec .venv/bin/python -m pytest -n 2 --dist loadfile "$@"  # two workers, a file each: most of the suite waits on real servers
