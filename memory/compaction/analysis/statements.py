"""What a sentence says about a decision, to compare it with another (``supersession``).

Read three ways (``Said``):

- **values**, typed by kind (``values``): "Table for 4" and "make it 6 people" hold
  people 4 and 6;
- **subject words**: content words that are neither values nor words of the decision
  frame ("decided", "book", "改成"): "launch", "table", "数据库". Chinese words are
  compared by their two-character units, so 主持 meets 主持人;
- **change words** (``change_words``, data): a correction ("actually", "make it",
  "不对", "改成", "还是…吧"), a reversal ("not … after all", "cancelled", "取消", "不再"),
  a change of plan opening the sentence ("Change of plans: …", which makes it a
  decision); words that add a decision beside the earlier one ("also", "the way back",
  "另外", "回程"); a question or a hedge.

And what an answer does with what was just said: a bare correction ("No.", "不对。"), an
acceptance ("Sure.", "好的"), an offer it may accept ("Should I try 12:30 pm?"). Pure
functions, cached per sentence; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Literal

from aimind_memory.memory.compaction.analysis import booking, decisions_en, decisions_zh
from aimind_memory.memory.compaction.analysis import change_words as cw
from aimind_memory.memory.compaction.analysis.cues import Battery, Possible
from aimind_memory.memory.compaction.analysis.decisions import is_small_talk
from aimind_memory.memory.compaction.analysis.sentences import is_chinese, split_sentences
from aimind_memory.memory.compaction.analysis.values import (
    DETAIL_KINDS,
    THING_KINDS,
    chinese_values,
    english_values,
)
from aimind_memory.memory.compaction.analysis.words import EN_STOPWORDS, anchors, content_words

Change = Literal["correction", "reversal"]
BARE_WORDS = 4
BARE_CHARS_ZH = 4
"""A bare correction is a few words: "No.", "Actually, scratch that.", "That is not
correct.", "不对。"."""


class _Phrases:
    """A phrase list's pattern, searched only in a text that may match it (``cues.Cues``:
    each phrase needs its words, so a text holding none of them is not searched). The
    pattern's many alternatives, gaps and word-boundary checks were most of a fold's time;
    a set lookup of the text's words is a small fraction of one search. One ``Battery``
    holds all of a language's lists: a text's words are looked up once for all of them
    (``_on``), not once per list asked."""

    __slots__ = ("_battery", "pattern")

    def __init__(self, pattern: re.Pattern[str], battery: Battery) -> None:
        self.pattern, self._battery = pattern, battery

    def search(self, text: str) -> re.Match[str] | None:
        """``pattern.search(text)``."""
        return _on(self._battery, text).search(self.pattern)


@lru_cache(maxsize=4_096)
def _on(battery: Battery, text: str) -> Possible:
    """The lists of ``battery`` that may match ``text``: a sentence is asked several."""
    return battery.on(text)


def _phrase_pattern(phrases: Iterable[str], chinese: bool) -> re.Pattern[str]:
    """One pattern for a phrase list: ``…`` a short gap, ``^`` the sentence's start, ``$``
    its end; English parts match whole words."""
    gap = r"[^，。！？；,.!?;]{1,10}?" if chinese else r"(?:\s+\S+){0,6}?\s+"
    out = []
    for phrase in phrases:
        start = "^" if phrase.startswith("^") else ""
        end = r"(?=\s*[.!?;]|\W*$)" if phrase.endswith("$") else ""
        parts = [re.escape(p.strip()) for p in phrase.lstrip("^").rstrip("$").split("…")]
        if not chinese:
            parts = [
                (r"\b" if p[0].isalnum() else "") + p + (r"\b" if p[-1].isalnum() else "")
                for p in parts
            ]
        out.append(start + gap.join(parts) + end)
    return re.compile("|".join(out) or r"(?!)")  # an empty list matches nothing


