"""Benchmark 13: pins are decisions, not small talk — what people chatting get pinned.

Replays the held-out part of public casual chats (``bench/chitchat.py``: LoCoMo and
DailyDialog in English, CPED and KdConv in Chinese) through ``open_memory`` with the
extractive compactor and reads the pins against labels made by hand
(``tests/memory/data/smalltalk/``: a hash of each pin, so no corpus text is in the repo):
of the final pins, how many are small talk, and of every pin made on the way (a pin may
be evicted before the end). Also: the held-out small-talk sentences
(``tests/memory/data/decisions/heldout_smalltalk_*.jsonl``), each folded alone.

``python -m bench.smalltalk`` prints the **tuning** part's pins with their labels (what
the rules are tuned on); it replays the held-out part only when told (``--split heldout``).
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from bench import chitchat
from bench.common import BenchEnv, Profile, write_json
from bench.common import target as _target
from bench.recall import DATA, labelled, pin_key, precision_recall
from memory import ExtractiveCompactor, FinalTurn, open_memory
from memory.compaction import CompactionRequest
from memory.models import CompactionOutput

NAME = "smalltalk"
LABEL = "small talk: what casual chats get pinned"

LABELS = DATA / "smalltalk" / "pin_labels.jsonl"
SMALLTALK_GOAL = 0.10
"""At most this share of the held-out final pins may be small talk (issue 30)."""
SENTENCES = ("heldout_smalltalk",)

Label = Literal["decision", "smalltalk", "fact", "other"]


class PinLabel(BaseModel):
    """One pin read by hand, by the rubric of ``tests/memory/data/smalltalk/README.md``."""

    corpus: str
    split: chitchat.Split
    pin: str
    label: Label


def pin_labels() -> dict[tuple[str, str], Label]:
    if not LABELS.exists():
        return {}
    rows = [
        PinLabel.model_validate_json(line)
        for line in LABELS.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return {(r.corpus, r.pin): r.label for r in rows}


class RecordingCompactor(ExtractiveCompactor):
    """The extractive compactor, remembering every pin it made (evicted ones too)."""

    def __init__(self) -> None:
        super().__init__()
        self.made: list[str] = []

    def compact_sync(self, request: CompactionRequest) -> CompactionOutput:
        out = super().compact_sync(request)
        self.made += out.pinned_decisions
        return out


async def replay(chat: chitchat.Chat, workdir: Path) -> dict[str, Any]:
    """One conversation through ``open_memory``: its final pins and every pin made."""
    compactor = RecordingCompactor()
    url = f"sqlite:///{workdir / f'smalltalk_{chat.id}.sqlite'}"
    session = f"smalltalk-{chat.id}-session"
    async with open_memory(url, compactor=compactor) as mem:
        for user, assistant in chat.turns:
            turn = FinalTurn(user_text=user, assistant_text=assistant, status="completed")
            await mem.append_turn(session, turn)
        state = await mem.load(session)
    return {
        "id": chat.id,
        "turns": len(chat.turns),
        "final": list(state.pinned_decisions),
        "made": list(dict.fromkeys(compactor.made)),
        "summary": state.summary,
    }


def count(corpus: str, pins: list[str], labels: dict[tuple[str, str], Label]) -> dict[str, Any]:
    """Pins by label; the small-talk share and the share not a decision, of those labelled."""
    found = Counter(labels.get((corpus, pin_key(p)), "unlabelled") for p in pins)
    read = sum(n for label, n in found.items() if label != "unlabelled")
    return {
        "pins": len(pins),
        **{label: found.get(label, 0) for label in (*Label.__args__, "unlabelled")},
        "smalltalk_share": round(found["smalltalk"] / read, 3) if read else None,
        "not_decision_share": round((read - found["decision"]) / read, 3) if read else None,
    }


async def corpus_figures(
    corpus: str, split: chitchat.Split, workdir: Path, block: int = 0
) -> dict[str, Any]:
    chats, where = chitchat.load(corpus, split, block)
    if not chats:
        return {"absent": where}
    labels = pin_labels()
    runs = [await replay(c, workdir) for c in chats]
    final = [p for r in runs for p in r["final"]]
    made = [p for r in runs for p in r["made"]]
    return {
        "source": where,
        "language": chitchat.LANGUAGE[corpus],
        "conversations": len(runs),
        "turns": sum(r["turns"] for r in runs),
        "final": count(corpus, final, labels),
        "made": count(corpus, made, labels),
        "runs": runs,
    }


def sentence_figures() -> dict[str, Any]:
    """The held-out small-talk sentences: small talk pinned, decisions kept, per kind."""
    out: dict[str, Any] = {}
    for language in ("en", "zh"):
        rows = labelled(language, "heldout_smalltalk")  # type: ignore[arg-type]
        out[language] = precision_recall(rows)
    return out


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    """The held-out part of every corpus present, and the held-out sentences."""
    corpora = {}
    for corpus in chitchat.LOADERS:
        figures = await corpus_figures(corpus, "heldout", env.workdir)
        figures.pop("runs", None)
        corpora[corpus] = figures
    results = {"corpora": corpora, "sentences": sentence_figures()}
    write_json(out, NAME, results)
    return results


def _share(figures: dict[str, Any], key: str) -> float | None:
    return figures[key]["smalltalk_share"]


def targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    """This benchmark's rows of the targets table: per corpus, and the held-out sentences."""
    out = []
    for corpus, f in r["corpora"].items():
        if "absent" in f or f["final"]["smalltalk_share"] is None:
            continue
        final = f["final"]
        out.append(
            _target(
                f"≤ {SMALLTALK_GOAL:.0%} of final pins are small talk on {corpus} (held out)",
                "final pins labelled small talk / pins labelled",
                final["smalltalk_share"],
                f"≤ {SMALLTALK_GOAL}",
                final["smalltalk_share"] <= SMALLTALK_GOAL,
                f"{final['smalltalk']} of {final['pins'] - final['unlabelled']}; not a "
                f"decision {final['not_decision_share']}; unlabelled {final['unlabelled']}",
            )
        )
    s = r["sentences"]
    worst_p = min(s[lang]["precision"] for lang in s)
    worst_r = min(s[lang]["recall"] for lang in s)
    out.append(
        _target(
            "held-out small-talk sentences: none pinned, decisions beside them kept, EN and ZH",
            "lowest precision (lowest recall in the note)",
            worst_p,
            "= 1.0",
            worst_p == 1.0,
            f"recall {worst_r}",
        )
    )
    return out


