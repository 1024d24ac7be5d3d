"""Benchmark 13: pins are decisions, not small talk — what people chatting get pinned.

Replays the held-out part (the twelfth; the first eleven are tuning data now) of public
casual chats (``bench/chitchat.py``: the SAMSum corpus's messenger chats in English,
DuConv's chats about films in Chinese; the seventeen earlier corpora have no held-out part
left) through ``open_memory``
with the extractive compactor and reads the pins against labels made by hand
(``tests/memory/data/smalltalk/``: a hash of each pin, so no corpus text is in the repo):
of the final pins, how many are small talk, and of every pin made on the way (a pin may be
evicted before the end). A pin no label knows counts as small talk and fails the labelling
row. Also: the held-out small-talk sentences
(``tests/memory/data/decisions/heldout_smalltalk_*.jsonl``), each folded alone.

``python -m bench.smalltalk`` prints a **tuning** part's pins with their labels (``--split
tune`` or ``seen``: what the rules are tuned on); it replays the held-out part only when
told (``--split heldout``).
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel

from aimind_memory.memory import ExtractiveCompactor, FinalTurn, open_memory
from aimind_memory.memory.compaction import CompactionRequest
from aimind_memory.memory.models import ExplainedOutput
from bench import chitchat
from bench.common import BenchEnv, Profile, write_json
from bench.common import target as _target
from bench.recall import DATA, labelled, pin_key, pinned, precision_recall

NAME = "smalltalk"
LABEL = "small talk: what casual chats get pinned"

LABELS = DATA / "smalltalk" / "pin_labels.jsonl"
SMALLTALK_GOAL = 0.15
"""At most this share of the held-out final pins may be small talk (issue 43; issue 30 had 0.10)."""
SENTENCES_PINNED = 0.05
"""At most this share of the held-out small-talk sentences may be pinned."""

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

    def compact_sync(self, request: CompactionRequest) -> ExplainedOutput:
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
    """Pins by label; the small-talk share and the share not a decision, of **all** pins.

    A pin nobody has read is a failure of the labelling, not a pin to leave out: it counts
    as small talk (and not a decision) until it is labelled."""
    found = Counter(labels.get((corpus, pin_key(p)), "unlabelled") for p in pins)
    doubtful = found["smalltalk"] + found["unlabelled"]
    return {
        "pins": len(pins),
        **{label: found.get(label, 0) for label in (*get_args(Label), "unlabelled")},
        "smalltalk_share": round(doubtful / len(pins), 3) if pins else None,
        "not_decision_share": round(1 - found["decision"] / len(pins), 3) if pins else None,
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
    """The held-out small-talk sentences: the share of small talk pinned, decisions kept."""
    out: dict[str, Any] = {}
    for language in ("en", "zh"):
        rows = labelled(language, "heldout_smalltalk")
        chatter = [r for r in rows if not r.decision]
        out[language] = precision_recall(rows) | {
            "smalltalk": len(chatter),
            "smalltalk_pinned": sum(pinned(r) for r in chatter),
        }
    return out


def overall(corpora: dict[str, Any], which: str = "final") -> dict[str, Any]:
    """The held-out pins (``final`` or ``made``) of every corpus together: the goal is set
    on the final ones, an unlabelled pin counting as small talk."""
    rows = [f[which] for f in corpora.values() if "absent" not in f]
    pins = sum(r["pins"] for r in rows)
    unlabelled = sum(r["unlabelled"] for r in rows)
    smalltalk = sum(r["smalltalk"] for r in rows)
    return {
        "pins": pins,
        "unlabelled": unlabelled,
        "smalltalk": smalltalk,
        "decision": sum(r["decision"] for r in rows),
        "smalltalk_share": round((smalltalk + unlabelled) / pins, 3) if pins else None,
    }


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    """The held-out part of every corpus present, and the held-out sentences."""
    corpora = {}
    for corpus in chitchat.LOADERS:
        figures = await corpus_figures(corpus, "heldout", env.workdir)
        figures.pop("runs", None)
        corpora[corpus] = figures
    results = {
        "part": chitchat.HELDOUT_PART,
        "corpora": corpora,
        "all": overall(corpora),
        "all_made": overall(corpora, "made"),
        "sentences": sentence_figures(),
    }
    write_json(out, NAME, results)
    return results


def targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    """This benchmark's rows of the targets table: all corpora together (the goal), each
    corpus, and the held-out sentences."""
    out = []
    rows = [("all held-out casual chats", r["all"])]
    rows += [(c, f["final"]) for c, f in r["corpora"].items() if "absent" not in f]
    for name, final in rows:
        if final["smalltalk_share"] is None:
            continue
        out.append(
            _target(
                f"≤ {SMALLTALK_GOAL:.0%} of final pins are small talk: {name} [extractive]",
                "final pins labelled small talk (or not labelled) / all final pins (held out)",
                final["smalltalk_share"],
                f"≤ {SMALLTALK_GOAL}",
                final["smalltalk_share"] <= SMALLTALK_GOAL,
                f"{final['smalltalk']} small talk + {final['unlabelled']} unlabelled of "
                f"{final['pins']}; decisions {final['decision']}",
            )
        )
    a = r["all"]
    out.append(
        _target(
            "every held-out final pin labelled by hand",
            "final pins no label knows (each counted as small talk above)",
            a["unlabelled"],
            "0",
            a["unlabelled"] == 0,
            f"of {a['pins']} final pins",
        )
    )
    s = r["sentences"]
    worst = max(s[lang]["smalltalk_pinned"] / s[lang]["smalltalk"] for lang in s)
    out.append(
        _target(
            "held-out small-talk sentences: at most 5 % pinned, EN and ZH",
            "highest share of the small talk pinned (decisions' recall in the note)",
            round(worst, 3),
            "≤ 0.05",
            worst <= SENTENCES_PINNED,
            ", ".join(f"{lang} recall {s[lang]['recall']}" for lang in s),
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
        "| held-out small-talk sentences | small talk pinned | decisions pinned (recall) | "
        "precision |",
        "|---|---|---|---|",
    ]
    for lang, f in r["sentences"].items():
        lines.append(
            f"| {lang} | {f['smalltalk_pinned']} of {f['smalltalk']} | {f['recall']} "
            f"({f['decisions']} decisions) | {f['precision']} |"
        )
    a, m = r["all"], r["all_made"]
    if r["part"] != chitchat.HELDOUT_PART:
        lines += [
            "",
            f"These figures are held-out part {r['part']}'s, replayed before part "
            f"{chitchat.HELDOUT_PART} was frozen; part {chitchat.HELDOUT_PART}, held out now, "
            "has not been replayed yet.",
        ]
    lines += [
        "",
        f"All held-out corpora together: {a['smalltalk']} of {a['pins']} final pins are small "
        f"talk and {a['unlabelled']} unlabelled (share {a['smalltalk_share']}, an unlabelled "
        f"pin counted as small talk); {a['decision']} are decisions. Of every pin made on "
        f"the way: {m['smalltalk']} of {m['pins']} small talk, {m['unlabelled']} unlabelled "
        f"({m['smalltalk_share']}).",
    ]
    return [*lines, ""]


METHOD = """**Method.** `bench/smalltalk.py` replays the held-out part of public casual
chats (`bench/chitchat.py`: the twelfth part's SAMSum corpus in English and DuConv in
Chinese, read from local copies named by `AIMIND_BENCH_SAMSUM` and `AIMIND_BENCH_DUCONV` —
and the Chit-Chat Challenge dataset, the utterance-rewriting corpus, the Self-dialogue
Corpus, DialogRE, DREAM, XPersona, CMU_DoG, MPDD, MELD, Switchboard, C3, DiaASQ,
DailyDialog, Topical-Chat, CPED, KdConv and LoCoMo for tuning, by
`AIMIND_BENCH_CHITCHATCHALLENGE`, `AIMIND_BENCH_REWRITE`, `AIMIND_BENCH_SELFDIALOGUE`,
`AIMIND_BENCH_DIALOGRE`, `AIMIND_BENCH_DREAM`, `AIMIND_BENCH_XPERSONA`, `AIMIND_BENCH_CMUDOG`,
`AIMIND_BENCH_MPDD`, `AIMIND_BENCH_MELD`, `AIMIND_BENCH_SWITCHBOARD`, `AIMIND_BENCH_C3`,
`AIMIND_BENCH_DIAASQ`, `AIMIND_BENCH_DAILYDIALOG`, `AIMIND_BENCH_TOPICALCHAT`,
`AIMIND_BENCH_CPED`, `AIMIND_BENCH_KDCONV`, `AIMIND_BENCH_LOCOMO` — and skipped, saying so,
without them) through `open_memory` with the extractive compactor, and reads every pin
against labels made by hand by the rubric of `tests/memory/data/smalltalk/README.md`:
`decision`, `smalltalk`, `fact` (a told event or knowledge: summary material), `other`. The
share is over **all** final pins: a pin no label knows counts as small talk, and the row
"every held-out final pin labelled" fails while one is left. The goal (issue 30) is on all
held-out corpora together; each corpus has its row too. The rules
(`memory/compaction/analysis/smalltalk.py`) are tuned on the tuning parts only.

