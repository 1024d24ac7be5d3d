"""Words that say a decision changed, and the kinds of value a decision holds (contract §5).

Data only, for ``supersession``: phrase lists, English and Chinese, one concept a
constant. In a phrase, ``…`` is a gap of a few words ("not … after all", "还是…吧")
and a leading ``^`` means the start of the sentence; English phrases match whole words
of the lower-cased sentence with contractions spelled out ("won't" → "will not").
"""

from __future__ import annotations

from memory.text import word_set

EN_CORRECTION = (
    "scratch that",
    "no wait",
    "wait no",
    "^updated",
    "^changed",
    "^moved",
    "^rescheduled",
    "i meant",
    "i mean",
    "meant to say",
    "make it",
    "make that",
    "change it to",
    "change that to",
    "changed it to",
    "changed to",
    "change … to",
    "changed … to",
    "switch to",
    "switch … to",
    "switched to",
    "switched … to",
    "switching to",
    "move … to",
    "moved … to",
    "moves to",
    "moving … to",
    "moved to",
    "push … to",
    "pushed … to",
    "bump … to",
    "bumped … to",
    "update … to",
    "updated to",
    "rescheduled … to",
    "rescheduled … for",
    "postponed … to",
    "brought forward to",
    "raised … to",
    "lowered … to",
    "cut … to",
    "change of plan",
    "change of plans",
    "on second thought",
    "correction",
)
"""A later decision correcting an earlier one: a new value, another choice."""

EN_CORRECTION_WEAK = (
    "actually",
    "^wait",
    "instead",
    "rather than",
    "^no,",
    "^oops",
    "is now",
    "are now",
    "now at",
    "now for",
)
"""Words that also just carry on a conversation ("Actually, I need a taxi too"): they
correct only in a sentence that states a decision itself."""

EN_REVERSAL = (
    "not … after all",
    "no longer",
    "not … anymore",
    "not … any more",
    "cancel",
    "cancels",
    "cancelled",
    "canceled",
    "cancelling",
    "canceling",
    "call off",
    "called off",
    "calling off",
    "is off",
    "are off",
    "scrapped",
    "scrap the",
    "ditched",
    "not doing",
)
"""An earlier decision dropped."""

EN_REVERSAL_WEAK = ("not going to", "never mind", "forget about")
"""Reversal words that also say other things: only in a sentence that states a decision."""

EN_FAILURE = (
    "not available",
    "not … available",
    "no … available",
    "no … availability",
    "not … availability",
    "no open reservations",
    "not successful",
    "could not make … booking",
    "could not make … reservation",
    "unable to make … booking",
    "unable to make … reservation",
    "can not reserve",
    "cannot reserve",
    "unavailable",
    "fully booked",
    "booked up",
    "no availability",
    "no vacancy",
    "no vacancies",
    "sold out",
    "not able to book",
    "unable to book",
    "could not book",
    "can not book",
    "cannot book",
    "not able to accommodate",
    "unable to accommodate",
    "could not accommodate",
    "can not accommodate",
    "cannot accommodate",
    "not able to reserve",
    "unable to reserve",
    "could not reserve",
    "booking was unsuccessful",
    "booking failed",
    "unsuccessful",
    "none have availability",
    "none … available",
    "does not have a table",
    "do not have a table",
    "do not have any tables",
    "having difficulty",
    "unable to complete",
    "could not complete",
    "booked at that time",
    "booked for that",
    "not an opening",
    "no opening",
    "no openings",
)
"""A booking that could not be made: the request it answers does not hold."""
EN_BOOKED_PLACES = word_set("table room")
EN_BOOKED_KINDS = word_set("taxi cab train flight bus car ferry ticket tour") | EN_BOOKED_PLACES
"""What is booked: a failure naming one the request does not is about something else ("no
taxi" does not answer "book a room", "no tables" not "book a train"); a table or a room
may answer a request that names neither ("book it for 8 people at 13:30")."""

EN_ADDITIVE = (
    "also",
    "as well",
    "another",
    "in addition",
    "additionally",
    "separately",
    "return",
    "the way back",
    "back from",
    "flight back",
    "train back",
    "bus back",
    "ride back",
)
"""A sentence that adds a decision beside the earlier one, not in its place."""

EN_TENTATIVE = (
    "maybe",
    "might",
    "perhaps",
    "probably",
    "i think",
    "i guess",
    "not sure",
    "how about",
    "what about",
    "what if",
    "could we",
    "can we",
    "should we",
    "shall we",
    "would you",
    "could you",
    "can you",
    "do you",
    "if",
    "unless",
    "whether",
    "considering",
    "thinking about",
    "thinking of",
    "wondering",
    "would like to know",
)
"""A question or a hedge: it proposes or asks, it changes nothing yet."""

