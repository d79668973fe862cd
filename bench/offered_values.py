"""Does the host offer the values a public question's answer needs? (issue 33; no model runs)

For the small models the host fills arguments under a grammar, from the values it offers each
argument (ToolSelector.with_fitting_values: grounded_schema's runs of the question's words, then the
ones that fit the argument best). A value it does not offer, the model cannot write. This bench asks
the same seeded BFCL sample as bench/external_tool_check.py (``simple`` and ``multiple``), takes each
question's expected function as the host would offer it, and checks every argument BFCL's answer
gives: **offered** when one of its acceptable values is among the offered ones (BFCL's
standardising, numbers by value) or the argument is left free (no choices: the model may write any
value of its type), **excluded** otherwise, or when the answer needs an argument the offered schema
left out. Arguments the answer may leave out ("" among the acceptable values) are not counted.

Unlike the external check it is deterministic and takes about a minute, so a change to value
offering is measured without the model's sampling: the external check's arguments figure moves by a
few questions from run to run, this one only when what is offered changes.

  RESULT external_expected_values_offered    arguments offered / arguments the answers give
  RESULT external_expected_calls_offered     questions where every argument is offered

``--split calibration`` reads the calibration sample (then each excluded argument is printed, with
what was offered); the default ``heldout`` sample prints only the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from _function_server import input_schema  # noqa: E402
from edgehost.agent.ranking import load_ranker  # noqa: E402
from edgehost.agent.selection import ToolSelector  # noqa: E402
from edgehost.agent.tools import ToolSpec  # noqa: E402
from external_tool_check import DEFAULT_SAMPLE, choose, load_questions, same, wheel  # noqa: E402


def offered_choices(schema: Any) -> list[Any] | None:
    """The values an argument's offered schema allows, or None when it is free (no choices)."""
    if not isinstance(schema, dict):
        return None
    if "enum" in schema:
        return list(schema["enum"])
    items = schema.get("items")
    if schema.get("type") == "array" and isinstance(items, dict) and "enum" in items:
        return [[value] for value in items["enum"]]  # each choice as a one-item list
    return None


def is_offered(choices: list[Any] | None, acceptable: list[Any]) -> bool:
    if choices is None:
        return True
    wanted = [same(value) for value in acceptable]
    return any(same(choice) in wanted for choice in choices)


async def check(split: str, verbose: bool) -> tuple[int, int, int, int]:
    questions = [
        q for q in choose(load_questions(wheel()), DEFAULT_SAMPLE, None, split) if q.get("ground_truth")
    ]
    selector = ToolSelector(load_ranker().ranker)
    arguments = offered = calls = full = 0
    try:
        for question in questions:
            [(name, answer)] = question["ground_truth"][0].items()
            [function] = [f for f in question["function"] if f["name"] == name]
            tool = ToolSpec(
                name=f"bfcl__{name}",
                server="bfcl",
                description=function.get("description", ""),
                input_schema=input_schema(function),
                original_name=name,
            )
            properties = (await selector.with_fitting_values(tool, question["text"])).input_schema[
                "properties"
            ]
            missing = []
            for argument, acceptable in answer.items():
                if "" in acceptable:
                    continue
                arguments += 1
                if argument in properties and is_offered(offered_choices(properties[argument]), acceptable):
                    offered += 1
                else:
                    missing.append((argument, acceptable, offered_choices(properties.get(argument))))
            calls += 1
            full += not missing
            if verbose:
                for argument, acceptable, choices in missing:
                    print(
                        f"{question['id']}: {question['text'][:90]!r}\n    {argument}: wants {acceptable}, offered {choices}"
                    )
    finally:
        await selector.aclose()
    return arguments, offered, calls, full


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("heldout", "calibration"), default="heldout")
    split = parser.parse_args().split
    arguments, offered, calls, full = asyncio.run(check(split, verbose=split == "calibration"))
    suffix = "" if split == "heldout" else "_calibration"
    print(
        f"RESULT external_expected_values_offered{suffix} {offered / arguments:.3f}  ({offered} of {arguments})"
    )
    print(f"RESULT external_expected_calls_offered{suffix} {full / calls:.3f}  ({full} of {calls})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
