"""Template families of the care corpus, read from ``data/<batch>.yaml``: how people write about someone they lost or left.

Each family is one way of writing (grief by understatement, an unsent letter, a
therapy note ...) in one register, with a few templates. Slots: ``{S}`` the
subject as written at a sentence start, ``{s}`` mid-sentence (often lowercase),
``{S's}``/``{s's}`` possessives, ``{he}``/``{him}``/``{his}`` (and capitalised
``{He}``/``{His}``) pronouns, ``{year}``, ``{n}`` (years), ``{place}``, ``{thing}``,
``{surname}`` (a namesake's). Charged families describe a bereavement (``loss``),
an estrangement (``estranged``) or a breakup (``ex``), a pet or a baby; ``any``
fits a loss, an ex or an estrangement. Neutral families name the subject without
charge; ``namesake`` families name another person with the subject's first name.

One file per batch, named as in :data:`BATCH_FILES`. A file holds ``charged`` and
``neutral`` (the families in drawing order; the list gives the label) and, for
the batches written by imagined writers, ``writers`` (family-name prefix → voice).
The templates are data: every character of them is in the generated corpus, so
``tests/harness/test_care_corpus_data.py`` checks a digest of every batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

#: Every data file, in the order the batches were written (``data/<name>.yaml``).
BATCH_FILES = (
    "batch1",
    "batch2",
    "batch3",
    "batch4",
    "batch5",
    "heldout1",
    "heldout2",
    "writers1",
    "writers2",
    "heldout3",
    "heldout4",
)
LABELS = ("charged", "neutral")
KINDS = frozenset({"loss", "ex", "estranged", "pet", "baby", "any", "namesake"})
_FAMILY_KEYS = frozenset({"name", "register", "kind", "templates"})
# yaml.safe_load's loader, in C where PyYAML has libyaml (about 15x faster: the files are read at import).
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Family:
    name: str
    register: str
    label: str  # charged | neutral
    kind: str  # loss | ex | estranged | pet | baby | any | namesake
    templates: tuple[str, ...]


class CorpusDataError(ValueError):
    """A data file of the care corpus is missing or not in the expected shape."""


def _str(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise CorpusDataError(f"{where}: expected a string, got {value!r}")
    return value


@cache
def _read(name: str) -> dict:
    if name not in BATCH_FILES:
        raise CorpusDataError(f"no care corpus batch {name!r} (one of {', '.join(BATCH_FILES)})")
    ref = resources.files(__package__) / "data" / f"{name}.yaml"
    if not ref.is_file():
        raise CorpusDataError(f"data/{name}.yaml is missing from {__package__} (is the package data installed?)")
    data = yaml.load(ref.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
    where = f"{__package__}/data/{name}.yaml"
    if not isinstance(data, dict) or not set(LABELS) <= set(data) <= {*LABELS, "writers"}:
        raise CorpusDataError(f"{where}: expected the keys charged, neutral and optionally writers")
    return data


@cache
def load_batch(name: str) -> tuple[tuple[Family, ...], tuple[Family, ...]]:
    """``(charged, neutral)``: the families of one batch, in the order they are drawn."""
    data = _read(name)
    out = []
    for label in LABELS:
        families = []
        for i, raw in enumerate(data[label] or ()):
            where = f"{__package__}/data/{name}.yaml: {label}[{i}]"
            if not isinstance(raw, dict) or set(raw) != _FAMILY_KEYS:
                raise CorpusDataError(f"{where}: expected the keys {', '.join(sorted(_FAMILY_KEYS))}")
            kind = _str(raw["kind"], f"{where}.kind")
            if kind not in KINDS:
                raise CorpusDataError(f"{where}.kind: {kind!r} is not one of {', '.join(sorted(KINDS))}")
            templates = raw["templates"]
            if not isinstance(templates, list) or not templates:
                raise CorpusDataError(f"{where}.templates: expected a non-empty list")
            families.append(
                Family(
                    _str(raw["name"], f"{where}.name"),
                    _str(raw["register"], f"{where}.register"),
                    label,
                    kind,
                    tuple(_str(t, f"{where}.templates[{j}]") for j, t in enumerate(templates)),
                )
            )
        out.append(tuple(families))
    return out[0], out[1]


def load_writers(name: str) -> dict[str, str]:
    """The imagined writers of one batch, by the prefix of their families' names (empty if it has none)."""
    writers = _read(name).get("writers") or {}
    where = f"{__package__}/data/{name}.yaml: writers"
    if not isinstance(writers, dict):
        raise CorpusDataError(f"{where}: expected a mapping")
    return {_str(k, where): _str(v, f"{where}.{k}") for k, v in writers.items()}
