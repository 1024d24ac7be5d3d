"""Peers, side by side in one run: LangChain v1's ``SummarizationMiddleware`` and langmem's
``SummarizationNode`` against ours, fed the same conversation by the same instant model.

Each contestant is a LangGraph graph on its own fresh database of the same type,
one turn per ``ainvoke``, turn by turn in rotating order:

- **ours**: a graph without a checkpointer (memory is its persistence, as in
  ``graphs/chat``): one node reads memory (``snapshot``) and calls the model on
  ``build_context``; the last node writes the turn (``append_turn``). Compaction
  runs after the turn through ``LLMCompactor`` (structured output) on the same model.
- **middleware**: ``langchain.agents.create_agent`` with ``SummarizationMiddleware``
  on the stock saver: summarise when the state reaches 12 messages (the summary,
  10 earlier messages, the new one), keep the last 5 (2 turns and the new message):
  the model sees 4, 6, 8 earlier messages, a summary every third turn — ours' window.
- **langmem**: a ``MessagesState`` graph, ``SummarizationNode`` → model, on the stock
  saver, writing the summarised list back over ``messages`` (its most frugal setup:
  the documented default keeps the whole history in state beside it). It is token
  driven: it folds every earlier message once they reach ``max_tokens_before_summary``,
  set to about 4½ turns, so the model sees up to 4 earlier turns verbatim, as ours.

The model (``InstantChatModel``) answers chat with the scripted reply and a
summary request with the same rule for all three: the first 120 characters of
each user message it is shown (folded turns and the previous summary), newest
first, up to ``SUMMARY_CHARS``. Token counters are ``count_tokens_approximately``
(no ``tiktoken``). Figures per contestant: the time a turn takes (ours: also the
compaction it starts, timed apart, as it runs off the answer's path), stored bytes
and rows of the thread, characters per model call, summarisation calls per 100
turns; each as peer / ours.

Ours pays for the gate every compaction passes (contract §5, "Memory never trusts a
compactor") inside its figures; the peers have none. Its cost is measured apart, on each of
ours' compactions as it lands (interleaved): the gate's time on that compaction's request
and answer, as a share of the compaction's local time (from the model's answer being asked
for to the landing's write, with an instant model: all of it is memory's own work). The
gate must pass every answer of the instant model whole (none refused, no pin dropped), or
ours would be measured on its fallback.

Fair by construction: every contestant gets the same conversation, the same replies and
the same summary rule, and summarisation requests (ours' included) are not counted in
characters per model call, so the longer compaction prompt ours sends (it also asks for
``replaced_decisions``) costs no figure here, and the instant model names no replaced
pin (``replaced_decisions`` stays empty, its default), so the key gives ours nothing the
peers lack: ours keeps the pins it made, as a model that names none would.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from pydantic import ConfigDict, Field

from aimind_memory.memory import (
    CompactionOutput,
    CompactionRequest,
    FinalTurn,
    LLMCompactor,
    MemoryService,
    build_context,
    open_checkpointer,
    open_memory,
)
from aimind_memory.memory.compaction.gate import inspect
from aimind_memory.memory.config.limits import SUMMARY_CHARS
from aimind_memory.memory.views.context import PINS_HEADER
from bench.common import (
    BACKENDS,
    GIST_CHARS,
    SYSTEM_PROMPT,
    BenchEnv,
    Profile,
    conversation,
    median,
    pct,
    pyplot,
    ratio,
    save_figure,
    target,
    thread_storage,
    write_json,
)

NAME = "peers"
LABEL = "peers: SummarizationMiddleware, langmem"
CONTESTANTS = ("ours", "middleware", "langmem")
PEERS = CONTESTANTS[1:]
TOKEN = "bench-peers-ours-0001"
TURN_RE = re.compile(r"Turn (\d+):")
MIDDLEWARE_TRIGGER_MESSAGES = 12
MIDDLEWARE_KEEP_MESSAGES = 5
LANGMEM_TURNS_BEFORE_SUMMARY = 4.5
LANGMEM_SUMMARY_TOKENS = SUMMARY_CHARS // 4 + 100
GATE_SHARE_GOAL = 0.05
"""The gate costs under this share of a compaction's local time."""


