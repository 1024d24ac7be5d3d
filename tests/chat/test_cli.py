"""The ``aimind`` console script, run as a user would: a subprocess in a fresh folder.

``AIMIND_DATA_DIR`` points every run at a temp data folder (the default would be the
checkout's ``.aimind/``); nothing else of the caller's ``AIMIND_*`` is inherited.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aimind_memory.adapters.cli.graphs import load_graph
from aimind_memory.adapters.cli.main import session_token
from aimind_memory.adapters.errors import GraphLoadError
from aimind_memory.memory.session import TOKEN_RE
from tests.support.residue import holds, sqlite_bytes

CLI_TIMEOUT_S = 300


def _aimind(
    args: list[str], cwd: Path, stdin: str = "", extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return _run([str(Path(sys.executable).parent / "aimind"), *args], cwd, stdin, extra)


def _run(
    command: list[str], cwd: Path, stdin: str = "", extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AIMIND_"))}
    env["PYTHONIOENCODING"] = "utf-8"
    env["AIMIND_DATA_DIR"] = os.environ["AIMIND_DATA_DIR"]  # the test's own (tests/conftest.py)
    env.update(extra or {})
    return subprocess.run(
        command,
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=CLI_TIMEOUT_S,
        check=False,
    )


def test_session_names_map_to_valid_tokens_deterministically() -> None:
    for name in ("default", "my session", "x", "a" * 500, "会话"):
        token = session_token(name)
        assert TOKEN_RE.fullmatch(token)
        assert session_token(name) == token
    assert session_token("already-a-valid-token-1") == "already-a-valid-token-1"
    assert session_token("alice") != session_token("bob")


HEAVY_MODULES = (
    "langchain_core",
    "langgraph",
    "pydantic",
    "aimind_memory.memory.service",
    "aimind_memory.adapters.settings",
)
"""What a command loads when it runs, and ``--help`` or a mistyped command line need not."""

LOADED_AFTER = """
import sys
from aimind_memory.adapters.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    print("exit", exc.code, sorted({m for m in sys.modules if m.startswith(HEAVY)}))
"""


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (["--help"], 0, "{chat,memory,demo}"),
        (["memory", "pin", "--help"], 0, "what to remember (at most 300 characters)"),
        (["memory", "unpinn", "x"], 2, "invalid choice: 'unpinn'"),
        (["memory", "edit", "only-an-id"], 2, "the following arguments are required: text"),
    ],
)
def test_help_and_argument_errors_answer_without_loading_memory(
    tmp_path: Path, args: list[str], code: int, said: str
) -> None:
    """The command line is read before anything heavy is imported, so ``aimind --help`` and a
    typo answer at once (the runtime takes about a second of CPU to load), writing nothing."""
    program = f"HEAVY = {HEAVY_MODULES!r}\n{LOADED_AFTER}"
    data = tmp_path / "data"
    run = _run(
        [sys.executable, "-c", program, *args], tmp_path, extra={"AIMIND_DATA_DIR": str(data)}
    )
    assert run.stdout.splitlines()[-1] == f"exit {code} []", run.stderr
    assert said in run.stdout + run.stderr
    assert not data.exists()


def test_demo_runs_to_the_end_on_a_fresh_data_folder(tmp_path: Path) -> None:
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    demo = _aimind(["demo"], here)
    assert demo.returncode == 0, demo.stderr
    out = demo.stdout
    assert "--- turn 12 (chat) ---" in out and "demo finished: 12 turns" in out
    assert "--- turn 6 (delivery-chain) ---" in out  # one memory shared across graphs
    assert "=== memory after compaction 1 (turn 5) ===" in out
    assert "[memory] compaction succeeded" in out
    final = out.split("=== final memory ===")[1]
    assert "We decided to use PostgreSQL in production" in final  # English decision, pinned
    assert "我们决定第一版不做移动端，先做网页版。" in final  # Chinese decision, pinned
    # It names its session and how to look at it again.
    assert "session 'aimind-demo-session'" in out.splitlines()[0]
    assert out.rstrip().endswith("aimind memory show --session aimind-demo-session")
    # The embedded default lives in the data folder, not in the current one.
    data = Path(os.environ["AIMIND_DATA_DIR"])
    assert (data / "aimind.sqlite").is_file() and (data / "session-secret").is_file()
    assert f"storage sqlite:///{data / 'aimind.sqlite'}" in out
    assert list(here.iterdir()) == []

    # Another folder reaches the same memory with the same secret.
    shown = _aimind(["memory", "show", "--session", "aimind-demo-session"], elsewhere)
    assert shown.returncode == 0, shown.stderr
    assert "我们决定第一版不做移动端" in shown.stdout
    assert "memory thread chat:" in shown.stdout


def test_chat_reads_stdin_and_remembers(tmp_path: Path) -> None:
    chat = _aimind(["chat", "--session", "cli test"], tmp_path, "We decided to ship on Friday.\n")
    assert chat.returncode == 0, chat.stderr
    assert "[offline model]" in chat.stdout and "[memory] 1 recent turns" in chat.stdout
    shown = _aimind(["memory", "show", "--session", "cli test"], tmp_path)
    assert "user: We decided to ship on Friday." in shown.stdout


def test_memory_show_of_a_session_without_memory_says_so_and_fails(tmp_path: Path) -> None:
    shown = _aimind(["memory", "show", "--session", "never used"], tmp_path)
    assert shown.returncode == 1
    assert shown.stdout == ""
    sentence = shown.stderr.splitlines()[-1]  # after the new dev secret's notice
    assert sentence.startswith("No chat memory for session 'never used' in sqlite:///")
    assert sentence.endswith("aimind chat --session 'never used'")
    assert "Traceback" not in shown.stderr


@pytest.mark.parametrize(
    ("args", "name", "bad", "sentence"),
    [
        (["chat"], "AIMIND_RECENT_TURNS", "zero", "must be a whole number, not 'zero'."),
        (["memory", "show"], "AIMIND_MAX_BODY_MB", "-2", "must be a positive number, not '-2'."),
        (["demo"], "AIMIND_SESSION_SECRET", "hunter2", "must be at least 32 characters."),
    ],
)
def test_a_malformed_setting_is_refused_in_one_sentence_before_anything_runs(
    tmp_path: Path, args: list[str], name: str, bad: str, sentence: str
) -> None:
    data = tmp_path / "data"
    refused = _aimind(args, tmp_path, "hello\n", {name: bad, "AIMIND_DATA_DIR": str(data)})
    assert refused.returncode == 1
    assert refused.stdout == ""
    assert refused.stderr == f"{name} {sentence}\n"  # one sentence, never a secret's value
    assert not data.exists()  # nothing was started: no secret, no database


def test_graphs_load_by_the_paths_in_langgraph_json(tmp_path: Path) -> None:
    """The CLI finds a graph the way the servers do, and says so in a sentence when it can't."""
    served = importlib.import_module("aimind_memory.graphs.chat.graph").graph
    assert load_graph("chat") is served  # the same module object, not a second copy
    with pytest.raises(GraphLoadError, match="names no graph 'nope'"):
        load_graph("nope")
    with pytest.raises(GraphLoadError, match="no readable langgraph"):
        load_graph("chat", tmp_path / "langgraph.json")
    other = tmp_path / "langgraph.json"
    other.write_text('{"graphs": {"chat": "./graphs/chat/graph.py:graph"}}')
    with pytest.raises(GraphLoadError, match="shadowed"):  # not this checkout's file
        load_graph("chat", other)