def _battery(lists: Mapping[str, Iterable[str]], chinese: bool) -> dict[str, _Phrases]:
    """Each phrase list's pattern, all sharing one ``Battery``."""
    patterns = {name: _phrase_pattern(phrases, chinese) for name, phrases in lists.items()}
    battery = Battery(*patterns.values())
    return {name: _Phrases(pattern, battery) for name, pattern in patterns.items()}


_EN, _ZH = (_battery(cw.SENTENCE_PHRASES[lang], lang == "zh") for lang in ("en", "zh"))
"""Each phrase list's pattern (``change_words.SENTENCE_LISTS``), by language."""
_ZH_NOT_ANYMORE = re.compile(r"不([\u4e00-\u9fff]{1,4})了")

_SPACED_CLITIC = re.compile(r"\s+(n't|'s|'re|'ll|'ve|'d|'m)\b")
"""The booking profile: MultiWOZ's tokenised text ("is n't", "they 're")."""


@lru_cache(maxsize=2_048)
def _english(text: str) -> str:
    """Lower case, plain quotes, contractions spelled out, as the decision rules read it
    (cached: each reading of a sentence, and of its whole message, asks it again)."""
    spaced = "'" in text and booking.enabled()  # every clitic of _SPACED_CLITIC has one
    return decisions_en.normalised(_SPACED_CLITIC.sub(r"\1", text) if spaced else text)


@dataclass(frozen=True, slots=True)
class Said:
    """What a sentence says, for comparing it with another (see the module's docstring).

    Its values, subject and words are read when first asked (``_parsed``): most sentences
    of a fold carry no change and no decision and are never compared with anything, and
    reading typed values is the dearest part of a sentence's analysis."""

    source: str
    """The sentence its values are read from."""
    change: Change | None
    weak: bool
    """The change is marked only by words that also just carry on a conversation."""
    labelled: bool
    """Opened as a change of plan ("Change of plans: …", "计划有变，…"): a decision."""
    additive: bool
    tentative: bool
    """A question or a hedge: asked or weighed, not decided."""
    rejects: bool = False
    """Opens by rejecting what was just said ("No, …", "That is incorrect", "不是…"): it may
    answer the decision said in the message before."""

    @property
    def values(self) -> Mapping[str, frozenset[str]]:
        """Its typed values by kind (names, dates, times, numbers, …)."""
        return _parsed(self.source)[0]

    @property
    def subject(self) -> frozenset[str]:
        """Its subject words: content words that are no value, no frame word and not
        an opening acknowledgement's."""
        return _parsed(self.source)[1] - _acknowledging(self.source)

    @property
    def units(self) -> frozenset[str]:
        """The measures its numbers are said in ("30 seconds", "2秒" → time, "20M" → size,
        "600 rpm" → rpm) and the things they count ("the last 20 tags" → tag: a subject
        word right after a number)."""
        counted = _counted(self.source, plural=True) & self.subject - cw.EN_MEASURE_UNITS
        return _units(self.source) | counted

    @property
    def negated(self) -> bool:
        """It says "not" (``change_words``' negators: "do not do that", "不行"), not in an
        idiom that negates nothing ("不错")."""
        return _negated(self.source)

    @property
    def words(self) -> tuple[str, ...]:
        """Its content words in order (English), for a thing named in place of another."""
        return _parsed(self.source)[2]


@lru_cache(maxsize=1_024)
def _negated(source: str) -> bool:
    if is_chinese(source):
        for idiom in cw.ZH_NEGATION_IDIOMS:
            source = source.replace(idiom, "")
        return any(n in source for n in cw.ZH_NEGATORS)
    return not cw.EN_NEGATORS.isdisjoint(_english(source).split())


