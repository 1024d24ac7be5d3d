"""``aimind_memory``'s names cost nothing until used (contract §13b): importing the package,
or the middleware's name, loads no LangChain agent framework; the middleware's stand-in is
the class for everything code does with one."""

from __future__ import annotations

import subprocess
import sys

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware

import aimind_memory
from aimind_memory import ChatMemoryMiddleware, offline_chat_model
from aimind_memory.adapters.chat_memory import middleware

IMPORTS = """
import sys
{imports}
print(sorted(m for m in sys.modules if m.startswith("langchain.agents")))
"""


def loaded_agents(imports: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", IMPORTS.format(imports=imports)],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_importing_the_package_or_naming_the_middleware_loads_no_agent_framework() -> None:
    assert loaded_agents("import aimind_memory") == "[]"
    assert loaded_agents("from aimind_memory import ChatMemoryMiddleware, open_memory") == "[]"
    # a library user's memory calls need none either
    assert loaded_agents("from aimind_memory import open_memory, FinalTurn, ThreadState") == "[]"
    # using the middleware loads it
    assert "'langchain.agents'" in loaded_agents(
        "from aimind_memory import ChatMemoryMiddleware\nChatMemoryMiddleware('memory')"
    )


def test_the_middlewares_name_is_the_class_for_what_code_does_with_it() -> None:
    made = ChatMemoryMiddleware("memory", trim_state=True)
    assert type(made) is middleware.ChatMemoryMiddleware and made.trim_state
    assert isinstance(made, ChatMemoryMiddleware) and isinstance(made, AgentMiddleware)
    assert not isinstance(object(), ChatMemoryMiddleware)
    assert issubclass(middleware.ChatMemoryMiddleware, ChatMemoryMiddleware)

    class Mine(ChatMemoryMiddleware):
        """A user's own subclass."""

    assert Mine.__mro__[1] is middleware.ChatMemoryMiddleware
    assert isinstance(Mine("memory"), ChatMemoryMiddleware)
    assert ChatMemoryMiddleware.state_schema is middleware.ChatMemoryState
    assert "imported on first use" in repr(ChatMemoryMiddleware)
    agent = create_agent(offline_chat_model(), tools=[], middleware=[made])
    assert "ChatMemoryMiddleware.after_agent" in agent.get_graph().nodes  # its hook, wired


def test_the_version_is_the_installed_distributions() -> None:
    from importlib.metadata import version

    assert aimind_memory.__version__ == version("aimind-memory")
    assert "__version__" in dir(aimind_memory)
