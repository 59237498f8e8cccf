"""Entity types, relation names, limits, and the word lists the recogniser votes with."""

from __future__ import annotations

ENTITY_TYPES: tuple[str, ...] = ("person", "place", "organization", "concept", "tag", "note")
#: When several chunks disagree about a type, the more specific one wins.
TYPE_RANK = {"person": 5, "organization": 4, "place": 3, "note": 2, "tag": 2, "concept": 1}

PEOPLE_KEYS: tuple[str, ...] = ("people", "with", "attendees", "author", "authors")
ALIAS_KEYS: tuple[str, ...] = ("aliases", "alias")

LINKS_TO = "links to"
TAGGED = "tagged"
ALIAS_OF = "alias of"
SECTION = "section"
CO_OCCURS = "co-occurs"

#: Co-occurring mentions further apart than this many words are not related.
WINDOW = 40
#: At most this many co-occurrence relations per chunk (the closest pairs).
MAX_PAIRS = 15
MAX_FRAGMENT_CHARS = 240

# --- word lists --------------------------------------------------------------------------

_STOP = {
    # function words and pronouns (capitalised at a sentence start, or "I")
    "a", "an", "the", "i", "i'm", "i've", "i'd", "i'll", "me", "my", "mine", "we", "our", "ours", "us", "you", "your",
    "he", "him", "his", "she", "her", "hers", "it", "its", "they", "them", "their", "this", "that", "these", "those",
    "there", "here", "and", "or", "but", "nor", "so", "yet", "if", "then", "than", "because", "as", "at", "by", "for",
    "from", "in", "into", "of", "off", "on", "onto", "out", "over", "to", "up", "with", "without", "about", "after",
    "before", "between", "during", "since", "until", "via", "per", "not", "no", "yes", "all", "any", "some", "each",
    "every", "both", "either", "neither", "one", "two", "three", "first", "second", "last", "next", "other",
    "another", "such", "own", "same", "also", "just", "only", "even", "still", "very", "too", "much", "many", "more",
    "most", "less", "few", "lots", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did",
    "done", "have", "has", "had", "can", "could", "will", "would", "shall", "should", "may", "might", "must", "let",
    "let's", "what", "who", "whom", "whose", "which", "where", "when", "why", "how", "whatever", "whoever",
    # sentence adverbs, interjections, note furniture
    "however", "therefore", "meanwhile", "afterwards", "later", "today", "tonight", "yesterday", "tomorrow", "now",
    "maybe", "perhaps", "probably", "anyway", "actually", "honestly", "finally", "really", "well", "oh", "ok", "okay",
    "thanks", "thank", "hi", "hello", "dear", "please", "sorry", "wow", "hmm", "todo", "fixme", "note", "notes",
    "see", "re", "fwd", "links", "link", "ps", "nb", "fyi", "asap", "eta", "tbd", "tl", "dr", "etc", "ie", "eg",
    "am", "pm", "n/a", "done", "draft", "update", "edit", "edited", "new", "old", "big", "small", "good", "bad",
    # days, months
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "january", "february", "march", "april", "june", "july", "august", "september", "october", "november",
    "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
}
# "May" is a month and a verb: never a name on its own.
_STOP.add("may")

#: Lower-case words allowed inside a name ("Rua das Flores", "Bank of England").
_CONNECTORS = {"de", "da", "das", "do", "dos", "del", "della", "di", "du", "la", "le", "van", "von", "der", "den",
               "of", "the"}
_HONORIFICS = {"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "dame", "lady", "lord", "dona", "dom",
               "senhor", "senhora", "sr", "sra", "aunt", "auntie", "uncle", "grandad", "granddad", "grandpa",
               "grandma", "granny", "gran", "nan", "nana", "cousin", "father", "mother", "sister", "brother"}
_KINSHIP = {"mum", "mom", "mummy", "dad", "daddy", "grandad", "granddad", "grandpa", "grandma", "granny", "gran",
            "nan", "nana"}
_PERSON_PRE = {"with", "met", "meet", "meeting", "told", "tell", "asked", "ask", "rang", "ring", "called",
               "phoned", "texted", "emailed", "thanked", "hugged", "married", "dating", "thank", "love", "loved",
               "miss", "missed", "visit", "visited"}
#: Role nouns right before a name: "my sister Ellie", "our landlady Fátima".
_ROLE_NOUNS = {"sister", "brother", "mum", "mom", "dad", "wife", "husband", "partner", "friend", "colleague",
               "boss", "son", "daughter", "cousin", "aunt", "uncle", "landlady", "landlord", "neighbour", "neighbor",
               "flatmate", "housemate", "girlfriend", "boyfriend", "teacher", "doctor", "therapist", "manager"}
