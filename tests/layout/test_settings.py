"""Settings in one place: every variable the code and the scripts read is declared once
(type, default, one sentence), nothing else reads the environment for them, and a
malformed value is one sentence naming the variable — never a secret's value."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from aimind_memory.adapters.settings import (
    AdapterSettings,
    ScriptSettings,
    check_served_database,
    check_settings,
)
from aimind_memory.memory.config.settings import (
    AIMindSettings,
    MemorySettings,
    SettingsError,
    setting_rows,
)
from aimind_memory.memory.errors import AIMindError, UnknownSettingWarning
from aimind_memory.settings import SETTINGS, configuration_rows
from bench.settings import BenchSettings

ROOT = Path(__file__).resolve().parents[2]
CODE = ("memory", "adapters", "graphs", "aimind_memory", "bench", "scripts")
"""Where the project's code is (the tests set variables; they do not read settings)."""
CONFIG_FILES = ("langgraph.json", "aegra.json", ".ci/run")
ALL_SETTINGS: tuple[type[AIMindSettings], ...] = (*SETTINGS, BenchSettings)
VARIABLE = re.compile(r"\b(?:AIMIND|OPENAI)_[A-Z0-9]+(?:_[A-Z0-9]+)*\b")
SHELL_READ = re.compile(r"\$\{#?([A-Z][A-Z0-9_]*)|\$([A-Z][A-Z0-9_]*)")
SHELL_ASSIGNED = re.compile(r"^\s*(?:export\s+)?([A-Z][A-Z0-9_]*)=", re.MULTILINE)
SHELL_OWN = frozenset({"PWD", "HOME", "PATH", "SECONDS"})
"""The shell's own variables, not settings."""

ENV_READERS = {
    "memory/config/settings.py": "the settings' one reader",
    "memory/storage/paths.py": "XDG_DATA_HOME, the desktop's data folder, not a setting of ours",
    "adapters/engine.py": "langgraph dev's own marks (LANGSMITH_LANGGRAPH_API_VARIANT, …)",
    "adapters/tools/mcp/client.py": "forwards our settings to an MCP server it starts",
    "adapters/server/aegra/preflight.py": "Aegra's own thread TTL variables",
    "bench/common.py": "sets the benchmark's data folder and secret for memory to read",
    "bench/outage.py": "sets a pool timeout for the memory it opens, and restores it",
    "bench/recall.py": "passes the environment on to a child process",
}
"""Modules that touch ``os.environ`` and why; reading one of our settings is not a reason."""


def declared() -> dict[str, type[AIMindSettings]]:
    return {name: cls for cls in ALL_SETTINGS for name in cls.env_names()}


def sources(suffixes: tuple[str, ...]) -> Iterator[Path]:
    for folder in CODE:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in suffixes and "__pycache__" not in path.parts:
                yield path


def test_every_variable_the_code_names_is_declared_once() -> None:
    names = declared()
    assert len(names) == sum(len(cls.env_names()) for cls in ALL_SETTINGS), "declared twice"
    mentioned: dict[str, set[str]] = {}
    files = [*sources((".py", ".sh")), *(ROOT / name for name in CONFIG_FILES)]
    for path in files:
        for name in VARIABLE.findall(path.read_text()):
            mentioned.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    undeclared = {name: sorted(where) for name, where in mentioned.items() if name not in names}
    assert undeclared == {}, "declare these in memory/adapters/bench settings"
    assert {"AIMIND_DATABASE_URL", "AIMIND_MAX_BODY_MB", "AIMIND_BENCH_MULTIWOZ"} <= set(names)


def test_every_variable_the_scripts_read_is_declared() -> None:
    names = declared()
    for script in sources((".sh",)):
        text = script.read_text()
        assigned = set(SHELL_ASSIGNED.findall(text))
        defaulted = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*):-", text))
        read = {a or b for a, b in SHELL_READ.findall(text)}
        from_environment = defaulted | (read - assigned - SHELL_OWN)
        missing = sorted(from_environment - set(names))
        assert missing == [], f"{script.name} reads {missing}: declare them in ScriptSettings"
    assert {"PORT", "HOST", "REDIS_URL", "PYTHON"} <= set(ScriptSettings.env_names())


