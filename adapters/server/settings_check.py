"""Both servers' first import: every setting validated before anything reads one.

``auth.py`` and ``app.py`` import this module before anything else, because the modules
they import read settings as they load (the Studio identity, the engine's switches, the
session secret): a malformed value found there would stop the server with a traceback of
the server's loader around it. Found here, it stops the server with one sentence naming
the variable on stderr and exit status 1 (``adapters.settings.exit_on_bad_settings``) —
and never leaves Aegra serving without our auth. The session secret is checked here too:
in production a missing one stops the start (``configured_secret``), and Aegra loads the
app, whose routes need the secret, before the auth. In production memory must be on
PostgreSQL too (``check_served_database``). Python imports a module once: this runs once,
at start-up. It reads the environment only: importing writes no file — the development
secret is made when the server first needs it (``session_token.server_secret``).
"""

from aimind_memory.adapters.settings import (
    check_served_database,
    check_settings,
    exit_on_bad_settings,
)
from aimind_memory.memory.session import configured_secret

with exit_on_bad_settings():
    check_settings()
    configured_secret()
    check_served_database()
