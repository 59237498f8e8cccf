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
Written from scratch for what they name; the corpus templates were not consulted. From ``care-lr-6`` two
more groups: practical traces of a loss (charged) and a living person present in the writer's life (neutral),
chosen leaving one batch of writers out (docs/care.md).
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
    # From ``care-lr-6``: the practical traces of a loss (an errand, a form, an invoice, a booking, a
    # cancellation, a calendar entry), where what the entry is about carries the loss and no word of feeling does.
    "Arranging a funeral: the funeral director, the coffin, the flowers and the order of service.",
    "Registering a death and collecting copies of the death certificate.",
    "Ordering a headstone or a memorial plaque and choosing the words on it.",
    "Paying the bill for a funeral or a cremation.",
    "Cancelling a dead person's phone contract, bank card and subscriptions.",
    "Post and reminders still arriving addressed to someone who has died.",
    "Returning the hospital bed and the medical equipment after the death.",
    "A to-do list of jobs after a death: the bank, the pension, the council, the landlord.",
    "The vet's bill for having a pet put to sleep, and collecting its ashes.",
    "Putting away a pet's bowl, bed and lead after it died.",
    "Putting away the baby clothes and the cot after losing a baby.",
    "A date in the calendar marking the day someone died.",
    "A budget line or a receipt for flowers for a grave or a memorial.",
    "Packing for the trip to scatter the ashes.",
    "Handing the children over to my ex under the custody arrangement.",
    "A solicitor's letter, a court date or mediation about the divorce.",
    "Splitting up our things and moving out after the break-up.",
    "Closing the joint account and changing the locks after the separation.",
    "Returning the engagement ring and cancelling the wedding venue.",
    "Taking an estranged relative off the card list and the family group chat.",
    "A tracker counting the days since the loss or since we split up.",
    "Blocking my ex and deleting our photos.",
    "A family occasion with an empty chair where they used to sit.",
    "The first holiday season without them.",
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
    # From ``care-lr-6``: the person is alive and in the writer's life now (plans together, shared time in the
    # present tense). Warm or busy writing about a living person was the commonest false positive.
    "Making plans together for next weekend; we are meeting up on Saturday.",
    "Having dinner with them tonight and hearing all about their new job.",
    "They rang this morning and we laughed about the kids.",
    "Helping them in their garden; they are doing really well.",
    "Their birthday: they opened their presents and blew out the candles.",
    "So proud of them: they passed their exam and we went out to celebrate.",
    "A busy day in town with them, running errands, then coffee.",
    "They have taken up a new hobby and they love it.",
    "A long, happy, rambling chat with them about everything and nothing.",
    "Sending them a message about what time to meet; they replied straight away.",
)


#: The margin the combined score weighs: mean of the three highest charged similarities minus the highest
#: neutral one (``prototype_features @ MARGIN``).
MARGIN = np.array([0.0, 1.0, -1.0])


def prototype_features(vector: np.ndarray, charged: np.ndarray, neutral: np.ndarray) -> np.ndarray:
    """(highest charged similarity, mean of the three highest, highest neutral similarity) of a unit
    ``vector`` against unit prototype rows."""
    to_charged = np.sort(charged @ vector)[::-1]
    return np.array([to_charged[0], to_charged[:3].mean(), float((neutral @ vector).max())], dtype=np.float64)
