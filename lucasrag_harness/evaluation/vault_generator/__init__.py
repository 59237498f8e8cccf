"""A deterministic, longitudinal vault generator for evaluations and scale tests.

``generate_vault(root, n_notes, seed=7)`` writes a vault of Markdown notes by one
persona (Lucas Hale, born 1990) over twenty years, and returns a
:class:`GroundTruth`: what every file is expected to become (status, workspace,
band, date, charged subjects), the persona's fact timelines, and query cases
with their expected and forbidden answers. The truth is also written as JSON
next to the vault (``<root>.truth.json``, outside it, so it is never ingested).

Same ``seed`` and ``n_notes`` (and ``now``) give byte-identical files: the only
source of randomness is ``random.Random(seed)``; no clock, no uuid, no set
iteration.

What the vault contains (fractions of ``n_notes``):

* notes in the four domains (technical, creative, personal, administrative),
  each built from domain vocabulary so that content-based routing is possible;
  most 60-250 words, none over ~500;
* frontmatter on ~30% (``date``, ``title``, ``tags``, sometimes ``workspace``,
  rarely ``band``, and unknown keys), dates otherwise from file names, ~10%
  undated (some of them clearly about childhood: archival by content cues);
* ~1% notes whose ``workspace:`` contradicts their content (frontmatter wins),
  a few per mille with a ``band:`` override and a handful whose frontmatter date
  differs from their file name (frontmatter wins);
* notes stating the persona's facts as true on their date (home, employer, role,
  pet, car, bank), plus a canonical ``personal/facts.md`` (``band: present``,
  old date);
* the deference list (``.lucasrag/deference.yaml``: Grandad Tom, Maya), charged
  notes marked in frontmatter and unmarked ones with grief/breakup cues, and
  neutral mentions (recipes, an insurance valuation, a colleague called Tom)
  that contain none of the cue words;
* ~2% content-free inbox notes (expected quarantined) and ~1% invalid files
  (malformed YAML frontmatter, empty, not UTF-8, NUL bytes);
* a few ignored files (``.obsidian/``, ``.trash/``, an image).

Run ``python -m lucasrag_harness.evaluation.vault_generator OUT_DIR --notes N --seed S``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from datetime import date
from pathlib import Path

import yaml

from lucasrag_harness.evaluation.vault_generator._care import care_notes, deference_yaml
from lucasrag_harness.evaluation.vault_generator._generator import DEFERENCE_YAML, _Generator, _tiny_png
from lucasrag_harness.evaluation.vault_generator._persona import GRIEF_CUES, PAST_CUES, SUBJECT_MENTION
from lucasrag_harness.evaluation.vault_generator._truth import (
    GroundTruth,
    NoteTruth,
    QueryCase,
    archival_cutoff,
    truth_path,
)

__all__ = [
    "GRIEF_CUES",
    "PAST_CUES",
    "SUBJECT_MENTION",
    "GroundTruth",
    "NoteTruth",
    "QueryCase",
    "archival_cutoff",
    "generate_vault",
    "main",
    "truth_path",
]


def generate_vault(
    root: Path,
    n_notes: int,
    *,
    seed: int = 7,
    now: date = date(2026, 6, 1),
    overwrite: bool = False,
    care_corpus: bool = False,
) -> GroundTruth:
    """Write a vault of ``n_notes`` files (notes, content-free notes, invalid files) under ``root``.

    Returns the ground truth and writes it to :func:`truth_path` (``<root>.truth.json``).
    ``root`` must be absent or empty unless ``overwrite`` is set (then it is emptied first).
    ``care_corpus`` adds every passage of the care corpus as an unmarked note (``_care``),
    on top of the ``n_notes``, with its label in the truth.
    """
    root = Path(root)
    if root.exists() and any(root.iterdir()):
        if not overwrite:
            raise FileExistsError(f"{root} is not empty (pass overwrite=True / --force to replace it)")
        shutil.rmtree(root)
    gen = _Generator(root, n_notes, seed, now)
    truth = gen.run()
    deference = DEFERENCE_YAML
    if care_corpus:
        files, notes = care_notes(gen.band_for)
        gen.files.update(files)
        truth.notes.update(notes)
        truth.n_notes = len(truth.notes)
        extra = deference_yaml({s["name"] for s in truth.subjects})
        deference += extra
        truth.subjects += [dict(x) for x in yaml.safe_load("subjects:\n" + extra)["subjects"]] if extra else []
    root.mkdir(parents=True, exist_ok=True)
    made: set[Path] = set()
    for rel, data in gen.files.items():
        path = root / rel
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        path.write_bytes(data)
    extras = {
        ".lucasrag/deference.yaml": deference.encode("utf-8"),
        ".obsidian/app.json": b'{\n  "newFileLocation": "folder",\n  "newFileFolderPath": "inbox"\n}\n',
        ".obsidian/workspace.md": b"# layout scratch\n",
        ".trash/deleted note.md": b"Shopping list: eggs, milk, coffee.\n",
        "attachments/scan-001.png": _tiny_png(),
    }
    for rel, data in extras.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    truth.write(truth_path(root))
    return truth


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m lucasrag_harness.evaluation.vault_generator",
        description="Write a deterministic synthetic vault and its ground truth.",
    )
    ap.add_argument("out_dir", type=Path, help="the vault root to create (truth goes to OUT_DIR.truth.json)")
    ap.add_argument("--notes", type=int, default=1000, help="number of files to generate (default 1000)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--now", type=date.fromisoformat, default=date(2026, 6, 1), help="reference date (YYYY-MM-DD)")
    ap.add_argument("--force", action="store_true", help="replace OUT_DIR if it is not empty")
    ap.add_argument("--care-corpus", action="store_true", help="also write every care-corpus passage as a note")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    try:
        truth = generate_vault(
            args.out_dir, args.notes, seed=args.seed, now=args.now, overwrite=args.force, care_corpus=args.care_corpus
        )
    except (FileExistsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    counts = truth.counts()
    print(
        f"wrote {truth.n_notes} files to {args.out_dir} in {time.perf_counter() - t0:.1f}s; "
        + ", ".join(f"{k}={v}" for k, v in counts.items())
        + f"; {len(truth.cases)} query cases; "
        f"truth: {truth_path(args.out_dir)}"
    )
    return 0
