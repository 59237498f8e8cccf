"""Mentions that only look like a deference subject: *collisions*, each with the reason a person is shown.

* a name followed by a capitalised surname the subject does not have ("Maya Chen",
  "Tom Hargreaves") or another initial ("Jonas K.") is another person with the same first name: that mention, and
  every bare mention of the same name in the chunk, is not the subject;
* a name placed among work or neighbours ("Maya from accounts", "my colleague Dan", "Dan (work)",
  "Dan, our new PM", "Dan in IT", "Dan on the platform team", "cc Dan");
* someone else's relation when the subject is the writer's ("Sam's mum", "his grandad"
  when the subject is Mum or Grandad), or anyone's ("a mum at the school gate", "every mum", "the dad
  who runs the café"), or no one's ("dad jokes", "mum guilt", "mom jeans");
* a name that is also a month or a season, written as a time ("in June", "12 June", "last summer");
* a common word that is also a name, used as a word: after an article or a quantifier
  ("a pip", "the iris", "some dev boxes"), inside code (`` `pip install` ``), written in lower case
  inside a sentence that starts with a capital ("Paid the gas bill", "Prices rose again", "up at
  dawn"; not after a word that takes a person: "Miss will so much"), or a verb opening a sentence
  ("Mark the calendar", "Pat the dough flat", "Will you pick up milk?");
* a business named after someone, where the text goes ("a table at Maya's Diner").

Each rule errs towards the subject: a collision is released, so a rule that misfires leaks. "Saw Maya at
work", a heading "Nana's Kitchen", a playlist "called 'Maya'" all stay the subject, and in a heading no
capitalised word after a name is taken for a surname (headings are written in title case).

Pure functions, stdlib only (:mod:`.mentions` resolves; this module says why a match is not the subject).
"""

from __future__ import annotations

import re

from lucasrag.vocabulary import DeferenceSubject

from .short_forms import english_words