@lru_cache(maxsize=4_096)
def _parsed(
    source: str,
) -> tuple[Mapping[str, frozenset[str]], frozenset[str], tuple[str, ...]]:
    """A sentence's values, subject and content words (``Said``'s, read on demand)."""
    if is_chinese(source):
        found, rest, _ = chinese_values(source)
        units = [w for w in content_words(rest) if w not in cw.ZH_FRAME and not w.isascii()]
        return _kinds(found), _zh_units(units), ()
    s = _english(source)
    found, rest, names = english_values(source, s)
    name_words = {w for n in names for w in n.split()}
    subject = (
        frozenset(
            stem(w)
            for w in content_words(rest)
            if w not in cw.EN_FRAME and w not in name_words and not w.isdigit()
        )
        - cw.EN_ZONES
    )  # "02:00 UTC": the time's, not what is decided
    words = tuple(w for w in _LETTERS.findall(s) if w not in EN_STOPWORDS)
    return _kinds(found), subject, words


_EN_UNIT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s*(%|[a-z]+)")
_ZH_UNIT = re.compile(
    r"\d+(?:\.\d+)?\s*("
    + "|".join(map(re.escape, sorted(cw.ZH_MEASURE_UNITS, key=len, reverse=True)))
    + ")"
)


@lru_cache(maxsize=4_096)
def _units(source: str) -> frozenset[str]:
    """The measure units (``change_words``' en/zh_measure_units) said right after a number:
    the kind of measure the number is, a setting's slot ("timeout … 30 seconds")."""
    if is_chinese(source):
        units = set(_ZH_UNIT.findall(source))
    else:
        units = {u for u in _counted(source) if u in cw.EN_MEASURE_UNITS}
    return frozenset(cw.MEASURE_DIMENSIONS.get(u, u) for u in units)


@lru_cache(maxsize=4_096)
def _counted(source: str, plural: bool = False) -> frozenset[str]:
    """The English words said right after a number, as subject words are stemmed; with
    ``plural``, only those written in the plural: things counted ("20 tags"), not "crate 6
    sealed" nor "2 extra chairs"."""
    if is_chinese(source):
        return frozenset()
    found = _EN_UNIT.findall(_english(source))
    return frozenset(stem(u) for u in found if not plural or stem(u) != u)


def _kinds(found: Iterable[tuple[str, str]]) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for kind, value in found:
        out.setdefault(kind, set()).add(value)
    return {k: frozenset(v) for k, v in out.items()}


ING_STEM = 4
"""A word ending in -ing is read as its stem when this much is left ("launching" →
"launch"; not "string"): "We're launching on May 12" is about the launch."""


def stem(word: str) -> str:
    """A subject word as sentences compare it: no possessive, no plural "s", no "-ing"."""
    word = word.removesuffix("'s")
    if word.endswith("ing") and len(word) - 3 >= ING_STEM:
        return word[:-3]
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _zh_units(words: Iterable[str]) -> frozenset[str]:
    """Chinese words as two-character units (主持人 → 主持, 持人): 主持 meets 主持人."""
    out: set[str] = set()
    for word in words:
        out.update([word] if len(word) <= 2 else (word[i : i + 2] for i in range(len(word) - 1)))
    return frozenset(out)


_CHANGES: tuple[tuple[str, Change, bool], ...] = (
    ("reversal", "reversal", False),
    ("correction", "correction", False),
    ("return", "correction", True),
    ("reversal_weak", "reversal", True),
    ("correction_weak", "correction", True),
)


def _change(
    patterns: Mapping[str, _Phrases], text: str
) -> tuple[Change | None, bool, re.Match[str] | None]:
    """The change a sentence's words mark, whether only by weak words, and the words."""
    for key, change, weak in _CHANGES:
        if m := patterns[key].search(text):
            return change, weak, m
    return None, False, None


_QUESTION_MARK = re.compile(r"[?？]")


_LETTERS = re.compile(r"[a-z]+")


_CLAUSE = re.compile(r"[^,;，；]+[,;，；]?")


def clauses(sentence: str) -> list[str]:
    """The sentence's clauses, comma or semicolon apart (Chinese or not), without them."""
    return [c.strip(" ,;，；") for c in _CLAUSE.findall(sentence)]


