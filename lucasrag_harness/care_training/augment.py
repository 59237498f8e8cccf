"""Register-agnostic rewrites of tuning passages, used at training time only.

The tuning writing is mostly prose; real vaults hold lists, bullet journals,
pasted message threads and lowercase typing, where a grief aside is one line
among neutral ones. Each rewrite keeps what the passage says about its subject
and its label, and changes only the shape, so the classifier cannot lean on
prose shape (a charged prose passage and its bulleted copy are both charged; a
neutral one and its bulleted copy are both neutral):

* ``lowercase``: lowercase, sentence-final full stops dropped (phone typing);
* ``bullets``: every sentence its own ``- `` item;
* ``among_chores``: the sentences about the subject as items of a list of
  everyday chores, at a random place;
* ``thread``: the sentences as timestamped lines of a message thread, with
  everyday replies from someone else between them.

The filler lines are generic (chores, logistics), written for this module and
shared by charged and neutral passages alike, so they carry no label.
Deterministic: ``random.Random(seed)`` only. Pure functions, stdlib only.
"""

from __future__ import annotations

import random
import re

from lucasrag_assets.rules.care.mentions import split_structured

CHORES = (
    "kitchen roll",
    "oven cleaner",
    "couscous",
    "ring the council about parking",
    "print the boarding passes",
    "fix the bike light",
    "card for Jo at work",
    "hoover the stairs",
    "sort the recycling",
    "car insurance renewal",
    "order printer ink",
    "descale the kettle",
    "sellotape",
    "defrost the freezer",
    "cancel the magazine",
    "top up the oyster",
)
REPLIES = (
    "ok",
    "sure, what time?",
    "running 10 min late",
    "can you grab milk on the way",
    "did you see the bus times changed",
    "yep",
    "sounds good",
    "lol",
    "i'll bring the charger",
    "what are we doing saturday",
)
KINDS = ("lowercase", "bullets", "among_chores", "thread")


def _sentences(text: str) -> list[str]:
    return [re.sub(r"^\s*(?:[-*•○×>!–]|\d+[.)])\s*", "", s.text).strip() for s in split_structured(text)]


def rewrite(text: str, kind: str, rng: random.Random, about: list[str] | None = None) -> str:
    """``text`` in another register; ``about`` (the sentences about the subject) for ``among_chores`` and
    ``thread`` (default: every sentence)."""
    sentences = [s for s in _sentences(text) if s]
    if kind == "lowercase":
        return "\n".join(re.sub(r"\.$", "", s.lower()) for s in sentences)
    if kind == "bullets":
        return "\n".join(f"- {s}" for s in sentences)
    lines = [s for s in (about or sentences) if s.strip()]
    if kind == "among_chores":
        items = rng.sample(CHORES, rng.randint(3, 5))
        at = rng.randint(0, len(items))
        return "\n".join(f"- {s}" for s in items[:at] + lines + items[at:])
    if kind == "thread":
        out, minute = [], rng.randint(0, 40)
        for s in lines:
            out.append(f"[19:{minute:02d}] me: {s}")
            minute += rng.randint(1, 4)
            if rng.random() < 0.6:
                out.append(f"[19:{minute:02d}] Sam: {rng.choice(REPLIES)}")
                minute += 1
        return "\n".join(out)
    raise ValueError(f"unknown rewrite {kind!r}: one of {', '.join(KINDS)}")
