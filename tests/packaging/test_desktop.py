"""Desktop integration: the menu entry, icons and autostart entry in temporary XDG folders."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from edgehost.desktop import (
    ICON_SIZES,
    INSTALL_MARKER,
    XdgDirs,
    desktop_exec_value,
    install_desktop,
    launch_command,
    render_desktop_entry,
    resources_dir,
    uninstall_desktop,
)

REPO = Path(__file__).resolve().parents[2]
VALIDATOR = shutil.which("desktop-file-validate")
needs_validator = pytest.mark.skipif(
    VALIDATOR is None, reason="desktop-file-validate not installed (Debian package desktop-file-utils)"
)


@pytest.fixture
def xdg(tmp_path: Path) -> XdgDirs:
    return XdgDirs(data_home=tmp_path / "data", config_home=tmp_path / "config")


def all_files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


def validation_errors(*files: Path) -> str:
    assert VALIDATOR is not None
    proc = subprocess.run(
        [VALIDATOR, "--no-hints", *map(str, files)], capture_output=True, text=True, timeout=30
    )
    return proc.stdout + proc.stderr if proc.returncode != 0 or proc.stdout.strip() else ""


def test_resources_are_found_in_the_source_checkout() -> None:
    assert resources_dir() == REPO / "resources"


def test_every_icon_size_exists_as_a_png_of_that_size() -> None:
    icons = resources_dir() / "icons"
    for size in ICON_SIZES:
        header = (icons / f"edgehost-{size}.png").read_bytes()[:24]
        assert header[:8] == b"\x89PNG\r\n\x1a\n"
        assert (int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")) == (size, size)
    for size in (16, 22, 24, 32):
        assert (icons / f"edgehost-tray-{size}.png").is_file()


def test_install_writes_menu_entry_and_every_icon_and_no_autostart_unless_asked(xdg: XdgDirs) -> None:
    result = install_desktop(xdg, command=["/opt/edgehost/edgehost"])
    assert xdg.menu_entry in result.written
    assert not xdg.autostart_entry.exists()
    for size in ICON_SIZES:
        assert (xdg.icons_root / f"{size}x{size}" / "apps" / "edgehost.png").is_file()
    assert (xdg.icons_root / "scalable" / "apps" / "edgehost.svg").is_file()
    entry = xdg.menu_entry.read_text(encoding="utf-8")
    assert "Exec=/opt/edgehost/edgehost\n" in entry
    assert "Exec=/opt/edgehost/edgehost --quick-ask\n" in entry
    assert "Icon=edgehost\n" in entry


def test_uninstall_after_install_with_autostart_leaves_no_file_behind(xdg: XdgDirs, tmp_path: Path) -> None:
    install_desktop(xdg, autostart=True, command=["/opt/edgehost/edgehost"])
    assert xdg.autostart_entry.is_file()
    result = uninstall_desktop(xdg)
    assert all_files(tmp_path) == set()
    assert not xdg.icons_root.exists()
    assert len(result.removed) == len(ICON_SIZES) + 3 and result.kept == ()


def test_uninstall_leaves_other_applications_files_and_foreign_entries_alone(xdg: XdgDirs) -> None:
    other_entry = xdg.data_home / "applications" / "other.desktop"
    other_icon = xdg.icons_root / "48x48" / "apps" / "other.png"
    for path in (other_entry, other_icon):
        path.parent.mkdir(parents=True)
        path.write_text("not ours")
    install_desktop(xdg, command=["/opt/edgehost/edgehost"])
    # An autostart entry with our name that install-desktop did not write (no marker) is kept.
    xdg.autostart_entry.parent.mkdir(parents=True)
    xdg.autostart_entry.write_text("[Desktop Entry]\nType=Application\nName=Mine\nExec=edgehost\n")

    result = uninstall_desktop(xdg)

    assert result.kept == (xdg.autostart_entry,)
    assert all_files(xdg.data_home.parent) == {other_entry, other_icon, xdg.autostart_entry}


@needs_validator
def test_the_template_and_both_installed_entries_validate(xdg: XdgDirs) -> None:
    install_desktop(xdg, autostart=True, command=["/home/me/My Apps/edge$host/edgehost", "--flag=100%"])
    assert (
        validation_errors(REPO / "resources" / "edgehost.desktop", xdg.menu_entry, xdg.autostart_entry) == ""
    )


def test_exec_arguments_are_quoted_as_the_desktop_entry_spec_says() -> None:
    assert desktop_exec_value(["/usr/bin/edgehost", "--quick-ask"]) == "/usr/bin/edgehost --quick-ask"
    assert desktop_exec_value(["/home/me/My Apps/edgehost"]) == '"/home/me/My Apps/edgehost"'
    assert desktop_exec_value(["/a/$x`y"]) == '"/a/\\\\$x\\\\`y"'
    assert desktop_exec_value(["/a/50%"]) == "/a/50%%"
    assert desktop_exec_value(['/a/"q"\\b']) == '"/a/\\\\"q\\\\"\\\\\\\\b"'


def test_autostart_entry_has_no_desktop_actions() -> None:
    template = (REPO / "resources" / "edgehost.desktop").read_text(encoding="utf-8")
    entry = render_desktop_entry(template, ["/x/edgehost"], autostart=True)
    assert "[Desktop Action" not in entry and "Actions=" not in entry
    assert f"{INSTALL_MARKER}=" in entry and "X-GNOME-Autostart-enabled=true" in entry


def test_the_autostart_entry_starts_the_app_hidden_in_the_tray_and_the_menu_entry_does_not(
    xdg: XdgDirs,
) -> None:
    install_desktop(xdg, autostart=True, command=["/opt/edge host/edgehost"])
    autostart_execs = exec_lines(xdg.autostart_entry)
    menu_execs = exec_lines(xdg.menu_entry)
    assert autostart_execs == ['Exec="/opt/edge host/edgehost" --hidden']
    assert menu_execs == ['Exec="/opt/edge host/edgehost"', 'Exec="/opt/edge host/edgehost" --quick-ask']


def exec_lines(entry: Path) -> list[str]:
    return [line for line in entry.read_text(encoding="utf-8").splitlines() if line.startswith("Exec=")]


def test_a_frozen_bundle_launches_its_own_executable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    exe = tmp_path / "dist" / "edgehost" / "edgehost"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(exe))
    assert launch_command() == [str(exe)]


def test_from_a_venv_the_console_script_beside_the_interpreter_is_launched() -> None:
    beside = Path(sys.executable).parent / "edgehost"
    if not beside.is_file():
        pytest.skip("edgehost is not installed as a console script in this interpreter's folder")
    assert launch_command() == [str(beside)]


def test_xdg_dirs_default_under_home_and_ignore_relative_values(tmp_path: Path) -> None:
    dirs = XdgDirs.from_environ(
        {"HOME": str(tmp_path), "XDG_DATA_HOME": "relative/data", "XDG_CONFIG_HOME": ""}
    )
    assert dirs == XdgDirs(data_home=tmp_path / ".local" / "share", config_home=tmp_path / ".config")
    custom = XdgDirs.from_environ(
        {"HOME": str(tmp_path), "XDG_DATA_HOME": "/x/data", "XDG_CONFIG_HOME": "/x/cfg"}
    )
    assert custom.menu_entry == Path("/x/data/applications/edgehost.desktop")
    assert custom.autostart_entry == Path("/x/cfg/autostart/edgehost.desktop")


def test_install_desktop_command_round_trip_through_the_cli(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "d"),
        "XDG_CONFIG_HOME": str(tmp_path / "c"),
    }
    cli = [sys.executable, "-m", "edgehost", "install-desktop"]
    installed = subprocess.run(
        [*cli, "--autostart", "--json"], env=env, capture_output=True, text=True, timeout=60
    )
    assert installed.returncode == 0, installed.stderr
    report = json.loads(installed.stdout)
    assert report["action"] == "install"
    assert {Path(p) for p in report["written"]} == all_files(tmp_path)
    removed = subprocess.run(
        [*cli, "--uninstall", "--json"], env=env, capture_output=True, text=True, timeout=60
    )
    assert removed.returncode == 0, removed.stderr
    assert {Path(p) for p in json.loads(removed.stdout)["removed"]} == {Path(p) for p in report["written"]}
    assert all_files(tmp_path) == set()


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="rsvg-convert not installed (librsvg2-bin)")
def test_make_icons_regenerates_every_committed_png_from_the_svgs(tmp_path: Path) -> None:
    (tmp_path / "packaging").mkdir()
    icons = tmp_path / "resources" / "icons"
    icons.mkdir(parents=True)
    shutil.copy(REPO / "packaging" / "make_icons.sh", tmp_path / "packaging")
    for svg in (REPO / "resources" / "icons").glob("*.svg"):
        shutil.copy(svg, icons)
    subprocess.run(
        ["bash", str(tmp_path / "packaging" / "make_icons.sh")], check=True, capture_output=True, timeout=120
    )
    committed = {p.name for p in (REPO / "resources" / "icons").glob("*.png")}
    assert {p.name for p in icons.glob("*.png")} == committed
    for name in committed:
        assert (icons / name).read_bytes()[16:24] == (REPO / "resources" / "icons" / name).read_bytes()[16:24]


def test_the_menu_and_autostart_entries_open_the_data_folder_and_config_install_desktop_was_given(
    tmp_path: Path,
) -> None:
    # Seen by a new user: the app started from the menu opened the default data folder, not theirs.
    env = {k: v for k, v in os.environ.items() if k != "EDGEHOST_DATA_DIR"}
    env.update(HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "d"), XDG_CONFIG_HOME=str(tmp_path / "c"))
    data = tmp_path / "my data"
    config = tmp_path / "claude_desktop_config.json"
    config.write_text('{"mcpServers": {}}')
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "edgehost",
            "--data-dir",
            str(data),
            "--config",
            str(config),
            "install-desktop",
            "--autostart",
            "--json",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert installed.returncode == 0, installed.stderr
    assert json.loads(installed.stdout)["command"][1:] == ["--data-dir", str(data), "--config", str(config)]
    xdg = XdgDirs.from_environ(env)
    options = f'--data-dir "{data}" --config {config}'
    assert [line.split(" ", 1)[1] for line in exec_lines(xdg.menu_entry)] == [
        options,
        f"{options} --quick-ask",
    ]
    assert [line.split(" ", 1)[1] for line in exec_lines(xdg.autostart_entry)] == [f"{options} --hidden"]
