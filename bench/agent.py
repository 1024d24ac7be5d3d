"""Benchmark 11: memory in a LangChain v1 agent — ``ChatMemoryMiddleware`` against
``SummarizationMiddleware``, the same conversation through ``create_agent``.

Every contestant is an agent from ``create_agent`` with the same instant model
(``bench/peers.py``'s), on a fresh database of the backend's type, fed the same
turns, one ``ainvoke`` each, turn by turn in rotating order:

- **kept**: ``ChatMemoryMiddleware`` on an agent with the stock saver and one
  thread, whose state keeps the whole conversation (what a UI shows);
- **bounded**: the same with ``trim_state=True`` (the state keeps memory's window);
- **stateless**: no checkpointer at all (contract §13a's lines): memory is the only
  persistence;
- **summarization**: ``SummarizationMiddleware`` on the stock saver, set to ours'
  window as in ``bench/peers.py`` (trigger 12 messages, keep 5), its summariser a
  fake that returns a fixed-size summary (``SUMMARY_CHARS`` characters of the
  conversation's kind of text, ours' cap);
- **same**: ours (stateless) whose compactor returns that same fixed summary and no
  pins, so its characters per model call compare what each side sends, not who
  summarises better.

Ours compact through ``LLMCompactor`` on the instant model (peers' rule: the gist of
the folded user messages, and the sentences that state a decision as pins), after
the turn; that compaction is awaited between turns, outside the timed turn, as in
peers. Figures, as summarization / ours: late-turn cost (p50 of the last turns),
characters per model call, rows and bytes of the agent's thread as stored and after
a ``keep_latest`` prune (what ``langgraph.json``'s TTL asks a server for), plus
memory's own thread for ours; and the planted facts kept — of the decisions the
conversation has stated every fourth turn so far, how many are in the model call, on
average over the late turns — as ours / summarization.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig

from aimind_memory.adapters.chat_memory import ChatMemoryMiddleware
from aimind_memory.adapters.chat_memory.runtime import close_memory, get_memory
from aimind_memory.memory import CompactionOutput, CompactionRequest, open_checkpointer
from aimind_memory.memory.config.limits import SUMMARY_CHARS
from bench.common import (
    BACKENDS,
    GIST_CHARS,
    SYSTEM_PROMPT,
    Backend,
    BenchEnv,
    Profile,
    conversation,
    median,
    pyplot,
    ratio,
    save_figure,
    target,
    thread_storage,
    write_json,
)
from bench.peers import (
    InstantChatModel,
    Script,
    middleware_agent,
    next_turn,
    peers_missing,
)

NAME = "agent"
LABEL = "agent: ChatMemoryMiddleware vs SummarizationMiddleware in create_agent"
OURS = ("kept", "bounded", "stateless")
SAME = "same"
PEER = "summarization"
CONTESTANTS = (*OURS, SAME, PEER)
CHECKPOINTED = ("kept", "bounded", PEER)
TURNS = {"full": 300, "quick": 30}
LATE_SHARE = 6
"""Late-turn cost: the p50 of the last sixth of the turns (50 of 300)."""
TOKEN = "bench-agent-session-0001"
THREAD = "bench-agent-thread"
DECISION_RE = re.compile(r"We decided the \w+ limit is \d+\.")


def fixed_summary(chars: int = SUMMARY_CHARS) -> str:
    """``chars`` characters of the conversation's kind of text (another seed): a summary
    as long as ours may grow, that Postgres compresses no better than the rest."""
    out = ""
    for user, _ in conversation(seed=1011):
        out = f"{out} {user[:GIST_CHARS]}".strip()
        if len(out) >= chars:
            return out[:chars]
    raise AssertionError("unreachable: the conversation is endless")


FIXED_SUMMARY = fixed_summary()


class FixedSummaries:
    """The fixed-size summary for both sides: ``SummarizationMiddleware``'s summariser and
    ours' compactor (no pins). Named ``llm``: it runs after the turn, as a model would."""

    name = "llm"

    def __init__(self) -> None:
        self.calls = 0

    async def summarize(self, messages: list[BaseMessage]) -> str:
        self.calls += 1
        return FIXED_SUMMARY

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        self.calls += 1
        return CompactionOutput(summary=FIXED_SUMMARY, pinned_decisions=[])


