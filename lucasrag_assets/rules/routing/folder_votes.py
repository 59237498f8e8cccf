"""Folder evidence for the router's second pass (docs/routing.md, "Cold start"): a folder's notes mostly share
a workspace, so each note hears the first-pass votes of its folder-mates. Plain functions, no Dagster.

:func:`folder_shares` does it for a whole vault at once with numpy; the sums are added in the order of the
notes, one vote after another (``np.add.at``), so every share is float for float what adding the votes one
by one in a Python loop gives (``tests/rules/test_routing_batch.py`` checks it against such a loop).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import PurePosixPath

import numpy as np

from lucasrag.vocabulary import WORKSPACES

#: A folder speaks once it holds this many other notes; smaller folders lend the
#: evidence of the nearest ancestor folder that does.
FOLDER_EVIDENCE_MIN_NOTES = 2


def folder_evidence(
    paths: Sequence[str], distributions: Sequence[Mapping[str, float] | None]
) -> list[dict[str, float]]:
    """Per note, the share of each workspace among its folder-mates (the note itself left out).

    ``distributions[i]`` is note i's vote (workspace → weight, summing to at most 1; None: no
    vote, e.g. a content-free note). The note's own folder is used when it holds at least
    FOLDER_EVIDENCE_MIN_NOTES other voting notes; otherwise the nearest ancestor that does
    (its whole subtree); a note with no such folder gets no evidence (all zeros).
    """
    voting = np.array([bool(d) for d in distributions], dtype=bool)
    votes = np.array([[d.get(ws, 0.0) for ws in WORKSPACES] if d else [0.0] * len(WORKSPACES) for d in distributions])
    shares = folder_shares(paths, votes.reshape(len(paths), len(WORKSPACES)), voting)
    return [dict(zip(WORKSPACES, row)) for row in shares.tolist()]


def folder_shares(paths: Sequence[str], votes: np.ndarray, voting: np.ndarray) -> np.ndarray:
    """:func:`folder_evidence` as a matrix: row i is note i's share of each workspace (``WORKSPACES`` order)
    among its folder-mates. ``votes[i]`` is note i's vote, counted only where ``voting[i]``.

    A vault has few folders and many notes: each folder's chain of ancestors and each (folder, voter) pair's
    speaking folder are worked out once per folder, and the notes take theirs by array indexing."""
    n, width = len(paths), len(WORKSPACES)
    voters = np.asarray(voting, dtype=bool).reshape(n)
    parents: dict[str, int] = {}  # a note's own folder → its number
    note_parent = np.fromiter(
        (parents.setdefault(path.rpartition("/")[0], len(parents)) for path in paths), dtype=np.intp, count=n
    )
    index: dict[str, int] = {}  # every folder holding a note → its number
    chains = [[index.setdefault(folder, len(index)) for folder in _parent_chain(parent)] for parent in parents]
    depth = max((len(chain) for chain in chains), default=0)
    # chain_at[p, d]: folder number at depth d of own folder p's chain (-1 past its end)
    chain_at = np.full((len(chains), max(depth, 1)), -1, dtype=np.intp)
    for p, chain in enumerate(chains):
        chain_at[p, : len(chain)] = chain
    # (note, folder) pairs of the voting notes, depth after depth: a folder lies at one depth only, so each
    # folder's sum still adds its notes' votes in note order (float for float the vote-by-vote loop)
    sums = np.zeros((len(index), width))
    counts = np.zeros(len(index), dtype=np.int64)
    voting_notes = np.flatnonzero(voters)
    for d in range(depth):
        folders = chain_at[note_parent[voting_notes], d]
        inside = folders >= 0
        np.add.at(sums, folders[inside], votes[voting_notes[inside]])
        counts += np.bincount(folders[inside], minlength=len(index))

    # per (own folder, voter or not): the innermost folder with enough other voters, and how many others
    speaks = np.full((len(chains), 2), -1, dtype=np.intp)
    others = np.zeros((len(chains), 2), dtype=np.int64)
    for p, chain in enumerate(chains):
        for own in (0, 1):
            for folder in reversed(chain):
                if counts[folder] - own >= FOLDER_EVIDENCE_MIN_NOTES:
                    speaks[p, own], others[p, own] = folder, counts[folder] - own
                    break
    own_flag = voters.astype(np.intp)
    speaker, heard = speaks[note_parent, own_flag], others[note_parent, own_flag]
    shares = np.zeros((n, width))
    notes = np.flatnonzero(speaker >= 0)
    if len(notes):
        own_vote = np.where(voters[notes][:, None], votes[notes], 0.0)  # a non-voter takes nothing away
        shares[notes] = (sums[speaker[notes]] - own_vote) / heard[notes][:, None]
    return shares


def _folder_chain(path: str) -> list[str]:
    """The folders holding ``path``, outermost first: ``a/b/n.md`` → ``["a", "a/b"]``."""
    return list(_parent_chain(path.rpartition("/")[0]))


@lru_cache(maxsize=4096)
def _parent_chain(parent: str) -> tuple[str, ...]:
    """:func:`_folder_chain` of a note in folder ``parent`` (a vault has few folders and many notes)."""
    parts = PurePosixPath(parent).parts
    return tuple("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
