"""``python -m irframe ...`` runs the command line (see `irframe.cli`); `run` is also the
``irframe`` console script."""

import os
import sys

from .cli import main


def run() -> None:
    """The ``irframe`` command: `irframe.cli.main`, then the process ends
    at once with its exit status.

    Once the output is flushed nothing is left to do, and the interpreter's usual exit would
    spend ~35 ms of a small command's ~0.7 s tearing down the modules of pandas, pyarrow and
    numpy (``benchmarks/bench_prefs.py``); ``os._exit`` skips it.  When the output cannot be
    flushed (a closed pipe), the usual exit reports it as Python always does.
    """
    status = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        sys.exit(status)
    os._exit(status)


if __name__ == "__main__":
    run()
