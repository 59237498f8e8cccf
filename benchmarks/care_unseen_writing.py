"""Care on writing the detector was not made on: short, understated lines that refer to a deference subject and
should stay withheld, and collisions and practical records that should be released. Prints figures.

    python benchmarks/care_unseen_writing.py [--lexical] [--cases]

The sentences were written on 2026-12-06 as another person would write a diary, a to-do list or work notes,
about four subjects of four kinds (a parent who died, an ex, an estranged brother, a dog), one chunk each,
assessed as an ingest assesses a chunk (vector evidence from the shipped MiniLM unless ``--lexical``). They
found the gaps that ``rules/care/holding.py``, a parent's day (``mentions.occasions``), a colleague's initial
and team, and a kinship word in a compound were then built for, so they show what the rules do now, not how
they generalise: ``lucasrag eval care`` is that measure. "withheld" counts a pending pair; "released" counts a
pair released or a chunk that does not refer to the subject at all.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lucasrag.vocabulary import DeferenceSubject

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import care_cases  # noqa: E402

MUM = DeferenceSubject("Mum", ("my mother", "mom", "mam"))
MOTHER = DeferenceSubject("Mum", ("my mother", "mother", "mom", "mam"))
DAD = DeferenceSubject("Dad", ("my father", "father"))
EX = DeferenceSubject("Jonas", ("jonas weber",))
BRO = DeferenceSubject("Eli")
DOG = DeferenceSubject("Biscuit")
GRAN = DeferenceSubject("Nana Pearl", ("nana", "pearl"))
WILL = DeferenceSubject("Will")

#: (subject, chunk): the subject, in grief, estrangement or news of an ex, often in a few plain words
WITHHOLD = [
    (MUM, "Mum. Three years today."),
    (MUM, "Would have been mum's 70th."),
    (EX, "Heard Jonas is engaged. Good for him. Went for a long run."),
    (EX, "Jonas and his wife had a baby girl. Saw it on Instagram."),
    (EX, "Dreamt about jonas again. Woke up at 4."),
    (BRO, "Eli's birthday. Didn't text. He didn't either."),
    (BRO, "Saw Eli's car outside the Co-op. Drove round the block twice."),
    (DOG, "Still have Biscuit's lead by the door."),
    (DOG, "Walked the old route without biscuit."),
    (GRAN, "Made nana's scones. Not the same."),
    (GRAN, "Ten years since Nana Pearl. Lit a candle."),
    (GRAN, "Pearl would've loved this garden."),
    (MUM, "Found mom's handwriting in an old cookbook. Sat on the kitchen floor for a while."),
    (EX, "Jonas's stuff is still in the loft. One day."),
    (WILL, "will's hoodie still smells like him"),
    (MUM, "Mum would have loved this."),
    (MUM, "mum would have laughed at the new kitchen"),
    (BRO, "Eli would be 30 today."),
    (DOG, "Biscuit would have gone mad for this beach."),
    (GRAN, "Nana would have known what to do."),
    (EX, "Jonas would've hated this restaurant, which is probably why I picked it."),
    (MUM, "Wish mum could see the baby."),
    (MUM, "Mum's birthday tomorrow."),
    (MUM, "Mum's anniversary."),
    (EX, "Jonas texted. Didn't reply."),
    (EX, "Ran into Jonas at the market. We talked about the weather."),
    (EX, "Jonas is moving to Lisbon apparently."),
    (BRO, "Dream: Eli and I were kids again at the lake."),
    (GRAN, "Dreamt of nana's kitchen last night."),
    (GRAN, "Wearing nana's ring to the interview for luck."),
    (DOG, "Vacuumed and there was still some of biscuit's fur under the sofa."),
    (MUM, "Played mum's old records while cooking."),
    (MUM, "Mum's favourite song came on in Tesco."),
    (GRAN, "Pearl's garden is looking lovely this year, the new owners kept the roses."),
    (BRO, "Got a wedding invite. Eli will be there."),
    (EX, "Jonas liked my post."),
    (MUM, "Mum's grave — cleaned it, new flowers."),
    (MUM, "Sorted mum's clothes for the charity shop, three bags."),
    (BRO, "Eli: still nothing."),
    (DOG, "Biscuit. 5 years."),
    (MUM, "Mum's chair."),
    (EX, "Jonas got married on Saturday."),
    (EX, "Saw Jonas's new girlfriend. She seems nice."),
    (GRAN, "Nana's recipe book is on my shelf now."),
    (BRO, "Eli posted photos from his wedding. I wasn't invited."),
    (DOG, "Biscuit's bowl is still under the sink."),
    (MUM, "Mum used to say that."),
    (MUM, "Mum always hummed this song."),
    (MUM, "Bought the biscuits mum liked."),
    (GRAN, "Told the kids about nana today."),
    (MUM, "Visited mum at the cemetery."),
    (BRO, "Passed Eli in town. Neither of us said anything."),
    (MUM, "It's mum's birthday."),
    (MUM, "Made a cake for mum's birthday anyway."),
    (GRAN, "Listened to nana's voicemail."),
    (MUM, "Still have mum's number in my phone."),
    (MUM, "Mum's handwriting on the jar labels."),
    (BRO, "Eli's kids would be at school now. I've never met them."),
    (EX, "Jonas's mum messaged me happy birthday. Strange."),
    (GRAN, "Sold nana's piano. The buyer seemed kind."),
    (DOG, "Gave biscuit's bed to the shelter."),
    (MUM, "Found a photo of mum and me at the beach, 1998."),
    (MUM, "Mum taught me this."),
    (EX, "Jonas's band is playing in town on Friday."),
    (MUM, "mum's old phone number got reassigned, a stranger answered"),
    (EX, "Jonas's new flat is two streets from mine."),
    (MUM, "Mum would've been 64 today."),
    (EX, "Deleted the photos of Jonas. Kept one."),
    (GRAN, "Nana's ring fits me now."),
    (BRO, "Eli and Sara are expecting. Mum told me on the phone."),
    (EX, "Jonas moved on. Fine."),
    (MUM, "Cooked mum's lasagne for the first time."),
    (MUM, "Mum's garden: planted her tulip bulbs."),
    (DOG, "Someone on the beach had a dog just like Biscuit."),
    (GRAN, "Nana's house has a sold sign."),
    (EX, "jonas + her at the pub. left."),
    (MUM, "Called the bank about mum's account again. On hold 40 min."),
    (MUM, "Wore mum's scarf."),
    (BRO, "Eli called. Didn't pick up."),
    (GRAN, "Nana used to make these."),
    (
        MUM,
        "Busy day. Fixed the CI pipeline, finally green. Lunch with Sam at the Thai place. Mum's anniversary tomorrow. Gym at 6, legs.",
    ),
    (
        EX,
        "Monday. Standup ran long. Shipped the export feature. Heard Jonas got engaged. Groceries: eggs, oat milk, coffee. Bed by 11.",
    ),
    (
        GRAN,
        "Weekly review: 3 PRs merged, 2 blocked. Budget £420 left this month. Nana's ring is at the jeweller for resizing, pick up Thursday. Book dentist.",
    ),
    (BRO, "Sprint planning. 21 points committed. Eli's wedding was yesterday apparently. Ordered a new keyboard, £89."),
    (
        DOG,
        "Long run 12k, 5:10 pace. Passed the park where we used to take Biscuit. Protein shake, stretching, early night.",
    ),
    (MUM, "- [x] pay council tax £142\n- [x] renew passport\n- [ ] ring the hospice about mum's things\n- [ ] car MOT"),
    (
        EX,
        "Q3 goals\n1. ship search v2\n2. hire 2 engineers\n3. stop checking jonas's instagram\n4. run a half marathon",
    ),
    (GRAN, "Shopping: flour, butter, eggs, sugar, jam for nana's victoria sponge, candles."),
    (MUM, "Expenses March: rent £950, food £310, travel £85, flowers for mum's grave £20, phone £25."),
    (
        BRO,
        "Dream last night: Eli and I fixing the old bike in Dad's garage. Woke up and checked my phone. Work: migrated the billing service, 2 incidents.",
    ),
    (
        EX,
        "Meeting notes 14/03: budget approved, timeline Q2. Afterwards saw Jonas and his wife in the lobby. Took the stairs.",
    ),
    (MUM, "Weather: 14C, rain. Read 40 pages. Mum's birthday. Made her lemon cake. Watched the match."),
    (
        GRAN,
        "Inventory of the loft: 3 boxes of books, Christmas decorations, nana's sewing machine (keep), old monitors (recycle).",
    ),
    (DOG, "Vet bill for the new puppy £65. Still have Biscuit's collar on the hook."),
    (EX, "Jonas's birthday. Didn't message."),
    (EX, "Jonas - 10 years ago today we met."),
    (MUM, "Mum: 1956–2021"),
    (DAD, "Dad would have fixed this in ten minutes."),
    (DAD, "Dad's toolbox is in my garage now."),
    (DAD, "Ring Dad's old number just to hear the voicemail."),
    (DAD, "Father's Day. Kept busy in the garden, planted tomatoes and basil."),
]
#: (subject, chunk): another person, a word, or a practical record
RELEASE = [
    (EX, "Jonas from the Berlin office pinged me about the API contract; sent him the spec."),
    (EX, "1:1 with Jonas K. — agreed to split the migration into two tickets."),
    (MUM, "Dinner at Priya's parents. Her mum made dal and asked about the wedding plans."),
    (MUM, "My mother-in-law is staying for the weekend, need to clear the spare room."),
    (MUM, "Ben's mom picked the kids up from swimming."),
    (MUM, "My partner's mum sent a card for the new flat."),
    (MUM, "Bought a card for Mother's Day for Sandra (Tom's mum)."),
    (BRO, "Eli Cohen's talk on CRDTs was the best of the conference."),
    (DOG, "Bought biscuits for the office meeting."),
    (DOG, "Tea and a biscuit, then back to the tax return."),
    (GRAN, "Pearl barley, onions, carrots, stock cubes."),
    (GRAN, "Necklace: freshwater pearl, valued at £60 for insurance."),
    (WILL, "We will have to move the release to Thursday."),
    (GRAN, "Nana Pearl's house sale completed; funds £212,400 to the joint account."),
    (MUM, "Mum's scone recipe: 225g self-raising flour, 55g butter, 150ml milk. Bake 12 min at 220C."),
    (DAD, "Dad jokes at standup went down badly."),
    (DAD, "Listening to dad rock on the drive."),
    (MOTHER, "Bought mom jeans in the sale."),
    (DAD, "My father-in-law fixed the gate."),
    (DAD, "Lucy's dad gave us a lift."),
    (DAD, "Her father is a surgeon."),
    (DAD, "The father of the bride gave a great speech."),
    (MOTHER, "Mother Teresa quote for the slide."),
    (DAD, "Father Michael said mass."),
    (DAD, "the dad at the party kept talking about crypto"),
    (MOTHER, "Mum-to-be classes with Sara."),
    (DAD, "Became a dad myself today."),
    (MOTHER, "Other mums at the gate were talking about the trip."),
    (DAD, "Dads and lads football on Sunday."),
    (MOTHER, "mum friends whatsapp group is chaos"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lexical", action="store_true", help="lexical evidence alone (no embedder)")
    ap.add_argument("--cases", action="store_true", help="one line per chunk")
    args = ap.parse_args()
    from lucasrag.embedding import get_embedder

    embed = None if args.lexical else get_embedder().embed_spans
    care_cases("the subject", WITHHOLD, "withheld", embed, args.cases)
    care_cases("not the subject", RELEASE, "released", embed, args.cases)


if __name__ == "__main__":
    main()
