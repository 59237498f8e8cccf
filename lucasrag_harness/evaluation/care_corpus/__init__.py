"""A generated, labelled care corpus: registers x template families x subjects x name forms.

``generate_corpus(seed)`` returns passages, each about one deference subject of
:data:`SUBJECTS`, labelled ``charged`` or ``neutral`` and tagged with its family,
register and half. Every family of the four batches in :data:`BATCHES` is
tuning data (``half == "tune"``): they were split by template family
(``split_of``: alternating within each register in name order, per batch) until
their test half had been looked at too often to stay a test; batch 5
(:data:`TUNING_BATCHES`) was written as tuning data. Held-out batch 1
(``HELDOUT``, ``data/heldout1.yaml``) was the test half until it had been scored
twice; it is tuning data now. Held-out batch 2 (``HELDOUT2``,
``data/heldout2.yaml``) was the test half until it had been scored once and its
per-register results published; it is tuning data now. The writers batches
(:data:`WRITERS_BATCHES`, ``data/writers*.yaml``) are tuning data from many more
imagined writers, each writing both labels; they use the personas of held-out
batch 2 and before. Held-out batch 3 (``HELDOUT3``, ``data/heldout3.yaml``) was
the test half until it had been scored once per detector and its per-register
results published; it is tuning data now. Held-out batch 4 (``HELDOUT4``,
``data/heldout4.yaml``) is the test half: all ``test``, written apart by twelve
imagined writers and never tuned on. Every batch is generated after every batch before it, in the one
order of ``generate_corpus`` (so earlier passages are the same with or without
it), and each held-out batch is the first to use its own personas
(``Persona.heldout``), which later batches may use too; the test half also
draws from a generator of its own, so tuning data added before it never changes
its passages. Deterministic: generators seeded from ``seed`` only.

The template families are data, one YAML file per batch in ``data/`` (read by
``_load``, which describes them); the drawing is here.

Run ``python -m lucasrag_harness.evaluation.care_corpus`` to print counts.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from datetime import date

from lucasrag.vocabulary import DeferenceSubject

from ._load import Family, load_batch

#: Families in the order they were written (each batch was split into halves on its own until corpus v4).
BATCHES = (load_batch("batch1"), load_batch("batch2"), load_batch("batch3"), load_batch("batch4"))
#: Tuning-only batches written after batches 1-4 became tuning data (``data/batch5.yaml``: batch 5). Their
#: passages are generated after those of ``BATCHES``, so the earlier passages stay byte-identical.
TUNING_BATCHES = (load_batch("batch5"),)

#: The half every family of ``BATCHES`` belongs to (they were split tune/test by ``split_of`` until corpus v4).
TUNING = "tune"
#: Held-out batch 1: written apart, the test half until it had been scored twice; tuning data since.
HELDOUT = load_batch("heldout1")
#: Held-out batch 2: written apart by several writers, the test half until it had been scored once; tuning data since.
HELDOUT2 = load_batch("heldout2")
#: Tuning writing from many imagined writers, written after held-out batch 2 (each file one batch, drawn in
#: this order after it, so each leaves every passage before it byte-identical). Family names are ``writer/...``.
WRITERS_BATCHES = (load_batch("writers1"), load_batch("writers2"))
#: The held-out batch whose personas (and every earlier one's) the writers batches write about.
WRITERS_PERSONAS = 2
#: Held-out batch 3: written apart by ten writers, the test half until it had been scored once per detector and its
#: per-register results published; tuning data since.
HELDOUT3 = load_batch("heldout3")
#: Held-out batch 4: written apart by twelve writers and never tuned on: every family of it is in the test half.
HELDOUT4 = load_batch("heldout4")
#: The kinds a family of kind ``any`` fits (not ``pet`` or ``baby``).
ANY_KINDS = ("loss", "ex", "estranged")

PER_CHARGED_FAMILY = 8
PER_NEUTRAL_FAMILY = 8


@dataclass(frozen=True)
class Persona:
    subject: DeferenceSubject
    kind: str  # loss | ex | estranged | pet | baby (a stillborn child)
    pronouns: tuple[str, str, str]  # he, him, his
    starts: tuple[str, ...]  # as written at a sentence start
    mids: tuple[str, ...]  # as written mid-sentence
    surname: str | None = None  # a namesake's surname (another person, same first name)
    heldout: int = 0  # the held-out batch that first writes about it (0: every batch)


PERSONAS = (
    Persona(
        DeferenceSubject("Grandad Tom", ("grandad", "grandpa tom")),
        "loss",
        ("he", "him", "his"),
        ("Grandad", "Grandad Tom", "Grandpa Tom"),
        ("grandad", "Grandad", "grandpa Tom", "grandad Tom"),
    ),
    Persona(
        DeferenceSubject("Mum", ("my mother", "mam")),
        "loss",
        ("she", "her", "her"),
        ("Mum", "Mam"),
        ("mum", "Mum", "my mother"),
    ),
    Persona(
        DeferenceSubject("Priya Shah", ("priya",)),
        "loss",
        ("she", "her", "her"),
        ("Priya", "Priya Shah"),
        ("Priya", "priya", "Priya Shah"),
        "Natarajan",
    ),
    Persona(
        DeferenceSubject("Uncle Dev", ("dev",)),
        "loss",
        ("he", "him", "his"),
        ("Uncle Dev", "Dev"),
        ("uncle Dev", "Dev", "dev"),
    ),
    Persona(DeferenceSubject("Maya", ("maya r",)), "ex", ("she", "her", "her"), ("Maya",), ("Maya", "maya"), "Chen"),
    Persona(
        DeferenceSubject("Daniel Hart", ("dan", "daniel")),
        "ex",
        ("he", "him", "his"),
        ("Daniel", "Dan", "Daniel Hart"),
        ("Daniel", "dan", "Dan"),
        "Okafor",
    ),
    Persona(
        DeferenceSubject("Nana Joan", ("nana", "nan")),
        "loss",
        ("she", "her", "her"),
        ("Nana", "Nana Joan", "Nan"),
        ("nana", "Nana", "nan", "Nana Joan"),
        heldout=1,
    ),
    Persona(
        DeferenceSubject("Josh Reilly", ("josh",)),
        "loss",
        ("he", "him", "his"),
        ("Josh", "Josh Reilly"),
        ("Josh", "josh", "Josh Reilly"),
        "Whitaker",
        heldout=1,
    ),
    Persona(
        DeferenceSubject("Callum", ("cal", "my brother")),
        "estranged",
        ("he", "him", "his"),
        ("Callum", "Cal"),
        ("Callum", "cal", "my brother"),
        "Price",
        heldout=1,
    ),
    Persona(
        DeferenceSubject("Mabel", ("mabes",)),
        "pet",
        ("she", "her", "her"),
        ("Mabel", "Mabes"),
        ("Mabel", "mabel", "Mabes"),
        heldout=1,
    ),
    Persona(
        DeferenceSubject("Iris", ("baby iris", "our iris")),
        "baby",
        ("she", "her", "her"),
        ("Iris", "Baby Iris"),
        ("Iris", "iris", "baby Iris"),
        "Adeyemi",
        heldout=2,
    ),
    Persona(
        DeferenceSubject("Leanne Moss", ("leanne", "lee")),
        "estranged",
        ("she", "her", "her"),
        ("Leanne", "Lee", "Leanne Moss"),
        ("Leanne", "leanne", "Lee"),
        "Kowalski",
        heldout=2,
    ),
    Persona(
        DeferenceSubject("Graham", ("my stepdad", "gray")),
        "loss",
        ("he", "him", "his"),
        ("Graham", "Gray"),
        ("Graham", "graham", "my stepdad"),
        heldout=2,
    ),
    Persona(
        DeferenceSubject("Marcus Bell", ("marcus", "marc", "my ex-husband")),
        "ex",
        ("he", "him", "his"),
        ("Marcus", "Marc", "Marcus Bell"),
        ("Marcus", "marc", "my ex-husband"),
        "Osei",
        heldout=2,
    ),
    Persona(
        DeferenceSubject("Rory", ("rory", "my twin")),
        "loss",
        ("he", "him", "his"),
        ("Rory", "Ror"),
        ("Rory", "rory", "my twin"),
        "Gallagher",
        heldout=3,
    ),
    Persona(  # a miscarried pregnancy; "they", so ``baby`` families never use {he}
        DeferenceSubject("Pip", ("our pip", "baby pip")),
        "baby",
        ("they", "them", "their"),
        ("Pip", "Baby Pip"),
        ("Pip", "pip", "baby Pip"),
        "Lawson",
        heldout=3,
    ),
    Persona(
        DeferenceSubject("Niamh Byrne", ("niamh", "neevs")),
        "loss",
        ("she", "her", "her"),
        ("Niamh", "Neevs", "Niamh Byrne"),
        ("Niamh", "niamh", "Neevs"),
        "Farrell",
        heldout=3,
    ),
    Persona(
        DeferenceSubject("Chloe", ("chlo",)),  # an estranged daughter ("my daughter" is in batch 2's text already)
        "estranged",
        ("she", "her", "her"),
        ("Chloe", "Chlo"),
        ("Chloe", "chloe", "Chlo"),
        "Brennan",
        heldout=3,
    ),
    Persona(  # the grandmother who raised the writer
        DeferenceSubject("Nain Gwen", ("nain", "my nain")),
        "loss",
        ("she", "her", "her"),
        ("Nain", "Nain Gwen"),
        ("nain", "Nain", "Nain Gwen"),
        heldout=4,
    ),
    Persona(  # a stillborn son
        DeferenceSubject("Arlo", ("baby arlo", "our arlo")),
        "baby",
        ("he", "him", "his"),
        ("Arlo", "Baby Arlo"),
        ("Arlo", "arlo", "baby Arlo"),
        "Turner",
        heldout=4,
    ),
    Persona(  # a partner who left
        DeferenceSubject("Kieran Doyle", ("kieran", "kier")),
        "ex",
        ("he", "him", "his"),
        ("Kieran", "Kier", "Kieran Doyle"),
        ("Kieran", "kieran", "Kier"),
        "Mahon",
        heldout=4,
    ),
    Persona(  # a brother in prison, estranged
        DeferenceSubject("Jamie", ("jay", "our jamie")),
        "estranged",
        ("he", "him", "his"),
        ("Jamie", "Jay"),
        ("Jamie", "jamie", "Jay"),
        "Lowe",
        heldout=4,
    ),
)
SUBJECTS = tuple(p.subject for p in PERSONAS)
PLACES = ("the seafront", "the allotment", "the old house", "the chapel", "the park", "Whitby")
THINGS = ("the watch", "the scarf", "the radio", "the mug", "the books")


@dataclass(frozen=True)
class Passage:
    text: str
    subject: str  # canonical name of the subject it is about
    label: str  # charged | neutral
    family: str
    register: str
    half: str  # tune | test
    date: str  # ISO; present or archival
    band: str  # present | archival
    workspace: str


def split_of(families: tuple[Family, ...]) -> dict[str, str]:
    """Family name → half: alternate tune/test within each register, families in name order."""
    halves: dict[str, str] = {}
    for register in sorted({f.register for f in families}):
        for i, f in enumerate(sorted((f for f in families if f.register == register), key=lambda f: f.name)):
            halves[f.name] = "tune" if i % 2 == 0 else "test"
    return halves


def _fill(template: str, p: Persona, rng: random.Random, year: int) -> str:
    he, him, his = p.pronouns
    apos = rng.choice(("'s", "\u2019s"))
    starts, mids = p.starts, p.mids
    if p.surname and "{surname}" in template:  # a namesake shares the first name only
        starts = mids = tuple(dict.fromkeys(f.split()[0] for f in p.starts))  # ordered: a set's order varies by process
    start, mid = rng.choice(starts), rng.choice(mids)
    values = {
        "S": start,
        "s": mid,
        "S's": start + apos,
        "s's": mid + apos,
        "he": he,
        "him": him,
        "his": his,
        "He": he.capitalize(),
        "His": his.capitalize(),
        "year": str(year),
        "n": str(rng.randint(2, 15)),
        "place": rng.choice(PLACES),
        "thing": rng.choice(THINGS),
        "surname": p.surname or "",
    }
    out = template
    for key in sorted(values, key=len, reverse=True):  # "{S's}" before "{S}"
        out = out.replace("{" + key + "}", values[key])
    return out


def _personas_for(f: Family, heldout: int = 0) -> list[Persona]:
    pool = [p for p in PERSONAS if p.heldout <= heldout]
    if f.kind == "namesake":
        return [p for p in pool if p.surname]
    return [p for p in pool if f.kind == p.kind or (f.kind == "any" and p.kind in ANY_KINDS)]


_WORKSPACE = {"admin": "administrative", "technical": "technical", "recipe": "personal", "message": "personal"}


def generate_corpus(seed: int = 11) -> list[Passage]:
    rng = random.Random(seed)
    # Batches 1-4 are all tuning data now: their test half was looked at six times across sessions, so it
    # no longer measures writing the detector never saw. ``split_of`` still gives the half each family had
    # (the history in docs/care.md). Held-out batch 1 became tuning data after two looks, batches 2 and 3 after
    # one; batch 4 is the test half.
    halves = {name: TUNING for charged, neutral in BATCHES for name in split_of(charged + neutral)}
    halves |= {f.name: TUNING for charged, neutral in TUNING_BATCHES for f in charged + neutral}
    halves |= {f.name: TUNING for f in HELDOUT[0] + HELDOUT[1] + HELDOUT2[0] + HELDOUT2[1]}
    halves |= {f.name: TUNING for charged, neutral in WRITERS_BATCHES for f in charged + neutral}
    halves |= {f.name: TUNING for f in HELDOUT3[0] + HELDOUT3[1]}
    halves |= {f.name: "test" for f in HELDOUT4[0] + HELDOUT4[1]}
    out: list[Passage] = []
    groups = []
    # The one drawing order: a batch written later is drawn after every batch before it, so its rng draws come
    # last and every earlier passage stays byte-identical; each writers file is drawn as a batch of its own. The
    # test half comes last and draws from its own generator, so tuning batches added before it never change it.
    draws = {n: random.Random(f"{seed}/heldout{n}") for n in (3, 4)}
    order = [(BATCHES, 0), (TUNING_BATCHES, 0), ((HELDOUT,), 1), ((HELDOUT2,), 2)]
    order += [((batch,), WRITERS_PERSONAS) for batch in WRITERS_BATCHES]
    order += [((HELDOUT3,), 3), ((HELDOUT4,), 4)]
    for batches, heldout in order:
        groups.append((tuple(f for c, _ in batches for f in c), PER_CHARGED_FAMILY, heldout))
        groups.append((tuple(f for _, n in batches for f in n), PER_NEUTRAL_FAMILY, heldout))
    for families, per, heldout in groups:
        draw = draws.get(heldout, rng)
        for i, f in enumerate(families):
            personas = _personas_for(f, heldout)
            for k in range(per):  # held-out families start at another persona each, so every persona is written
                p = personas[(k + i * bool(heldout)) % len(personas)]
                template = f.templates[k % len(f.templates)]
                archival = k % 2 == 1
                d = date(
                    draw.randint(2008, 2020) if archival else draw.randint(2024, 2026),
                    draw.randint(1, 12),
                    draw.randint(1, 28),
                )
                out.append(
                    Passage(
                        _fill(template, p, draw, d.year),
                        p.subject.name,
                        f.label,
                        f.name,
                        f.register,
                        halves[f.name],
                        d.isoformat(),
                        "archival" if archival else "present",
                        _WORKSPACE.get(f.register, "personal"),
                    )
                )
    return out


def summary(passages: list[Passage]) -> dict:
    return {
        "passages": len(passages),
        "by_label_half": dict(Counter(f"{p.label}/{p.half}" for p in passages)),
        "families": dict(
            Counter(f"{p.label}/{p.half}" for p in {(p.family, p.label, p.half): p for p in passages}.values())
        ),
    }
