"""English decisions: who decided, agreed, ruled out or committed to what.

A sentence is a decision when a decision frame matches — a subject with a
decision verb ("we settled on", "I've decided"), an adopted proposal ("let's go
with"), a plan or rule stated as such ("the plan is", "from now on", "never
store"), a commitment with something concrete ("I'll pick her up at 6"), or a
confirmation ("Agreed: …") — and nothing marks it as a question, a hedge, an
undecided matter, reported speech or a pleasantry that merely uses the same
words ("you must be tired", "I always enjoy our chats", "don't worry").
"""

from __future__ import annotations

import re

from memory.compaction.analysis import smalltalk
from memory.compaction.analysis.words import anchors, content_words
from memory.text import word_set

EXPLICIT = 3.0
"""A subject with a decision verb, or a matter declared settled."""
CONFIRMED = 2.75
"""A confirmation label ("Agreed:", "Decision:") in front of what was decided."""
RULE = 2.5
"""A rule, constraint, adopted proposal or plan stated as such."""
PLAN = 2.0
"""What we will (not) do, a change we made."""
COMMITMENT = 1.5
"""What I will do, with something concrete (a time, a name, a number)."""

_PUNCT = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "—": " - ", "–": " - "})
_CONTRACTIONS = (
    (re.compile(r"\blet's\b"), "let us"),
    (re.compile(r"\bwon't\b"), "will not"),
    (re.compile(r"\bcan't\b"), "cannot"),
    (re.compile(r"\bshan't\b"), "shall not"),
    (re.compile(r"\b(\w+)n't\b"), r"\1 not"),
    (re.compile(r"'ll\b"), " will"),
    (re.compile(r"'re\b"), " are"),
    (re.compile(r"'ve\b"), " have"),
    (re.compile(r"\bi'm\b"), "i am"),
    (re.compile(r"'d\b"), " would"),
    (re.compile(r"\b(it|that|this|what|there|here|who|everything)'s\b"), r"\1 is"),
    (re.compile(r"\bgonna\b"), "going to"),
)
_SPACES = re.compile(r"\s+")

_LEAD = re.compile(
    r"^(?:(?:ok|okay|alright|all right|so|well|yes|yeah|yep|great|perfect|cool|fine|right|"
    r"good|sure|then|and|but|also|anyway|oh|hmm|actually|honestly|fair enough|sounds good|"
    r"sounds great|good idea|great idea|got it|understood|noted|thanks|thank you|haha|lol|wow|"
    r"in that case|that said|ah|um|by the way|btw|hey|hi|hello|no worries|no problem|"
    r"do not worry|never mind|of course|absolutely|exactly|true|no)\b\s*(?:[,.!:;]|\s-\s)\s*)+"
)
_LABEL_LEAD = r"^(?:(?:so|ok|okay|alright|yes|right|then|and)\b\s*(?:,\s*)?)*(?:to\s+|just to\s+)?"
"""Each lead word once with its spaces and comma: no two ways to split "ok ok ok …" (an
optional comma between two optional space runs made repeated "ok"s take exponential time)."""
_STRONG_LABELS = (
    r"decided|settled|locked in|lock(?:ing)? (?:it|this|that) in|(?:my |our |the )?final answer|"
    r"final decision|final call|done deal|decision(?:'s| is| was| has been)? made|"
    r"(?:i|we) (?:have )?made up (?:my|our) minds?|booked|all booked|reserved|"
    r"(?:reservation|booking|order)\s+(?:done|made|confirmed|complete|completed|placed)|"
    r"(?:that|it) is (?:settled|decided|official|final)|the plan stands"
)
"""Labels that say a decision was made, whatever punctuation follows ("Done deal, …")."""
_CONFIRM_LABEL = re.compile(
    _LABEL_LEAD + r"(?:" + _STRONG_LABELS + r"|agreed|confirmed|confirming|to confirm|decision|"
    r"final|noted|understood|got it|all set|ok|okay|plan|the plan|new plan|rule|new rule|"
    r"the rule|verdict|conclusion|resolution|constraint|requirement|deal)"
    r"(?:\s+(?:from|for)\s+(?:me|us|now))?\s*(?::|\s-\s)\s*(?P<rest>\S.*)"
)
_CONFIRM_STRONG = re.compile(
    _LABEL_LEAD + r"(?:" + _STRONG_LABELS + r")(?:\s+(?:from|for)\s+(?:me|us|now))?"
    r"\s*[,!]\s*(?P<rest>\S.*)"
)
_AS_AGREED = re.compile(
    r"^(?:(?:ok|okay|so|alright|right|then)\b\s*(?:,\s*)?)*"
    r"(?:as (?:we |you and i )?(?:agreed|discussed|"
    r"decided|planned|settled)|as (?:you )?(?:asked|requested|instructed|wanted)|like we (?:said|"
    r"agreed)|per (?:your|our) (?:rule|request|instructions?|decision|agreement|plan|wishes))"
    r"\s*[,:-]\s*(?P<rest>\S.*)"
)
"""A lead that says what follows was agreed before: "As agreed, the deadline is May 3"."""
_CONFIRM_WORD = re.compile(
    r"^(?:agreed|confirmed|decided|settled|deal|done deal|it is a deal|that is a deal)"
    r"\s*[,!.]\s*(?P<rest>\S.*)"
)

