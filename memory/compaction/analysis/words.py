"""Words of a sentence that carry information, and the anchors (names, numbers, dates) in it.

Shared by the decision rules (a decision needs something to be about) and the
summary's salience ranking (what is worth keeping). Function words, chat
interjections and feeling words carry none; names, numbers, times and dates
carry the most.
"""

from __future__ import annotations

import re
from functools import lru_cache

from aimind_memory.memory.compaction.analysis import change_words as cw
from aimind_memory.memory.compaction.analysis.cues import Cues
from aimind_memory.memory.compaction.analysis.segmenter import words as chinese_words
from aimind_memory.memory.compaction.analysis.sentences import is_chinese
from aimind_memory.memory.text import word_set

EN_STOPWORDS = word_set(
    """
    a an the and or but nor so yet for of to in on at by with from up down out off over under
    into onto about above after again against all am any are as be been being before below
    between both can could did do does doing done each few further had has have having he her
    here hers herself him himself his how i if is it its itself just let lets me more most my
    myself no not now once only other our ours ourselves own same she should some such than
    that then there these they this those through too until us very was we were what when
    where which while who whom why will would you your yours yourself yourselves im ive ill id
    youre youve youll youd thats theres whats lets dont doesnt didnt isnt arent wasnt werent
    wont cant couldnt shouldnt wouldnt also really still even much many lot lots thing things
    stuff something anything everything nothing one ones get got getting go going went gone
    make made say said tell told know knew think thought want wanted like well way yes yeah
    yep no nope ok okay oh ah um uh hmm right sure maybe though quite pretty kind sort gonna
    wanna gotta shall may might must need needs us via per etc don didn doesn isn aren wasn
    weren won couldn shouldn wouldn haven hasn hadn mustn needn
    """
)
"""English function words and all-purpose verbs: no information on their own."""

EN_FEELING = word_set(
    """
    hi hello hey hiya bye goodbye thanks thank thx cheers welcome sorry congrats
    congratulations wow omg lol haha hahaha yay hooray aw aww awesome amazing great good
    nice cool lovely love loved loving fun funny glad happy excited exciting beautiful
    wonderful fantastic incredible cute sweet proud totally super absolutely definitely
    seriously honestly literally feel feeling felt hope hoping wish enjoy enjoyed appreciate
    appreciated blast rocks rock awesome best better fine interesting tough hard sad miss
    missed care glad grateful thrilled stoked impressive impressed perfect brilliant adorable
    gorgeous stunning delighted pleasure cool nice sounds sound looks look seems seem
    understood noted agreed confirmed alright
    """
)
"""Greeting, thanks, feeling and acknowledgement words: what chat is full of and memory needs
least."""
_EN_NO_CONTENT = EN_STOPWORDS | EN_FEELING

ZH_STOPWORDS = word_set(
    """
    的 了 是 我 你 他 她 它 我们 你们 他们 她们 咱们 大家 就 都 也 还 在 和 跟 与 及 这 那 这个
    那个 这些 那些 这样 那样 这么 那么 个 吧 啊 呀 呢 吗 嘛 哦 噢 喔 嗯 哈 很 太 真 挺 非常 特别
    一下 一个 有 没有 没 不 会 能 要 想 让 把 被 给 对 从 向 到 去 来 说 又 再 才 只 而 但 但是
    可是 所以 因为 然后 还是 或者 如果 的话 其实 已经 一直 一定 可以 应该 什么 怎么 怎么样 为什么
    哪 哪儿 哪里 谁 几 多少 自己 一起 一样 时候 东西 事 事情 地 得 着 过 上 下 里 中 之 以 于
    而且 并且 比较 好像 感觉 觉得 知道 看看 一点 有点 一些 些 啦 哟 呗 嘿 咯 喽 吧
    """
)
"""Chinese function words."""

ZH_FEELING = word_set(
    """
    你好 您好 嗨 哈喽 再见 拜拜 谢谢 谢啦 感谢 多谢 不客气 客气 哈哈 哈哈哈 嘿嘿 呵呵 哇 哇塞 耶
    太好了 好的 好 行 收到 明白 了解 没问题 没关系 不要紧 加油 辛苦 辛苦了 保重 开心 高兴 快乐
    难过 伤心 担心 抱歉 对不起 不好意思 恭喜 祝 祝你 棒 真棒 厉害 羡慕 可爱 漂亮 好看 好玩 有趣
    不错 喜欢 爱 想念 想你 支持 贴心 感动 幸福 温暖 美好 开心 激动 期待 放心 休息 照顾
    """
)
"""Chinese greeting, thanks and feeling words."""

_EN_WORD = re.compile(r"[A-Za-z0-9][\w'’.:+#/-]*[A-Za-z0-9+#]|[A-Za-z0-9]")
_CLITIC = re.compile(r"['’](?:s|t|d|m|ll|re|ve)$")
_LATIN_RUN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+#/_-]*[A-Za-z0-9+#]|[A-Za-z0-9]")
_PUNCT_ONLY = re.compile(r"^[\W_]+$")