EN_BOOKING_REQUEST = word_set("book reserve reservation table room seat seats ticket tickets")
"""A booking request's words ("booked", "reserved", "confirmed" say it is done)."""
EN_BOOKING_DONE = word_set("booked reserved confirmed")
EN_BOOKING_DONE_PHRASES = (
    "able to book",
    "have a reservation for you",
    "booking was successful",
    "reservation was successful",
    "was successful",
)
"""A booking made, said with a request's words ("I was able to book a table for 8")."""
EN_BOOKING_NOUNS = word_set("reservation reservations booking bookings")
"""Words for any booking: a booking made may name one where its request named a table."""

EN_FRAME = word_set(
    """
    decided decide decision agreed agree settled settle chose chosen choose picked pick
    selected select opted go going went gone use using used uses book booked booking
    reserve reserved make made set plan planned plans planning move moved moves moving
    change changed changing switch switched switching instead actually scratch meant mean
    wait cancel cancelled canceled cancelling canceling call called off longer anymore
    after doing take taking taken need needs want wanted please done update updated
    confirmed confirm noted keep keeping stick sticking try trying push pushed bump bumped
    reschedule rescheduled postpone postponed works work rather oops sorry correction
    able unable available unavailable booked full fully instead sure would like will
    shall ordering order ordered raised raise lowered cut capped now reference ref number
    confirmation code leave leaving arrive arriving depart departing starting start
    beginning staying travel traveling travelling
    """
)
"""Words of the decision frame, not of what is decided: never the subject."""

NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
EN_PEOPLE_UNITS = ("people", "persons", "person", "guests", "adults", "of us", "pax", "ppl")
EN_PEOPLE_AFTER = (
    "table",
    "reservation",
    "booking",
    "room",
    "seat",
    "seats",
    "it",
    "that",
    "us",
    "me",
)
"""What "for 6" right after these counts: people ("a table for 6", "book it for 6")."""
EN_DURATION_UNITS = {
    "night": "night",
    "nights": "night",
    "day": "day",
    "days": "day",
    "week": "week",
    "weeks": "week",
    "hour": "hour",
    "hours": "hour",
    "month": "month",
    "months": "month",
}
EN_WEEKDAYS = {
    "monday": "mon",
    "tuesday": "tue",
    "wednesday": "wed",
    "thursday": "thu",
    "friday": "fri",
    "saturday": "sat",
    "sunday": "sun",
    "thurs": "thu",
    "tues": "tue",
    "weds": "wed",
}
EN_MONTHS = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
EN_RELATIVE_DAYS = ("today", "tonight", "tomorrow", "this weekend", "next weekend", "weekend")
EN_TRAVEL_MODES = {
    "fly": "air",
    "flying": "air",
    "flew": "air",
    "by plane": "air",
    "by air": "air",
    "drive": "car",
    "driving": "car",
    "drove": "car",
    "by car": "car",
    "take the train": "train",
    "taking the train": "train",
    "by train": "train",
    "take the bus": "bus",
    "taking the bus": "bus",
    "by bus": "bus",
    "by coach": "bus",
    "take the ferry": "boat",
    "taking the ferry": "boat",
    "by boat": "boat",
    "by ferry": "boat",
    "cycle": "bike",
    "cycling": "bike",
    "by bike": "bike",
    "walk": "foot",
    "walking": "foot",
    "on foot": "foot",
}
"""How one travels, said as a verb or "by …": the kind of value "fly" and "drive" share
(not the nouns "train", "taxi": a booked train is a thing, not a way of going)."""
EN_CHANGE_LABELS = ("^change of plan", "^change of plans", "^plan change", "^new plan", "^update:")
"""A sentence opened as a change of plan states the decision as it now holds."""
EN_COLOURS = word_set(
    "red blue green yellow black white grey gray pink purple orange brown beige navy silver "
    "gold teal"
)

ZH_CORRECTION = (
    "不对",
    "改成",
    "换成",
    "改为",
    "换为",
    "改到",
    "换到",
    "改在",
    "改用",
    "换用",
    "调整为",
    "调整到",
    "推迟到",
    "延到",
    "延期到",
    "提前到",
    "挪到",
    "推到",
    "迁到",
    "说错了",
    "更正",
    "纠正",
)
"""A later decision correcting an earlier one."""

ZH_CORRECTION_WEAK = ("还是…吧", "应该是", "变成", "现在是")
"""Correction words that also carry on a conversation: only in a sentence that states a
decision."""

