"""Public casual conversations for the small-talk bench: LoCoMo, DailyDialog, Topical-Chat,
CPED, KdConv, MELD, Switchboard, C3, DiaASQ, CMU_DoG, MPDD, DREAM, XPersona's Chinese
PersonaChat, the Self-dialogue Corpus, DialogRE's Chinese version, the Chit-Chat Challenge
dataset and the utterance-rewriting corpus's Chinese chit-chat — and, held out now, the SAMSum
corpus's messenger chats and DuConv's chats about films.

People chatting, not booking: what the extractive compactor pins there is mostly what
friends say to each other — cheering, advice, compliments, "let's catch up soon". None
of their text is in this repo (nor downloaded at run time): the bench reads a local copy
when an environment variable names the project's repository (a checkout, a folder with
its files, or a bare git repository, read with ``git show``), and says so when none does.

Each corpus has up to three parts (``SPLITS``), each fixed in a commit **before anything
of it was replayed**; a part may be several ranges of dialogues (``Part``):

- ``tune``: the rules may be tuned on it (fixed with the first rules, commit c25a2bf);
- ``seen``: the held-out parts whose first run is recorded and that were then measured on
  or tuned beside, so no longer held out: tuning data now. The first held-out part
  (c25a2bf; first run 0480603), the second (ee59dd5; first run 8638b06), the third
  (6d1d6c4; first run 8d359c8), the fourth (first run 5eda2ab), the fifth (a728ffb;
  first run 988adb4), the sixth (wave 37; first run at 0b7043f), the seventh (wave 38,
  6d7a20d: MELD, Switchboard, C3 and DiaASQ; first run labelled in 5b5c31f), the eighth
  (issue 43, 43f0cd3: CMU_DoG and MPDD; first run at d9fb1b9, labelled in ea05de5), the
  ninth (37b9faa: DREAM and XPersona; first run at 1f109fa, labelled in 6691f7b), the
  tenth (617f007: the Self-dialogue Corpus and DialogRE; first run at 5029880, labelled in
  d9ac8a8) and the eleventh (4c2aa5f: the Chit-Chat Challenge dataset and the
  utterance-rewriting corpus; first run at f69b520, labelled in f2c8f6a);
- ``heldout``: the twelfth held-out part: two more corpora nobody here had used — the SAMSum
  corpus in English, DuConv in Chinese — fixed in their own commit before anything of them
  was replayed, by someone who had not read the engine. The bench reports this part; it is
  never tuned on, and these two have no other part. The other seventeen corpora have no
  held-out part any more.

- LoCoMo (``snap-research/locomo``, ``data/locomo10.zip``; English, CC BY-NC 4.0): 10
  long multi-session chats between two people. Tuning: the five that hold a sentence
  contract §5 or issue 30 quote (30, 41, 44, 47, 49, by file name); seen: the other five.
  **No held-out part**: all ten chats have been replayed. Each chat is one conversation
  (``speaker_a`` as the user).
- DailyDialog (``ijcnlp_dailydialog`` files, as in
  ``Ls-Dai/Deep-Reinforcement-Learning-for-Dialogue-Generation-in-PyTorch``' ``data/``;
  English, CC BY-NC-SA 4.0): tuning the validation split's dialogues 0–199, seen the test
  split's 0–199, 200–399, 400–599, 600–799 and 800–999 (the test split is used up), held
  out the train split's 0–199 (``data/train.zip``'s ``train/dialogues_train.txt``, file
  order), chained 50 to a conversation.
- Topical-Chat (``alexa/Topical-Chat``, ``conversations/*.json``; English, CDLA-Sharing
  1.0): two crowd workers chatting about a topic they read up on. Tuning
  ``valid_freq.json``'s conversations 0–99, seen ``test_freq.json``'s 0–99 and 100–199
  and ``test_rare.json``'s 0–99 and 100–199, held out ``test_rare.json``'s 200–299 (file
  order), chained 25 to a conversation.
- CPED (``scutcyr/CPED``, ``data/CPED/*_split.csv``; Chinese TV-series dialogues, for
  research): tuning ``valid_split.csv``'s dialogues 0–399, seen ``test_split.csv``'s
  0–399, 400–799, 800–1199, 1200–1599 and 1600–1999, held out ``test_split.csv``'s
  2000–2399 (file order), chained 100 to a conversation.
- KdConv (``thu-coai/KdConv``, ``data/{film,music,travel}/*.json``; Chinese, Apache-2.0):
  tuning ``dev.json``'s dialogues 0–39, seen ``test.json``'s 0–39, 40–79, 80–119 and
  120–149 (the last 30), of each domain; one conversation per domain and range. **No
  held-out part left.**

The seventh held-out part (wave 38), seen now, each read in file order, ~100 dialogues a
corpus:

- MELD (``declare-lab/MELD``, ``data/MELD/test_sent_emo.csv``; English, GPL-3.0; scenes of
  the sitcom Friends, several friends talking): the test split's dialogues 0–99 (by
  ``Dialogue_ID`` as the file first lists them), chained 25 to a conversation.
- Switchboard (the Switchboard Dialog Act Corpus as plain text,
  ``NathanDuran/Switchboard-Corpus``, ``swda_data/train/<id>.txt``, ``A|text|act`` a line;
  English, GPL-3.0 for the repository, the SwDA for research use; two strangers on the
  telephone talking about an everyday topic): the conversations named by lines 0–99 of
  ``swda_data/metadata/train_split.txt``, chained 10 to a conversation (each is long).
- C3 (``nlpdata/c3``, ``data/c3-d-test.json``; Chinese, non-commercial research use; short
  everyday dialogues, ``男：…``/``女：…``, written for Chinese-as-a-second-language exams):
  the test split's dialogues 0–99, chained 25 to a conversation.
- DiaASQ (``unikcc/DiaASQ``, ``data/dataset/jsons_zh/test.json``; Chinese, MIT; Weibo reply
  threads about phones, people arguing and joking; written one character a token, put
  back together here): the test split's threads 0–99, chained 25 to a conversation.

The eighth held-out part (issue 43), seen now, each read in file order, 100 dialogues a
corpus:

- CMU_DoG (CMU Document Grounded Conversations, ``festvox/datasets-CMU_DoG``,
  ``Conversations/test/<hash>.json``, ``history`` of ``uid``/``text``; English, a research
  dataset published with its EMNLP 2018 paper, no license file in the repository; two
  crowd workers chatting about a film, one of them having read its Wikipedia article): the
  test split's conversations 0–99 in file-name order, chained 10 to a conversation (each is
  long).
- MPDD (Multi-Party Dialogue Dataset, ``ntunlplab/Dialogue-MPDD``, ``mpdd.zip``'s
  ``mpdd/dialogue.json``; Chinese in traditional characters, a research dataset published
  with its LREC 2020 paper, no license file in the repository; TV-series scenes of
  families, classmates and colleagues talking, several speakers): dialogues 0–99 as the
  file lists them (case indices 1–100), chained 25 to a conversation.

The ninth held-out part, seen now, each read in file order, 100 dialogues a corpus:

- DREAM (``nlpdata/dream``, ``data/test.json``, a list of ``[lines, questions, id]``;
  English, "for non-commercial research purpose only" (its ``license.txt``); short everyday
  two-person dialogues — friends, family, a customer and a clerk — from English listening
  exams, each line ``M: …``/``W: …`` or a name): the test split's dialogues 0–99 as the
  file lists them, the speaker labels taken off the lines, chained 25 to a conversation.
- XPersona's Chinese PersonaChat (``HLTCHKUST/Xpersona``,
  ``dataset/Zh_persona_split_test_human_annotated.json``, a list of ``persona`` and
  ``dialogue`` (``[said, answer]`` pairs); MIT; ConvAI2's PersonaChat — two crowd workers
  getting to know each other, each playing a short persona — machine-translated into
  Chinese and corrected by hand, simplified characters): the test split's dialogues 0–99 as
  the file lists them (the personas are not said, so not replayed), chained 10 to a
  conversation.

The tenth held-out part, seen now, each read in file order, 100 dialogues a corpus:

- The Self-dialogue Corpus (``jfainberg/self_dialogue_corpus``,
  ``corpus/movies/Batch_2814928_batch_results.csv``, Mechanical Turk results, one
  assignment a row, its lines in ``Answer.sentence1``… ; English, BSD 3-Clause (its
  ``LICENSE``); one crowd worker writing both sides of a casual chat between two people
  about films): the file's first 100 assignments not rejected nor by a worker its
  ``blocked_workers.txt`` lists (as its ``get_data.py`` reads them), rows in file order,
  lines in number order (the empty ones and "{}" left out), the two sides taking turns,
  chained 10 to a conversation.
- DialogRE's Chinese version (``nlpdata/dialogre``, ``data_v2/cn/data/test.json``, a list
  of ``[lines, relations]``; "for non-commercial research purpose only" (its
  ``license.txt``); scenes of the sitcom Friends translated into Chinese, several speakers,
  each line ``Speaker N: …``; the relations are not said, so not replayed): the test split's
  dialogues 0–99 as the file lists them, the speaker labels taken off the lines, chained 10
  to a conversation.

The eleventh held-out part, seen now, each read in file order, 100 dialogues a corpus:

- The Chit-Chat Challenge dataset (``BYU-PCCL/chitchat-dataset``,
  ``chitchat_dataset/dataset.json``, an object of conversations by UUID, each with
  ``messages``: a list of turns, each a list of ``{text, sender}``; English, MIT (its
  ``LICENSE``); two people chatting freely from an opening prompt, typed in BYU's 2018
  Chit-Chat Challenge): the first 100 conversations as the file lists them, a turn's
  messages one line of its sender (the prompt and ratings are not said, so not replayed),
  chained 10 to a conversation. The mirror holds the file only as a large blob it may lack;
  the package ``chitchat_dataset`` 0.9.0 on PyPI ships the same file (the same git blob,
  9c01c26), so a folder it is unpacked into is a copy too.
- The utterance-rewriting corpus (``chin-gyou/dialogue-utterance-rewriter``,
  ``corpus.txt``, 20,000 lines; Chinese chit-chat from social media, WeChat AI's ACL 2019
  "Improving Multi-turn Dialogue Modelling with Utterance ReWriter"; its repository states
  no license): lines 0–99 as the file lists them, each a dialogue of three utterances (A,
  B, A) and A's rewritten last utterance, the fields separated by two tabs; the three
  utterances are said, the rewriting (an annotation) is not replayed; as in any dialogue, a
  last message nobody answers is not a turn. Chained 25 to a conversation.

Held out only (the twelfth part), each read in file order, 100 dialogues a corpus:

- The SAMSum corpus (Samsung R&D Institute Poland's "SAMSum Corpus: A Human-annotated
  Dialogue Dataset for Abstractive Summarization", 2019; its test split as
  ``BinWang28/LA-BART`` holds it, ``data/samsum/test.csv``: ``id``, ``summary``,
  ``dialogue``, 819 rows in the corpus's own order, the first id 13862856; English,
  CC BY-NC-ND 4.0, the corpus's own licence, for research, the repository holding it MIT;
  chats such as people write on a messenger — friends, couples, family, colleagues making
  plans and joking — written by linguists, most between two people, some between three or
  more, one line a message, ``Name: text``, the corpus's ``<file_photo>``-style placeholders
  as written): the test split's dialogues 0–99 as the file lists them, the senders' names
  taken off the lines and telling the sides apart (a third sender takes the next side), the
  summary (an annotation) not replayed, chained 25 to a conversation.
- DuConv (Baidu's "Proactive Human-Machine Conversation with Explicit Conversation Goals",
  ACL 2019; its dev split as ``Cindy-xdZhang/dkn_duconv`` holds it, ``duconv_data/dev.txt``,
  2,000 dialogues, one JSON object a line; Chinese, Apache-2.0 as PaddlePaddle distributes
  it, the repository holding it states none; two crowd workers chatting about films and film
  stars, one of them steering the chat towards a goal — a film or a star — it was given with
  some facts): lines 0–99 as the file lists them, each ``conversation``'s utterances taking
  turns (the goal and the facts are not said, so not replayed), written one word a token
  and put back together here, chained 10 to a conversation.

``block`` (tuning only) reads the tuning files' next dialogues instead — the ones after the
first 200 / 100 / 400 / 40, block by block — for more to tune on; it never reaches a test file.

A dialogue's utterances become user/assistant turns: one speaker's consecutive lines
are one message, and the messages alternate (in a chat of three, the third speaker
takes the next side).
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from bench.settings import BenchSettings, bench_settings

Split = Literal["tune", "seen", "heldout"]
SPLITS: tuple[Split, ...] = ("tune", "seen", "heldout")
TUNING: tuple[Split, ...] = ("tune", "seen")
"""The parts the rules may be tuned on."""
HELDOUT_PART = 12
"""Which held-out part ``heldout`` is: they were frozen one after another, each when the
last one's first run was recorded (the module docstring lists them)."""

