"""Development-only patches for ``langgraph dev`` (``langgraph-api``'s in-memory runtime).

``run_queue`` wakes the run queue when a run is created; ``delta_history``
forwards the saver's delta-channel history through the server's checkpointer
adapter. Each applies only in ``langgraph dev``'s own process, on the
``langgraph-api`` versions reviewed (``adapters.engine``). ``checkpointer`` is the
server's saver (``langgraph.json`` ``checkpointer.path``) on memory's database.
"""