def peers_missing() -> str | None:
    """Why the peers cannot run here, or None: they are the ``bench`` extra."""
    try:
        import langchain.agents  # noqa: F401
        import langmem.short_term  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed (pip install -e '.[bench]')"
    return None


# --- the one instant model ------------------------------------------------------------------


class Script:
    """What the instant model answers and what it was asked, for one contestant."""

    def __init__(self, user_texts: dict[int, str]) -> None:
        self.user_texts = user_texts
        self.reply = ""
        self.summary_calls = 0
        self.context_chars: list[int] = []
        self.verbatim_turns: list[int] = []
        self.pins_chars: list[int] = []
        """Ours only: the pinned-decisions block, which the peers do not have."""
        self.last_shown = ""
        """The text of every message of the last chat call."""

    def summary(self, shown: str) -> str:
        """The first ``GIST_CHARS`` of every user message in ``shown``, newest first."""
        self.summary_calls += 1
        turns = sorted({int(n) for n in TURN_RE.findall(shown)}, reverse=True)
        out = ""
        for n in turns:
            gist = self.user_texts[n][:GIST_CHARS]
            if len(out) + len(gist) + 1 > SUMMARY_CHARS:
                break
            out = f"{out} {gist}".strip()
        return out

    def chat(self, messages: Sequence[BaseMessage]) -> str:
        self.context_chars.append(sum(len(m.text) for m in messages))
        self.last_shown = "\n".join(m.text for m in messages)
        self.verbatim_turns.append(sum(isinstance(m, AIMessage) for m in messages))
        self.pins_chars.append(sum(len(m.text) for m in messages if m.text.startswith(PINS_HEADER)))
        return self.reply


def next_turn(
    texts: Iterator[tuple[str, str]], i: int, scripts: dict[str, Script]
) -> tuple[str, list[str]]:
    """Turn ``i``'s user text — every script now answers it with the turn's reply — and the
    order the contestants (the scripts' keys) take it in, rotating turn by turn."""
    user, assistant = next(texts)
    for script in scripts.values():
        script.user_texts[i] = user
        script.reply = assistant
    names = list(scripts)
    shift = i % len(names)
    return user, names[shift:] + names[:shift]


class InstantChatModel(BaseChatModel):
    """Answers at once: chat with ``script.reply``; a summary (``summarizes=True``, or
    structured output, ours' compaction) by ``Script.summary``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: Script = Field(exclude=True)
    summarizes: bool = False

    @property
    def _llm_type(self) -> str:
        return "bench-instant"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.summarizes:
            text = self.script.summary("\n".join(m.text for m in messages))
        else:
            text = self.script.chat(messages)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Runnable[Any, Any]:
        """Ours' compaction (``LLMCompactor``): its JSON payload in, summary + pins out."""

        def compact(messages: list[BaseMessage]) -> dict[str, Any]:
            payload = json.loads(messages[-1].text)
            folded = [m["text"] for m in payload["fold"] if m["role"] == "user"]
            summary = self.script.summary("\n".join([payload["previous_summary"], *folded]))
            pins = [f"{s.strip()}." for t in folded for s in t.split(".") if "decided" in s]
            return {"summary": summary, "pinned_decisions": pins}

        return RunnableLambda(compact)


class TimedCompactor:
    """Ours' compactor, ``LLMCompactor`` on the instant model, noting when each compaction
    asks it and what it answered: the compaction's local time runs from there to its
    landing, and the gate's cost is measured on the same request and answer."""

    name = "llm"

    def __init__(self, inner: LLMCompactor) -> None:
        self.inner = inner
        self.asked: list[tuple[float, CompactionRequest, CompactionOutput]] = []

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        started = time.perf_counter()
        output = await self.inner.compact(request)
        self.asked.append((started, request, output))
        return output