LOCOMO_ENV = BenchSettings.env_name("locomo")
DAILYDIALOG_ENV = BenchSettings.env_name("dailydialog")
CPED_ENV = BenchSettings.env_name("cped")
KDCONV_ENV = BenchSettings.env_name("kdconv")
TOPICALCHAT_ENV = BenchSettings.env_name("topicalchat")
MELD_ENV = BenchSettings.env_name("meld")
SWITCHBOARD_ENV = BenchSettings.env_name("switchboard")
C3_ENV = BenchSettings.env_name("c3")
DIAASQ_ENV = BenchSettings.env_name("diaasq")
CMUDOG_ENV = BenchSettings.env_name("cmudog")
MPDD_ENV = BenchSettings.env_name("mpdd")
DREAM_ENV = BenchSettings.env_name("dream")
XPERSONA_ENV = BenchSettings.env_name("xpersona")
SELFDIALOGUE_ENV = BenchSettings.env_name("selfdialogue")
DIALOGRE_ENV = BenchSettings.env_name("dialogre")
CHITCHATCHALLENGE_ENV = BenchSettings.env_name("chitchatchallenge")
REWRITE_ENV = BenchSettings.env_name("rewrite")
SAMSUM_ENV = BenchSettings.env_name("samsum")
DUCONV_ENV = BenchSettings.env_name("duconv")

