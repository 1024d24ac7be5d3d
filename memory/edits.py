"""A user's corrections of memory, as pure changes of a ``ThreadState`` (contract §9a).

The service writes each one like a turn (under the thread's lock, compare-and-put),
so an edit and a racing turn or compaction never lose each other; these functions
only say what the state becomes, or raise a ``MemoryEditError`` whose sentence the
user can read.

- **pin** a text ("remember this"): a user pin; an equivalent pin becomes the user's;
  past the cap the weakest compactor pin goes, and when every pin is the user's the
  pin is refused (``PinLimitError``). Its source is the message it was taken from:
  memory's copy while that message is in the window, else the message as the user
  describes it (``_sources``);
- **edit** a pin: its text changes, its id and provenance stay, it becomes the user's;
  its old text is remembered as an unpinned one is, so no compaction pins the old
  wording again (one running while the user edited included: contract §9a, "An edit
  survives a landing compaction");
- **unpin**: it goes, and its text is remembered so no compaction pins it again;
- **set the summary**: the user's text is the summary new turns fold onto.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import get_args

from aimind_memory.memory.compaction.pins import evict, remember_unpinned, sources_for
from aimind_memory.memory.compaction.pins import excerpt as excerpt_of
from aimind_memory.memory.config.limits import MemoryLimits
from aimind_memory.memory.errors import (
    PinLimitError,
    PinNotFoundError,
    PinSourceError,
    PinTextError,
    SummaryTextError,
)
from aimind_memory.memory.models import Pin, PinSource, Role, ThreadState, utcnow
from aimind_memory.memory.text import clean_text, normalize, storable_id

__all__ = ["find_pin", "pin_text", "with_pin", "with_pin_edited", "with_summary", "without_pin"]

PINNED_BY_USER = "pinned by you"
"""The ``why`` of a pin the user made (contract §5, "Memory says why")."""
EDITED_BY_USER = "edited by you"
"""The ``why`` of a pin whose text the user changed: the words are the user's now."""


def pin_text(text: object, limits: MemoryLimits) -> str:
    """``text`` cleaned like message text, or PinTextError when blank or too long."""
    cleaned = clean_text(text)
    if cleaned is None:
        raise PinTextError("A pin needs some text.")
    if len(cleaned) > limits.pin_chars:
        raise PinTextError(f"A pin is at most {limits.pin_chars} characters.")
    return cleaned


def find_pin(state: ThreadState, pin_id: str) -> Pin:
    for pin in state.pins:
        if pin.id == pin_id:
            return pin
    raise PinNotFoundError()


def _sources(
    state: ThreadState,
    text: str,
    message_id: str | None,
    role: Role | None,
    created_at: datetime | None,
    excerpt: str | None,
    now: datetime,
) -> tuple[PinSource, ...]:
    """The message the user pinned ``text`` from, as the pin's source.

    While that message is in memory's window, memory's copy of it (its role, time and
    words) is the source, whatever the caller says of it. The page shows the whole
    conversation, though, and memory keeps only its window: for an older message the
    source is the message as the caller describes it — ``role``, ``created_at`` when it
    is known (never later than the pin) and ``excerpt``, the message's words the pin was
    taken from (default: the pin's text, which "Remember" takes word for word; memory
    keeps ``PIN_EXCERPT_CHARS`` of them, from where the pin's text is said). The user
    is the authority on where their own pin came from: the description names a message
    of their own conversation, in their own memory, and changes nothing else. Without a
    ``role`` an older message is not named (as before: no source).
    """
    if not message_id:
        if (role, created_at, excerpt) != (None, None, None):
            raise PinSourceError("A message's role, time or excerpt need the message's id.")
        return ()
    if role is not None and role not in get_args(Role):
        raise PinSourceError('A message\'s role is "user" or "assistant".')
    message_id = storable_id(message_id)
    message = next((m for m in state.messages if m.id == message_id), None)
    if message is not None:
        return sources_for(text, "extractive", [message])
    if role is None:
        return ()
    said = (clean_text(excerpt) if excerpt is not None else None) or text
    when = created_at.replace(tzinfo=created_at.tzinfo or UTC) if created_at else None
    return (
        PinSource(
            message_id=message_id,
            role=role,
            excerpt=excerpt_of(said, text),
            created_at=min(when, now) if when else None,
        ),
    )


