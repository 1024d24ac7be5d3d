"""The chat graph's tool policy as agent middleware: MCP tools, timeouts, fixed error text.

``create_agent`` takes its tools when the graph is built, but the MCP tools of
``mcp.json`` are loaded once the server runs (and again when the file changes), so
``awrap_model_call`` offers them per call and ``awrap_tool_call`` runs a call to one
— LangChain's documented way to register tools at run time. Every tool call runs
under the chat graph's timeout, and a failure reaches the model and the client as one
of its fixed sentences, never an exception's text (it can carry paths or hosts). After
``MAX_TOOL_ROUNDS`` rounds in a turn the model must answer without tools, and the
turn ends with that answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.errors import GraphBubbleUp
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from aimind_memory.adapters.tools.builtin import (
    MAX_TOOL_ROUNDS,
    TOOL_FAILED,
    TOOL_TIMED_OUT,
    TOOL_TIMEOUT_S,
)
from aimind_memory.adapters.tools.mcp.client import cached_mcp_tools

log = logging.getLogger("aimind.agent")

ToolHandler = Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]]


def tool_rounds(messages: list[Any]) -> int:
    """Tool rounds so far in this turn: AI messages with tool calls after the user's."""
    rounds = 0
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            break
        rounds += isinstance(message, AIMessage) and bool(message.tool_calls)
    return rounds


def _failed(request: ToolCallRequest, content: str) -> ToolMessage:
    call = request.tool_call
    return ToolMessage(
        content=content, name=call.get("name"), tool_call_id=call.get("id") or "", status="error"
    )


def _answer_only(response: ModelResponse) -> ModelResponse:
    """The model's reply without tool calls: past the round limit the turn ends here, as
    the chat graph's does, even if the model asked for tools it was no longer offered."""
    result = [
        m.model_copy(update={"tool_calls": [], "invalid_tool_calls": []})
        if isinstance(m, AIMessage) and (m.tool_calls or m.invalid_tool_calls)
        else m
        for m in response.result
    ]
    return ModelResponse(result=result, structured_response=response.structured_response)


class ProjectToolsMiddleware(AgentMiddleware[AgentState[Any], Any]):
    """MCP tools beside the agent's own (``mcp`` off: none), and the chat graph's limits."""

    def __init__(self, *, mcp: bool = True) -> None:
        super().__init__()
        self.mcp = mcp

    async def _mcp_tools(self) -> list[BaseTool]:
        return await cached_mcp_tools() if self.mcp else []

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse | AIMessage:
        if tool_rounds(request.messages) >= MAX_TOOL_ROUNDS:
            return _answer_only(await handler(request.override(tools=[])))
        known = {getattr(t, "name", None) for t in request.tools}
        extra = [t for t in await self._mcp_tools() if t.name not in known]
        if not extra:
            return await handler(request)
        return await handler(request.override(tools=[*request.tools, *extra]))

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: ToolHandler
    ) -> ToolMessage | Command[Any]:
        if request.tool is None:
            name = request.tool_call.get("name")
            tool = next((t for t in await self._mcp_tools() if t.name == name), None)
            if tool is not None:
                request = request.override(tool=tool)
        try:
            return await asyncio.wait_for(handler(request), TOOL_TIMEOUT_S)
        except (asyncio.CancelledError, GraphBubbleUp):
            raise
        except TimeoutError:
            return _failed(request, TOOL_TIMED_OUT)
        except Exception as exc:
            log.warning("tool %r failed (%s)", request.tool_call.get("name"), type(exc).__name__)
            return _failed(request, TOOL_FAILED)