_QUESTION_START = re.compile(
    r"^(?:should|shall|do|does|did|are|is|was|were|have|has|had|can|could|will|would|may|"
    r"might|must|am)\s+(?:we|i|you|they|he|she|it|there|the|our|my|this|that|everyone)\b|"
    r"^(?:what|which|where|when|who|why|how)\s+(?:\w+\s+)?(?:do|does|did|is|are|was|were|"
    r"should|shall|will|would|can|could|have|has)\b|"
    r"^(?:how about|what about|what if|why not|why do not|want to|do you want)\b"
)
_HEDGE = re.compile(
    r"\b(?:maybe|might|perhaps|probably|possibly|hopefully|i think|i guess|i suppose|"
    r"i believe|i feel like|i reckon|not sure|unsure|i wonder|wondering|thinking about|"
    r"thinking of|considering|consider|could|would|should|if|unless|in case|whether|"
    r"not yet|yet to|tbd|to be decided|up in the air|undecided|decide|deciding|"
    r"choose between|figure out|torn between|on the fence|leaning towards|leaning toward|"
    r"depends|depending|(?:i|we) (?:would )?(?:recommend|suggest)|suggestion|options?|i hope|"
    r"we hope|hope to|would love|wish)\b"
)
_POLITE_WANT = re.compile(r"\b(?:would|'d) like to\b")
"""'I'd like to book it for 6': a polite request, not a conditional."""
_EVEN_IF = re.compile(r"\beven if\b")
_UNDECIDED = re.compile(
    r"\b(?:not|never|nobody|no one|hardly|barely)\s+(?:\w+\s+){0,2}?(?:decided|agreed|"
    r"settled|confirmed|finali[sz]ed|chosen|picked|booked|sure)\b"
)
_PLEASANTRY = re.compile(
    r"\b(?:sorry|congrats|congratulations|thank you|thanks|proud of you|miss you|love you|"
    r"happy for you|here for you|glad|take care|hang in there|you got this|you deserve|bless|"
    r"cheers|welcome|no worries|no problem|my pleasure|worry|worried|hesitate|never mind|"
    r"mention it|have fun|enjoy|good luck)\b"
)
_EMOTIVE = re.compile(
    r"\b(?:wow|omg|lol|haha|yay|hooray|aw+|amazing|awesome|great|love|fun|blast|cool|"
    r"wonderful|beautiful|exciting|excited|lovely|fantastic|incredible|cute|proud|happy|"
    r"best|cannot wait|so much|such a)\b"
)
_VAGUE = re.compile(
    r"\b(?:sometime|some time|someday|some day|one day|at some point|soon|again|more often|"
    r"one of these days|in the future|anytime|whenever|later)\b"
)

