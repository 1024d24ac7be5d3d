"""The served graphs (``langgraph.json``/``aegra.json`` name each ``graph.py``), one folder
each with the same files: ``graph.py`` (the compiled graph, exported without a
checkpointer), ``prompts.py``, and ``state.py`` and ``nodes.py`` where the graph is
built node by node (``agent`` is a ``create_agent``), plus what only that graph needs.

Graphs import ``adapters.chat_memory`` (memory), ``adapters.models`` and ``adapters.tools``
— never ``memory`` itself, the servers' edge or the CLI; nothing imports the graphs but
the servers and the CLI, by path (the import contracts in ``pyproject.toml``).
"""