@lru_cache(maxsize=4_096)
def kept_apart(sentence: str) -> str:
    """Signal "the other slot stays": a clause saying a decision stays as it is ("orders
    stays on PostgreSQL", "prod dont touch", "生产不动", "iOS不变"), beside a clause that
    changes another ("notifications moves to DynamoDB; …"). The sentence without its kept
    clauses is what it changes: the slot a kept clause names is left as it was. A clause
    with change words of its own ("还是用MySQL吧") is no kept clause; a sentence that is all
    kept clauses is returned whole."""
    return _apart(sentence, "kept")


@lru_cache(maxsize=1_024)
def added_apart(sentence: str) -> str:
    """Signal "the addition is another clause": a clause adding a decision beside ("同时开启
    未走索引的查询记录", "and also turn on …") next to the clause that changes one ("把阈值降到
    500毫秒"). The sentence without its adding clauses is what it changes."""
    return _apart(sentence, "additive")


def _apart(sentence: str, marked: str) -> str:
    """The sentence without its clauses of phrase list ``marked`` (unless a clause changes
    something itself); whole when it is all such clauses, or has none."""
    clauses = _CLAUSE.findall(sentence)
    if len(clauses) < 2:
        return sentence
    patterns = _read(sentence)[0]
    rest = [c for c in clauses if not patterns[marked].search(_read(c)[1]) or said(c).change]
    if not rest or len(rest) == len(clauses):
        return sentence
    return "".join(rest).rstrip(",;，； ")


_OPENER = re.compile(r"^[^,:;]{1,20}[,:;]\s*(?=\S)")


@lru_cache(maxsize=4_096)
def _acknowledging(sentence: str) -> frozenset[str]:
    """The words of an acknowledgement opening an English sentence ("No problem, Python 3.12
    it is."): the answer's own words, no subject of the decision it repeats."""
    opener = _OPENER.match(sentence)
    if opener is None or is_chinese(sentence):
        return frozenset()
    text = _english(opener.group())
    if not (_EN["acknowledgement"].search(text) or _EN["acknowledgement_weak"].search(text)):
        return frozenset()
    return frozenset(stem(w) for w in content_words(text))


def _no_longer(text: str) -> bool:
    """不X了 ("柯基不养了"): X no longer (``decisions_zh.gives_up``), unless a decline (不用了)."""
    if (m := _ZH_NOT_ANYMORE.search(text)) is None:
        return False
    return decisions_zh.gives_up(m.group(1)) and m.group(1) not in cw.ZH_DECLINES


def _read(sentence: str) -> tuple[Mapping[str, _Phrases], str]:
    """A sentence's language's patterns and its text as they read it: Chinese as said,
    English normalised."""
    return (_ZH, sentence) if is_chinese(sentence) else (_EN, _english(sentence))


@lru_cache(maxsize=4_096)
def said(sentence: str) -> Said:
    """What one sentence says (cached: pins come back at every compaction)."""
    patterns, s = _read(sentence)
    change, weak, _ = _change(patterns, s)
    if weak and patterns["closing"].search(s):  # "No thanks, that's all for today."
        change, weak = None, False
    if change is None and patterns is _ZH and _no_longer(s):
        change, weak = "reversal", True
    labelled = bool(patterns["change_labels"].search(s))
    declined = bool(patterns["declined"].search(s))  # weighed and declined: no change
    change = None if declined else change
    return Said(
        source=sentence,
        change="correction" if change is None and labelled else change,
        weak=weak,
        labelled=labelled,
        additive=bool(patterns["additive"].search(s)),
        tentative=declined or bool(patterns["tentative"].search(s) or _QUESTION_MARK.search(s)),
        rejects=change == "correction" and bool(patterns["rejection"].search(s)),
    )


