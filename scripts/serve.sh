#!/usr/bin/env bash
# Starts the three graphs, the hydration route and the chat page under `langgraph dev`
# on the embedded default: SQLite in .aimind/, the offline model, a generated dev secret.
#
#   PORT=8123 bash scripts/serve.sh   # the port (default 2024), on 127.0.0.1
#   AIMIND_DATA_DIR=/some/folder      # the data folder instead of .aimind/
#   extra arguments go to `langgraph dev`
#
# A taken port, or another server already using the data folder, stops it here with a
# sentence: `langgraph dev` itself would move to a random free port without a word.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT:-2024}
HOST=127.0.0.1
DATA_DIR=${AIMIND_DATA_DIR:-.aimind}

# The same test `langgraph dev` makes before it moves elsewhere: can the port be bound?
if ! "${PYTHON:-python3}" - "$HOST" "$PORT" <<'EOF'
import socket, sys
with socket.socket() as s:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind((sys.argv[1], int(sys.argv[2])))
    except (OSError, ValueError, OverflowError):
        sys.exit(1)
EOF
then
  echo "Port $PORT on $HOST is not free (another server is probably running there). Stop that server, or choose another port: PORT=8123 bash scripts/serve.sh" >&2
  exit 1
fi

# Held by `langgraph dev` (exec below) for as long as it runs.
mkdir -p "$DATA_DIR"
exec 9>"$DATA_DIR/server.lock"
if command -v flock >/dev/null 2>&1 && ! flock -n 9; then
  echo "Another server is already running on $DATA_DIR/ (the same memory and secret). Stop it first, or give this one its own data folder: AIMIND_DATA_DIR=/some/folder PORT=8123 bash scripts/serve.sh" >&2
  exit 1
fi

bash scripts/bootstrap.sh serve  # the library and [server] only (requirements-serve.lock)
export LANGGRAPH_CLI_NO_ANALYTICS=1 LANGGRAPH_NO_VERSION_CHECK=true
export LANGSMITH_TRACING=${LANGSMITH_TRACING:-false}
exec .venv/bin/langgraph dev --no-browser --no-reload --host "$HOST" --port "$PORT" "$@"
