#!/usr/bin/env bash
# Starts the three graphs, the hydration route and the chat page under `langgraph dev`
# on the embedded default: SQLite in .aimind/, the offline model, a generated dev secret.
set -euo pipefail
cd "$(dirname "$0")/.."
AIMIND_SKIP_BROWSER_INSTALL=1 bash scripts/bootstrap.sh
export LANGGRAPH_CLI_NO_ANALYTICS=1 LANGGRAPH_NO_VERSION_CHECK=true
export LANGSMITH_TRACING=${LANGSMITH_TRACING:-false}
exec .venv/bin/langgraph dev --no-browser --no-reload --port "${PORT:-2024}" "$@"
