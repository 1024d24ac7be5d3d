"""Memory's settings, declared once: every environment variable memory reads (contract §3,
§10, §11).

Each variable is one field of ``MemorySettings`` (pydantic-settings) with its type, its
default and one sentence saying what it does; ``AIMIND_<FIELD>`` unless the field names
another (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``). The servers' and the scripts' own are
in ``adapters.settings`` on the same base (``AIMindSettings``), and
``aimind_memory.settings.configuration_rows()`` lists them all for the docs.

Why read through ``memory_settings()`` and not once at import: the environment is the
configuration of whoever calls — tests and tools set a variable after import, and a
library user may set one before ``open_memory()`` — so each call sees the environment as
it is now; the object is cached per set of values (building one costs about 2 ms, looking
it up a few µs), frozen, and shared.

Why nothing else: no ``.env`` file, no secrets folder. ``langgraph dev`` fails a run
that touches a file, and settings are read inside runs (the database URL, the SQLite
busy timeout); a file beside the process would also silently override what the
operator exported. The servers read none either: ``langgraph.json`` names no ``env``
file (``langgraph dev`` would load one into its environment, and Aegra would not, so a
key in it would work in development and be missing in production without a word).

A malformed value is a ``SettingsError`` (one of its subclasses below) whose message is
one sentence naming the variable, and never the value of a secret or a URL.
"""

from __future__ import annotations

import functools
import os
import types
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal, NamedTuple, Self, Union, get_args, get_origin

