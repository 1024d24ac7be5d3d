"""What a turn may call or read: the built-in tools, the local documents and MCP.

``builtin`` is the chat graph's tools (calculator, time, document reader) and
the tool-loop bounds; ``resources`` reads ``documents/`` (or
``AIMIND_DOCS_DIR``) safely; ``mcp/`` is the MCP client, its per-server
sessions and our own stdio server. It imports nothing else of ``adapters``.
"""