LOCOMO_ARCHIVE = "data/locomo10.zip"
LOCOMO_TUNE = frozenset({"30", "41", "44", "47", "49"})
"""The LoCoMo chats contract §5 and issue 30 quote sentences from: tuning, never reported."""
ARCHIVE_SEPARATOR = ".zip/"
"""Where a part's path goes into a zip archive (a member the mirror holds only zipped)."""
Part = tuple[tuple[str, int], ...]
"""A part of a corpus: (file, first dialogue in file order) ranges, each of the corpus's
dialogue count."""
DAILYDIALOG_FILES: dict[Split, Part] = {
    "tune": (("data/validation/dialogues_validation.txt", 0),),
    "seen": (
        ("data/test/dialogues_test.txt", 0),
        ("data/test/dialogues_test.txt", 200),
        ("data/test/dialogues_test.txt", 400),
        ("data/test/dialogues_test.txt", 600),
        ("data/test/dialogues_test.txt", 800),
        ("data/train.zip/train/dialogues_train.txt", 0),
    ),
    "heldout": (),
}
DAILYDIALOG_DIALOGUES, DAILYDIALOG_PER_CHAIN = 200, 50
TOPICALCHAT_FILES: dict[Split, Part] = {
    "tune": (("conversations/valid_freq.json", 0),),
    "seen": (
        ("conversations/test_freq.json", 0),
        ("conversations/test_rare.json", 0),
        ("conversations/test_freq.json", 100),
        ("conversations/test_rare.json", 100),
        ("conversations/test_rare.json", 200),
    ),
    "heldout": (),
}
TOPICALCHAT_DIALOGUES, TOPICALCHAT_PER_CHAIN = 100, 25
CPED_FILES: dict[Split, Part] = {
    "tune": (("data/CPED/valid_split.csv", 0),),
    "seen": (
        ("data/CPED/test_split.csv", 0),
        ("data/CPED/test_split.csv", 400),
        ("data/CPED/test_split.csv", 800),
        ("data/CPED/test_split.csv", 1200),
        ("data/CPED/test_split.csv", 1600),
        ("data/CPED/test_split.csv", 2000),
    ),
    "heldout": (),
}
CPED_DIALOGUES, CPED_PER_CHAIN = 400, 100
KDCONV_DOMAINS = ("film", "music", "travel")
KDCONV_FILES: dict[Split, Part] = {
    "tune": (("data/{domain}/dev.json", 0),),
    "seen": (
        ("data/{domain}/test.json", 0),
        ("data/{domain}/test.json", 40),
        ("data/{domain}/test.json", 80),
        ("data/{domain}/test.json", 120),
    ),
    "heldout": (),
}
KDCONV_PER_DOMAIN = 40
MELD_FILES: dict[Split, Part] = {"seen": (("data/MELD/test_sent_emo.csv", 0),), "heldout": ()}
MELD_DIALOGUES, MELD_PER_CHAIN = 100, 25
SWITCHBOARD_FILES: dict[Split, Part] = {
    "seen": (("swda_data/metadata/train_split.txt", 0),),
    "heldout": (),
}
"""A list of conversation ids, one a line; each conversation is ``SWITCHBOARD_DIALOGUE``."""
SWITCHBOARD_DIALOGUE = "swda_data/train/{id}.txt"
SWITCHBOARD_DIALOGUES, SWITCHBOARD_PER_CHAIN = 100, 10
C3_FILES: dict[Split, Part] = {"seen": (("data/c3-d-test.json", 0),), "heldout": ()}
C3_DIALOGUES, C3_PER_CHAIN = 100, 25
C3_SPEAKER = re.compile(r"^([^：:]{1,6})[：:]")
"""A C3 line's speaker label ("男：", "记者："), taken off the text it says."""
DIAASQ_FILES: dict[Split, Part] = {
    "seen": (("data/dataset/jsons_zh/test.json", 0),),
    "heldout": (),
}
DIAASQ_DIALOGUES, DIAASQ_PER_CHAIN = 100, 25
CMUDOG_FILES: dict[Split, Part] = {"seen": (("Conversations/test", 0),), "heldout": ()}
"""A folder of conversations, one JSON file each, read in file-name order."""
CMUDOG_DIALOGUES, CMUDOG_PER_CHAIN = 100, 10
MPDD_FILES: dict[Split, Part] = {"seen": (("mpdd.zip/mpdd/dialogue.json", 0),), "heldout": ()}
"""One JSON object of dialogues by case index, inside the repository's zip archive."""
MPDD_DIALOGUES, MPDD_PER_CHAIN = 100, 25
DREAM_FILES: dict[Split, Part] = {"seen": (("data/test.json", 0),), "heldout": ()}
DREAM_DIALOGUES, DREAM_PER_CHAIN = 100, 25
DREAM_SPEAKER = re.compile(r"^([A-Z][A-Za-z.' ]{0,19}):\s*")
"""A DREAM line's speaker label ("M: ", "Woman: ", "Paul: "), taken off the text it says."""
XPERSONA_FILES: dict[Split, Part] = {
    "seen": (("dataset/Zh_persona_split_test_human_annotated.json", 0),),
    "heldout": (),
}
XPERSONA_DIALOGUES, XPERSONA_PER_CHAIN = 100, 10
SELFDIALOGUE_FILES: dict[Split, Part] = {
    "seen": (("corpus/movies/Batch_2814928_batch_results.csv", 0),),
    "heldout": (),
}
"""Mechanical Turk results, one assignment a row; the start counts kept assignments."""
SELFDIALOGUE_DIALOGUES, SELFDIALOGUE_PER_CHAIN = 100, 10
SELFDIALOGUE_BLOCKED = "blocked_workers.txt"
"""The workers whose assignments the corpus's own reader leaves out, one id a line."""
SELFDIALOGUE_LINE = re.compile(r"^Answer\.sentence(\d+)$")
DIALOGRE_FILES: dict[Split, Part] = {"seen": (("data_v2/cn/data/test.json", 0),), "heldout": ()}
DIALOGRE_DIALOGUES, DIALOGRE_PER_CHAIN = 100, 10
DIALOGRE_SPEAKER = re.compile(r"^(Speaker \d+(?:\s*[,，]\s*Speaker \d+)*)\s*[:：]\s*")
"""A DialogRE line's speaker label ("Speaker 2: ", "Speaker 1, Speaker 3: "), taken off."""
CHITCHATCHALLENGE_FILES: dict[Split, Part] = {
    "seen": (("chitchat_dataset/dataset.json", 0),),
    "heldout": (),
}
"""One JSON object of conversations by UUID, read in the file's order."""
CHITCHATCHALLENGE_DIALOGUES, CHITCHATCHALLENGE_PER_CHAIN = 100, 10
REWRITE_FILES: dict[Split, Part] = {"seen": (("corpus.txt", 0),), "heldout": ()}
"""One dialogue a line: three utterances (A, B, A) and A's last one rewritten."""
REWRITE_DIALOGUES, REWRITE_PER_CHAIN = 100, 25
REWRITE_SAID = 3
"""How many of a line's fields were said; the next one is the rewriting, not replayed."""
SAMSUM_FILES: dict[Split, Part] = {"heldout": (("data/samsum/test.csv", 0),)}
"""A CSV of ``id``, ``summary``, ``dialogue`` (one line a message, ``Name: text``), one
dialogue a row, in the corpus's own test order; the summary is not said, so not replayed."""
SAMSUM_DIALOGUES, SAMSUM_PER_CHAIN = 100, 25
SAMSUM_SPEAKER = re.compile(r"^([^:\r\n]{1,40}):\s*")
"""A SAMSum line's sender ("Ann: "), taken off the text it says; a line with none goes on
the message before it."""
DUCONV_FILES: dict[Split, Part] = {"heldout": (("duconv_data/dev.txt", 0),)}
"""One JSON object a line: the ``goal`` and ``knowledge`` the leading side was given (not
said, so not replayed) and the ``conversation``, its utterances in turn, one word a token."""
DUCONV_DIALOGUES, DUCONV_PER_CHAIN = 100, 10

