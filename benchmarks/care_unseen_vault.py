"""Everyday queries over vaults written as other people write, with their own deference lists and nothing marked:
how many results are passages that should have been withheld, and how many neutral mentions and collisions are
withheld. Prints figures.

    python benchmarks/care_unseen_vault.py [--vault small|claire|portland|lisbon|duluth] [--work DIR] [--cases]

``small`` (inline below): twenty notes (2025-2026), ten present-day entries that refer to a subject in a few plain
words — an anniversary line, "would have loved", news of an ex's wedding and baby, a dream, a dog's lead kept by the
door, a brother's birthday, Father's Day — and ten everyday, work and admin notes, among them a colleague who shares
the ex's first name ("Lena K. (backend)"), one who shares the dog's ("Oscar from QA"), estate paperwork and a recipe
of Dad's; twenty everyday questions. Written on 2026-12-06 after the rules of that day were designed on single
sentences; it found one more gap (Father's Day).

``claire`` (``benchmarks/care_vaults/claire``): seventy notes by one imagined writer (2015-2026; a mother who died,
an ex-husband, an estranged sister, a cat), written on 2026-12-06 by a helper that had not read this project's
code: thirty that should be withheld (long diary entries where the subject comes up halfway and is then "he" or
"she", one line struck out of a shopping list, a poem), fifteen neutral mentions (probate, divorce paperwork, the
kids' holidays arranged with the ex, memories from before each loss), ten collisions (a colleague "Rob Mensah" /
"Rob M.", "Ellie B.", "the odd pip", "pipped at the post") and fifteen notes about none; thirty everyday questions
(``truth.json``, ``queries.json``). It found the gaps "a note is one moment", technical-only workspace namesakes
and a meeting note's head were built for, before its figures were taken.

``portland``, ``lisbon``, ``duluth`` (``benchmarks/care_vaults/``): eighty notes each by three more imagined writers
(an engineer in Portland, a teacher in Lisbon, a carpenter near Duluth), each written by a helper that had not read
the code after the rules the previous vault prompted, and scored once before any rule changed for it (its held-out
figure, docs/care.md). In lisbon and duluth ten of the thirty notes to withhold never name their subject; duluth
uses no stock phrase of grief, and two of its notes about none are poems to "you".

The vault is ingested on the embedded profile (``run_ingest``) and asked its questions (``query()``, the default
results); a leak is a result from a note that should be withheld.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import tempfile
from pathlib import Path

DEFERENCE = """subjects:
  - name: Dad
    aliases: [my dad, my father, pops]
  - name: Lena
    aliases: [lena b]
  - name: Oscar
  - name: Theo
"""
#: (path, date, body, the subject it should be withheld for or None)
NOTES = [
    ("journal/2026-03-02.md", "2026-03-02", "Dad. Four years today.", "Dad"),
    (
        "journal/2026-03-09.md",
        "2026-03-09",
        "Long run by the canal, 14k. Knees fine. Pops would have loved the new bridge.",
        "Dad",
    ),
    (
        "journal/2026-04-11.md",
        "2026-04-11",
        "Heard Lena got married in Porto. Good for her. Made pasta, watched the match.",
        "Lena",
    ),
    (
        "journal/2026-04-20.md",
        "2026-04-20",
        "Dreamt about Oscar again, he was chasing gulls on the beach. Woke up at 5 and couldn't sleep.",
        "Oscar",
    ),
    (
        "journal/2026-05-01.md",
        "2026-05-01",
        "Theo's birthday. Didn't call. He didn't either. Gym, then groceries.",
        "Theo",
    ),
    (
        "journal/2026-05-14.md",
        "2026-05-14",
        "Still have Oscar's lead on the hook by the door. Walked to the bakery, bought sourdough.",
        "Oscar",
    ),
    (
        "journal/2026-06-03.md",
        "2026-06-03",
        "Lena posted a photo with the baby. Closed the app. Cooked a curry for the neighbours.",
        "Lena",
    ),
    (
        "journal/2026-06-21.md",
        "2026-06-21",
        "Father's Day. Kept busy in the garden, planted tomatoes and basil.",
        "Dad",
    ),
    ("journal/2026-07-04.md", "2026-07-04", "Wore my dad's watch to the interview. Got the job offer at 4pm!", "Dad"),
    (
        "journal/2026-07-18.md",
        "2026-07-18",
        "Drove past Theo's flat on the way to the climbing wall. Lights on. Kept driving.",
        "Theo",
    ),
    (
        "journal/2026-08-02.md",
        "2026-08-02",
        "Climbing wall with Sam, sent the orange 6b. Dinner at the Thai place on Mill Road.",
        None,
    ),
    (
        "journal/2026-08-09.md",
        "2026-08-09",
        "Repotted the basil, tomatoes ripening. Sam came round for a barbecue.",
        None,
    ),
    (
        "journal/2026-08-15.md",
        "2026-08-15",
        "Interval session at the track, 6x800m. New running shoes are great.",
        None,
    ),
    (
        "work/2026-09-01 standup.md",
        "2026-09-01",
        "Standup: Lena K. (backend) is blocked on the staging database. Oscar from QA will retest the export on Thursday.",
        None,
    ),
    (
        "work/2026-09-08 retro.md",
        "2026-09-08",
        "Retro: the export shipped. Action: Theo Marsh to write the runbook for the queue migration.",
        None,
    ),
    (
        "work/queue migration.md",
        "2026-09-10",
        "# Queue migration\nMove consumers first, then producers. Backfill with the replay tool. Owner: platform team.",
        None,
    ),
    (
        "admin/estate.md",
        "2026-02-10",
        "# Estate admin\nProbate granted 3 Feb. Dad's current account closed, balance £2,412.50 transferred to the estate account. Final council tax bill paid, £96.",
        None,
    ),
    (
        "recipes/chilli.md",
        "2025-11-02",
        "# Dad's chilli\n500g beef mince, 2 onions, 3 cloves garlic, 2 tins tomatoes, kidney beans, 2 tsp cumin. Simmer 90 min.",
        None,
    ),
    (
        "admin/car.md",
        "2026-09-20",
        "# Car\nMOT due 14 October. Insurance renewal £412 with Admiral. Tyres at 3mm front.",
        None,
    ),
    (
        "journal/2026-09-25.md",
        "2026-09-25",
        "Booked the train to Edinburgh for the conference, £86 return. Hotel near Waverley.",
        None,
    ),
]
QUESTIONS = [
    "what did I do at the climbing wall?",
    "how was my running going?",
    "what did I cook recently?",
    "what is in the garden?",
    "what happened at work this month?",
    "what about the job interview?",
    "where did I go walking?",
    "what did I buy at the bakery?",
    "how did I sleep?",
    "what did I do at the weekend?",
    "who came round for dinner?",
    "what's happening with the queue migration?",
    "what did I do at the gym?",
    "what did I watch?",
    "when is the car MOT?",
    "what happened in June?",
    "what did I do in May?",
    "what did I do in spring?",
    "how am I feeling lately?",
    "what did I post or see on social media?",
]


def write_small(vault: Path) -> tuple[dict[str, str], list[str]]:
    """The small vault's files; returns path → "charged:<subject>" | "none" (its truth) and its questions."""
    (vault / ".lucasrag").mkdir(parents=True, exist_ok=True)
    (vault / ".lucasrag" / "deference.yaml").write_text(DEFERENCE)
    for path, date, body, _ in NOTES:
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(f"---\ndate: {date}\n---\n{body}\n")
    return {path: f"charged:{subject}" if subject else "none" for path, _, _, subject in NOTES}, QUESTIONS


