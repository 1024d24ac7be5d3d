"""The forbidden-field guard (contract §9, §12.7): keys in any case/spelling, at any depth."""

from __future__ import annotations

import re

import pytest

from aimind_memory.memory import assert_no_forbidden_fields
from aimind_memory.memory.errors import ForbiddenFieldError
from aimind_memory.memory.views.guard import FORBIDDEN_FIELDS

SPEC_LIST = """apiKey, checkpoint, cookie, deliveryChain, displayKind, graphState, mcpEnvelope,
providerConfig, providerResponse, rawCheckpoint, rawPrompt, resourceContent, runtimeArtifact,
sessionId, source, stack, subagentInvocation, subagentResult, toolArgs, toolCall, toolMessage,
toolResult, turnId, tasklist, workflowProgress, secret, password, authorization"""
SPEC_FIELDS = sorted(k.strip() for k in SPEC_LIST.split(","))


def _words(camel: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[a-z]+|[A-Z][a-z]*", camel)]


def spellings(camel: str) -> set[str]:
    words = _words(camel)
    snake, kebab = "_".join(words), "-".join(words)
    return {
        camel,
        snake,
        kebab,
        snake.upper(),
        kebab.upper(),
        camel.upper(),
        camel.lower(),
        "-".join(w.capitalize() for w in words),  # Tool-Args
        "".join(w.capitalize() for w in words),  # ToolArgs
        "_" + snake,  # _tool_args
    }


def test_the_list_is_exactly_the_spec_list() -> None:
    assert sorted(FORBIDDEN_FIELDS) == SPEC_FIELDS


@pytest.mark.parametrize("field", SPEC_FIELDS)
def test_every_field_in_every_spelling_at_any_depth(field: str) -> None:
    for key in spellings(field):
        shapes = [
            {key: "x"},
            {"threadId": "t", "messages": [{"id": "1", "text": "hi", key: None}]},
            {"a": [[{"b": ({"c": {key: {}}},)}]]},
            [{"ok": 1}, {"deep": [{"deeper": [{key: []}]}]}],
        ]
        for shape in shapes:
            with pytest.raises(ForbiddenFieldError):
                assert_no_forbidden_fields(shape)


def test_spellings_cover_snake_kebab_and_upper() -> None:
    assert {"tool_args", "tool-args", "TOOL_ARGS", "Tool-Args", "toolArgs"} <= spellings("toolArgs")


def test_values_are_not_judged() -> None:
    dto = {
        "threadId": "chat:abc",
        "messages": [
            {"id": "1", "role": "user", "text": "my password is in the checkpoint source stack"},
            {"id": "2", "role": "assistant", "text": "toolArgs secret apiKey cookie"},
        ],
        "pinnedDecisions": ["sessionId", "tool_args", "graphState"],
        "summaryPreview": "authorization",
        "restored": True,
    }
    assert_no_forbidden_fields(dto)
    assert_no_forbidden_fields(["checkpoint", ("secret", "stack"), {"text": "rawPrompt"}])


def test_similar_but_allowed_keys_pass() -> None:
    assert_no_forbidden_fields(
        {
            "sources": 1,
            "stacked": 2,
            "secretary": 3,
            "toolbox": 4,
            "checkpoints_count": 5,
            "threadId": 6,
            "createdAt": 7,
            "pinnedDecisions": 8,
            9: "non-string key",
        }
    )


def test_the_error_names_where_without_the_value() -> None:
    with pytest.raises(ForbiddenFieldError) as raised:
        assert_no_forbidden_fields({"messages": [{"Tool-Result": "the private value"}]})
    assert "Tool-Result" in str(raised.value) and "the private value" not in str(raised.value)