_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|tonight|tomorrow|today"
_EN_NAMED_ANCHOR = (
    r"\b(?:" + _DAYS + r"|" + _MONTHS + r")\b|"
    r"\b(?:next|this|last)\s+(?:week|month|year|time|spring|summer|fall|autumn|winter)\b|"
    r"\b(?:end|start|beginning|middle) of (?:the|this|next) (?:week|month|year|semester|term)\b|"
    r"\b[a-z]+\.(?:js|io|ai|py|com|org|net)\b"
)
_EN_FIGURE = r"\d+(?:[:.,]\d+)*|[$€£¥%]"
_EN_ANCHOR = re.compile(_EN_FIGURE + "|" + _EN_NAMED_ANCHOR, re.IGNORECASE)
_EN_FIGURES = re.compile(_EN_FIGURE)
"""``_EN_ANCHOR`` in a text where no named time can match (``_EN_NAMED_CUES``): the same
matches, without trying a named time at every word."""
_EN_NAMED_CUES = Cues(re.compile(_EN_NAMED_ANCHOR, re.IGNORECASE))
_CAPITALISED = re.compile(r"(?<=[\w,;:)] )[A-Z][A-Za-z0-9]+")
_ZH_ANCHOR = re.compile(
    r"[0-9０-９]+(?:[:.][0-9]+)?|[一二三四五六七八九十两百千万]+(?:点|号|日|月|年|元|块|岁|个|人|天|周|次|楼|层|万|千)|"
    r"周[一二三四五六日末]|星期[一二三四五六日天]|礼拜[一二三四五六日天]|"
    r"今天|明天|后天|昨天|今晚|明晚|上午|下午|晚上|早上|中午|凌晨|"
    r"下周|下个?月|明年|今年|去年|月底|年底|周末|[A-Za-z]{2,}"
)
_EN_PRONOUN_I = frozenset({"I", "I'm", "I'll", "I've", "I'd", "OK", "Ok"})
_ZH_NAMED = re.compile(
    r"(?:姓|叫|名叫|名字是)[\u4e00-\u9fff]{1,3}|[小老]["
    + "".join(sorted(cw.ZH_FAMILIAR_SURNAMES))
    + "]"
)
"""A name said as one: 房东姓周, 他叫阿杰, or a colleague called 小赵, 老王 (no tagger needed for
the commonest ways)."""
_GREETINGS = re.compile(
    r"\b(?:good (?:morning|afternoon|evening|night)|see you(?: soon| later| then)?|talk (?:soon|"
    r"later)|take care|sleep well|sweet dreams|have a (?:good|great|nice) (?:day|night|one|"
    r"weekend)|happy (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend)|"
    r"how are you(?: doing)?(?: today)?|how is it going|how's it going|what's up|"
    r"how have you been|how was your (?:day|weekend|week))\b|最近怎么样|今天过得怎么样|你好吗|"
    r"早上好|晚上好|中午好|下午好|早安|晚安|午安|好梦|明天见|回头见|回头聊|再见|拜拜|好久不见|"
    r"那就好|没事|没问题|不客气|随时问我|有事随时|好好休息|早点休息|祝(?:你|您|你们)?[^，。！？,.!?]*",
    re.IGNORECASE,
)
"""Greetings and sign-offs, whose words ("morning", "早上") would otherwise count as content."""
_GREETING_CUES = Cues(_GREETINGS)
"""Most sentences greet no one: the words a greeting needs, looked up first (``Cues``)."""


def _en_tokens(text: str) -> list[str]:
    """Lower-case words, a clitic cut off ("must've" -> "must", "don't" -> "don"); only a
    word with an apostrophe can have one, so only such a word is searched. Plain ASCII text
    is lowered whole (its letters stay letters); other text a word at a time."""
    if text.isascii():
        found = _EN_WORD.findall(text.lower())
    else:
        found = [word.lower() for word in _EN_WORD.findall(text)]
    return [_CLITIC.sub("", w) if "'" in w or "’" in w else w for w in found]


@lru_cache(maxsize=8_192)
def _ungreeted(text: str) -> str:
    """The text with its greetings blanked; ``content_words`` and ``anchors`` both read a
    sentence so, and most sentences are asked both (``salience.information``)."""
    return _GREETINGS.sub(" ", text) if _GREETING_CUES.may_match(text) else text


def _zh_tokens(text: str) -> list[str]:
    """Chinese words from jieba; Latin runs ("Node.js", "v2.1") stay whole."""
    out: list[str] = []
    start = 0
    for match in _LATIN_RUN.finditer(text):
        out.extend(chinese_words(text[start : match.start()]))
        out.append(match.group().lower())
        start = match.end()
    out.extend(chinese_words(text[start:]))
    return [w for w in out if not _PUNCT_ONLY.match(w)]


@lru_cache(maxsize=8_192)
def content_words(text: str) -> tuple[str, ...]:
    """The words that say something: no function words, greetings or feeling words.

    In Chinese a one-character word is mostly a verb or particle (搬, 到, 问, 多):
    only words of two or more characters, numbers and Latin words count.
    """
    text = _ungreeted(text)
    if is_chinese(text):
        return tuple(
            w
            for w in _zh_tokens(text)
            if (len(w) > 1 or w.isascii())
            and w not in ZH_STOPWORDS
            and w not in ZH_FEELING
            and w not in EN_STOPWORDS
        )
    return tuple(
        w for w in _en_tokens(text) if w not in _EN_NO_CONTENT and (len(w) > 1 or w.isdigit())
    )


@lru_cache(maxsize=8_192)
def anchors(text: str) -> int:
    """How many names, numbers, times and dates the text holds (a fact's handles)."""
    text = _ungreeted(text)
    if is_chinese(text):
        return len(_ZH_ANCHOR.findall(text)) + len(_ZH_NAMED.findall(text))
    names = [w for w in _CAPITALISED.findall(text) if w not in _EN_PRONOUN_I]
    found = (_EN_ANCHOR if _EN_NAMED_CUES.may_match(text) else _EN_FIGURES).findall(text)
    return len(found) + len(names)