Turns = list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class Chat:
    """One conversation to replay: its id, language and user/assistant turns."""

    id: str
    language: Literal["en", "zh"]
    turns: Turns


def source(variable: str) -> Path | str:
    """The local copy a corpus variable names, or why there is none (a sentence)."""
    return _source(variable)


def _source(variable: str) -> Path | str:
    """The path a variable names, or why there is none."""
    where = bench_settings().of(variable)
    if where is None:
        return f"{variable} is not set"
    path = where.expanduser()
    return path if path.exists() else f"{variable} names a path that does not exist"


def _read(source: Path, inside: str) -> bytes:
    """A file of the project: from a checkout or folder, or ``git show`` of a bare repo; a
    path through a zip (``data/train.zip/train/x.txt``) is that member of the archive."""
    archive, zipped, member = inside.partition(ARCHIVE_SEPARATOR)
    if zipped:
        with zipfile.ZipFile(io.BytesIO(_read(source, archive + ".zip"))) as opened:
            return opened.read(member)
    if (source / inside).exists():
        return (source / inside).read_bytes()
    if (source / "HEAD").exists() and (source / "objects").is_dir():
        return subprocess.run(
            ["git", "--git-dir", str(source), "show", f"HEAD:{inside}"],
            capture_output=True,
            check=True,
        ).stdout
    raise FileNotFoundError(inside)