def gate_cost(compactor: TimedCompactor, landed_at: float, gate: dict[str, list[float]]) -> None:
    """The compaction ``compactor`` answered last, landed at ``landed_at``: its local time,
    then the gate's time on its request and answer (once, as the compaction ran it), and
    whether the gate passed the answer whole."""
    started, request, output = compactor.asked[-1]
    t0 = time.perf_counter()
    verdict = inspect(request, output)
    gate["gate_ms"].append(1000 * (time.perf_counter() - t0))
    gate["local_ms"].append(1000 * (landed_at - started))
    gate["not_whole"].append(float(verdict.refused is not None or verdict.dropped > 0))


# --- the contestants ------------------------------------------------------------------------


def _chain(state: type, nodes: list[tuple[str, Any]], saver: Any = None) -> Any:
    """A graph running ``nodes`` one after another."""
    builder: StateGraph[Any] = StateGraph(state)
    previous = START
    for name, node in nodes:
        builder.add_node(name, node)
        builder.add_edge(previous, name)
        previous = name
    builder.add_edge(previous, END)
    return builder.compile(checkpointer=saver)


class OursState(TypedDict, total=False):
    user: str
    answer: str


def ours_graph(mem: MemoryService, model: BaseChatModel) -> Any:
    """Read memory and answer; write the turn. No checkpointer: memory is the persistence."""

    async def answer(state: OursState) -> dict[str, Any]:
        memory = (await mem.snapshot(TOKEN)).state
        context = build_context(memory, system_prompt=SYSTEM_PROMPT, latest_user_text=state["user"])
        return {"answer": (await model.ainvoke(context)).text}

    async def remember(state: OursState) -> dict[str, Any]:
        turn = FinalTurn(
            user_text=state["user"], assistant_text=state["answer"], status="completed"
        )
        await mem.append_turn(TOKEN, turn)
        return {}

    return _chain(OursState, [("answer", answer), ("remember", remember)])


def middleware_agent(chat: BaseChatModel, summarizer: Any, saver: Any) -> Any:
    """``SummarizationMiddleware`` set to ours' window; ``summarizer`` writes its summaries
    (a chat model, or a function of the messages to fold)."""
    from langchain.agents import create_agent
    from langchain.agents.middleware import SummarizationMiddleware

    middleware = SummarizationMiddleware(
        model=chat,
        trigger=("messages", MIDDLEWARE_TRIGGER_MESSAGES),
        keep=("messages", MIDDLEWARE_KEEP_MESSAGES),
        token_counter=count_tokens_approximately,
        summarizer=summarizer,
    )
    return create_agent(
        chat, tools=[], system_prompt=SYSTEM_PROMPT, middleware=[middleware], checkpointer=saver
    )


class LangmemState(MessagesState):
    context: dict[str, Any]


def langmem_graph(
    chat: BaseChatModel,
    summarizer: BaseChatModel,
    saver: BaseCheckpointSaver[str],
    turn_tokens: int,
) -> Any:
    from langmem.short_term import SummarizationNode

    before = round(LANGMEM_TURNS_BEFORE_SUMMARY * turn_tokens)
    node = SummarizationNode(
        model=summarizer,
        max_tokens=4 * before,
        max_tokens_before_summary=before,
        max_summary_tokens=LANGMEM_SUMMARY_TOKENS,
        token_counter=count_tokens_approximately,
        input_messages_key="messages",
        output_messages_key="messages",
    )

    async def answer(state: LangmemState) -> dict[str, Any]:
        reply = await chat.ainvoke([SystemMessage(SYSTEM_PROMPT), *state["messages"]])
        return {"messages": [reply]}

    return _chain(LangmemState, [("summarize", node), ("answer", answer)], saver)


def mean_turn_tokens(turns: int = 100) -> int:
    """Approximate tokens of one turn of the bench conversation (user + answer)."""
    texts = conversation()
    total = 0
    for _ in range(turns):
        user, assistant = next(texts)
        total += count_tokens_approximately([HumanMessage(user), AIMessage(assistant)])
    return round(total / turns)


# --- the run ------------------------------------------------------------------------------