from pydantic import (
    AliasGenerator,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from aimind_memory.memory.config.limits import (
    ARCHIVE_TURNS,
    COMPACTION_TIMEOUT_S,
    KEEP_TURNS,
    MESSAGE_CHAR_CAP,
    PG_POOL_MAX,
    PG_POOL_TIMEOUT_S,
    PG_RECONNECT_TIMEOUT_S,
    PIN_CHARS,
    PINNED_MAX,
    RECALL_CHARS,
    RECENT_TURNS,
    SQLITE_BUSY_TIMEOUT_S,
    SUMMARY_CHARS,
    TRUNCATION_MARKER,
    MemoryLimits,
)
from aimind_memory.memory.errors import (
    DatabaseURLError,
    LimitsError,
    SecretConfigError,
    SettingsError,
)

__all__ = [
    "ENV_PREFIX",
    "AIMindSettings",
    "MemorySettings",
    "SettingRow",
    "SettingsError",
    "backend_name",
    "memory_settings",
    "setting",
    "setting_rows",
    "unknown_variables",
]

ENV_PREFIX = "AIMIND_"
RESERVED_PREFIXES = ("AIMIND_BENCH_", "AIMIND_TEST_")
"""The checkout's own tools' variables (the bench's settings, the tests' fixtures): no
setting of the package, and never reported as unknown."""
DEFAULT_MODEL = "gpt-4o-mini"
SECRET_MIN_CHARS = 32
BACKEND_PREFIXES: Mapping[str, tuple[str, ...]] = {
    "sqlite": ("sqlite:///",),
    "postgres": ("postgresql://", "postgres://"),
}
"""What a database URL starts with, per backend (``memory`` is the in-process one)."""
_SHOWN_VALUE_CHARS = 40
_UNSET: Any = object()
"""A variable the environment does not set: the field keeps its default."""


def unknown_variables(
    known: Collection[str], environ: Mapping[str, str] | None = None
) -> list[str]:
    """The ``AIMIND_*`` variables ``environ`` (default: the process environment, now) sets
    that are not in ``known``, sorted; the checkout's tools' own (``RESERVED_PREFIXES``)
    are not reported."""
    env = os.environ if environ is None else environ
    return sorted(
        name
        for name in env
        if name.startswith(ENV_PREFIX)
        and name not in known
        and not name.startswith(RESERVED_PREFIXES)
    )


def backend_name(url: str) -> str | None:
    """``sqlite``, ``postgres`` or ``memory`` for a URL memory can open, else None."""
    if url == "memory":
        return "memory"
    return next((name for name, starts in BACKEND_PREFIXES.items() if url.startswith(starts)), None)


def setting(
    default: Any,
    description: str,
    *,
    expects: str | None = None,
    shown_default: str | None = None,
    env: str | None = None,
    **constraints: Any,
) -> Any:
    """A settings field: its default, its one-sentence description, and optionally what a
    valid value is (``expects``, for the error sentence), the default as the docs should
    show it (``shown_default``, when the real one is computed) and a variable name of its
    own (``env``, for variables that are not ``AIMIND_<FIELD>``)."""
    extra = {"expects": expects, "shown_default": shown_default}
    return Field(
        default,
        description=description,
        validation_alias=env,
        json_schema_extra={k: v for k, v in extra.items() if v is not None} or None,
        **constraints,
    )


class AIMindSettings(BaseSettings):
    """The base of our settings classes: environment variables only, read as they are now.

    ``load(environ)`` is how code reads them (cached per set of values); ``cls()`` also
    works, as any pydantic-settings class, and reads ``os.environ``. A blank value means
    unset, as it always has for these variables.
    """

    model_config = SettingsConfigDict(
        alias_generator=AliasGenerator(validation_alias=lambda name: ENV_PREFIX + name.upper()),
        case_sensitive=True,
        env_file=None,
        extra="ignore",
        frozen=True,
        populate_by_name=True,
    )

    component: ClassVar[str] = ""
    """Who reads these settings, as the configuration table says it."""
    errors: ClassVar[Mapping[str, type[SettingsError]]] = {}
    """Field → the ``SettingsError`` subclass a bad value of it raises (default: the base)."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Arguments and the environment; never a ``.env`` file or a secrets folder."""
        return init_settings, env_settings

    @model_validator(mode="before")
    @classmethod
    def _unset_when_blank(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        return {
            key: value
            for key, value in data.items()
            if value is not _UNSET and not (isinstance(value, str) and not value.strip())
        }

    @classmethod
    def env_name(cls, field: str) -> str:
        """The environment variable of ``field``."""
        alias = cls.model_fields[field].validation_alias
        assert isinstance(alias, str), field
        return alias

    @classmethod
    def env_names(cls) -> tuple[str, ...]:
        return tuple(cls.env_name(field) for field in cls.model_fields)

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None) -> Self:
        """The settings ``environ`` (default: the process environment, now) gives; raises
        ``SettingsError`` naming the first variable that is malformed."""
        env = os.environ if environ is None else environ
        settings: Self = _load(cls, tuple(env.get(name) for name in cls.env_names()))
        return settings  # lru_cache's wrapper loses the type

    @classmethod
    def error_of(cls, exc: ValidationError) -> SettingsError:
        """``exc``'s first error as one sentence naming its variable."""
        first = exc.errors(include_url=False)[0]
        cause = (first.get("ctx") or {}).get("error")
        if isinstance(cause, SettingsError):
            return cause
        located = str(first["loc"][0]) if first["loc"] else ""
        field = next(
            (f for f in cls.model_fields if located in (f, cls.env_name(f))),
            None,
        )
        if field is None:
            return SettingsError(f"The settings are not valid: {first['msg']}.")
        name, info = cls.env_name(field), cls.model_fields[field]
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        expects = extra.get("expects") or _expected(first["type"], first.get("ctx") or {})
        shown = "" if _is_secret(info.annotation) else f", not {_shown(first['input'])}"
        error = cls.errors.get(field, SettingsError)
        return error(f"{name} must be {expects}{shown}.")


@functools.lru_cache(maxsize=64)
def _load[S: AIMindSettings](cls: type[S], values: tuple[str | None, ...]) -> S:
    pairs = zip(cls.env_names(), values, strict=True)
    given: dict[str, Any] = {name: _UNSET if value is None else value for name, value in pairs}
    try:
        return cls(**given)
    except ValidationError as exc:
        raise cls.error_of(exc) from None


_EXPECTED = {
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "int_type": "a whole number",
    "float_parsing": "a number",
    "float_type": "a number",
    "finite_number": "a finite number",
    "bool_parsing": "0 or 1 (or true/false)",
    "bool_type": "0 or 1 (or true/false)",
    "greater_than": "greater than {gt}",
    "greater_than_equal": "at least {ge}",
    "less_than": "less than {lt}",
    "less_than_equal": "at most {le}",
    "literal_error": "{expected}",
    "string_too_short": "at least {min_length} characters",
    "too_short": "at least {min_length} characters",
    "path_type": "a path",
}


def _expected(kind: str, ctx: Mapping[str, Any]) -> str:
    template = _EXPECTED.get(kind, "valid")
    try:
        return template.format(**ctx)
    except (KeyError, IndexError):
        return template


def _shown(value: Any) -> str:
    text = str(value)
    return repr(text if len(text) <= _SHOWN_VALUE_CHARS else text[:_SHOWN_VALUE_CHARS] + "…")


def _options(annotation: Any) -> list[Any]:
    """The types an annotation allows, ``None`` left out."""
    if get_origin(annotation) in (Union, types.UnionType):
        return [a for a in get_args(annotation) if a is not type(None)]
    return [annotation]


def _is_secret(annotation: Any) -> bool:
    return SecretStr in _options(annotation)


class SettingRow(NamedTuple):
    """One setting as the docs' configuration table shows it."""

    name: str
    """The environment variable."""
    type: str
    default: str
    description: str
    component: str
    """Who reads it: ``memory``, ``servers and tools`` or ``scripts``."""


_TYPE_LABELS: Mapping[Any, str] = {
    bool: "boolean (0 or 1)",
    int: "integer",
    float: "number",
    str: "string",
    SecretStr: "string (secret)",
    Path: "path",
}


def _type_label(annotation: Any) -> str:
    labels = []
    for option in _options(annotation):
        if get_origin(option) is Literal:
            labels.append(" or ".join(str(value) for value in get_args(option)))
        else:
            labels.append(_TYPE_LABELS.get(option, getattr(option, "__name__", str(option))))
    return " or ".join(labels)


def _default_label(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def setting_rows(cls: type[AIMindSettings]) -> list[SettingRow]:
    """``cls``'s settings, one row each, in declaration order."""
    rows = []
    for field, info in cls.model_fields.items():
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        shown = extra.get("shown_default")
        rows.append(
            SettingRow(
                name=cls.env_name(field),
                type=_type_label(info.annotation),
                default=str(shown) if shown is not None else _default_label(info.default),
                description=info.description or "",
                component=cls.component,
            )
        )
    return rows


_POSITIVE: dict[str, Any] = {"gt": 0, "allow_inf_nan": False}
_LIMIT_FIELDS = (
    "recent_turns",
    "keep_turns",
    "summary_chars",
    "pinned_max",
    "pin_chars",
    "message_char_cap",
    "compaction_timeout_s",
    "recall_chars",
    "archive_turns",
)


OfflineProfile = Literal["general", "booking"]
"""The offline compactor's rule sets (``compaction.analysis.booking``)."""


class MemorySettings(AIMindSettings):
    """Everything memory reads from the environment: where it lives, who may read it,
    its bounds, its database connections and its models."""

    component: ClassVar[str] = "memory"
    errors: ClassVar[Mapping[str, type[SettingsError]]] = {
        "database_url": DatabaseURLError,
        "session_secret": SecretConfigError,
        **dict.fromkeys(_LIMIT_FIELDS, LimitsError),
    }

    database_url: SecretStr | None = setting(
        None,
        "The database of the server's threads and of memory: `sqlite:///path`, "
        "`postgresql://…` or `memory` (in process only); production needs `postgresql://…`.",
        shown_default="sqlite:///<data folder>/aimind.sqlite",
    )
    data_dir: Path | None = setting(
        None,
        "The data folder, which holds the embedded database and the development session "
        "secret; a relative path is taken from the directory the process started in.",
        shown_default="the checkout's .aimind/, else $XDG_DATA_HOME/aimind (~/.local/share/aimind)",
    )
    session_secret: SecretStr | None = setting(
        None,
        f"The key session tokens are hashed with, at least {SECRET_MIN_CHARS} characters and "
        "the same on every replica; required when AIMIND_ENV is production.",
        shown_default="generated into <data folder>/session-secret (0600) in development",
        min_length=SECRET_MIN_CHARS,
    )
    env: Literal["development", "production"] = setting(
        "development",
        "`production` refuses to start without AIMIND_SESSION_SECRET and turns off what is "
        "for development only: a generated secret, Studio's credential-less identity and "
        "the patches of `langgraph dev`.",
        shown_default="development (scripts/serve-prod.sh sets production)",
    )
    recent_turns: int = setting(
        RECENT_TURNS,
        "Turns memory keeps verbatim (two messages each) before older ones are compacted.",
        ge=1,
    )
    keep_turns: int = setting(
        KEEP_TURNS,
        "Turns kept verbatim after a compaction, from 1 to AIMIND_RECENT_TURNS.",
        ge=1,
    )
    summary_chars: int = setting(
        SUMMARY_CHARS, "The longest the compacted summary may be, in characters.", ge=1
    )
    pinned_max: int = setting(
        PINNED_MAX, "The most pinned decisions one session's memory holds.", ge=1
    )
    pin_chars: int = setting(
        PIN_CHARS, "The longest one pinned decision may be, in characters.", ge=1
    )
    message_char_cap: int = setting(
        MESSAGE_CHAR_CAP,
        "The longest one stored message may be, in characters; a longer one is kept "
        "truncated, with a marker saying so.",
        expects=f"a whole number above {len(TRUNCATION_MARKER)} (the truncation marker's length)",
        gt=len(TRUNCATION_MARKER),
    )
    compaction_timeout_s: float = setting(
        COMPACTION_TIMEOUT_S,
        "Seconds a compaction by the model may take before the extractive compactor's "
        "result is used instead.",
        **_POSITIVE,
    )
    recall_chars: int = setting(
        RECALL_CHARS,
        "Characters of earlier conversation one recall brings back from the session's archive "
        "(each model call's recall block and the recall_memory tool); 0 turns recall off.",
        ge=0,
    )
    archive_turns: int | None = setting(
        ARCHIVE_TURNS,
        "Folded turns each session's archive keeps for recall (the oldest go first).",
        shown_default="all of them",
        ge=1,
    )
    pg_pool_max: int = setting(
        PG_POOL_MAX, "The most PostgreSQL connections memory's pool opens per process.", ge=1
    )
    pg_pool_timeout_s: float = setting(
        PG_POOL_TIMEOUT_S,
        "Seconds a memory call waits for a pooled PostgreSQL connection while every one is busy.",
        **_POSITIVE,
    )
    pg_reconnect_timeout_s: float = setting(
        PG_RECONNECT_TIMEOUT_S,
        "Seconds the pool tries to reach a lost PostgreSQL before memory's calls go on "
        "without memory (a turn is answered, and memory written again once it is back).",
        **_POSITIVE,
    )
    sqlite_busy_timeout_s: float = setting(
        SQLITE_BUSY_TIMEOUT_S,
        "Seconds a SQLite write waits for another writer's lock before memory reports "
        "the write failed.",
        **_POSITIVE,
    )
    offline_profile: OfflineProfile | None = setting(
        None,
        "The offline compactor's rules for the whole process, set when memory opens: "
        "general, or general plus the booking profile's (bookings, tickets and trains as "
        'booking assistants word them: "Yes, please book it for 6", "Booked!", "预订成功").',
        shown_default="general",
    )
    model: str = setting(
        DEFAULT_MODEL,
        "The chat model's name on the OpenAI-compatible endpoint (used when OPENAI_API_KEY "
        "is set).",
    )
    compaction_model: str | None = setting(
        None,
        "The model compaction uses, when it should not be AIMIND_MODEL.",
        shown_default="AIMIND_MODEL",
    )
    openai_api_key: SecretStr | None = setting(
        None,
        "The OpenAI-compatible endpoint's key; without one the graphs answer with the "
        "offline model and compaction is extractive.",
        env="OPENAI_API_KEY",
    )
    openai_base_url: str | None = setting(
        None,
        "The OpenAI-compatible endpoint, when it is not OpenAI's own.",
        env="OPENAI_BASE_URL",
        shown_default="OpenAI's API",
        expects="an http:// or https:// URL",
        pattern=r"^https?://",
    )

    @field_validator("env", mode="before")
    @classmethod
    def _env_any_case(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("database_url")
    @classmethod
    def _known_backend(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and backend_name(value.get_secret_value().strip()) is None:
            raise DatabaseURLError(
                f"{cls.env_name('database_url')} must be sqlite:///path, postgresql://… or memory."
            )
        return value

    @model_validator(mode="after")
    def _keep_within_recent(self) -> Self:
        if self.keep_turns > self.recent_turns:
            keep, recent = self.env_name("keep_turns"), self.env_name("recent_turns")
            raise LimitsError(
                f"{keep} must be from 1 to {recent} ({self.recent_turns}), not {self.keep_turns}."
            )
        return self

    @property
    def production(self) -> bool:
        """``AIMIND_ENV=production``: no generated secret, no development identities."""
        return self.env == "production"

    @property
    def limits(self) -> MemoryLimits:
        """The bounds as ``MemoryLimits``, what ``open_memory`` uses when given none."""
        return MemoryLimits(**{field: getattr(self, field) for field in _LIMIT_FIELDS})

    @property
    def database(self) -> str | None:
        """``AIMIND_DATABASE_URL``'s value, or None when unset."""
        return self.database_url.get_secret_value().strip() if self.database_url else None


def memory_settings(environ: Mapping[str, str] | None = None) -> MemorySettings:
    """Memory's settings from ``environ`` (default: the process environment as it is now);
    raises a ``SettingsError`` naming the first malformed variable."""
    return MemorySettings.load(environ)