def _names(source: Path, folder: str) -> list[str]:
    """The files of a folder of the project (paths inside it), in file-name order: from a
    checkout or folder, or ``git ls-tree`` of a bare repo."""
    if (source / folder).is_dir():
        return sorted(f"{folder}/{p.name}" for p in (source / folder).iterdir() if p.is_file())
    if (source / "HEAD").exists() and (source / "objects").is_dir():
        listed = subprocess.run(
            ["git", "--git-dir", str(source), "ls-tree", "--name-only", "HEAD", f"{folder}/"],
            capture_output=True,
            check=True,
            text=True,
        ).stdout
        return sorted(listed.split())
    raise FileNotFoundError(folder)


def alternate(utterances: list[tuple[str, str]]) -> Turns:
    """(speaker, text) lines as turns: a speaker's run is one message, messages alternate."""
    messages: list[str] = []
    last = None
    for speaker, text in utterances:
        text = text.strip()
        if not text:
            continue
        if speaker == last and messages:
            messages[-1] += ("" if _is_chinese(text) else " ") + text
        else:
            messages.append(text)
        last = speaker
    return [(messages[i], messages[i + 1]) for i in range(0, len(messages) - 1, 2)]


def _is_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def locomo_files(source: Path) -> list[tuple[str, dict[str, Any]]]:
    """LoCoMo's conversations as stored (file name without ``.json``, its JSON), in
    file-name order: the sessions, and the questions (``qa``) the LoCoMo bench asks."""
    with zipfile.ZipFile(io.BytesIO(_read(source, LOCOMO_ARCHIVE))) as archive:
        names = sorted(n for n in archive.namelist() if n.endswith(".json"))
        return [(Path(name).stem, json.loads(archive.read(name))) for name in names]


def locomo_turns(conversation: dict[str, Any]) -> Turns:
    """A LoCoMo conversation's sessions in order, as user/assistant turns (``alternate``)."""
    sessions = sorted(
        (k for k in conversation if re.fullmatch(r"session_\d+", k)),
        key=lambda k: int(k.split("_")[1]),
    )
    turns: Turns = []
    for key in sessions:
        turns += alternate([(t["speaker"], t["text"]) for t in conversation[key]])
    return turns


def locomo(source: Path, split: Split, block: int = 0) -> list[Chat]:
    out: list[Chat] = []
    if block or split == "heldout":
        return out  # ten chats, all tuning or seen: none is left unreplayed
    for chat_id, conversation in locomo_files(source):
        if (chat_id in LOCOMO_TUNE) != (split == "tune"):
            continue
        out.append(Chat(f"locomo-{chat_id}", "en", locomo_turns(conversation)))
    return out