async def play(env: BenchEnv, backend_name: str, profile: Profile) -> dict[str, Any]:
    """The whole conversation through every contestant, interleaved turn by turn."""
    dbs = {c: env.backend(backend_name) for c in CONTESTANTS}
    user_texts: dict[int, str] = {}
    scripts = {c: Script(user_texts) for c in CONTESTANTS}
    models = {c: InstantChatModel(script=scripts[c]) for c in CONTESTANTS}
    summarizers = {c: InstantChatModel(script=scripts[c], summarizes=True) for c in PEERS}
    threads = {"middleware": "bench-peers-middleware", "langmem": "bench-peers-langmem"}
    async with AsyncExitStack() as stack:
        timed = TimedCompactor(LLMCompactor(models["ours"]))
        mem = await stack.enter_async_context(open_memory(dbs["ours"].url, compactor=timed))
        savers = {c: await stack.enter_async_context(open_checkpointer(dbs[c].url)) for c in PEERS}
        graphs = {
            "ours": ours_graph(mem, models["ours"]),
            "middleware": middleware_agent(
                models["middleware"], summarizers["middleware"], savers["middleware"]
            ),
            "langmem": langmem_graph(
                models["langmem"], summarizers["langmem"], savers["langmem"], mean_turn_tokens()
            ),
        }
        threads["ours"] = mem.thread_id(TOKEN)
        times: dict[str, list[float]] = {c: [] for c in CONTESTANTS}
        compaction_ms: list[float] = []
        gate: dict[str, list[float]] = {"gate_ms": [], "local_ms": [], "not_whole": []}
        storage: dict[str, dict[str, dict[str, int]]] = {}
        texts = conversation()
        started = time.perf_counter()
        for i in range(1, profile.turns + 1):
            user, order = next_turn(texts, i, scripts)
            for c in order:
                t0 = time.perf_counter()
                if c == "ours":
                    await graphs[c].ainvoke({"user": user})
                    times[c].append(1000 * (time.perf_counter() - t0))
                    asked, t1 = len(timed.asked), time.perf_counter()
                    await mem.settle(TOKEN)  # the compaction, off the answer's path
                    landed_at = time.perf_counter()
                    compaction_ms.append(1000 * (landed_at - t1))
                    if len(timed.asked) > asked:
                        gate_cost(timed, landed_at, gate)
                else:
                    config = {"configurable": {"thread_id": threads[c]}}
                    await graphs[c].ainvoke({"messages": [HumanMessage(user)]}, config)
                    times[c].append(1000 * (time.perf_counter() - t0))
            if i in profile.storage_marks:
                storage[str(i)] = {c: thread_storage(dbs[c], [threads[c]]) for c in CONTESTANTS}
    return {
        "backend": backend_name,
        "turns": profile.turns,
        "elapsed_s": round(time.perf_counter() - started, 1),
        "times_ms": times,
        "ours_compaction_ms": compaction_ms,
        "ours_gate": gate,
        "storage": storage,
        "context_chars": {c: s.context_chars for c, s in scripts.items()},
        "verbatim_turns": {c: s.verbatim_turns for c, s in scripts.items()},
        "summary_calls": {c: s.summary_calls for c, s in scripts.items()},
        "ours_pins_chars": scripts["ours"].pins_chars,
    }


