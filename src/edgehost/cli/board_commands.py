"""`edgehost doctor`: what this machine is, which backends can run, and how to fix what cannot.

Detection reads ``$EDGEHOST_SYSFS_ROOT`` instead of ``/`` when it is set (a fake tree for tests and
demos); the global ``--profile NAME`` overrides the detected board profile. What will actually be used
(profile, backend, threads and pinning) comes from cli/doctor_plan.py.
"""

from __future__ import annotations

import argparse
import importlib.metadata
from pathlib import Path
from typing import Any

from edgehost.boards import (
    BoardInfo,
    BoardProfile,
    big_cores,
    detect_board,
    read_memory,
    read_thermal_zones,
    system_root,
)
from edgehost.boards.gui_platform import GuiPlatform, check_gui_platform, install_hint
from edgehost.cli.context import CliContext, print_json
from edgehost.cli.doctor_plan import backend_plan, inference_plan, print_plan, profile_plan
from edgehost.llm.base import BackendError
from edgehost.llm.rkllm import locate_library, render_group_hint
from edgehost.mcp.runtimes import runtime_inventory, runtime_needs
from edgehost.models.catalog import BoardFacts, cpu_cores, load_catalog, recommend

__all__ = ["build_report", "register"]

# Distribution names whose versions doctor reports (read from metadata: nothing is imported).
LIBRARIES = (
    "edgehost",
    "mcp",
    "PySide6-Essentials",
    "PySide6",
    "qasync",
    "llama_cpp_python",
    "rknn-toolkit-lite2",
)
RKLLM_DOWNLOAD_HINT = (
    "download librkllmrt.so (1.2.1-1.2.3 or 1.3.0) from github.com/airockchip/rknn-llm "
    "(rkllm-runtime/Linux/librkllm_api/aarch64) to /usr/lib, or pass --rkllm-lib PATH"
)


def register(sub: argparse._SubParsersAction) -> None:
    doctor = sub.add_parser(
        "doctor",
        help="check the board, NPU, backends and models, with a hint for each problem",
        description="Check the board, its profile, the NPU, each LLM backend and the models; print a hint "
        "for every problem. Set EDGEHOST_SYSFS_ROOT to read a fake /proc and /sys tree instead of the real one.",
    )
    doctor.add_argument("--json", action="store_true", help="print JSON")
    doctor.add_argument("--rkllm-lib", metavar="PATH", help="librkllmrt.so to check")
    doctor.set_defaults(handler=doctor_command)


def _library_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def _backends(
    ctx: CliContext, profile: BoardProfile | None, rkllm_lib: str | None
) -> dict[str, dict[str, Any]]:
    try:
        from edgehost.llm.factory import check_backends
    except ImportError as exc:
        unknown = {"available": False, "reason": f"unknown (backend checks not available: {exc})"}
        return {name: dict(unknown) for name in ("llamacpp", "rkllm", "openai")}
    results = check_backends(ctx.settings, profile, ctx.paths, rkllm_lib=rkllm_lib)
    return {name: result.as_dict() for name, result in results.items()}


def _models(ctx: CliContext) -> list[dict[str, Any]]:
    try:
        from edgehost.models.files import find_models
    except ImportError:
        return []
    return [m.as_dict() for m in find_models(ctx.paths.models_dir, [ctx.settings.model])]


def _rkllm_runtime(ctx: CliContext, rkllm_lib: str | None) -> dict[str, Any]:
    try:
        library = locate_library(rkllm_lib, ctx.settings.rkllm_lib, ctx.settings.rkllm_abi)
    except BackendError as exc:
        return {"found": False, "error": str(exc)}
    return {"found": True, "path": str(library.path), "version": library.version, "abi": library.abi}


def _problems(
    info: BoardInfo,
    profile: BoardProfile | None,
    backends: dict[str, dict[str, Any]],
    runtime: dict[str, Any],
    gui: GuiPlatform,
) -> list[dict[str, str]]:
    problems: list[dict[str, str]] = []

    def add(problem: str, hint: str) -> None:
        problems.append({"problem": problem, "hint": hint})

    if gui.missing:
        add(
            f"the window cannot open: Qt's X11 (xcb) plugin needs {', '.join(gui.missing)}",
            f"{install_hint(gui.packages)} (the terminal chat, `edgehost chat`, works without them)",
        )

    npu = info.npu
    expects_npu = profile is not None and profile.npu_cores > 0
    if profile is not None and expects_npu and not npu.present:
        add(
            f"no NPU found although the board profile {profile.name!r} expects one",
            "use a vendor Rockchip kernel (5.10/6.1) with the rknpu driver; the mainline Rocket driver does not "
            "work with RKLLM, and 'Lite' boards (RK3582) may have the NPU fused off",
        )
    if npu.present and not npu.node_exists:
        add(f"the NPU device node {npu.render_node} is missing", "check that udev created /dev/dri/renderD*")
    elif npu.present and not npu.accessible:
        add(f"no permission to use the NPU node {npu.render_node}", render_group_hint(npu.node_group))
    if npu.driver_too_old:
        add(
            f"the NPU driver {npu.driver_version} is too old for RKLLM",
            "update to a vendor kernel with rknpu 0.9.7 or newer (0.9.8 recommended)",
        )
    if npu.present and not runtime.get("found"):
        add(str(runtime.get("error")), RKLLM_DOWNLOAD_HINT)
    for name, result in backends.items():
        if name == "openai" or result.get("available"):
            continue
        if name == "rkllm" and not (npu.present or expects_npu):
            continue  # no NPU here: RKLLM being unavailable is not a problem to fix
        reason = str(result.get("reason", ""))
        if any(reason.endswith(item["problem"]) for item in problems):
            continue  # said above, with its hint (the runtime not found)
        if name == "llamacpp":
            hint = "pip install 'edgehost[llamacpp]' (or `make run`, which installs it), then check the model path"
        elif "model" in reason:
            hint = "put a .rkllm model (w8a8 for RK3588) in the models folder and set it as the model in the settings"
        else:
            hint = reason
        add(f"{name}: {reason}", hint)
    if not any(r.get("available") for r in backends.values()):
        add(
            "no LLM backend can run here",
            "fix one of the problems above, or point the openai backend at a server",
        )
    return problems


