"""RKLLM (Rockchip NPU) backend: ctypes binding of librkllmrt.so for the 1.2.1-1.2.3 and 1.3.0 ABIs.

Layers: ``_abi`` (structs per ABI) -> ``_handle`` (owns the loaded library, the callback object and
the model handle) -> ``engine`` (the worker-side Engine). This module only answers whether the
backend can run here, without loading the library into the calling process.
"""

from __future__ import annotations

import os
from pathlib import Path

from edgehost.boards.detection import MIN_RKNPU_DRIVER, detect_npu, system_root
from edgehost.boards.profiles import BoardProfile
from edgehost.llm.base import BackendError
from edgehost.llm.rkllm._library import LibraryInfo, locate_library
from edgehost.settings import Settings

__all__ = ["LibraryInfo", "availability", "locate_library", "render_group_hint"]


def render_group_hint(group: str | None) -> str:
    return f"add your user to the {group or 'render'} group: sudo usermod -aG {group or 'render'} $USER (then log in again)"


def availability(
    settings: Settings,
    profile: BoardProfile | None,
    rkllm_lib: str | os.PathLike[str] | None = None,
    *,
    root: Path | None = None,
) -> tuple[bool, str]:
    """Whether RKLLM can run here, and why not: NPU node, permission on it, driver version, library
    present with a supported version, a .rkllm model configured.

    ``root`` defaults to system_root() ($EDGEHOST_SYSFS_ROOT or /). Never loads the library and never
    raises for a missing piece: the reason says what is missing and how to fix it.
    """
    npu = detect_npu(root if root is not None else system_root())
    if not npu.present:
        board = (
            f" ({profile.display_name} has no NPU)" if profile is not None and profile.npu_cores == 0 else ""
        )
        return False, f"no Rockchip NPU found{board}: no /sys/class/drm/renderD* device with DRIVER=RKNPU"
    if not npu.node_exists:
        return False, f"the NPU device node {npu.render_node} is missing"
    if not npu.accessible:
        return False, f"no permission on the NPU node {npu.render_node}: {render_group_hint(npu.node_group)}"
    if npu.driver_too_old:
        minimum = ".".join(map(str, MIN_RKNPU_DRIVER))
        return False, (
            f"the NPU driver {npu.driver_version} is too old: RKLLM needs {minimum} or newer "
            "(a vendor Rockchip 5.10/6.1 kernel; the mainline Rocket driver does not work)"
        )
    try:
        library: LibraryInfo = locate_library(rkllm_lib, settings.rkllm_lib, settings.rkllm_abi)
    except BackendError as exc:
        return False, str(exc)
    model = settings.model
    if not model or not model.endswith(".rkllm"):
        return False, "no .rkllm model configured: set the model setting (or --model) to a .rkllm file"
    if not Path(model).expanduser().is_file():
        return False, f"the model file {model} does not exist"
    version = library.version or f"ABI {library.abi}"
    return True, f"RKLLM runtime {version} ({library.path}), NPU {npu.render_node}"
