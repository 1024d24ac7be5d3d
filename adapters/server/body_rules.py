"""What a request body may hold on the few routes that mishandle a valid-looking one
(contract §8, §15).

Each rule answers, with a 422 sentence, a request the server would otherwise take and
then fail on or act on badly: before the route runs (``refusal``), or — where only the
route's data decides whether it fails — in place of the 500 it fails with
(``if_it_fails``). ``adapters.server.request_guard`` applies both. The rules, and why:

* ``POST /threads`` (and ``PATCH``) with a ``ttl``: Aegra keeps a per-thread TTL that
  ``POST /threads/prune`` (and the operator's sweeper) applies. Its ``keep_latest``
  strategy keeps a thread's latest checkpoint only; a ``chat`` thread keeps its transcript
  in a ``DeltaChannel`` (contract §8a), so pruning empties the conversation (6 messages → 0).
  A thread's graph is not known when it is created (any thread may become a chat
  thread), so ``keep_latest`` is refused on every thread; a thread created for the
  ``chat`` graph refuses any ``ttl`` (it holds the transcript, contract §15); a ``ttl``
  below ``MIN_TTL_MINUTES`` is refused (a ``keep_latest`` ttl of ``5e-324`` re-armed
  expired and was re-claimed 10,000 times per prune). A ``delete`` ttl of a minute or
  more on another thread stands: the thread is deleted with its history when it expires,
  as the client asked (chat memory is never swept: it has no thread row).
* ``POST /threads/search`` and ``/threads/count`` filtering by ``values``: ``langgraph
  dev`` raises a ``TypeError`` (a 500) as soon as the caller owns a thread without
  state yet, and works otherwise: its failure is answered with a 422 saying so
  (``if_it_fails``). (Aegra ignores the filter and returns every thread.)
* ``POST /store/items/search`` with a ``namespace_prefix`` that is not a list of
  strings: ``langgraph dev`` takes ``tuple(None)`` (a 500).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from aimind_memory.adapters.server.run_input import CHAT_GRAPH, graph_names

__all__ = ["MIN_TTL_MINUTES", "if_it_fails", "refusal", "wants_body"]

MIN_TTL_MINUTES = 1.0
KEEP_LATEST = "keep_latest"
CHAT_NAMES = graph_names(CHAT_GRAPH)
GRAPH_KEYS = ("graph_id", "assistant_id")
"""Where a thread's metadata names the graph it is for (both servers set them on a run)."""

KEEP_LATEST_REFUSED = (
    "A thread's ttl cannot use the keep_latest strategy here: it keeps only the latest "
    "checkpoint, which empties a chat thread's transcript; use the delete strategy."
)
CHAT_TTL_REFUSED = (
    "A chat thread takes no ttl: it holds the conversation's transcript (delete the thread "
    "to drop it)."
)
SHORT_TTL_REFUSED = f"A thread's ttl must be at least {MIN_TTL_MINUTES:g} minute."
VALUES_FILTER_FAILED = (
    "Threads cannot be filtered by values while one of yours has no state yet (a thread "
    "with no run): filter by metadata or status."
)
NAMESPACE_PREFIX_REFUSED = "The store search's namespace_prefix must be a list of strings."

Rule = Callable[[Mapping[str, Any]], str | None]


def _names_chat(metadata: Any) -> bool:
    return isinstance(metadata, Mapping) and any(
        str(metadata.get(key)) in CHAT_NAMES for key in GRAPH_KEYS
    )


def _ttl_minutes(ttl: Mapping[str, Any]) -> float | None:
    """The minutes of a ttl as either server reads them (the SDK's ``ttl``, Aegra's
    ``default_ttl``); None when absent or not a number (the server answers that)."""
    value = ttl.get("ttl", ttl.get("default_ttl"))
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def thread_ttl(body: Mapping[str, Any]) -> str | None:
    ttl = body.get("ttl")
    if not isinstance(ttl, Mapping):
        return None
    if ttl.get("strategy") == KEEP_LATEST:
        return KEEP_LATEST_REFUSED
    if _names_chat(body.get("metadata")):
        return CHAT_TTL_REFUSED
    minutes = _ttl_minutes(ttl)
    if minutes is not None and not (math.isfinite(minutes) and minutes >= MIN_TTL_MINUTES):
        return SHORT_TTL_REFUSED
    return None


def values_filter(body: Mapping[str, Any]) -> str | None:
    return VALUES_FILTER_FAILED if body.get("values") else None


def store_search(body: Mapping[str, Any]) -> str | None:
    if "namespace_prefix" not in body:
        return None
    prefix = body["namespace_prefix"]
    if isinstance(prefix, list) and all(isinstance(part, str) for part in prefix):
        return None
    return NAMESPACE_PREFIX_REFUSED


Rules = tuple[tuple[str, re.Pattern[str], Rule], ...]
REFUSED: Rules = (
    ("POST", re.compile(r"/threads/?"), thread_ttl),
    ("PATCH", re.compile(r"/threads/[^/]+/?"), thread_ttl),
    ("POST", re.compile(r"/store/items/search/?"), store_search),
)
"""(method, path, rule): what is refused before the route runs."""
IF_IT_FAILS: Rules = (("POST", re.compile(r"/threads/(search|count)/?"), values_filter),)
"""(method, path, rule): the sentence that answers the route's failure in place of a 500."""


def wants_body(method: str, path: str) -> bool:
    """A rule reads this request's body."""
    return any(m == method and p.fullmatch(path) for m, p, _ in (*REFUSED, *IF_IT_FAILS))


def _first(rules: Rules, method: str, path: str, body: Any) -> str | None:
    if not isinstance(body, Mapping):
        return None
    for rule_method, pattern, rule in rules:
        if rule_method == method and pattern.fullmatch(path) and (sentence := rule(body)):
            return sentence
    return None


def refusal(method: str, path: str, body: Any) -> str | None:
    """The sentence a rule refuses this request with (a 422) before its route runs, or None."""
    return _first(REFUSED, method, path, body)


def if_it_fails(method: str, path: str, body: Any) -> str | None:
    """The sentence (a 422) that answers this request if its route raises, or None."""
    return _first(IF_IT_FAILS, method, path, body)