_SUBJECT = (
    r"(?:we|i|you and i|both of us|all of us|(?:the|our|my) (?:team|family|group|board|"
    r"committee|class|club|household|company)|everyone|everybody|(?:my )?[a-z]+ and i)"
)
_ADVERBS = (
    r"(?:\s+(?:have|had|has|finally|both|all|just|already|officially|now|then|eventually|"
    r"ultimately|also|unanimously|together|formally|definitely|really))*"
)
_EXPLICIT = re.compile(
    rf"\b{_SUBJECT}{_ADVERBS}\s+(?:"
    r"decided\b"
    r"|agreed\s+(?:to|on|upon|that|:|-)"
    r"|settled\s+(?:on|upon|it|that|for|:|the|our|my|a)\b"
    r"|made\s+up\s+(?:my|our)\s+minds?"
    r"|(?:chose|chosen|picked|selected)\s+(?!up\b)\w"
    r"|opted\s+(?:for|to|out|against)"
    r"|(?:resolved|committed)\s+to|voted\s+(?:for|to|against)|locked\s+in|landed\s+on"
    r"|(?:went|are going|am going|will go|will be going|are)\s+with\b"
    r"|(?:went|will go|are going|am going)\s+for\b"
    r"|made\s+(?:the|a|our|my|a final)\s+(?:call|decision)"
    r"|(?:ruled|crossed)\s+out|signed\s+off\s+on"
    r"|(?:will|are|am|shall)?\s*(?:just\s+)?(?:stick|sticking)\s+(?:with|to)\b)"
)
_WE_AGREE = re.compile(r"\bwe\s+(?:all\s+|both\s+)?agree\s+(?:to|on|upon|that)\b")
_SETTLED = re.compile(
    r"\b(?:it|that|this|everything|which)\s+is\s+(?:now\s+|all\s+)?(?:decided|settled|agreed|"
    r"final|official|confirmed|locked in|a deal|a date|set in stone|the plan)\b"
)
_FINAL_PREDICATE = re.compile(
    r"\b(?:is|are|has been|have been|was|were)\s+(?:now\s+|officially\s+|all\s+)?(?:final|"
    r"finali[sz]ed|settled|decided|confirmed|locked in|booked|set for|fixed at|scheduled for|"
    r"moved to|pushed to|postponed to|rescheduled to|set to|capped at|limited to|restricted to|"
    r"not allowed|forbidden|banned|prohibited|mandatory|off the table|out of scope|"
    r"non-negotiable|off limits)\b(?!\s+(?:in|down)\b)"
)
_DECISION_NOUN = re.compile(
    r"\b(?:the|our|my|final|new)\s+(?:final\s+|new\s+)?(?:decision|choice|pick|verdict|plan|"
    r"agreement|deal|rule|policy|arrangement|call|(?<=final )answer)\s+(?:now\s+)?"
    r"(?:is|was|will be)\s+"
    r"(?P<rest>.*)"
)
_NOUN_REST = re.compile(r"^(?:to\s+\w|that\b|:|-)")
_LIMIT_NOUN = re.compile(
    r"\b(?:budget|deadline|limit|cap|maximum|minimum|max|curfew|due date)\s+(?:is|of|:)\s+"
    r"(?P<rest>.*)"
)
_IT_IS = re.compile(
    r"^(?!(?:so|here|there|what|that|this|how|whatever|as|such|yes|well|and|but|if|when|"
    r"because|it)\b)[\w$€£¥.:' -]{2,40}?\s+it is\s*[.!]*$"
)
_LET_US = re.compile(
    r"\blet us\s+(?P<neg>not\s+)?(?:just\s+|definitely\s+|all\s+|now\s+|then\s+)?"
    r"(?P<rest>[a-z].*)"
)
_LET_NEVER = re.compile(
    r"^(?:see|hope|pray|enjoy|celebrate|cherish|chill|relax|face it|say|admit|agree to disagree|"
    r"think|discuss|talk|chat|figure|decide|wait|be\b|try|find out|keep in touch|keep it up|"
    r"keep going|keep talking|catch up|hang out|get together|have (?:fun|a blast|a great)|"
    r"make it (?:happen|work)|do (?:this|it|that)\b|go\b(?!\s+(?:with|for|to|ahead))|worry|"
    r"forget|remember|hope)\b"
)
_LET_EXHORT = re.compile(
    r"^(?:keep\b(?![^0-9]*\d)|"
    r"make (?:it|this|that|the most|some|a|every|each|real|things|sure|memories|history)\b|"
    r"stay\b|find (?:a|some|the) time|never\b|always\b|get (?:together|it|this|going|started|"
    r"moving|through|on with)\b|move (?:on|forward|ahead)\b|not\b|take it\b|roll\b|rock\b|"
    r"party\b|cheer\b|give it\b|work together|help each other|support each other|"
    r"stick together|look forward|look on|focus on (?:the|what)|change the world|"
    r"do (?:our|my) best|push\b|grow\b|build (?:a better|something)|spread\b|show (?:them|the "
    r"world)|start (?:fresh|over|again)|live\b|dance\b|pray\b|toast\b)"
)
"""Let's + an exhortation: what people say to each other, not a decision."""
_LET_CONCRETE = re.compile(
    r"^(?:go with|go for|use|book|reserve|pick|choose|take the|switch|move (?:the|it|to|our)|"
    r"meet\b|cancel|skip|drop|split|name|call (?:it|him|her|the)|order|buy|rent|hire|"
    r"schedule|set (?:the|a|it)|start (?:on|with|at|the)|ship|launch|release|deploy|"
    r"stick (?:with|to)|keep the|put|add|remove|cut|limit|cap|leave (?:at|on)|fly|drive|"
    r"invite|host|sell|paint|cook|bring|do (?:it|the \w+) (?:on|at|in)|go to|head to|"
    r"try the|plan (?:for|on)|make it (?:the|a|at|on)|postpone|delay|push (?:it|the)|"
    r"replace|migrate|upgrade|adopt|merge|freeze|ban|require|only)\b"
)
"""Let's + a verb that commits to something: adopting, booking, choosing, moving, meeting."""
_PERSONAL_DONE = re.compile(
    rf"\b(?:i|we|{_SUBJECT})(?:\s+(?:have|had|just|finally|already|officially|also|now|"
    r"recently|last \w+))*\s+(?:signed up|enrolled|registered|booked|reserved|bought (?:the |our "
    r"|my |two |\w+ )?tickets?|applied (?:to|for)|accepted (?:the|an|their)|quit|resigned|"
    r"adopted|named|hired|rented|leased|put down a deposit|paid the deposit|canceled|"
    r"cancelled|dropped out|switched to|signed (?:the|a|up)|joined)\b(?P<rest>.*)"
)
"""Done, by us: the user signed up, booked, enrolled, quit — a choice later turns rely on."""
_PROGRESSIVE_PLAN = re.compile(
    rf"\b(?:i|we|{_SUBJECT}) (?:am|are) (?:(?:finally|officially|also|now|actually|really|"
    r"just|definitely|then)\s+)?(?P<verb>starting|moving|taking|adopting|throwing|hosting|"
    r"putting together|organi[sz]ing|launching|shipping|doing|flying|driving|leaving|visiting|"
    r"selling|buying|renting|naming|calling|switching|quitting|dropping|joining|signing up|"
    r"booking|painting|repainting|opening|retiring|getting married|running for|running the|"
    r"going to|heading to|traveling to|travelling to|relocating|launching|holding|planning|"
    r"throwing|canceling|cancelling|postponing|skipping|keeping|sticking with)\b(?P<rest>.*)"
)
"""We're moving to Denver next spring; I'm hosting a book club every second Friday: a plan
stated as under way, with a when, where or which (an anchor) to it."""
_CAPITALISED_NAME = re.compile(r"(?<=[\w,;:)] )(?!I\b)[A-Z][A-Za-z0-9]+")
_PROGRESSIVE_NEEDS_NAME = frozenset({"doing", "going to", "heading to", "planning", "keeping"})
"""Verbs too common to count on a date alone ("we're doing good this week")."""
_BOOK_IT = re.compile(
    r"^(?:(?:yes|yeah|yep|sure|ok|okay|great|perfect|sounds good|that works|alright)\s*[,.!-]*"
    r"\s*)*(?:please\s+)?(?:go ahead and\s+)?(?:please\s+)?(?:book|reserve|order|buy|"
    r"schedule|cancel|confirm)\s+(?:it|that|this|them|one|me|us|the|a|an|two|\d)\b"
    r"(?P<rest>.*)"
)
"""The user telling the assistant to go ahead: "Yes, please book it for 6 people at 17:15"."""
_WANT_TO_BOOK = re.compile(
    r"\b(?:i|we) (?:want|need) to (?:book|reserve|order|buy tickets|rent)\b(?P<rest>.*)"
)
_WE_FUTURE = re.compile(
    r"\b(?:we|everyone|the team|both of us)\s+(?:will|shall|are(?:\s+not|\s+never)?\s+going to|"
    r"plan to|intend to)\s+(?:not\s+|never\s+|no longer\s+)?(?:definitely\s+|also\s+|just\s+|"
    r"all\s+|then\s+|now\s+|only\s+|always\s+)?(?P<rest>[a-z].*)"
)
_I_FUTURE = re.compile(
    r"\bi\s+(?:will|shall|am(?:\s+not|\s+never)?\s+going to|promise to)\s+"
    r"(?:not\s+|never\s+|no longer\s+)?(?:definitely\s+|also\s+|just\s+|then\s+|now\s+|"
    r"personally\s+|always\s+)?(?P<rest>[a-z].*)"
)
_NEGATION = re.compile(r"\b(?:not|never|no longer)\b")
_FUTURE_VAGUE = re.compile(
    r"^(?:see|talk|chat|figure|decide|think|miss|love|enjoy|have\b|be\b|get\b|make it\b|try|"
    r"find out|catch up|keep (?:in touch|going|it up|you posted|an eye|that in mind)|"
    r"let (?:you|me)|hang|manage|survive|cross|need|want|know|remember|forget|look|wait|"
    r"hear|check|text you|call you|ping you|message you|email you|talk to|reach out|"
    r"come back|get back|always|never|probably|maybe|the|a|an|my|our|your|his|her|their|"
    r"this|that|go\b(?!\s+(?:with|for|ahead)))\b"
)
_GOING_TO_PLACE = re.compile(r"\bgoing to [A-Z]")
_WE_RULE = re.compile(
    r"\bwe\s+(?:always|never|do not|only|no longer|do not ever)\s+(?P<rest>[a-z].*)"
)
_IMPERATIVE = re.compile(
    r"^(?:please\s+|and\s+|also\s+|just\s+|so\s+|remember\s*[,:]?\s*)?(?:please\s+)?"
    r"(?:never|always|do not|do not ever|stop|avoid|only|no one should|nobody should|"
    r"nobody may|no one may)\s+(?P<rest>[a-z].*)"
)
_IMPERATIVE_EMOTIVE = re.compile(
    r"^(?:worry|mind|be\b|being|give up|hesitate|stress|panic|doubt|forget|apologi[sz]e|"
    r"mention|let\b|lose|change\b|underestimate|look back|feel|settle for|take it|blame|"
    r"beat|get\b|sweat|judge|overthink|compare|rush|hold back|ever|been|thought|knew|had|"
    r"seen|heard|felt|imagined|expected|reali[sz]ed|tried|believe|stop|quit|care|cry|"
    r"say|listen|remember|know|trust|miss|love|hate|regret|fear|push yourself|smile|laugh|"
    r"dream|fail|grow|give|make me|leave me|go\b|have\b|do\b|think)\b"
)
_MODAL = re.compile(
    r"\b(?P<subj>[a-z]+)(?:\s+(?:also|really|just|still|definitely|only|all|both|actually))*"
    r"\s+(?:must|have to|has to|need to|needs to|cannot|can not|may not|"
    r"are not allowed to|is not allowed to|are required to|is required to|shall not|"
    r"ought to)\s+(?P<neg>not\s+|never\s+|always\s+|only\s+)?(?P<rest>[a-z].*)"
)
_MODAL_SUBJECT_NOT = word_set(
    "i it that this he she they there which what who one something nothing"
)
_MODAL_VAGUE = re.compile(
    r"^(?:beat|deny|go wrong|argue|top|resist|help|blame|complain|ask for|get enough|"
    r"overstate|stop thinking|wait to|unsee|have\b|feel|seem|look|sound|mean|know|think|love|"
    r"hate|get\b|miss|try|see|check|"
    r"visit|watch|come|meet|taste|read|go\b|hear|listen|relax|rest|sleep|take care|chill|"
    r"talk|decide|figure|catch|wait|admit|say|believe|imagine|agree|stop by|drop by|"
    r"wait|tell me|show me|share more|afford)\b"
)
_PASSIVE = re.compile(r"^be\s+(?:\w+\s+)?\w+(?:ed|en)\b")
_ANYMORE = re.compile(r"\b(?:nobody|no one|we|everyone|everybody)\b.*\b(?:anymore|any more)\b")
_RULE_MARKER = re.compile(
    r"\b(?:from now on|going forward|from here on|henceforth|from today|no more|no longer|"
    r"(?:^|, |; )starting (?:today|tomorrow|now|next|this|on|in|from|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday)|as of (?:today|now|next|this|\d))\b"
)
_WE_NOT_DOING = re.compile(r"\bwe\s+are\s+not\s+(?!going to\b)(?P<rest>[a-z]+ing\b.*)")
"""We're not doing the road trip (any more): a plan dropped."""
_WE_CHANGED = re.compile(
    r"\bwe\s+(?:have\s+|just\s+|finally\s+|already\s+)*(?:switched|moved|rescheduled|"
    r"postponed|canceled|cancelled|dropped|scrapped|ditched|shelved|abandoned|renamed|named|"
    r"booked|reserved|signed|hired|adopted|rented|scheduled|changed|upgraded|migrated|"
    r"pushed|replaced|bumped|fixed)\b"
)


