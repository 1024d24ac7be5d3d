"""AI Mind memory: bounded short-term chat memory for LangGraph agents.

The one import path for users (contract §13b). Everything here is the library and
the middleware, and installs alone (``pip install`` of a checkout, its wheel or its git URL):

```python
from aimind_memory import ChatMemoryMiddleware, open_memory, FinalTurn

agent = create_agent(model, tools, middleware=[ChatMemoryMiddleware()])

async with open_memory() as memory:          # AIMIND_DATABASE_URL, else embedded SQLite
    await memory.append_turn(token, FinalTurn(user_text=..., assistant_text=...,
                                              status="completed"))
```

``aimind_memory.server`` holds ``auth`` and ``app`` for a ``langgraph.json`` or
``aegra.json`` of your own (the ``[server]`` extra); ``aimind_memory.settings``
every environment variable it reads. Every error this package raises derives from
``AIMindError``.

The repository's ``memory``, ``adapters`` and ``graphs`` packages are its internals:
import from here, they may move.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__: str
"""The installed version (``importlib.metadata``), e.g. ``"0.2.0"``."""

if TYPE_CHECKING:  # for type checkers; at run time ``__getattr__`` imports on first use
    from aimind_memory.adapters.chat_memory.middleware import ChatMemoryMiddleware
    from aimind_memory.adapters.errors import MemoryNotServedError, MemoryThreadError
    from aimind_memory.adapters.models import chat_model, offline_chat_model
    from aimind_memory.memory import (
        AppendResult,
        CompactionOutput,
        CompactionRequest,
        Compactor,
        ExtractiveCompactor,
        FinalTurn,
        LLMCompactor,
        MemoryLimits,
        MemoryService,
        MemorySnapshot,
        Pin,
        PinSource,
        ReadsAhead,
        RecallHit,
        Signals,
        ThreadState,
        assert_no_forbidden_fields,
        build_context,
        explain,
        memory_messages,
        open_checkpointer,
        open_memory,
    )
    from aimind_memory.memory.errors import (
        AIMindError,
        DatabaseUnreachableError,
        DatabaseURLError,
        ForbiddenFieldError,
        InvalidSessionError,
        LimitsError,
        MemoryEditError,
        MemoryUnavailableError,
        PinLimitError,
        PinNotFoundError,
        PinSourceError,
        PinTextError,
        SecretConfigError,
        SettingsError,
        SummaryTextError,
        UnknownSettingWarning,
    )

__all__ = [
    "AIMindError",
    "AppendResult",
    "ChatMemoryMiddleware",
    "CompactionOutput",
    "CompactionRequest",
    "Compactor",
    "DatabaseURLError",
    "DatabaseUnreachableError",
    "ExtractiveCompactor",
    "FinalTurn",
    "ForbiddenFieldError",
    "InvalidSessionError",
    "LLMCompactor",
    "LimitsError",
    "MemoryEditError",
    "MemoryLimits",
    "MemoryNotServedError",
    "MemoryService",
    "MemorySnapshot",
    "MemoryThreadError",
    "MemoryUnavailableError",
    "Pin",
    "PinLimitError",
    "PinNotFoundError",
    "PinSource",
    "PinSourceError",
    "PinTextError",
    "ReadsAhead",
    "RecallHit",
    "SecretConfigError",
    "SettingsError",
    "Signals",
    "SummaryTextError",
    "ThreadState",
    "UnknownSettingWarning",
    "assert_no_forbidden_fields",
    "build_context",
    "chat_model",
    "explain",
    "memory_messages",
    "offline_chat_model",
    "open_checkpointer",
    "open_memory",
]

_HOME: dict[str, str] = {
    "AIMindError": "aimind_memory.memory.errors",
    "AppendResult": "aimind_memory.memory",
    "ChatMemoryMiddleware": "aimind_memory.adapters.chat_memory.middleware",
    "CompactionOutput": "aimind_memory.memory",
    "CompactionRequest": "aimind_memory.memory",
    "Compactor": "aimind_memory.memory",
    "ReadsAhead": "aimind_memory.memory",
    "DatabaseURLError": "aimind_memory.memory.errors",
    "DatabaseUnreachableError": "aimind_memory.memory.errors",
    "ExtractiveCompactor": "aimind_memory.memory",
    "FinalTurn": "aimind_memory.memory",
    "ForbiddenFieldError": "aimind_memory.memory.errors",
    "InvalidSessionError": "aimind_memory.memory.errors",
    "LLMCompactor": "aimind_memory.memory",
    "LimitsError": "aimind_memory.memory.errors",
    "MemoryEditError": "aimind_memory.memory.errors",
    "MemoryLimits": "aimind_memory.memory",
    "MemoryNotServedError": "aimind_memory.adapters.errors",
    "MemoryService": "aimind_memory.memory",
    "MemorySnapshot": "aimind_memory.memory",
    "MemoryThreadError": "aimind_memory.adapters.errors",
    "MemoryUnavailableError": "aimind_memory.memory.errors",
    "Pin": "aimind_memory.memory",
    "PinLimitError": "aimind_memory.memory.errors",
    "PinNotFoundError": "aimind_memory.memory.errors",
    "PinSource": "aimind_memory.memory",
    "PinSourceError": "aimind_memory.memory.errors",
    "PinTextError": "aimind_memory.memory.errors",
    "RecallHit": "aimind_memory.memory",
    "SecretConfigError": "aimind_memory.memory.errors",
    "SettingsError": "aimind_memory.memory.errors",
    "Signals": "aimind_memory.memory",
    "SummaryTextError": "aimind_memory.memory.errors",
    "ThreadState": "aimind_memory.memory",
    "UnknownSettingWarning": "aimind_memory.memory.errors",
    "assert_no_forbidden_fields": "aimind_memory.memory",
    "build_context": "aimind_memory.memory",
    "explain": "aimind_memory.memory",
    "chat_model": "aimind_memory.adapters.models",
    "memory_messages": "aimind_memory.memory",
    "offline_chat_model": "aimind_memory.adapters.models",
    "open_checkpointer": "aimind_memory.memory",
    "open_memory": "aimind_memory.memory",
}
"""Where each public name lives. Importing ``aimind_memory`` (and so every module inside
it: the package runs first) loads none of them: LangChain's agents, the model provider
and the service cost a process seconds of imports (``agents.SQLiteSession`` is lazy the
same way); each loads on first use."""


_DISTRIBUTION = "aimind-memory"
"""The distribution's name: what ``pip`` installs and its metadata says."""
_LOADED_ON_USE = {"ChatMemoryMiddleware"}
"""Classes whose name costs nothing until the class is used (``_ClassOnUse``)."""


