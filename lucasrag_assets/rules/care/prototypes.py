"""Prototypes: short descriptions of charged and of neutral situations, as vectors in the weights file.

They describe *situations*, not phrasings: a chunk written about a death
anniversary, a kept object or an estrangement lands near the description of
that situation in the embedding space whatever words it uses. Training embeds
them once (the embedding model of the vector weights, as passages) and ships the
vectors in ``weights.json``; at ingest the detector compares the pair's span or
chunk vector with them — no embedding call. The features are the highest
similarity to a charged prototype, the mean of the three highest, and the
highest similarity to a neutral prototype (``prototype_features``); the combined score
weighs their margin (``MARGIN``).
Written from scratch for what they name; the corpus templates were not consulted.
"""

from __future__ import annotations

import numpy as np

CHARGED_PROTOTYPES = (
    "Grieving someone who died; the loss still hurts.",
    "The anniversary of a death; the date comes round again every year.",
    "Their birthday came and they are not here to celebrate it.",
    "Dreaming about a person who has died and waking up to remember they are gone.",
    "Keeping the belongings of someone who died: their coat, their glasses, their chair.",
    "Unable to delete a dead person's phone number or their voicemail.",
    "Clearing out the house of a parent who died.",
    "Visiting a grave or the place where their ashes were scattered.",
    "Avoiding a street, a shop or a place because it reminds me of them.",
    "Still setting a place or buying things for someone who is no longer alive.",
    "The last conversation before they died, and what I wish I had said.",
    "A letter to someone who died that will never be sent.",
    "Caring for a dying relative in hospital; the final weeks.",
    "A therapy session about grief and loss.",
    "A short poem of mourning for someone I lost.",
    "A one-line diary entry: a hard day because I missed them.",
    "Feeling numb and empty since the funeral.",
    "Hearing a song or smelling something that brings back a person who is gone.",
    "The break-up still hurts; I miss my former partner.",
    "Seeing my ex with a new partner and feeling sick about it.",
    "Angry at an ex who lied and betrayed me.",
    "Estranged from a family member; we have not spoken in years.",
    "Messages to an ex that go unanswered; typing a text and deleting it.",
    "A called-off wedding and the life we had planned together.",
    "Unable to say their name out loud since they left or died.",
    "Pretending to be fine in public while quietly falling apart over them.",
)

NEUTRAL_PROTOTYPES = (
    "Estate paperwork: probate forms, bank letters and account closures.",
    "A family recipe with ingredients, quantities and oven temperature.",
    "The deposit and bills of a shared flat, split between flatmates.",
    "A funny, light anecdote about a relative at a party.",
    "A place, room, bench or building named after a person.",
    "A tool, script or file named after someone.",
    "A work meeting with a colleague about a project and deadlines.",
    "An invoice, an accountant or a client appointment.",
    "A reminder to call someone about arranging a visit.",
    "Everyday small talk about the weather and plans for the weekend.",
    "A neighbour who took in a parcel or borrowed a tool.",
    "Code review comments from a teammate.",
    "Booking train tickets and a hotel for a family trip.",
    "A happy day out together, laughing and enjoying the sunshine.",
    "A birthday party being planned with cake and guests.",
)


#: The margin the combined score weighs: mean of the three highest charged similarities minus the highest
#: neutral one (``prototype_features @ MARGIN``).
MARGIN = np.array([0.0, 1.0, -1.0])


def prototype_features(vector: np.ndarray, charged: np.ndarray, neutral: np.ndarray) -> np.ndarray:
    """(highest charged similarity, mean of the three highest, highest neutral similarity) of a unit
    ``vector`` against unit prototype rows."""
    to_charged = np.sort(charged @ vector)[::-1]
    return np.array([to_charged[0], to_charged[:3].mean(), float((neutral @ vector).max())], dtype=np.float64)