_BARE_CONFIRMATION = re.compile(
    r"^(?:(?:ok|okay|great|perfect|all right|alright|yes|good news)[,!.]?\s*)?(?:booked|"
    r"all booked|done|all done|confirmed|all set|you are all set|reserved|decided|settled|"
    r"deal|done deal|decision made|it is settled|that is settled|locked in|"
    r"(?:the |your )?(?:booking|reservation|order) (?:was |is |has been )?(?:successful|"
    r"complete|completed|confirmed|made|done|placed)|i (?:have|was able to) (?:booked?|"
    r"reserved?|made) (?:it|that|the (?:booking|reservation))(?: for you)?)[.!]*$"
)


def is_bare_confirmation(sentence: str) -> bool:
    """'Booked!', 'Booking was successful.': a confirmation whose object is the next sentence."""
    return bool(_BARE_CONFIRMATION.match(_normalise(sentence)))


def normalised(sentence: str) -> str:
    """The sentence as these rules read it (``supersession`` reads it so too)."""
    return _normalise(sentence)


def _normalise(sentence: str) -> str:
    """Lower case, plain quotes and dashes, contractions spelled out."""
    s = sentence.translate(_PUNCT).lower()
    s = _POLITE_WANT.sub("want to", s)
    for pattern, repl in _CONTRACTIONS:
        s = pattern.sub(repl, s)
    return _SPACES.sub(" ", s).strip()