def is_bare_correction(sentence: str) -> bool:
    """Only a correction's words ("No.", "Nope.", "This is incorrect.", "不对。", "Sorry, I
    need to change that."): the correction is said by the sentence after it. Words that
    also just carry on a conversation make one only in a few words ("No, that would be
    all" is no correction)."""
    what = said(sentence)
    if what.change != "correction" or what.values or what.subject:
        return False
    if is_chinese(sentence):
        return not what.weak or len(sentence.strip()) <= BARE_CHARS_ZH
    return not what.weak or len(_english(sentence).split()) <= BARE_WORDS


def is_acceptance(sentence: str) -> bool:
    """An answer that accepts what was just offered or asked to confirm ("Sure.", "Yes
    please", "That works", "好的"), changing nothing of it itself."""
    what = said(sentence)
    if what.change is not None or what.values.keys() & DETAIL_KINDS:
        return False
    patterns, text = _read(sentence)
    return bool(patterns["acceptance"].search(text.strip()))


def takes_all_on(answer: str) -> bool:
    """Signal "what you put forward, done": an answer that accepts whatever the other side
    just said, not only an offer asked ("perfect, do it", "ok yes, let's do that", "行，听你的").
    Its concrete statements just before (``stated``) are the decision, in whatever form
    they were said ("Cap it at 5 retries …")."""
    first, text, patterns = _opening(answer)
    if not first or _QUESTION_MARK.search(first):
        return False
    what = said(first)
    if what.change is not None or what.negated:
        return False
    return bool(patterns["acceptance_strong"].search(text))


def offers_to_act(offer: str) -> bool:
    """An offer to act with a value in it ("Free on Friday at 2 pm. Shall I book that?",
    "周五下午三点都有空，要不就定这个时间？"): taken on, it is a decision of its own."""
    patterns, text = _read(offer)
    acts = patterns["offer_to_act"].search(text)
    return acts is not None and bool(said(offer).values.keys() - {"name"})


def refers_back(offer: str) -> bool:
    """An offer with nothing concrete of its own ("Shall I book that?", "Want to move it
    there?", "要不就定这个？"): it offers what the sentence before it said."""
    return not said(offer).values and anchors(offer) == 0


def is_offer(sentence: str, message: str) -> bool:
    """A sentence the answer after it may accept: a question that offers or proposes
    ("Should I try 12:30 pm?", "How about 6 pm instead?", "… at 4:45 pm, correct?"; not
    "What is your favourite team?"), or any sentence of a message that asks to confirm
    ("Booking a table for 2 at 7 pm. Please confirm.")."""
    patterns, text = (_ZH, sentence) if is_chinese(message) else (_EN, _english(sentence))
    offered = said(sentence).tentative and bool(patterns["offer"].search(text))
    return offered or proposes(sentence) or _asks_to_confirm(message)


def proposes(sentence: str) -> bool:
    """A proposal with something concrete in it ("I suggest SonarQube.", "建议用SonarQube"):
    the other side may take it with a bare yes (contract §5, "an accepted proposal")."""
    patterns, text = _read(sentence)
    if _QUESTION_MARK.search(text):  # "能给我推荐几个吗？" asks for one
        return False
    return bool(patterns["proposal"].search(text.strip())) and anchors(sentence) > 0


def acknowledges(message: str) -> Literal["explicit", "weak"] | None:
    """How an answer opens by taking on what was just said: ``explicit`` ("Noted, …",
    "Got it.", "好的，订单100。"), ``weak`` ("Okay, 25 seats per Team workspace.": words that
    also just say one is listening), or None."""
    first, text, patterns = _opening(message)
    if not first or _QUESTION_MARK.search(first):
        return None
    if patterns["acknowledgement"].search(text):
        return "explicit"
    return "weak" if patterns["acknowledgement_weak"].search(text) else None


_YEAR = re.compile(r"\b(?:in|back in|since)\s+(?P<year>(?:19|20)\d\d)\b")


def narrated_past(sentence: str) -> bool:
    """Said of the past ("I decided to learn Rust back in 2020", "我前年决定转行"): a narrated
    event for the summary, not a decision that holds (contract §5)."""
    patterns, text = _read(sentence)
    if patterns["past"].search(text):
        return True
    year = _YEAR.search(text) if patterns is _EN else None
    return year is not None and int(year.group("year")) < datetime.now(UTC).year


