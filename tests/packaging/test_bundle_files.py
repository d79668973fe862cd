"""The checked-in packaging files: the PyInstaller spec, its entry point, the board wheel check."""

from __future__ import annotations

import ast
import fnmatch
import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGING = REPO / "packaging"
SPEC = PACKAGING / "edgehost.spec"


def _load_board_check() -> Any:
    spec = importlib.util.spec_from_file_location("check_board_wheels", PACKAGING / "check_board_wheels.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


check_board_wheels = _load_board_check()


def spec_namespace() -> dict[str, Any]:
    """The spec's constants and its Qt filter, without running PyInstaller."""
    tree = ast.parse(SPEC.read_text(encoding="utf-8"), filename=str(SPEC))
    kept = [
        node
        for node in tree.body
        if isinstance(node, ast.Assign)
        and all(isinstance(t, ast.Name) and t.id.isupper() and t.id != "REPO" for t in node.targets)
        or isinstance(node, ast.FunctionDef)
        and node.name == "keep_file"
    ]
    namespace: dict[str, Any] = {"fnmatch": fnmatch, "Path": Path, "os": __import__("os")}
    exec(compile(ast.Module(body=kept, type_ignores=[]), str(SPEC), "exec"), namespace)
    return namespace


def test_the_spec_is_valid_python_and_names_files_that_exist() -> None:
    spec = spec_namespace()
    assert (REPO / spec["ENTRY"]).is_file()
    for folder in spec["BUNDLED_FOLDERS"]:
        assert any((REPO / folder).iterdir()), f"{folder} is empty"
    assert (REPO / "resources" / "prompts").is_dir()
    assert (REPO / "resources" / "edgehost.desktop").is_file()


@pytest.mark.parametrize(
    ("dest", "kept"),
    [
        ("PySide6/Qt/plugins/platforms/libqxcb.so", True),
        ("PySide6/Qt/plugins/platforms/libqoffscreen.so", True),
        ("PySide6/Qt/plugins/platforms/libqwayland.so", True),
        ("PySide6/Qt/plugins/platforms/libqwayland-generic.so", True),
        ("PySide6/Qt/plugins/platforms/libqvnc.so", False),
        ("PySide6/Qt/plugins/platforms/libqeglfs.so", False),
        ("PySide6/Qt/plugins/imageformats/libqsvg.so", True),
        ("PySide6/Qt/plugins/imageformats/libqpdf.so", False),
        ("PySide6/Qt/plugins/iconengines/libqsvgicon.so", True),
        ("PySide6/Qt/plugins/qmltooling/libqmldbg_debugger.so", False),
        ("PySide6/Qt/plugins/platforminputcontexts/libqtvirtualkeyboardplugin.so", False),
        ("PySide6/Qt/lib/libQt6Qml.so.6", False),
        ("PySide6/Qt/lib/libQt6WebEngineCore.so.6", False),
        ("PySide6/Qt/lib/libQt6Widgets.so.6", True),
        ("PySide6/Qt/lib/libQt6Svg.so.6", True),
        ("llama_cpp/lib/libllama.so", True),
        ("llama_cpp/lib/libllama.so.0", True),
        ("llama_cpp/lib/libllama.so.0.5.0", False),
        # Only Qt's GTK 3 theme needs these, and it loads only where the system has GTK 3 (and them).
        ("libcairo.so.2", False),
        ("libpango-1.0.so.0", False),
        ("libxcb-cursor.so.0", True),
        ("libxkbcommon-x11.so.0", True),
        ("libglib-2.0.so.0", True),
        ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", True),
    ],
)
def test_the_bundle_filter_keeps_what_the_app_uses_and_drops_the_rest(dest: str, kept: bool) -> None:
    assert spec_namespace()["keep_file"](dest) is kept


def test_the_bundle_entry_routes_the_worker_command_to_the_inference_worker() -> None:
    proc = subprocess.run(
        [sys.executable, str(PACKAGING / "entry.py"), "__worker__", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "edgehost-worker" in proc.stdout and "--fds" in proc.stdout


def test_board_requirements_pin_the_floor_qt_and_leave_out_llama_cpp() -> None:
    for version in check_board_wheels.PYTHONS:
        requirements = check_board_wheels.board_requirements(REPO / "pyproject.toml", version)
        assert "PySide6-Essentials==6.8.0.2" in requirements
        assert not any(
            r.lower().startswith(("llama-cpp-python", "pyinstaller", "pytest")) for r in requirements
        )
        assert any(r.startswith("rknn-toolkit-lite2") for r in requirements)
        assert any(r.startswith("tomli") for r in requirements) is (version == "3.10")


def test_board_platform_tags_cover_every_glibc_up_to_2_31() -> None:
    tags = check_board_wheels.aarch64_platform_tags()
    assert tags[0] == "manylinux2014_aarch64"
    assert tags[1:] == [f"manylinux_2_{minor}_aarch64" for minor in range(17, 32)]


def test_the_floor_qt_constraints_match_the_board_check() -> None:
    lines = (PACKAGING / "constraints-floor-qt.txt").read_text(encoding="utf-8").splitlines()
    pins = {line for line in lines if line and not line.startswith("#")}
    assert pins == {"PySide6-Essentials==6.8.0.2", "shiboken6==6.8.0.2"}
    assert check_board_wheels.FLOOR_PINS["pyside6-essentials"] in pins


def _load_entry() -> Any:
    spec = importlib.util.spec_from_file_location("bundle_entry", PACKAGING / "entry.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_children_of_the_bundle_get_the_users_library_path_back() -> None:
    restore = _load_entry().restore_library_path
    environ = {"LD_LIBRARY_PATH": "/opt/edgehost/_internal", "LD_LIBRARY_PATH_ORIG": "/usr/local/cuda/lib64"}
    restore(environ)
    assert environ == {"LD_LIBRARY_PATH": "/usr/local/cuda/lib64"}
    environ = {"LD_LIBRARY_PATH": "/opt/edgehost/_internal", "HOME": "/home/me"}
    restore(environ)
    assert environ == {"HOME": "/home/me"}