def summarize(raw: dict[str, Any]) -> dict[str, Any]:
    turns = raw["turns"]
    last = list(raw["storage"])[-1]
    by: dict[str, dict[str, Any]] = {}
    for c in CONTESTANTS:
        times = raw["times_ms"][c]
        chars = raw["context_chars"][c]
        verbatim = raw["verbatim_turns"][c]
        stored = raw["storage"][last][c]
        by[c] = {
            "turn_p50_ms": round(median(times), 3),
            "turn_p99_ms": round(pct(times, 99), 3),
            "turn_mean_ms": round(sum(times) / len(times), 3),
            "storage_bytes": stored["bytes"],
            "rows": stored["rows"],
            "context_chars_mean": round(sum(chars) / len(chars), 1),
            "context_chars_max": max(chars),
            "verbatim_turns_min_mean_max": [
                min(verbatim),
                round(sum(verbatim) / len(verbatim), 2),
                max(verbatim),
            ],
            "summaries_per_100_turns": round(100 * raw["summary_calls"][c] / turns, 2),
        }
    ours_work = [
        t + c for t, c in zip(raw["times_ms"]["ours"], raw["ours_compaction_ms"], strict=True)
    ]
    by["ours"]["turn_with_compaction_mean_ms"] = round(sum(ours_work) / len(ours_work), 3)
    pins = raw["ours_pins_chars"]
    by["ours"]["pins_block_chars_mean"] = round(sum(pins) / len(pins), 1)
    if gate := raw.get("ours_gate"):
        by["ours"]["gate"] = {
            "compactions": len(gate["gate_ms"]),
            "gate_ms_p50": round(median(gate["gate_ms"]), 3),
            "compaction_local_ms_p50": round(median(gate["local_ms"]), 3),
            "share": ratio(sum(gate["gate_ms"]), sum(gate["local_ms"])),
            "share_p90": round(
                pct([g / t for g, t in zip(gate["gate_ms"], gate["local_ms"], strict=True)], 90), 3
            ),
            "not_whole": int(sum(gate["not_whole"])),
        }
    ours = by["ours"]
    ratios = {
        p: {
            "turn_p50": ratio(by[p]["turn_p50_ms"], ours["turn_p50_ms"]),
            "turn_mean_vs_ours_with_compaction": ratio(
                by[p]["turn_mean_ms"], ours["turn_with_compaction_mean_ms"]
            ),
            "storage_bytes": ratio(by[p]["storage_bytes"], ours["storage_bytes"]),
            "rows": ratio(by[p]["rows"], ours["rows"]),
            "context_chars_mean": ratio(by[p]["context_chars_mean"], ours["context_chars_mean"]),
            "summaries_per_100_turns": ratio(
                by[p]["summaries_per_100_turns"], ours["summaries_per_100_turns"]
            ),
        }
        for p in PEERS
    }
    return {"storage_at_turns": int(last), "contestants": by, "peer_vs_ours": ratios}


LABELS = {
    "ours": "ours",
    "middleware": "SummarizationMiddleware (create_agent)",
    "langmem": "langmem SummarizationNode",
}


def plot(raws: list[dict[str, Any]], path: Path) -> None:
    """Top: turn cost along the conversation; bottom: every figure as peer / ours."""
    plt = pyplot()
    fig, axes = plt.subplots(2, len(raws), figsize=(6.5 * len(raws), 8), squeeze=False)
    for col, raw in enumerate(raws):
        ax = axes[0][col]
        for c in CONTESTANTS:
            ys = raw["times_ms"][c]
            rolled = [median(ys[max(0, i - 25) : i + 26]) for i in range(len(ys))]
            ax.plot(range(1, len(ys) + 1), rolled, label=LABELS[c], lw=1.3)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("turn")
        ax.set_ylabel("ms per turn (rolling median of 51)")
        ax.set_title(f"Peers: time per turn — {raw['backend']}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        ax = axes[1][col]
        ratios = summarize(raw)["peer_vs_ours"]
        width = 0.38
        for k, peer in enumerate(PEERS):
            xs = [j + (k - 0.5) * width for j in range(len(FIGURES))]
            ax.bar(xs, [ratios[peer][f] for f in FIGURES], width, label=LABELS[peer])
        ax.axhline(1, c="k", lw=0.8)
        ax.set_yscale("log")
        ax.set_xticks(range(len(FIGURES)), [f.replace("_", "\n") for f in FIGURES], fontsize=7)
        ax.set_ylabel("peer / ours (above 1: ours is ahead)")
        ax.set_title(f"Peers against ours — {raw['backend']}")
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=8)
    save_figure(fig, path)


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    if (missing := peers_missing()) is not None:
        print(f"[bench] peers skipped: {missing}", flush=True)
        return {"benchmark": NAME, "profile": profile.name, "skipped": missing}
    raws = [await play(env, name, profile) for name in BACKENDS]
    result = {
        "benchmark": NAME,
        "profile": profile.name,
        "turns": profile.turns,
        "setup": {
            "middleware": {
                "trigger": ["messages", MIDDLEWARE_TRIGGER_MESSAGES],
                "keep": ["messages", MIDDLEWARE_KEEP_MESSAGES],
            },
            "langmem": {
                "max_tokens_before_summary_turns": LANGMEM_TURNS_BEFORE_SUMMARY,
                "turn_tokens": mean_turn_tokens(),
                "output_messages_key": "messages",
            },
        },
        "backends": {raw["backend"]: summarize(raw) for raw in raws},
        "per_turn": {
            raw["backend"]: {k: raw[k] for k in ("times_ms", "context_chars")} for raw in raws
        },
    }
    write_json(out, NAME, result)
    plot(raws, out / f"{NAME}.png")
    return result


