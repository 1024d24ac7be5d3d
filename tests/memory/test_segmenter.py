"""jieba: quiet, offline, not loaded at import, and never read from a file on the event loop."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import jieba

from aimind_memory.memory.compaction.analysis import segmenter

REPO = Path(__file__).resolve().parents[2]
NO_NETWORK = (
    "import socket\n"
    "def refuse(*a, **k):\n"
    "    raise RuntimeError('network use at import')\n"
    "socket.socket.connect = refuse\n"
    "socket.create_connection = refuse\n"
    "import aimind_memory.memory.compaction.analysis.segmenter as s\n"
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


BLOCKED_LOOP_IO = """
import asyncio, builtins, os, sys, threading
from aimind_memory.memory import ExtractiveCompactor
from aimind_memory.memory.compaction import CompactionRequest
from aimind_memory.memory.compaction.analysis import segmenter
from aimind_memory.memory.models import ChatThreadMessage, utcnow

texts = sys.argv[1:3]
request = CompactionRequest("", [], [
    ChatThreadMessage(id=f"m{i}", role=r, text=t, created_at=utcnow())
    for i, (r, t) in enumerate(zip(("user", "assistant"), texts, strict=True))
], [])
main = threading.main_thread()
seen = []

def on_loop_only(original):
    def guarded(*args, **kwargs):
        if threading.current_thread() is main:
            seen.append(str(args[0])[:80] if args else "?")
        return original(*args, **kwargs)
    return guarded

loaded_before = segmenter.is_loaded()
for target, name in ((builtins, "open"), (os, "stat"), (os.path, "isfile"), (os, "open")):
    setattr(target, name, on_loop_only(getattr(target, name)))
output = asyncio.run(ExtractiveCompactor().compact(request))
print(loaded_before, segmenter.is_loaded(), len(seen))
print(output.pinned_decisions == [texts[0]], texts[1] in output.summary, texts[0] in output.summary)
"""


def test_a_chinese_compaction_reads_no_file_on_the_event_loop() -> None:
    """What ``langgraph dev``'s blocking-call checker would catch: in a fresh process, the
    first Chinese compaction loads jieba in a worker thread, never on the loop."""
    fresh = uuid.uuid4().hex[:6]  # sentences no cache has seen
    texts = [f"我们定了，{fresh}号方案用 PostgreSQL。", f"好的，{fresh}号方案就这么定了。"]
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED_LOOP_IO, *texts],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    loading, outcome = done.stdout.split("\n")[-3:-1]
    assert loading == "False True 0"  # not loaded at import; loaded by it; no loop file I/O
    assert outcome == "True True False"  # pinned; the reply in the summary, the pin not again


CUT_TEXTS = [
    "我们定了，下个月十号搬家。",
    "周五晚上在海底捞订个位子，4个人。好的，周五晚上海底捞，4位。",
    "数据库最终用 PostgreSQL，部署在 Fly.io 上（v2.1 版本）。",
    "不对，改成 MySQL 吧！！  还是下周三下午3:30开会？",
    "a\r\nb 中文。\t测试\u3000全角空格——破折号…省略号",
    "Node.js, C# & C++ 100% 的 e-mail_地址",
    "",
    " ",
]


def test_the_cut_is_jiebas_own_block_by_block() -> None:
    """``segmenter`` cuts a text one block at a time, each block's cut cached: the words
    are exactly jieba's ``lcut`` of the whole text (jieba's blocks are independent)."""
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    for text in CUT_TEXTS:
        assert segmenter._cut(text) == tokenizer.lcut(text), text
        for start in range(0, len(text), 3):  # its pieces too: clauses, what is left
            piece = text[start : start + 9]
            assert segmenter._cut(piece) == tokenizer.lcut(piece), piece