def _version() -> str:
    """The installed distribution's version (``CHANGELOG.md``), read from its metadata;
    ``0+unknown`` when the package runs from files no installer recorded."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(_DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"


def _check_environment() -> None:
    """Once a process, on first use of the package: a warning naming any ``AIMIND_*``
    variable no setting declares (``adapters.settings.warn_unknown_settings``)."""
    from aimind_memory.adapters.settings import warn_unknown_settings

    warn_unknown_settings(stacklevel=3)  # the user's import: here, then __getattr__


class _ClassOnUse:
    """A class's stand-in that imports it when it is first used.

    ``ChatMemoryMiddleware`` derives from LangChain's ``AgentMiddleware``, whose package
    builds the whole agent framework when imported (about a second of CPU). A module that
    names the middleware at its top, as a served graph's file does, should not pay that
    until an agent is made. The stand-in is the class for what code does with one:
    calling it makes an instance of the real class, ``isinstance``/``issubclass`` test
    against it, a ``class Mine(ChatMemoryMiddleware)`` statement derives from it
    (``__mro_entries__``), and its attributes are the real class's. Type checkers see the
    real class (the imports under ``TYPE_CHECKING`` above).
    """

    def __init__(self, module: str, name: str) -> None:
        self._module, self._name = module, name

    def _load(self) -> type:
        cls: type = getattr(import_module(self._module), self._name)
        return cls

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._load()(*args, **kwargs)

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type]:
        return (self._load(),)

    def __instancecheck__(self, instance: Any) -> bool:
        return isinstance(instance, self._load())

    def __subclasscheck__(self, subclass: type) -> bool:
        return issubclass(subclass, self._load())

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):  # copy, pickle and the like probe these: not ours
            raise AttributeError(attribute)
        return getattr(self._load(), attribute)

    def __repr__(self) -> str:
        return f"<class '{self._module}.{self._name}' (imported on first use)>"


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    value: Any
    if name == "__version__":  # read on first use: the metadata reader costs an import
        value = _version()
    elif home is None:
        raise AttributeError(f"module 'aimind_memory' has no attribute {name!r}")
    elif name in _LOADED_ON_USE:
        value = _ClassOnUse(home, name)  # checks the environment when it is made
    else:
        value = getattr(import_module(home), name)
        _check_environment()
    globals()[name] = value  # once: later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})