def _turns(profile: Profile) -> int:
    return TURNS.get(profile.name, profile.turns)


async def play(env: BenchEnv, backend_name: str, turns: int) -> dict[str, Any]:
    """The whole conversation through every contestant, interleaved turn by turn."""
    dbs = {c: env.backend(backend_name) for c in CONTESTANTS}
    user_texts: dict[int, str] = {}
    scripts = {c: Script(user_texts) for c in CONTESTANTS}
    chats = {c: InstantChatModel(script=scripts[c]) for c in CONTESTANTS}
    fixed = {SAME: FixedSummaries(), PEER: FixedSummaries()}
    compactors: dict[str, Any] = {c: chats[c] for c in OURS} | {SAME: fixed[SAME]}
    times: dict[str, list[float]] = {c: [] for c in CONTESTANTS}
    facts: dict[str, list[int]] = {c: [] for c in CONTESTANTS}
    planted: list[str] = []
    compaction_ms: list[float] = []
    async with AsyncExitStack() as stack:
        savers = {
            c: await stack.enter_async_context(open_checkpointer(dbs[c].url)) for c in CHECKPOINTED
        }
        agents = {
            c: create_agent(
                chats[c],
                [],
                system_prompt=SYSTEM_PROMPT,
                middleware=[
                    ChatMemoryMiddleware(
                        dbs[c].url, compactor=compactors[c], trim_state=c == "bounded"
                    )
                ],
                checkpointer=savers.get(c),
            )
            for c in compactors
        }
        agents[PEER] = middleware_agent(chats[PEER], fixed[PEER].summarize, savers[PEER])
        memories = {c: await get_memory(dbs[c].url, compactor=compactors[c]) for c in compactors}
        texts = conversation()
        started = time.perf_counter()
        for i in range(1, turns + 1):
            user, order = next_turn(texts, i, scripts)
            planted += DECISION_RE.findall(user)
            for c in order:
                config: RunnableConfig | None = (
                    {"configurable": {"thread_id": THREAD}} if c in savers else None
                )
                t0 = time.perf_counter()
                await agents[c].ainvoke(
                    {"messages": [HumanMessage(user)]}, config, context={"session_id": TOKEN}
                )
                times[c].append(1000 * (time.perf_counter() - t0))
                facts[c].append(sum(d in scripts[c].last_shown for d in planted))
                if c in memories:
                    t1 = time.perf_counter()
                    await memories[c].settle(TOKEN)  # the compaction, off the answer's path
                    if c == "stateless":
                        compaction_ms.append(1000 * (time.perf_counter() - t1))
        elapsed = time.perf_counter() - started
        storage = {c: _storage(dbs[c], memories.get(c)) for c in CONTESTANTS}
        for c, saver in savers.items():
            await saver.aprune([THREAD], strategy="keep_latest")
            storage[c]["latest"] = thread_storage(dbs[c], [THREAD])
    await close_memory()
    return {
        "backend": backend_name,
        "turns": turns,
        "elapsed_s": round(elapsed, 1),
        "times_ms": times,
        "ours_compaction_ms": compaction_ms,
        "storage": storage,
        "context_chars": {c: s.context_chars for c, s in scripts.items()},
        "verbatim_turns": {c: s.verbatim_turns for c, s in scripts.items()},
        "summary_calls": {c: scripts[c].summary_calls for c in OURS}
        | {c: f.calls for c, f in fixed.items()},
        "facts_planted": len(planted),
        "facts_kept": facts,
    }


