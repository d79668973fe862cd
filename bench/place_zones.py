"""What reading a question for the places it names costs a call with a time zone argument
(agent/places.py).

The table (resources/values/places.json: some 14,000 names) is read once per process, on the first
question that asks for a zone; each question is then read against it. Median over 50 readings:

  RESULT place_table_load_ms        reading the table (once per process)
  RESULT place_zones_ms             named_zones of one question (each time: the cache cleared)
  RESULT place_zones_ratio_to_question_spans   place_zones_ms / question_spans of the same question
                                    (the same run's baseline: the first step of every routed call's values)
"""

from __future__ import annotations

from _timing import median_ms
from edgehost.agent import places
from edgehost.agent.question_values import question_spans

QUESTION = "I have a call at 18:00 here, what time will it be for my colleague in San Francisco?"


def _load() -> None:
    places._zones.cache_clear()
    places._zones()


def _read() -> None:
    places._named_in.cache_clear()
    places.named_zones(QUESTION)


def main() -> None:
    assert [m.zone for m in places.named_zones(QUESTION)] == ["America/Los_Angeles"]
    load = median_ms(_load, runs=10)
    read = median_ms(_read)
    spans = median_ms(lambda: question_spans(QUESTION))
    print(f"RESULT place_table_load_ms {load:.1f}")
    print(f"RESULT place_zones_ms {read:.3f}")
    print(f"RESULT place_zones_ratio_to_question_spans {read / spans:.2f}")


if __name__ == "__main__":
    main()
