"""The forbidden-field guard under hypothesis: any depth, any case, any `_`/`-` style."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aimind_memory.memory import assert_no_forbidden_fields
from aimind_memory.memory.errors import ForbiddenFieldError
from aimind_memory.memory.views.guard import FORBIDDEN_FIELDS, fold_key

FOLDED = {fold_key(k) for k in FORBIDDEN_FIELDS}

safe_keys = st.one_of(
    st.text(max_size=12).filter(lambda k: fold_key(k) not in FOLDED),
    st.sampled_from(["threadId", "messages", "text", "tool_argsX", "sources", "stacks", "id"]),
    st.integers(),
)
# values are never judged: forbidden names as values are fine
leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.sampled_from(sorted(FORBIDDEN_FIELDS)),
)
safe_trees = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.tuples(children, children),
        st.dictionaries(safe_keys, children, max_size=4),
    ),
    max_leaves=25,
)


@st.composite
def styled_forbidden(draw: st.DrawFn) -> str:
    """A forbidden name with random case per letter and `_`/`-` sprinkled anywhere."""
    name = draw(st.sampled_from(sorted(FORBIDDEN_FIELDS)))
    out = []
    for ch in name:
        out.append(draw(st.sampled_from(["", "", "", "_", "-", "__"])))
        out.append(ch.upper() if draw(st.booleans()) else ch.lower())
    out.append(draw(st.sampled_from(["", "_", "-"])))
    return "".join(out)


@st.composite
def trees_with_forbidden(draw: st.DrawFn) -> tuple[Any, str]:
    """A safe tree with one forbidden key hidden at a random depth and position."""
    key = draw(styled_forbidden())
    node: Any = draw(st.dictionaries(safe_keys, safe_trees, max_size=3))
    node[key] = draw(safe_trees)
    for _ in range(draw(st.integers(min_value=0, max_value=6))):
        siblings = draw(st.lists(safe_trees, max_size=3))
        kind = draw(st.sampled_from(["list", "tuple", "dict"]))
        if kind == "dict":
            wrapper = draw(st.dictionaries(safe_keys, safe_trees, max_size=3))
            wrapper[draw(safe_keys)] = node
            node = wrapper
        else:
            siblings.insert(draw(st.integers(0, len(siblings))), node)
            node = siblings if kind == "list" else tuple(siblings)
    return node, key


@settings(max_examples=300, deadline=None)
@given(trees_with_forbidden())
def test_a_forbidden_key_anywhere_always_raises(case: tuple[Any, str]) -> None:
    tree, key = case
    with pytest.raises(ForbiddenFieldError) as err:
        assert_no_forbidden_fields(tree)
    assert repr(key) in str(err.value)


@settings(max_examples=300, deadline=None)
@given(safe_trees)
def test_trees_without_forbidden_keys_never_raise(tree: Any) -> None:
    assert_no_forbidden_fields(tree)


@pytest.mark.parametrize("key", ["tool_args", "Tool-Args", "TOOLARGS", "raw_checkpoint", "Api-Key"])
def test_spec_examples_are_caught(key: str) -> None:
    with pytest.raises(ForbiddenFieldError):
        assert_no_forbidden_fields({"ok": [{"nested": {key: 1}}]})
