"""The edges between the graphs, memory and the outside world.

Layers, lowest first; each imports only those below it (and ``memory``), never
``graphs``:

- ``settings`` — the environment variables the servers, the tools and the scripts
  read, declared once (memory's own are ``memory.config.settings``);
- ``engine`` — which server this process is, and whether its internals are the
  versions we reviewed;
- ``tools/`` — the chat tools, the local documents and MCP;
- ``models/`` — the chat model provider and the offline model;
- ``chat_memory/`` — the graphs' edge to memory: the memory runtime, the
  final-turn adapter, ``ChatMemoryMiddleware`` for any ``create_agent`` agent;
- ``server/`` — everything both HTTP engines load: the app, auth, the page,
  and the engine-specific patches (``langgraph_dev/``, ``aegra/``);
- ``cli/`` — ``aimind``, which loads graphs by the paths in ``langgraph.json``.
"""