# --- targets and the results section ------------------------------------------------------

FIGURES = {
    "turn_p50": "time per turn, p50",
    "storage_bytes": "stored bytes of the thread",
    "rows": "rows of the thread",
    "context_chars_mean": "characters per model call, mean",
    "summaries_per_100_turns": "summarisation calls per 100 turns",
}
BACKEND_FREE = ("context_chars_mean", "summaries_per_100_turns")
"""The same on every backend: the same conversation through the same logic."""


def _why_behind(figure: str, peer: str, ours: dict[str, Any], theirs: dict[str, Any]) -> str:
    if figure == "context_chars_mean":
        text = (
            f"ours carries the pinned-decisions block ({ours['pins_block_chars_mean']:.0f} "
            "chars per call on average; the peers keep no pins) and headers saying the summary "
            "and pins are background (contract §7)"
        )
        if theirs["verbatim_turns_min_mean_max"][1] < ours["verbatim_turns_min_mean_max"][1]:
            text += (
                f"; {peer} also shows fewer earlier turns verbatim "
                f"({theirs['verbatim_turns_min_mean_max'][1]} vs ours "
                f"{ours['verbatim_turns_min_mean_max'][1]} on average)"
            )
        return text
    if figure == "summaries_per_100_turns" and peer == "langmem":
        return (
            "langmem folds every unsummarised message at once when they pass "
            "max_tokens_before_summary, so after a summary the model sees no earlier turn "
            "verbatim; ours keeps the last 2 turns when it folds (contract §5), so it folds every "
            "third turn. Set to fold every third turn, langmem would show at most 2 turns "
            "verbatim"
        )
    if figure == "summaries_per_100_turns":
        return (
            "the same cadence by construction (it is set to ours' window, so both fold every "
            "third turn); before its first summary its trigger counts no summary message, "
            "so its first fold comes two turns after ours"
        )
    return "see the figures above"


def targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    if "skipped" in result:
        return []
    rows = []
    backends = result["backends"]
    for peer in PEERS:
        for figure, label in FIGURES.items():
            names = list(backends)[:1] if figure in BACKEND_FREE else list(backends)
            values = {b: backends[b]["peer_vs_ours"][peer][figure] for b in names}
            worst = min(values.values())
            note = ", ".join(f"{b}: {v}" for b, v in values.items()) if len(values) > 1 else ""
            rows.append(
                target(
                    f"ahead of {LABELS[peer]}: {label}",
                    f"{peer} / ours (worst backend)"
                    if len(values) > 1
                    else f"{peer} / ours (every backend)",
                    worst,
                    "≥ 1",
                    worst >= 1,
                    note,
                )
            )
    for name, r in backends.items():
        gate = r["contestants"]["ours"].get("gate")
        if gate is None:  # a result from before the gate was measured
            continue
        rows.append(
            target(
                f"the gate costs little of a compaction's local time [{name}]",
                "gate time / compaction local time, all compactions",
                gate["share"],
                f"< {GATE_SHARE_GOAL}",
                gate["share"] < GATE_SHARE_GOAL and gate["not_whole"] == 0,
                f"{gate['compactions']} compactions; p50 {gate['gate_ms_p50']} of "
                f"{gate['compaction_local_ms_p50']} ms; p90 of each share {gate['share_p90']}; "
                f"answers not passed whole {gate['not_whole']}",
            )
        )
    return rows