def _storage(db: Backend, memory: Any) -> dict[str, dict[str, int]]:
    agent = thread_storage(db, [THREAD])
    mem = thread_storage(db, [memory.thread_id(TOKEN)]) if memory else {"rows": 0, "bytes": 0}
    total = {k: agent[k] + mem[k] for k in ("rows", "bytes")}
    return {"agent": agent, "memory": mem, "total": total}


def summarize(raw: dict[str, Any]) -> dict[str, Any]:
    late = max(1, raw["turns"] // LATE_SHARE)
    by: dict[str, dict[str, Any]] = {}
    for c in CONTESTANTS:
        times, chars = raw["times_ms"][c], raw["context_chars"][c]
        stored = raw["storage"][c]
        verbatim = raw["verbatim_turns"][c]
        by[c] = {
            "late_turn_p50_ms": round(median(times[-late:]), 3),
            "early_turn_p50_ms": round(median(times[:late]), 3),
            "context_chars_mean": round(sum(chars) / len(chars), 1),
            "context_chars_late_mean": round(sum(chars[-late:]) / late, 1),
            "rows": stored["total"]["rows"],
            "bytes": stored["total"]["bytes"],
            "agent_rows": stored["agent"]["rows"],
            "agent_bytes": stored["agent"]["bytes"],
            "memory_rows": stored["memory"]["rows"],
            "memory_bytes": stored["memory"]["bytes"],
            "latest_rows": stored.get("latest", {}).get("rows", 0) + stored["memory"]["rows"],
            "latest_bytes": stored.get("latest", {}).get("bytes", 0) + stored["memory"]["bytes"],
            "verbatim_turns_mean": round(sum(verbatim) / len(verbatim), 2),
            "summaries_per_100_turns": round(100 * raw["summary_calls"][c] / raw["turns"], 2),
            "facts_kept_late_mean": round(sum(raw["facts_kept"][c][-late:]) / late, 2),
        }
    peer = by[PEER]
    vs = {
        c: {
            "late_turn_p50": ratio(peer["late_turn_p50_ms"], by[c]["late_turn_p50_ms"]),
            "rows": ratio(peer["rows"], by[c]["rows"]),
            "bytes": ratio(peer["bytes"], by[c]["bytes"]),
            "latest_bytes": ratio(peer["latest_bytes"], by[c]["latest_bytes"]),
            "context_chars_mean": ratio(peer["context_chars_mean"], by[c]["context_chars_mean"]),
            "facts_kept": ratio(by[c]["facts_kept_late_mean"], peer["facts_kept_late_mean"]),
        }
        for c in (*OURS, SAME)
    }
    return {
        "late_turns": late,
        "facts_planted": raw["facts_planted"],
        "contestants": by,
        "peer_vs_ours": vs,
    }


LABELS = {
    "kept": "ours, state kept",
    "bounded": "ours, state bounded (trim_state)",
    "stateless": "ours, no checkpointer",
    SAME: "ours, the peer's summary",
    PEER: "SummarizationMiddleware",
}


def plot(raws: list[dict[str, Any]], path: Path) -> None:
    """Time per turn along the conversation, per backend."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(raws), figsize=(6.5 * len(raws), 4.5), squeeze=False)
    for ax, raw in zip(axes[0], raws, strict=True):
        for c in (*OURS, PEER):
            ys = raw["times_ms"][c]
            rolled = [median(ys[max(0, i - 10) : i + 11]) for i in range(len(ys))]
            ax.plot(range(1, len(ys) + 1), rolled, label=LABELS[c], lw=1.3)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("turn")
        ax.set_ylabel("ms per turn (rolling median of 21)")
        ax.set_title(f"create_agent with memory — {raw['backend']}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    save_figure(fig, path)


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    if (missing := peers_missing()) is not None:
        print(f"[bench] agent skipped: {missing}", flush=True)
        return {"benchmark": NAME, "profile": profile.name, "skipped": missing}
    raws = [await play(env, name, _turns(profile)) for name in BACKENDS]
    result = {
        "benchmark": NAME,
        "profile": profile.name,
        "turns": _turns(profile),
        "backends": {raw["backend"]: summarize(raw) for raw in raws},
        "per_turn": {
            raw["backend"]: {k: raw[k] for k in ("times_ms", "context_chars")} for raw in raws
        },
    }
    write_json(out, NAME, result)
    plot(raws, out / f"{NAME}.png")
    return result


# --- targets and the results section ------------------------------------------------------

AHEAD = {
    "late_turn_p50": "late-turn cost (p50)",
    "bytes": "stored bytes (agent thread + memory)",
    "rows": "stored rows (agent thread + memory)",
}
TARGETED = ("bounded", "stateless")
"""The setups that bound what is kept; ``kept`` keeps the whole thread by design."""


def targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    if "skipped" in result:
        return []
    rows = []
    backends = result["backends"]
    for c in TARGETED:
        for figure, label in AHEAD.items():
            values = {b: r["peer_vs_ours"][c][figure] for b, r in backends.items()}
            worst = min(values.values())
            rows.append(
                target(
                    f"{LABELS[c]} ahead of SummarizationMiddleware: {label}",
                    "SummarizationMiddleware / ours (worst backend)",
                    worst,
                    "≥ 1",
                    worst >= 1,
                    ", ".join(f"{b}: {v}" for b, v in values.items()),
                )
            )
    first = next(iter(backends.values()))
    value = first["peer_vs_ours"]["stateless"]["facts_kept"]
    rows.append(
        target(
            "ours: planted facts kept, at least SummarizationMiddleware's",
            "ours / SummarizationMiddleware, per model call in the late turns (every backend)",
            value,
            "≥ 1",
            value >= 1,
            f"with the peer's summary and no pins: {first['peer_vs_ours'][SAME]['facts_kept']}",
        )
    )
    return rows


def readme_section(result: dict[str, Any]) -> list[str]:
    lines = ["### 11. In a LangChain agent: ChatMemoryMiddleware vs SummarizationMiddleware", ""]
    if "skipped" in result:
        return [*lines, f"Skipped in this run: {result['skipped']}.", ""]
    lines += [
        f"The same {result['turns']}-turn conversation through `create_agent`, the same "
        "instant model, each agent on a fresh database of the backend's type "
        "(`bench/agent.py`). Ours: `ChatMemoryMiddleware` with the agent's state kept "
        "(stock saver, one thread), bounded (`trim_state=True`) or without a checkpointer; "
        "its compaction runs after the turn and is awaited outside the timed turn. "
        "`SummarizationMiddleware`: trigger 12 messages, keep 5 (ours' window, as in "
        f"benchmark 8), its summariser a fake returning a fixed {SUMMARY_CHARS:,}-character "
        "summary; *ours, the peer's summary* gets that same summary from its compactor and "
        "no pins. Storage counts the agent's thread and, for ours, memory's thread; "
        "*latest* is after a `keep_latest` prune of the agent's thread (what a server's TTL "
        "sweep does). Planted facts: of the decisions stated every fourth turn so far, those "
        "in the model call, averaged over the late turns. Ratios: SummarizationMiddleware "
        "/ ours (above 1: ours is ahead), facts kept: ours / SummarizationMiddleware.",
        "",
    ]
    for name, r in result["backends"].items():
        by, vs = r["contestants"], r["peer_vs_ours"]
        lines += [
            f"**{name}** ({r['facts_planted']} planted facts; late turns: the last "
            f"{r['late_turns']})",
            "",
            "| figure | " + " | ".join(LABELS[c] for c in CONTESTANTS) + " |",
            "|---|" + "---|" * len(CONTESTANTS),
        ]
        for key, label in (
            ("late_turn_p50_ms", "late turn p50, ms"),
            ("context_chars_mean", "characters per model call, mean"),
            ("rows", "rows as stored"),
            ("bytes", "bytes as stored"),
            ("latest_bytes", "bytes, latest checkpoint only"),
            ("facts_kept_late_mean", "planted facts in a late model call, mean"),
            ("summaries_per_100_turns", "summaries per 100 turns"),
        ):
            lines.append(
                f"| {label} | " + " | ".join(f"{by[c][key]:,}" for c in CONTESTANTS) + " |"
            )
        lines += [
            "",
            "| SummarizationMiddleware / ours | " + " | ".join(LABELS[c] for c in vs) + " |",
            "|---|" + "---|" * len(vs),
        ]
        for key, label in (
            ("late_turn_p50", "late-turn cost"),
            ("context_chars_mean", "characters per model call"),
            ("rows", "rows"),
            ("bytes", "bytes"),
            ("latest_bytes", "bytes, latest checkpoint only"),
            ("facts_kept", "facts kept (ours / theirs)"),
        ):
            lines.append(f"| {label} | " + " | ".join(f"{vs[c][key]}" for c in vs) + " |")
        lines.append("")
    behind = [
        (c, figure)
        for c in (*OURS, SAME)
        for figure in WHY_BEHIND
        if any(r["peer_vs_ours"][c][figure] < 1 for r in result["backends"].values())
    ]
    if behind:
        lines += ["Where ours is not ahead, and why:", ""]
        for c, figure in behind:
            lines.append(f"- {FIGURE_NAMES[figure]}, {LABELS[c]}: {WHY_BEHIND[figure](c)}.")
        lines.append("")
    lines += ["![agent](results/agent.png)", ""]
    return lines


FIGURE_NAMES = {
    "late_turn_p50": "late-turn cost",
    "context_chars_mean": "characters per model call",
    "rows": "rows",
    "bytes": "bytes",
    "latest_bytes": "bytes, latest checkpoint only",
    "facts_kept": "facts kept",
}
_KEPT = "its state keeps the whole conversation, which every checkpoint stores (the price "
_KEPT += "of a thread a UI can show in full, as with any create_agent agent)"
WHY_BEHIND: dict[str, Callable[[str], str]] = {
    "late_turn_p50": lambda c: (
        _KEPT
        if c == "kept"
        else "both write the same four checkpoints and three sets of writes a turn; ours adds "
        "memory's own write, a durable commit of its own thread (apart from the agent's by "
        "design; on SQLite it takes its turn with the saver's commits, no busy-handler "
        "sleep) and, on PostgreSQL, memory's read, a round trip; without a checkpointer "
        "ours is ahead"
    ),
    "context_chars_mean": lambda c: (
        "ours sends the pinned decisions (contract §7) and headers "
        "saying that the summary and pins are background"
        if c != SAME
        else "with the same summary and no pins, what remains is those headers and the window"
    ),
    "rows": lambda c: (
        "both store four checkpoints a turn and the writes of its input, model step and "
        "two branches; ours' after_agent step writes the thread's account of the memory ids "
        "it wrote (for forks) every turn, and with trim_state the removal of the turn that "
        "left the window, where the peer's before_model writes its summary one turn in "
        "three; plus memory's own thread"
        if c != "stateless"
        else "memory's own thread"
    ),
    "bytes": lambda c: (
        _KEPT
        if c == "kept"
        else "ours' agent thread stores every turn the thread's account of the memory ids it "
        "wrote (for forks), as a write and, on PostgreSQL, a blob of its own, and memory's own "
        "thread keeps up to 8 checkpoints between prunes, each with the pins' provenance"
    ),
    "latest_bytes": lambda c: (
        "memory keeps up to 8 checkpoints of its thread between "
        "prunes, each with the summary, pins and window; the peer's pruned thread is one "
        "checkpoint"
    ),
    "facts_kept": lambda c: (
        "without pins a fact survives only verbatim, and the peer's "
        "window holds up to 5 earlier turns, ours up to 4"
    ),
}
