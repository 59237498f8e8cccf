"""The corpus's tuning families written about subjects it never had (a subject named like an everyday word or a
month, say): what a new kind of subject does to the care rules, measured on writing they were tuned on.
``benchmarks/care_name_words.py --corpus`` uses it."""

from __future__ import annotations

import random
from collections.abc import Sequence

from . import (
    _WORKSPACE,
    ANY_KINDS,
    BATCHES,
    HELDOUT,
    HELDOUT2,
    HELDOUT3,
    TUNING,
    TUNING_BATCHES,
    WRITERS_BATCHES,
    Family,
    Passage,
    Persona,
    _fill,
)


def tuning_families() -> tuple[Family, ...]:
    """Every family of the tuning half (the test half's, held-out batch 4, is left out)."""
    batches = (*BATCHES, *TUNING_BATCHES, HELDOUT, HELDOUT2, *WRITERS_BATCHES, HELDOUT3)
    return tuple(f for charged, neutral in batches for f in charged + neutral)


def written_about(personas: Sequence[Persona], seed: int = 11) -> list[Passage]:
    """Every tuning family's templates written about each of ``personas`` it fits (namesake families need a
    surname, so a persona without one gets none): the corpus's writing about subjects it never had, such as
    a subject named like an everyday word. All tuning data."""
    draw = random.Random(f"{seed}/written-about")
    out: list[Passage] = []
    for f in tuning_families():
        for p in personas:
            if not (f.kind == p.kind or (f.kind == "any" and p.kind in ANY_KINDS)):
                continue
            for template in f.templates:
                out.append(
                    Passage(
                        _fill(template, p, draw, 2025),
                        p.subject.name,
                        f.label,
                        f.name,
                        f.register,
                        TUNING,
                        "2025-06-01",
                        "present",
                        _WORKSPACE.get(f.register, "personal"),
                    )
                )
    return out