def copy_vault(name: str, vault: Path) -> tuple[dict[str, str], list[str]]:
    """The vault ``benchmarks/care_vaults/<name>`` copied to ``vault`` (the benchmark never writes into the
    repository); its truth and questions."""
    source = Path(__file__).resolve().parent / "care_vaults" / name
    shutil.copytree(source / "vault", vault, dirs_exist_ok=True)
    return json.loads((source / "truth.json").read_text()), json.loads((source / "queries.json").read_text())


def withheld_by_class(settings, truth: dict[str, str]) -> dict[str, str]:
    """Per truth class (charged, neutral, collision, none), how many of its notes have a chunk withheld, and how
    many are not in any index."""
    import polars as pl

    from lucasrag_assets.io_manager import asset_value_path

    chunks = pl.read_parquet(asset_value_path(settings.data, ["banded_chunks"]))
    held = set(chunks.filter(pl.col("charged").list.len() > 0)["path"].to_list())
    indexed = set(chunks["path"].to_list())
    by: dict[str, list[int]] = {}
    for path, label in truth.items():
        counts = by.setdefault(label.split(":")[0], [0, 0, 0])
        counts[0] += path in held
        counts[1] += path not in indexed  # quarantined for review (too little to route) or invalid: never answers
        counts[2] += 1
    return {
        label: f"{n} of {total} withheld" + (f", {out} not indexed" if out else "")
        for label, (n, out, total) in sorted(by.items())
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vault", choices=("small", "claire", "portland", "lisbon", "duluth"), default="small")
    ap.add_argument("--work", type=Path, help="folder for the vault and its data (default: a temporary one)")
    ap.add_argument("--cases", action="store_true", help="one line per question")
    args = ap.parse_args()
    from lucasrag.settings import Settings
    from lucasrag_assets.ingest import run_ingest
    from lucasrag_query import query

    work = args.work or Path(tempfile.mkdtemp(prefix="care-unseen-"))
    vault = work / "vault"
    truth, questions = write_small(vault) if args.vault == "small" else copy_vault(args.vault, vault)
    charged = {path for path, label in truth.items() if label.startswith("charged")}
    settings = Settings(vault=work / "vault", data=work / "data", now=dt.date(2026, 12, 6))
    run_ingest(settings)
    leaks = with_hint = results = 0
    for q in questions:
        r = query(q, settings=settings).to_dict()
        leaked = [x["path"] for x in r["results"] if x["path"] in charged]
        leaks, results = leaks + len(leaked), results + len(r["results"])
        with_hint += bool(r.get("hints"))
        if args.cases:
            print(f"{len(r['results']):3} results, {len(leaked)} leaked {leaked}  {q}")
    print(f"{args.vault}: {len(questions)} everyday questions over {len(truth)} notes ({len(charged)} to withhold)")
    print(f"leaked results {leaks} of {results}; questions with a care hint {with_hint}; work folder {work}")
    print(f"notes with a chunk withheld: {withheld_by_class(settings, truth)}")


if __name__ == "__main__":
    main()
