"""A patch of a server's internals that applies only where it was reviewed.

Why one helper: what reaches into ``langgraph dev``'s or Aegra's own classes
(``adapters.server.langgraph_dev.run_queue`` and ``.delta_history``,
``adapters.server.aegra.runs``) is safe only in the server it was written for, at the
exact package versions reviewed, and must be easy to turn off to compare with the
server as shipped. Each of them is one ``GatedPatch``: its switch (``<ENV>=0``), the
server it belongs in, the versions reviewed, what it installs, and the one line the
server logs at start saying whether it is on and why not.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from aimind_memory.adapters.engine import unreviewed_versions
from aimind_memory.adapters.settings import AdapterSettings, adapter_settings

__all__ = ["GatedPatch"]

Place = Callable[[Mapping[str, str] | None], str | None]
"""Why this process is not the server a patch belongs in, or None when it is."""


@dataclass(frozen=True)
class GatedPatch:
    """One version-gated patch; ``activate`` installs it where it applies, once."""

    label: str
    """What it is, as the log line starts: ``dev run queue wake-up``."""
    switch: str
    """The ``AdapterSettings`` field that turns it off: ``<its variable>=0`` leaves the
    server as shipped."""
    reviewed: Mapping[str, str]
    """The exact versions of the packages whose internals it reaches into."""
    place: Place
    install: Callable[[], None]
    """Installs the patch; called once per process, and only where it applies."""
    effect: str
    """What it changes, in the log line: ``a new run starts at once ...``."""
    log: logging.Logger
    _active: dict[str, bool] = field(default_factory=dict, repr=False)

    @property
    def switch_env(self) -> str:
        """The variable of ``switch``."""
        return AdapterSettings.env_name(self.switch)

    def unreviewed(self, environ: Mapping[str, str] | None = None) -> str | None:
        """Why this process is not the reviewed server, or None (the switch aside)."""
        return self.place(environ) or unreviewed_versions(self.reviewed)

    def inactive_reason(self, environ: Mapping[str, str] | None = None) -> str | None:
        """Why the patch stays off in this process, or None when it applies."""
        if not getattr(adapter_settings(environ), self.switch):
            return f"{self.switch_env}=0"
        return self.unreviewed(environ)

    def activate(self) -> bool:
        """Install the patch when it applies; log one line saying whether it did.

        Called when the server loads our app (or auth), before any run. Idempotent: a
        second call changes nothing and logs nothing.
        """
        if "active" in self._active:
            return self._active["active"]
        reason = self.inactive_reason()
        if reason is None:
            self.install()
            self.log.info(
                "%s: active (%s; %s=0 turns it off)", self.label, self.effect, self.switch_env
            )
        else:
            self.log.info("%s: inactive (%s)", self.label, reason)
        self._active["active"] = reason is None
        return reason is None
