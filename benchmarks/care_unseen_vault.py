"""Everyday queries over a small vault written as another person writes, with four deference subjects and
nothing marked: how many results are passages that should have been withheld. Prints figures.

    python benchmarks/care_unseen_vault.py [--work DIR] [--cases]

Twenty notes (2025-2026): ten present-day entries that refer to a subject in a few plain words — an anniversary
line, "would have loved", news of an ex's wedding and baby, a dream, a dog's lead kept by the door, a brother's
birthday, Father's Day — and ten everyday, work and admin notes, among them a colleague who shares the ex's
first name ("Lena K. (backend)"), one who shares the dog's ("Oscar from QA"), estate paperwork and a recipe
of Dad's. The vault is ingested on the embedded profile (``run_ingest``) and asked twenty everyday questions
(``query()``, the default ten results); a leak is a result from one of the ten notes. It mirrors what checks
of vaults written by other people count; it was written on 2026-12-06, after the rules of that day were
designed on single sentences, and it found one more gap (Father's Day), fixed before its figure was taken.
"""

from __future__ import annotations

import argparse
import datetime as dt
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


def write_vault(vault: Path) -> dict[str, str]:
    """The vault's files; returns path → the subject each charged note should be withheld for."""
    (vault / ".lucasrag").mkdir(parents=True, exist_ok=True)
    (vault / ".lucasrag" / "deference.yaml").write_text(DEFERENCE)
    for path, date, body, _ in NOTES:
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(f"---\ndate: {date}\n---\n{body}\n")
    return {path: subject for path, _, _, subject in NOTES if subject}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, help="folder for the vault and its data (default: a temporary one)")
    ap.add_argument("--cases", action="store_true", help="one line per question")
    args = ap.parse_args()
    from lucasrag.settings import Settings
    from lucasrag_assets.ingest import run_ingest
    from lucasrag_query import query

    work = args.work or Path(tempfile.mkdtemp(prefix="care-unseen-"))
    charged = write_vault(work / "vault")
    settings = Settings(vault=work / "vault", data=work / "data", now=dt.date(2026, 10, 1))
    run_ingest(settings)
    leaks = with_hint = results = 0
    for q in QUESTIONS:
        r = query(q, settings=settings).to_dict()
        leaked = [x["path"] for x in r["results"] if x["path"] in charged]
        leaks, results = leaks + len(leaked), results + len(r["results"])
        with_hint += bool(r.get("hints"))
        if args.cases:
            print(f"{len(r['results']):3} results, {len(leaked)} leaked {leaked}  {q}")
    print(f"{len(QUESTIONS)} everyday questions over {len(NOTES)} notes ({len(charged)} refer to a subject):")
    print(f"leaked results {leaks} of {results}; questions with a care hint {with_hint}; work folder {work}")


if __name__ == "__main__":
    main()