def _is_question(s: str) -> bool:
    return s.rstrip(" .)\"'").endswith("?") or "?" in s or bool(_QUESTION_START.search(s))


def _disqualified(s: str) -> bool:
    """A question, a hedge, an undecided matter or a pleasantry: whatever decision words it has."""
    if _is_question(s) or _UNDECIDED.search(s) or _PLEASANTRY.search(s):
        return True
    if _HEDGE.search(_EVEN_IF.sub(" ", s)):
        return True
    return s.endswith("!") and bool(_EMOTIVE.search(s))


def _enough(text: str, words: int = 2) -> bool:
    """Something to be about: content words, a number counting twice ("do item 7")."""
    return len(content_words(text)) + anchors(text) >= words


def _proposal(s: str, raw: str) -> float:
    """Let's + a concrete object (what, when, which): "let's book the 6:40 train", not
    "let's keep moving forward" or "let's find a time to chat"."""
    if not (m := _LET_US.search(s)):
        return 0.0
    rest = m.group("rest")
    if _LET_NEVER.match(rest) or _LET_EXHORT.match(rest) or _VAGUE.search(rest):
        return 0.0
    if not _enough(rest):
        return 0.0
    if _LET_CONCRETE.match(rest) or anchors(_raw_tail(raw, rest)):
        return RULE
    return 0.0


