"""Which process this is: the command line's own, or any other (a library user's).

Its own module, importing nothing of irframe, so that any layer may ask
(`irframe._lazy`, `irframe.measures`).
"""

from __future__ import annotations

import os
import sys

__all__ = ["command_line"]


def command_line() -> bool:
    """Is this process irframe's command line: the ``irframe`` script or ``python -m irframe``?

    >>> command_line()  # a test runner is not
    False
    """
    argv = list(getattr(sys, "orig_argv", ()))
    if "-m" in argv[:-1] and argv[argv.index("-m") + 1] in ("irframe", "irframe.cli"):
        return True
    script = os.path.basename(sys.argv[0]) if sys.argv else ""
    return script in ("irframe", "irframe.exe", "irframe-script.py")
