"""A subject whose name is an everyday word (Bill, Will, Rose, Dawn, Mark): how many of the word's uses are
released as "not the subject", and how many of the person's stay withheld. Prints figures.

    python benchmarks/care_name_words.py [--lexical] [--cases] [--corpus]

Two hand-written sets, one sentence each, assessed as an ingest assesses a chunk (vector evidence from the
shipped MiniLM unless ``--lexical``): the word (a gas bill, prices rose, up at dawn, "Mark the calendar") and
the person, written as people write in a hurry or in grief (lower case, no possessive: "Wore the necklace
grace gave me", "found dawn old scarf"). They were written while the collision rules were designed, so they
show what the rules do, not how they generalise: the care corpus (``lucasrag eval care``) is the measure of
that, and has no such subject. ``--corpus`` adds them: every tuning family of the corpus written about eight
subjects named like everyday words (Rose, Will, Dawn, Bill, Mark, Grace, Hope, Ginger) and five named like
months or seasons (June, April, May, Summer, Autumn), half their mentions in lower case as the corpus's writers
write names ("maya", "dan"), and counts what is released — the leak risk of the word and time rules on charged
writing, and what they do for neutral writing.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from lucasrag.vocabulary import DeferenceSubject

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import care_cases, outcome_tally  # noqa: E402

#: (subject, sentence): the everyday word, which should be released
WORD = [
    ("Bill", "Paid the gas bill online, reference 4471."),
    ("Will", "Wrote my will at the solicitor's; fee £150."),
    ("Rose", "Prices rose again at the big Tesco."),
    ("Grace", "Ten days' grace period on the loan before the fee."),
    ("Mark", "Put a question mark after item 3 on the agenda."),
    ("Jack", "Headphone jack broke again, ordered a new cable."),
    ("Dawn", "Up at dawn for the long run, 18 km."),
    ("Hope", "No hope of a refund from the airline."),
    ("Amber", "Amber warning for wind tomorrow, bring the bins in."),
    ("Olive", "Olive oil, garlic, two lemons, bread."),
    ("Rose", "Rose gold strap for the watch, £40."),
    ("Daisy", "Daisy chains on the lawn with the kids all afternoon."),
    ("Will", "Will you pick up milk on the way home?"),
    ("Mark", "Mark the calendar for the 12th."),
    ("Pat", "Pat the dough flat and bake for 12 minutes."),
    ("Jack", "Jack up the car before loosening the nuts."),
    ("Ruby", "Ruby wedding party for the neighbours on Saturday."),
    ("Holly", "Holly wreath for the door, £12."),
    ("Robin", "Robin on the bird feeder this morning."),
    ("Dawn", "The dawn chorus woke me at five."),
]
#: (subject, sentence): the person, which should stay withheld
PERSON = [
    ("Will", "Miss will so much."),
    ("Will", "Will rang about the funeral."),
    ("Rose", "I still can't believe rose is gone."),
    ("Dawn", "Went round to dawn's flat to sort her things."),
    ("Mark", "Mark and I split up a year ago today."),
    ("Bill", "Dad's bill from the hospice arrived. I couldn't open it."),
    ("Rose", "Thinking of rose today."),
    ("Bill", "It's been a year since bill died."),
    ("Will", "Ten years today. Still think of will."),
    ("Dawn", "Cleared out the shed, found dawn old scarf."),
    ("Mark", "Saw a photo of mark at the wedding. Closed the laptop."),
    ("Grace", "Wore the necklace grace gave me."),
    ("Ruby", "The anniversary. Lit a candle for ruby."),
    ("Hope", "Would have been hope birthday."),
    ("Robin", "Drove past the hospital where robin was."),
    ("Will", "Got the news that will is getting married. Fine. Went for a run."),
]


#: Subjects named like everyday words, and like months or seasons, one per kind of loss the corpus writes about
#: (name, kind, pronouns).
CORPUS_SETS = {
    "everyday words": [
        ("Rose", "loss", ("she", "her", "her")),
        ("Bill", "loss", ("he", "him", "his")),
        ("Grace", "loss", ("she", "her", "her")),
        ("Will", "ex", ("he", "him", "his")),
        ("Mark", "ex", ("he", "him", "his")),
        ("Dawn", "estranged", ("she", "her", "her")),
        ("Hope", "baby", ("she", "her", "her")),
        ("Ginger", "pet", ("she", "her", "her")),
    ],
    "months and seasons": [
        ("June", "loss", ("she", "her", "her")),
        ("April", "ex", ("she", "her", "her")),
        ("May", "estranged", ("she", "her", "her")),
        ("Summer", "baby", ("she", "her", "her")),
        ("Autumn", "pet", ("she", "her", "her")),
    ],
}


def corpus_figures(embed, title: str, named) -> None:
    from lucasrag_assets.rules.care.detector import assess_chunk
    from lucasrag_harness.evaluation.care_corpus import Persona
    from lucasrag_harness.evaluation.care_corpus.new_subjects import written_about

    personas = [
        Persona(DeferenceSubject(name), kind, pronouns, (name,), (name, name.lower())) for name, kind, pronouns in named
    ]
    subjects = tuple(p.subject for p in personas)
    by_label: dict[str, Counter] = {"charged": Counter(), "neutral": Counter()}
    for p in written_about(personas):
        a = {a.subject: a for a in assess_chunk(p.text, subjects, embed=embed)}.get(p.subject)
        by_label[p.label]["released (no reference)" if a is None else f"{a.outcome} ({a.source})"] += 1
    for label, counts in by_label.items():
        print(f"corpus about {title}, {label}: {outcome_tally(counts, 'released')}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lexical", action="store_true", help="lexical evidence alone (no embedder)")
    ap.add_argument("--cases", action="store_true", help="one line per sentence")
    ap.add_argument("--corpus", action="store_true", help="also the care corpus written about such subjects")
    args = ap.parse_args()
    from lucasrag.embedding import get_embedder

    embed = None if args.lexical else get_embedder().embed_spans
    for title, cases, want in (("the word", WORD, "released"), ("the person", PERSON, "withheld")):
        care_cases(title, [(DeferenceSubject(name), text) for name, text in cases], want, embed, args.cases)
    if args.corpus:
        for title, named in CORPUS_SETS.items():
            corpus_figures(embed, title, named)


if __name__ == "__main__":
    main()