def _future(s: str, raw: str) -> float:
    """We will (not) …: a plan; I will …: a commitment when it is concrete or negated."""
    if _GOING_TO_PLACE.search(raw):
        return 0.0
    if (m := _WE_FUTURE.search(s)) and not _VAGUE.search(m.group("rest")):
        rest = m.group("rest")
        if not _FUTURE_VAGUE.match(rest) and _enough(rest):
            return PLAN
    if (m := _I_FUTURE.search(s)) and not _VAGUE.search(m.group("rest")):
        rest = m.group("rest")
        concrete = bool(_NEGATION.search(s, m.start(), m.start("rest"))) or anchors(raw) > 0
        if concrete and not _FUTURE_VAGUE.match(rest) and _enough(rest):
            return COMMITMENT
    return 0.0


def _rule(s: str) -> float:
    """Rules and constraints: imperatives, modal obligations, 'from now on', limits."""
    for pattern in (_IMPERATIVE, _WE_RULE):
        m = pattern.search(s)
        if m and not _IMPERATIVE_EMOTIVE.match(m.group("rest")) and _enough(m.group("rest")):
            return RULE
    if (m := _MODAL.search(s)) and m.group("subj") not in _MODAL_SUBJECT_NOT:
        rest = m.group("rest")
        obligation = not _MODAL_VAGUE.match(rest) and not rest.startswith("be ")
        passive = _PASSIVE.match(rest) and m.group("subj") not in ("you", "we")
        if (obligation or passive) and _enough(rest, 1):
            return RULE
    if _RULE_MARKER.search(s) or _ANYMORE.search(s):
        return RULE
    if (m := _LIMIT_NOUN.search(s)) and anchors(m.group("rest")):
        return RULE
    return 0.0


