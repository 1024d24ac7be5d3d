"""Small talk that reads like a decision: what friends say to each other is never a pin.

A pin is a decision, rule, booking or commitment with a concrete object (contract §5). People
chatting say many sentences with a decision's shape and nothing to hold to: a promise
with no object ("I won't quit on my dreams", "we'll keep pushing each other"), advice to
the other ("you need to practice first", "don't forget to take breaks"), a compliment
("your fur babies must be thrilled with the bigger backyard"), a platitude, a vow said
in a quarrel ("这次绝对不会给你放鸽子"). The decision rules (``decisions_en``,
``decisions_zh``) ask this module first; it answers *small talk* when a sentence is one of:

- **advice** to the listener — "you" (你/您) with need to / have to / should / 得 / 应该 /
  可不能 … — unless it names a number, date or time (a bank's "you have to keep $20 in
  the account" is a rule of the deal);
- **self-care and encouragement** said as an imperative: "don't forget to take breaks",
  "never stop believing in yourself", "别太累了";
- **a guess with must** ("must be thrilled", "must bring so much joy") and an assessment
  with 绝对/肯定 + 不是/不会 ("演技绝对不是吹出来的");
- **a promise, plan or let's with no concrete object**: once the frame's words, vague
  verbs (keep, push, make, get, go …), abstract nouns (dreams, goals, path, each other …)
  and feeling words are set aside, nothing is left — no thing, place, person, number or
  day — or what is left only says when, vaguely ("next month", "有时间");
- **a generic statement** — a rule of life rather than of this conversation ("when we
  have to…", "走一步看一步").

The word lists are data: the constants below, named once. Tuned on the tuning sets
(``tests/memory/data/decisions/tune_*.jsonl``) and the tuning part of the public casual
chats (``bench/chitchat.py``); measured on held-out ones (``bench/smalltalk.py``).
"""

from __future__ import annotations

import re

from memory.compaction.analysis.words import anchors, content_words
from memory.text import word_set

# --- English -------------------------------------------------------------------------

EN_ABSTRACT = word_set(
    """
    dream dreams goal goals path paths journey journeys passion passions heart hearts future
    life lives happiness joy growth success best utmost potential other another ourselves
    myself yourself yourselves themselves himself herself together memories memory moment
    moments thing things stuff way ways world difference progress motivation inspiration
    support strength hope hopes faith courage effort efforts cause challenge challenges
    chance chances opportunity opportunities adventure adventures blast track vibes
    energy spirit spirits mind minds soul souls matter matters whatever however someday
    somehow anyone anybody everyone everybody nobody people others little bigger big
    small great greater good better best lot bit much more less while ones
    forward ahead along around away back again together posted updated touch
    everything anything something nothing lesson lessons skill skills experience
    field level levels limit limits comfort zone voice voices goal-setting friendship
    friendships bond bonds connection connections advice word words tip tips suggestion promise
    suggestions confident confidence top heights
    """
)
"""Nouns and particles that name no concrete thing: what encouragement is made of."""
EN_VAGUE_VERBS = word_set(
    """
    give giving gave quit quitting stop stopping keep keeping kept push pushing pushed going
    go went work working worked try trying tried grow growing grew inspire inspiring
    motivate motivating motivated motivates believe believing believed fight fighting chase
    chasing follow following pursue pursuing reach reaching achieve achieving make making
    do doing get getting find finding rock rocking crush crushing nail nailing let stay
    staying be being take taking show showing help helping teach teaching learn learning
    improve improving appreciate appreciating celebrate celebrating cherish cherishing plan
    planning think thinking figure figuring catch catching hang hanging chat chatting talk
    talking see seeing check checking start starting begin beginning continue continuing
    focus focusing move moving encourage encouraging cheer cheering stick sticking hold
    holding build building change changing spread spreading lift lifting pick picking
    remember remembering forget forgetting keep happen happening ready set gonna
    put putting bring bringing come coming face facing deal dealing handle handling
    stand standing rise rising shine shining thrive thriving conquer conquering win
    winning succeed succeeding manage managing survive surviving overcome overcoming
    grind grinding hustle hustling tackle tackling embrace embracing hit smash smashing
    gain gaining perfect perfecting successful stronger healthier happier become becoming
    """
)
"""Verbs that carry a cheer or a plan's shape but no object of their own."""
EN_VAGUE_TIME = word_set(
    """
    next this last month week year weeks months years time times soon later someday sometime
    day days future tomorrow's today's while moment now then
    """
)
"""Times too vague to pin a plan to; a named day, date or hour is an anchor instead."""
EN_NUMBER_WORDS = word_set(
    """
    one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty
    forty fifty hundred thousand million half dozen dollars dollar pounds pound euros euro
    """
)
_VOCATIVE = re.compile(r"(?:^|,\s*|\s-\s|^\w+\s+)[A-Z][a-z]+(?=\s*[,!.?]|$)")
"""A name the speaker addresses ("Yeah, Jon, …"): it is not the promise's object."""
_RELATIVE_ANCHOR = re.compile(
    r"\b(?:next|this|last)\s+(?:week|month|year|time|spring|summer|fall|autumn|winter)\b|"
    r"\b(?:end|start|beginning|middle) of (?:the|this|next) (?:week|month|year)\b",
    re.IGNORECASE,
)

