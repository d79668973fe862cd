"""Entry point of the PyInstaller bundle: the same `edgehost` command as the console script.

A frozen build has no ``python -m``, so the bundle's own executable stands in for it: the built-in
servers run as ``edgehost serve board|files`` (a normal subcommand) and the inference worker as
``edgehost __worker__ --fds R,W`` (edgehost.llm.worker_backend.worker_command), routed here before
the CLI parser sees it.
"""

from __future__ import annotations

import multiprocessing
import sys

WORKER_COMMAND = "__worker__"


def run(argv: list[str]) -> int:
    if argv[:1] == [WORKER_COMMAND]:
        from edgehost.llm.worker import main as worker_main

        return worker_main(argv[1:])
    from edgehost.cli.main import main

    return main(argv)


if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(run(sys.argv[1:]))