def environ_users(path: Path) -> bool:
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("environ", "getenv", "environb")
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            return True
        if (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and any(alias.name in ("environ", "getenv") for alias in node.names)
        ):
            return True
    return False


def test_nothing_but_the_settings_reads_the_environment() -> None:
    users = {str(path.relative_to(ROOT)) for path in sources((".py",)) if environ_users(path)}
    assert users - set(ENV_READERS) == set(), "read settings through memory/adapters settings"
    assert set(ENV_READERS) - users == set(), "stale entry in ENV_READERS"


def test_the_configuration_table_has_a_row_per_setting_with_one_sentence() -> None:
    rows = configuration_rows()
    names = [row.name for row in rows]
    assert len(names) == len(set(names))
    assert set(names) == {n for cls in SETTINGS for n in cls.env_names()}
    assert {row.component for row in rows} == {"memory", "servers and tools", "scripts"}
    for row in [*rows, *setting_rows(BenchSettings)]:
        assert row.type and row.default, row
        text = row.description
        assert text[0].isupper() or text[0] in "`0123456789", row.name
        assert text.endswith(".") and not re.search(r"[.!?] [A-Z]", text), row.name
    by_name = {row.name: row for row in rows}
    assert by_name["AIMIND_RECENT_TURNS"].default == "4"
    assert by_name["AIMIND_RECENT_TURNS"].type == "integer"
    assert by_name["AIMIND_DEV_QUEUE_WAKEUP"].default == "1"


BAD_VALUES = {
    int: "twelve",
    float: "soon",
    bool: "maybe",
}


def malformed() -> Iterator[tuple[type[AIMindSettings], str, str]]:
    """(settings, variable, a value its type refuses) for every typed setting."""
    for cls in ALL_SETTINGS:
        for field, info in cls.model_fields.items():
            for kind, bad in BAD_VALUES.items():
                if info.annotation in (kind, kind | None):
                    yield cls, cls.env_name(field), bad


@pytest.mark.parametrize(("cls", "name", "bad"), list(malformed()))
def test_a_malformed_value_is_one_sentence_naming_its_variable(
    cls: type[AIMindSettings], name: str, bad: str
) -> None:
    with pytest.raises(SettingsError) as raised:
        cls.load({name: bad})
    message = str(raised.value)
    assert message.startswith(f"{name} must be ") and message.endswith(f", not '{bad}'.")
    assert message.count(". ") == 0 and "\n" not in message
    assert isinstance(raised.value, AIMindError)


@pytest.mark.parametrize(
    ("name", "bad", "expected"),
    [
        ("AIMIND_ENV", "staging", "AIMIND_ENV must be 'development' or 'production'"),
        ("AIMIND_RECENT_TURNS", "0", "AIMIND_RECENT_TURNS must be at least 1, not '0'."),
        ("AIMIND_MAX_BODY_MB", "-1", "AIMIND_MAX_BODY_MB must be a positive number, not '-1'."),
        ("AIMIND_MAX_BODY_MB", "inf", "AIMIND_MAX_BODY_MB must be a positive number"),
        ("AIMIND_KEEP_TURNS", "9", "AIMIND_KEEP_TURNS must be from 1 to AIMIND_RECENT_TURNS (4)"),
        ("OPENAI_BASE_URL", "api.example.com", "OPENAI_BASE_URL must be an http:// or https://"),
        ("PORT", "80000", "PORT must be a port number (1-65535), not '80000'."),
        ("AIMIND_SKIP_BROWSER_INSTALL", "yes", "AIMIND_SKIP_BROWSER_INSTALL must be '0' or '1'"),
    ],
)
def test_a_value_out_of_range_says_what_the_variable_must_be(
    name: str, bad: str, expected: str
) -> None:
    cls = next(c for c in ALL_SETTINGS if name in c.env_names())
    with pytest.raises(SettingsError, match=re.escape(expected)):
        cls.load({name: bad})


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("AIMIND_SESSION_SECRET", "hunter2-is-too-short"),
        ("AIMIND_DATABASE_URL", "mysql://admin:hunter2-pass@db.internal/aimind"),
        ("AIMIND_BENCH_POSTGRES_URL", ""),
    ],
)
def test_an_error_never_shows_a_secrets_value(name: str, secret: str) -> None:
    cls = next(c for c in ALL_SETTINGS if name in c.env_names())
    if not secret:  # a URL setting with no shape to check: any value is taken, and hidden
        loaded = cls.load({name: "postgresql://u:hunter2@h/db"})
        assert "hunter2" not in repr(loaded) and "hunter2" not in str(loaded)
        return
    with pytest.raises(SettingsError) as raised:
        cls.load({name: secret})
    assert name in str(raised.value)
    assert "hunter2" not in str(raised.value)


