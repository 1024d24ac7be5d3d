"""The compaction-latency bench's bookkeeping (``bench/compaction_latency.py``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from bench.compaction_latency import (
    MODEL_DELAY_S,
    SCHEMA,
    SlowCompactionModel,
    audit,
    server_runs,
    summarize,
)


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat()


def _compaction_body(previous: str, texts: list[str]) -> dict:
    payload = {
        "previous_summary": previous,
        "previous_pinned_decisions": [],
        "fold": [{"role": "user", "text": t} for t in texts],
        "kept (do not repeat)": [{"role": "user", "text": "[t99] kept"}],
    }
    return {
        "response_format": {"type": "json_schema", "json_schema": {"name": SCHEMA}},
        "messages": [
            {"role": "system", "content": "…"},
            {"role": "user", "content": json.dumps(payload)},
        ],
    }


def test_the_stub_answers_chat_at_once_and_compaction_late_with_the_folded_tags() -> None:
    model = SlowCompactionModel()
    chat = model({"messages": [{"role": "user", "content": "[t1] hello"}]})
    reply = model(_compaction_body("[t1] [t2]", ["[t3] a question", "[t4] another"]))

    assert chat.delay_s == 0 and chat.content
    assert MODEL_DELAY_S[0] <= reply.delay_s <= MODEL_DELAY_S[1]
    assert json.loads(reply.content) == {"summary": "[t1] [t2] [t3] [t4]", "pinned_decisions": []}
    assert [c["folded"] for c in model.calls] == [["[t3]", "[t4]"]]


def test_audit_finds_a_turn_in_neither_place() -> None:
    assert audit(4, ["[t3] q", "[t4] q"], "[t1] [t2]") == {
        "lost_turns": 0,
        "in_window_and_summary": 0,
    }
    assert audit(4, ["[t4] q"], "[t1] [t2]")["lost_turns"] == 1
    assert audit(4, ["[t2] q", "[t3] q", "[t4] q"], "[t1] [t2]")["in_window_and_summary"] == 1


def test_runs_are_matched_to_the_calls_they_started_and_to_their_landings() -> None:
    t = 1_700_000_000.0
    runs, server = [], {}
    for n in range(1, 7):  # run n: starts at t + n, lasts 20 ms (turn 5: 30 ms)
        run_id = f"run-{n}"
        exec_ms = 30 if n == 5 else 20
        runs.append({"turn": n, "run_id": run_id, "sent": t + n - 0.9, "answered": t + n + 0.1})
        server[run_id] = {
            "run_exec_ms": exec_ms,
            "run_wait_time_ms": 900,
            "run_started_at": _iso(t + n),
            "run_ended_at": _iso(t + n + exec_ms / 1000),
        }
    calls = [{"received": t + 5.02, "delay_s": 1.5, "folded": ["[t1]"]}]
    landings = [
        {"status": "succeeded", "compactor": "llm", "at": _iso(t + 5.03 + 1.51), "seen": t + 6.6}
    ]

    result = summarize(runs, server, calls, landings)

    assert result["compaction_turns"] == [5]
    assert result["compaction_vs_plain_exec_p50"] == 1.5
    (landed,) = result["landings"]
    assert landed["turn"] == 5
    assert abs(landed["landed_after_run_s"] - 1.51) < 1e-3
    assert abs(landed["beyond_model_s"] - 0.01) < 1e-3


def test_the_server_log_gives_each_run_its_record(tmp_path: Path) -> None:
    log = tmp_path / "langgraph-dev.log"
    lines = [
        "plain text from the CLI",
        json.dumps({"event": "Starting background run", "run_id": "a"}),
        json.dumps({"event": "Background run succeeded", "run_id": "a", "run_exec_ms": 17}),
        json.dumps({"event": "Background run succeeded", "run_id": "other", "run_exec_ms": 9}),
        '{"event": "Background run succeeded", "truncated',
    ]
    log.write_text("\n".join(lines))

    assert server_runs(log, {"a", "b"}) == {
        "a": {"event": "Background run succeeded", "run_id": "a", "run_exec_ms": 17}
    }