def readme_section(r: dict[str, Any]) -> list[str]:
    lines = [
        "### 13. Small talk: what people chatting get pinned",
        "",
        METHOD,
        "",
        "| corpus (held out) | language | conversations (turns) | final pins | decision | "
        "small talk | fact | other | unlabelled | small-talk share | not-decision share | "
        "pins made on the way | small-talk share of those |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    absent = []
    for corpus, f in r["corpora"].items():
        if "absent" in f:
            absent.append(f"{corpus}: not run ({f['absent']})")
            continue
        p, m = f["final"], f["made"]
        lines.append(
            f"| {corpus} | {f['language']} | {f['conversations']} ({f['turns']}) | {p['pins']} "
            f"| {p['decision']} | {p['smalltalk']} | {p['fact']} | {p['other']} | "
            f"{p['unlabelled']} | {p['smalltalk_share']} | {p['not_decision_share']} | "
            f"{m['pins']} | {m['smalltalk_share']} |"
        )
    lines += ["", *absent] if absent else []
    lines += [
        "",
        "| held-out small-talk sentences | precision | recall (decisions) | sentences |",
        "|---|---|---|---|",
    ]
    for lang, f in r["sentences"].items():
        lines.append(f"| {lang} | {f['precision']} | {f['recall']} | {f['sentences']} |")
    return [*lines, ""]


METHOD = """**Method.** `bench/smalltalk.py` replays the held-out part of public casual chats
(`bench/chitchat.py`: LoCoMo and DailyDialog in English, CPED and KdConv in Chinese; read
from local copies named by `AIMIND_BENCH_LOCOMO`, `AIMIND_BENCH_DAILYDIALOG`,
`AIMIND_BENCH_CPED`, `AIMIND_BENCH_KDCONV`, and skipped, saying so, without them) through
`open_memory` with the extractive compactor, and reads every pin against labels made by
hand by the rubric of `tests/memory/data/smalltalk/README.md` (written, with the splits,
before the first replay): `decision`, `smalltalk`, `fact` (a narrated event: summary
material), `other`. The target is the share of final pins that are small talk; the pins
made on the way (some evicted past the cap of 20) are counted too."""


async def _print_split(split: chitchat.Split, show: bool, block: int) -> dict[str, Any]:
    results = {}
    with tempfile.TemporaryDirectory(prefix="aimind-smalltalk-") as tmp:
        for corpus in chitchat.LOADERS:
            results[corpus] = await corpus_figures(corpus, split, Path(tmp), block)
    labels = pin_labels()
    for corpus, f in results.items():
        if "absent" in f:
            print(f"{corpus}: {f['absent']}")
            continue
        print(f"{corpus} {split}: final {f['final']}\n  made {f['made']}")
        if show:
            for r in f["runs"]:
                for pin in r["made"]:
                    mark = "*" if pin in r["final"] else " "
                    key = pin_key(pin)
                    print(f"  {mark} {key} {labels.get((corpus, key), '?'):10} {pin}")
    return results


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.smalltalk [--split tune] [--block N] [--show] [--dump FILE]``."""
    import argparse
    import asyncio

    parser = argparse.ArgumentParser(prog="python -m bench.smalltalk", description=main.__doc__)
    parser.add_argument("--split", default="tune", choices=chitchat.SPLITS)
    parser.add_argument("--block", type=int, default=0, help="tuning only: further dialogues")
    parser.add_argument("--show", action="store_true", help="print every pin with its label")
    parser.add_argument("--dump", type=Path, help="write the pins and summaries here (JSON)")
    args = parser.parse_args(argv)
    results = asyncio.run(_print_split(args.split, args.show, args.block))
    if args.dump:
        args.dump.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