def test_blank_means_unset_and_the_environment_is_read_as_it_is_now(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert MemorySettings.load({"AIMIND_RECENT_TURNS": "  "}).recent_turns == 4
    monkeypatch.setenv("AIMIND_RECENT_TURNS", "6")
    assert MemorySettings.load().recent_turns == 6
    monkeypatch.setenv("AIMIND_RECENT_TURNS", "7")
    assert MemorySettings.load().recent_turns == 7
    assert AdapterSettings.load({"AIMIND_DEV_QUEUE_WAKEUP": "0"}).dev_queue_wakeup is False


@pytest.mark.parametrize(
    ("env", "database", "refused"),
    [
        ("production", None, True),  # forgotten: the data folder's SQLite file
        ("production", "sqlite:///srv/aimind.sqlite", True),
        ("production", "memory", True),
        ("production", "postgresql://u:hunter2@db/aimind", False),
        ("development", None, False),
        ("development", "sqlite:///srv/aimind.sqlite", False),
    ],
)
def test_a_production_server_keeps_memory_on_postgresql(
    env: str, database: str | None, refused: bool
) -> None:
    environ = {"AIMIND_ENV": env, **({"AIMIND_DATABASE_URL": database} if database else {})}
    if not refused:
        check_served_database(environ)
        return
    with pytest.raises(SettingsError) as raised:
        check_served_database(environ)
    message = str(raised.value)
    assert message.startswith("AIMIND_ENV is production but AIMIND_DATABASE_URL is not a")
    assert "postgresql://" in message and "\n" not in message


UNKNOWN = """
import warnings
warnings.simplefilter("always")  # every warning shown: the test counts them
from aimind_memory import FinalTurn
from aimind_memory import MemoryLimits, open_memory
from aimind_memory.adapters.settings import check_settings
check_settings()
print("ok")
"""


def test_an_unknown_variable_is_named_once_in_one_warning(tmp_path: Path) -> None:
    """A misspelt variable would leave its setting at the default without a word: the first
    use of the package names every ``AIMIND_*`` variable no setting declares, with the
    setting it most resembles, in one warning, and no later check names it again."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIMIND_")}
    env |= {
        "AIMIND_RECENT_TURN": "3",  # AIMIND_RECENT_TURNS, misspelt
        "AIMIND_NO_SUCH_THING": "1",
        "AIMIND_RECENT_TURNS": "4",  # declared: not named
        "AIMIND_BENCH_ANYTHING": "x",  # the bench's and the tests' own: not named
        "AIMIND_TEST_ANYTHING": "x",
        "AIMIND_DATA_DIR": str(tmp_path / "data"),
    }
    done = subprocess.run(
        [sys.executable, "-c", UNKNOWN], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    warned = [line for line in done.stderr.splitlines() if "UnknownSettingWarning" in line]
    assert len(warned) == 1, done.stderr
    assert (
        "AIMIND_NO_SUCH_THING, AIMIND_RECENT_TURN (did you mean AIMIND_RECENT_TURNS?) "
        "are not settings and are ignored"
    ) in warned[0]
    assert "ANYTHING" not in done.stderr
    assert warned[0].startswith("<string>:4: ")  # the user's line: their first import


def test_the_servers_check_names_an_unknown_variable() -> None:
    with pytest.warns(UnknownSettingWarning, match=r"AIMIND_KEEP_TURN \(did you mean "):
        check_settings({"AIMIND_KEEP_TURN": "1"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_settings({"AIMIND_KEEP_TURN": "1", "AIMIND_KEEP_TURNS": "1"})  # once a process