#: How every "the word, not the person" reason begins: the detector holds such look-alikes to a clearer reading.
COMMON_WORD = "a common word"
#: How "someone else's person" begins ("Aoife's Declan"): another person, whose bare name in the same chunk is theirs
#: too (``mentions.resolve``).
SOMEONE_ELSES = "someone else's: "
#: How every "a month or a season, not the person" reason begins (held to the same clearer reading: "Known issues
#: after the June update: … hearing her voice in empty rooms" reads 0.73).
TIME = "a time, not the person"
_SURNAME = re.compile(r"\s+([A-Z][a-z\u00e0-\u00ff]+(?:-[A-Z][a-z]+)?)")
#: A surname's initial, as work notes write a colleague ("Jonas K.", "Maya R.,"); not "I." or "A.".
_INITIAL = re.compile(r"\s+([B-HJ-Z])\.(?=[\s,;:)]|$)")
#: Capitalised words that follow a name without being a surname.
_NOT_SURNAMES = frozenset(
    "I And But So Then When If The A On In At It He She We They You My Is Was Has Had Would Will Said Or Not "
    "Mon Tue Tues Wed Thu Thur Thurs Fri Sat Sun Monday Tuesday Wednesday Thursday Friday Saturday Sunday "
    "Jan Feb Mar Apr May Jun Jul Aug Sep Sept Oct Nov Dec January February March April June July August "
    "September October November December Day Xmas Christmas Easter".split()
)
#: Words for the writer's relations: a subject named so ("Mum", "grandad") is someone else's relation when
#: another owner precedes the word ("Sam's mum", "his grandad", "your nan").
KINSHIP = frozenset(
    "mum mam mom mummy mother dad da daddy father grandad grandpa granda gramps grandma gran granny nana nan "
    "nain taid nanna grandmother grandfather brother sister bro sis uncle aunt auntie aunty stepdad stepmum "
    "stepmom stepfather stepmother twin son daughter husband wife ex partner boyfriend girlfriend baby".split()
)
_OTHER_OWNER = re.compile(
    r"(?:(?<![\w'’])(?!(?:my|our)\b|(?:it|that|he|she|what|who|there|here|where|let|how|today|tonight)['’]s)"
    r"[A-Za-z][\w-]*(?:['’]s|s['’])|\b(?:his|her|their|your|whose))\s+$",
    re.IGNORECASE,
)
#: Before a one-word name, a word that makes it a common noun: "a pip", "the iris", "two jays", "the odd pip",
#: "a stray pip" (a word of quantity between them; not "the late", "the poor", "the little": a person or a pet).
_ARTICLE = re.compile(
    r"\b(?:a|an|the|this|that|these|those|some|any|each|every|several|many|few)\s+"
    r"(?:(?:odd|occasional|stray|single|spare|extra|loose|rogue)\s+)?$",
    re.IGNORECASE,
)
#: Around a one-word name that is also an English word, what makes it a verb or an auxiliary ("I will ring",
#: "we really hope so", "Will be late", "Hope you're well"): a person's name follows no subject pronoun and no
#: modal, and no bare "be". Only these: a rule that misfires leaks ("miss will so much", "love you maya" and
#: "maya i'm sorry" are the person).
_VERB_BEFORE = re.compile(
    r"(?:\b(?:i|we|they|it|who)\s+(?:(?:really|just|only|also|still|so|truly|sincerely|certainly|always|"
    r"never|do|did|don't|didn't|do not|did not)\s+)?|\b(?:would|could|should|might|must|shall|can)\s+)$",
    re.IGNORECASE,
)
_VERB_AFTER = re.compile(r"\s+(?:be|been)\b", re.IGNORECASE)
#: At a sentence's start, also the greetings: "Hope you're well", "Hope all's well with you".
_VERB_AFTER_AT_START = re.compile(
    r"\s+(?:be|been|you['’]re|you are|you['’]ve|you have|you had|you['’]ll|everything|everyone|all['’]s|all is)\b",
    re.IGNORECASE,
)
#: Given names that are everyday English words (a noun, verb or adjective first: "bill", "will", "rose", "dawn").
#: Written in lower case inside a sentence by a writer who capitalises, one of these is the word, not the person.
#: Names that are only names ("mabel", "niamh", "dan") are not here: a lower-case "dan" is the person.
NAME_WORDS = frozenset(
    "bill will mark rose grace hope joy faith dawn amber ruby pearl olive daisy lily holly ivy iris violet "
    "jasmine heather fern hazel willow sky summer autumn robin wren pat jack frank sue rob nick bob art guy "
    "ray rich chase hunter mason cliff dale lane brook dean peg penny sandy rusty sunny candy ginger honey "
    "angel star max miles page reed rod bud buck duke king ace chip crystal grant heath kitty liberty marsh "
    "misty norm pip poppy sage storm woody carol sterling rocky basil clay forest river rain gem cherry berry "
    "melody harmony dot dusty scout skip destiny patience prudence charity mercy unity blossom coral opal "
    "jade flint may march august pop".split()
)
#: Before a lower-case name-word, a word that takes a person: "miss will so much", "rang dawn", "with rose".
_TAKES_A_PERSON = re.compile(
    r"\b(?:miss|missed|missing|love|loved|with|and|told|tell|saw|see|seen|call|called|rang|ring|text|texted|"
    r"visit|visited|visiting|hug|hugged|dear|hi|hey|thank|thanks|ask|asked|met|meet|kiss|kissed|bye|for|about|"
    r"to|from|of|since|until|where|when|because|been|like|hate|blame|forgive|remember|remembered|mourn|lost|"
    r"buried|poor|dearest|darling|sweet|dream|dreamed|dreamt|dreaming|hold|held|holding|lose|losing|want|wanted|"
    r"need|needed|sent|send|bought|buy|gave|give|moving|move|moved|remove|removed|into|take|took|drop|dropped|"
    r"pick|picked|phone|phoned|message|messaged|email|emailed|invite|invited|help|helped|let|brought|bring|"
    r"upset|hurt|follow|followed|unfollow|unfollowed|block|blocked|mute|muted|beside|behind|near|without|"
    r"concerning|regarding|re|w/|wrote|write|writes)\s+$",
    re.IGNORECASE,
)
#: After a name-word, what a person does or is given: "the news that will is getting married", "the necklace grace
#: gave me", "the bread rose liked", "sent will a photo", "provided mark vacates", "CETV april 61,204". A
#: common-word rule does not take a name-word followed by one of these for the word.
_PERSON_AFTER = re.compile(
    r"\s+(?:is|was|has|had|have|gave|said|says|told|died|passed|would|wrote|sent|called|rang|came|comes|went|left|"
    r"loved|got|made|did|does|never|always|still|wanted|wants|asked|texted|looked|laughed|cried|smiled|lived|"
    r"lives|knew|knows|thought|thinks|felt|seemed|liked|likes|loves|hated|used|might|could|should|can|must|may|"
    r"arrives|arrived|wore|wears|kept|keeps|took|takes|needs|needed|drove|walked|sat|slept|and (?:i|me|my)|"
    r"put|bought|brought|ran|like|\w+ed|\w+[^s\W]s|\d[\d,.]*|a|an|his|her|their|"
    r"(?:['’](?:d|ll|s been)))\b",
    re.IGNORECASE,
)
#: Name-words that are also verbs, and what follows one opening a sentence as a verb: "Mark the calendar",
#: "Pat the dough flat", "Jack up the car", "Bill the client"; "Will you ...?" as the auxiliary.
_VERB_NAMES = frozenset("mark pat jack bill rob sue chase grant chip nick peg bob skip".split())
_VERB_OBJECT = re.compile(
    r"\s+(?:the|a|an|your|my|our|this|that|these|those|it|them|everything|up|down|off|out)\b(?!['’])",
)
_AUXILIARY_AT_START = re.compile(r"\s+(?:you|we|they|i|he|she|it|there)\b(?!['’])", re.IGNORECASE)
#: A name-word opening a sentence or a list item as the first word of a compound noun: "Olive oil, garlic",
#: "Amber warning for wind", "Daisy chains on the lawn", "Rose gold strap". A short table, no grammar: "Ginger
#: cat", "Rose garden" and "May day" are not in it (a pet named Ginger, Rose's garden, the day that is May's).
NAME_COMPOUNDS: dict[str, frozenset[str]] = {
    word: frozenset(heads.split())
    for word, heads in {
        "olive": "oil oils tree trees branch green grove groves harvest",
        "amber": "warning warnings alert alerts light lights",
        "daisy": "chain chains",
        "rose": "gold water wine hip hips petals petal bush bushes bed",
        "holly": "wreath wreaths bush berries sprig",
        "ruby": "wedding anniversary port",
        "pearl": "earrings earring necklace barley",
        "ginger": "biscuits biscuit beer ale tea snaps root nuts",
        "honey": "jar pot bees badger",
        "hazel": "nuts nut eyes",
        "jasmine": "tea rice",
        "basil": "leaves pesto plant",
        "sage": "leaves stuffing plant",
        "cherry": "tomatoes tomato blossom tree trees pie",
        "summer": "holiday holidays house term fair camp solstice sale",
        "autumn": "term leaves colours budget statement",
        "dawn": "chorus raid",
        "iris": "scan",
        "ivy": "league",
        "heather": "honey moor",
        "willow": "tree trees basket pattern",
        "crystal": "glasses glass ball",
        "penny": "jar whistle",
        "buck": "knife knives shot",
        "pop": "punk music song songs star stars quiz art culture corn tart tarts filter socket",
    }.items()
}
#: A kinship word as the first word of a compound noun that names no one: "dad jokes", "mum guilt", "mom jeans".
KIN_COMPOUNDS: dict[str, frozenset[str]] = {
    word: frozenset(heads.split())
    for words, heads in {
        ("dad",): "joke jokes rock bod bods shoes trainers jeans hat hats energy vibes mode",
        ("mum", "mom", "mam"): "jeans guilt friends friend group groups chat chats life bun tum tribe blog blogs",
        ("mummy", "mommy"): "blogger bloggers blog blogs",
    }.items()
    for word in words
}
_NEXT_WORD = re.compile(r"\s+([a-z]+)\b")
#: After "the", what places a kinship word among other people: "the mum at the school gate", "the dad who runs
#: the café", "the mum of twins". Not "the dad in the photo", which may well be the writer's.
_THE_BEFORE = re.compile(r"\bthe\s+$", re.IGNORECASE)
_THE_KIN_AFTER = re.compile(r"\s+(?:at|from|of|who|whose|next door)\b", re.IGNORECASE)
#: Before a kinship word, what makes it anyone's relation rather than the writer's: "a mum at the school gate",
#: "every mum in the class", "as a new mum", "another mum". Between them only a word that describes a relation
#: ("new", "single", "working"): "had a dream nan was there" and "a walk with mum" stay the subject; not "no mum"
#: ("no mum to ring now"), "one" ("the one Nana died in"), "what a" or "such a" ("what a mum she was").
_GENERIC_KIN = re.compile(
    r"(?<!what )(?<!such )\b(?:a|an|every|each|another|any)\s+"
    r"(?:(?:new|single|young|first-time|working|stay-at-home|lone|proud|busy|fellow|expectant|teenage|other|"
    r"good|great|fun|cool|strict)\s+)?$",
    re.IGNORECASE,
)
#: A subject named like a month or a season ("June", "April", "Summer") written as a time: after "in",
#: "during", "last", "early" ... or beside a day or a year ("12 June", "June 2024", "June 3rd"). Not after
#: "since" or "until" ("since June died" is the person).
_TIME_NAMES = frozenset(
    "january february march april may june july august september october november december "
    "spring summer autumn winter".split()
)
_TIME_BEFORE = re.compile(
    r"(?:\b(?:in|during|last|next|this|early|mid|late|throughout|(?:the\s+)?(?:end|start|beginning|middle)\s+of)"
    r"\s+|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?|\bmid-)$",
    re.IGNORECASE,
)
#: A year or a day after the name, with no comma ("June, 13 years on" and "june, 2025, laughing" are the person) and
#: no unit after the number ("june 11 months ago", "not writing to June 12 d", "with june 2-6pm").
_TIME_AFTER = re.compile(
    r"\s+(?:\d{4}|\d{1,2}(?:st|nd|rd|th)?)\b(?![:.,]\d|\s*(?:[-–]|d\b|days?\b|weeks?\b|months?\b|years?\b|yrs?\b|"
    r"hours?\b|hrs?\b|h\b|mins?\b|minutes?\b|am\b|pm\b|%|x\b))",
    re.IGNORECASE,
)
#: After "the" and a month or a season, a noun it qualifies: "the June infra migration window", "the summer term".
#: Not a pronoun or a verb ("the summer we lost her", "the June she was born" are the person, or may be).
_TIME_NOUN_AFTER = re.compile(
    r"\s+(?!(?:we|i|you|he|she|they|it|who|that|when|was|is|had|has|would|will|and|or|but|of|in|on)\b)[a-z]{3,}\b"
)
#: A business named after someone, where the text goes to it: "a table at Maya's Diner". Commercial words only,
#: after a preposition: a heading "Nana's Kitchen" or "Grandad's Farm" is about the person.
_BUSINESS = re.compile(
    r"['’]s['’\"]?\s+(?:Kitchen|Diner|Cafe|Café|Bakery|Bar|Pub|Restaurant|Shop|Salon|Deli|Bistro|Grill|"
    r"Tavern|Inn|Hotel|Barbers?|Takeaway|Chippy)\b"
)
_TO_A_PLACE = re.compile(r"\b(?:at|to|from|in|into|outside|near)\s+(?:the\s+)?['\"‘“]?$", re.IGNORECASE)
#: A namesake among the people of work or the street: "Dan from accounts", "my colleague Maya", "Dan (work)",
#: "Dan, our new PM", "Dan the plumber", "Dan in IT", "Dan on the platform team", "cc Dan". Only these: "saw
#: Maya at work" may well be the subject, and "Dan (my ex)" is.
#: Departments a person is "in" or "on" ("Dan in finance"); "from" also takes work, the office and IT in any case.
_TEAMS = (
    r"accounts|hr|finance|sales|legal|payroll|support|reception|marketing|procurement|"
    r"platform|infra|infrastructure|ops|devops|security|design|product|engineering|data|qa|facilities|"
    r"backend|back-end|frontend|front-end|mobile|ios|android|web|growth|research|analytics|ml|sre|compliance"
)
_DEPARTMENT = rf"work|the office|it|{_TEAMS}"
_ROLE = (
    r"colleague|co-?worker|workmate|manager|line manager|boss|client|customer|supplier|contractor|recruiter|"
    r"intern|neighbour|neighbor|landlord|tenant|plumber|electrician|builder|dentist|gp|new hire|new starter|"
    r"pm|product manager|project manager|engineer|developer|dev|designer|tech lead|lead|"
    r"cto|ceo|cfo|director|vp|architect|analyst|sre|tester|consultant|accountant|solicitor|lawyer|agent"
)
_PLACED_AFTER = re.compile(
    r"\s*(?:\(|,\s*)?from\s+(?:next door|number \d+|the client(?: side)?|"
    rf"the (?:\w+ )?(?:team|department|desk|squad|office|site|client|agency|gym|club)|{_DEPARTMENT})\b"
    rf"|\s*\((?:{_DEPARTMENT}|client|[\w-]+ team|{_ROLE})\)"
    rf"|,?\s+(?:our|my|the|a|an)\s+(?:new\s+|old\s+|other\s+)?(?:{_ROLE})\b(?!['’])"
    rf"|\s+(?:in|on)\s+(?:(?-i:IT)|{_TEAMS})\b(?!['’])"
    r"|\s+(?:on|in)\s+the\s+[\w-]+(?:\s+[\w-]+)?\s+(?:team|squad|department)\b",
    re.IGNORECASE,
)
#: Before a name, someone else's possessive, with a relation or role between them or not: "Aoife's Declan" (her
#: son), "Ken's wife Linda", "Jim's dog Rusty". Not a relation of yours as the owner ("Mum's Declan" is your
#: brother), nor "my" or "our".
_OWNER_BEFORE = re.compile(
    r"(?<![\w'’])(?!(?:It|That|He|She|What|Who|There|Here|Where|Let|How|Today|Tonight|Everyone|Everybody|"
    r"Nobody|Someone|Somebody|One|This)['’]s)([A-Z][a-z][\w-]*['’]s)\s+(?:(?:wife|husband|partner|fianc[eé]e?|son|daughter|boy|girl|kid|baby|"
    r"brother|sister|mum|mom|dad|mother|father|boyfriend|girlfriend|friend|cousin|uncle|aunt|nephew|niece|"
    r"dog|cat|horse|puppy|colleague|boss)\s+)?$"
)
#: Before the name also a school's people ("my teacher Maya"); after it they may describe the subject ("Dan, a
#: student then, lived upstairs").
_PLACED_BEFORE = re.compile(rf"(?:\b(?:{_ROLE}|teacher|student|pupil|namesake|other)\s+|\bcc:?\s+)$", re.IGNORECASE)


