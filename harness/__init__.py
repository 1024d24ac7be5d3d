"""The real parts the tests and the bench both run against: ``langgraph dev`` and Aegra
processes, Redis, PgBouncer, a PostgreSQL of their own, an OpenAI-compatible stub, a
user's own agent folder, and the faults they inject.

A package of the checkout, beside ``tests/`` and ``bench/`` and imported by both, so that
neither imports the other's helpers; it is not installed, and the product never imports
it (``pyproject.toml``'s import contracts).
"""
