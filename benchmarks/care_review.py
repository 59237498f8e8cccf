"""How many decisions does a person need to settle care review on a generated vault? Prints figures.

    python benchmarks/care_review.py --notes 1000 --out /tmp/care-review [--care-corpus]

Generates a vault (``lucasrag_harness.evaluation.vault_generator``, seed 7; ``--care-corpus`` adds every
passage of the care corpus as an unmarked note), ingests it, and reads what ``lucasrag care list`` lists.
A person who knows the truth (the generator's ``charged`` per note) then reviews it as the CLI offers:
subject by subject, in list order (most likely neutral first), deciding each run of pairs with the same
truth by one batch decision (``lucasrag care dismiss|confirm --subject S --neutral-above A
--neutral-below B``). The decisions are recorded in the vault, the vault is ingested again, and the
figures say what is left pending (0 when the review converges), what was released before any review and
what leaked (a charged pair released).
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import date
from pathlib import Path

from lucasrag.catalog import read_catalog
from lucasrag.deference import load_deference
from lucasrag.settings import Settings
from lucasrag_assets.ingest import run_ingest
from lucasrag_assets.rules.care.decisions import record
from lucasrag_assets.rules.care.review import review_rows
from lucasrag_harness.evaluation.vault_generator import generate_vault

NOW = date(2026, 6, 1)


def pairs(settings: Settings, every: bool = False) -> list[dict]:
    rows = read_catalog(settings).to_dicts()
    return review_rows(((r["path"], a) for r in rows for a in r["care"] or []), every=every)


def runs(rows: list[dict], truth: dict) -> list[tuple[str, list[tuple[str, str]]]]:
    """The batch decisions: (decision, pairs) for each run of one truth within a subject, in list order."""
    out: list[tuple[str, list[tuple[str, str]]]] = []
    last = None
    for r in rows:
        charged = r["subject"] in truth[r["path"]]["charged"]
        key = (r["subject"], charged)
        if key != last:
            out.append(("confirm" if charged else "dismiss", []))
            last = key
        out[-1][1].append((r["path"], r["subject"]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--care-corpus", action="store_true", help="add the care corpus as unmarked notes")
    ap.add_argument("--out", type=Path, default=Path(".lucasrag_data/bench/care_review"))
    args = ap.parse_args()
    vault, data = args.out / "vault", args.out / "data"
    generate_vault(vault, args.notes, seed=args.seed, now=NOW, overwrite=True, care_corpus=args.care_corpus)
    truth = {p: t for p, t in json.loads((args.out / "vault.truth.json").read_text())["notes"].items()}
    settings = Settings(vault=vault, data=data, now=NOW)
    start = time.perf_counter()
    run_ingest(settings)
    ingest_s = time.perf_counter() - start
    every = pairs(settings, every=True)
    referring = [r for r in every if r["source"] not in ("resolution",)]
    neutral = [r for r in every if r["subject"] not in truth[r["path"]]["charged"]]
    charged = [r for r in every if r["subject"] in truth[r["path"]]["charged"]]
    pending = pairs(settings)
    decisions = runs(pending, truth)
    subjects = load_deference(vault)
    for decision, items in decisions:
        record(vault, items, decision, subjects, by="benchmark")
    run_ingest(settings)
    after = pairs(settings)
    figures = {
        "notes": args.notes,
        "care_corpus": args.care_corpus,
        "ingest_s": round(ingest_s, 1),
        "pairs": len(every),
        "referring_pairs": len(referring),
        "neutral_pairs": len(neutral),
        "neutral_released_before_review": round(
            sum(r["outcome"] == "released" for r in neutral) / max(len(neutral), 1), 4
        ),
        "charged_pairs": len(charged),
        "charged_released": sum(r["outcome"] == "released" for r in charged),
        "pending_before": len(pending),
        "decisions": len(decisions),
        "pending_after": len(after),
    }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
