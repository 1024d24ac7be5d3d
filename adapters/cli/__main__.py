"""``python -m adapters.cli``: the same as the ``aimind`` command."""

import sys

from adapters.cli.main import main

sys.exit(main())