def other_person(sentence: str, end: int, subject: DeferenceSubject, *, titled: bool = False) -> str | None:
    """The other person's full name when the mention ending at ``end`` continues with a foreign surname.
    ``titled``: the sentence is a heading or a title line, written in title case — there a capitalised English
    word is a word ("Nana's Kitchen", "Maya Birthday Plans"), and only a word that is not one is a surname
    ("# Sam Okafor", "I Feel Bad About My Neck — Nora Ephron")."""
    if sentence[end - 2 : end].lower() in ("'s", "’s"):  # "marc's Form E": a possessive, not a surname
        return None
    known = {w.casefold() for n in subject.names for w in n.split()}
    if m := _INITIAL.match(sentence, end):  # another initial than any of the subject's other names'
        initials = {w[0].casefold() for n in subject.names for w in n.split()[1:]}
        return None if m.group(1).casefold() in initials else sentence[: m.end()].split()[-2] + m.group(0)
    m = _SURNAME.match(sentence, end)
    if not m or m.group(1) in _NOT_SURNAMES or m.group(1).casefold() in known:
        return None
    if titled and m.group(1).casefold() in english_words():
        return None
    return " ".join(sentence[: m.end()].split()[-2:])


def _in_code(text: str, start: int) -> bool:
    """Whether ``start`` lies inside an inline code span of its line (an odd number of backticks before it)."""
    line_start = text.rfind("\n", 0, start) + 1
    return text.count("`", line_start, start) % 2 == 1


