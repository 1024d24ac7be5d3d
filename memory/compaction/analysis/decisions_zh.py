"""Chinese decisions: 决定/定了/选定/说好了/方案是/以后都/不再…, not 别担心 or 一定很累吧.

Patterns run over the raw sentence where the characters are unambiguous, and over
jieba's words where they are not: 定 the verb ("定了", "定在五月") is a word of
its own, not the 定 of 一定, 肯定 or 稳定; 不要 is not 不要紧; 别 is not 别人 or
特别; 决定 after 这个/的 is a noun ("这个决定对你一定很难").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.compaction.analysis import smalltalk
from memory.compaction.analysis.decisions_en import COMMITMENT, CONFIRMED, EXPLICIT, RULE
from memory.compaction.analysis.segmenter import segment
from memory.compaction.analysis.words import anchors, content_words
from memory.text import word_set

_LEAD = re.compile(
    r"^(?:(?:好的|好|行|收到|明白|明白了|了解|没问题|可以|OK|ok|Ok|嗯+|好嘞|对|是的|那|那么|所以|"
    r"哈哈+|谢谢|太好了|没错|确实|其实|别担心|不用担心|放心|别急|不着急|对了|同意|算了)"
    r"[，,、！!。～~ ]+)+"
)
_CONFIRM_LABEL = re.compile(
    r"^(?:(?:我们|我|咱们|大家|用户|双方|那|那就|就)(?:已经|都|也|就)?)?"
    r"(?:(?:已|已经)?确认(?:一下|过了|了)?|结论|决定|约定|共识|规则|规定|原则|最终方案|方案|计划|"
    r"定了|说好了|说定了|拍板|拍板了|决议|记下了|记住|"
    r"(?:行程|计划|安排|方案|分工|流程|规则|结论|决定)(?:就)?是?这样(?:的)?)[：:]\s*(?P<rest>.+)|"
    r"^(?:确认一下|说定了|就这么定了|定了)[，,]\s*(?P<after_comma>.+)"
)
_AS_AGREED = re.compile(
    r"^(?:好的[，,])?(?:就)?(?:按|照|根据)(?:我们|咱们|你|您)?(?:说好|商量好|约好|定好|说|讲|定)的[，,]?|"
    r"^(?:好的[，,])?(?:按|照|根据)(?:您|你)的(?:要求|意思|安排|吩咐|规定)[，,]?"
)
"""A lead that says what follows was agreed before: 按我们说好的，…; 按您的要求，…"""

_QUESTION = re.compile(
    r"[？?]|(?:吗|呢|么|不)[。！!～~]*$|要不要|是不是|好不好|行不行|可不可以|能不能|对不对|有没有|"
    r"怎么样|为什么|为啥|是否|要不然|要不|哪个|哪儿|哪里|什么时候"
)
_NO_MATTER_WHAT = re.compile(r"无论如何|不管怎样|不管怎么样")
_HEDGE_WORDS = word_set(
    """
    可能 也许 或许 大概 说不定 估计 应该 考虑 想想 再说 看看 看情况 犹豫 纠结 如果 假如 要是
    的话 万一 或者 觉得 好像 似乎 不确定 不一定 未定 待定 商量 讨论 琢磨 建议 推荐 不如 最好
    希望 改天 回头 到时候 再议 想想看 考虑一下 研究 打听 尽量 争取 试试 尝试
    """
)
_UNDECIDED = re.compile(
    r"(?:没|没有|未|尚未|不|无法|不能)(?:有)?(?:决定|定|确定|确认|拍板|说定|想好|选好|定好|敲定|"
    r"商量好|拿定)|(?:无法|没法|没办法|不能)[^，。！？]{0,4}?(?:确定|决定|确认)|"
    r"(?:决定|定|确定)不了|拿不定|(?<!不)再(?:看|定|议|聊|商量|说|决定|考虑|研究)"
)
_PLEASANTRY_WORDS = word_set(
    """
    担心 客气 不客气 谢谢 感谢 多谢 辛苦 辛苦了 加油 保重 休息 照顾 哈哈 哈哈哈 恭喜 祝 祝你
    抱歉 对不起 不好意思 没关系 不要紧 想你 爱你 贴心 难过 伤心 慢慢来 别客气 别担心
    """
)
_EPISTEMIC = re.compile(
    r"(?:一定|肯定|想必|应该)(?:很|挺|特别|非常|超|好|是|累|辛苦|难)|必须的(?:[，,！!。～~]|$)|"
    r"^必须(?:的|地|有|知道|是|滴)?(?:啊|呀|呢|哦|嘛|哟|啦)|^必须(?:的|地|滴)[，,！!。～~]|"
    r"一定要.*(?:照顾|休息|注意|保重|开心|快乐|来玩|尝尝|试试|去看看|好好)"
)
_EXCLAIMED = re.compile(r"[！!]+[～~]*$")
_WISH = re.compile(
    r"一定要.*(?:再|一次|一趟|去看|去玩|去吃|尝|试)|一定要.*[！!]+[～~]*$|确认过眼神"
)
"""以后一定要再去一次！: a wish said with emphasis, not a plan."""
_EMOTIVE = re.compile(r"太|真|哇|哈哈|好开心|啊|呀|耶|棒|厉害|激动|期待|开心")

_SETTLED_WORDS = word_set(
    "选定 敲定 拍板 商定 约定 议定 说定 说好 讲好 谈妥 定下来 定好 确定 认定 达成 定了 决议 商量好"
)
_DING_NEXT = word_set("了 在 为 成 下来 下 好 于 到")
_SETTLING_VERBS = word_set("商量 说 谈 讲 约 定 选 挑 想 订 买 报 签 安排")
"""Verbs that settle a matter with 好 after them: 商量好了, 选好了, 想好了."""
_CHOSE = word_set("选 挑")
_NOUN_BEFORE = word_set("这个 那个 这种 的 一个 个 重大 艰难 最好")
_DECIDERS = word_set("我 我们 咱们 大家 团队 公司 家里 我俩 我们俩 全家 双方 咱俩 一致 用户 老板")
"""Who may decide for a pin: us, not 我姐姐 or 他们 (gossip is a fact, not our decision)."""
_ADVERBS = word_set(
    "已经 已 最后 终于 还是 最终 都 也 就 刚 刚刚 正式 一致 临时 暂时 今天 昨天 那 投票 开会 讨论 "
    "经过 商量 一起 共同 集体 当场 这点 这个"
)
_AGREE_OBJECT_NOT = word_set("你 你的 您 你们 您的 这个 这点")
_FINALLY = re.compile(
    r"(?:最终|最后)(?:我们|咱们|大家|我)?(?:还是|就)?(?:用|选|采用|定|决定|选择|改|换|去|买|订)"
)
_PLAN = re.compile(
    r"(?:方案|计划|安排|结论|决定|做法|规则|原则|分工|共识|规矩|日程|预算|截止日期|期限|上限|底线)"
    r"(?:就|已经)?(?:是|为|定为|[：:])(?P<rest>.+)"
)
_CHOICE = re.compile(
    r"就(?:用|选|定|按|订|买|去|走|换|改|照|住|吃|要|拿|这么|这样|它|那个|这个|这家)|改用|换成|改成|改到|改在|换到|"
    r"改(?:请|去|吃|看|买|订|约|选|走|坐|住|开|叫)|按(?:这个|这样|这么|此|那个)(?:来|办|做|定)|"
    r"照(?:这个|此)(?:办|来)|"
    r"挪到|推迟到|提前到|延到|延期到|改为|换为|定为|统一(?:用|使用|采用|走|为|成)|采用|选用|只用|"
    r"一律用"
)
_RULE = re.compile(
    r"(?:以后|之后|今后)[^，。！？,]{0,6}?(?:都|一律|不再|不|别|不要|统一|只)|底线|今后|从今以后|从今往后|往后|从现在(?:起|开始)|从此|"
    r"从(?:今天|明天|现在|下周|下个?月|今年|明年|[^，。！？,]{1,4})(?:开始|起)|一律|务必|不得|禁止|严禁|不准|不许|不允许|只能|控制在|不超过|不能超|"
    r"永远不要|永远别|绝不|绝对不"
)
_NEGATED = re.compile(
    r"不打算|不再|不考虑|放弃|取消|砍掉|去掉|排除|不做|不搞|不上|不用(?!谢|客气|担心|管|怕|着急|急|了)|"
    r"(?:先|暂时|暂|今年|这次|目前|这版|这一版|本版|这个版本|这期|本期)(?:先|暂时|暂)?不(?:再)?[\u4e00-\u9fff]"
)
_NOT_ANYMORE = re.compile(r"不(?:再)?(?P<verb>[\u4e00-\u9fff]{1,4})了[。！!]?$")
_NOT_ANYMORE_IDIOMS = word_set(
    "行 好 得 早 错 少 多 够 对 起 了 见 动 住 及 舒服 开心 高兴 一样 要紧 客气 好意思 容易"
)
_TIME = (
    r"(?:今天|明天|后天|今晚|明晚|明早|下午|上午|晚上|早上|中午|周[一二三四五六日末]|这周[一二三四五六日末]?|"
    r"星期[一二三四五六日天]|下周[一二三四五六日末]?|下个?星期[一二三四五六日天]?|下个?月|月底|年底|明年|"
    r"[一二两三四五六七八九十\d]+(?:点|号|日|月)(?:半|一刻|[一二三四五六七八九十\d]+分?)?)"
)
_PLANNED = re.compile(
    r"^(?:" + _TIME + r"[，,]?)*(?:我|我们|咱们)(?:" + _TIME + r")*(?:就|也|还|已经)?"
    r"(?:要|来|去|会|准备|打算|负责|开始|转)"
)
"""下周我要去上海出差; 周五我来订餐厅: a plan of ours with a when (checked apart)."""
_HAS_TIME = re.compile(_TIME)
_VAGUE_TIME = re.compile(r"改天|有空|有机会|下次|回头|以后|哪天|找时间|抽空|早晚|总有一天|将来")
_COMMITTED = re.compile(
    r"(?:我|我们|咱们)(?:已经|刚|刚刚|终于|也|今天|昨天)?(?:报名|报了名|报了|订了|订好|买好|约好|"
    r"预订了|预约了|预定了|领养了|签了|注册了|租了|辞职了|入职了|办好)|^我报"
)
"""Done by us: 报名了, 订好了机票, 签了合同."""
_BOOKED_FOR_YOU = re.compile(
    r"(?:已(?:经)?|已为|已帮|已给)(?:为|帮|给)?(?:您|你)?(?:预订|预定|订好|订了|预约|安排好|办理|下单|"
    r"购买|买好|登记|确认)|(?:为|帮|给)(?:您|你)(?:预订|预定|订|预约)(?:好|了)"
)
"""The assistant saying it was done: 已为您预订…, 已帮您订好…"""
_NOT_BUT = re.compile(
    r"不(?:按|放在|放|把|用|走|做|写|采用|选|要|以)[^，。；]{1,30}[，,；]?\s*而是|^不把.{1,40}"
    r"(?:描述|称|叫|写|当|看|定义)(?:为|成|作)"
)
"""这篇博客不按版本分段写，而是融合成…; 不把该能力描述为长期记忆: a choice stated as not-X-but-Y."""
_DEFERRED = re.compile(
    r"[，,；]\s*(?:以后|之后|下(?:一|个)?版(?:本)?|后面|下次|将来|回头)再(?:说|议|考虑|做|看|讨论|研究)[。！!]*$"
)
_THIS_TIME_NOT = re.compile(r"(?:这|本|这一)(?:版|次|期|轮|个版本)(?:先|暂时|暂)?不")
"""这版不做X，下个版本再考虑: the deferral is about later, the decision about now."""
_REPORTED = re.compile(r"听说|据说|听人说|传言")
_SUGGESTED = re.compile(
    r"(?:^|[，,])(?:那|那么)?(?:你|您)(?:们)?(?:就|可以|还是|不妨|也可以)?"
    r"(?:去|选|住|吃|试试|考虑|尝尝|逛)|(?<!不)(?:建议|推荐)(?:您|你)"
)
"""那您就去颐和园吧: the assistant suggesting what the user might do, not a decision."""
_THIRD_PERSON = word_set("他 她 他们 她们 人家 别人 对方")
_SAID_SETTLED = word_set("好 定 了 过")
"""说好, 说定, 说了: the saying settles something (说好了), it reports nothing."""
_NEGATORS = word_set("不 不再 别 不要 不用")
_COMMITMENT = re.compile(
    r"^(?:我|我们)(?:今天|明天|后天|今晚|明晚|下午|上午|晚上|早上|中午|周[一二三四五六日末]|"
    r"星期[一二三四五六日天]|下周[一二三四五六日]?|下个?月|月底|[一二三四五六七八九十\d]+点)+"
    r".{0,4}?(?:会|来|去|把|给|帮|负责|发|交|带|送|订|买|做|写|改|安排|准备|联系|打电话)|"
    r"^(?:我|我们)来(?:负责|安排|订|买|做|写|处理|准备|联系|搞定)"
)
_IMPERATIVE_BEFORE = word_set("请 千万 以后 大家 你 你们 咱们 我们 记得 都 就 也 再 一定 永远 绝对")
_IMPERATIVE_EMOTIVE = word_set(
    """
    担心 着急 急 客气 怕 害怕 难过 伤心 生气 哭 多想 想太多 想 放弃 紧张 在意 介意 灰心 自责 忘
    忘了 忘记 太 这样 这么 那么 累 熬夜 乱想 理 理他 管 走 逗 闹 骗 吓 说 提 傻 怪 难受 谢 麻烦
    打扰 见外 激动 泄气 慌 熬 累着 饿着 冻着
    """
)
_PRAISE = word_set("棒 厉害 漂亮 开心 快乐 幸福 赢 牛 帅 美")
"""必须 + praise is emphasis ("必须好吃！"), not an obligation."""
_BIE_WORDS = word_set("别人 别的 别处 别墅 别说 别提 别名 别称")
_CANNOT_SUBJECT_NOT = word_set("我 真 实在 简直")


@dataclass(frozen=True, slots=True)
class _Sentence:
    """A sentence with jieba's words, so a pattern only counts where a word starts."""

    text: str
    tokens: list[str]
    starts: frozenset[int]

    @classmethod
    def of(cls, text: str) -> _Sentence:
        spans = segment(text)
        return cls(text, [w for w, _ in spans], frozenset(o for _, o in spans))

    def search(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """The first match that starts a word: 定为 in 定为首选, not in 一定为."""
        return next((m for m in pattern.finditer(self.text) if m.start() in self.starts), None)


def _reported(tokens: list[str]) -> bool:
    """听说…, 小林说他们…: what someone else decided is news, not our decision."""
    if any(_REPORTED.fullmatch(t) for t in tokens):
        return True
    for i, token in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        speaker = tokens[i - 1] if i > 0 else ""
        if (
            token == "说"
            and speaker
            and after not in _SAID_SETTLED
            and speaker not in _DECIDERS
            and speaker not in ("就", "那", "我来")
        ):
            return True  # 小林说…
        if (
            token.endswith("说")
            and len(token) > 1
            and token not in ("说定了", "说好", "就是说")
            and token[:-1] not in _DECIDERS
            and after not in _SAID_SETTLED
        ):
            return True  # 我妈说… (one word)
    return False


def _disqualified(text: str, tokens: list[str]) -> bool:
    """A question, hedge, undecided matter, sympathy or a cheer, whatever else it says."""
    if _QUESTION.search(_NO_MATTER_WHAT.sub("", text)) or _UNDECIDED.search(text):
        return True
    if _reported(tokens) or _WISH.search(text) or _SUGGESTED.search(text):
        return True
    if _EPISTEMIC.search(text) or any(t in _PLEASANTRY_WORDS for t in tokens):
        return True
    settled = [
        i + 1 < len(tokens) and tokens[i + 1] in ("好", "后", "过", "决定", "完", "一致")
        for i in range(len(tokens))
    ]
    negated = [i > 0 and tokens[i - 1] in _NEGATORS for i in range(len(tokens))]
    hedges = zip(tokens, settled, negated, strict=True)
    if any(t in _HEDGE_WORDS and not done and not neg for t, done, neg in hedges):
        return True  # 商量 is a hedge, 商量好了 is not; nor is 不再推荐
    return bool(_EXCLAIMED.search(text) and _EMOTIVE.search(text))


def _imperative(tokens: list[str]) -> bool:
    """不要/别/不能 + an action ("不要把密码写进仓库", "别用 MySQL"), not 别担心 or 不要太累."""
    for i, word in enumerate(tokens):
        opens = i == 0 or tokens[i - 1] in _IMPERATIVE_BEFORE
        token = word.removeprefix("千万") or word
        if token == "不要" and opens:
            verb = tokens[i + 1] if i + 1 < len(tokens) else ""
        elif token.startswith("别") and token not in _BIE_WORDS and opens:
            verb = token[1:] or (tokens[i + 1] if i + 1 < len(tokens) else "")
        elif token == "不能" and (i == 0 or tokens[i - 1] not in _CANNOT_SUBJECT_NOT):
            verb = tokens[i + 1] if i + 1 < len(tokens) else ""
        else:
            continue
        if verb and verb not in _IMPERATIVE_EMOTIVE and not verb.startswith("太"):
            return True
    return False


def _required(tokens: list[str]) -> bool:
    """必须 / 一定要 as an obligation (sympathy and 必须的 are already ruled out)."""
    for i, token in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if token in ("必须", "务必") and not (after.startswith("好") or after in _PRAISE):
            return True
        if token == "一定" and i + 1 < len(tokens) and tokens[i + 1] == "要":
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
    return j < len(tokens) and tokens[j] in ("的", "这种", "这类", "这样的", "之类")


def _theirs(tokens: list[str], i: int) -> bool:
    """她们定了: the nearest subject before the word is someone else."""
    for j in range(i - 1, max(i - 4, -1), -1):
        if tokens[j] in _THIRD_PERSON:
            return True
        if tokens[j] in _DECIDERS:
            return False
    return False


def _confirmed(tokens: list[str], i: int) -> bool:
    """确认 as ours: 我们确认, 用户确认, 已经确认了, 确认过了 — not 帮我确认一下 or 请您确认."""
    before = tokens[max(0, i - 3) : i]
    if any(t in ("请", "你", "您", "帮", "帮我", "麻烦", "再", "需要", "要") for t in before):
        return False
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    if after == "一下":
        return False
    j = i - 1
    while j >= 0 and tokens[j] in _ADVERBS:
        j -= 1
    ours = j >= 0 and tokens[j] in _DECIDERS
    return ours or after in ("了", "过", "：", ":") or (i > 0 and tokens[i - 1] in ("已", "已经"))


def _settled(tokens: list[str]) -> bool:
    """决定 (the verb, by us), 定了/定在, 选定, 说好了, 大家都同意, 我们确认 …"""
    for i, token in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if _attributive(tokens, i) or _theirs(tokens, i):
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
    """Something to be about: two content words, a name or number counting as one more."""
    return len(content_words(text)) + anchors(text) >= 2


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

_SET_AT = re.compile(r"(?<![一肯决稳确固规限])(?:定|安排|约)在(?!一起)[^，。！？,]{2,}")
"""定在/安排在/约在 + what: 周会定在周二上午十点 (not 他一定在家, 固定在墙上)."""
_TIME_LED = re.compile(
    r"^(?:(?:每|这|本|下个?)?" + _TIME + r"[，,]?)+(?:在[^，。！？,]{1,10})?"
    r"(?:开|交|办|去|见|出发|集合|上线|发布|吃饭|碰头|聚餐|坐|飞|见面|举行|举办|开始|提交|截止)"
)
"""周一上午九点开周会, 下周三交设计稿: a when, then what is done (a subject is not needed)."""
_RIDE_AT = re.compile(
    r"(?:坐|乘|搭|订了|订好了|订的)(?:" + _TIME + r")+的(?:高铁|火车|动车|飞机|航班|大巴|车)"
)
"""回程坐周日晚上六点的高铁, 机票订了周四早上七点的航班: the ride chosen by its time."""
_BOOKED_IS = re.compile(r"(?:订|预订|预定|约|定)的是[^，。！？,]{2,}")
"""餐厅订的是靠窗的8号桌: what was booked, said as a fact."""
_ONLY_SCOPE = re.compile(
    r"(?:先|暂时|暂|今年|这次|目前|这版|这一版|本版|这个版本|这期|本期|第一版|一期)(?:先)?"
    r"只(?:做|上|支持|开放|发|接)"
)
"""移动端先只做安卓版: a scope, in the words _NEGATED already uses for 这版不做."""
_HELD_AT = re.compile(r"在[^，。！？,]{2,12}(?:办|举行|举办)[。！!]?$")
"""年会在万豪酒店办, 婚礼在杭州举行."""
_PAST = re.compile(r"了[。！!～~]*$|过[。！!]*$")


def _arranged(text: str) -> float:
    """An arrangement: 定在/安排在 + what, a when-led plan, a ride by its time, a scope, or
    where an event is held; not what already happened (…了)."""
    if _PAST.search(text) or _VAGUE_TIME.search(text):
        return 0.0
    if _SET_AT.search(text) or _ONLY_SCOPE.search(text) or _RIDE_AT.search(text):
        return RULE
    if _BOOKED_IS.search(text):
        return RULE
    if _TIME_LED.search(text) or _HELD_AT.search(text):
        return COMMITMENT
    return 0.0


def _frames(text: str) -> float:
    if _THIS_TIME_NOT.search(text):
        text = _DEFERRED.sub("。", text)
    s = _Sentence.of(text)
    if _disqualified(text, s.tokens) or not _enough(text):
        return 0.0
    if _settled(s.tokens) or s.search(_FINALLY) or _BOOKED_FOR_YOU.search(text):
        return EXPLICIT
    if _COMMITTED.search(text) or _NOT_BUT.search(text):
        return RULE
    if _planned(text, s.tokens):
        return COMMITMENT
    if (m := s.search(_PLAN)) and content_words(m.group("rest")):
        return RULE
    if s.search(_CHOICE) or s.search(_RULE) or s.search(_NEGATED):
        return RULE
    if _imperative(s.tokens) or _required(s.tokens):
        return RULE
    if (m := s.search(_NOT_ANYMORE)) and m.group("verb") not in _NOT_ANYMORE_IDIOMS:
        return RULE
    if _COMMITMENT.search(text):
        return COMMITMENT
    return _arranged(text)


_BARE = (
    r"(?:好的|好|OK|ok)?[，,]?\s*(?:已(?:经)?(?:为您|帮您|给您|为你|帮你)?(?:预订|预定|订好|确认|安排|"
    r"办理|下单)(?:好|成功)?了?|(?:预订|预定|下单|订票|预约)(?:已)?成功了?|订好了|搞定了?|说定了|"
    r"定了|确认了|拍板了|就这么定了)"
)
_BARE_CONFIRMATION = re.compile(r"^" + _BARE + r"[。！!～~]*$")
_BARE_LEAD = re.compile(r"^" + _BARE + r"[。！!，,]\s*(?P<rest>.+)")
"""预订成功。订单号是 A1289: a bare confirmation with its object after it."""


def is_bare_confirmation(sentence: str) -> bool:
    """ "预订成功。", "说定了！": a confirmation whose object is the next sentence."""
    return bool(_BARE_CONFIRMATION.match(sentence.strip()))


def decision_strength(sentence: str) -> float:
    """How decision-like one Chinese sentence is: 0 for none, up to ``EXPLICIT``."""
    text = _LEAD.sub("", sentence.strip())
    if smalltalk.chinese(text):
        return 0.0
    if lead := _AS_AGREED.match(text):
        rest = text[lead.end() :]
        if not _disqualified(rest, _Sentence.of(rest).tokens) and _enough(rest):
            return max(CONFIRMED, _frames(rest))
    if label := _CONFIRM_LABEL.match(text) or _BARE_LEAD.match(text):
        rest = _LEAD.sub("", label.group("rest") or label.group("after_comma"))
        if not _disqualified(rest, _Sentence.of(rest).tokens) and _enough(rest):
            return max(CONFIRMED, _frames(rest))
    return _frames(_LEAD.sub("", text))