def build_report(ctx: CliContext, rkllm_lib: str | None = None) -> dict[str, Any]:
    """Everything doctor knows, as JSON-able data. Raises UsageError for an unknown --profile (an unknown
    profile in the settings file is one of the problems, and the detected profile is used)."""
    root = system_root()
    info = detect_board(root)
    choice, profile_folders, profile_problems = profile_plan(ctx, info)
    profile = choice.profile
    memory = read_memory(root)
    backends = _backends(ctx, profile, rkllm_lib)
    backend = backend_plan(ctx, profile, rkllm_lib)
    runtime = _rkllm_runtime(ctx, rkllm_lib)
    gui = check_gui_platform()
    facts = BoardFacts(
        ram_gb=info.ram_gb,
        npu=info.npu.present,
        rkllm_runtime=(runtime.get("version") or runtime.get("abi")) if runtime.get("found") else None,
        cpu_cores=cpu_cores(info),
    )
    catalog = load_catalog()
    recommended = [
        {
            "backend": backend,
            "model": m.name,
            "file": m.file,
            "ram_gb": m.ram_gb,
            "pull": f"edgehost models pull {m.name}",
        }
        for backend in profile.backend_order
        if (m := recommend(catalog, profile, facts, backend)) is not None
    ]
    servers = _servers(ctx)
    board = info.as_dict()
    board["profile"] = profile.as_dict()
    board["profile"]["chosen_by"] = choice.chosen_by
    board["profile"]["rule"] = choice.rule  # the detection rule that matched; None when named
    return {
        "board": board,
        "profiles": profile_folders,
        "backend": backend,
        "inference": inference_plan(ctx, profile, info, backend["name"]),
        "sysfs_root": str(root),
        "cpu": {
            "count": len(info.cpus),
            "big_cores": list(big_cores(info.cpus)),
            "cores": [
                {
                    "cpu": c.id,
                    "max_mhz": c.max_freq_khz // 1000 if c.max_freq_khz else None,
                    "capacity": c.capacity,
                }
                for c in info.cpus
            ],
        },
        "memory": {"total_bytes": memory.total_bytes, "available_bytes": memory.available_bytes},
        "npu": board["npu"],
        "thermal": [{"type": z.type, "temp_c": z.temp_c} for z in read_thermal_zones(root)],
        "rkllm_runtime": runtime,
        "backends": backends,
        "models": _models(ctx),
        "recommended_models": recommended,
        "embedded_model_in_use": not (ctx.settings.model or ctx.settings.backend == "openai"),
        "libraries": _library_versions(),
        "gui": {
            "platform": gui.platform,
            "display": gui.display,
            "checked": gui.checked,
            "missing_libraries": list(gui.missing),
            "packages": gui.packages,
        },
        "files": {
            "servers_file": str(ctx.paths.servers_file),
            "data_dir": str(ctx.paths.data_dir),
            "history": str(ctx.paths.history_db),
            "logs": str(ctx.paths.log_dir),
        },
        "servers": servers,
        "problems": profile_problems
        + _problems(info, profile, backends, runtime, gui)
        + _server_problems(servers),
    }


def _servers(ctx: CliContext) -> dict[str, Any]:
    """What the servers file says, read as the app reads it, without connecting any server."""
    config = ctx.servers_config()
    return {
        "configured": [s.name for s in config.servers if not s.builtin],
        "file_error": config.file_error,
        "entry_errors": [s.error for s in config.servers if s.error],
        "warnings": config.warnings,
        # The programs the servers start (npx, uvx, docker, python ...), found here or not.
        "runtimes": [need.as_dict() for need in runtime_needs(config.servers)],
        # Every runtime servers run with, present or missing, whether a server needs it yet or not.
        "available_runtimes": runtime_inventory(),
    }


