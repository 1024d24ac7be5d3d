"""jieba is ready at import: quiet, offline, and no file I/O left for the event loop."""

from __future__ import annotations

import builtins
import os
import subprocess
import sys
import uuid
from pathlib import Path

import jieba
import pytest

from memory import ExtractiveCompactor
from memory.compaction import CompactionRequest
from memory.models import ChatThreadMessage, utcnow

REPO = Path(__file__).resolve().parents[2]
NO_NETWORK = (
    "import socket\n"
    "def refuse(*a, **k):\n"
    "    raise RuntimeError('network use at import')\n"
    "socket.socket.connect = refuse\n"
    "socket.create_connection = refuse\n"
    "import memory.segmenter as s\n"
    "print(' '.join(s.words('我们定了，下个月十号搬家。')))\n"
)


def test_import_is_quiet_offline_and_uses_the_bundled_dictionary() -> None:
    done = subprocess.run(
        [sys.executable, "-c", NO_NETWORK], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["我们", "定", "了", "，", "下个月", "十号", "搬家", "。"]
    assert "Building prefix dict" not in done.stderr and "Loading model" not in done.stderr
    assert (Path(jieba.__file__).parent / jieba.DEFAULT_DICT_NAME).is_file()


def test_a_chinese_compaction_reads_no_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``langgraph dev``'s blocking-call checker would catch inside the event loop."""
    fresh = uuid.uuid4().hex[:6]  # sentences no cache has seen
    texts = [f"我们定了，{fresh}号方案用 PostgreSQL。", f"好的，{fresh}号方案就这么定了。"]
    request = CompactionRequest(
        "",
        [],
        [
            ChatThreadMessage(id=f"m{i}", role=r, text=t, created_at=utcnow())
            for i, (r, t) in enumerate(zip(("user", "assistant"), texts, strict=True))
        ],
        [],
    )

    def blocked(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"file I/O during compaction: {args}")

    for target, name in ((builtins, "open"), (os, "stat"), (os.path, "isfile"), (os, "open")):
        monkeypatch.setattr(target, name, blocked)
    output = ExtractiveCompactor().compact_sync(request)
    monkeypatch.undo()
    assert output.pinned_decisions == [texts[0]]
    assert texts[1] in output.summary  # the pin itself is not repeated there
    assert texts[0] not in output.summary
