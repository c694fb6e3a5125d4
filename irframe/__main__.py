"""``python -m irframe ...`` runs the command line (see `irframe.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
