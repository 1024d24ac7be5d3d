"""``python -m aimind_memory.adapters.cli``: the same as the ``aimind`` command."""

import sys

from aimind_memory.adapters.cli.main import main

sys.exit(main())
