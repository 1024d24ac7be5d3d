"""No cross-site writes (contract §8): a change made with the session cookie alone comes from
this server's own page, as JSON.

Why: the chat page's session is an ``HttpOnly; SameSite=Lax`` cookie, and both servers
take it for every route (``adapters.server.session_token``). ``SameSite`` does not stop a
page on another *port* of the same host: that is the same site, so the browser sends
the cookie. Such a page can ``fetch(url, {method: "POST", mode: "no-cors", credentials:
"include", body})`` with ``Content-Type: text/plain`` — a "simple" request, sent with no
preflight — or submit an HTML form; both servers read that body as JSON, so
``/runs/wait`` ran a turn as the victim and pinned what the attacker wrote.

The rule, for a request whose session comes from the cookie (a well-formed token, and no
``X-AIMind-Session``, ``Authorization`` or ``X-Api-Key`` header; a malformed one is a 401
as before) and whose method changes something (anything
but ``GET``, ``HEAD`` and ``OPTIONS``; every route of either server that creates,
updates, deletes or runs is one of those — runs, threads, crons, store, assistants and
our memory routes):

- its ``Content-Type`` is JSON (``application/json`` or ``…+json``): a browser sends any
  other type only on a simple request or a form, which another page can make; and
- it comes from the page's own origin: ``Sec-Fetch-Site``, when sent, is ``same-origin``
  (or ``none``, the user's own navigation), and ``Origin``, when sent, is this request's
  own ``scheme://host:port`` (the ``Host`` header, or a proxy's ``X-Forwarded-Host`` /
  ``X-Forwarded-Proto``, which another page cannot set without a preflight). A request
  with neither header comes from no browser's page: it is refused too, and told to send
  the session in a header.

Anything else is a 403 with one sentence, before any handler, auth or graph runs.
Header credentials are not affected: a page cannot make a browser add them to a
request it may send without a preflight, and the servers' CORS settings decide the rest.
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.datastructures import URL, Headers
from starlette.types import Scope

from aimind_memory.adapters.server.session_token import cookie_session

__all__ = ["CROSS_SITE_REFUSED", "CROSS_SITE_STATUS", "cross_site_refusal"]

CROSS_SITE_STATUS = 403
CROSS_SITE_REFUSED = (
    "A change sent with only the session cookie must come from this server's own page as "
    "application/json: other clients send the session in the X-AIMind-Session, "
    "Authorization or X-Api-Key header."
)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
OWN_PAGE_SITES = frozenset({"same-origin", "none"})
"""``Sec-Fetch-Site`` values of a request the page itself (or the user) made."""
DEFAULT_PORTS = {"http": 80, "https": 443}


def is_json(content_type: str | None) -> bool:
    media = (content_type or "").split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def _first(value: str | None) -> str | None:
    """The first entry of a proxy's comma-separated header (the client's side)."""
    first = (value or "").split(",", 1)[0].strip()
    return first or None


def _origin_of(scheme: str, host: str) -> tuple[str, str, int] | None:
    """``(scheme, hostname, port)`` of ``scheme://host``; None when it is not a URL's."""
    try:
        url = URL(f"{scheme}://{host}")
        port = url.port or DEFAULT_PORTS.get(url.scheme)
    except ValueError:  # a port that is not a number
        return None
    if not url.hostname or port is None:
        return None
    return url.scheme.lower(), url.hostname.lower(), port


def _own_origins(scope: Scope, headers: Mapping[str, str]) -> set[tuple[str, str, int]]:
    """The origins this request was sent to: its own URL's, and as a proxy in front saw it."""
    own = URL(scope=scope)
    schemes = {own.scheme, _first(headers.get("x-forwarded-proto")) or own.scheme}
    hosts = {own.netloc, _first(headers.get("x-forwarded-host")) or own.netloc}
    found = (_origin_of(scheme, host) for scheme in schemes for host in hosts)
    return {origin for origin in found if origin is not None}


def _from_own_page(scope: Scope, headers: Mapping[str, str]) -> bool:
    site = headers.get("sec-fetch-site")
    if site is not None and site.strip().lower() not in OWN_PAGE_SITES:
        return False
    origin = headers.get("origin")
    if origin is None:
        return site is not None
    scheme, _, rest = origin.strip().partition("://")
    said = _origin_of(scheme, rest) if rest and "/" not in rest else None
    return said is not None and said in _own_origins(scope, headers)


def cross_site_refusal(scope: Scope) -> str | None:
    """The sentence for a 403 when an HTTP request is a change that only the session
    cookie authenticates and that is not JSON from the page's own origin; else None."""
    if scope["type"] != "http" or scope["method"].upper() in SAFE_METHODS:
        return None
    headers = Headers(scope=scope)
    if not cookie_session(headers):
        return None
    if is_json(headers.get("content-type")) and _from_own_page(scope, headers):
        return None
    return CROSS_SITE_REFUSED