@lru_cache(maxsize=1_024)  # keyed by whole messages: a few folds' worth
def _asks_to_confirm(message: str) -> bool:
    """The message asks to confirm ("… Please confirm."): read once per message, not once
    per sentence of it."""
    patterns, text = _read(message)
    return bool(patterns["confirm_request"].search(text))


CUE_WORDS_AFTER = 2
"""Words kept after a change's own words, for what it is about ("instead of" + "Java")."""


def change_cue(sentence: str) -> tuple[str, bool]:
    """The words that mark the sentence's change ("switch to MySQL", "改成"), for its
    ``why``, and whether they are weak words ("actually": then they are quoted alone and
    the new value beside them); empty when none does. Not a kept clause's words."""
    patterns, text = _read(kept_apart(sentence))
    _, weak, m = _change(patterns, text)
    if m is None:
        return "", False
    cue = m.group().strip("，,。 :;!-")
    if patterns is _ZH or weak:
        return cue, weak
    words = (w.strip(".,!?;:") for w in text[m.end() :].split())
    after = [w for w in words if w.isalnum()][:CUE_WORDS_AFTER]
    return " ".join([cue, *after]), weak


_ARTICLE = r"(?:(?:the|a|an|our|my|your|that|this)\s+)?"
_ZH_PARTICLES = "了的吧啦啊呢"
"""Sentence-final particles after an old value named ("不用腾讯云了"): not part of it."""


def _old_value_pattern(words: Iterable[str], chinese: bool) -> re.Pattern[str]:
    """Old-value words ("instead of", "不用") and the value named right after them."""
    either = "|".join(map(re.escape, words))
    if chinese:
        return re.compile(rf"(?:{either})\s*(?P<value>[A-Za-z0-9][\w.+#-]*|[\u4e00-\u9fff]{{1,6}})")
    return re.compile(rf"\b(?:{either})\s+{_ARTICLE}(?P<value>[\w.+#-]+)")


_OLD_VALUE = {  # (Chinese, the clearest words only)
    (False, False): _old_value_pattern(cw.EN_OLD_VALUE, False),
    (True, False): _old_value_pattern(cw.ZH_OLD_VALUE, True),
    (False, True): _old_value_pattern(cw.EN_OLD_VALUE_STRONG, False),
    (True, True): _old_value_pattern(cw.ZH_OLD_VALUE_STRONG, True),
}


def _old_values(sentence: str, strong: bool) -> frozenset[str]:
    """The values named after old-value words, lower-cased as ``Said.values`` holds them."""
    if chinese := is_chinese(sentence):
        found = (
            m.group("value").lower().rstrip(_ZH_PARTICLES)
            for m in _OLD_VALUE[chinese, strong].finditer(sentence)
        )
        return frozenset(v for v in found if v)
    text = _english(sentence).rstrip(".!?")
    found = (
        m.group("value").strip(".").lower() for m in _OLD_VALUE[chinese, strong].finditer(text)
    )
    return frozenset(v for v in found if not (strong and v in EN_STOPWORDS))


@lru_cache(maxsize=4096)
def dropped_by_name(sentence: str) -> frozenset[str]:
    """Signal "the old value dropped by name": the words a sentence names after the clearest
    old-value words ("no more X", "instead of X", "drop X", "取代X") — a change even when the
    sentence is no decision of its own. Not a question or a hedge."""
    return frozenset() if said(sentence).tentative else _old_values(sentence, strong=True)


@lru_cache(maxsize=4096)
def named_old_values(sentence: str) -> frozenset[str]:
    """The words a sentence names as what it replaces ("instead of Java" → java, "不用
    MySQL" → mysql)."""
    return _old_values(sentence, strong=False)


