"""MCP: the client the graphs use (``client``), one live session per configured
server (``sessions``), and the project's own stdio server (``server``,
``python -m aimind_memory.adapters.tools.mcp.server``). Like all of ``adapters.tools``, it imports
nothing else of ``adapters``.
"""
