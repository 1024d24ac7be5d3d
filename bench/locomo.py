"""Benchmark 17: LoCoMo's questions — is the answer in what the model would be given?

Each of LoCoMo's ten long conversations (``snap-research/locomo``, ``data/locomo10.zip``,
read from ``AIMIND_BENCH_LOCOMO``, never downloaded) is replayed through ``open_memory``
with the default offline compactor (extractive), as the small-talk bench replays it
(``bench.chitchat.locomo_turns``: a speaker's consecutive lines are one message, the
messages alternate user/assistant). Then, for each short-answer question (one with an
``answer`` of at most ``SHORT_ANSWER_WORDS`` words: categories 1–4), the exact answer
string (case and spacing folded) is looked for in:

- **memory**: the final memory alone (summary, pins, the recent window);
- **memory + recall**: that and ``recall(question)`` — the archive of folded turns,
  within ``AIMIND_RECALL_CHARS`` (1,500): what the model's context holds for that question;
- **recall**: the recalled text alone;
- **BM25** (baseline): a plain Okapi BM25 over the conversation's messages (the replayed
  ones, lower-case words, no stop words, no stemming), asked the question, best first,
  cut at 1,500 characters; and **BM25 + memory**;
- **whole conversation**: every message (the ceiling: an answer LoCoMo phrases in words
  nobody said, e.g. a date worked out from "yesterday", is in none of them).

The ranking was fixed before this bench first ran; LoCoMo is never tuned on. The first
run's figures are kept in ``FIRST_RUN`` and reported beside each run's.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aimind_memory.memory import ExtractiveCompactor, FinalTurn, ThreadState, open_memory
from aimind_memory.memory.config.limits import RECALL_CHARS, MemoryLimits
from bench import chitchat
from bench.common import BACKENDS, BenchEnv, Profile, write_json
from bench.common import target as _target

NAME = "locomo"
LABEL = "LoCoMo: answers in memory + recall"

SHORT_ANSWER_WORDS = 5
"""A short-answer question: its answer is at most this many words."""
RECALL_GOAL = 0.40
"""Share of the short-answer questions whose answer is in memory + recall."""
BASELINE_CHARS = RECALL_CHARS
"""The plain BM25 baseline gets the same budget as recall."""
QUICK_CONVERSATIONS = 1
BM25_K1, BM25_B = 1.5, 0.75
MEASURES = ("memory", "memory_recall", "recall", "bm25", "bm25_memory", "whole")
FIRST_RUN: dict[str, float] | None = {
    "memory": 0.1759,
    "memory_recall": 0.3556,
    "recall": 0.2889,
    "bm25": 0.2722,
    "bm25_memory": 0.3481,
    "whole": 0.4759,
}
"""This bench's first full run (1,080 questions, ten conversations, identical on SQLite and
PostgreSQL), with the ranking as first committed: the figure the goal is judged on."""

_WORD = re.compile(r"[a-z0-9]+")


def normal(text: str) -> str:
    """Case and spacing folded: how an answer is looked for."""
    return " ".join(text.casefold().split())


def questions(conversation: dict[str, Any]) -> list[tuple[str, str]]:
    """The conversation's short-answer questions and their answers."""
    out = []
    for qa in conversation.get("qa", []):
        if "answer" not in qa:
            continue
        answer = str(qa["answer"]).strip()
        if answer and len(answer.split()) <= SHORT_ANSWER_WORDS:
            out.append((qa["question"], answer))
    return out


def memory_text(state: ThreadState) -> str:
    return "\n".join([state.summary, *state.pinned_decisions, *(m.text for m in state.messages)])


def bm25_cut(messages: Sequence[str], question: str, chars: int = BASELINE_CHARS) -> str:
    """A plain BM25 over ``messages`` for ``question``, best first, cut at ``chars``."""
    docs = [_WORD.findall(m.casefold()) for m in messages]
    query = set(_WORD.findall(question.casefold()))
    holding = Counter(w for d in docs for w in set(d) if w in query)
    average = sum(map(len, docs)) / max(len(docs), 1)
    n = len(docs)
    scored = []
    for index, doc in enumerate(docs):
        counts = Counter(w for w in doc if w in query)
        norm = BM25_K1 * (1 - BM25_B + BM25_B * len(doc) / max(average, 1))
        score = sum(
            math.log(1 + (n - holding[w] + 0.5) / (holding[w] + 0.5))
            * c
            * (BM25_K1 + 1)
            / (c + norm)
            for w, c in counts.items()
        )
        if score > 0:
            scored.append((-score, index))
    out, left = [], chars
    for _, index in sorted(scored):
        if left <= 0:
            break
        text = messages[index][:left]
        out.append(text)
        left -= len(text)
    return "\n".join(out)