def readme_section(result: dict[str, Any]) -> list[str]:
    lines = ["### 8. Peers: SummarizationMiddleware and langmem", ""]
    if "skipped" in result:
        return [*lines, f"Skipped in this run: {result['skipped']}.", ""]
    setup = result["setup"]
    lines += [
        f"The same {result['turns']:,}-turn conversation, the same instant model, each on "
        "a fresh database of the backend's type (`bench/peers.py`). Ours: memory's graph "
        "without a checkpointer (`snapshot` → model → `append_turn`; its compaction runs "
        "after the turn and is timed apart). `SummarizationMiddleware` (an agent from "
        "`create_agent`): trigger at "
        f"{setup['middleware']['trigger'][1]} messages, keep {setup['middleware']['keep'][1]}"
        " (2 turns and the new message): the window ours keeps. langmem `SummarizationNode`"
        f": `max_tokens_before_summary` ≈ {setup['langmem']['max_tokens_before_summary_turns']}"
        f" turns ({setup['langmem']['turn_tokens']} approximate tokens each), writing back "
        "over `messages`, so at most 4 earlier turns stay verbatim, as ours. Both peers count "
        "tokens with `count_tokens_approximately` and run on the stock saver.",
        "",
    ]
    for name, r in result["backends"].items():
        by, vs = r["contestants"], r["peer_vs_ours"]
        lines += [
            f"**{name}** (storage at {r['storage_at_turns']:,} turns)",
            "",
            "| figure | ours | middleware | langmem | middleware / ours | langmem / ours |",
            "|---|---|---|---|---|---|",
        ]
        keys = {
            "turn_p50": "turn_p50_ms",
            "storage_bytes": "storage_bytes",
            "rows": "rows",
            "context_chars_mean": "context_chars_mean",
            "summaries_per_100_turns": "summaries_per_100_turns",
        }
        for figure, label in FIGURES.items():
            cells = [f"{by[c][keys[figure]]:,}" for c in CONTESTANTS]
            lines.append(
                f"| {label} | {' | '.join(cells)} | {vs['middleware'][figure]} | "
                f"{vs['langmem'][figure]} |"
            )
        verbatim = [by[c]["verbatim_turns_min_mean_max"] for c in CONTESTANTS]
        lines.append(
            "| earlier turns verbatim per call, min / mean / max | "
            + " | ".join(" / ".join(map(str, v)) for v in verbatim)
            + " | | |"
        )
        lines.append(
            f"| ours: turn + its compaction, mean ms | {by['ours']['turn_with_compaction_mean_ms']}"
            f" | {by['middleware']['turn_mean_ms']} | {by['langmem']['turn_mean_ms']} | "
            f"{vs['middleware']['turn_mean_vs_ours_with_compaction']} | "
            f"{vs['langmem']['turn_mean_vs_ours_with_compaction']} |"
        )
        if gate := by["ours"].get("gate"):
            lines.append(
                f"| ours: the gate, share of a compaction's local time (p50 ms of p50 ms) | "
                f"{gate['share']} ({gate['gate_ms_p50']} of {gate['compaction_local_ms_p50']}) "
                "| | | | |"
            )
        lines.append("")
    first = next(iter(result["backends"].values()))
    behind = [
        (peer, figure)
        for peer in PEERS
        for figure in FIGURES
        if any(b["peer_vs_ours"][peer][figure] < 1 for b in result["backends"].values())
    ]
    if behind:
        lines += ["Where ours is not ahead, and why:", ""]
        for peer, figure in behind:
            why = _why_behind(
                figure, peer, first["contestants"]["ours"], first["contestants"][peer]
            )
            lines.append(f"- {FIGURES[figure]} vs {LABELS[peer]}: {why}.")
        lines.append("")
    lines += ["![peers](results/peers.png)", ""]
    return lines
