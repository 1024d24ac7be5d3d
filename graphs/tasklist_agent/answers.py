"""Whether a typed message approves a pending review (contract §8a), in English and Chinese.

A reviewer may answer a review by typing into the chat box instead of pressing a
button. The message approves only when everything in it is approval or politeness
("approve", "looks good!", "OK, thanks", "同意", "好的，谢谢", "👍"); anything else — a
negation ("not approved", "不同意"), a condition ("approve, but add a press kit"), a
question — asks for a revision with the message as the instruction. The test is a cover
of the message by known phrases, so a phrase never approves by merely appearing in it.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["approves"]

APPROVALS = (
    "approve", "approved", "approves", "approving", "approval", "accept", "accepted",
    "looks good", "look good", "looking good", "looks great", "looks fine", "looks ok",
    "looks okay", "sounds good", "sounds great", "good", "great", "fine", "perfect",
    "excellent", "nice", "lgtm", "ok", "okay", "k", "yes", "yep", "yeah", "yup", "sure",
    "confirm", "confirmed", "agreed", "agree", "go ahead", "go for it", "ship it", "do it",
    "proceed", "all good", "good to go", "works for me", "that works", "done", "finalize",
    "finalise", "final", "✅", "👍", "👌",
    "同意", "批准", "通过", "可以", "好的", "好", "行", "没问题", "没有问题", "确认", "确定",
    "就这样", "就这么办", "按这个来", "不错", "很好", "挺好", "完美", "赞", "对", "是的",
    "嗯", "好滴", "好嘞", "定了", "就它了",
)  # fmt: skip
"""Approval phrases; a Chinese phrase is matched character by character."""
FILLERS = (
    "please", "thanks", "thank you", "thx", "cheers", "so much", "very much", "really",
    "i", "we", "it", "is", "s", "this", "that", "the", "plan", "tasklist", "tasks", "list",
    "all", "now", "then", "and", "just", "totally", "absolutely", "me", "to", "for",
    "谢谢", "谢了", "辛苦了", "了", "啦", "吧", "呀", "啊", "哦", "的", "这个", "计划",
    "方案", "任务", "清单", "就", "我",
)  # fmt: skip
"""Politeness and pointers that may stand beside an approval without changing it."""

_TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\W\d_]+|\d+|[✅👍👌]")


def _tokens(text: str) -> tuple[str, ...]:
    """Words (Latin) and single characters (CJK), lower-cased; punctuation dropped."""
    return tuple(_TOKEN.findall(text.lower()))


@lru_cache(maxsize=1)
def _phrases() -> tuple[frozenset[tuple[str, ...]], frozenset[tuple[str, ...]], int]:
    approvals = frozenset(_tokens(p) for p in APPROVALS)
    fillers = frozenset(_tokens(p) for p in FILLERS)
    return approvals, fillers, max(len(p) for p in approvals | fillers)


def approves(message: str) -> bool:
    """True when ``message`` is an approval and nothing else (see the module docstring)."""
    approvals, fillers, longest = _phrases()
    tokens = _tokens(message)
    if not tokens:
        return False
    # reach[i]: tokens[:i] is covered, and whether an approval phrase was used so far
    reach: list[set[bool]] = [set() for _ in range(len(tokens) + 1)]
    reach[0].add(False)
    for start in range(len(tokens)):
        if not reach[start]:
            continue
        for size in range(1, min(longest, len(tokens) - start) + 1):
            piece = tokens[start : start + size]
            for approved in tuple(reach[start]):
                if piece in approvals:
                    reach[start + size].add(True)
                elif piece in fillers:
                    reach[start + size].add(approved)
    return True in reach[len(tokens)]
