"""The persona: Lucas Hale's life events, fact timelines and the cue patterns
the generated text must (or must not) contain."""

from __future__ import annotations

import re
from datetime import date

FIRST_DAY = date(2006, 1, 1)
GRANDAD_DIED = date(2012, 10, 1)
GRANDAD_FUNERAL = date(2012, 10, 6)
MAYA_START = date(2017, 5, 1)
MAYA_BREAKUP = date(2021, 3, 14)
TESSELLATE_START = date(2023, 9, 4)
MAX_WORDS = 480

SUBJECTS: list[dict] = [
    {"name": "Grandad Tom", "aliases": ["grandad", "grandpa tom"]},
    {"name": "Maya", "aliases": ["maya r"]},
]

#: Words that make a mention of a deferred subject "charged". Neutral mentions
#: never contain any of them (checked while generating, and by the tests).
GRIEF_CUES = re.compile(
    r"\b(died|dies|death|dead\w*|funeral|grie\w*|miss(ed|es|ing)?|loss|lost|gone|passed|"
    r"cry|cried|crying|tears?|heartbr\w*|break-?ups?|broke up|hurts?|hurting|grave|"
    r"mourn\w*|sad|sadness|late|hospital|cancer|lonely|pain|painful|sorrow\w*|bereave\w*)\b",
    re.IGNORECASE,
)
#: Content cues that speak of the past. Undated present notes never contain them.
PAST_CUES = re.compile(
    r"\b(when I was (a kid|young|little|small)|as a kid|as a child|childhood|growing up|grew up|"
    r"back then|years ago|used to|history|in those days|the old days|nineties|"
    r"(19|20)\d\d)\b",
    re.IGNORECASE,
)
SUBJECT_MENTION = re.compile(r"\b(grandad|grandpa tom|maya)\b", re.IGNORECASE)


# Each fact: (start_year, value, key). ``key`` is a phrase every statement of the
# value contains (for checking answers).
TIMELINES: dict[str, list[tuple[int, str, str]]] = {
    "home": [
        (1990, "Haxby, a village just outside York (Mum and Dad's house)", "Haxby"),
        (2008, "Lupton halls, University of Leeds", "Lupton halls"),
        (2011, "a shared flat on Hyde Park Road, Leeds", "Hyde Park Road"),
        (2019, "a flat in Ancoats, Manchester", "Ancoats"),
        (2024, "a flat on Rua das Flores, Lisbon", "Rua das Flores"),
    ],
    "employer": [
        (2011, "Pixelkind, a small web agency in Leeds", "Pixelkind"),
        (2014, "Brightwire, in Leeds", "Brightwire"),
        (2019, "Copperline, in Manchester", "Copperline"),
        (2023, "Tessellate, in Lisbon", "Tessellate"),
    ],
    "role": [
        (2011, "junior web developer", "junior web developer"),
        (2014, "backend developer", "backend developer"),
        (2019, "site reliability engineer", "site reliability engineer"),
        (2023, "platform engineer", "platform engineer"),
    ],
    "pet": [
        (1998, "Biscuit, the family dog (a scruffy terrier)", "Biscuit"),
        (2005, "no pet", "no pet"),
        (2024, "Miso, a grey cat", "Miso"),
    ],
    "car": [
        (2006, "no car yet (buses and lifts)", "No car yet"),
        (2012, "an old red Ford Fiesta", "Fiesta"),
        (2018, "no car: bikes only", "cycle everywhere"),
    ],
    "bank": [
        (2006, "Yorkshire Bank", "Yorkshire Bank"),
        (2016, "Monzo", "Monzo"),
        (2024, "Millennium bcp", "Millennium bcp"),
    ],
}

CITY = [(1990, "York"), (2008, "Leeds"), (2019, "Manchester"), (2024, "Lisbon")]

