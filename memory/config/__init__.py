"""What memory runs with: its bounds (``limits``: the contract's numbers, named once), the
environment variables it reads (``settings``) and the compaction model they name
(``model``)."""