ZH_REVERSAL = ("取消", "不再", "作废", "放弃", "黄了", "谈崩")
"""An earlier decision dropped."""

ZH_REVERSAL_WEAK: tuple[str, ...] = ()
"""Reversal words that also say other things. Not 算了: "算了，帮我把地址发过来吧" drops a
question, not a decision. 不X了 ("柯基不养了") is weak too, unless X is one of
``ZH_NOT_ANYMORE_IDIOMS``."""
ZH_NOT_ANYMORE_IDIOMS = word_set("错 行 好 早 少 多 对 够 久 远 是 了 见 起 动 住 及 太 得 巧 到")
"""不X了 where X starts with one of these is not "no longer X" (不错了, 不早了, 不行了 …)."""
ZH_DECLINES = word_set("用 必")
"""不用了 ("no need"), 不必了: declining an offer, not dropping a decision (不用订了 is one)."""

ZH_FAILURE = (
    "订不了",
    "订不到",
    "订满",
    "约满",
    "已满",
    "满了",
    "没有空位",
    "没空位",
    "没有位置",
    "没位置",
    "没有房",
    "没房",
    "无法预订",
    "无法预定",
    "预订失败",
    "预定失败",
)
"""A booking that could not be made."""

ZH_ADDITIVE = ("另外", "此外", "还要", "也要", "同时", "回程", "返程", "再订", "再加", "另一")
"""A sentence that adds a decision beside the earlier one."""

ZH_TENTATIVE = (
    "吗",
    "要不",
    "可能",
    "也许",
    "或许",
    "大概",
    "是不是",
    "要不要",
    "好不好",
    "行不行",
    "能不能",
    "可不可以",
    "考虑",
    "如果",
    "要是",
    "的话",
    "怎么样",
    "建议",
    "多少",
    "什么",
    "哪",
    "几",
    "万一",
)
"""A question or a hedge."""

ZH_BOOKING_REQUEST = ("订", "预订", "预定", "预约")

ZH_FRAME = word_set(
    """
    决定 确定 确认 定了 定在 定为 选定 敲定 改成 换成 改为 换为 改到 换到 改在 改用 换用 调整 调整为
    推迟 提前 延期 延到 挪到 推到 迁到 取消 不再 负责 安排 安排在 预订 预定 使用 采用 选择 就定
    不对 还是 算了 现在 以后 统一 全部 已经 一下 控制 以内 之内 左右 打算 准备 决定用 改变 变了
    """
)
"""Words of the decision frame, not of what is decided."""

ZH_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
ZH_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10_000}
ZH_PEOPLE_UNITS = ("个人", "人", "位")
ZH_DURATION_UNITS = {
    "晚": "night",
    "夜": "night",
    "天": "day",
    "周": "week",
    "个星期": "week",
    "个月": "month",
    "小时": "hour",
    "个小时": "hour",
}
ZH_PERIODS = {
    "凌晨": 0,
    "早上": 0,
    "早晨": 0,
    "上午": 0,
    "中午": 12,
    "下午": 12,
    "傍晚": 12,
    "晚上": 12,
    "今晚": 12,
    "明晚": 12,
}
"""Hours added after the period: 下午两点 is 14:00 (a noon hour of 12 stays 12)."""
ZH_WEEKDAYS = {"一": "mon", "二": "tue", "三": "wed", "四": "thu", "五": "fri", "六": "sat"}
ZH_WEEKDAY_SUNDAY = ("日", "天")
ZH_RELATIVE_DAYS = (
    "今天",
    "明天",
    "后天",
    "今晚",
    "明晚",
    "周末",
    "月底",
    "年底",
    "下周",
    "下个月",
)
ZH_TRAVEL_MODES = {
    "坐飞机": "air",
    "飞过去": "air",
    "坐高铁": "train",
    "坐火车": "train",
    "坐动车": "train",
    "坐大巴": "bus",
    "坐汽车": "bus",
    "开车": "car",
    "自驾": "car",
    "打车": "taxi",
    "坐地铁": "metro",
    "骑车": "bike",
    "走路": "foot",
    "步行": "foot",
}
"""How one travels (坐高铁, 开车): the kind of value 坐飞机 and 开车 share."""
ZH_CHANGE_LABELS = ("^计划有变", "^计划变了", "^临时改", "^更正")
"""A sentence opened as a change of plan."""
ZH_COLOURS = (
    "红色",
    "蓝色",
    "绿色",
    "黄色",
    "黑色",
    "白色",
    "灰色",
    "粉色",
    "紫色",
    "橙色",
    "棕色",
    "米色",
    "金色",
    "银色",
)
