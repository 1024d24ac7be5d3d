"""Fixtures of the memory tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aimind_memory.memory.compaction.analysis import booking


@pytest.fixture(autouse=True)
def _offline_profile(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """A test marked ``booking`` runs with the offline engine's booking profile on
    (``analysis.booking``), as ``AIMIND_OFFLINE_PROFILE=booking`` gives it to memory opened
    in the test too; every other test with the general rules."""
    if request.node.get_closest_marker("booking") is None:
        yield
        return
    monkeypatch.setenv("AIMIND_OFFLINE_PROFILE", "booking")
    booking.use("booking")
    yield
    booking.use("general")