_EN_ADVICE = re.compile(
    r"\byou\s+(?:(?:also|really|just|still|definitely|only|always|all|both|totally|"
    r"seriously|absolutely|probably)\s+)*(?:need to|have to|have got to|got to|gotta|should|"
    r"ought to|shall not|do not have to|do not need to|need not|had better|better|"
    r"will have to|will need to|are going to have to|(?:cannot|can not) (?:really|just|always|"
    r"even|expect))\b"
    r"(?P<rest>.*)"
)
"""Advice to the listener; a rule given to the assistant says "must not" / "never"."""
_EN_FOR_THE_ASSISTANT = re.compile(
    r"\b(?:from now on|going forward|from today|starting (?:today|tomorrow|now)|no longer|"
    r"any ?more|answer|answers|reply|replies|"
    r"respond|write|use|call me|remind me|address me|format|include|mention|suggest|recommend|"
    r"summari[sz]e|translate|cite|cc|email|ask me|check with me|confirm with me)\b"
)
"""A rule the user gives the assistant ("you have to answer in English from now on"): said
with "you have to" like advice, but about how to answer, or for good."""
_EN_MONEY_OR_TIME = re.compile(
    r"[$€£¥%]|\d+(?::\d\d|\s?(?:am|pm|a\.m\.|p\.m\.|st|nd|rd|th)\b)|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tonight|"
    r"tomorrow|january|february|march|april|june|july|august|september|october|november|"
    r"december|dollars?|pounds?|euros?|yuan|minimum|maximum)\b"
)
_EN_FIGURE = re.compile(r"\d|[$€£¥]")
_EN_IMPERATIVE = re.compile(
    r"^(?:please\s+|just\s+|and\s+|so\s+)?(?:do not|never|always|remember to|make sure|"
    r"be sure to|do not forget to|try to|stop|keep)\b(?P<rest>.*)"
)
_EN_SELF_CARE = re.compile(
    r"\b(?:yourself|yourselves|your own|your (?:heart|dreams?|gut|instincts?|passion|"
    r"feelings|best|worth|health|mind|voice|weight|horn|potential|goals?|limits?)|"
    r"comfort zone|take (?:a |some )?breaks?|take care|take it easy|get (?:some |enough )?"
    r"(?:rest|sleep)|rest|sleep|relax|breathe|smile|have fun|enjoy|be kind|be proud|"
    r"be so hard|be too hard|drink (?:some )?water|stay (?:hydrated|positive|strong|safe|"
    r"motivated|focused|healthy)|eat (?:well|properly)|destress|unwind|dance it out|"
    r"believe|give up|let (?:anyone|anybody|anything|them|it|that|this|fear|doubt|others)\b)"
)
_EN_MUST_GUESS = re.compile(
    r"\bmust\s+(?:(?:still|really|surely|definitely|also|all|so)\s+)*(?:have\s+)?"
    r"(?:(?:be|been)\s+(?:(?:so|such|really|very|pretty|quite|totally|absolutely)\s+)*"
    r"(?P<state>\w+)|bring|feel|felt|look|looked|sound|taste|tasted|seem|mean|love|loved|"
    r"make you|made you|keep you)\b"
)
EN_MUST_FEELING = word_set(
    """
    thrilled excited tired exhausted pleased stoked relieved amazed delighted overwhelmed
    bored worried scared proud blessed spoiled stressed surprised impressed obsessed hooked
    """
)
"""Participles a guess with must is made of ("must be thrilled"); another participle is an
obligation ("passwords must be rotated every 90 days")."""
"""A guess ("must be thrilled"), not an obligation: "we must be at the gate by 6" has an anchor."""
_EN_GENERIC = re.compile(
    r"\b(?:when|whenever|if|once)\s+(?:we|you|they|people|one|someone)\s+(?:\w+\s+)?"
    r"(?:have to|need to|must|cannot|can not|do not|are not able)\b|"
    r"\b(?:however|whatever|whenever|everything|all) (?:we|you|i) can\b|\bthe need to\b|"
    r"\b(?:we|you|people) (?:do not|never) (?:realize|know|notice|understand|think)\b|"
    r"\bcan(?:not)? (?:even )?imagine\b|\bcan have a (?:big|huge|real|great) (?:effect|impact)\b|"
    r"^only (?:when|if|after|in this way|then|by|so)\b|^(?:i am sure|i bet|i am certain)\b|"
    r"\b(?:made|makes|make) (?:me|us) (?:think|realize|appreciate|reflect|wonder|remember)\b|"
    r"\b(?:teaches|taught|teach|teaching) (?:me|us)\b|\bgood reminder\b|"
    r"\bi have (?:pondered|reflected|realized|learned)\b|\bsome of the best\b|"
    r"^(?:we|i) (?:always|really|all|both) (?:look forward|love|enjoy|like|cherish)\b|"
    r"\b(?:reminding|reminds|reminded|makes|made|making) (?:me|us) (?:that |realize )?(?:we|i)\b|"
    r"^(?:starting|getting|having|being|doing|making|taking|seeing|running) (?:\w+ ){1,3}"
    r"(?:is|was|has been|feels|makes|made)\b|"
    r"\bno more (?:worry|worrying|stress|stressing|drama|tears|excuses|crying|fear)\b|"
    r"^(?:it is|that is|this is|what a|how)\s+(?:really |so |such |truly |very |pretty |just )*"
    r"(?:inspiring|amazing|awesome|great|cool|nice|wonderful|lovely|incredible|fantastic|"
    r"impressive|sweet|fun|exciting|tough|hard|sad|good|a shame|a pity|a relief|a joy|admirable|"
    r"a great|an amazing|an awesome|a wonderful)\b"
)
"""Not about this conversation: a rule of life ("when we have to…", "only when you…"), a
reflection ("it reminds me we need to…"), a feeling about something ("it's inspiring how…")."""
_EN_GIVE_UP = re.compile(
    r"\b(?:not|never)\s+(?:going to\s+|gonna\s+|ever\s+)?(?:give up|giving up|quit|quitting|"
    r"stop|stopping|back down|backing down|lose (?:focus|sight|hope|faith|heart))\b"
    r"(?:\s+(?:on|of)\s+(?:my|our|your|each other|me|us|you|it|this|that|them|him|her|what)\b"
    r"(?:\s+\w+)?)?\s*(?:$|[-,.;!:]|no matter|now\b|yet\b|that easily|anytime soon|without|"
    r"as long as|because|since|if|when|until|i promise)"
)
"""I won't quit - …; I'm not giving up on my dreams: perseverance with no object (not "I'm
quitting the gym at the end of May")."""
_EN_CHEER = re.compile(
    r"\b(?:chase|chasing|follow|following|pursue|pursuing|live|living|achieve|achieving|reach|"
    r"reaching|fulfil|fulfill|fulfilling) (?:my|our|your|their|his|her|the) (?:dreams?|goals?|"
    r"passions?|hearts?|potential)\b|\brock the\b|\bmake a difference\b|"
    r"\bmake (?:it|this|that|things) happen\b|\bdo (?:my|our|your) (?:best|utmost|part)\b|"
    r"\bstay on track\b|\bmake (?:\w+ ){1,3}?(?:unforgettable|special|memorable|amazing|"
    r"awesome|count|epic|magical|perfect|the best)\b|\b(?:pick|set|find|choose|figure out) "
    r"(?:a|the|the right|some) (?:date|time|day)\b|\bgive it a (?:try|shot|go)\b|"
    r"\bturn over a new leaf\b|\blet you know\b|\bcheck my schedule\b|"
    r"\bkeep (?:me|you|us) (?:posted|updated|in the loop)\b|\bstart (?:fresh|over)\b|"
    r"\bgo for it\b|\bone day at a time\b|\bmake the most of\b|"
    r"\b(?:stop|hold|keep) (?:me|us)(?: back)?\s*(?:$|[,.!;])|"
    r"\b(?:get|bring|drag) (?:me|us) down\b|"
    r"\bstop (?:chasing|believing|dreaming|trying|learning|growing|fighting|pushing|smiling)\b|"
    r"\b(?:sometime|one of these days|someday|at some point)\b|\bsome time\b(?! off| out)"
)
"""What a cheer or a vague plan is made of, whatever else the sentence names."""
_EN_FAKE_IMPERATIVE = re.compile(
    r"^(?:always|never)\s+(?:a|an|the|such|so|been|saw|knew|thought|felt|had|was|were|"
    r"did|went|heard|happy|glad|fun|great|nice|good|there|here|ready|easy|\w+ing|\w+ed)\b"
)
""""Always a joy to…", "Never saw this coming": no imperative, whatever the first word."""
_EN_PROMISE = re.compile(
    r"\b(?:i|we|you and i|both of us|all of us|together we|everyone)\s+(?:\w+\s+){0,2}?"
    r"(?:will|shall|going to|promise|never|always|keep|must|need to|have to)\b|\blet us\b|"
    r"\b(?:my|our) (?:plan|goal|aim|dream|hope|mission) is\b"
)
"""A promise, plan or let's: what needs a concrete object to be a decision."""
_EN_FRAME_WORDS = word_set(
    """
    will shall promise going gonna let us we i am are won't never always definitely also just
    all really totally surely still both together sure yeah yes ok okay so well then now
    starting today
    """
)


