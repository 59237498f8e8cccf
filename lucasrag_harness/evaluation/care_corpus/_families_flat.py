"""The fifth batch of care-corpus families (corpus version 5): tuning data only, flat writing.

Written from scratch for ``care-lr-4`` after batches 1-4 became tuning data, in
the registers where the out-of-fold recall on them was lowest (one-line entries,
poems, messages) and in the flattest diary writing: errands and ordinary days
that catch on an absence, with no affect word. The neutral families are in the
same registers (a one-line logistics entry, a light poem, a message arranging
something), so that what the detector learns there is the charge, not the
register or the brevity. Every family is tuning data (``half == "tune"``).
"""

from __future__ import annotations

from ._families import _f

CHARGED_FLAT = (
    _f(
        "errand-catches",
        "diary",
        "charged",
        "loss",
        "At the supermarket I picked up the biscuits {s} liked and put them back. Paid for the rest.",
        "Posted a card today. It was the first year I didn't write one to {s}.",
        "The garage asked whose name the car should be in now. Said mine. It was {s's}.",
        "Changed the clocks. {S} always did that. Took me ten minutes to find the button.",
        "Library sent a reminder for a book {s} borrowed. I'll take it back on Saturday.",
        "Bought one pint of milk instead of two. The woman at the till knew {s}.",
        "The boiler man asked for {s}. I told him. He stood on the step for a while.",
        "Cancelled {s's} paper round. The boy waved anyway this morning.",
    ),
    _f(
        "one-line-flat",
        "one-line",
        "charged",
        "any",
        "{year}. {S}. That's all I'm writing.",
        "Set the table for one. {S}.",
        "Drove past {s's} road. Kept driving.",
        "{S's} birthday. Worked late.",
        "Found {s's} glove in my coat pocket.",
        "Nobody asked about {s} today.",
        "Deleted the photo of {s}. Got it back from the bin.",
        "Same bench at {place}. Without {s}.",
    ),
    _f(
        "message-not-sent",
        "message",
        "charged",
        "ex",
        "Draft to {s}: 'saw your sister in town, she looked well' — didn't send.",
        "Me to {s}, 23:48: 'are you up'. Unread.",
        "{S} liked my post after {n} months of nothing. I've looked at it all evening.",
        "Typed 'congratulations' to {s} about the new job. Deleted it. Typed it again.",
        "Text from {s}: 'can I pick up the rest of my things'. Left it till morning.",
        "Message to {s} still in drafts from March: 'I think about the flat a lot'.",
        "{S} called. I watched it ring out.",
        "Group chat: someone added {s}. I left the group.",
    ),
    _f(
        "poem-objects",
        "poem",
        "charged",
        "any",
        "{s's} reading glasses\nfolded on the sill\nlooking at nothing",
        "two toothbrushes\none of them dry\n{s}",
        "the spare key {s} had\ncame back in an envelope\nno note",
        "{S's} side of the bed\nI sleep in the middle now\nit isn't better",
        "a jar of buttons\n{s} never sorted\nI haven't either",
        "the mug with the chip\n{s} refused to throw away\nI can't either",
        "winter again, {s}\nyour scarf on my hook\nI wear my own",
        "the dog still waits\nat the window for {s}\nat six",
    ),
)

NEUTRAL_FLAT = (
    _f(
        "one-line-logistics",
        "one-line",
        "neutral",
        "any",
        "{S's} train gets in at 6.",
        "Lend {s} the ladder.",
        "{S}: bring the folding chairs.",
        "Ask {s} about the boiler code.",
        "{S} has the spare key this week.",
        "Pick up {s's} parcel from the post office.",
        "{S} recommended the dentist on the high street.",
        "Owe {s} £8 for the pizza.",
    ),
    _f(
        "poem-everyday-light",
        "poem",
        "neutral",
        "any",
        "{s} and the crossword\npen behind the ear\nseven down, again",
        "Saturday market\n{s} haggles for plums\nwins, as usual",
        "for {s}, on the new kitchen\nshelves level at last\nthe spirit level smug",
        "{S's} terrible puns\ngroans round the table\n{he} takes a bow",
        "kites at {place}\n{s} runs backwards\nfalls in the grass laughing",
        "the cake leaned\n{s} called it modern art\nwe ate it anyway",
        "{S} with the map upside down\ninsisting it's north\nit wasn't",
        "rain on the tent\n{s} snoring through it\nthe rest of us awake",
    ),
    _f(
        "message-arranging",
        "message",
        "neutral",
        "any",
        "Text to {s}: 'table booked for 7, see you there'.",
        "{S}: 'running 10 min late, order me the soup'.",
        "Me to {s}: 'can you feed the cat Thursday?' {S}: 'yes, key under the pot?'",
        "{S} sent the link to the hiking route. Looks about 12 km.",
        "Reminder from {s}: bring the extension lead on Saturday.",
        "{S} asked if I still have the drill. Dropping it round tomorrow.",
        "WhatsApp from {s}: photo of the finished shelf, very pleased with it.",
        "Me to {s}: 'happy birthday! cake on Sunday?' {S}: 'obviously'.",
    ),
)
