"""Chinese decisions: 决定/定了/选定/说好了/方案是/以后都/不再…, not 别担心 or 一定很累吧.

Patterns run over the raw sentence where the characters are unambiguous, and over
jieba's words where they are not: 定 the verb ("定了", "定在五月") is a word of
its own, not the 定 of 一定, 肯定 or 稳定; 不要 is not 不要紧; 别 is not 别人 or
特别; 决定 after 这个/的 is a noun ("这个决定对你一定很难").

The frames are here; the words they accept or reject are data, in ``decisions_zh.toml``
(``memory.compaction.analysis.wordlists``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from aimind_memory.memory.compaction.analysis import booking, owner, smalltalk
from aimind_memory.memory.compaction.analysis import change_words as cw
from aimind_memory.memory.compaction.analysis.segmenter import segment
from aimind_memory.memory.compaction.analysis.strengths import COMMITMENT, CONFIRMED, EXPLICIT, RULE
from aimind_memory.memory.compaction.analysis.wordlists import WordLists
from aimind_memory.memory.compaction.analysis.words import anchors, content_words

_W = WordLists("decisions_zh")
_B = WordLists("booking_zh")
"""The booking profile's words (``booking``): its patterns decide only when it is on."""

_LEAD = re.compile(rf"^(?:(?:{_W.either('lead')})[，,、！!。～~ ]+)+")
_CONFIRM_LABEL = re.compile(
    rf"^(?:(?:{_W.either('label_subjects')})(?:已经|都|也|就)?)?"
    rf"(?:{_W.either('labels')})[：:]\s*(?P<rest>.+)|"
    rf"^(?:{_W.either('comma_labels')})[，,]\s*(?P<after_comma>.+)"
)
_AS_AGREED = re.compile(
    rf"^(?:好的[，,])?(?:就)?(?:按|照|根据)(?:{_W.either('as_agreed_who')})?"
    rf"(?:{_W.either('as_agreed_said')})的[，,]?|"
    rf"^(?:好的[，,])?(?:按|照|根据)(?:您|你)的(?:{_W.either('as_requested')})[，,]?"
)
"""A lead that says what follows was agreed before: 按我们说好的，…; 按您的要求，…"""

_QUESTION = re.compile(_W.either("question"))
_HEDGE_WORDS = _W.words("hedge")
_UNDECIDED = re.compile(
    rf"(?:{_W.either('undecided_negators')})(?:有)?(?:{_W.either('undecided_done')})|"
    rf"(?:{_W.either('unable')})[^，。！？]{{0,4}}?(?:确定|决定|确认)|"
    rf"(?:决定|定|确定)不了|拿不定|(?<!不)再(?:{_W.either('later_verbs')})"
)
_PLEASANTRY_WORDS = _W.words("pleasantry")
_EPISTEMIC = re.compile(
    rf"(?:{_W.either('surely')})(?:{_W.either('surely_after')})|必须的(?:[，,！!。～~]|$)|"
    r"^必须(?:的|地|有|知道|是|滴)?(?:啊|呀|呢|哦|嘛|哟|啦)|^必须(?:的|地|滴)[，,！!。～~]|"
    rf"一定要.*(?:{_W.either('must_have_wish')})"
)
_EXCLAIMED = re.compile(r"[！!]+[～~]*$")
_WISH = re.compile(rf"一定要.*(?:{_W.either('wish')})|一定要.*[！!]+[～~]*$|确认过眼神")
"""以后一定要再去一次！: a wish said with emphasis, not a plan."""
_EMOTIVE = re.compile(_W.either("emotive"))