#: Verbs that open diary sentences ("Rang Mum", "Met Rosa"): not part of the name after them.
_VERB_STARTERS = {"rang", "called", "phoned", "met", "saw", "told", "asked", "texted", "emailed", "thanked",
                  "visited", "hugged", "messaged", "emailed", "helped", "left", "joined", "watched", "read", "heard",
                  "bought", "sent", "took", "had", "got", "went", "drove", "walked", "cycled", "flew", "found",
                  "missed", "booked", "paid", "signed", "finished", "started", "tried", "moved", "landed",
                  "arrived", "lunch", "dinner", "coffee", "drinks", "breakfast", "call", "meeting", "chat"}
_PERSON_POST = {"said", "says", "asked", "asks", "told", "tells", "replied", "thinks", "thought", "wants",
                "wanted", "laughed", "smiled", "wrote", "writes", "rang", "rings", "called", "texted", "emailed",
                "reckons", "cried", "nodded", "shrugged", "agreed", "mentioned", "suggested", "born", "explained",
                "showed", "helped", "sent", "came", "left", "arrived", "speaks", "knows"}
_AFTER_NAME = {"and", "about", "at", "in", "on", "for", "to", "from", "over", "yesterday", "today", "tonight",
               "this", "last", "after", "before", "who", "when", "while", "again", "tomorrow", "later", "earlier",
               "until", "during", "since", "back", "too", "as", "by", "the", "a", "an", "re", "via"}
_PLACE_PRE = {"in", "near", "outside", "inside", "around", "across", "via", "around", "towards", "toward"}
_MOVE_WORDS = {"moved", "moving", "move", "went", "go", "going", "back", "drove", "drive", "flew", "fly", "cycled",
               "walked", "walk", "trip", "travel", "travelled", "traveled", "return", "returned", "returning",
               "emigrated", "relocated", "relocation", "relocating", "came", "come", "commute", "train", "flight",
               "holiday", "visit", "visited", "visiting", "arrived", "landed", "down", "up"}
_MESSAGE_WORDS = {"email", "message", "letter", "call", "text", "note", "gift", "card", "present", "parcel",
                  "invoice", "reply", "answer", "word", "news", "postcard"}
_WORK_WORDS = {"work", "works", "working", "worked", "job", "day", "engineer", "developer", "designer", "manager",
               "intern", "internship", "started", "start", "role", "position", "interview", "interviewing",
               "colleague", "colleagues", "team", "contract", "employed", "hired", "offer", "analyst", "lead",
               "consultant", "week", "month", "year", "years", "career", "tenure"}
_ORG_PRE = {"joined", "joining", "join", "left", "leaving", "employer", "hired", "quit"}
_PLACE_WORDS = {"street", "st", "road", "rd", "rua", "avenida", "avenue", "ave", "lane", "square", "praça", "praca",
                "park", "wharf", "bridge", "river", "lake", "island", "isle", "coast", "beach", "bay", "hill",
                "hills", "mountain", "mountains", "valley", "city", "town", "village", "station", "airport",
                "harbour", "harbor", "canal", "gardens", "garden", "terrace", "church", "cathedral", "chapel", "inn",
                "pub", "hotel", "market", "mercado", "largo", "cais", "quay", "county", "district", "estate",
                "forest", "national"}
_ORG_WORDS = {"ltd", "limited", "inc", "llc", "plc", "gmbh", "lda", "council", "bank", "university", "college",
              "school", "institute", "group", "company", "co", "corporation", "corp", "club", "society",
              "association", "agency", "ministry", "department", "authority", "foundation", "trust", "services",
              "labs", "technologies", "systems", "studio", "studios", "records", "press", "nhs", "hmrc", "bbc"}
_HEADING_GENERIC = {"summary", "notes", "todo", "links", "stack", "overview", "background", "intro",
                    "introduction", "ideas", "misc", "log", "tasks", "next steps", "references", "contents"}

_CONTENT_STOP = _STOP | {"know", "knew", "think", "tell", "told", "about", "anything", "something", "thing",
                         "things", "get", "got", "go", "went", "make", "made", "like", "want", "say", "said",
                         "again", "ever", "never", "always", "often", "there's", "it's", "that's", "what's",
                         "who's", "where's", "don't", "didn't", "doesn't", "isn't", "wasn't", "aren't", "i"}