def with_pin(
    state: ThreadState,
    text: object,
    limits: MemoryLimits,
    *,
    message_id: str | None = None,
    role: Role | None = None,
    created_at: datetime | None = None,
    excerpt: str | None = None,
) -> tuple[ThreadState, Pin]:
    """``state`` with ``text`` pinned by the user, and that pin. ``message_id`` names the
    message it was taken from; ``role``, ``created_at`` and ``excerpt`` describe that
    message when it is older than memory's window (``_sources``)."""
    text = pin_text(text, limits)
    now = utcnow()
    sources = _sources(state, text, message_id, role, created_at, excerpt, now)
    key = normalize(text)
    unpinned = [k for k in state.unpinned if k != key]
    same = next((p for p in state.pins if normalize(p.text) == key), None)
    if same is not None:  # pinned already: now the user's
        mine = {"origin": "user", "why": PINNED_BY_USER}
        pin = same if same.origin == "user" else same.model_copy(update=mine)
        pins = [pin if p.id == same.id else p for p in state.pins]
        return state.model_copy(update={"pins": pins, "unpinned": unpinned}), pin
    pin = Pin(text=text, origin="user", pinned_at=now, sources=sources, why=PINNED_BY_USER)
    pins = [*state.pins, pin]
    if len(pins) > limits.pinned_max and all(p.origin == "user" for p in state.pins):
        raise PinLimitError(
            f"All {limits.pinned_max} pins are yours: unpin or edit one to pin another."
        )
    pins = evict(pins, limits.pinned_max)
    return state.model_copy(update={"pins": pins, "unpinned": unpinned}), pin


def with_pin_edited(
    state: ThreadState, pin_id: str, text: object, limits: MemoryLimits
) -> tuple[ThreadState, Pin]:
    """``state`` with pin ``pin_id`` saying ``text`` (now the user's), and that pin. Another
    pin saying the same goes: one pin per decision. The old text joins ``unpinned``: a
    compaction that read it before the edit (the model was shown it, or folded the
    messages that said it) cannot pin it again beside its correction."""
    old = find_pin(state, pin_id)
    text = pin_text(text, limits)
    changed = {"text": text, "origin": "user", "why": EDITED_BY_USER, "edited_at": utcnow()}
    pin = old.model_copy(update=changed)
    key = normalize(text)
    pins = [
        pin if p.id == pin_id else p
        for p in state.pins
        if p.id == pin_id or normalize(p.text) != key
    ]
    unpinned = [k for k in state.unpinned if k != key]
    if normalize(old.text) != key:  # the old wording goes as an unpin's does
        unpinned = remember_unpinned(unpinned, old.text)
    return state.model_copy(update={"pins": pins, "unpinned": unpinned}), pin


def without_pin(state: ThreadState, pin_id: str) -> tuple[ThreadState, Pin]:
    """``state`` without pin ``pin_id`` (its text remembered as unpinned), and that pin."""
    gone = find_pin(state, pin_id)
    pins = [p for p in state.pins if p.id != pin_id]
    unpinned = remember_unpinned(state.unpinned, gone.text)
    return state.model_copy(update={"pins": pins, "unpinned": unpinned}), gone


def with_summary(state: ThreadState, text: object, limits: MemoryLimits) -> ThreadState:
    """``state`` with the user's summary (blank clears it), or SummaryTextError."""
    if not isinstance(text, str):
        raise SummaryTextError("The summary must be text.")
    summary = clean_text(text) or ""
    if len(summary) > limits.summary_chars:
        raise SummaryTextError(f"The summary is at most {limits.summary_chars} characters.")
    return state.model_copy(update={"summary": summary})