_DD_APOSTROPHE = re.compile(r"\s*([’'])\s*(?=(?:s|t|m|ll|re|d|ve)\b)")
_DD_BEFORE_PUNCT = re.compile(r"\s+([.,!?;:%)])")
_DD_AFTER_OPEN = re.compile(r"([($])\s+")


def detokenize(text: str) -> str:
    """DailyDialog's tokens ("I ’ m here .") as written text ("I’m here.")."""
    text = _DD_APOSTROPHE.sub(r"\1", text)
    text = _DD_BEFORE_PUNCT.sub(r"\1", text)
    return _DD_AFTER_OPEN.sub(r"\1", text).strip()


def dailydialog(source: Path, split: Split, block: int = 0) -> list[Chat]:
    dialogues = []
    for inside, start in DAILYDIALOG_FILES[split]:
        lines = _read(source, inside).decode("utf-8").splitlines()
        first = start + block * DAILYDIALOG_DIALOGUES
        for line in lines[first : first + DAILYDIALOG_DIALOGUES]:
            said = [detokenize(u) for u in line.split("__eou__")]
            dialogues.append(alternate([(str(i % 2), u) for i, u in enumerate(said)]))
    return _chains("dailydialog", "en", dialogues, DAILYDIALOG_PER_CHAIN)


def topicalchat(source: Path, split: Split, block: int = 0) -> list[Chat]:
    dialogues = []
    for inside, start in TOPICALCHAT_FILES[split]:
        data = json.loads(_read(source, inside))
        first = start + block * TOPICALCHAT_DIALOGUES
        dialogues += [
            alternate([(m["agent"], m["message"]) for m in conversation["content"]])
            for conversation in list(data.values())[first : first + TOPICALCHAT_DIALOGUES]
        ]
    return _chains("topicalchat", "en", dialogues, TOPICALCHAT_PER_CHAIN)


def cped(source: Path, split: Split, block: int = 0) -> list[Chat]:
    turns: list[Turns] = []
    for inside, start in CPED_FILES[split]:
        text = _read(source, inside).decode("utf-8-sig")
        dialogues: dict[str, list[tuple[str, str]]] = {}
        first = start + block * CPED_DIALOGUES
        last = first + CPED_DIALOGUES
        for row in csv.DictReader(io.StringIO(text)):
            if len(dialogues) == last and row["Dialogue_ID"] not in dialogues:
                break
            said = (row["Speaker"], row["Utterance"])
            dialogues.setdefault(row["Dialogue_ID"], []).append(said)
        turns += [alternate(lines) for lines in list(dialogues.values())[first:]]
    return _chains("cped", "zh", turns, CPED_PER_CHAIN)


def kdconv(source: Path, split: Split, block: int = 0) -> list[Chat]:
    out = []
    for inside, start in KDCONV_FILES[split]:
        first = start + block * KDCONV_PER_DOMAIN
        for domain in KDCONV_DOMAINS:
            data = json.loads(_read(source, inside.format(domain=domain)))
            turns: Turns = []
            for dialogue in data[first : first + KDCONV_PER_DOMAIN]:
                said = [m["message"] for m in dialogue["messages"]]
                turns += alternate([(str(i % 2), u) for i, u in enumerate(said)])
            out.append(Chat(f"kdconv-{domain}-{first}", "zh", turns))
    return out


def meld(source: Path, split: Split, block: int = 0) -> list[Chat]:
    dialogues: list[Turns] = []
    for inside, start in MELD_FILES.get(split, ()):
        scenes: dict[str, list[tuple[str, str]]] = {}
        text = _read(source, inside).decode("utf-8-sig")
        for row in csv.DictReader(io.StringIO(text)):
            scenes.setdefault(row["Dialogue_ID"], []).append((row["Speaker"], row["Utterance"]))
        chosen = list(scenes.values())[start : start + MELD_DIALOGUES]
        dialogues += [alternate(lines) for lines in chosen]
    return _chains("meld", "en", dialogues, MELD_PER_CHAIN)


def switchboard(source: Path, split: Split, block: int = 0) -> list[Chat]:
    dialogues: list[Turns] = []
    for inside, start in SWITCHBOARD_FILES.get(split, ()):
        ids = _read(source, inside).decode("utf-8").split()[start : start + SWITCHBOARD_DIALOGUES]
        for conversation in ids:
            text = _read(source, SWITCHBOARD_DIALOGUE.format(id=conversation)).decode("utf-8")
            said = [line.split("|")[:2] for line in text.splitlines() if line.count("|") >= 2]
            dialogues.append(alternate([(speaker, words) for speaker, words in said]))
    return _chains("switchboard", "en", dialogues, SWITCHBOARD_PER_CHAIN)


def _labelled(source: Path, part: Part, count: int, speaker: re.Pattern[str]) -> list[Turns]:
    """Dialogues of a JSON list of ``[lines, …]`` whose lines open with their speaker's label
    (C3's "男：", DialogRE's "Speaker 1: "): the label taken off and telling the sides apart;
    an unlabelled line takes turns with the one before it."""
    dialogues: list[Turns] = []
    for inside, start in part:
        data = json.loads(_read(source, inside))
        for lines, *_ in data[start : start + count]:
            said = []
            for i, line in enumerate(lines):
                label = speaker.match(line)
                side = label.group(1) if label else str(i % 2)
                said.append((side, line[label.end() :] if label else line))
            dialogues.append(alternate(said))
    return dialogues


