"""`edgehost install-desktop`: the menu entry, icons and tray autostart in the user's XDG folders."""

from __future__ import annotations

import argparse
import os

from edgehost.cli.context import CliContext, print_json
from edgehost.desktop import (
    HIDDEN_OPTION,
    XdgDirs,
    desktop_exec_value,
    install_desktop,
    launch_command,
    uninstall_desktop,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "install-desktop",
        help="add EdgeHost to the application menu (icons, .desktop entry, optional autostart)",
        description=(
            "Write a menu entry to $XDG_DATA_HOME/applications, icons to $XDG_DATA_HOME/icons/hicolor "
            "and, with --autostart, an entry to $XDG_CONFIG_HOME/autostart that starts EdgeHost at login. "
            "The entries run this EdgeHost (the bundle, or the installed console script) by absolute path,"
            " with the --data-dir, --config and --profile given to install-desktop."
        ),
    )
    p.add_argument("--autostart", action="store_true", help="also start EdgeHost (in the tray) at login")
    p.add_argument("--uninstall", action="store_true", help="remove what install-desktop wrote")
    p.add_argument("--json", action="store_true", help="print the files written or removed as JSON")
    p.set_defaults(handler=run_install_desktop)


def run_install_desktop(ctx: CliContext) -> int:
    xdg = XdgDirs.from_environ()
    if ctx.args.uninstall:
        if ctx.args.autostart:
            print("edgehost: --uninstall removes the autostart entry too; --autostart is ignored")
        result = uninstall_desktop(xdg)
        if ctx.args.json:
            print_json({"action": "uninstall", "removed": result.removed, "kept": result.kept})
            return 0
        for path in result.removed:
            print(f"removed {path}")
        for path in result.kept:
            print(f"kept {path} (not written by edgehost install-desktop)")
        if not result.removed:
            print("nothing to remove")
        return 0
    installed = install_desktop(xdg, autostart=ctx.args.autostart, command=[*launch_command(), *_set_up(ctx)])
    if ctx.args.json:
        print_json(
            {
                "action": "install",
                "command": list(installed.command),
                "exec": desktop_exec_value(installed.command),
                "written": installed.written,
            }
        )
        return 0
    for path in installed.written:
        print(f"wrote {path}")
    print(f"the menu entry runs: {desktop_exec_value(installed.command)}")
    if ctx.args.autostart:
        print(f"at login, in the tray: {desktop_exec_value([*installed.command, HIDDEN_OPTION])}")
    return 0


def _set_up(ctx: CliContext) -> list[str]:
    """The global options this install-desktop ran with, by absolute path: the app started from the menu
    then opens the same settings, history and servers (it had opened the default data folder)."""
    options: list[str] = []
    if ctx.args.data_dir or os.environ.get("EDGEHOST_DATA_DIR"):
        options += ["--data-dir", str(ctx.paths.data_dir)]
    if ctx.paths.explicit_config is not None:
        options += ["--config", str(ctx.paths.explicit_config)]
    if ctx.profile_override:
        options += ["--profile", ctx.profile_override]
    return options
