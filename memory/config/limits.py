"""Every bound of the chat memory, named once (contract §3, §5, §6).

The defaults are the contract; those a deployment may change are settings
(``memory.config.settings``: ``AIMIND_<NAME>``), validated when memory is opened, so a bad
setting fails at start-up rather than on a user's turn. The settings build on these
defaults, so this module imports nothing of them: the environment's limits are
``memory_settings().limits``.
"""

from __future__ import annotations

from dataclasses import dataclass

from aimind_memory.memory.errors import LimitsError

RECENT_TURNS = 4
"""Turns kept verbatim at most after every write (2 messages per turn)."""
KEEP_TURNS = 2
"""Turns kept verbatim after a compaction; fewer than RECENT_TURNS so compaction is rare."""
SUMMARY_CHARS = 2_500
PINNED_MAX = 20
PIN_CHARS = 300
MESSAGE_CHAR_CAP = 8_000
"""One stored message's text at most (the delivery report's cap too)."""
COMPACTION_TIMEOUT_S = 30.0
PENDING_EXTRA_TURNS = 2
"""Turns the window may grow past RECENT_TURNS while a deferred compaction is pending;
a write that would pass it compacts inline with the extractive compactor."""
OVERTAKEN_TURNS = 12
"""Turns an inline fold may fold past a pending model compaction's own while it runs
(kept in its lease, ``memory/compaction/pending.py``) and its result still lands as the base;
a compaction overtaken by more is dropped when it lands."""
PIN_EXCERPT_CHARS = 160
"""A pin source's excerpt of its message at most: enough to recognise it, never the whole
message again (contract §9a)."""
PIN_SOURCES_MAX = 8
"""Messages a pin names as its sources at most: a model compaction names what it folded,
which is the window past ``KEEP_TURNS`` when it started (8 messages at most by default)."""
UNPINNED_MAX = 50
"""Pins the user removed that a memory thread remembers, so no compaction pins them again
(the oldest are forgotten first)."""
REPLACED_MAX = 20
"""Replaced decisions a memory thread keeps for its user to see, newest last (contract §5,
"Memory says why"); the oldest go first."""
SUMMARY_PREVIEW_CHARS = 240
TRUNCATION_MARKER = "\n\n[truncated for chat memory]"
MESSAGE_ID_MAX_CHARS = 200
"""A stored message id's length at most; longer client ids are not reused as memory ids."""
RECALL_CHARS = 1_500
"""What one recall returns at most, in characters of archived text (contract §5a): the
model's context grows by this much (plus the block's labels) and no more."""
ARCHIVE_TURNS: int | None = None
"""Folded turns a session's archive keeps (the oldest go first); None: all of them."""
RECALL_QUERY_TERMS = 64
"""Distinct words of a query recall looks up at most (the first ones): a pasted page
costs a few lookups, not thousands."""
RECALL_CANDIDATES = 2_000
"""Archived messages one recall ranks at most. Past that, the query's commonest words
stop bringing in messages of their own (they still count in the ranking): a message
that holds none of its rarer words cannot rank high anyway."""
RECALL_HIT_MAX_CHARS = 600
"""One recalled message's share of the budget at most: a longer one is cut to the part
around the query's words, so one long message never fills the block alone."""
RECALL_HIT_MIN_CHARS = 80
"""A recalled message is cut to fit what is left of the budget only if this much is
left; a shorter rest goes to messages that fit whole."""


@dataclass(frozen=True, slots=True)
class MemoryLimits:
    """The bounds one memory keeps (contract §3, §5); ``open_memory`` and the middleware
    take one, else read the settings' (``AIMIND_RECENT_TURNS`` …).

    Args:
        recent_turns: Turns kept verbatim (two messages each) before older ones are
            compacted.
        keep_turns: Turns kept verbatim after a compaction, from 1 to ``recent_turns``.
        summary_chars: The longest the summary may be, in characters.
        pinned_max: The most pinned decisions a session keeps.
        pin_chars: The longest one pin may be, in characters.
        message_char_cap: The longest one stored message may be; a longer one is kept
            truncated, with a marker saying so.
        compaction_timeout_s: Seconds a model compaction may take before the extractive
            compactor's result is used instead.
        recall_chars: The most characters of earlier conversation recall adds to a
            model's context (contract §5a); 0 turns recall off.
        archive_turns: Folded turns a session's archive keeps at most, the newest;
            None keeps them all.

    Raises:
        LimitsError: A bound is out of range (``keep_turns`` above ``recent_turns``, a
            size below 1, a timeout not above 0).
    """

    recent_turns: int = RECENT_TURNS
    keep_turns: int = KEEP_TURNS
    summary_chars: int = SUMMARY_CHARS
    pinned_max: int = PINNED_MAX
    pin_chars: int = PIN_CHARS
    message_char_cap: int = MESSAGE_CHAR_CAP
    compaction_timeout_s: float = COMPACTION_TIMEOUT_S
    recall_chars: int = RECALL_CHARS
    archive_turns: int | None = ARCHIVE_TURNS

    def __post_init__(self) -> None:
        if not 1 <= self.keep_turns <= self.recent_turns:
            raise LimitsError(
                f"need 1 <= KEEP_TURNS <= RECENT_TURNS, got KEEP_TURNS={self.keep_turns}, "
                f"RECENT_TURNS={self.recent_turns}"
            )
        for name in ("summary_chars", "pinned_max", "pin_chars", "message_char_cap"):
            if getattr(self, name) < 1:
                raise LimitsError(f"{name.upper()} must be >= 1")
        if self.message_char_cap <= len(TRUNCATION_MARKER):
            raise LimitsError("MESSAGE_CHAR_CAP must be longer than the truncation marker")
        if not self.compaction_timeout_s > 0:
            raise LimitsError("COMPACTION_TIMEOUT_S must be > 0")
        if self.recall_chars < 0:
            raise LimitsError("RECALL_CHARS must be >= 0")
        if self.archive_turns is not None and self.archive_turns < 1:
            raise LimitsError("ARCHIVE_TURNS must be >= 1 (unset: keep every folded turn)")

    @property
    def max_messages(self) -> int:
        return 2 * self.recent_turns

    @property
    def kept_messages(self) -> int:
        return 2 * self.keep_turns

    @property
    def pending_max_messages(self) -> int:
        """The window's bound while a deferred compaction is pending (contract §3)."""
        return 2 * (self.recent_turns + PENDING_EXTRA_TURNS)

    @property
    def overtaken_max_messages(self) -> int:
        """Messages a pending compaction's lease may hold for its landing (``OVERTAKEN_TURNS``)."""
        return 2 * OVERTAKEN_TURNS

    @property
    def archive_messages(self) -> int | None:
        """Archived messages a session keeps at most (``ARCHIVE_TURNS`` turns); None: all."""
        return None if self.archive_turns is None else 2 * self.archive_turns