def _settled(s: str, raw: str) -> float:
    """A subject with a decision verb, or the matter itself declared decided."""
    if _EXPLICIT.search(s) or _WE_AGREE.search(s) or _SETTLED.search(s) or _IT_IS.search(s):
        return EXPLICIT
    if _FINAL_PREDICATE.search(s):
        return RULE
    if m := _DECISION_NOUN.search(s):
        rest = m.group("rest")
        if _NOUN_REST.match(rest) or anchors(_raw_tail(raw, rest)):
            return RULE
    if _WE_CHANGED.search(s):
        return PLAN
    if (m := _PERSONAL_DONE.search(s)) and _enough(m.group("rest"), 1):
        return PLAN
    if m := _PROGRESSIVE_PLAN.search(s):
        rest_raw = _raw_tail(raw, m.group("rest"))
        if m.group("verb") in _PROGRESSIVE_NEEDS_NAME:
            concrete = bool(_CAPITALISED_NAME.search(rest_raw))
        else:
            concrete = anchors(rest_raw) > 0
        if concrete and _enough(m.group("rest"), 1):
            return PLAN
    if (m := _BOOK_IT.match(s) or _WANT_TO_BOOK.search(s)) and anchors(raw):
        return CONFIRMED
    if (m := _WE_NOT_DOING.search(s)) and _enough(m.group("rest")):
        return PLAN
    return 0.0


def _raw_tail(raw: str, rest: str) -> str:
    """The original casing of a normalised tail, for the anchors (names are capitalised)."""
    return raw[-len(rest) :] if rest and len(rest) <= len(raw) else raw


# --- Arrangements (issue 30): a scheduled event or a booking stated as a plain fact --------
# "The weekly sync is on Tuesdays at 10.", "The deadline for the report is Friday.",
# "Set the alarm for 6:30.": decided, though no decision word says so. Only with a day,
# date or time, and only of events that are arranged (not "my birthday is on Tuesday").

