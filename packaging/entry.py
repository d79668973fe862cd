"""Entry point of the PyInstaller bundle: the same `edgehost` command as the console script.

A frozen build has no ``python -m``, so the bundle's own executable stands in for it: the built-in
servers run as ``edgehost serve board|files`` (a normal subcommand) and the inference worker as
``edgehost __worker__ --fds R,W`` (edgehost.llm.worker_backend.worker_command) and the tool-ranking
process as ``edgehost __ranker__ --fds R,W ...`` (edgehost.agent.ranking_process), routed here before
the CLI parser sees them.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import MutableMapping

WORKER_COMMAND = "__worker__"
RANKER_COMMAND = "__ranker__"


def restore_library_path(environ: MutableMapping[str, str]) -> None:
    """Give child processes the library path the user had, not the bundle's.

    The bootloader starts the app with LD_LIBRARY_PATH pointing into the bundle (the original value,
    if any, in LD_LIBRARY_PATH_ORIG). This process's loader has already read it, and our own helpers
    are the bundle's executable, which sets it again; but a browser opened for a link, an MCP server
    on Node or another Python must not load the bundle's Qt, ICU or libstdc++.
    """
    original = environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if original is not None:
        environ["LD_LIBRARY_PATH"] = original
    else:
        environ.pop("LD_LIBRARY_PATH", None)


def run(argv: list[str]) -> int:
    if argv[:1] == [WORKER_COMMAND]:
        from edgehost.llm.worker import main as worker_main

        return worker_main(argv[1:])
    if argv[:1] == [RANKER_COMMAND]:
        from edgehost.agent.ranking_process import main as ranker_main

        return ranker_main(argv[1:])
    from edgehost.cli.main import main

    return main(argv)


if __name__ == "__main__":
    multiprocessing.freeze_support()
    if getattr(sys, "frozen", False):
        restore_library_path(os.environ)
    sys.exit(run(sys.argv[1:]))
