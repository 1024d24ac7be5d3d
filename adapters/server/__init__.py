"""What both HTTP engines (``langgraph dev`` and Aegra) load for this project.

``app`` is the FastAPI app of ``langgraph.json``/``aegra.json`` ``http.app`` (the
memory routes and the chat page, whose files are ``static/``); ``auth`` is their
``auth.path``, on the session tokens of ``session_token`` and the one-token rule of
``identity_guard`` (which also refuses cross-site writes: ``cross_site``);
``run_input`` checks what a run is sent; ``memory_panel`` is the page's view of memory.
The app's middleware is the HTTP edge of both servers: ``request_guard`` (what a
request may carry: ``request_limits``, ``memory_threads``, ``body_rules``),
``server_errors`` (an unhandled error: one safe log line) and ``thread_labels`` (a
thread list's labels on Aegra); ``refusals`` is how it answers by itself, with the
server's CORS headers. ``langgraph_dev/`` and ``aegra/`` hold the patches that apply to
one engine only, each gated on the versions reviewed. It may import every other layer
of ``adapters`` and ``memory``; nothing imports it but the engines (and the tests).
"""
