"""Lost-turn accounting for deferred and inline compactions (``bench/ledger.py``)."""

from __future__ import annotations

from datetime import UTC, datetime

from aimind_memory.memory import CompactionRequest, FinalTurn, ThreadState, open_memory
from aimind_memory.memory.models import ChatThreadMessage
from bench.ledger import FoldLedger, LedgerCompactor, keep_ledger

TOKEN = "bench-ledger-session-0001"


def _message(i: int) -> ChatThreadMessage:
    role = "user" if i % 2 == 0 else "assistant"
    return ChatThreadMessage(id=f"m{i}", role=role, text=f"text {i}", created_at=datetime.now(UTC))


def _request(ids: range, summary: str = "") -> CompactionRequest:
    return CompactionRequest(
        summary=summary, pinned_decisions=[], folded=[_message(i) for i in ids], kept=[]
    )


async def test_only_folds_the_summary_records_count() -> None:
    ledger = FoldLedger()
    compactor = LedgerCompactor(ledger)
    first = await compactor.compact(_request(range(0, 4)))
    dropped = await compactor.compact(_request(range(4, 6), first.summary))  # never stored
    second = await compactor.compact(_request(range(4, 8), first.summary))
    state = ThreadState(messages=[_message(8), _message(9)], summary=second.summary)

    assert ledger.stored_folds(state) == [["m0", "m1", "m2", "m3"], ["m4", "m5", "m6", "m7"]]
    assert dropped.summary not in state.summary
    assert ledger.audit(state, [f"m{i}" for i in range(10)]) == {
        "lost_turns": 0,
        "folded_twice": 0,
    }
    assert ledger.audit(state, ["m10", "m11"])["lost_turns"] == 2


async def test_a_fold_stored_twice_is_caught() -> None:
    ledger = FoldLedger()
    compactor = LedgerCompactor(ledger)
    first = await compactor.compact(_request(range(0, 4)))
    again = await compactor.compact(_request(range(2, 6), first.summary))
    state = ThreadState(summary=again.summary)

    assert ledger.audit(state, [f"m{i}" for i in range(6)])["folded_twice"] == 2


async def test_a_service_with_deferred_compactions_loses_nothing(db_url: str) -> None:
    ledger = FoldLedger()
    written = []
    async with open_memory(db_url) as mem:
        keep_ledger(mem, ledger)
        for n in range(14):
            ids = (f"u{n}", f"a{n}")
            written += ids
            await mem.append_turn(
                TOKEN,
                FinalTurn(
                    user_text=f"question {n}",
                    assistant_text=f"answer {n}",
                    status="completed",
                    user_message_id=ids[0],
                    assistant_message_id=ids[1],
                ),
            )
        state = await mem.load(TOKEN)

    folded = [i for fold in ledger.stored_folds(state) for i in fold]
    # back to back, some model compactions land and some are overtaken by inline folds
    # (past 12 messages); which, depends on timing, but every turn is accounted for once
    assert ledger.stored_folds(state)
    assert set(folded) | {m.id for m in state.messages} == set(written)
    assert ledger.audit(state, written) == {"lost_turns": 0, "folded_twice": 0}
