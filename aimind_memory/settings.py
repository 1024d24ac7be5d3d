"""Every setting in one place: the environment variables memory, the servers, the tools
and the scripts read, each declared once (pydantic-settings) with its type, its default
and one sentence.

    from aimind_memory.settings import configuration_rows, memory_settings

    memory_settings().recent_turns          # the environment as it is now, validated
    for row in configuration_rows():        # the docs' configuration table
        print(row.name, row.type, row.default, row.description, row.component)

A malformed value raises ``SettingsError`` (``aimind_memory.AIMindError``) with one
sentence naming the variable; ``open_memory``, both servers and the ``aimind`` command
check them when they start. Nothing is read from a ``.env`` file: export the variables.
The benchmark's own (``AIMIND_BENCH_*``, a checkout only) are ``bench.settings``.
"""

from aimind_memory.adapters.settings import (
    SETTINGS_CLASSES,
    AdapterSettings,
    ScriptSettings,
    adapter_settings,
    check_settings,
    script_settings,
)
from aimind_memory.memory.config.settings import (
    MemorySettings,
    SettingRow,
    memory_settings,
    setting_rows,
)
from aimind_memory.memory.errors import SettingsError

__all__ = [
    "SETTINGS",
    "AdapterSettings",
    "MemorySettings",
    "ScriptSettings",
    "SettingRow",
    "SettingsError",
    "adapter_settings",
    "check_settings",
    "configuration_rows",
    "memory_settings",
    "script_settings",
]

SETTINGS = SETTINGS_CLASSES
"""Every settings class, in the order the configuration table lists them."""


def configuration_rows() -> list[SettingRow]:
    """Every setting as a row of the configuration table — ``name`` (the environment
    variable), ``type``, ``default``, ``description`` (one sentence) and ``component``
    (``memory``, ``servers and tools`` or ``scripts``) — in declaration order."""
    return [row for settings in SETTINGS for row in setting_rows(settings)]