_EVENTS = word_set(
    """
    meeting meetings sync syncs standup standups stand-up review retro retrospective demo
    call appointment deadline launch release kickoff kick-off offsite party dinner lunch
    breakfast brunch wedding ceremony reception interview class lesson session workshop
    presentation rehearsal exam surgery delivery viewing inspection checkup check-up pickup
    pick-up drop-off dropoff check-in checkout flight train bus ferry reservation booking
    trip visit meetup huddle 1:1 one-on-one planning practice training handover cutover
    deploy deployment migration shift
    """
)
"""Events that are arranged: the subject of an arrangement."""
_ARRANGED = re.compile(
    r"^(?:(?:the|our|my|your|this|next|every|each)\s+)?(?:[\w'-]+\s+){0,3}?(?P<event>[\w:-]+)"
    r"(?:\s+(?:for|with|of)\s+(?:the\s+|our\s+|my\s+)?[\w' -]{1,30}?)?"
    r"\s+(?:is|are|will be)\s+(?:now\s+|always\s+|still\s+)?"
    r"(?P<prep>on|at|every|set for|scheduled for|due|due on|planned for|booked for|fixed for|"
    r"for)?\s*(?P<rest>.+)$"
)
_SET_FOR = re.compile(
    r"^(?:please\s+)?(?:set|schedule|put)\s+(?:it|the|a|an|my|our|this)\b(?P<rest>.*)"
    r"\b(?:for|to|at|on)\s+(?P<when>.+)$"
)
_WHEN = re.compile(
    r"^(?:the\s+|every\s+|next\s+|this\s+)?(?:\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\d{1,2}:\d{2}\b|"
    r"\d{1,2}(?:st|nd|rd|th)\b|(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"weekday|weekend|morning|evening|afternoon)s?\b|tomorrow\b|tonight\b|today\b|noon\b|"
    r"midnight\b|(?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december)\b)"
)
"""A day, date or time opening what follows: what makes a statement about an event an
arrangement ("… is on Tuesdays at 10", not "… is 4 stars" or "… is 105 minutes long")."""
_AT_HOUR = re.compile(r"^\d{1,2}\b(?!\s*(?:people|persons|guests|minutes|hours|nights|%))")


def _when(prep: str | None, rest: str) -> bool:
    return bool(_WHEN.match(rest) or (prep == "at" and _AT_HOUR.match(rest)))


def _arranged(s: str, raw: str) -> float:
    """An event with a when ("the sprint review is on Thursdays at 3 pm"), or an
    instruction to set one ("set the meeting with the landlord for 5 pm tomorrow"); not
    an event word in a name ("Alexander Bed and Breakfast is …")."""
    m = _ARRANGED.match(s)
    if m and m.group("event") in _EVENTS and _when(m.group("prep"), m.group("rest")):
        named = re.search(rf"\b{re.escape(m.group('event'))}\b", raw, re.IGNORECASE)
        if (named and not named.group()[0].isupper()) or m.start("event") == 0:
            return PLAN
    if (m := _SET_FOR.match(s)) and _when(None, m.group("when")):
        return PLAN
    return 0.0


def _frames(s: str, raw: str) -> float:
    if _disqualified(s) or not _enough(s):
        return 0.0
    return max(_settled(s, raw), _rule(s), _proposal(s, raw), _future(s, raw), _arranged(s, raw))


def decision_strength(sentence: str) -> float:
    """How decision-like one English sentence is: 0 for none, up to ``EXPLICIT``."""
    s = _normalise(sentence)
    if smalltalk.english(_LEAD.sub("", s), sentence):
        return 0.0
    label = _CONFIRM_LABEL.match(s) or _CONFIRM_STRONG.match(s) or _AS_AGREED.match(s)
    if label:
        rest = _LEAD.sub("", label.group("rest"))
        if not _disqualified(rest) and _enough(rest):
            return max(CONFIRMED, _frames(rest, sentence))
    if label := _CONFIRM_WORD.match(s):  # "Agreed, …" is also said of opinions: need a fact
        rest = label.group("rest")
        if (found := _frames(rest, sentence)) or (
            anchors(rest) and _enough(rest) and not _disqualified(rest)
        ):
            return max(CONFIRMED, found)
    return _frames(_LEAD.sub("", s), sentence)