def collision(sentence: str, start: int, end: int, subject: DeferenceSubject) -> str | None:
    """Why the mention ``sentence[start:end]`` is not ``subject``, or None when it may be.

    Someone else's relation ("Sam's mum" for the writer's Mum), a namesake among work or neighbours
    ("Dan from accounts", "my colleague Dan"), a common word used as a word ("a pip", "the iris", code).
    Each reason is evidence shown to the person."""
    written = sentence[start:end]
    word = re.sub(r"['’]s$", "", written).casefold()
    before = sentence[max(0, start - 40) : start]
    first = word.split()[0] if word.split() else word
    if _in_code(sentence, start):
        return f"{written!r} is inside code"
    if first not in KINSHIP and _BUSINESS.match(sentence, end - 2) and _TO_A_PLACE.search(before):
        return f"a place named {written!r}"
    if first in KINSHIP and (m := _OTHER_OWNER.search(before)):
        return f"someone else's relation: {m.group(0).strip()} {written}"
    if first in KINSHIP and len(word.split()) == 1 and (m := _GENERIC_KIN.search(before)):
        return f"anyone's relation, not yours: {m.group(0).strip()} {written}"
    if first in KINSHIP and len(word.split()) == 1 and not written.endswith(("'s", "’s")):
        if m := _compound(sentence, end, word, KIN_COMPOUNDS):
            return f"{COMMON_WORD}: {written}{m.group(0)}"
        if _THE_BEFORE.search(before) and (m := _THE_KIN_AFTER.match(sentence, end)):
            return f"anyone's relation, not yours: the {written}{m.group(0)}"
    if word in _TIME_NAMES and not written.endswith(("'s", "’s")):
        if m := _TIME_BEFORE.search(before):
            return f"{TIME}: {m.group(0).strip()} {written}"
        if m := _TIME_AFTER.match(sentence, end):
            return f"{TIME}: {written}{m.group(0)}"
        if _THE_BEFORE.search(before) and (m := _TIME_NOUN_AFTER.match(sentence, end)):
            return f"{TIME}: the {written}{m.group(0)}"
    if first not in KINSHIP and (m := _OWNER_BEFORE.search(before)):
        if re.sub(r"['’]s$", "", m.group(1)).casefold() not in KINSHIP:
            return f"{SOMEONE_ELSES}{m.group(0).strip()} {written}"
    if first not in KINSHIP and len(word.split()) == 1:
        if _PLACED_BEFORE.search(before):
            return f"another person: {_PLACED_BEFORE.search(before).group(0).strip()} {written}"
        if m := _PLACED_AFTER.match(sentence, end):
            return f"another person: {written}{m.group(0)}"
        if (
            (m := _ARTICLE.search(before))
            and not written[:1].isupper()
            and not (_PERSON_AFTER.match(sentence, end) and not _compound(sentence, end, word))
        ):
            return f"{COMMON_WORD}: {m.group(0).strip()} {written}"
        # as a verb: lower case, or capitalised only because a sentence starts with it ("Hope you're well")
        at_start = not before.strip()
        if (at_start or not written[:1].isupper()) and word in english_words():
            after = _VERB_AFTER_AT_START if at_start else _VERB_AFTER
            if m := _VERB_BEFORE.search(before):
                return f"{COMMON_WORD}, a verb: {m.group(0).strip()} {written}"
            if not written.endswith(("'s", "’s")) and (m := after.match(sentence, end)):
                return f"{COMMON_WORD}, a verb: {written}{m.group(0)}"
        return _word_not_name(sentence, start, end, word)
    return None


