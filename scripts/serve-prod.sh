#!/usr/bin/env bash
# One production replica in the foreground (contract §15): the graphs, auth, routes and chat
# page of `langgraph dev`, served by Aegra on PostgreSQL + Redis. Start as many replicas as
# you like, on one machine or several, on the same database and Redis; any HTTP load
# balancer in front, no sticky sessions.
#
#   AIMIND_DATABASE_URL=postgresql://...  threads, runs and memory (required)
#   REDIS_URL=redis://...                 the broker every replica shares (required)
#   AIMIND_SESSION_SECRET=...             >= 32 characters, the same on every replica (required)
#   PORT=8000 HOST=127.0.0.1              where this replica listens (these are the defaults)
#
# It installs what it needs on first use and again only when requirements.lock,
# pyproject.toml or the Python changed (bootstrap.sh compares a stamp in .venv: a restart
# installs nothing), prepares the database (whichever replica comes first; the others
# wait for it), refuses to start with one sentence when a variable is missing, answers
# GET /health once ready, and on SIGTERM finishes its runs, lets pending compactions land
# and exits within 20 s.
set -euo pipefail
cd "$(dirname "$0")/.."
AIMIND_SKIP_BROWSER_INSTALL=1 bash scripts/bootstrap.sh
export AIMIND_ENV=production
export DATABASE_URL="${AIMIND_DATABASE_URL:-}"  # Aegra's name for the same database
export REDIS_BROKER_ENABLED=true
export AEGRA_CONFIG="$PWD/aegra.json"
export ENV_MODE="${ENV_MODE:-PRODUCTION}"  # Aegra's logs: one JSON object a line
export LANGSMITH_TRACING="${LANGSMITH_TRACING:-false}"
# The shutdown budget (under 20 s): 3 s for open requests, WORKER_DRAIN_TIMEOUT for this
# replica's runs (the rest go back to the queue for another replica), then up to 10 s for
# pending compactions to land.
export WORKER_DRAIN_TIMEOUT="${WORKER_DRAIN_TIMEOUT:-4}"
.venv/bin/python -m aimind_memory.adapters.server.aegra.preflight
exec .venv/bin/python -m uvicorn aegra_api.main:app \
  --host "${HOST:-127.0.0.1}" --port "${PORT:-8000}" --timeout-graceful-shutdown 3