def _server_problems(servers: dict[str, Any]) -> list[dict[str, str]]:
    check = "`edgehost config check` shows each problem at its line; `edgehost servers` connects them"
    problems = (
        [{"problem": f"the servers file cannot be read: {servers['file_error']}", "hint": check}]
        if servers["file_error"]
        else []
    )
    problems += [{"problem": error, "hint": check} for error in servers["entry_errors"]]
    problems += [
        {"problem": _missing_runtime(need), "hint": need["install"]}
        for need in servers["runtimes"]
        if need["found"] is None
    ]
    return problems


def _missing_runtime(need: dict[str, Any]) -> str:
    what = f"{need['command']} ({need['title']})" if need["title"] else need["command"]
    names = need["servers"]
    who = f"the servers {', '.join(names)} need" if len(names) > 1 else f"the server {names[0]} needs"
    return f"{what} is not installed here: {who} it"


def _print_text(report: dict[str, Any]) -> None:
    board = report["board"]
    profile = board["profile"]
    print(f"Board:    {board['model'] or 'unknown'} ({board['machine']}, SoC {board['soc'] or 'unknown'})")
    rule = f": {profile['rule']}" if profile["rule"] else ""
    print(f"Profile:  {profile['name']} - {profile['display_name']} (chosen by {profile['chosen_by']}{rule})")
    cpu = report["cpu"]
    big = ", ".join(map(str, cpu["big_cores"])) or "all alike"
    print(f"CPU:      {cpu['count']} cores; big cores: {big}")
    total = report["memory"]["total_bytes"]
    print(f"RAM:      {total / 2**30:.1f} GiB" if total else "RAM:      unknown")
    npu = report["npu"]
    if npu["present"]:
        access = (
            "missing: no device node"
            if not npu["node_exists"]
            else "usable"
            if npu["accessible"]
            else "NO PERMISSION"
        )
        print(
            f"NPU:      {npu['render_node']} ({access}), driver {npu['driver_version'] or 'version unreadable'}"
        )
    else:
        print("NPU:      none")
    runtime = report["rkllm_runtime"]
    if runtime.get("found"):
        print(f"RKLLM:    {runtime['path']} (runtime {runtime['version'] or '?'}, ABI {runtime['abi']})")
    for zone in report["thermal"]:
        temp = f"{zone['temp_c']:.1f} °C" if zone["temp_c"] is not None else "?"
        print(f"Thermal:  {zone['type']}: {temp}")
    print("Backends:")
    for name, result in report["backends"].items():
        mark = "ok " if result["available"] else "no "
        print(f"  {mark} {name}: {result['reason']}")
    print_plan(report)
    print("Models:")
    for model in report["models"] or [{"name": "(none found)", "source": "", "format": ""}]:
        print(f"  {model['name']} {model.get('format', '')} {model.get('source', '')}".rstrip())
    for item in report["recommended_models"]:
        print(f"Suggested for this board and RAM ({item['backend']}): {item['model']} — {item['pull']} --use")
    if report["embedded_model_in_use"] and report["recommended_models"]:
        print(
            "Note:     the embedded SmolLM2-135M is a tiny model for trying EdgeHost out; "
            "a suggested one above answers and uses tools far better."
        )
    gui = report["gui"]
    screen = gui["display"] or "no display: a headless machine uses `edgehost chat`"
    state = "MISSING LIBRARIES" if gui["missing_libraries"] else "ok" if gui["checked"] else "not checked"
    print(f"Window:   Qt {gui['platform']} on {screen} ({state})")
    versions = ", ".join(f"{k} {v}" for k, v in report["libraries"].items() if v)
    print(f"Libraries: {versions}")
    files = report["files"]
    servers = report["servers"]
    own = ", ".join(servers["configured"]) or "none besides the built-in ones"
    print(f"Servers:  {files['servers_file']} ({own}; `edgehost servers` connects and checks them)")
    for need in servers["runtimes"]:
        what = f"{need['command']} ({need['title']})" if need["title"] else need["command"]
        state = need["found"] or f"MISSING - {need['install']}"
        print(f"  {what} for {', '.join(need['servers'])}: {state}")
    for warning in servers["warnings"]:
        print(f"  warning: {warning}")
    runtimes = "; ".join(
        f"{row['runtime']} {'yes' if row['found'] else 'no (' + row['install'] + ')'}"
        for row in servers["available_runtimes"]
    )
    print(f"Runtimes: {runtimes}")
    print(f"Data:     {files['data_dir']} (history {Path(files['history']).name}, logs in {files['logs']})")
    if report["problems"]:
        print("Problems:")
        for item in report["problems"]:
            print(f"  - {item['problem']}\n    hint: {item['hint']}")
    else:
        print("No problems found.")


def doctor_command(ctx: CliContext) -> int:
    report = build_report(ctx, getattr(ctx.args, "rkllm_lib", None))
    if ctx.args.json:
        print_json(report)
    else:
        _print_text(report)
    return 0
