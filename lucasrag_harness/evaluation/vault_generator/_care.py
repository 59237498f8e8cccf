"""The care corpus carried by the generated vault (``generate_vault(..., care_corpus=True)``).

Every passage of ``lucasrag_harness.evaluation.care_corpus`` (both halves, tagged
in the truth by family and half) becomes one unmarked note under
``journal/care-corpus/<half>/<family>-NN.md``, dated and placed in its workspace by frontmatter, so
an ingest of the vault meets them as it meets any note: charged ones are
``charged_unmarked`` with their subject, neutral ones ``neutral_mention``. The
corpus subjects beyond the vault's own two (Grandad Tom, Maya — the same names
and aliases in both) join the deference list.
"""

from __future__ import annotations

from datetime import date

import yaml

from lucasrag_harness.evaluation.care_corpus import SUBJECTS as CORPUS_SUBJECTS
from lucasrag_harness.evaluation.care_corpus import generate_corpus
from lucasrag_harness.evaluation.vault_generator._truth import NoteTruth

CARE_FOLDER = "journal/care-corpus"
CORPUS_SEED = 11


def care_notes(band_for) -> tuple[dict[str, bytes], dict[str, NoteTruth]]:
    """Files and truth for every corpus passage; ``band_for(date)`` is the generator's date rule."""
    files: dict[str, bytes] = {}
    truth: dict[str, NoteTruth] = {}
    counter: dict[str, int] = {}
    for p in generate_corpus(CORPUS_SEED):
        k = counter[p.family] = counter.get(p.family, 0) + 1
        path = f"{CARE_FOLDER}/{p.half}/{p.family}-{k:02d}.md"
        d = date.fromisoformat(p.date)
        head = yaml.safe_dump({"date": p.date, "workspace": p.workspace}, sort_keys=False)
        files[path] = f"---\n{head}---\n{p.text}\n".encode()
        truth[path] = NoteTruth(
            "indexed",
            p.workspace,
            band_for(d),
            p.date,
            [p.subject] if p.label == "charged" else [],
            kind="charged_unmarked" if p.label == "charged" else "neutral_mention",
            mentions=[p.subject],
        )
    return files, truth


def deference_yaml(base_names: set[str]) -> str:
    """The deference entries of corpus subjects the vault's list does not have (YAML list items)."""
    lines = []
    for s in CORPUS_SUBJECTS:
        if s.name not in base_names:
            lines.append(f"  - name: {s.name}\n    aliases: [{', '.join(s.aliases)}]\n")
    return "".join(lines)