def is_word(reason: str) -> bool:
    """Whether a collision's reason says the mention is a word (:data:`COMMON_WORD`) or a time (:data:`TIME`),
    not another person: weaker evidence, which the detector holds to a clearer reading."""
    return reason.startswith((COMMON_WORD, TIME))


def _compound(
    sentence: str, end: int, word: str, table: dict[str, frozenset[str]] = NAME_COMPOUNDS
) -> re.Match[str] | None:
    """The word after the name-word ending at ``end`` when the two make a compound noun (:data:`NAME_COMPOUNDS`,
    or ``table``)."""
    m = _NEXT_WORD.match(sentence, end)
    return m if m and m.group(1) in table.get(word, ()) else None


_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")


def _word_not_name(sentence: str, start: int, end: int, word: str) -> str | None:
    """A name-word (:data:`NAME_WORDS`) used as the word: in lower case inside a sentence that starts with a
    capital, or as a verb opening the sentence. Possessives stay the person ("will's bike")."""
    written = sentence[start:end]
    if word not in NAME_WORDS or written.endswith(("'s", "’s")):
        return None
    before = sentence[:start]
    if written.islower() and (m := _compound(sentence, end, word)):  # "3 tbsp olive oil": a compound anywhere
        return f"{COMMON_WORD}: {written}{m.group(0)}"
    if not _LIST_MARK.sub("", before).strip():  # a sentence's or a list item's first word
        if word in _VERB_NAMES and (m := _VERB_OBJECT.match(sentence, end)):
            return f"{COMMON_WORD}, a verb: {written}{m.group(0)}"
        if word == "will" and (m := _AUXILIARY_AT_START.match(sentence, end)):
            return f"{COMMON_WORD}, a verb: {written}{m.group(0)}"
        if m := _compound(sentence, end, word):
            return f"{COMMON_WORD}: {written}{m.group(0)}"
        return None
    person = _TAKES_A_PERSON.search(before[-40:]) or _PERSON_AFTER.match(sentence, end)
    # inside running words: a name in a list, a label or a sentence's last word ("cause: bill", "(unplanned,
    # will)", "Without bill.") is the person as often as not; the word sits between words ("the gas bill online")
    between_words = re.search(r"[\w'’]\s+$", before) and re.match(r"\s+\w", sentence[end:])
    if written.islower() and sentence.lstrip()[:1].isupper() and between_words and not person:
        return f"{COMMON_WORD} in lower case: {written!r}"
    return None
