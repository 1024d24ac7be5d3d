"""The production server, Aegra on PostgreSQL + Redis (contract §15).

``preflight`` checks a replica's configuration before it starts
(``scripts/serve-prod.sh``); ``start`` runs Aegra's start-up one replica at a
time; ``runs`` wakes ``runs.wait``/``runs.join`` when a run ends. The patches
apply only on the ``aegra-api`` versions reviewed (``adapters.engine``).
"""