async def replay(url: str, chat_id: str, conversation: dict[str, Any]) -> dict[str, Any]:
    """One conversation through memory, then its questions: counts per measure."""
    turns = chitchat.locomo_turns(conversation)
    limits = MemoryLimits()
    session = f"locomo-bench-{chat_id}-session"
    counts = dict.fromkeys(MEASURES, 0)
    recall_chars = 0
    asked = questions(conversation)
    messages = [text for pair in turns for text in pair]
    whole = normal("\n".join(messages))
    async with open_memory(url, compactor=ExtractiveCompactor(limits), limits=limits) as mem:
        for user, assistant in turns:
            turn = FinalTurn(user_text=user, assistant_text=assistant, status="completed")
            await mem.append_turn(session, turn)
        state = await mem.load(session)
        memory = normal(memory_text(state))
        for question, answer in asked:
            recalled = "\n".join(h.text for h in await mem.recall(session, question))
            recall_chars += len(recalled)
            baseline = normal(bm25_cut(messages, question))
            wanted = normal(answer)
            found = {
                "memory": wanted in memory,
                "recall": wanted in normal(recalled),
                "bm25": wanted in baseline,
                "whole": wanted in whole,
            }
            found["memory_recall"] = found["memory"] or found["recall"]
            found["bm25_memory"] = found["memory"] or found["bm25"]
            for measure, hit in found.items():
                counts[measure] += hit
    return {
        "id": chat_id,
        "turns": len(turns),
        "questions": len(asked),
        "counts": counts,
        "recall_chars_mean": round(recall_chars / max(len(asked), 1), 1),
    }


def shares(conversations: list[dict[str, Any]]) -> dict[str, float]:
    asked = sum(c["questions"] for c in conversations)
    return {m: round(sum(c["counts"][m] for c in conversations) / asked, 4) for m in MEASURES}


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    source = chitchat.source(chitchat.LOCOMO_ENV)
    if isinstance(source, str):
        result: dict[str, Any] = {"absent": source}
        write_json(out, NAME, result)
        return result
    files = chitchat.locomo_files(source)
    if profile.name == "quick":
        files = files[:QUICK_CONVERSATIONS]
    backends: dict[str, Any] = {}
    for name in BACKENDS:
        conversations = []
        for chat_id, conversation in files:
            url = env.backend(name).url
            print(f"[bench] locomo {chat_id} on {name}", flush=True)
            conversations.append(await replay(url, chat_id, conversation))
        backends[name] = {
            "conversations": conversations,
            "questions": sum(c["questions"] for c in conversations),
            "shares": shares(conversations),
        }
    result = {
        "profile": profile.name,
        "conversations": len(files),
        "backends": backends,
        "same_on_every_backend": len({str(b["conversations"]) for b in backends.values()}) == 1,
        "first_run": FIRST_RUN,
    }
    write_json(out, NAME, result)
    return result


def targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    if "absent" in r:
        return []
    out = []
    for name, b in r["backends"].items():
        s = b["shares"]
        out.append(
            _target(
                f"LoCoMo answers in memory + recall ≥ {RECALL_GOAL:.0%} [{name}]",
                "short-answer questions whose exact answer is in memory + recall(question)",
                s["memory_recall"],
                f"≥ {RECALL_GOAL}",
                s["memory_recall"] >= RECALL_GOAL,
                f"memory alone {s['memory']:.1%}, BM25 {s['bm25']:.1%}, BM25 + memory "
                f"{s['bm25_memory']:.1%}, whole conversation {s['whole']:.1%}; "
                f"{b['questions']} questions, {r['conversations']} conversations",
            )
        )
    out.append(
        _target(
            "LoCoMo: recall ranks alike on every backend",
            "per-conversation counts identical on SQLite and PostgreSQL",
            1.0 if r["same_on_every_backend"] else 0.0,
            "1",
            bool(r["same_on_every_backend"]),
        )
    )
    return out


METHOD = (
    "Each LoCoMo conversation replayed through `open_memory` (extractive compactor), then "
    "each short-answer question (answer of at most 5 words, categories 1–4): is the exact "
    "answer string (case and spacing folded) in the final memory, in memory + "
    "`recall(question)` (1,500 characters of the archive), in a plain BM25 over the "
    "conversation's messages cut at 1,500 characters, or anywhere in the conversation? "
    "The ranking was fixed before the first run; LoCoMo is never tuned on."
)


def readme_section(r: dict[str, Any]) -> list[str]:
    lines = ["### 17. LoCoMo: memory that can look things up", "", METHOD, ""]
    if "absent" in r:
        return [*lines, f"Not run: {r['absent']}.", ""]
    lines += [
        "| backend | questions | memory | memory + recall | recall | BM25 | BM25 + memory "
        "| whole conversation |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, b in r["backends"].items():
        s = b["shares"]
        cells = " | ".join(f"{s[m]:.1%}" for m in ("memory", "memory_recall", "recall"))
        rest = " | ".join(f"{s[m]:.1%}" for m in ("bm25", "bm25_memory", "whole"))
        lines.append(f"| {name} | {b['questions']} | {cells} | {rest} |")
    if r.get("first_run"):
        first = r["first_run"]
        shown = ", ".join(f"{m.replace('_', ' + ')} {first[m]:.1%}" for m in MEASURES)
        lines += ["", f"First run (the ranking as first committed): {shown}."]
    return [*lines, ""]
