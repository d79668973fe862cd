"""Board, NPU, CPU and thermal detection on fake /proc and /sys trees with each board's real strings."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_sysfs import BOARD_STRINGS, FakeBoard, build, rk3588_board, x86_pc

from edgehost.boards import (
    big_cores,
    detect_board,
    load_profiles,
    read_loadavg,
    read_memory,
    read_thermal_zones,
    read_uptime,
    select_profile,
)
from edgehost.boards.detection import read_cpus

PROFILES = load_profiles()


@pytest.mark.parametrize(
    ("compatible", "model", "expected"), BOARD_STRINGS, ids=[f"{m} {c[0]}" for c, m, _ in BOARD_STRINGS]
)
def test_each_board_string_selects_its_profile(
    tmp_path: Path, compatible: tuple[str, ...], model: str, expected: str
) -> None:
    root = build(tmp_path, FakeBoard(compatible=compatible, model=model))
    info = detect_board(root, machine="aarch64")
    assert info.model == model
    assert info.compatible == compatible
    assert select_profile(info, PROFILES).name == expected


@pytest.mark.parametrize(
    ("armbian_board", "expected"),
    [
        ("orangepi5", "orangepi-5"),
        ("orangepi5-plus", "orangepi-5-plus"),
        ("rock-5b", "rock-5b"),
        ("rock-5c", "rock-5c"),
    ],
)
def test_armbian_board_identifies_a_board_with_a_generic_device_tree(
    tmp_path: Path, armbian_board: str, expected: str
) -> None:
    root = build(
        tmp_path,
        FakeBoard(compatible=("rockchip,rk3588",), model="Rockchip RK3588", armbian_board=armbian_board),
    )
    info = detect_board(root, machine="aarch64")
    assert info.armbian_board == armbian_board
    assert select_profile(info, PROFILES).name == expected


def test_soc_family_and_variant_come_from_the_compatible_list(tmp_path: Path) -> None:
    s_variant = detect_board(
        build(tmp_path / "a", FakeBoard(compatible=("xunlong,orangepi-5", "rockchip,rk3588s")))
    )
    full = detect_board(build(tmp_path / "b", FakeBoard(compatible=("radxa,rock-5b", "rockchip,rk3588"))))
    assert (s_variant.soc, full.soc) == ("rk3588s", "rk3588")


def test_machines_without_a_known_board_get_the_generic_profile_of_their_architecture(tmp_path: Path) -> None:
    root = build(tmp_path, x86_pc())
    assert select_profile(detect_board(root, machine="x86_64"), PROFILES).name == "generic-x86_64"
    assert select_profile(detect_board(root, machine="aarch64"), PROFILES).name == "generic-aarch64"
    pi = build(
        tmp_path / "pi",
        FakeBoard(compatible=("raspberrypi,5-model-b", "brcm,bcm2712"), model="Raspberry Pi 5"),
    )
    assert select_profile(detect_board(pi, machine="aarch64"), PROFILES).name == "generic-aarch64"


def test_the_npu_is_the_render_node_whose_driver_is_rknpu(tmp_path: Path) -> None:
    npu = detect_board(build(tmp_path, rk3588_board())).npu
    assert npu.present and npu.driver == "RKNPU"
    assert npu.render_node is not None and npu.render_node.endswith("dev/dri/renderD129")
    assert npu.node_exists and npu.accessible
    assert npu.driver_version == "0.9.8"
    assert not npu.driver_too_old
    assert npu.cur_freq_hz == 1000000000


def test_a_board_with_the_npu_fused_off_has_no_npu(tmp_path: Path) -> None:
    info = detect_board(build(tmp_path, rk3588_board(npu=False, model="Radxa ROCK 5C Lite")))
    assert not info.npu.present


def test_an_old_npu_driver_and_a_missing_node_are_reported(tmp_path: Path) -> None:
    npu = detect_board(build(tmp_path, rk3588_board(npu_driver_version="0.9.6", npu_node=False))).npu
    assert npu.present and not npu.node_exists and not npu.accessible
    assert npu.driver_too_old


def test_debugfs_driver_version_is_read_when_readable(tmp_path: Path) -> None:
    root = build(tmp_path, rk3588_board(npu_driver_version=None))
    (root / "sys/kernel/debug/rknpu").mkdir(parents=True)
    (root / "sys/kernel/debug/rknpu/version").write_text("RKNPU driver: v0.9.7\n")
    (root / "sys/kernel/debug/rknpu/load").write_text("NPU load:  Core0:  3%, Core1:  0%, Core2:  0%,\n")
    npu = detect_board(root).npu
    assert npu.driver_version == "0.9.7"
    assert npu.load is not None and "Core0" in npu.load


def test_big_cores_come_from_capacity_or_max_frequency(tmp_path: Path) -> None:
    cpus = read_cpus(build(tmp_path, rk3588_board()))
    assert [c.id for c in cpus] == list(range(8))
    assert big_cores(cpus) == (4, 5, 6, 7)
    by_freq = FakeBoard(cpus=[(0, 1800000, 0), (1, 1800000, 0), (2, 2400000, 0), (3, 2400000, 0)])
    root = build(tmp_path / "freq", by_freq)
    for cpu in range(4):
        (root / f"sys/devices/system/cpu/cpu{cpu}/cpu_capacity").unlink()
    assert big_cores(read_cpus(root)) == (2, 3)
    assert big_cores(read_cpus(build(tmp_path / "x86", x86_pc()))) == ()


def test_every_thermal_zone_is_found_whatever_its_name(tmp_path: Path) -> None:
    zones = read_thermal_zones(build(tmp_path, rk3588_board()))
    assert [z.type for z in zones][:3] == ["soc-thermal", "bigcore0-thermal", "bigcore1-thermal"]
    assert len(zones) == 7
    assert zones[0].temp_c == pytest.approx(45.25)


def test_memory_uptime_and_load(tmp_path: Path) -> None:
    root = build(tmp_path, rk3588_board(mem_total_kb=8000000, mem_available_kb=6000000))
    memory = read_memory(root)
    assert (memory.total_bytes, memory.available_bytes) == (8000000 * 1024, 6000000 * 1024)
    assert read_uptime(root) == pytest.approx(12345.67)
    assert read_loadavg(root) == (0.52, 0.31, 0.20)


def test_an_empty_root_gives_unknowns_not_errors(tmp_path: Path) -> None:
    info = detect_board(tmp_path, machine="riscv64")
    assert (info.model, info.compatible, info.soc, info.cpus, info.npu.present) == (None, (), None, (), False)
    assert read_thermal_zones(tmp_path) == ()
    assert read_uptime(tmp_path) is None and read_loadavg(tmp_path) is None