_SETTLED_WORDS = _W.words("settled")
_DING_NEXT = _W.words("ding_next")
_SETTLING_VERBS = _W.words("settling_verbs")
"""Verbs that settle a matter with 好 after them: 商量好了, 选好了, 想好了."""
_CHOSE = _W.words("chose")
_NOUN_BEFORE = _W.words("noun_before")
_DECIDERS = _W.words("deciders")
"""Who may decide for a pin: us, not 我姐姐 or 他们 (gossip is a fact, not our decision)."""
_ADVERBS = _W.words("adverbs")
_AGREE_OBJECT_NOT = _W.words("agree_object_not")
_FINALLY = re.compile(
    rf"(?:最终|最后)(?:{_W.either('finally_who')})?(?:还是|就)?(?:{_W.either('finally_verbs')})"
)
_PLAN = re.compile(rf"(?:{_W.either('plan_nouns')})(?:就|已经)?(?:是|为|定为|[：:])(?P<rest>.+)")
_CHOICE = re.compile(_W.either("choice"))
_RULE = re.compile(_W.either("rule"))
_NEGATED = re.compile(
    rf"{_W.either('negated')}|"
    rf"(?:{_W.either('for_now')})(?:先|暂时|暂)?不(?:再)?[\u4e00-\u9fff]"
)
_NOT_ANYMORE = re.compile(r"不(?:再)?(?P<verb>[\u4e00-\u9fff]{1,4})了[。！!]?$")
_NOT_ANYMORE_IDIOMS = _W.words("not_anymore_idioms")
_TIME = rf"(?:{_W.either('time')})"
_PLANNED = re.compile(
    r"^(?:" + _TIME + r"[，,]?)*(?:我|我们|咱们)(?:" + _TIME + r")*(?:就|也|还|已经)?"
    rf"(?:{_W.either('planned_verbs')})"
)
"""下周我要去上海出差; 周五我来订餐厅: a plan of ours with a when (checked apart)."""
_HAS_TIME = re.compile(_TIME)
_VAGUE_TIME = re.compile(_W.either("vague_time"))
_COMMITTED = re.compile(
    rf"(?:我|我们|咱们)(?:{_W.either('committed_adverbs')})?(?:{_W.either('committed')})|^我报"
)
"""Done by us: 报名了, 订好了机票, 签了合同."""
_NOT_BUT = re.compile(
    rf"不(?:{_W.either('not_but_verbs')})[^，。；]{{1,30}}[，,；]?\s*而是|"
    rf"^不把.{{1,40}}(?:{_W.either('not_but_calls')})(?:为|成|作)"
)
"""这篇博客不按版本分段写，而是融合成…; 不把该能力描述为长期记忆: a choice stated as not-X-but-Y."""
_DEFERRED = re.compile(
    rf"[，,；]\s*(?:{_W.either('later')})再(?:{_W.either('later_done')})[。！!]*$"
)
_THIS_TIME_NOT = re.compile(rf"(?:这|本|这一)(?:{_W.either('this_time')})(?:先|暂时|暂)?不")
"""这版不做X，下个版本再考虑: the deferral is about later, the decision about now."""
_SAID_SETTLED = _W.words("said_settled")
"""说好, 说定, 说了: the saying settles something (说好了), it reports nothing."""
_NEGATORS = _W.words("negators")
_COMMITMENT = re.compile(
    rf"^(?:我|我们)(?:{_W.either('commitment_time')})+"
    rf".{{0,4}}?(?:{_W.either('commitment_verbs')})|"
    rf"^(?:我|我们)来(?:{_W.either('i_will')})"
)
_IMPERATIVE_BEFORE = _W.words("imperative_before")
_IMPERATIVE_EMOTIVE = _W.words("imperative_emotive")
_CLAUSE_END = re.compile(r"[，。！？,.!?、；;：:～~]|\s+(?=[\u4e00-\u9fff])")
"""Where a clause ends: punctuation, or a space before Chinese (not 别用 MySQL's)."""
_MOMENTARY_VERB = 2
"""别数了, 别解释了: a verb this short with 了 is "stop …ing"; 不要接进来了 is not."""
_SETTLED_AFTER = _W.words("settled_after")
_CONFIRM_ASKED = _W.words("confirm_asked")
_CONFIRM_DONE = _W.words("confirm_done")
_ATTRIBUTIVE = _W.words("attributive")