NAMED = THING_KINDS | {"name"}
_NEGATED_CLAUSE = re.compile(r"(?i)(?:\b(?:not|no longer|never)|n't)\b([^,;.!?]*)")
"""A clause that says not, from its negator on. "n't" is part of its verb ("aren't"), so no
word boundary comes before it: it is matched wherever it ends a word."""


@lru_cache(maxsize=1_024)
def negated_values(text: str) -> frozenset[str]:
    """Signal "the old value negated": the things named in a clause that says not ("we're
    not putting payments on Vault", "不用MySQL") — what a choice said beside it ("AWS Secrets
    Manager it is") replaces. Names and things only: "not before 3 pm" drops no time."""
    if is_chinese(text):
        return named_old_values(text)
    found = (said(m.group(1)).values for m in _NEGATED_CLAUSE.finditer(text))
    return frozenset(v for vs in found for k, named in vs.items() if k in NAMED for v in named)


def old_value_cue(sentence: str) -> str:
    """The words naming what a change replaces ("instead of PostgreSQL"), or empty."""
    chinese = is_chinese(sentence)
    m = _OLD_VALUE[chinese, False].search(sentence if chinese else _english(sentence))
    return m.group().strip(" ,.") if m else ""


STATED_WORDS = 2
"""A stated fact needs this much to be about: content words, a name or a number counting."""


def stated(sentence: str) -> bool:
    """A plain statement with something concrete in it ("Tickets live in Jira.", "线上Node版本
    是16"): not a question, a hedge, small talk or the past — what an acknowledged
    statement is made of."""
    what = said(sentence)
    if what.tentative or what.change is not None or narrated_past(sentence):
        return False
    if is_small_talk(sentence):
        return False
    words, handles = len(content_words(sentence)), anchors(sentence)
    if is_chinese(sentence):  # a Chinese name or thing is no anchor: its words must do
        return not sentence.lstrip().startswith(cw.ZH_PERSONAL) and handles + words > STATED_WORDS
    text = _english(sentence)
    said_words = text.split()
    if handles == 0 or decisions_en.is_question(text) or said_words[0] in cw.EN_PERSONAL:
        return False
    if len(said_words) > STATED_MAX_WORDS or _EN_PAST_VERB.search(text):
        return False
    return words + handles > STATED_WORDS


def gives_value(sentence: str) -> bool:
    """A statement giving a value about something, in whatever tense ("… need 80%
    coverage on changed lines; overall coverage is reported …"), not asked or hedged: what
    an answer to a yes may state as agreed (``confirms_agreed``) where ``stated`` reads a
    told past — not the answer's "OK." alone."""
    what = said(sentence)
    return bool(what.values) and bool(what.subject) and not what.tentative


STATED_MAX_WORDS = 25
"""A setting or a rule is said in a short sentence; a longer one tells something."""
_EN_PAST_VERB = re.compile(
    r"\b(?=[a-z])(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bbeen )(?<!\bget )(?<!\bgets )(?<!\bwas )"
    rf"(?<!\bwere )(?:[a-z]+ed|{'|'.join(cw.EN_PAST_VERBS)})\b"
)
"""A past tense verb: what is told happened — an event for the summary — unless it is a
participle after "is", "are", "get" ("Workspaces are capped at 25 seats")."""


def acknowledged(message: str, answer: str) -> frozenset[str]:
    """The sentences of ``message`` that ``answer`` took on (contract §5, an agreed
    statement): the answer opens with an acknowledgement ("Noted", "Okay", "好的") and
    either repeats a sentence's concrete words ("Okay, backups at 1 am UTC.") or, an
    explicit one alone, answers a message of one sentence ("Tickets live in Jira." →
    "Noted.")."""
    how = acknowledges(answer)
    if how is None:
        return frozenset()
    sentences = split_sentences(message)
    replied = set(content_words(answer))
    bare = how == "explicit" and len(replied) <= 1 and len(split_sentences(answer)) == 1
    return frozenset(
        s
        for s in sentences
        if stated(s)
        and ((len(sentences) == 1 and (bare or acts_on(answer))) or _repeats(s, replied))
    )


