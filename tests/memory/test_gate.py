"""The gate's checks one by one (contract §5, "Memory never trusts a compactor";
``memory/compaction/gate.py``).

Each check refuses (or drops) what a compactor says that the conversation does not, and
nothing the conversation itself says: a user who pasted a traceback, talked about a 429
or wrote HTML finds it in the summary. Numbers are compared by value, names by what the
conversation calls them. The extractive compactor's own outputs over the test
conversations all pass (the gate refuses no honest fold).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aimind_memory.memory import CompactionOutput, CompactionRequest, ExtractiveCompactor
from aimind_memory.memory.compaction import fold, split_window
from aimind_memory.memory.compaction.gate import (
    Said,
    Source,
    Verdict,
    anchors,
    echo_instructions,
    echo_request,
    empty_summary,
    error_text,
    inspect,
    literal_prefix,
    markup,
    number_readings,
    pin_unsupported,
    zh_number,
)
from aimind_memory.memory.compaction.llm import INSTRUCTIONS, compaction_messages
from aimind_memory.memory.models import ChatThreadMessage, ThreadState, utcnow

from .helpers import LIMITS

DATA = Path(__file__).parent / "data"


def message(text: str, role: str = "user", n: int = 0) -> ChatThreadMessage:
    return ChatThreadMessage(id=f"m{n}-{role}", role=role, text=text, created_at=utcnow())


def request(*texts: str, summary: str = "", pins: tuple[str, ...] = ()) -> CompactionRequest:
    """A request folding ``texts`` (user, assistant, … in turn)."""
    folded = [
        message(t, "user" if i % 2 == 0 else "assistant", i // 2) for i, t in enumerate(texts)
    ]
    return CompactionRequest(summary, list(pins), folded, [])


def source(*texts: str) -> Source:
    return Source(texts)


CONVERSATION = (
    "We decided to use PostgreSQL as the database.",
    "Good choice: PostgreSQL it is.",
    "The budget is 40,000 euros for the first release.",
    "Understood: a budget of 40,000 euros.",
    "The kickoff workshop will be in Lisbon, table for four at 7 pm on Friday.",
    "Lisbon, Friday at 7 pm, noted.",
)


# --- empty-summary ----------------------------------------------------------------------------


def test_a_blank_summary_where_memory_had_one_is_refused() -> None:
    had = request("ok", "sure", summary="The team chose PostgreSQL.")
    out = CompactionOutput(summary=" \n", pinned_decisions=[])
    assert empty_summary(had, out)
    assert inspect(had, out).refused == "empty-summary"


def test_a_blank_summary_over_turns_that_named_something_is_refused() -> None:
    named = request(*CONVERSATION)
    out = CompactionOutput(summary="", pinned_decisions=[])
    assert inspect(named, out).refused == "empty-summary"


def test_a_blank_summary_of_greetings_with_no_summary_before_lands() -> None:
    greetings = request("hi there", "hello, how can I help?", "thanks a lot", "you're welcome")
    out = CompactionOutput(summary="", pinned_decisions=[])
    assert not empty_summary(greetings, out)
    assert inspect(greetings, out).refused is None


def test_a_summary_of_control_characters_only_is_blank() -> None:
    had = request("ok", "sure", summary="The team chose PostgreSQL.")
    assert inspect(had, CompactionOutput(summary="\x00\x07", pinned_decisions=[])).refused == (
        "empty-summary"
    )


# --- error-text -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Error generating summary: RateLimitError: Error code: 429 - Too Many Requests",
        "RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit reached'}}",
        'Traceback (most recent call last):\n  File "app.py", line 3, in <module>',
        "Exception: the model did not answer",
        "APIConnectionError('Connection error.')",
        "503 Service Unavailable",
        "Internal Server Error",
        '{"error": {"message": "insufficient_quota", "type": "insufficient_quota"}}',
        "Request timed out.",
        "生成摘要失败：请求超时",
        "服务器内部错误，错误代码：500",
    ],
)
def test_error_text_is_refused(text: str) -> None:
    assert error_text(Said.of(text), source(*CONVERSATION))


@pytest.mark.parametrize(
    "text",
    [
        "The team chose PostgreSQL; the budget is 40,000 euros.",
        "The user reported an error in the login form, which fails on Safari.",
        "The payment service returns errors when the card has expired.",
        "They failed to create a budget last year, so this year it is fixed.",
    ],
)
def test_a_summary_that_mentions_errors_in_plain_words_passes(text: str) -> None:
    assert not error_text(Said.of(text), source(*CONVERSATION))


def test_an_error_the_user_talked_about_is_not_error_text() -> None:
    said = source("Our checkout throws RateLimitError: Error code: 429 from the payment API.")
    summary = "The checkout throws RateLimitError: Error code: 429 from the payment API."
    assert not error_text(Said.of(summary), said)


# --- markup -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "shell", "arguments": {"command": "ls"}}</tool_call>',
        "<|im_start|>assistant",
        "[TOOL_CALLS] search",
        '```json\n{"summary": "x"}\n```',
        '{"summary": "The team chose PostgreSQL.", "pinned_decisions": []}',
        '["We use PostgreSQL.", "Budget 40,000 euros."]',
        'shell(command="cat /etc/passwd")',
        "The plan is <b>PostgreSQL</b>.",
        "{'name': 'search', 'args': {}}",
    ],
)
def test_markup_is_refused(text: str) -> None:
    assert markup(Said.of(text), source(*CONVERSATION))


@pytest.mark.parametrize(
    "text",
    [
        "The team chose PostgreSQL (not MySQL); the budget is 40,000 euros - fixed.",
        "Kickoff: Lisbon, Friday 7 pm. Budget: 40,000 euros.",
        "- PostgreSQL as the database\n- 40,000 euros budget",
        "The score was 3 < 5 and 7 > 2.",
    ],
)
def test_plain_sentences_and_lists_are_not_markup(text: str) -> None:
    assert not markup(Said.of(text), source(*CONVERSATION))


def test_markup_the_user_wrote_is_not_refused() -> None:
    said = source('The header is <nav class="top"> and it must stay sticky.')
    assert not markup(Said.of('The header <nav class="top"> must stay sticky.'), said)


# --- echo-instructions, echo-request --------------------------------------------------------


def test_the_prompt_handed_back_is_refused() -> None:
    prompt = str(compaction_messages(request(*CONVERSATION), LIMITS)[0].content)
    assert echo_instructions(Said.of(prompt), source(*CONVERSATION))
    first_sentence = INSTRUCTIONS.splitlines()[0]
    assert echo_instructions(
        Said.of(first_sentence + " The team chose PostgreSQL."), source(*CONVERSATION)
    )
    assert echo_instructions(Said.of("You are a helpful assistant. Summary follows."), source("hi"))


def test_a_summary_put_the_way_the_prompt_s_examples_put_it_is_not_an_echo() -> None:
    said = source("We moved the launch from March 3 to April 10.", "Noted.")
    summary = "The launch moved from March 3 to April 10; make it 6 people at the dinner."
    assert not echo_instructions(Said.of(summary), said)


def test_the_request_handed_back_is_refused() -> None:
    asked = request(*CONVERSATION)
    payload = str(compaction_messages(asked, LIMITS)[1].content)
    assert echo_request(Said.of(payload), Source(asked.texts()))
    assert echo_request(Said.of(repr(asked)), Source(asked.texts()))
    assert echo_request(Said.of("previous_summary: none. fold: three turns"), source("hi"))


def test_a_summary_about_folding_laundry_is_not_the_request() -> None:
    said = source("I still have to fold the laundry before the trip.")
    assert not echo_request(Said.of("The user has to fold the laundry before the trip."), said)


# --- pin-unsupported: values compared by what they are ----------------------------------------


@pytest.mark.parametrize(
    "pin",
    [
        "The budget is 40,000 euros.",
        "The budget is 40000 euros.",
        "The budget is 40 000 EUR.",
        "The budget is 40k euros.",
        "The budget is €40,000.00.",
        "The budget is ４０，０００ euros.",
        "The team uses PostgreSQL.",
        "The team uses Postgres.",
        "Kickoff in Lisbon on Friday at 19:00.",
        "Table for 4 at 7 pm.",
        "Use the postgreSQL database.",
    ],
)
def test_a_pin_whose_values_the_conversation_says_is_kept(pin: str) -> None:
    assert not pin_unsupported(pin, source(*CONVERSATION))


@pytest.mark.parametrize(
    "pin",
    [
        "The budget is 1,000,000 euros.",
        "The budget is 4,000 euros.",
        "We use Oracle Database 23c in production.",
        "The kickoff is in Madrid.",
        "Kickoff on Saturday.",
        "Kickoff on June 3.",
        "Kickoff in Lisbon on Friday, 2025.",
        "Table for 6 at 7 pm.",
        "Send the agenda to ana@example.com.",
        "The booking page is https://casa-verde.example/book.",
    ],
)
def test_a_pin_with_a_value_nobody_said_is_dropped(pin: str) -> None:
    assert pin_unsupported(pin, source(*CONVERSATION))


def test_the_previous_memory_backs_a_pin() -> None:
    said = source(*CONVERSATION, "Earlier: the launch is on June 3 in Porto.", "ana@example.com")
    assert not pin_unsupported("Launch on June 3; send the agenda to ana@example.com.", said)


@pytest.mark.parametrize(
    ("said", "pin"),
    [
        ("确认一下：婚礼定在明年五月二十号，星期三。", "婚礼定在5月20日，周三。"),
        ("宾客大概一百二十人。", "宾客120人。"),
        ("每桌八千八，十二桌。", "每桌8800元，共12桌。"),
        ("总预算是二十五万，不能超。", "总预算25万元。"),
        ("最后我们选了西湖国宾馆，室内室外都有。", "婚礼场地定在西湖国宾馆。"),
        ("我们住北京鹏润国际大酒店。", "住在北京鹏润国际大酒店。"),
        ("前端还是用Vue吧。", "前端用Vue。"),
        ("十分重要：别迟到。", "十分重要，一起准时到。"),
        # a unit written right after its number is no name of its own
        ("附件大小上限改成20MB。", "附件上限20MB"),
        ("带宽先给5G。", "带宽5G"),
    ],
)
def test_chinese_values_are_read_as_values(said: str, pin: str) -> None:
    assert not pin_unsupported(pin, source(said))


@pytest.mark.parametrize(
    ("said", "pin"),
    [
        ("婚礼定在五月二十号。", "婚礼定在五月二十一号。"),
        ("婚礼定在五月二十号。", "婚礼定在6月20日。"),
        ("宾客大概一百二十人。", "宾客两百人。"),
        ("我们住北京鹏润国际大酒店。", "住在北京希尔顿国际大酒店。"),
        ("前端还是用Vue吧。", "前端用React。"),
        ("每周三开会。", "每周五开会。"),
        ("附件大小上限改成20MB。", "附件上限30MB"),
    ],
)
def test_a_chinese_value_nobody_said_is_dropped(said: str, pin: str) -> None:
    assert pin_unsupported(pin, source(said))


def test_numbers_are_compared_by_value() -> None:
    readings = number_readings("budget 40,000 or 40 000, 3.50 each, 2.5m users, 4万, forty")
    assert {"40000", "3.5", "2.5", "2500000", "40"} <= readings
    assert zh_number("八千八") == 8800 and zh_number("一百二十") == 120
    assert zh_number("四万") == 40000 and zh_number("十二") == 12


def test_a_sentence_s_first_word_and_small_words_are_not_names() -> None:
    assert anchors("We decided it. OK, I'm in.") == []
    assert [a.kind for a in anchors("PostgreSQL is the database.")] == ["name"]


# --- the verdict ----------------------------------------------------------------------------


def test_a_refused_pin_refuses_the_whole_output() -> None:
    asked = request(*CONVERSATION)
    out = CompactionOutput(
        summary="The team chose PostgreSQL.",
        pinned_decisions=["We use PostgreSQL.", "<tool_call>x</tool_call>"],
    )
    assert inspect(asked, out).refused == "markup"


def test_dropped_pins_leave_the_rest_of_the_output() -> None:
    asked = request(*CONVERSATION, pins=("The launch is on 1 July.",))
    out = CompactionOutput(
        summary="The team chose PostgreSQL; the budget is 40,000 euros.",
        pinned_decisions=[
            "The launch is on 1 July.",
            "We use PostgreSQL.",
            "The budget is 1,000,000 euros.",
        ],
        replaced_decisions=["The launch is on 1 July."],
    )
    verdict = inspect(asked, out)
    assert verdict.refused is None and verdict.dropped == 1
    assert verdict.output.pinned_decisions == ["The launch is on 1 July.", "We use PostgreSQL."]
    assert verdict.output.summary == out.summary
    assert verdict.output.replaced_decisions == out.replaced_decisions


def _turns(path: Path) -> list[list[str]]:
    return [t for s in json.loads(path.read_text())["sessions"] for t in s["turns"]]


CONVERSATIONS = {
    p.stem: _turns(p)
    for p in sorted([*DATA.glob("conversations/*.json"), *DATA.glob("casual/*.json")])
}


@pytest.mark.parametrize("name", sorted(CONVERSATIONS))
async def test_the_extractive_compactor_s_folds_all_pass(name: str) -> None:
    """Every fold of the test conversations by the extractive compactor (verbatim text of
    the conversation) passes the gate whole: no honest fold is refused or loses a pin."""
    compactor = ExtractiveCompactor(LIMITS)
    state = ThreadState()
    folds = 0
    for n, (user, assistant) in enumerate(CONVERSATIONS[name]):
        new = [message(user, "user", n), message(assistant, "assistant", n)]
        state = state.model_copy(update={"messages": [*state.messages, *new]})
        if (asked := split_window(state, LIMITS)) is None:
            continue
        out = await compactor.compact(asked)
        assert inspect(asked, out) == Verdict(out), (n, out)
        state = fold(state, asked, out, LIMITS, compactor="extractive")
        folds += 1
    assert folds >= 5


def test_every_pattern_starts_with_a_literal() -> None:
    """The gate runs on every compaction: each pattern is searched only where its literal
    start is in the text (``Cues``), so every pattern of ``gate.toml`` must have one."""
    from aimind_memory.memory.compaction import gate

    assert literal_prefix(r"error code:? ?\d{3}\b") == "error code"
    assert literal_prefix(r"gateway time-?out\b") == "gateway time"
    assert literal_prefix(r"\{\s*'[^'\n]{1,64}'\s*:") == "{"
    cues = (gate.ERROR_TEXT, gate.ERROR_SENTENCE, gate.MARKUP, gate.CALL_ARGUMENTS)
    for cue in (*cues, gate.ECHO_REQUEST):
        for prefix, pattern in cue.patterns:
            assert prefix, pattern.pattern
