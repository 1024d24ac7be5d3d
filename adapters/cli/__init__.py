"""``aimind``, the command line (contract §14): ``main`` parses and runs the commands, ``graphs``
loads the served graphs by the paths in ``langgraph.json`` (never by importing ``graphs``).

It imports ``memory`` and the lower layers of ``adapters`` (``chat_memory``, ``tools``,
``models``, ``engine``), never ``adapters.server``.
"""