def test_memory_is_corrected_from_the_terminal(tmp_path: Path) -> None:
    """pin, edit, unpin, export and forget, as a person types them (contract §9a, §14)."""
    session = ["--session", "terminal edits"]
    lines = [f"We decided the kiosk {n} opens at {n + 7} am." for n in range(6)]
    chat = _aimind(["chat", *session], tmp_path, "\n".join(lines) + "\n")
    assert chat.returncode == 0, chat.stderr

    pinned = _aimind(["memory", "pin", "Budget ceiling is 40,000 EUR.", *session], tmp_path)
    assert pinned.returncode == 0, pinned.stderr
    pin_id = pinned.stdout.split()[1].rstrip(":")
    shown = _aimind(["memory", "show", *session], tmp_path).stdout
    assert f"id {pin_id} · user · pinned 20" in shown
    extractive = [line for line in shown.splitlines() if "· extractive · pinned" in line]
    assert extractive, shown  # the compaction's pins, each with the message it came from
    assert "from user message" in shown and "We decided the kiosk 0 opens at 7 am." in shown

    new_text = "Budget ceiling is 45,000 EUR."
    edited = _aimind(["memory", "edit", pin_id, new_text, *session], tmp_path)
    assert edited.returncode == 0 and f"edited {pin_id}" in edited.stdout
    exported = _aimind(["memory", "export", *session], tmp_path)
    document = json.loads(exported.stdout)
    (mine,) = [p for p in document["pins"] if p["id"] == pin_id]
    assert mine["text"] == new_text and mine["origin"] == "user"
    out = tmp_path / "memory.json"
    assert _aimind(["memory", "export", "--out", str(out), *session], tmp_path).returncode == 0
    assert json.loads(out.read_text()) == document and out.stat().st_mode & 0o777 == 0o600
    assert _aimind(["memory", "unpin", pin_id, *session], tmp_path).returncode == 0

    refusals = {
        "blank": (["memory", "pin", "   ", *session], "", "A pin needs some text."),
        "unknown": (["memory", "unpin", pin_id, *session], "", "has no pin with that id."),
        "declined": (["memory", "forget", *session], "n\n", "Nothing was forgotten"),
    }
    for name, (args, stdin, sentence) in refusals.items():
        refused = _aimind(args, tmp_path, stdin)
        assert refused.returncode == 1, name
        last = refused.stderr.strip().splitlines()[-1]
        assert sentence in last and last.endswith("."), (name, refused.stderr)
        assert "Traceback" not in refused.stderr
    database = Path(os.environ["AIMIND_DATA_DIR"]) / "aimind.sqlite"
    assert holds(sqlite_bytes(database), "kiosk 0 opens")  # nothing was forgotten

    forgot = _aimind(["memory", "forget", "--yes", *session], tmp_path)
    assert forgot.returncode == 0, forgot.stderr
    assert _aimind(["memory", "show", *session], tmp_path).returncode == 1
    assert not holds(sqlite_bytes(database), "kiosk 0 opens")  # not even a free page
