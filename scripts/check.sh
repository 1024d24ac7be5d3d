#!/usr/bin/env bash
# The static checks CI runs before the tests: ruff (lint and format), mypy, the import
# contracts. Run it after bootstrap.sh (it uses .venv).
#
# The repository keeps memory/, adapters/ and graphs/ as top-level folders; installed they
# are aimind_memory.memory, .adapters and .graphs (pyproject.toml's package-dir). Python
# finds them through setuptools' editable import hook, which mypy and import-linter do not
# run, so both read a tree of links laid out as the package installs (scripts/stage.py)
# and mypy's paths are given back as the repository's.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check .
.venv/bin/ruff format --check .
stage=$(.venv/bin/python scripts/stage.py)  # build/stage
MYPYPATH="$stage" .venv/bin/python -m mypy -p aimind_memory -p bench |
  sed -E "s#^$stage/aimind_memory/(memory|adapters|graphs)/#\1/#; s#^$stage/##"
root=$PWD
(cd "$stage" && PYTHONPATH="$PWD:$root" "$root/.venv/bin/lint-imports" --config "$root/pyproject.toml")
# The distribution as users get it: a wheel and an sdist that twine accepts (metadata, the
# licence, the README as the long description). Built from outside the checkout: its
# build/ folder would shadow the `build` package.
dist=$(mktemp -d)
trap 'rm -rf "$dist"' EXIT
(cd "$dist" && "$root/.venv/bin/python" -m build --no-isolation --outdir "$dist" "$root" >/dev/null)
.venv/bin/python -m twine check --strict "$dist"/*
