"""The model catalog (resources/models/catalog.toml, models/catalog.py): entries that load, fit a board
or say why not, and one recommendation per board from the profile's measured speeds, or from its CPU
cores where the profile has none."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgehost.agent._dialects import ALL_DIALECTS
from edgehost.boards import expected_speed, load_profiles
from edgehost.boards.detection import BoardInfo, CpuCore
from edgehost.errors import ConfigError
from edgehost.models.catalog import (
    BoardFacts,
    board_facts,
    estimated_speed,
    find_entry,
    load_catalog,
    recommend,
    why_not,
)

PROFILES = {p.name: p for p in load_profiles()}
ROCK_5B = PROFILES["rock-5b"]
X86 = PROFILES["generic-x86_64"]
ARM = PROFILES["generic-aarch64"]


def test_every_shipped_entry_loads_with_a_known_tool_dialect_and_a_unique_name() -> None:
    catalog = load_catalog()
    assert len(catalog) >= 8
    assert all(e.tool_dialect in ALL_DIALECTS for e in catalog)
    assert len({e.name for e in catalog}) == len(catalog)
    assert {e.format for e in catalog} <= {"gguf", "rkllm"}
    assert all(e.runtime in ("1.2", "1.3") for e in catalog if e.format == "rkllm")


def test_a_broken_entry_names_the_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "catalog.toml"
    path.write_text(
        '# models\n\n[[model]]\nname = "a"\ndisplay_name = "A"\nrepo = "o/r"\nfile = "a.gguf"\n'
        'format = "gguf"\nquantization = "Q4_0"\nparams_b = 0.5\nsize_mb = 400\ncontext = 4096\n'
        'license = "MIT"\ntool_dialect = "hermes"\nram_gb = 1\n\n'
        '[[model]]\nname = "b"\ndisplay_name = "B"\nrepo = "o/r"\nfile = "b.rkllm"\nformat = "rkllm"\n'
        'quantization = "w8a8"\nparams_b = 1.5\nsize_mb = 1900\ncontext = 4096\nlicense = "MIT"\n'
        'tool_dialect = "hermes"\nram_gb = 2\n'
    )
    with pytest.raises(ConfigError) as caught:
        load_catalog(path)
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), 17, "runtime")
    assert "runtime line" in str(caught.value)


def test_an_entry_fits_by_ram_npu_and_runtime_line() -> None:
    catalog = load_catalog()
    gguf = next(e for e in catalog if e.format == "gguf" and e.params_b < 1)
    rkllm_12 = next(e for e in catalog if e.format == "rkllm" and e.runtime == "1.2")
    big = max(catalog, key=lambda e: e.ram_gb)
    pc = BoardFacts(ram_gb=24.0, npu=False, rkllm_runtime=None)
    assert why_not(gguf, pc) is None
    assert why_not(rkllm_12, pc) == "no NPU: .rkllm models run on the RK3588 NPU"
    board_123 = BoardFacts(ram_gb=16.0, npu=True, rkllm_runtime="1.2.3")
    board_130 = BoardFacts(ram_gb=16.0, npu=True, rkllm_runtime="1.3.0")
    assert why_not(rkllm_12, board_123) is None
    assert why_not(rkllm_12, board_130) == "runtime: converted for 1.2.x, the board has 1.3.0"
    small = BoardFacts(ram_gb=2.0, npu=True, rkllm_runtime="1.2.3")
    assert (why_not(big, small) or "").startswith(f"RAM: needs {big.ram_gb:g} GB, the board has 2.0 GB")


def test_the_suggestion_grows_with_ram_and_keeps_to_what_the_board_decodes_fast_enough() -> None:
    catalog = load_catalog()
    small = recommend(catalog, ROCK_5B, BoardFacts(4.0, True, "1.2.3"), "rkllm")
    large = recommend(catalog, ROCK_5B, BoardFacts(16.0, True, "1.2.3"), "rkllm")
    assert small is not None and large is not None
    assert small.params_b < large.params_b
    assert small.runtime == large.runtime == "1.2"
    # llama.cpp on the A76 cores decodes ~10 tokens/s at 1B: nothing slower than 8 is suggested.
    cpu = recommend(catalog, ROCK_5B, BoardFacts(16.0, True, "1.2.3"), "llamacpp")
    assert cpu is not None and (expected_speed(ROCK_5B, "llamacpp", cpu.params_b) or 0) >= 8
    # The measured figures decide on an RK3588, whatever its cores would make of an estimate.
    assert recommend(catalog, ROCK_5B, BoardFacts(16.0, True, "1.2.3", cpu_cores=4), "llamacpp") == cpu


def test_a_machine_without_measured_speeds_is_suggested_what_its_cores_decode_fast_enough() -> None:
    catalog = load_catalog()
    # A 2-core PC with plenty of RAM: RAM alone would allow the 4B model, far too slow on two cores.
    two_cores = recommend(catalog, X86, BoardFacts(24.0, False, None, cpu_cores=2))
    assert two_cores is not None and two_cores.format == "gguf" and two_cores.params_b <= 1.5
    estimate = estimated_speed(
        X86, BoardFacts(24.0, False, None, cpu_cores=2), "llamacpp", two_cores.params_b
    )
    assert estimate is not None and estimate >= 8
    # A Raspberry Pi 5 (four A76 cores, 8 GB) decodes about as the RK3588's four A76 cores measured.
    pi5 = recommend(catalog, ARM, BoardFacts(8.0, False, None, cpu_cores=4))
    assert pi5 is not None and pi5.params_b <= 1.5
    assert estimated_speed(ARM, BoardFacts(8.0, False, None, cpu_cores=4), "llamacpp", 1.0) == pytest.approx(
        expected_speed(ROCK_5B, "llamacpp", 1.0)
    )
    # More cores, a bigger model.
    many = recommend(catalog, X86, BoardFacts(24.0, False, None, cpu_cores=16))
    assert many is not None and many.params_b > pi5.params_b > two_cores.params_b
    # No figure and no cores known: only a small model, never the biggest that fits.
    unknown = recommend(catalog, X86, BoardFacts(24.0, False, None))
    assert unknown is not None and unknown.params_b <= 1.0


def test_the_cores_of_the_board_are_its_fastest_cluster() -> None:
    pc = BoardInfo(machine="x86_64", cpus=(CpuCore(0, capacity=1024), CpuCore(1, capacity=1024)))
    assert board_facts(pc).cpu_cores == 2
    little = [CpuCore(i, 1800000, capacity=414) for i in range(4)]
    big = [CpuCore(i, 2304000, capacity=1024) for i in range(4, 8)]
    assert board_facts(BoardInfo(machine="aarch64", cpus=(*little, *big))).cpu_cores == 4
    assert board_facts(BoardInfo(machine="x86_64")).cpu_cores is None


def test_speeds_come_from_the_profile_between_and_beyond_its_points() -> None:
    assert expected_speed(ROCK_5B, "rkllm", 1.5) == pytest.approx(16.7)
    between = expected_speed(ROCK_5B, "rkllm", 2.0)
    assert between is not None and 10.0 < between < 16.7
    assert expected_speed(ROCK_5B, "rkllm", 7.6) == pytest.approx(7.5 / 2)
    assert expected_speed(X86, "llamacpp", 1.0) is None


def test_an_entry_is_found_by_its_name_or_its_file_in_any_case() -> None:
    catalog = load_catalog()
    entry = catalog[0]
    assert find_entry(catalog, entry.name.upper()) is entry
    assert find_entry(catalog, entry.file) is entry
    assert find_entry(catalog, "no-such-model") is None


def test_a_row_says_whether_its_file_is_installed_or_partly_downloaded() -> None:
    from edgehost.models.catalog import catalog_rows

    catalog = load_catalog()
    first, second, third = catalog[0], catalog[1], catalog[2]
    pc = BoardFacts(ram_gb=24.0, npu=False, rkllm_runtime=None)
    rows = {
        r.entry.name: r
        for r in catalog_rows(
            catalog, X86, pc, installed={Path(first.file).name}, partial={Path(second.file).name: 1234}
        )
    }
    assert (rows[first.name].installed, rows[first.name].partial_bytes) == (True, 0)
    assert (rows[second.name].installed, rows[second.name].partial_bytes) == (False, 1234)
    assert (rows[third.name].installed, rows[third.name].partial_bytes) == (False, 0)
    assert rows[second.name].as_dict()["partial_bytes"] == 1234


def test_the_models_panels_say_the_estimated_speed_a_suggestion_went_by_where_none_was_measured() -> None:
    from edgehost.host.model_cards import catalog_details
    from edgehost.models.catalog import catalog_rows

    catalog = load_catalog()
    pi5 = {
        r.entry.name: r for r in catalog_rows(catalog, ARM, BoardFacts(8.0, False, None, cpu_cores=4), set())
    }
    assert "about 8 tokens/s here (estimated from the CPU cores)" in catalog_details(
        pi5["llama-3.2-1b-instruct-q4_0"]
    )
    rock = {
        r.entry.name: r
        for r in catalog_rows(catalog, ROCK_5B, BoardFacts(16.0, False, None, cpu_cores=4), set())
    }
    measured = catalog_details(rock["llama-3.2-1b-instruct-q4_0"])
    assert "tokens/s on this board" in measured and "estimated" not in measured