PRUNE_EVERY = 8
"""A memory thread is pruned to its latest checkpoint every this many writes,
so at most this many checkpoints of it exist at rest, whatever its length."""

STATE_CACHE_THREADS = 1_024
"""Memory threads whose latest state a store keeps in process (checked against the
latest checkpoint id before use, so it only saves work, never serves stale state)."""

STAMP_SLOTS = 65_536
"""Slots in a SQLite database's shared stamp file (8 bytes each): threads sharing a
slot only cost each other a latest-id lookup (``memory/storage/stamps.py``)."""

COMPACTION_START_DELAY_S = 0.05
"""A deferred compaction starts this long after the write that triggered it, so the run
that wrote the turn finishes first: the compaction model's request is built on the same
event loop (a few ms of CPU) and would otherwise hold up the run's last steps."""
COMPACTION_LEASE_MARGIN_S = 5.0
"""A pending compaction's lease lasts its start delay, ``COMPACTION_TIMEOUT_S`` and this
(time to land): past that, the next write on any process starts the compaction anew."""
COMPACTION_SHUTDOWN_GRACE_S = 10.0
"""How long closing memory waits for pending compactions before abandoning them (the
next write then restores the window's bound inline)."""

PG_POOL_MAX = 16
PG_POOL_TIMEOUT_S = 30.0
"""How long a call waits for a pooled connection while every one is busy. Memory's calls
stop waiting sooner when the database is gone (``PG_RECONNECT_TIMEOUT_S``)."""
PG_RECONNECT_TIMEOUT_S = 1.0
"""How long the pool retries a lost connection before it reports the database unreachable:
memory's calls waiting for a connection then give up (the turn goes on without memory),
and the next call tries again at once (``memory/storage/pg_pool.py``). psycopg's default,
300 s of doubling pauses, kept each memory call waiting the whole ``PG_POOL_TIMEOUT_S``
during an outage and writes away for 20-30 s after it."""
PG_OPEN_CHECK_S = 5.0
"""How long opening memory on a PostgreSQL the pool could not reach waits for one direct
connection that says why (a wrong host, port, user, password or database name), before it
raises ``DatabaseUnreachableError`` naming ``AIMIND_DATABASE_URL``."""
POOL_RECHECK_AFTER_S = 60.0
"""A pooled connection idle longer than this is tested (one round trip) before use. A
server that restarted or dropped the connection is seen sooner, for free: its goodbye
is waiting on the socket (``memory/storage/postgres.py`` ``_has_pending_input``)."""
SQLITE_BUSY_TIMEOUT_S = 30.0
"""How long a SQLite write waits on another writer's lock before memory reports failure."""
SQLITE_WRITE_POLL_S = 0.0005
SQLITE_WRITE_POLL_MAX_S = 0.005
"""Memory's SQLite writes ask again for a write lock another connection holds after this
pause, doubling up to the maximum (``memory/storage/sqlite.py``: SQLite's own busy handler
sleeps 1, 2, 5, 10 ms … however soon the lock is free)."""
SQLITE_QUEUE_WAIT_S = 1.0
"""How long a write to a SQLite file waits its turn behind this process's other writers
of that file before it goes to SQLite's own write lock anyway (``memory/storage/sqlite.py``)."""
SCRUB_ATTEMPTS = 3
SCRUB_RETRY_S = 0.2
"""Forgetting on SQLite empties the WAL; a reader elsewhere may hold it for a moment."""
SQLITE_SETUP_ATTEMPTS = 5
SQLITE_SETUP_RETRY_S = 0.1
"""Processes creating one new SQLite file together: its first statements (the switch to WAL,
the tables) may be refused at once with SQLITE_BUSY, which SQLite returns without waiting
when waiting could deadlock; the set-up is idempotent, so it is tried again."""

WRITE_ATTEMPTS = 64
"""Postgres: tries of one turn's compare-and-put while other processes keep writing the
same session first. Each try re-reads; only a concurrent winner makes one fail, so every
round some writer succeeds."""
WRITE_RETRY_FIRST_S = 0.001
WRITE_RETRY_MAX_S = 0.05
"""Upper bound of the random pause before a retry (doubling from WRITE_RETRY_FIRST_S,
full jitter): writers racing for one session spread out instead of colliding again."""
