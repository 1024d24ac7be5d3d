"""Resource references escaping the documents folder are refused, end to end through chat.

Whether the user types the reference or the model asks the ``read_resource``
tool for it, a file outside the folder (by ``..``, an absolute path, or a
symlink) never reaches the model, the answer or memory.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage

from aimind_memory.adapters.chat_memory.runtime import close_memory, get_memory
from aimind_memory.adapters.tools.builtin import read_resource_tool
from aimind_memory.graphs.chat import build_graph
from tests.support.fakes import ScriptedChatModel

TOKEN = "resource-escape-sess-01"
OUTSIDE_MARKER = "OUTSIDE-SECRET-9d2e"
INSIDE_MARKER = "INSIDE-DOC-41aa"
ESCAPES = [
    "../outside/secret.md",
    "sub/../../outside/secret.md",
    "link.md",
    "linkdir/secret.md",
    "/etc/passwd",
]


@pytest.fixture
async def setup(
    tmp_path: Path, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(f"# Secret\n{OUTSIDE_MARKER}\n")
    docs = tmp_path / "documents"
    (docs / "sub").mkdir(parents=True)
    (docs / "notes.md").write_text(f"# Notes\n{INSIDE_MARKER}\n")
    (docs / "link.md").symlink_to(outside / "secret.md")
    (docs / "linkdir").symlink_to(outside, target_is_directory=True)
    monkeypatch.setenv("AIMIND_DOCS_DIR", str(docs))
    monkeypatch.setenv("AIMIND_DATABASE_URL", db_url)
    yield docs
    await close_memory()


def everything_sent(model: ScriptedChatModel) -> str:
    return "\n".join(str(m.content) for call in model.calls for m in call)


async def run_chat(model: ScriptedChatModel, text: str) -> str:
    graph = build_graph(model=model, tools=[read_resource_tool])
    result = await graph.ainvoke(
        {"messages": [{"role": "user", "content": text}]}, context={"session_id": TOKEN}
    )
    return str(result["messages"][-1].content)


async def test_typed_references_outside_the_folder_are_refused(setup: Path) -> None:
    refs = " ".join(f"@docs/{name}" for name in ESCAPES)
    model = ScriptedChatModel(script=[AIMessage("Done.")])
    answer = await run_chat(model, f"Read @docs/notes.md and {refs} please")
    sent = everything_sent(model)
    assert INSIDE_MARKER in sent, "the document inside the folder is read"
    assert OUTSIDE_MARKER not in sent and "root:" not in sent
    assert OUTSIDE_MARKER not in answer
    state = await (await get_memory()).load(TOKEN)
    assert [m.text for m in state.messages] == [f"Read @docs/notes.md and {refs} please", "Done."]


@pytest.mark.parametrize("name", ESCAPES)
async def test_tool_reads_outside_the_folder_are_refused(setup: Path, name: str) -> None:
    call: dict[str, Any] = {"name": "read_resource", "args": {"name": name}, "id": "call_1"}
    model = ScriptedChatModel(
        script=[AIMessage("", tool_calls=[call]), AIMessage("I could not read it.")]
    )
    answer = await run_chat(model, "Show me that file.")
    sent = everything_sent(model)
    assert OUTSIDE_MARKER not in sent and "root:" not in sent
    assert "refused" in sent.lower() or "no resource" in sent.lower()
    assert answer == "I could not read it."
    state = await (await get_memory()).load(TOKEN)
    assert [m.text for m in state.messages] == ["Show me that file.", "I could not read it."]