**Twelve held-out parts, one after the other.** The first (DailyDialog test dialogues 0–199,
CPED test 0–399, KdConv test 0–39 of each domain, LoCoMo's five chats contract §5 does not
quote; fixed with the rubric in c25a2bf) was replayed before the rules (9acaf1c) and at
their first run (0480603); two more rounds were then measured on it, so it became tuning
data (`seen`). The second — DailyDialog test 200–399, CPED test 400–799, KdConv test 40–79,
and Topical-Chat (new: `test_freq` 0–99; tuning `valid_freq` 0–99) — was fixed in its own
commit (ee59dd5) with three additions to the rubric (opinions are feelings; durable tastes
and knowledge are facts; a mixed pin leans to small talk), before any of it was replayed.
LoCoMo has no chat left unreplayed, so no second held-out part. After its first run the
second part joined the tuning data too (`seen`, 6d1d6c4), and a third — DailyDialog test
400–599, Topical-Chat `test_rare` 0–99, CPED test 800–1199, KdConv test 80–119 — was fixed
in its own commit before any of it was replayed, rubric unchanged. After its first run (8d359c8) the
third part joined the tuning data (`seen`), and a fourth — DailyDialog test 600–799,
Topical-Chat `test_freq` 100–199, CPED test 1200–1599, KdConv test 120–149 — was fixed in
its own commit before any of it was replayed, rubric unchanged. After its first run
(5eda2ab) the fourth part joined the tuning data (`seen`), and a fifth — DailyDialog test
800–999, Topical-Chat `test_rare` 100–199, CPED test 1600–1999; KdConv has no dialogue
left — was fixed in its own commit before any of it was replayed, rubric unchanged. After
its first run (988adb4) the fifth part joined the tuning data (`seen`), and a sixth —
DailyDialog train 0–199 (its test split is used up), Topical-Chat `test_rare` 200–299, CPED
test 2000–2399 — was fixed in its own commit before any of it was replayed, rubric
unchanged. After its first run (wave 37, rules at 0b7043f) the sixth part joined the tuning
data (`seen`), and a seventh — four corpora nobody here had used: MELD test scenes 0–99 and
Switchboard (SwDA) train conversations 0–99 in English, C3 dialogues (test) 0–99 and DiaASQ
Weibo threads (test) 0–99 in Chinese — was fixed in its own commit (wave 38, issue 43),
rubric unchanged, before any of it was replayed. After its first run (labelled in 5b5c31f:
70 of 139 final pins small talk, 0.504) and a replay beside the engine's changes (798dbb8)
the seventh part joined the tuning data (`seen`), and an eighth — two more corpora nobody
here had used: CMU_DoG test conversations 0–99 (file-name order; chats about films) in
English and MPDD dialogues 0–99 (TV-series scenes, traditional characters) in Chinese —
was fixed in its own commit before any of it was replayed and before the redesigned
offline engine landed, rubric unchanged, by someone who had not read the engine. After its
first run (the engine at d9fb1b9, labelled in ea05de5: 8 of 20 final pins small talk, 0.40)
the eighth part joined the tuning data (`seen`), and a ninth — two more corpora nobody here
had used: DREAM test dialogues 0–99 (everyday two-person dialogues from English listening
exams) in English and XPersona's Chinese PersonaChat test dialogues 0–99 (two strangers
getting to know each other, translated and corrected by hand) in Chinese — was fixed in its
own commit before any of it was replayed, rubric unchanged, by someone who had not read the
engine. Its first run (the engine at 1f109fa, labelled after the run in 6691f7b by someone
who had not tuned the engine): DREAM 0 of 7 final pins small talk, XPersona 6 of 27; **all
6/34 (0.176): the goal is missed by 2.6 points**; decisions 10 of the 34 (DREAM's "I booked
it last night.", XPersona's house rule 我不允许在我的房子里播放死亡金属音乐); the small talk
left is a persona's banter said with a rule's words (我没意识到我们必须这样) and garbled
translations. After it the ninth part joined the tuning data (`seen`, labels unchanged),
and a tenth — two more corpora nobody here had used: the Self-dialogue Corpus's first 100
kept assignments of `corpus/movies/Batch_2814928_batch_results.csv` (casual chats about
films, one crowd worker writing both sides) in English and DialogRE's Chinese version, test
dialogues 0–99 (scenes of Friends translated into Chinese, several speakers) in Chinese —
was fixed in its own commit before any of it was replayed, rubric unchanged, by someone who
had not read the engine. Its first run (the engine at 5029880, labelled after the run in
d9ac8a8 by someone who had not tuned the engine): Self-dialogue 6 of 14 final pins small
talk, DialogRE 3 of 10; **all 9/24 (0.375): the goal is missed**; decisions 5 of the 24.
The session's starting engine (ec31872), replayed beside it once: 9 of 23 (0.391). What
passes is a film fan's opinion or wish said with a plan's words ("I will watch the original
for sure", "I want to rent a movie tonight") and a sitcom's lines of the moment (不准大吼).
After it the tenth part joined the tuning data (`seen`, labels unchanged), and an eleventh
— two more corpora nobody here had used: the Chit-Chat Challenge dataset's first 100
conversations of `chitchat_dataset/dataset.json` (two people chatting freely from an
opening prompt, typed in BYU's 2018 Chit-Chat Challenge) in English and the
utterance-rewriting corpus's lines 0–99 of `corpus.txt` (three-utterance chit-chat from
Chinese social media; the rewritten utterance, an annotation, not replayed) in Chinese —
was fixed in its own commit before any of it was replayed, rubric unchanged, by someone who
had not read the engine. Its first run (the engine at f69b520, labelled after the run in
f2c8f6a by someone who had not tuned the engine): Chit-Chat Challenge 5 of 11 final pins
small talk, the rewriting corpus 0 of 1; **all 5/12 (0.417): the goal is missed**;
decisions 1 of the 12 ("I will take phil 110 because it counts as a general"). The
session's starting engine (af8d9a2), replayed beside it once, pins the same 12. What
passes is banter worded as an instruction ("Don't bring your phone with you!", "let's use
some big words …") and a taste foretold in a long complaint; the rewriting corpus's
three-line exchanges leave almost nothing to pin. The same session's tuning on the tenth
part took it from 9/24 to 3/18 (0.167) and moved none of this part's pins.
After it the eleventh part joined the tuning data (`seen`, labels unchanged), and a twelfth
— two more corpora nobody here had used: the SAMSum corpus's test dialogues 0–99 of
`data/samsum/test.csv` as `BinWang28/LA-BART` holds them (messenger chats between friends,
couples, family and colleagues, written by linguists; the summary, an annotation, not
replayed) in English and DuConv's dev dialogues 0–99 of `duconv_data/dev.txt` as
`Cindy-xdZhang/dkn_duconv` holds them (two crowd workers chatting about films and film
stars, one steering towards a given goal; the goal and facts not replayed) in Chinese —
was fixed in its own commit before any of it was replayed, rubric unchanged, by someone who
had not read the engine. Its first run (the engine at bb3a076, no rule changed since the
eleventh part's run; labelled after the run by the rubric): SAMSum 5 of 8 final pins small
talk, DuConv 15 of 18; **all 20/26 (0.769): the goal is missed**, by more than at any
earlier part; decisions 2 of the 26 ("… meeting them at the entrance to the conference hall
at 2 pm …", "… i will send you the login and password on sunday"). DuConv's pins are what
one crowd worker recommends the other to watch ("…推荐你看一下", "一定要去看一看"): advice
to the listener, small talk by the rubric, and a kind of sentence no tuning part is made of;
SAMSum's are plans without an object ("we'll find time", "i'll study for it tomorrow") and
opinions. The same session then fixed one general fault its pins showed (82c07a7: "不过",
"but", opening a clause that ends in 了 read as "no longer": "谢谢，不过我看过了。"), which
takes two DuConv pins out: 18 of 24 (0.75), a second run, not a first.

History, final pins that are small talk:
- first held-out part — before the rules → their first run → after two more rounds seen on
  it: LoCoMo 19/51 (0.373) → 14/38 (0.368) → 1/25; DailyDialog 8/50 (0.16) → 7/45 (0.156)
  → 2/38; CPED 9/43 (0.209) → 8/40 (0.2) → 2/32; KdConv 5/19 (0.263) → 5/19 → 2/13; all
  41/163 (0.252) → 34/142 (0.239) → 7/108 (0.065) (later, on the merged code: 6 of 96
  labelled, 15 unlabelled). Held-out small-talk sentences pinned: EN 11/45 → 5/45 → 0/45,
  ZH 6/45 → 6/45 → 1/45.
- third round (fb1e9d6), tuned on the tuning parts (first split's tuning part, the first
  held-out part, Topical-Chat's tuning part): small talk is never a pin nor a change of one
  ("Glad everyone could make it." had replaced a booking as a "make it" correction), told
  knowledge goes to the summary. Tuning parts: 31/270 (0.115) → 7/246 (0.028); facts 81 →
  77; decisions 75 → 78.
- **second held-out part, first run (rules at fb1e9d6)**: DailyDialog 7/33 (0.212),
  Topical-Chat 11/24 (0.458), CPED 15/42 (0.357), KdConv 3/15 (0.2); **all 36/114
  (0.316): the goal is missed by 21.6 points**; of every pin made 37/126. The same part
  with the rules before the third round (ee59dd5), replayed once for comparison: 37/123
  (0.301), facts 41 → 33, decisions 26 → 25. The third round's rules learnt the tuning
  chats' phrasing, not the kinds, as the first round's had: on chats they have not met,
  opinions ("It seems unfair that…", "I hope the Eagles make it again."), advice and
  quarrels said with a decision's words are still pinned. Same author for the rules, the
  sentence sets and the labels.
- fourth round (f9e834a), a structural gate tuned on the tuning parts (the first two
  held-out parts included): a sentence said as a view or wish (I hope/figure/think, I'm
  glad/sure, it seems, 觉得/希望/好像/应该是), a guess about or obligation of a third party
  ("… must pay a lot", "someone has to …"), or a social imperative with no object
  (别/不要/不用 + 扯淡/为难/迁就/误会) is never a pin. Tuning parts: 43/360 (0.119) → 22/324
  (0.068); decisions 103 → 102.
- **third held-out part, first run (rules at f9e834a)**: DailyDialog 9/40 (0.225),
  Topical-Chat 6/15 (0.4), CPED 20/50 (0.4), KdConv 2/5 (0.4); **all 37/110 (0.336): the
  goal is missed by 23.6 points**, worse than the second part's first run (0.316); of
  every pin made 40/116; decisions 21 of the 110. The gate halved the small talk on the
  chats it was tuned on and not on new ones: what passes now is advice and orders to the
  listener ("you must take … into consideration", "Don't eat fast!", "别被他听到"), vague
  promises ("We will make wiser choices", "we cannot fail"), opinions with no stance verb
  ("Still doesnt make it right") and Chinese TV-drama quarrels, vows and jokes — kinds an
  extractive rule reads by their words, which differ from chat to chat. Same author for
  the rules and the labels.
- no fifth round of word rules (wave 35), and part 4 still unreplayed: three ideas that
  are not word rules were checked on the tuning parts only, on the 687 labelled pins the
  tuning chats make with the small-talk rules off. (a) A linear classifier (decision or
  not; words, word pairs, anchors, length, punctuation, the rules' strength) trained on one
  tuning part and read on the other: at a threshold keeping 97 % of its training
  decisions it kept 63 of the other part's 88 decisions and took the small-talk share of
  what the rules pin from 0.184 to 0.129 only. (b) Uptake — the next message agreeing
  ("OK", "Sounds good", "好", "行"): 9 of 100 decisions, 3 of 55 small talk. (c) The
  neighbourhood's anchors (names, numbers, times in the messages around): decisions and
  small talk alike. None separates small talk from decisions in casual chat well enough to
  spend the held-out part on; it waits for the model path, which can be measured only with
  a model.
- **fourth held-out part, first run (wave 36, rules at 79ac748, not tuned on since the
  third part's first run but for the quotes and the "id" kind)**: DailyDialog 3/26
  (0.115), Topical-Chat 13/27 (0.481), CPED 28/51 (0.549), KdConv 1/11 (0.091); **all
  45/115 (0.391): the goal is missed by 29.1 points**, worse than the third part's first
  run (0.336); decisions 15 of the 115 (DailyDialog's plans: "my friends and I are
  planning on going to the beach on Sunday", "I'll choose Dalian"). What passes: on
  Topical-Chat opinions and told rules of third parties ("The NFL can't brush it under the
  table…", "Those hits have to do some major damage."), on CPED a sitcom's quips,
  exhortations and complaints said with a rule's or a decision's words (不能, 不许, 决定,
  不用). Labelled by the same author as the rules, after the run, by the rubric.
- sixth round (wave 36), tuned on the tuning parts (the fourth part included): an
  obligation of a third party or of a kind ("Canadian radios have to play 40 % Canadian
  music", "a player cannot lower his helmet", "some rich weirdo must pay for it") is told
  knowledge or opinion, not our rule; ours stays ("our guests must …", "the API must …",
  "passwords must be rotated every 90 days"). Tuning parts: Topical-Chat seen 22 → 16
  small-talk pins (facts 32 → 22), DailyDialog seen 20 → 19, decisions unchanged; recall
  and the decision sets unchanged. Tried and dropped on the tuning parts: a Chinese
  sentence ending a clause with a modal particle (啊, 哦, 嘛, 呀 …) as banter (CPED seen 53 →
  48, but CrossWOZ recall 45.0 % → 44.7 %: task users say them too, "人均消费控制在500-1000元
  哦"); the assistant's advice to the user ("you must keep the room warm", "别被他听到") as no
  decision (CPED 53 → 45, DailyDialog 19 → 15, but 5 decisions lost, and the contract pins
  a decision whoever says it).
- **fifth held-out part, first run (wave 36, rules at 97dd6c2)**: DailyDialog 7/30
  (0.233), Topical-Chat 5/13 (0.385), CPED 15/38 (0.395); **all 27/81 (0.333): the goal is
  missed by 23.3 points**; decisions 15 of the 81 (DailyDialog's plans and bookings: "I'll
  book the tickets tomorrow morning", "We are planning to go to Beidaihe for vacation";
  CPED's "我决定了 明天一早我就搬走"). The same part with the English rules before the
  sixth round, replayed once for comparison: 28/83 (0.337) — the round took one opinion
  and one told rule off Topical-Chat's pins. What passes is what the fourth part showed:
  advice and care to the listener ("you must first learn how to handle them properly",
  "Don't slip on the ground.", "去吧 不要耽误了工作"), vague vows ("从今天开始我要好好工作"),
  platitudes ("We can't expect it to be perfect.") and opinions.
- seventh round (wave 37), tuned on the tuning parts (the fifth part included): a Chinese
  command for the moment — a bare verb after 别/不要 with nothing but a pronoun or a particle
  after it, a short verb with 了, 别别别 ("别动", "别看我", "别解释了") — is no rule to keep;
  a prohibition with an object stays ("不要把密码写进仓库", "别在周五发版"). CPED seen: final pins
  196 → 185 (other 69 → 61, small talk 68 → 65), decisions 26 as before; recall and the
  decision sets unchanged. The changes bench's round of the same wave (SGD) took one
  Topical-Chat small-talk pin off the seen part (21 → 20). Checked and left: in English,
  the obligation frame ("we/you must …, need to …") pins as many decisions as small talk on
  the tuning chats (21 and 21), and neither anchors (names, numbers, times) nor who is
  addressed separates them — a deal's "you must provide the original invoice" against
  "you must keep the room warm".
- **sixth held-out part, first run (wave 37, rules at 0b7043f)**: DailyDialog train 0–199
  6/24 (0.25), Topical-Chat 10/18 (0.556), CPED 22/52 (0.423); **all 38/94 (0.404): the
  goal is missed by 30.4 points**; decisions 15 of the 94 (DailyDialog's plans: "let's go
  to a car dealership", "Let's just meet at the theater before the show, around 7:30";
  CPED's "以后你不许进我的房间"). What passes is what the fourth and fifth parts showed:
  opinions and jokes said with a rule's or a guess's words ("The jellyfish must lead a
  boring life.", "George will just have to make do with his billions."), advice
  ("When crossing the road you must always pay attention …"), platitudes and a sitcom's
  quarrels (咱不能输, 您不能见死不救). Labelled by the same author as the rules, after the
  run, by the rubric.
- eighth round (wave 38, session 4), tuned on the seen parts (the eighth part included,
  its first run spent): an opinion announced ("I have to say…", 不得不承认), a spoken "I
  mean" with no name, number or day after it, a threat or bargain with a person ("if you…,
  I'll…", 不然你就…; not with a day, time or amount: a deadline's consequence is a rule),
  a suggestion to the listener (你…吧 with no 我/咱, unless said for good). Seen parts
  0.241 → 0.171 of final pins (labels of a88453a for both), CMU_DoG + MPDD 8/20 → 3/15,
  decisions 125 → 130; the decision sets, the changes bench and meetings unchanged."""


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
