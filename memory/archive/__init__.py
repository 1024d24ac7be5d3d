"""Memory that can look things up (contract §5a): the archive of folded turns, and recall.

What a fold takes out of a memory thread's window is not gone: the write that folds it
stores the messages in the session's archive (``memory.storage.archive``, in the same
transaction), and ``recall`` finds the ones a query is about, within a character budget,
for the model's context (``memory.views.context``) and the ``recall_memory`` tool.

``terms`` is the one tokenizer (English and Chinese) of the index and of queries;
``rank`` is BM25 over one session's archive; ``excerpt`` cuts a long message to the
part a query is about; ``recall`` puts them together. It imports storage's records and
compaction's word lists and Chinese segmenter; the writes and the service use it.
"""

from __future__ import annotations

from collections.abc import Iterable

from aimind_memory.memory.archive.recall import RECALL_EVENT, RecallHit, recall, recall_event
from aimind_memory.memory.archive.terms import ready, words
from aimind_memory.memory.models import ChatThreadMessage
from aimind_memory.memory.storage.archive import ArchiveEntry

__all__ = ["RECALL_EVENT", "RecallHit", "entries", "recall", "recall_event"]


async def entries(messages: Iterable[ChatThreadMessage]) -> list[ArchiveEntry]:
    """``messages`` as archive rows, their words made (Chinese segmenter loaded off the
    event loop first, if any of them needs it)."""
    folded = list(messages)
    if not folded:
        return []
    await ready(m.text for m in folded)
    return [ArchiveEntry(m.id, m.role, m.text, m.created_at, tuple(words(m.text))) for m in folded]