@dataclass(frozen=True, slots=True)
class _Sentence:
    """A sentence with jieba's words, so a pattern only counts where a word starts."""

    text: str
    tokens: list[str]
    offsets: tuple[int, ...]
    starts: frozenset[int]  # the offsets as a set: ``search`` asks it once per match

    @classmethod
    def of(cls, text: str) -> _Sentence:
        spans = segment(text)
        offsets = tuple(o for _, o in spans)
        return cls(text, [w for w, _ in spans], offsets, frozenset(offsets))

    def after(self, i: int) -> str:
        """What follows word ``i`` up to the end of its clause (a space ends one too)."""
        tail = self.text[self.offsets[i] + len(self.tokens[i]) :]
        return _CLAUSE_END.split(tail, maxsplit=1)[0]

    def search(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """The first match that starts a word: 定为 in 定为首选, not in 一定为."""
        return next((m for m in pattern.finditer(self.text) if m.start() in self.starts), None)


def _reported(tokens: list[str]) -> bool:
    """听说…, 小林说他们…: what someone else decided is news, not our decision."""
    for i, token in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        speaker = tokens[i - 1] if i > 0 else ""
        if token == "说" and speaker and after not in _SAID_SETTLED and speaker not in _DECIDERS:
            return True  # 小林说…
        if (
            token.endswith("说")
            and len(token) > 1
            and token[:-1] not in _DECIDERS
            and after not in _SAID_SETTLED
        ):
            return True  # 我妈说… (one word)
    return False


def _disqualified(text: str, tokens: list[str]) -> bool:
    """A question, hedge, undecided matter, sympathy or a cheer, whatever else it says."""
    if _QUESTION.search(text) or _UNDECIDED.search(text):
        return True
    if _reported(tokens) or _WISH.search(text):
        return True
    if _EPISTEMIC.search(text) or any(t in _PLEASANTRY_WORDS for t in tokens):
        return True
    settled = [i + 1 < len(tokens) and tokens[i + 1] in _SETTLED_AFTER for i in range(len(tokens))]
    negated = [i > 0 and tokens[i - 1] in _NEGATORS for i in range(len(tokens))]
    hedges = zip(tokens, settled, negated, strict=True)
    if any(t in _HEDGE_WORDS and not done and not neg for t, done, neg in hedges):
        return True  # 商量 is a hedge, 商量好了 is not; nor is 不再推荐
    return bool(_EXCLAIMED.search(text) and _EMOTIVE.search(text))


def _imperative(s: _Sentence) -> bool:
    """不要 + an action ("不要把密码写进仓库"), not 不要太累, nor a command for the moment
    (``_momentary``); 别 and 不能 alone are modal words, no rule (contract §5)."""
    tokens = s.tokens
    for i, word in enumerate(tokens):
        opens = i == 0 or tokens[i - 1] in _IMPERATIVE_BEFORE
        token = word.removeprefix("千万") or word
        verb_at = i + 1
        # 别 and 不能 alone are no rule (contract §5: "别升系统", "你不能这样"); 不要 is, and
        # so is 别 made emphatic (千万别: "never")
        if token == "不要" and opens:
            verb = tokens[i + 1] if i + 1 < len(tokens) else ""
        elif word.startswith("千万别") and opens:
            verb = word[3:] or (tokens[i + 1] if i + 1 < len(tokens) else "")
            verb_at = i if word[3:] else i + 1
        else:
            continue
        if not verb or verb in _IMPERATIVE_EMOTIVE or verb.startswith("太"):
            continue
        if token != "不能" and _momentary(verb, s.after(verb_at)):
            continue
        if owner.chinese(s.text, s.offsets[i]) is None:
            continue
        return True
    return False


def _momentary(verb: str, after: str) -> bool:
    """别动, 别数了, 别别别: a command for the moment — a bare verb with nothing after it, or
    a short verb with 了 ("stop …ing") — is said in the heat of a scene, not a rule to keep
    (不要把密码写进仓库, 别在周五发版 have an object)."""
    if set(verb) <= {"别"}:
        return True  # 别别别: an interjection
    if len(verb) <= _MOMENTARY_VERB and after.startswith("了"):
        return True
    return not after


def _required(s: _Sentence) -> bool:
    """必须 / 一定要 as an obligation of ours (``owner``; sympathy and 必须的 are already ruled
    out)."""
    tokens = s.tokens
    for i, token in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        must = token in ("必须", "务必") and not after.startswith("好")
        must = must or (token == "一定" and after == "要")
        if must and owner.chinese(s.text, s.offsets[i]) is not None:
            return True
    return False


def _decider(tokens: list[str], i: int) -> bool:
    """决定 is ours when its subject is us or left out; 这个决定 is a noun."""
    j = i - 1
    while j >= 0 and tokens[j] in _ADVERBS:
        j -= 1
    if j < 0 or not any(c.isalnum() for c in tokens[j]):
        return i == 0 or tokens[i - 1] not in _NOUN_BEFORE
    return tokens[j] in _DECIDERS


def _attributive(tokens: list[str], i: int) -> bool:
    """说定了的事, 拍板这种事: the word describes a thing, it states nothing."""
    j = i + 1
    while j < len(tokens) and tokens[j] in ("了", "好"):
        j += 1
    return j < len(tokens) and tokens[j] in _ATTRIBUTIVE


def _confirmed(tokens: list[str], i: int) -> bool:
    """确认 as ours: 我们确认, 用户确认, 已经确认了, 确认过了 — not 帮我确认一下 or 请您确认."""
    before = tokens[max(0, i - 3) : i]
    if any(t in _CONFIRM_ASKED for t in before):
        return False
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    if after == "一下":
        return False
    j = i - 1
    while j >= 0 and tokens[j] in _ADVERBS:
        j -= 1
    ours = j >= 0 and tokens[j] in _DECIDERS
    return ours or after in _CONFIRM_DONE or (i > 0 and tokens[i - 1] in ("已", "已经"))


def _settled(tokens: list[str]) -> bool:
    """决定 (the verb, by us), 定了/定在, 选定, 说好了, 大家都同意, 我们确认 … — not 她们定了
    (``owner``)."""
    text = "".join(tokens)
    for i, token in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if _attributive(tokens, i) or owner.chinese(text, len("".join(tokens[:i]))) is None:
            continue
        if token in ("确认", "已确认") and _confirmed(tokens, i):
            return True
        if token == "决定" and after and _decider(tokens, i):
            return True
        if token.removesuffix("了") in _SETTLED_WORDS or (token == "定" and after in _DING_NEXT):
            return True
        if (token in _SETTLING_VERBS and after == "好") or (token in _CHOSE and after == "了"):
            return True
        if token == "同意" and after.isalnum() and after not in _AGREE_OBJECT_NOT:
            return True
    return False


def _enough(text: str) -> bool:
    """Something to be about: two content words, a name or number counting as one more
    (counted only when the words fall short)."""
    found = len(content_words(text))
    return found >= 2 or found + anchors(text) >= 2


def _planned(text: str, tokens: list[str]) -> bool:
    """A plan of ours with a when: 下周我要去上海出差三天, 明晚七点在老地方吃饭吧."""
    if _VAGUE_TIME.search(text) or not _HAS_TIME.search(text):
        return False
    words = [t for t in tokens if any(c.isalnum() for c in t)]
    proposal = bool(words) and words[-1] == "吧"  # the particle, not 酒吧
    return bool(_PLANNED.search(text)) or proposal


# --- Arrangements (issue 30): a scheduled event, a scope or a booking stated as a fact -------
# 周会定在周二上午十点 (jieba glues 周会定, so the token rules miss it), 季度复盘安排在6月28日,
# 周一上午九点开周会, 移动端先只做安卓版, 年会在万豪酒店办: decided, though no 决定 says so.

_SET_AT = re.compile(
    rf"(?<![{_W.characters('set_at_not')}])(?:定|安排|约)在(?!一起)[^，。！？,]{{2,}}"
)
"""定在/安排在/约在 + what: 周会定在周二上午十点 (not 他一定在家, 固定在墙上)."""
_TIME_LED = re.compile(
    r"^(?:(?:每|这|本|下个?)?" + _TIME + r"[，,]?)+(?:在[^，。！？,]{1,10})?"
    rf"(?:{_W.either('time_led_verbs')})"
)
"""周一上午九点开周会, 下周三交设计稿: a when, then what is done (a subject is not needed)."""
_RIDE_AT = re.compile(rf"(?:{_B.either('ride_booked')})(?:{_TIME})+的(?:{_B.either('rides')})")
"""The booking profile: 回程坐周日晚上六点的高铁, 机票订了周四早上七点的航班 (a ride by its
time)."""
_BOOKED_IS = re.compile(rf"(?:{_B.either('booked_is')})的是[^，。！？,]{{2,}}")
"""The booking profile: 餐厅订的是靠窗的8号桌 (what was booked, said as a fact)."""
_BOOKING = (_RIDE_AT, _BOOKED_IS)
_ONLY_SCOPE = re.compile(
    rf"(?:{_W.either('only_scope_when')})(?:先)?只(?:{_W.either('only_scope_verbs')})"
)
"""移动端先只做安卓版: a scope, in the words _NEGATED already uses for 这版不做."""
_HELD_AT = re.compile(rf"在[^，。！？,]{{2,12}}(?:{_W.either('held')})[。！!]?$")
"""年会在万豪酒店办, 婚礼在杭州举行."""


def _arranged(text: str) -> float:
    """An arrangement: 定在/安排在 + what, a when-led plan, a ride by its time, a scope, or
    where an event is held."""
    if _VAGUE_TIME.search(text):
        return 0.0
    if _SET_AT.search(text) or _ONLY_SCOPE.search(text):
        return RULE
    if booking.enabled() and (_RIDE_AT.search(text) or _BOOKED_IS.search(text)):
        return RULE
    if _TIME_LED.search(text) or _HELD_AT.search(text):
        return COMMITMENT
    return 0.0


def gives_up(verb: str) -> bool:
    """Signal "no longer": the X of 不X了 is something given up (柯基不养了, 这个节日不过了),
    not an idiom (不错了, 不好意思了, 不是很清楚了) nor 不 opening a word that joins clauses
    (不过我看过了: "but I have seen it"). The one test of 不X了, for decisions and for
    changes (``statements``)."""
    if verb in _NOT_ANYMORE_IDIOMS or verb[0] in cw.ZH_NOT_ANYMORE_IDIOMS:
        return False
    return not (verb[0] in cw.ZH_NOT_JOINING and len(verb) > 1)


def _owned(m: re.Match[str]) -> bool:
    """Whether the rule or choice ``m`` found binds the conversation (``owner.chinese``):
    not a third party's (他不回来吃了), nor a rule for 你 or a 不…了 of 我 of the moment."""
    return owner.chinese(m.string, m.start(), no_more=m.re is _NOT_ANYMORE) is not None


def _frames(text: str) -> float:
    if _THIS_TIME_NOT.search(text):
        text = _DEFERRED.sub("。", text)
    s = _Sentence.of(text)
    if _disqualified(text, s.tokens) or not _enough(text):
        return 0.0
    if _settled(s.tokens) or s.search(_FINALLY):
        return EXPLICIT
    if _COMMITTED.search(text) or _NOT_BUT.search(text):
        return RULE
    if _planned(text, s.tokens):
        return COMMITMENT
    if (m := s.search(_PLAN)) and content_words(m.group("rest")):
        return RULE
    if any((m := s.search(p)) and _owned(m) for p in (_CHOICE, _RULE, _NEGATED)):
        return RULE
    if _imperative(s) or _required(s):
        return RULE
    m = s.search(_NOT_ANYMORE)
    if m and gives_up(m.group("verb")) and _owned(m):
        return RULE
    if _COMMITMENT.search(text):
        return COMMITMENT
    return _arranged(text)


def _confirmations(words: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A bare confirmation of ``words`` (说定了！), and one with its object after it
    (预订成功。订单号是 A1289)."""
    bare = rf"^(?:好的|好|OK|ok)?[，,]?\s*(?:{words})"
    return re.compile(bare + r"[。！!～~]*$"), re.compile(bare + r"[。！!，,]\s*(?P<rest>.+)")


_BARE_CONFIRMATION, _BARE_LEAD = _confirmations(_W.either("bare_confirmation"))
_BARE_BOOKED, _BOOKED_LEAD = _confirmations(_B.either("bare_confirmation"))
"""The booking profile's: 预订成功, 已为您预订好了."""


def is_bare_confirmation(sentence: str) -> bool:
    """ "说定了！" (and with the booking profile "预订成功。"): a confirmation whose object is
    the next sentence."""
    s = sentence.strip()
    return bool(_BARE_CONFIRMATION.match(s) or (booking.enabled() and _BARE_BOOKED.match(s)))


@lru_cache(maxsize=8_192)
def is_small_talk(sentence: str) -> bool:
    """Small talk (``smalltalk.chinese``), whatever decision or change frame it has.

    Cached: ``decision_strength`` asks it first, and ``decisions.is_small_talk`` asks it
    again of the same sentence.
    """
    return smalltalk.chinese(_LEAD.sub("", sentence.strip()))


def decision_strength(sentence: str) -> float:
    """How decision-like one Chinese sentence is: 0 for none, up to ``EXPLICIT``."""
    text = _LEAD.sub("", sentence.strip())
    if is_small_talk(text):
        return 0.0
    if lead := _AS_AGREED.match(text):
        rest = text[lead.end() :]
        if not _disqualified(rest, _Sentence.of(rest).tokens) and _enough(rest):
            return max(CONFIRMED, _frames(rest))
    booked = _BOOKED_LEAD.match(text) if booking.enabled() else None
    if label := _CONFIRM_LABEL.match(text) or _BARE_LEAD.match(text) or booked:
        rest = _LEAD.sub("", label.group("rest") or label.group("after_comma"))
        if not _disqualified(rest, _Sentence.of(rest).tokens) and _enough(rest):
            return max(CONFIRMED, _frames(rest))
    return _frames(text)


# --- Why (contract §5, "Memory says why"): the frame that fired and its words ---------------
_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a confirmation", _CONFIRM_LABEL),
    ("a confirmation", _AS_AGREED),
    ("a decision", _FINALLY),
    ("a commitment", _COMMITTED),
    ("a decision", _NOT_BUT),
    ("a plan", _PLAN),
    ("a decision", _CHOICE),
    ("a rule", _RULE),
    ("a rule", _NEGATED),
    ("a rule", _NOT_ANYMORE),
    ("a commitment", _COMMITMENT),
    ("an arrangement", _SET_AT),
    ("an arrangement", _ONLY_SCOPE),
    ("an arrangement", _RIDE_AT),  # the booking profile's (``decision_cue``)
    ("an arrangement", _BOOKED_IS),  # the booking profile's
    ("an arrangement", _TIME_LED),
    ("an arrangement", _HELD_AT),
    ("a plan", _PLANNED),
)
_OWNED = (_CHOICE, _RULE, _NEGATED, _NOT_ANYMORE)
"""The cues whose frames ask ``owner``: a cue it refused did not fire."""
_SETTLED_CUES = (
    "决定",
    "确认",
    "同意",
    *sorted(_SETTLED_WORDS | _CHOSE | _SETTLING_VERBS, key=lambda w: (len(w), w)),
)
"""Ordered by length, then by the words themselves: the cue ``decision_cue`` quotes among
equal-length ones must not depend on how a set happens to iterate in this process."""


_RULE_WORDS = ("千万别", "不要", "必须", "务必", "一定要")
"""The words of an order or an obligation, quoted as a rule's trigger."""


def decision_cue(sentence: str) -> tuple[str, str] | None:
    """The signal a decided sentence fired and the words that fired it ("a decision",
    "定了"), or None when no frame's words are in it."""
    text = _LEAD.sub("", sentence.strip())
    if any(word in text for word in _SETTLED_CUES) and _settled(_Sentence.of(text).tokens):
        found = [w for w in _SETTLED_CUES if w in text]
        return "a decision", max(found, key=len)
    for word in _RULE_WORDS:  # 不要…, 必须… (``_imperative``, ``_required``)
        if word in text and owner.chinese(text, text.index(word)) is not None:
            return "a rule", word
    for signal, pattern in _CUES:
        if pattern in _BOOKING and not booking.enabled():
            continue
        if (m := pattern.search(text)) and (pattern not in _OWNED or _owned(m)):
            end = m.start("rest") if "rest" in m.re.groupindex and m.start("rest") >= 0 else 0
            return signal, (text[m.start() : end] if end > m.start() else m.group())[:12]
    return None