def c3(source: Path, split: Split, block: int = 0) -> list[Chat]:
    dialogues = _labelled(source, C3_FILES.get(split, ()), C3_DIALOGUES, C3_SPEAKER)
    return _chains("c3", "zh", dialogues, C3_PER_CHAIN)


_TOKEN_GAP = re.compile(r"(?<=\S) (?=\S)")


def join_tokens(text: str) -> str:
    """DiaASQ's text, one character a token ("我 黑 鲨 4 pro 用 了"), and DuConv's, one word a
    token, as written ("我黑鲨4 pro用了"): a space stays only between two Latin letters or
    digits."""
    text = text.strip()
    return _TOKEN_GAP.sub(
        lambda m: " " if _ascii_word(text[m.start() - 1]) and _ascii_word(text[m.end()]) else "",
        text,
    )


def _ascii_word(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def diaasq(source: Path, split: Split, block: int = 0) -> list[Chat]:
    dialogues: list[Turns] = []
    for inside, start in DIAASQ_FILES.get(split, ()):
        threads = json.loads(_read(source, inside))[start : start + DIAASQ_DIALOGUES]
        for thread in threads:
            said = zip(map(str, thread["speakers"]), thread["sentences"], strict=True)
            dialogues.append(alternate([(who, join_tokens(text)) for who, text in said]))
    return _chains("diaasq", "zh", dialogues, DIAASQ_PER_CHAIN)


def cmudog(source: Path, split: Split, block: int = 0) -> list[Chat]:
    dialogues: list[Turns] = []
    for inside, start in CMUDOG_FILES.get(split, ()):
        names = [n for n in _names(source, inside) if n.endswith(".json")]
        for name in names[start : start + CMUDOG_DIALOGUES]:
            history = json.loads(_read(source, name))["history"]
            said = [(str(m["uid"]), " ".join(str(m["text"]).split())) for m in history]
            dialogues.append(alternate(said))
    return _chains("cmudog", "en", dialogues, CMUDOG_PER_CHAIN)


def mpdd(source: Path, split: Split, block: int = 0) -> list[Chat]:
    dialogues: list[Turns] = []
    for inside, start in MPDD_FILES.get(split, ()):
        cases = list(json.loads(_read(source, inside)).values())[start : start + MPDD_DIALOGUES]
        for case in cases:
            dialogues.append(alternate([(u["speaker"], u["utterance"]) for u in case]))
    return _chains("mpdd", "zh", dialogues, MPDD_PER_CHAIN)


def dream(source: Path, split: Split, block: int = 0) -> list[Chat]:
    dialogues: list[Turns] = []
    for inside, start in DREAM_FILES.get(split, ()):
        data = json.loads(_read(source, inside))
        for lines, *_ in data[start : start + DREAM_DIALOGUES]:
            said = []
            for i, line in enumerate(lines):
                label = DREAM_SPEAKER.match(line)
                speaker = label.group(1) if label else str(i % 2)
                said.append((speaker, line[label.end() :] if label else line))
            dialogues.append(alternate(said))
    return _chains("dream", "en", dialogues, DREAM_PER_CHAIN)


def xpersona(source: Path, split: Split, block: int = 0) -> list[Chat]:
    dialogues: list[Turns] = []
    for inside, start in XPERSONA_FILES.get(split, ()):
        data = json.loads(_read(source, inside))
        for conversation in data[start : start + XPERSONA_DIALOGUES]:
            said = [u for pair in conversation["dialogue"] for u in pair]
            dialogues.append(alternate([(str(i % 2), u) for i, u in enumerate(said)]))
    return _chains("xpersona", "zh", dialogues, XPERSONA_PER_CHAIN)


def selfdialogue(source: Path, split: Split, block: int = 0) -> list[Chat]:
    try:
        blocked = set(_read(source, SELFDIALOGUE_BLOCKED).decode("utf-8").split())
    except (FileNotFoundError, subprocess.CalledProcessError):
        blocked = set()
    dialogues: list[Turns] = []
    for inside, start in SELFDIALOGUE_FILES.get(split, ()):
        rows = csv.DictReader(io.StringIO(_read(source, inside).decode("utf-8")))
        kept = [r for r in rows if not r.get("Reject") and r.get("WorkerId") not in blocked]
        for row in kept[start : start + SELFDIALOGUE_DIALOGUES]:
            numbered = sorted(
                (int(m.group(1)), text.strip())
                for key, text in row.items()
                if key and text and (m := SELFDIALOGUE_LINE.match(key))
            )
            said = [text for _, text in numbered if text and text != "{}"]
            dialogues.append(alternate([(str(i % 2), u) for i, u in enumerate(said)]))
    return _chains("selfdialogue", "en", dialogues, SELFDIALOGUE_PER_CHAIN)


def dialogre(source: Path, split: Split, block: int = 0) -> list[Chat]:
    part = DIALOGRE_FILES.get(split, ())
    dialogues = _labelled(source, part, DIALOGRE_DIALOGUES, DIALOGRE_SPEAKER)
    return _chains("dialogre", "zh", dialogues, DIALOGRE_PER_CHAIN)


def chitchatchallenge(source: Path, split: Split, block: int = 0) -> list[Chat]:
    dialogues: list[Turns] = []
    for inside, start in CHITCHATCHALLENGE_FILES.get(split, ()):
        data = json.loads(_read(source, inside))
        for conversation in list(data.values())[start : start + CHITCHATCHALLENGE_DIALOGUES]:
            said = [
                (str(turn[0].get("sender", "")), " ".join(str(m.get("text", "")) for m in turn))
                for turn in conversation["messages"]
                if turn
            ]
            dialogues.append(alternate(said))
    return _chains("chitchatchallenge", "en", dialogues, CHITCHATCHALLENGE_PER_CHAIN)


def rewrite(source: Path, split: Split, block: int = 0) -> list[Chat]:
    dialogues: list[Turns] = []
    for inside, start in REWRITE_FILES.get(split, ()):
        lines = [line for line in _read(source, inside).decode("utf-8").splitlines() if line]
        for line in lines[start : start + REWRITE_DIALOGUES]:
            fields = line.split("\t\t")[:REWRITE_SAID]
            dialogues.append(alternate([("AB"[i % 2], f) for i, f in enumerate(fields)]))
    return _chains("rewrite", "zh", dialogues, REWRITE_PER_CHAIN)


def samsum(source: Path, split: Split, block: int = 0) -> list[Chat]:
    dialogues: list[Turns] = []
    for inside, start in SAMSUM_FILES.get(split, ()):
        rows = list(csv.DictReader(io.StringIO(_read(source, inside).decode("utf-8-sig"))))
        for row in rows[start : start + SAMSUM_DIALOGUES]:
            said: list[tuple[str, str]] = []
            for line in row["dialogue"].splitlines():
                label = SAMSUM_SPEAKER.match(line)
                if label:
                    said.append((label.group(1).strip(), line[label.end() :]))
                elif said:
                    said.append((said[-1][0], line))
                else:
                    said.append(("", line))
            dialogues.append(alternate(said))
    return _chains("samsum", "en", dialogues, SAMSUM_PER_CHAIN)


def duconv(source: Path, split: Split, block: int = 0) -> list[Chat]:
    dialogues: list[Turns] = []
    for inside, start in DUCONV_FILES.get(split, ()):
        lines = [line for line in _read(source, inside).decode("utf-8").splitlines() if line]
        for line in lines[start : start + DUCONV_DIALOGUES]:
            said = [join_tokens(u) for u in json.loads(line)["conversation"]]
            dialogues.append(alternate([(str(i % 2), u) for i, u in enumerate(said)]))
    return _chains("duconv", "zh", dialogues, DUCONV_PER_CHAIN)


def _chains(
    name: str, language: Literal["en", "zh"], dialogues: list[Turns], per: int
) -> list[Chat]:
    return [
        Chat(f"{name}-{c}", language, [t for d in dialogues[i : i + per] for t in d])
        for c, i in enumerate(range(0, len(dialogues), per))
    ]


LOADERS = {
    "locomo": (LOCOMO_ENV, locomo),
    "dailydialog": (DAILYDIALOG_ENV, dailydialog),
    "topicalchat": (TOPICALCHAT_ENV, topicalchat),
    "cped": (CPED_ENV, cped),
    "kdconv": (KDCONV_ENV, kdconv),
    "meld": (MELD_ENV, meld),
    "switchboard": (SWITCHBOARD_ENV, switchboard),
    "c3": (C3_ENV, c3),
    "diaasq": (DIAASQ_ENV, diaasq),
    "cmudog": (CMUDOG_ENV, cmudog),
    "mpdd": (MPDD_ENV, mpdd),
    "dream": (DREAM_ENV, dream),
    "xpersona": (XPERSONA_ENV, xpersona),
    "selfdialogue": (SELFDIALOGUE_ENV, selfdialogue),
    "dialogre": (DIALOGRE_ENV, dialogre),
    "chitchatchallenge": (CHITCHATCHALLENGE_ENV, chitchatchallenge),
    "rewrite": (REWRITE_ENV, rewrite),
    "samsum": (SAMSUM_ENV, samsum),
    "duconv": (DUCONV_ENV, duconv),
}
LANGUAGE = {
    "locomo": "en",
    "dailydialog": "en",
    "topicalchat": "en",
    "cped": "zh",
    "kdconv": "zh",
    "meld": "en",
    "switchboard": "en",
    "c3": "zh",
    "diaasq": "zh",
    "cmudog": "en",
    "mpdd": "zh",
    "dream": "en",
    "xpersona": "zh",
    "selfdialogue": "en",
    "dialogre": "zh",
    "chitchatchallenge": "en",
    "rewrite": "zh",
    "samsum": "en",
    "duconv": "zh",
}


def load(corpus: str, split: Split, block: int = 0) -> tuple[list[Chat], str]:
    """The corpus's conversations of one split and where they came from, or none and why."""
    if block and split != "tune":
        raise ValueError("only the tuning part has further blocks")
    variable, convert = LOADERS[corpus]
    source = _source(variable)
    if isinstance(source, str):
        return [], source
    try:
        chats = convert(source, split, block)
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError, zipfile.BadZipFile):
        return [], f"{variable} names no readable {corpus} copy"
    if not chats:
        return [], f"{corpus} has no {split} part" + (f" (block {block})" if block else "")
    return chats, f"{corpus} {split} ({source.name})"
