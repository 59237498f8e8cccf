"""Namesakes a workspace knows: another person with a subject's first name whom the vault's technical notes name
in full. Pure functions, no Dagster.

A colleague who shares the first name of a subject is the commonest collision in a real vault, and most work
notes name them bare ("Dan reviewed my PR"). One line rarely tells them apart; the vault often does. When the
technical notes name "Dan Okafor" in full in at least :data:`MIN_NOTES` notes, and never
name the subject by anything but the bare first name there (no "Dan Hart", no "my ex"), a bare "Dan" in that
workspace is taken for Dan Okafor — the same reading a note gets when its own title names him
(``mentions.note_namesakes``). The detector still reads every such chunk: a chunk it does not read as neutral
stays withheld ("seems not the subject (another person: Dan Okafor, …), but the detector reads it charged").

Only the technical workspace: in personal and creative notes a bare first name is the person's own people, and
the subject first among them, and in administrative notes too (:data:`WORK_WORKSPACES`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from lucasrag.vocabulary import DeferenceSubject

from .collisions import KINSHIP
from .mentions import resolve, subject_pattern

#: The workspaces where a namesake named in full speaks for the bare first name. Not the administrative one: a
#: person's admin is where an ex or a parent is named bare most (the divorce order, the kids' holidays), and on a
#: vault written by someone else a colleague named in full there made "stop looking at robert's facebook" his.
WORK_WORKSPACES = ("technical",)
#: In how many of the workspace's notes the namesake must be named in full.
MIN_NOTES = 2


def _person(full_name: str) -> str:
    """One key for the ways a namesake is written: "Sam Okafor" and "Sam O." are one person ("sam o")."""
    first, _, rest = full_name.partition(" ")
    return f"{first.casefold()} {rest[:1].casefold()}"


def _bare_names(subject: DeferenceSubject) -> set[str]:
    """The subject's one-word names, folded: the forms a namesake shares."""
    return {n.casefold() for n in subject.names if len(n.split()) == 1}


def workspace_namesakes(
    notes: Iterable[tuple[str, str]], subjects: Sequence[DeferenceSubject]
) -> dict[str, dict[str, tuple[str, ...]]]:
    """``(workspace, note text)`` pairs → workspace → subject → the namesakes a bare first name stands for there,
    each as evidence ("Dan Okafor, whom the technical notes name in full"). Subjects named by a kinship word are
    left out (a mother has no namesake), and so is a workspace that names the subject by more than the first
    name, or names two namesakes equally often."""
    people = [s for s in subjects if _bare_names(s) and s.name.split()[0].casefold() not in KINSHIP]
    named_in_full: dict[tuple[str, str], Counter] = defaultdict(Counter)
    forms: dict[tuple[str, str], set[str]] = defaultdict(set)
    subject_there: set[tuple[str, str]] = set()
    for workspace, text in notes:
        if workspace not in WORK_WORKSPACES:
            continue
        for s in people:
            context = resolve(text, s)
            if context is None:
                continue
            named = [m for m in context.mentions if subject_pattern(s).fullmatch(m)]  # not the pronouns
            if any(m.casefold().removesuffix("'s").removesuffix("’s") not in _bare_names(s) for m in named):
                subject_there.add((workspace, s.name))
            named_in_full[(workspace, s.name)].update({_person(o) for o in context.others})
            forms[(workspace, s.name)].update(context.others)
    out: dict[str, dict[str, tuple[str, ...]]] = defaultdict(dict)
    for (workspace, name), counts in named_in_full.items():
        ranked = counts.most_common(2)
        if (workspace, name) in subject_there or not ranked or ranked[0][1] < MIN_NOTES:
            continue
        if len(ranked) == 2 and ranked[1][1] == ranked[0][1]:
            continue  # two namesakes as often: the bare name could be either, or the subject
        # the person by their longest form ("Sam Okafor", not "Sam O."); no count in the evidence: it is part of
        # every such note's memo key, and a count would redo them all
        full = max((f for f in forms[(workspace, name)] if _person(f) == ranked[0][0]), key=lambda f: (len(f), f))
        out[workspace][name] = (f"{full}, whom the {workspace} notes name in full",)
    return dict(out)