#: Statements, per fact and value key, per domain. Every one contains the key.
STATEMENTS: dict[str, dict[str, dict[str, list[str]]]] = {
    "home": {
        "Haxby": {
            "personal": [
                "Home is still Mum and Dad's house in Haxby, just outside York.",
                "Another weekend at home in Haxby; the village is as quiet as ever.",
            ]
        },
        "Lupton halls": {
            "personal": [
                "I live in Lupton halls at the University of Leeds for now, in a tiny room over the bins.",
                "Home this year is Lupton halls: one corridor, twelve people, one working oven.",
            ],
            "administrative": ["Term-time address for the forms: Lupton halls, University of Leeds."],
        },
        "Hyde Park Road": {
            "personal": [
                "I live in the shared flat on Hyde Park Road in Leeds: five of us, one bathroom.",
                "Home is the shared flat on Hyde Park Road, where the windows rattle when a bus goes by.",
            ],
            "administrative": [
                "Address on every form: the shared flat on Hyde Park Road, Leeds.",
                "Correspondence address: Flat 2, 41 Hyde Park Road, Leeds.",
            ],
        },
        "Ancoats": {
            "personal": [
                "I live in the flat in Ancoats, Manchester, with the big mill windows.",
                "Home is the fourth-floor flat in Ancoats; the lift works about half the time.",
            ],
            "administrative": [
                "Address on file: the flat in Ancoats, Manchester.",
                "Correspondence address: the Ancoats flat, Manchester.",
            ],
        },
        "Rua das Flores": {
            "personal": [
                "I live in the top-floor flat on Rua das Flores in Lisbon.",
                "Home is the flat on Rua das Flores, four flights of stone stairs up, with a slice of river view.",
            ],
            "administrative": [
                "Address on file: Rua das Flores 112, Lisbon.",
                "Correspondence address: the flat on Rua das Flores, Lisbon.",
            ],
        },
    },
    "employer": {
        "Pixelkind": {
            "technical": [
                "At Pixelkind, the little agency in Leeds, every project is a WordPress site with a deadline yesterday."
            ],
            "personal": ["Work at Pixelkind is fine: estate agent websites, mostly, in a small office in Leeds."],
            "administrative": ["Payslip from Pixelkind checked: tax code and pension contribution look right."],
        },
        "Brightwire": {
            "technical": [
                "At Brightwire the backend team owns the ingestion services and the deploy pipeline.",
                "Brightwire's Leeds office has one build server and a lot of opinions about it.",
            ],
            "personal": ["I work at Brightwire in Leeds and most days I like it a lot."],
            "administrative": ["Payslip from Brightwire checked: tax code and pension contribution look right."],
        },
        "Copperline": {
            "technical": [
                "At Copperline the SRE team owns the Kubernetes clusters and the on-call rota.",
                "Copperline runs everything on AWS, with Terraform for the infrastructure.",
            ],
            "personal": ["I work at Copperline in Manchester; the team is great, the on-call less so."],
            "administrative": ["Payslip from Copperline checked: tax code and pension contribution look right."],
        },
        "Tessellate": {
            "technical": [
                "At Tessellate the platform team owns the clusters, the CI runners and the observability stack.",
                "Tessellate deploys everything through ArgoCD, one app-of-apps per cluster.",
            ],
            "personal": ["I work at Tessellate, in Lisbon, and I like the people there a lot."],
            "administrative": ["Payslip from Tessellate checked: IRS withholding and social security look right."],
        },
    },
    "role": {
        "junior web developer": {
            "technical": ["My job title is junior web developer, which mostly means fixing CSS in Internet Explorer."],
            "personal": ["Being a junior web developer is harder than the course made it look."],
        },
        "backend developer": {
            "technical": ["My job title is backend developer now: APIs, queues and databases."],
            "personal": ["Officially a backend developer now. Celebrated with a curry."],
        },
        "site reliability engineer": {
            "technical": ["My job title is site reliability engineer, which means dashboards, alerts and the pager."],
            "personal": ["Working as a site reliability engineer is interesting, but the pager is tiring."],
        },
        "platform engineer": {
            "technical": ["My job title is platform engineer: I build the paved road other teams deploy on."],
            "personal": ["Working as a platform engineer suits me better than anything before it."],
        },
    },
    "pet": {
        "no pet": {
            "personal": [
                "Still no pet at the moment; the tenancy doesn't allow animals.",
                "No pet in the house yet. One day, a cat.",
            ]
        },
        "Miso": {
            "personal": [
                "My cat Miso spent the whole afternoon asleep on the windowsill.",
                "Miso, my grey cat, knocked a glass off the table again and looked delighted about it.",
                "Bought Miso a new scratching post; she prefers the box it came in.",
            ]
        },
    },
    "car": {
        "No car yet": {"personal": ["No car yet; the bus and lifts from Dad get me everywhere."]},
        "Fiesta": {
            "personal": [
                "Drove the old red Fiesta out to the Dales; it made its grinding noise the whole way.",
                "The red Fiesta needs new tyres before the MOT.",
            ],
            "administrative": ["Car insurance for the red Fiesta renewed; the MOT is booked for next month."],
        },
        "cycle everywhere": {
            "personal": [
                "No car: I cycle everywhere, and I don't want one.",
                "Still no car and no plans for one; I cycle everywhere.",
            ],
            "administrative": ["No car to insure: I cycle everywhere, so the only policy is for the bikes."],
        },
    },
    "bank": {
        "Yorkshire Bank": {"administrative": ["Current account with Yorkshire Bank: statement checked, nothing odd."]},
        "Monzo": {"administrative": ["Current account with Monzo: statement checked, the direct debits all went out."]},
        "Millennium bcp": {
            "administrative": ["Current account with Millennium bcp: salary in, rent out, all as expected."]
        },
    },
}

FACT_DOMAINS = {
    "home": ("personal", "administrative"),
    "employer": ("technical", "personal", "administrative"),
    "role": ("technical", "personal"),
    "pet": ("personal",),
    "car": ("personal", "administrative"),
    "bank": ("administrative",),
}


def value_at(fact: str, year: int) -> tuple[str, str] | None:
    """The (value, key) of ``fact`` in ``year``; None before the first entry."""
    current = None
    for start, value, key in TIMELINES[fact]:
        if start <= year:
            current = (value, key)
    return current


def city_at(year: int) -> str:
    return [c for start, c in CITY if start <= year][-1]