_EN_LIFE_EVENT = re.compile(
    r"\b(?:i|we)\s+(?:(?:have|had|just|recently|finally|also|already|officially)\s+)*"
    r"(?:adopted|joined|rented|leased|moved into|moved in)\b"
)
"""I adopted a pup; we rented a flat near the station: a life event told, summary material."""
_EN_FUTURE_DAY = re.compile(
    r"\b(?:tomorrow|tonight|next|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"starting|from (?:now|today|tomorrow|next))\b"
)


def _concrete_en(text: str) -> bool:
    """A thing, place, person, number or named day the sentence is about."""
    bare = _VOCATIVE.sub(" ", text)
    if anchors(_RELATIVE_ANCHOR.sub(" ", bare)):
        return True
    vague = EN_ABSTRACT | EN_VAGUE_VERBS | EN_VAGUE_TIME | _EN_FRAME_WORDS
    words = [w for w in content_words(bare.lower()) if w not in vague]
    return bool(words)


def english(s: str, raw: str) -> bool:
    """Whether an English sentence (``s`` normalised: lower case, contractions spelled
    out; ``raw`` as written) is small talk, whatever decision frame it has."""
    if _EN_FAKE_IMPERATIVE.match(s) or _EN_GENERIC.search(s):
        return True
    if (m := _EN_ADVICE.search(s)) and not (
        _EN_MONEY_OR_TIME.search(s) or _EN_FOR_THE_ASSISTANT.search(m.group("rest"))
    ):
        return True
    if (m := _EN_IMPERATIVE.match(s)) and _EN_SELF_CARE.search(m.group("rest")):
        return True
    if (m := _EN_MUST_GUESS.search(s)) and not anchors(raw):
        state = m.group("state") or ""
        if not (re.fullmatch(r"\w+(?:ed|en)", state) and state not in EN_MUST_FEELING):
            return True
    if _EN_GIVE_UP.search(s):
        return True
    if _EN_LIFE_EVENT.search(s) and not _EN_FUTURE_DAY.search(s):
        return True
    if _EN_CHEER.search(s) and not _EN_FIGURE.search(s):
        return True
    if _EN_PROMISE.search(s) or _EN_IMPERATIVE.match(s):
        return not _concrete_en(raw)
    return False


