"""The booking profile: rules made for one domain's wording, off by default (contract §5).

Bookings, tickets and trains as the public task-oriented corpora word them — "Yes, please
book it for 6 people at 17:15", "I want to book a table …", "Booked!", "预订成功。",
"回程坐周日晚上六点的高铁", "餐厅订的是靠窗的8号桌", MultiWOZ's "is n't" — were tuned on
those corpora, so the general engine does not read them. An assistant that books things
turns them on: ``AIMIND_OFFLINE_PROFILE=booking`` (read where memory makes its default
compactor), ``ExtractiveCompactor(limits, profile="booking")`` or ``use("booking")``.

The profile is the process's: the rules are module data and their answers are cached per
sentence, so switching clears every cache of the engine (``use``). The words are data,
``booking_en.toml`` and ``booking_zh.toml``; the rule modules keep the patterns beside
their general twins and ask ``enabled()`` before they let one decide.
"""

from __future__ import annotations

import sys
from typing import get_args

from aimind_memory.memory.config.settings import OfflineProfile as Profile

PROFILES: tuple[Profile, ...] = get_args(Profile)
_ENGINE = "aimind_memory.memory.compaction"

_profile: Profile = "general"


def enabled() -> bool:
    """Whether the booking rules may decide (the process's profile is ``booking``)."""
    return _profile == "booking"


def current() -> Profile:
    """The process's profile."""
    return _profile


def use(profile: Profile) -> None:
    """Make ``profile`` the process's, clearing the engine's caches when it changes (each
    holds answers the other profile may not give)."""
    global _profile
    if profile not in PROFILES:
        raise ValueError(f"unknown offline profile {profile!r}: one of {', '.join(PROFILES)}")
    if profile == _profile:
        return
    _profile = profile
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(_ENGINE):
            continue
        for value in vars(module).values():
            if callable(clear := getattr(value, "cache_clear", None)):
                clear()