def accepts(message: str) -> bool:
    """Signal "a yes": a message that ends by accepting ("yes please", "design's fine with
    it. yup", "SRE那边没意见，同意"): its last sentence, or that sentence's last clause, is
    an acceptance (``is_acceptance``) — whatever was said before it (who was asked, why)."""
    last = next(reversed(split_sentences(message)), "")
    clause = re.split(r"[,;，；]", last.rstrip("。.!！ "))[-1].strip()
    if not last or _QUESTION_MARK.search(last):
        return False
    if clause != last.strip() and is_acceptance(clause):
        return True  # "sounds good, yes", "SRE那边没意见，同意"
    # a yes and little else ("yep, ship that"), not a yes opening a request ("好的，顺便把
    # 电话也发给我吧")
    return is_acceptance(last) and len(content_words(last)) <= ACCEPTANCE_WORDS


ACCEPTANCE_WORDS = 1
"""A yes says little else: "yep, ship that", "yes please"."""


def confirms_agreed(message: str, answer: str) -> bool:
    """Signal "the agreement said back": the other side's answer to a yes opens by taking
    it on ("Done: …", "Okay, …", "好的，…") — what it states is what was agreed, said whole
    ("yep, ship that" → "Done: catalog responses are cached for 15 minutes, with a purge
    on price changes."): a proposal accepted, in the words of whoever carries it out. Not
    an answer asking to confirm ("Ok, to be clear: 1 ticket to …"): that is asked back."""
    if _asks_to_confirm(answer):
        return False  # "Ok, to be clear: 1 ticket …": asked back, not yet agreed
    return accepts(message) and acknowledges(answer) is not None


def acts_on(answer: str) -> bool:
    """An answer opening with an acknowledgement goes on to its own next step on what it
    took on ("Okay, I'll set marketing@ as the sender.", "好的，我去申请签名和模板。"):
    whoever acts on a statement agreed to it, whether or not it repeats its words."""
    _, text, patterns = _opening(answer)
    return bool(patterns["next_step"].search(text))


def _opening(message: str) -> tuple[str, str, Mapping[str, _Phrases]]:
    """A message's first sentence, as said and as the patterns read it (Chinese as said,
    English normalised), and its language's patterns: how an answer opens."""
    first = next(iter(split_sentences(message)), "")
    patterns, text = _read(first)
    return first, text.strip(), patterns


_NAMED = re.compile(r"(?<=\W)[A-Z][\w+#-]*(?:\.\w+)*")


def _repeats(sentence: str, replied: set[str]) -> bool:
    """The answer repeats the sentence's concrete words: a number, a name (written with a
    capital inside the sentence, or in Chinese), or two words."""
    shared = set(content_words(sentence)) & replied
    names = {w.lower() for w in _NAMED.findall(sentence)}
    concrete = any(any(c.isdigit() for c in w) or not w.isascii() or w in names for w in shared)
    return concrete or len(shared) > 1


def returns_to(sentence: str) -> Literal["named", "original"] | None:
    """A return to an earlier option: ``named`` when the sentence names it ("go back to
    Tailwind", "用回飞书"), ``original`` when it means the first one ("we're using the
    original one", "还是用最早那个吧"), None when it returns to nothing."""
    patterns, text = _read(sentence)
    if patterns["original"].search(text):
        return "original"
    if patterns["return"].search(text) or (patterns is _ZH and _ZH_STILL.search(text)):
        return "named"
    return None


def returned_option(sentence: str) -> str:
    """What a return names after its words ("going back to sqlc for inventory" → "sqlc for
    inventory", "还是用回Taro" → "Taro"): the option it goes back to."""
    patterns, text = _read(sentence)
    found = patterns["return"].search(text)
    return text[found.end() :] if found else ""


_ZH_STILL = re.compile(r"还是(?:用|选|上)?[^，。！？,]{1,12}吧")
"""还是 RESTful 吧: going back to what was said before."""