# --- Chinese -------------------------------------------------------------------------

_ZH_YOU = r"(?:你|您|你们)"
_ZH_ADVICE = re.compile(
    _ZH_YOU + r"[^，。！？,!?]{0,6}?(?:得|应该|应当|必须|一定要|可不能|总不能|不能老|不能总|可别|"
    r"千万别|就别|好好(?:干|学|过|表现|工作|想想|休息|照顾))|"
    + _ZH_YOU
    + r"(?:就是|真是|也太|简直|倒是|也不看看|也不想想|就不能|就不会|怎么就不能|怎么就不会)"
)
"""你得…, 你可不能…, 你就别…, 你就好好干吧: advice or reproach to the listener (a rule
for the assistant says 不要 / 别 / 不能 and stays one)."""
_ZH_FOR_THE_ASSISTANT = re.compile(
    r"以后|今后|往后|从现在|从今天|每次|回复|回答|叫我|称呼|提醒我|格式|翻译|总结|用中文|用英文"
)
"""你以后必须用中文回复我: a rule for the assistant, said like advice."""
_ZH_TIME = re.compile(
    r"[0-9０-９]|[一二三四五六七八九十两]+(?:点|号|日|月|元|块|万|千|百)|周[一二三四五六日末]|"
    r"星期[一二三四五六日天]|今天|明天|后天|今晚|明晚|上午|下午|晚上|早上|中午"
)
_ZH_SELF_CARE = re.compile(
    r"(?:别|不要|千万别|记得|一定要|要)(?:太|再)?(?:累|辛苦|熬夜|难过|伤心|生气|多想|想太多|灰心|"
    r"放弃|犟|逞强|勉强|委屈|叹气|哭|着急|急|怕|慌|担心|怀疑自己|否定自己|小看自己)|"
    r"(?:记得|一定要|要|得)(?:早点|好好)?(?:睡个好觉|早点睡|睡好|吃好|多喝水|放松)|(?:记得|要|一定要|好好)(?:休息|照顾|吃饭|睡觉|保重|注意身体|爱惜)|"
    r"相信(?:自己|你自己)|做(?:你)?自己"
)
_ZH_ASSESSMENT = re.compile(
    r"(?:绝对|肯定|根本|一定|压根)(?:就)?(?:不是|不会|没有)(?:.{0,12})(?:的|了)?[。！!～~]*$|"
    r"(?:更|也|就|都)?不会差|哪有不"
)
"""演技绝对不是吹出来的, 更不会差了: an assessment, not a rule."""
_ZH_VOW = re.compile(
    r"(?:我|我们|咱们)?(?:这次|以后|今后|从今往后|从今以后|再也)?(?:绝对|肯定|一定|保证)?"
    r"(?:不会|不再)(?:再)?(?:给你|让你|对你|跟你)?(?:放鸽子|骗你|让你失望|辜负|食言|迟到了?|"
    r"惹你|气你|说了|提了|这样)|再也不(?:说|提|这样|理)"
)
"""这次绝对不会给你放鸽子, 从今往后这三个字我就再也不说了: a vow in a quarrel."""
_ZH_VAGUE_TIME = re.compile(r"有时间|有空|有机会|改天|下次|回头|以后有|哪天|找时间|抽空|等有")
_ZH_VAGUE_PLAN = re.compile(
    r"(?:一定要|要|得|会)(?:去)?(?:看(?:看|下|一下)?|尝尝|试试|听听|逛逛|玩玩|去看看)"
)
_ZH_VAGUE_OBJECT = re.compile(
    r"(?:做|搞|干|玩|找)点(?:好玩|有意思|开心|什么|别的)|一起(?:加油|努力|进步|奋斗|成长|坚持)|"
    r"好好(?:聚聚|玩玩|聊聊)"
)
"""做点好玩的事, 一起加油: a plan or a cheer with nothing concrete to it."""
_ZH_LIFE_EVENT = re.compile(r"(?:我|我们|咱们)[^，。！？]{0,6}?(?:领养了|租了|加入了)")
"""我领养了一只狗, 我们租了一套房: a life event told, summary material."""
_ZH_GIVE_UP = re.compile(
    r"(?:不会|绝不|决不|不能|不要|别|永远不|从不|不)(?:轻易|就这么|这么|就这样)?(?:放弃|认输|服输|"
    r"退缩|低头)(?:的|了|啊|呀)?(?:[，,。！!～~]|$)|"
    r"(?:不会|绝不|决不|永远不|从不|不)[^，。！？]{0,12}?(?:就|就这样|就这么)放弃|"
    r"放弃(?:我的|我们的|你的|自己的)?(?:梦想|目标|希望|理想|追求|自己)"
)
"""我不会放弃的, 别轻易认输: perseverance with no object (not 我们放弃这个方案)."""
_ZH_REGRET = re.compile(r"我(?:就|真|当初|早)?不(?:应该|该)|争口气|争气|咽不下|别(?:因为|为了)我")
"""我就不应该…, 我得争口气: a regret or a vow in a quarrel, not a plan."""
_ZH_PLATITUDE = re.compile(
    r"走一步看一步|一步一个脚印|船到桥头自然直|车到山前必有路|慢慢来|日子还长|来日方长|"
    r"(?:好朋友|朋友)是.{0,12}(?:才|只能)|人生|岁月|命运|缘分"
)
_ZH_PLEASANTRY = re.compile(r"^(?:不用|不必|别)(?:了|啦)?[，, ]*(?:慢走|送|谢|客气|麻烦)")
_ZH_EMPHASIS = re.compile(
    r"必须(?:的|红|火|好|棒|行|不错|好听|好看|好吃)|值得(?:必须)?(?:一去|一看|一试|一听|去|看|听)|"
    r"(?:肯定|一定|想必)(?:都|也|还|会)(?:很|挺|特别|非常|超|好|不错)"
)
"""必须不错, 值得一去, 肯定都很好听: emphasis, a recommendation or a guess — no obligation."""
_ZH_FEELING = re.compile(
    r"^我(?:真是|真的|太|好|真|超|特别|非常)(?:兴奋|开心|高兴|激动|难过|伤心|生气|感动|幸福|期待|紧张)|"
    r"怎么能|难道|有些(?:东西|事情?|人)|让所有(?:的)?人都|再见|拜拜|"
    r"(?:确实|真是|可|也|都)?不(?:算)?(?:小|大|贵|便宜|少|差|远|近|难|容易|高|低|长|短)了"
)
"""我太兴奋了, 他们怎么能…, 有些东西你就买不到, 岁数确实不小了, 再见: a feeling, a rhetorical
question, a saying, an assessment, a goodbye."""


def chinese(text: str) -> bool:
    """Whether a Chinese sentence is small talk, whatever decision frame it has."""
    if _ZH_PLEASANTRY.search(text) or _ZH_PLATITUDE.search(text) or _ZH_EMPHASIS.search(text):
        return True
    if _ZH_FEELING.search(text):
        return True
    if _ZH_LIFE_EVENT.search(text) and not _ZH_TIME.search(text):
        return True
    if _ZH_GIVE_UP.search(text) or _ZH_REGRET.search(text):
        return True
    if _ZH_ASSESSMENT.search(text) or _ZH_VOW.search(text):
        return True
    if _ZH_SELF_CARE.search(text):
        return True
    if _ZH_ADVICE.search(text) and not (
        _ZH_TIME.search(text) or _ZH_FOR_THE_ASSISTANT.search(text)
    ):
        return True
    if _ZH_VAGUE_OBJECT.search(text):
        return True
    return bool(_ZH_VAGUE_TIME.search(text) and _ZH_VAGUE_PLAN.search(text))
