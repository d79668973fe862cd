"""`edgehost` entry point: global options, then a subcommand; no subcommand starts the desktop app."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from edgehost import __version__
from edgehost.cli.context import CliContext
from edgehost.errors import ConfigError, EdgeHostError, UsageError
from edgehost.paths import Paths
from edgehost.programs import use_runtimes_of

# Each module defines ``register(subparsers)`` and sets ``handler=`` on its parsers; a handler takes
# the CliContext and returns an exit code (or a coroutine giving one). A command imports only its own
# module (`history` and `models` start in a fraction of what importing the MCP SDK costs); `--help`
# and a word that is no command import them all. tests/cli/test_command_table.py keeps this table true.
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "edgehost.cli.mcp_commands": ("servers", "tools", "call", "resources", "read", "prompts", "prompt"),
    "edgehost.cli.probe_commands": ("probe",),
    "edgehost.cli.config_commands": ("config", "serve"),
    "edgehost.cli.model_commands": ("models", "ask"),
    "edgehost.cli.board_commands": ("doctor",),
    "edgehost.cli.agent_commands": ("calls",),
    "edgehost.cli.chat_commands": ("chat",),
    "edgehost.cli.history_commands": ("history",),
    "edgehost.cli.desktop_commands": ("install-desktop",),
    "edgehost.cli.web_commands": ("web",),
    "edgehost.cli.auth_commands": ("auth",),
    "edgehost.cli.approval_commands": ("approvals",),
    "edgehost.cli.runtime_commands": ("runtimes",),
    "edgehost.cli.bundle_commands": ("install", "uninstall", "bundles"),
}
_MODULE_OF = {word: module for module, words in COMMAND_MODULES.items() for word in words}
_GLOBAL_OPTIONS_WITH_VALUE = {"--config", "--data-dir", "--profile", "--web"}


def _command_word(argv: Sequence[str]) -> str | None:
    """The subcommand named in argv (the first word that is not a global option or its value)."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in _GLOBAL_OPTIONS_WITH_VALUE:
            skip = True
        elif not word.startswith("-"):
            return word
    return None


def _modules_for(argv: Sequence[str]) -> Sequence[str]:
    """The command modules ``argv`` needs: its command's; none for the desktop app (its window must not
    wait for every command's imports); all for the top-level --help and for a word that is no command
    (argparse then lists them all)."""
    word = _command_word(argv)
    if word is None:
        return tuple(COMMAND_MODULES) if {"-h", "--help"} & set(argv) else ()
    module = _MODULE_OF.get(word)
    return (module,) if module is not None else tuple(COMMAND_MODULES)


def build_parser(modules: Sequence[str] = tuple(COMMAND_MODULES)) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="edgehost",
        description="EdgeHost: an MCP host with an on-device LLM. Without a command, starts the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"edgehost {__version__}")
    parser.add_argument(
        "--config", metavar="FILE", help="servers config (Claude Desktop / VS Code JSON, or TOML)"
    )
    parser.add_argument(
        "--data-dir", metavar="DIR", help="keep all state (settings, history, models, logs) in DIR"
    )
    parser.add_argument("--profile", metavar="NAME", help="board profile to use instead of the detected one")
    parser.add_argument(
        "--quick-ask", action="store_true", help="toggle the quick-ask window of the running app"
    )
    parser.add_argument(
        "--self-test", action="store_true", help="start the app offscreen, run a scripted turn, exit"
    )
    parser.add_argument(
        "--hidden", action="store_true", help="start the app in the tray without showing its window"
    )
    parser.add_argument(
        "--web",
        metavar="ADDRESS[:PORT]",
        help="also serve the chat page (as `edgehost web`) from the app, e.g. --web 0.0.0.0",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="also print INFO log records (not only warnings)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_modules_for(argv))
    args = parser.parse_args(argv)
    ctx = CliContext(
        paths=Paths.resolve(args.config, args.data_dir), args=args, profile_override=args.profile
    )
    use_runtimes_of(ctx.paths.data_dir)  # servers find the Node installed into the data folder
    # Built-in servers (`serve`) keep stderr for the host's capture of their output and log only there.
    # The desktop app configures its logging itself, once its window is shown (logging.handlers is slow).
    logs = None
    if args.command not in ("serve", None):
        from edgehost.logs import configure_logging

        logs = configure_logging(ctx.paths, verbose=args.verbose)
    try:
        if args.command is None:
            from edgehost.cli.page_beside import PageBeside  # imports nothing of the web face yet
            from edgehost.ui.app import Launch, run_app  # Qt is imported only when the GUI starts

            address = None
            if args.web:
                from edgehost.cli.web_commands import parse_address

                address = parse_address(args.web)
            beside = PageBeside(ctx.paths.data_dir / "web-token", address).serve
            return run_app(
                Launch(
                    ctx.paths,
                    ctx.settings,
                    ctx.profile_override,
                    quick_ask=bool(getattr(args, "quick_ask", False)),
                    hidden=bool(getattr(args, "hidden", False)),
                    self_test=bool(getattr(args, "self_test", False)),
                    verbose=bool(args.verbose),
                    beside=beside,
                )
            )
        handler = getattr(args, "handler", None)
        if handler is None:
            parser.parse_args([*argv, "--help"])
            return 2
        import inspect  # here, not at the top: the desktop app's window must not wait for it

        result = handler(ctx)
        if inspect.iscoroutine(result):
            import asyncio

            result = asyncio.run(result)
        return int(result or 0)
    except (ConfigError, UsageError) as exc:
        print(f"edgehost: {exc}", file=sys.stderr)
        return 2
    except EdgeHostError as exc:
        print(f"edgehost: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("edgehost: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    finally:
        if logs is not None:
            logs.close()
