"""A deterministic, longitudinal vault generator for evaluations and scale tests.

``generate_vault(root, n_notes, seed=7)`` writes a vault of Markdown notes by one
persona (Lucas Hale, born 1990) over twenty years, and returns a
:class:`GroundTruth`: what every file is expected to become (status, workspace,
band, date, charged subjects), the persona's fact timelines, and query cases
with their expected and forbidden answers. The truth is also written as JSON
next to the vault (``<root>.truth.json``, outside it, so it is never ingested).

Same ``seed`` and ``n_notes`` (and ``now``) give byte-identical files: the only
source of randomness is ``random.Random(seed)``; no clock, no uuid, no set
iteration.

What the vault contains (fractions of ``n_notes``):

* notes in the four domains (technical, creative, personal, administrative),
  each built from domain vocabulary so that content-based routing is possible;
  most 60-250 words, none over ~500;
* frontmatter on ~30% (``date``, ``title``, ``tags``, sometimes ``workspace``,
  rarely ``band``, and unknown keys), dates otherwise from file names, ~10%
  undated (some of them clearly about childhood: archival by content cues);
* ~1% notes whose ``workspace:`` contradicts their content (frontmatter wins),
  a few per mille with a ``band:`` override and a handful whose frontmatter date
  differs from their file name (frontmatter wins);
* notes stating the persona's facts as true on their date (home, employer, role,
  pet, car, bank), plus a canonical ``personal/facts.md`` (``band: present``,
  old date);
* the deference list (``.lucasrag/deference.yaml``: Grandad Tom, Maya), charged
  notes marked in frontmatter and unmarked ones with grief/breakup cues, and
  neutral mentions (recipes, an insurance valuation, a colleague called Tom)
  that contain none of the cue words;
* ~2% content-free inbox notes (expected quarantined) and ~1% invalid files
  (malformed YAML frontmatter, empty, not UTF-8, NUL bytes);
* a few ignored files (``.obsidian/``, ``.trash/``, an image).

Run ``python -m lucasrag.evaluation.vault_generator OUT_DIR --notes N --seed S``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import struct
import sys
import time
import zlib
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from lucasrag.vocabulary import WORKSPACES

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


# --------------------------------------------------------------------------- truth


@dataclass
class NoteTruth:
    """What one generated file is expected to become."""

    status: str  # indexed | quarantined | invalid
    workspace: str | None
    band: str | None
    date: str | None
    charged: list[str] = field(default_factory=list)
    kind: str = "regular"  # regular, facts, childhood, charged_marked, charged_unmarked, neutral_mention, content_free, bad
    states: dict[str, str] = field(default_factory=dict)  # fact -> value this note states as true
    mentions: list[str] = field(default_factory=list)  # deference subjects named in the note
    reason: str | None = None  # invalid: malformed_yaml | empty | non_utf8 | nul


@dataclass
class QueryCase:
    kind: str  # present_fact | archive_year | archive_cue | charged_withheld | charged_bridged | quarantine_never | workspace_restriction
    query: str
    expect_paths: list[str]  # any of these should be returned (empty: nothing in particular)
    forbid_paths: list[str]  # none of these may be returned (a sample, at most FORBID_CAP)
    bridge: list[str] = field(default_factory=list)
    workspaces: list[str] | None = None
    archival_open: bool = False  # expected temporal.archival_open
    withheld: list[str] = field(default_factory=list)  # subjects that must get a hint
    expect_text: str | None = None  # a phrase the expected answer contains


@dataclass
class GroundTruth:
    vault: str  # the vault folder's name (not its absolute path: keeps the truth reproducible)
    seed: int
    n_notes: int
    now: str
    archival_cutoff: str
    subjects: list[dict]
    timelines: dict[str, list[dict]]
    notes: dict[str, NoteTruth]
    cases: list[QueryCase]

    def to_dict(self) -> dict:
        out = {k: v for k, v in vars(self).items() if k not in ("notes", "cases")}
        out["notes"] = {p: vars(t).copy() for p, t in self.notes.items()}
        out["cases"] = [vars(c).copy() for c in self.cases]
        return out

    def to_json(self) -> str:
        """JSON with one note and one case per line (diffable, and fast for 10^5 notes)."""
        d = self.to_dict()
        dump = lambda v: json.dumps(v, ensure_ascii=False)  # noqa: E731
        head = [f" {dump(k)}: {dump(v)}" for k, v in d.items() if k not in ("notes", "cases")]
        notes = ",\n".join(f"  {dump(p)}: {dump(t)}" for p, t in d["notes"].items())
        cases = ",\n".join(f"  {dump(c)}" for c in d["cases"])
        return "{\n" + ",\n".join(head) + ',\n "notes": {\n' + notes + '\n },\n "cases": [\n' + cases + "\n ]\n}\n"

    def write(self, path: Path) -> Path:
        path.write_bytes(self.to_json().encode("utf-8"))
        return path

    @classmethod
    def from_dict(cls, raw: dict) -> "GroundTruth":
        fields = dict(raw)
        fields["notes"] = {p: NoteTruth(**t) for p, t in raw["notes"].items()}
        fields["cases"] = [QueryCase(**c) for c in raw["cases"]]
        return cls(**fields)

    @classmethod
    def load(cls, path: Path) -> "GroundTruth":
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))

    def counts(self) -> dict[str, int]:
        """Counts by status and, for indexed notes, by workspace."""
        out: dict[str, int] = {}
        for t in self.notes.values():
            out[t.status] = out.get(t.status, 0) + 1
            if t.status == "indexed":
                out[t.workspace] = out.get(t.workspace, 0) + 1
        return out


def truth_path(root: Path) -> Path:
    """Where the truth JSON of the vault at ``root`` lives (outside the vault)."""
    root = Path(root)
    return root.parent / f"{root.name}.truth.json"


def archival_cutoff(now: date, years: int = 3) -> date:
    try:
        return now.replace(year=now.year - years)
    except ValueError:  # 29 February
        return now.replace(year=now.year - years, day=28)


# --------------------------------------------------------------------------- persona

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
        "Haxby": {"personal": [
            "Home is still Mum and Dad's house in Haxby, just outside York.",
            "Another weekend at home in Haxby; the village is as quiet as ever.",
        ]},
        "Lupton halls": {
            "personal": ["I live in Lupton halls at the University of Leeds for now, in a tiny room over the bins.",
                         "Home this year is Lupton halls: one corridor, twelve people, one working oven."],
            "administrative": ["Term-time address for the forms: Lupton halls, University of Leeds."],
        },
        "Hyde Park Road": {
            "personal": ["I live in the shared flat on Hyde Park Road in Leeds: five of us, one bathroom.",
                         "Home is the shared flat on Hyde Park Road, where the windows rattle when a bus goes by."],
            "administrative": ["Address on every form: the shared flat on Hyde Park Road, Leeds.",
                               "Correspondence address: Flat 2, 41 Hyde Park Road, Leeds."],
        },
        "Ancoats": {
            "personal": ["I live in the flat in Ancoats, Manchester, with the big mill windows.",
                         "Home is the fourth-floor flat in Ancoats; the lift works about half the time."],
            "administrative": ["Address on file: the flat in Ancoats, Manchester.",
                               "Correspondence address: the Ancoats flat, Manchester."],
        },
        "Rua das Flores": {
            "personal": ["I live in the top-floor flat on Rua das Flores in Lisbon.",
                         "Home is the flat on Rua das Flores, four flights of stone stairs up, with a slice of river view."],
            "administrative": ["Address on file: Rua das Flores 112, Lisbon.",
                               "Correspondence address: the flat on Rua das Flores, Lisbon."],
        },
    },
    "employer": {
        "Pixelkind": {
            "technical": ["At Pixelkind, the little agency in Leeds, every project is a WordPress site with a deadline yesterday."],
            "personal": ["Work at Pixelkind is fine: estate agent websites, mostly, in a small office in Leeds."],
            "administrative": ["Payslip from Pixelkind checked: tax code and pension contribution look right."],
        },
        "Brightwire": {
            "technical": ["At Brightwire the backend team owns the ingestion services and the deploy pipeline.",
                          "Brightwire's Leeds office has one build server and a lot of opinions about it."],
            "personal": ["I work at Brightwire in Leeds and most days I like it a lot."],
            "administrative": ["Payslip from Brightwire checked: tax code and pension contribution look right."],
        },
        "Copperline": {
            "technical": ["At Copperline the SRE team owns the Kubernetes clusters and the on-call rota.",
                          "Copperline runs everything on AWS, with Terraform for the infrastructure."],
            "personal": ["I work at Copperline in Manchester; the team is great, the on-call less so."],
            "administrative": ["Payslip from Copperline checked: tax code and pension contribution look right."],
        },
        "Tessellate": {
            "technical": ["At Tessellate the platform team owns the clusters, the CI runners and the observability stack.",
                          "Tessellate deploys everything through ArgoCD, one app-of-apps per cluster."],
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
        "no pet": {"personal": [
            "Still no pet at the moment; the tenancy doesn't allow animals.",
            "No pet in the house yet. One day, a cat.",
        ]},
        "Miso": {"personal": [
            "My cat Miso spent the whole afternoon asleep on the windowsill.",
            "Miso, my grey cat, knocked a glass off the table again and looked delighted about it.",
            "Bought Miso a new scratching post; she prefers the box it came in.",
        ]},
    },
    "car": {
        "No car yet": {"personal": ["No car yet; the bus and lifts from Dad get me everywhere."]},
        "Fiesta": {
            "personal": ["Drove the old red Fiesta out to the Dales; it made its grinding noise the whole way.",
                         "The red Fiesta needs new tyres before the MOT."],
            "administrative": ["Car insurance for the red Fiesta renewed; the MOT is booked for next month."],
        },
        "cycle everywhere": {
            "personal": ["No car: I cycle everywhere, and I don't want one.",
                         "Still no car and no plans for one; I cycle everywhere."],
            "administrative": ["No car to insure: I cycle everywhere, so the only policy is for the bikes."],
        },
    },
    "bank": {
        "Yorkshire Bank": {"administrative": ["Current account with Yorkshire Bank: statement checked, nothing odd."]},
        "Monzo": {"administrative": ["Current account with Monzo: statement checked, the direct debits all went out."]},
        "Millennium bcp": {"administrative": ["Current account with Millennium bcp: salary in, rent out, all as expected."]},
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


# --------------------------------------------------------------------------- vocabulary

SLOTS: dict[str, list[str]] = {
    "service": ["billing", "search", "auth", "ingest", "payments", "notifications", "gateway", "reports", "export", "scheduler"],
    "lang": ["Rust", "Go", "Python", "TypeScript"],
    "lang2": ["Python", "Ruby", "Node.js", "Java"],
    "db": ["Postgres", "Redis", "Kafka", "ClickHouse", "MySQL"],
    "colleague": ["Priya", "Joana", "Pedro", "Marek", "Aisha", "Dev", "Lena", "Kofi"],
    "small": [str(i) for i in range(2, 10)],
    "big": [str(i) for i in (120, 180, 240, 300, 450, 600, 800, 950)],
    "pct": [str(i) for i in (12, 18, 25, 30, 40, 55)],
    "mem": ["256", "512", "768", "1024"],
    "hour": ["2", "3", "4", "5"],
    "image": ["oil", "heron", "tram", "lighthouse", "salt", "frost"],
    "char": ["Ana", "Dora", "Joaquim", "Rosa", "Marta", "Ivo", "Clara", "Bea", "Hugo", "Nell"],
    "char2": ["Otto", "Lia", "Duarte", "Sofia", "Ned", "Iris"],
    "object": ["red bicycle", "brass compass", "blue suitcase", "lighthouse key", "tin of letters", "paper map", "old radio"],
    "weekday": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"],
    "friend": ["Sam", "Priya", "Inês", "Rafa", "Jen", "Olly", "Nadia", "Chris", "Hannah"],
    "friend2": ["Ellie", "Ben", "Carla", "Marta", "Dan"],
    "restaurant": ["the Thai place on the corner", "the little tasca near the market", "the pizza place by the station",
                   "the ramen bar", "the Lebanese café", "the vegetarian place with the long queue"],
    "feeling": ["calm", "restless", "cheerful", "tired", "content", "flat", "hopeful", "scattered", "light", "grateful"],
    "dish": ["chilli", "dal", "mushroom risotto", "a tray of roast vegetables", "shakshuka", "pasta with too much garlic",
             "a big pot of soup", "fish tacos"],
    "book": ["Middlemarch", "Piranesi", "Stoner", "The Remains of the Day", "A Gentleman in Moscow", "Pachinko", "Klara and the Sun"],
    "trip": ["a week in the Azores", "walking in the Dolomites", "a long weekend in Porto", "Edinburgh for the festival",
             "the Scottish islands", "a few days in Seville"],
    "season": ["spring", "summer", "autumn", "winter"],
    "walk": ["the river", "the park", "the canal", "the old railway line", "the seafront"],
    "utility": ["electricity", "gas", "water", "broadband", "mobile phone"],
    "insured": ["flat contents", "bikes", "travel", "laptop"],
    "doc": ["tenancy agreement", "payslip", "passport scan", "annual pension statement", "rent receipts", "employment contract"],
    "expense": ["glasses", "dentist", "language course", "work laptop bag"],
    "amount": [str(i) for i in (38, 45, 62, 79, 95, 120, 150, 214, 340, 480)],
    "ref": ["REF-{}".format(i) for i in (20481, 33719, 48120, 51907, 66432, 70215, 88314, 91770)],
    "policy": ["POL-{}-{}".format(a, b) for a, b in ((2291, 457), (3310, 118), (4402, 906), (5127, 233))],
    "inv": ["INV-{:04d}".format(i) for i in (17, 23, 38, 41, 56, 72)],
    "day": [str(i) for i in (1, 5, 8, 12, 15, 20, 28)],
    "month": ["January", "February", "March", "April", "May", "June", "July", "September", "October", "November"],
}

TECH = [
    "Spent the morning debugging a flaky deploy of the {service} service; the readiness probe timed out after {small} seconds.",
    "The {db} replica fell {small} minutes behind during the nightly batch job, so I raised the WAL settings and watched the lag graph flatten.",
    "Rewrote the retry loop in {lang} with exponential backoff and jitter.",
    "Kubernetes kept evicting the {service} pods from the spot node pool until we raised the memory requests to {mem} Mi.",
    "Note to self: `kubectl rollout undo deployment/{service}` is faster than reverting the commit when the canary goes red.",
    "Added a composite index on (tenant_id, created_at) and the p95 latency of the {service} query dropped from {big} ms to {small}0 ms.",
    "Terraform plan wanted to recreate the load balancer again; the cause was drift in the health check path.",
    "Wrote a small Python script to parse the nginx access logs and group the 5xx responses by upstream.",
    "The CI pipeline now caches the cargo registry and the Docker layers, which cuts a build from {small}0 minutes to {small}.",
    "The Grafana dashboard for the {service} API shows request rate, error ratio and saturation; alerting is on burn rate, not raw errors.",
    "Read through the runbook for failing over the Redis cluster: the sentinel quorum is three, not two.",
    "Pair-programmed with {colleague} on the gRPC client and found that the request timeout was never propagated to the server.",
    "Moved the cron jobs to Kubernetes CronJobs with concurrencyPolicy set to Forbid, so overlapping runs can't happen.",
    "The segfault turned out to be a use-after-free in the C extension, found with valgrind and a lot of coffee.",
    "Upgraded the staging cluster to the next Kubernetes minor version; the only breaking change was a removed beta API in the ingress manifests.",
    "Benchmarked serde_json against simd-json on our real payloads: about {pct}% faster, not worth the unsafe code.",
    "Set up WireGuard between the homelab and the VPS so that Prometheus can scrape both.",
    "TIL: `EXPLAIN (ANALYZE, BUFFERS)` shows whether a query hit shared buffers or went to disk.",
    "The memory leak was an unbounded channel in the async worker; a bounded mpsc channel fixed the OOM restarts.",
    "Code review for {colleague}: extract the config parsing, add tests for the empty input, log the request id.",
    "Wrote a Helm chart for the {service} service with a PodDisruptionBudget and sensible resource limits.",
    "Rotated the TLS certificates with cert-manager; the staging issuer had been left enabled on production by mistake.",
    "git bisect found the regression in {small} steps: a refactor that swapped two arguments of the same type.",
    "Profiling with perf showed most of the CPU time in JSON serialisation, not in the database at all.",
    "The on-call page at {hour}am was a full disk on the log volume; added a logrotate rule and a disk alert at 80%.",
    "Built the {service} binary with LTO and opt-level 3; it is smaller and starts noticeably faster.",
    "Wrote an ADR proposing webhooks with signed payloads and idempotency keys instead of polling the REST API.",
    "Load-tested the {service} API with k6 at {big} requests per second; the database connection pool was the bottleneck.",
    "The Ansible playbook for the Raspberry Pi cluster now installs the base packages, hardens SSH and runs node exporter.",
    "Migrated the {service} service from {lang2} to {lang}; the test suite caught three differences in date parsing.",
    "The Kafka consumer group for {service} kept rebalancing because max.poll.interval.ms was lower than our slowest batch.",
    "Turned on pg_stat_statements and found one ORM query responsible for {pct}% of the database time.",
    "Set resource quotas per namespace so that one noisy deploy can't starve the whole cluster.",
    "Refactored the {service} handler into smaller functions and the unit tests finally make sense.",
    "Debugging tip: `strace -f -e trace=network` on the container showed DNS lookups timing out, not the API itself.",
    "Compiled the {lang} service with the race detector on in CI; it found a data race in the connection cache.",
    "The Postgres autovacuum settings for the {service} tables now use a scale factor of 0.01 instead of the default.",
]
TECH_ITEMS = [
    "- [ ] alert when the {service} error ratio stays above 2% for ten minutes",
    "- [x] bump the {lang} toolchain and fix the new clippy lints",
    "- check the connection pool size on the {service} workers",
    "- write the runbook for the {db} failover",
    "- [ ] review the Terraform plan with {colleague}",
    "- [ ] delete the unused staging buckets",
    "- [x] add a readiness probe to the {service} deployment",
    "- pin the base image digest in the Dockerfile",
    "- [ ] move secrets from env vars to the external secrets operator",
    "- profile the {service} endpoint under load before optimising anything",
]
TECH_CODE = [
    "```bash\nkubectl -n {service} get pods -o wide\nkubectl -n {service} logs deploy/{service} --since=1h | grep -i error\n```",
    "```sql\nSELECT relname, n_dead_tup, last_autovacuum\nFROM pg_stat_user_tables\nORDER BY n_dead_tup DESC LIMIT 10;\n```",
    "```bash\ncargo clippy --all-targets -- -D warnings\ncargo test --release\n```",
    "```yaml\nresources:\n  requests: {{cpu: 250m, memory: {mem}Mi}}\n  limits: {{memory: {mem}Mi}}\n```",
    "```bash\ndocker build -t {service}:dev . && docker run --rm -p 8080:8080 {service}:dev\n```",
]
TECH_HEADINGS = ["## Problem", "## Fix", "## Notes", "## Next steps", "## Commands", "## Findings"]
TECH_TITLES = ["{service} deploy notes", "debugging the {service} service", "{db} tuning", "{lang} notes",
               "kubernetes upgrade checklist", "runbook - {service} failover", "ci pipeline cleanup",
               "load testing {service}", "homelab networking", "{service} incident review", "{db} migration plan"]

POEM_LINES = [
    "the kettle sings its one thin note", "rain stitches the window shut", "the streetlights pour out amber oil",
    "a heron stands like a question mark", "the tram leans into the hill", "gulls write cursive on the wind",
    "the bread rises like a slow tide", "the radiator ticks its small clock", "the moon is a coin nobody spends",
    "washing waves from a fourth-floor line", "the river borrows the colour of the sky",
    "my shadow walks ahead to check the road", "a cat keeps the last light on the roof",
    "bicycles sleep chained to the railings", "the city hums its one unending sound", "the sea revises its designs",
    "the morning unfolds like a paper map", "pigeons gossip on the gutter", "the ferry draws a white line home",
    "frost writes on the bridge rail", "a dog barks twice and thinks better of it", "the fridge hums a hymn to itself",
    "the last bus glows like an aquarium", "the hills hold their breath at dusk", "a lemon tree leans over the wall",
    "the tiles are warm as a sleeping animal", "a lighthouse counts to four and starts again",
    "the wind turns pages nobody is reading", "salt dries white on the harbour steps",
    "a violin practises behind a shut door", "the clouds are folded laundry", "light spills like milk across the floor",
]
CREATIVE_NOTES = [
    "Draft {small}. The second stanza is still too neat.",
    "Imagery is strong but the metre wobbles in line {small}.",
    "Try it as unrhymed couplets.",
    "Read it aloud tomorrow before changing anything else.",
    "Maybe the poem ends on the {image} image and stops.",
    "Too many birds in this one again.",
    "Workshop feedback: cut the adjectives, trust the verbs.",
    "The volta arrives too early; move it to line nine.",
    "Send it to the writers' group on {weekday}.",
    "Rhyme scheme ABAB for now; might loosen it in the next draft.",
    "The title is doing too much work. Find a plainer one.",
]
STORY = [
    "{char} had kept the {object} for longer than she had kept most of her opinions.",
    "{char} waited at the station until the last train, pretending not to wait.",
    "The first scene belongs to {char}; everything else in the story is a consequence of it.",
    "Dialogue between {char} and {char2} is too tidy: people interrupt each other.",
    "Plot beat: {char} finds a letter inside the {object} and says nothing to anyone.",
    "POV: close third, present tense. Try first person for the middle section.",
    "The antagonist needs a reason, not just a temper.",
    "Chapter outline: arrival, the storm, the argument, the ferry, the quiet ending.",
    "Character sheet for {char}: stubborn, funny, counts things when anxious.",
    "Setting: a small harbour town where everyone knows the tide tables by heart.",
    "The ending should echo the opening image of the {object}.",
    "Word count today: {big}. Slow but honest.",
    "{char2} arrives in chapter two with the {object} and a story nobody believes.",
    "The draft sags in the middle; cut the market scene and let {char} carry the plot.",
]
PREMISES = [
    "A translator who secretly improves the books she translates, until one author notices.",
    "Two rival bakeries on one street, told through their customers over a summer.",
    "The last night-train attendant on a line that closes tomorrow: twelve passengers, twelve chapters.",
    "A cartographer whose maps of imaginary places start coming true.",
    "A choir that only sings in lifts.",
    "A lighthouse keeper's daughter who learns to fix the clockwork.",
    "A postman who opens one letter a year and answers it.",
    "A city where every building has a voice, and an architect who can hear them arguing.",
]
CREATIVE_TITLES = ["{image} (poem)", "draft - the {object}", "story notes - {char}", "poem for a {weekday}",
                   "villanelle draft", "characters for the harbour story", "sonnet attempt", "flash fiction - {char2}",
                   "novel ideas", "haiku sequence"]

PERSONAL = [
    "Rang Mum this evening; Dad's knee is much better and he's back on the golf course.",
    "Ellie sent photos of her garden: the tomatoes are finally red.",
    "Dinner with {friend} at {restaurant}; we talked until they stacked the chairs.",
    "Felt {feeling} most of the day and couldn't say why.",
    "Long walk along {walk} with {friend}, then coffee and cake.",
    "Cleaned the flat top to bottom, did two loads of laundry and cooked {dish}.",
    "Holiday plans: {trip} in the {season}, if the flights aren't ridiculous.",
    "Slept badly; too much coffee after four again.",
    "Birthday drinks for {friend}. Home far too late, very happy.",
    "Read in bed for an hour; {book} is better than I expected.",
    "Went swimming before work and felt brilliant all day.",
    "Board games with friends; {friend} won at Catan again.",
    "Video call with Mum and Dad; they want to visit in the {season}.",
    "Bought flowers for the kitchen table for no reason at all.",
    "Cooked {dish} for {friend} and {friend2}; there were no leftovers.",
    "Feeling settled, grateful, a bit tired.",
    "A lazy Sunday: croissants, the crossword, a nap on the sofa.",
    "Friends round for a film night; {friend} brought far too much popcorn.",
    "Went to the market for fruit and came back with a plant.",
    "Feeling anxious about the week ahead; made a list and felt better.",
    "Ellie rang to talk about her new job and we laughed for an hour.",
    "Walked home the long way because the evening was so warm.",
    "Started a new book, {book}, and stayed up too late with it.",
    "Took the train to the coast for the day with {friend}.",
    "The family group chat is all photos of Mum's new haircut.",
    "Home feels cosy tonight: lamp on, rain outside, a pot of tea.",
    "Went for a bike ride in the afternoon, got a puncture halfway and fixed it with cold hands.",
    "Yoga class in the evening; my hamstrings disagree with the instructor.",
    "Wrote a long letter to Ellie instead of another message. It felt good.",
    "Dad sent a photo of the first apples from the tree in the garden.",
]
PERSONAL_ITEMS = [
    "- [ ] book the train tickets for {trip}", "- ring Mum on Sunday", "- [x] buy a present for {friend}",
    "- [ ] fix the bike light", "- water the plants", "- [ ] reply to {friend2}'s message",
]
PERSONAL_TITLES = ["weekend", "a good day", "sunday", "notes to self", "friends", "family visit", "holiday plans", "evening"]

ADMIN = [
    "Paid the {utility} bill, {cur}{amount}, reference {ref}.",
    "Insurance renewal for the {insured}: premium {cur}{amount} a year, policy number {policy}.",
    "Filed the {tax_form} on the {tax_portal}; confirmation number {ref}.",
    "Deadline for the {tax_form}: {day} {month}. Calendar reminder set for a week before.",
    "Set up a direct debit for the {utility} on the {day}th of each month.",
    "Scanned the {doc} into the admin folder and shredded the paper copy.",
    "The bank statement shows a duplicate charge of {cur}{amount}; raised a dispute, case {ref}.",
    "Invoice {inv} for freelance work sent: {cur}{amount}, payment terms 30 days.",
    "Pension statement arrived: contributions are on track and the projected value looks fine.",
    "Renewed the passport online; the form needed a new photo and the current passport number.",
    "Checked the lease: the notice period is two months, in writing.",
    "Updated my address with the bank, the doctor and the electoral register.",
    "The insurer's claim form needs receipts for anything over {cur}{amount}.",
    "Meter readings for the {utility} submitted online before the {day}th.",
    "Budget for the month: rent, bills, groceries, and the savings transfer on payday.",
    "Kept the receipts for the {expense} in the tax folder for the deductions.",
    "Called the insurer about the policy excess; they are sending the documents by post.",
    "The {form} has to be signed and returned within 14 days.",
    "Moved {cur}{amount} into the emergency fund.",
    "Reminder: the {doc} needs renewing in three months; the form is in the admin folder.",
    "Tax code check: the payroll figure matches the {tax_office} letter.",
    "Filled in the form for the {utility} switch; the new tariff starts on the {day}th.",
]
ADMIN_ITEMS = [
    "- [ ] send the signed form back", "- [x] pay the {utility} bill", "- [ ] check the policy excess",
    "- [ ] file the receipts for {expense}", "- keep copies of everything", "- [ ] update the standing order reference",
    "- [x] download the annual statement", "- [ ] chase invoice {inv}",
]
ADMIN_TITLES = ["{utility} bill", "insurance renewal", "tax return checklist", "pension statement", "invoice {inv}",
                "passport renewal", "lease notes", "bank admin", "budget", "forms to send"]

CITY_SENTENCES = {
    "technical": ["The {city} office runs its own CI runners for the integration tests.",
                  "Met the {city} team in person for the quarterly planning; the architecture review ran long."],
    "creative": ["A poem about the rooftops of {city} is slowly taking shape.",
                 "The story is set in {city} now; the streets give it a better rhythm."],
    "personal": ["Walked around {city} all afternoon with nowhere to be.",
                 "{city} on a clear evening is still my favourite thing."],
    "administrative": ["Registered the address in {city} with the tax office and the doctor.",
                       "The {city} council letter about the bins needs an answer by the {day}th."],
}

# ---- the deference subjects

GRANDAD_UNMARKED = [
    "I still miss grandad. Some days I can't believe he's gone.",
    "It's {years} years since grandad died and the grief still catches me at odd moments.",
    "Found grandad's old flat cap in a box today and ended up crying on the bedroom floor. I miss him so much.",
    "The anniversary of Grandad Tom's funeral. Mum rang and we were both quiet on the phone for a long time; the loss doesn't get smaller, you just grow around it.",
    "Dreamt about grandpa Tom last night, the two of us at the pond, and woke up in tears. I can't believe he's gone.",
    "Saw an old man with a flask and a folding stool by the water and thought of grandad. The grief came back all at once.",
]
GRANDAD_ELEGY = [
    "you are gone, grandad, and the pond is still",
    "I carry the folding stool of my grief",
    "the flask is cold; I miss you at the water's edge",
    "grandad, the float sinks and nobody shouts",
]
GRANDAD_MARKED = [
    "Visited grandad's grave in Haxby with Mum. We left flowers and told him about the year.",
    "Sorted through the box of grandad's letters Dad gave me. Read two, put the rest away for another day.",
    "Mum sent the photo of grandad on the pier at Whitby, laughing at something outside the frame.",
    "Lit a candle for grandad this evening, like every year on this day.",
]
CHARGED_FILLER = [
    "Went to bed early.", "Made tea and sat by the window for a long time.",
    "Rang Ellie; she understood without me having to explain.", "Didn't get much done today.",
    "Went for a long walk to clear my head.", "Wrote this down so it isn't only in my head.",
]
MAYA_BREAKUP_NOTE = "Maya and I broke up tonight. Four years, and it ended in twenty minutes at the kitchen table. I'm heartbroken."
MAYA_UNMARKED = [
    "Saw Maya's name come up on a shared playlist and it still hurts. The breakup was {years} years ago and I'm still not over it.",
    "Dreamt about Maya again and woke up crying.",
    "Walked past the café where Maya and I had our first date and had to cross the road. The breakup still hurts.",
    "Heard that Maya got engaged. I'm glad for her, and I'm heartbroken, both at once.",
    "Found one of Maya's hair clips behind the sofa and sat there with it for ages. It hurts less than it did, but it hurts.",
]
MAYA_MARKED = [
    "Boxed up the last of Maya's things and left them with her sister.",
    "Maya texted to ask about the record player. I said keep it.",
    "Wrote Maya a letter I'm not going to send.",
]
MAYA_NEUTRAL = [
    "Weekend in the Peak District with Maya; she planned the whole route on a paper map and it was perfect.",
    "Maya and I cooked {dish} for her sister's birthday.",
    "Maya wants a dog; I want a cat. Negotiations continue.",
    "Maya booked the train to Edinburgh for the festival; we have tickets for three comedy shows.",
    "Lazy Sunday with Maya: the papers, a long brunch, a walk round the reservoir.",
]
GRANDAD_FISHING = [
    "Went fishing with grandad at the pond behind Strensall Common. He brought his flask of sweet tea and the folding stool he has had forever.",
    "Grandad showed me how to tie a proper knot for the hook, three times, patiently, and then did it for me anyway.",
    "Sunday dinner at grandad's: roast lamb, his famous gravy, and a long argument about cricket.",
    "Helped grandad on the allotment; the runner beans are taller than both of us.",
]
GRANDAD_TOOLBOX = [
    "Used grandad's old toolbox to fix the bike brakes; his spanners are better than anything in the shops.",
    "Grandad's toolbox came in handy again: the wobbly chair is fixed and the shelf is up.",
]
RECIPE_DISHES = ["lamb stew", "bread pudding", "fish pie", "flapjacks", "roast potatoes", "Yorkshire puddings"]
TOM_COLLEAGUE = [
    "Paired with Tom Hargreaves from the SRE team on the {service} alerts; he knows the Prometheus rules inside out.",
    "Tom from the SRE team reviewed my Helm chart for the {service} service and spotted an unset resource limit.",
    "Tom Hargreaves drove the control-plane upgrade while I rolled the node groups, one zone at a time.",
]

# ---- childhood (undated; archival by content cues)

CHILDHOOD_OPENINGS = [
    "When I was a kid we lived in Haxby, a big village just outside York.",
    "Back then, growing up in Haxby, my whole world was the garden, the rec and the beck.",
    "Years ago, as a kid in Haxby, summers felt endless.",
    "Growing up in Haxby meant knowing everybody on the street and every dog by name.",
]
CHILDHOOD_TOPICS = {
    "biscuit": "Our dog Biscuit, a scruffy brown terrier, came everywhere with us, once even into the school hall during assembly.",
    "school": "The walk to primary school went along the beck, and in winter we slid on the frozen puddles.",
    "caravan": "Every August meant the caravan at Filey: rock pools, crabbing off the landing, rain on the tin roof.",
    "grandad": "At weekends grandad took me fishing at the pond behind Strensall Common, with his flask of sweet tea and his folding stool.",
    "bike": "I learned to ride a bike on the rec, with Dad running behind holding the saddle.",
    "ellie": "Ellie and I built dens in the hedge and sold lemonade to the dog walkers.",
}

# ---- content-free and bad

CONTENT_FREE = ["call back re thursday", "ideas??", "- [ ] that thing", "ring him back", "see above", "???",
                "check this", "tbc", "sort out the thing", "- [ ] follow up", "hmm", "ask about it tomorrow"]
MALFORMED_YAML = [
    "title: [unclosed\ndate: {date}\n",
    "tags: {{work, admin\n",
    'title: "unterminated\n',
    "date: {date}\n\ttags: [a, b]\n",
    "title: one: two: [three\n",
]
LATIN1_TEXTS = [
    "Café com leite na pastelaria, às nove. Pagar a água até sexta.",
    "Résumé updated for the agency; naïve question about the café invoice.",
    "Reunião às três: orçamento, férias, avaliação.",
]


# --------------------------------------------------------------------------- building blocks

class _Writer:
    """Builds note texts; all randomness through one ``random.Random``."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.ctx: dict[str, str] = {}
        writer = self

        class _Slots(dict):
            def __missing__(self, name: str) -> str:
                if name in writer.ctx:
                    return writer.ctx[name]
                return writer.rng.choice(SLOTS[name])

        self._slots = _Slots()

    def fill(self, template: str) -> str:
        """Fill ``{slot}`` placeholders: context values first, else a random choice from SLOTS."""
        if "{" not in template:
            return template
        return template.format_map(self._slots)

    def set_context(self, domain: str, year: int | None) -> None:
        y = year if year is not None else 9999
        city = city_at(y)
        lisbon = city == "Lisbon"
        self.ctx = {
            "city": city,
            "cur": "€" if lisbon else "£",
            "tax_form": "IRS Modelo 3" if lisbon else "Self Assessment return",
            "tax_portal": "Portal das Finanças" if lisbon else "HMRC online service",
            "tax_office": "Finanças" if lisbon else "HMRC",
            "form": "atestado de residência form" if lisbon else "council tax form",
        }

    def sentences(self, pool: list[str], k: int, exclude: re.Pattern | None = None) -> list[str]:
        out = []
        for _ in range(k * 4):
            s = self.fill(self.rng.choice(pool))
            if exclude is not None and exclude.search(s):
                continue
            if s not in out:
                out.append(s)
            if len(out) == k:
                break
        return out

    def target_words(self) -> int:
        r = self.rng.random()
        if r < 0.08:
            return self.rng.randint(30, 60)
        if r < 0.88:
            return self.rng.randint(60, 250)
        return self.rng.randint(250, MAX_WORDS)


def _words(parts: list[str]) -> int:
    return sum(len(p.split()) for p in parts)


def _prose(w: _Writer, pool: list[str], target: int, first: list[str], exclude: re.Pattern | None = None,
           items: list[str] | None = None, headings: list[str] | None = None, code: list[str] | None = None) -> list[str]:
    """Paragraphs (and maybe a list, a heading, a code block) of roughly ``target`` words."""
    rng = w.rng
    blocks: list[str] = []
    para: list[str] = list(first)
    want_list = items is not None and rng.random() < 0.3
    want_code = code is not None and rng.random() < 0.25
    deck: list[str] = []  # templates not used yet in this note (reshuffled when exhausted)
    words = _words(para)
    guard = 0
    while words < target and guard < 200:
        guard += 1
        if not deck:
            deck = pool[:]
        s = w.fill(deck.pop(rng.randrange(len(deck))))
        if exclude is None or not exclude.search(s):
            para.append(s)
            words += len(s.split())
        if len(para) >= rng.randint(2, 5):
            blocks.append(" ".join(para))
            para = []
            extra = None
            if headings and rng.random() < 0.25:
                blocks.append(rng.choice(headings))
            if want_list:
                extra = "\n".join(w.sentences(items, rng.randint(2, 5), exclude))
                want_list = False
            elif want_code:
                extra = w.fill(rng.choice(code))
                want_code = False
            if extra:
                blocks.append(extra)
                words += len(extra.split())
    if para:
        blocks.append(" ".join(para))
    # cap the length (MAX_WORDS): drop trailing blocks, never the first
    while len(blocks) > 1 and _words(blocks) > MAX_WORDS:
        blocks.pop()
    return blocks


def _poem(w: _Writer, stanzas: int) -> list[str]:
    rng = w.rng
    lines = POEM_LINES[:]
    rng.shuffle(lines)
    out, i = [], 0
    for _ in range(stanzas):
        n = rng.randint(3, 4)
        out.append("\n".join(lines[i:i + n]))
        i += n
    return out


def _slug(title: str) -> str:
    s = re.sub(r"[^\w\s'-]", "", title.lower(), flags=re.UNICODE)
    return re.sub(r"\s+", " ", s).strip()[:60] or "note"


def _yaml_scalar(v: str) -> str:
    if re.fullmatch(r"[\w .'-]+", v) and not v[0] in "-'" and ":" not in v:
        return v
    return json.dumps(v, ensure_ascii=False)


def _frontmatter(keys: list[tuple[str, object]]) -> str:
    lines = ["---"]
    for k, v in keys:
        if isinstance(v, list):
            lines.append(f"{k}: [" + ", ".join(_yaml_scalar(str(x)) for x in v) + "]")
        elif isinstance(v, date):
            lines.append(f"{k}: {v.isoformat()}")
        elif isinstance(v, tuple) and v and v[0] == "quoted-date":
            lines.append(f'{k}: "{v[1]}"')
        else:
            lines.append(f"{k}: {_yaml_scalar(str(v))}")
    lines.append("---")
    return "\n".join(lines) + "\n"


FOLDERS = {
    "technical": ["tech", "tech", "tech/k8s", "tech/postgres", "tech/rust", "work", "tech/notes"],
    "creative": ["writing", "writing/poems", "writing/poems", "writing/stories", "writing/drafts"],
    "personal": ["journal", "journal", "journal", "journal", "personal", "personal/travel"],
    "administrative": ["admin", "admin/tax", "admin/insurance", "admin/bank", "admin/housing", "admin/work"],
}
UNKNOWN_KEYS = [("mood", ["good", "tired", "ok", "bright"]), ("status", ["draft", "ongoing", "done"]),
                ("cssclass", ["wide"]), ("rating", ["3", "4", "5"]), ("source", ["phone", "laptop"]),
                ("aliases", [[]])]


# --------------------------------------------------------------------------- generator


@dataclass
class _Spec:
    kind: str
    domain: str | None = None
    subject: str | None = None
    band_want: str | None = None  # for charged: archival | present
    variant: str | None = None


class _Generator:
    def __init__(self, root: Path, n: int, seed: int, now: date):
        self.root, self.n, self.seed, self.now = root, n, seed, now
        self.rng = random.Random(seed)
        self.w = _Writer(self.rng)
        self.cutoff = archival_cutoff(now)
        self.last_day = now - timedelta(days=1)
        self.files: dict[str, bytes] = {}
        self.truth: dict[str, NoteTruth] = {}
        self.used: set[str] = set()  # membership only, never iterated
        self.stems: dict[str, list[str]] = {d: [] for d in WORKSPACES}

    # ---- dates and paths
    def rand_date(self, lo: date = FIRST_DAY, hi: date | None = None, skew: float = 0.75) -> date:
        hi = hi or self.last_day
        if hi < lo:
            hi = lo
        span = (hi - lo).days
        d = lo + timedelta(days=int(span * (self.rng.random() ** skew)))
        if d == self.cutoff:  # keep clear of the boundary: "before the cutoff" is archival
            d += timedelta(days=1) if d < hi else timedelta(days=-1)
        return d

    def date_for_band(self, band: str, lo: date) -> date:
        if band == "present":
            return self.rand_date(max(lo, self.cutoff + timedelta(days=1)), skew=1.0)
        return self.rand_date(lo, min(self.cutoff - timedelta(days=1), self.last_day), skew=1.0)

    def band_for(self, d: date) -> str:
        return "archival" if d < self.cutoff else "present"

    def unique(self, folder: str, stem: str) -> str:
        base = f"{folder}/{stem}" if folder else stem
        path, k = f"{base}.md", 2
        while path.casefold() in self.used:
            path, k = f"{base} {k}.md", k + 1
        self.used.add(path.casefold())
        return path

    def folder(self, domain: str, odd: float = 0.07) -> str:
        if self.rng.random() < odd:
            return self.rng.choice([""] + [f for d in WORKSPACES if d != domain for f in FOLDERS[d][:2]])
        return self.rng.choice(FOLDERS[domain])

    def path_for(self, domain: str, title: str, d: date | None, dated_name: bool, folder: str | None = None) -> str:
        folder = self.folder(domain) if folder is None else folder
        slug = _slug(title)
        if d is not None and dated_name:
            stem = d.isoformat() if (folder.startswith("journal") and self.rng.random() < 0.5) else f"{d.isoformat()} {slug}"
        else:
            stem = slug
        return self.unique(folder, stem)

    def emit(self, path: str, data: bytes, truth: NoteTruth) -> None:
        self.files[path] = data
        self.truth[path] = truth
        if truth.status == "indexed" and truth.kind == "regular":
            self.stems[truth.workspace].append(path.rsplit("/", 1)[-1][:-3])

    # ---- plan
    def plan(self) -> list[_Spec]:
        n, rng = self.n, self.rng
        n_bad = max(4, round(0.01 * n))
        n_free = max(4, round(0.02 * n))
        n_charged = max(8, round(0.015 * n))
        n_neutral = max(8, round(0.015 * n))
        n_child = max(2, round(0.03 * n))
        specs: list[_Spec] = []
        bad_kinds = ["malformed_yaml", "empty", "non_utf8", "nul"]
        specs += [_Spec("bad", variant=bad_kinds[i % 4]) for i in range(n_bad)]
        specs += [_Spec("content_free", variant=CONTENT_FREE[i % len(CONTENT_FREE)]) for i in range(n_free)]
        # charged: cover every (subject, marked, band) combination first
        combos = [(s, m, b) for s in ("Grandad Tom", "Maya") for m in ("charged_marked", "charged_unmarked")
                  for b in ("archival", "present")]
        for i in range(n_charged):
            s, m, b = combos[i % len(combos)] if i < len(combos) else rng.choice(combos)
            specs.append(_Spec(m, subject=s, band_want=b))
        neutral = ["recipe", "watch", "toolbox", "fishing", "maya", "tom", "tom", "maya"]
        specs += [_Spec("neutral_mention", variant=neutral[i % len(neutral)]) for i in range(n_neutral)]
        specs += [_Spec("childhood", variant="biscuit" if i == 0 else None) for i in range(n_child)]
        n_regular = n - 1 - len(specs)
        if n_regular < 8:
            raise ValueError(f"n_notes={n} is too small for the fixed special notes; use at least {n - n_regular + 8}")
        weights = [("technical", 0.26), ("creative", 0.18), ("personal", 0.32), ("administrative", 0.24)]
        for _ in range(n_regular):
            r, acc = rng.random(), 0.0
            for d, p in weights:
                acc += p
                if r < acc:
                    break
            specs.append(_Spec("regular", domain=d))
        rng.shuffle(specs)
        # the first marked grandad note is the funeral (deterministic after the shuffle)
        for s in specs:
            if s.kind == "charged_marked" and s.subject == "Grandad Tom" and s.band_want == "archival":
                s.variant = "funeral"
                break
        for s in specs:
            if s.kind == "charged_unmarked" and s.subject == "Maya" and s.band_want == "archival":
                s.variant = "breakup"
                break
        return specs

    # ---- notes
    def facts_note(self) -> None:
        d = date(2015, 3, 1)
        cur = {f: value_at(f, self.now.year) for f in TIMELINES}
        body = (
            "# Facts about me\n\nThe canonical page, edited in place whenever something changes; the date above is when "
            "the page was created.\n\n"
            f"- **Home:** {cur['home'][0]}\n- **Work:** {cur['employer'][0]}\n- **Job title:** {cur['role'][0]}\n"
            f"- **Pet:** {cur['pet'][0]}\n- **Car:** {cur['car'][0]}. I cycle everywhere.\n- **Bank:** {cur['bank'][0]}\n"
            "- **Family:** Mum and Dad in Haxby, my sister Ellie in Bristol.\n"
        )
        fm = _frontmatter([("title", "Facts about me"), ("date", d), ("band", "present"), ("workspace", "personal"),
                           ("tags", ["facts", "about-me"])])
        path = "personal/facts.md"
        self.used.add(path.casefold())
        self.emit(path, (fm + "\n" + body).encode("utf-8"), NoteTruth(
            "indexed", "personal", "present", d.isoformat(), kind="facts",
            states={f: v[0] for f, v in cur.items()}))

    def regular(self, spec: _Spec) -> None:
        rng, w = self.rng, self.w
        domain = spec.domain
        undated = rng.random() < 0.065
        d = None if undated else self.rand_date()
        w.set_context(domain, d.year if d else None)
        has_fm = rng.random() < 0.30
        # what the note states
        states: dict[str, str] = {}
        first: list[str] = []
        facts = [f for f, doms in FACT_DOMAINS.items() if domain in doms]
        if d is not None and facts and rng.random() < 0.30:
            fact = rng.choice(facts)
            v = value_at(fact, d.year)
            if v is not None and domain in STATEMENTS[fact].get(v[1], {}):
                states[fact] = v[0]
                first.append(rng.choice(STATEMENTS[fact][v[1]][domain]))
        if d is not None and rng.random() < 0.18:
            first.append(w.fill(rng.choice(CITY_SENTENCES[domain])))
        target = w.target_words()
        title, blocks = self.body(domain, target, first)
        if d is None:  # undated notes must not carry past cues or years
            blocks = [b for b in blocks if not PAST_CUES.search(b)] or ["Notes."]
        if self.stems[domain] and rng.random() < 0.12:
            target_stem = rng.choice(self.stems[domain][-200:])
            if d is not None or not PAST_CUES.search(target_stem):  # no years into undated notes
                blocks.append(f"See also [[{target_stem}]].")
        text = "\n\n".join(blocks) + "\n"
        if rng.random() < 0.45 and not text.startswith("#"):
            text = f"# {title[0].upper()}{title[1:]}\n\n{text}"
        # frontmatter, dating
        workspace, band, fm_keys = domain, None, []
        fm_date = None
        dated_name = d is not None
        name_date = d
        if has_fm:
            if d is not None and rng.random() < 0.8:
                fm_date = d
                dated_name = rng.random() < 0.4
                if rng.random() < 0.03:  # file name says one thing, frontmatter (which wins) another
                    name_date, dated_name = self.rand_date(), True
                fm_keys.append(("date", ("quoted-date", d.isoformat()) if rng.random() < 0.1 else d))
            if rng.random() < 0.5:
                fm_keys.append(("title", title))
            if rng.random() < 0.6:
                fm_keys.append(("tags", rng.sample(_TAGS[domain], rng.randint(1, 3))))
            if rng.random() < 0.2:
                if rng.random() < 0.12:  # frontmatter contradicts the content: frontmatter wins
                    workspace = rng.choice([x for x in WORKSPACES if x != domain])
                fm_keys.append(("workspace", workspace))
            if not states and rng.random() < 0.025:
                band = rng.choice(["present", "archival"])
                fm_keys.append(("band", band))
            if rng.random() < 0.2:
                k, vals = rng.choice(UNKNOWN_KEYS)
                fm_keys.append((k, rng.choice(vals)))
        if d is None:
            truth_band = band or "present"
        else:
            truth_band = band or self.band_for(d)
        path = self.path_for(domain, title, name_date, dated_name)
        data = (_frontmatter(fm_keys) + "\n" if fm_keys else "") + text
        self.emit(path, data.encode("utf-8"), NoteTruth(
            "indexed", workspace, truth_band, d.isoformat() if d else None, kind="regular", states=states))

    def body(self, domain: str, target: int, first: list[str], exclude: re.Pattern | None = None) -> tuple[str, list[str]]:
        rng, w = self.rng, self.w
        if domain == "technical":
            title = w.fill(rng.choice(TECH_TITLES))
            return title, _prose(w, TECH, target, first, exclude, TECH_ITEMS, TECH_HEADINGS, TECH_CODE)
        if domain == "personal":
            title = w.fill(rng.choice(PERSONAL_TITLES))
            return title, _prose(w, PERSONAL, target, first, exclude, PERSONAL_ITEMS)
        if domain == "administrative":
            title = w.fill(rng.choice(ADMIN_TITLES))
            return title, _prose(w, ADMIN, target, first, exclude, ADMIN_ITEMS)
        # creative: a poem, a story draft, or a list of ideas
        r = rng.random()
        if r < 0.5:
            title = w.fill(rng.choice(CREATIVE_TITLES[:5] + CREATIVE_TITLES[6:9]))
            stanzas = _poem(w, max(2, min(6, target // 40)))
            notes = w.sentences(CREATIVE_NOTES, rng.randint(1, 3), exclude)
            blocks = ([" ".join(first)] if first else []) + stanzas + [" ".join(notes)]
            return title, blocks
        if r < 0.85:
            title = w.fill(rng.choice(["draft - the {object}", "story notes - {char}", "flash fiction - {char2}",
                                       "characters for the harbour story"]))
            return title, _prose(w, STORY, target, first, exclude,
                                 ["- " + s for s in ("cut the market scene", "give {char2} a secret",
                                                     "end on the {object}", "more dialogue, fewer adjectives",
                                                     "check the timeline of chapter two")])
        title = "novel ideas"
        picks = rng.sample(PREMISES, rng.randint(3, 6))
        blocks = ([" ".join(first)] if first else []) + ["Ideas for stories, in no particular order:",
                                                         "\n".join(f"{i}. {p}" for i, p in enumerate(picks, 1)),
                                                         " ".join(w.sentences(STORY, 2, exclude))]
        return title, blocks

    def childhood(self, spec: _Spec) -> None:
        rng, w = self.rng, self.w
        w.set_context("personal", 2000)
        topics = list(CHILDHOOD_TOPICS)
        picks = rng.sample(topics, rng.randint(2, 4))
        if spec.variant == "biscuit" and "biscuit" not in picks:
            picks[0] = "biscuit"
        creative = rng.random() < 0.2
        states = {"home": TIMELINES["home"][0][1]}
        if "biscuit" in picks:
            states["pet"] = TIMELINES["pet"][0][1]
        mentions = ["Grandad Tom"] if "grandad" in picks else []
        if creative:
            title = rng.choice(["growing up in haxby (poem)", "haxby, as a kid", "poem about the village"])
            blocks = [rng.choice(CHILDHOOD_OPENINGS)] + _poem(w, 2) + [CHILDHOOD_TOPICS[p] for p in picks[:2]] + [
                "Draft. The imagery of the beck is the heart of it; the rest is scaffolding."]
            domain, folder = "creative", rng.choice(FOLDERS["creative"])
        else:
            title = rng.choice(["growing up", "when I was a kid", "haxby", "the village", "summers as a kid",
                                "memories of home"])
            blocks = [rng.choice(CHILDHOOD_OPENINGS) + " " + CHILDHOOD_TOPICS[picks[0]]] + [
                CHILDHOOD_TOPICS[p] for p in picks[1:]]
            blocks.append(" ".join(w.sentences(PERSONAL, rng.randint(0, 2), GRIEF_CUES)) or "Happy times.")
            domain, folder = "personal", rng.choice(["personal", "personal", "journal", "personal/memories"])
        text = f"# {title[0].upper()}{title[1:]}\n\n" + "\n\n".join(b for b in blocks if b) + "\n"
        assert not GRIEF_CUES.search(text) and PAST_CUES.search(text), text
        path = self.unique(folder, _slug(title))
        self.emit(path, text.encode("utf-8"), NoteTruth(
            "indexed", domain, "archival", None, kind="childhood", states=states, mentions=mentions))

    def charged(self, spec: _Spec) -> None:
        rng, w = self.rng, self.w
        s, marked = spec.subject, spec.kind == "charged_marked"
        lo = GRANDAD_DIED if s == "Grandad Tom" else MAYA_BREAKUP
        if spec.variant == "funeral":
            d = GRANDAD_FUNERAL
        elif spec.variant == "breakup":
            d = MAYA_BREAKUP
        else:
            d = self.date_for_band(spec.band_want, lo + timedelta(days=30))
        years = str(max(1, d.year - lo.year))
        w.set_context("personal", d.year)
        domain = "personal"
        if s == "Grandad Tom":
            if spec.variant == "funeral":
                paras = ["Grandad's funeral was at St Mary's in Haxby this morning. Dad read the eulogy and had to stop "
                         "at the bit about the fishing trips. I couldn't do my reading; Ellie did it for me."]
                title = "grandad's funeral"
            elif marked:
                paras = [rng.choice(GRANDAD_MARKED)]
                title = "grandad"
            elif rng.random() < 0.25:
                domain = "creative"
                lines = GRANDAD_ELEGY[:]
                rng.shuffle(lines)
                paras = ["\n".join(lines[:3]), rng.choice(CREATIVE_NOTES).replace("{small}", "2").replace("{image}", "flask")
                         .replace("{weekday}", "Friday")]
                title = "elegy for grandad"
            else:
                paras = [" ".join(x.replace("{years}", years) for x in rng.sample(GRANDAD_UNMARKED, 2))]
                title = "grandad"
        else:
            if spec.variant == "breakup":
                paras, title = [MAYA_BREAKUP_NOTE], "maya"
            elif marked:
                paras, title = [rng.choice(MAYA_MARKED)], "maya"
            else:
                paras = [" ".join(x.replace("{years}", years) for x in rng.sample(MAYA_UNMARKED, 2))]
                title = "maya"
        if domain == "personal":
            paras.append(" ".join(rng.sample(CHARGED_FILLER, rng.randint(1, 2))))
        fm: list[tuple[str, object]] = []
        if marked:
            fm = [("date", d), ("charged", [s])]
            if rng.random() < 0.5:
                fm.append(("title", title))
        elif rng.random() < 0.25:
            fm = [("date", d), ("tags", ["journal"])]
        text = "\n\n".join(paras) + "\n"
        assert SUBJECT_MENTION.search(text), text
        if not marked:
            assert GRIEF_CUES.search(text), text
        data = (_frontmatter(fm) + "\n" if fm else "") + text
        folder = "journal" if domain == "personal" else "writing/poems"
        path = self.unique(folder, f"{d.isoformat()} {title}" if (fm or rng.random() < 0.6) else d.isoformat())
        self.emit(path, data.encode("utf-8"), NoteTruth(
            "indexed", domain, self.band_for(d), d.isoformat(), [s], kind=spec.kind, mentions=[s]))

    def neutral(self, spec: _Spec) -> None:
        rng, w = self.rng, self.w
        v = spec.variant
        mentions = ["Grandad Tom"]
        d: date | None
        fm: list[tuple[str, object]] = []
        if v == "recipe":
            dish = rng.choice(RECIPE_DISHES)
            title = f"Grandad Tom's {dish}"
            d = None if rng.random() < 0.5 else self.rand_date(date(2013, 1, 1))
            domain = "personal"
            w.set_context(domain, d.year if d else None)
            paras = [f"# {title}", f"The family recipe: Grandad Tom's {dish}, still the best thing to cook on a cold Sunday.",
                     "## Ingredients\n" + "\n".join(f"- {x}" for x in rng.sample(
                         ["1 kg lamb shoulder", "2 onions", "3 carrots", "100 g pearl barley", "1 litre stock",
                          "2 bay leaves", "a sprig of rosemary", "butter", "plain flour", "4 eggs", "milk",
                          "golden syrup", "oats", "potatoes", "white fish", "parsley"], 6)),
                     "## Method\n1. Prepare everything before you start.\n2. Cook low and slow; don't rush it.\n"
                     "3. Season, taste, season again.\n4. Serve with bread and good company.",
                     "Serves four. Better the next day."]
            fm = [("title", title), ("tags", ["recipe", "family"])] if rng.random() < 0.5 else []
            if fm and d is not None:
                fm.append(("date", d))
            folder = rng.choice(["personal/recipes", "personal", "recipes"])
        elif v == "watch":
            d = self.rand_date(date(2013, 1, 1))
            domain = "administrative"
            w.set_context(domain, d.year)
            cur = w.ctx["cur"]
            title = "contents insurance valuation"
            paras = [f"# {title.capitalize()}",
                     f"Home contents policy {rng.choice(SLOTS['policy'])}: items over {cur}500 are listed individually.",
                     "| Item | Valuation |\n|---|---|\n"
                     f"| grandad's pocket watch (silver, Smiths) | {cur}{rng.choice(['750', '900', '1,100'])} |\n"
                     f"| laptop | {cur}1,500 |\n| commuter bike | {cur}{rng.choice(['800', '1,100'])} |",
                     " ".join(w.sentences(ADMIN, 2, GRIEF_CUES))]
            folder = rng.choice(["admin/insurance", "admin"])
        elif v == "toolbox":
            d = self.rand_date(date(2013, 1, 1))
            domain = "personal"
            w.set_context(domain, d.year)
            title = "fixing things"
            paras = [rng.choice(GRANDAD_TOOLBOX) + " " + " ".join(w.sentences(PERSONAL, 2, GRIEF_CUES))]
            folder = "journal"
        elif v == "fishing":
            d = self.rand_date(FIRST_DAY, GRANDAD_DIED - timedelta(days=30), skew=1.0)
            domain = "personal"
            w.set_context(domain, d.year)
            title = "weekend with grandad"
            paras = [" ".join(rng.sample(GRANDAD_FISHING, 2)), " ".join(w.sentences(PERSONAL, 1, GRIEF_CUES))]
            folder = "journal"
        elif v == "maya":
            mentions = ["Maya"]
            d = self.rand_date(MAYA_START, MAYA_BREAKUP - timedelta(days=30), skew=1.0)
            domain = "personal"
            w.set_context(domain, d.year)
            title = "weekend"
            paras = [" ".join(w.fill(x) for x in rng.sample(MAYA_NEUTRAL, 2)),
                     " ".join(w.sentences(PERSONAL, 2, GRIEF_CUES))]
            folder = "journal"
        else:  # a colleague called Tom: not grandad
            mentions = []
            d = self.rand_date(TESSELLATE_START, skew=1.0)
            domain = "technical"
            w.set_context(domain, d.year)
            title = w.fill(rng.choice(TECH_TITLES))
            paras = [w.fill(rng.choice(TOM_COLLEAGUE))] + _prose(w, TECH, rng.randint(60, 160), [], GRIEF_CUES)
            folder = rng.choice(FOLDERS["technical"])
        text = "\n\n".join(p for p in paras if p) + "\n"
        assert not GRIEF_CUES.search(text), (v, GRIEF_CUES.search(text))
        if d is None:
            assert not PAST_CUES.search(text)
        path = self.path_for(domain, title, d, d is not None and not any(k == "date" for k, _ in fm), folder)
        data = (_frontmatter(fm) + "\n" if fm else "") + text
        band = self.band_for(d) if d else "present"
        self.emit(path, data.encode("utf-8"), NoteTruth(
            "indexed", domain, band, d.isoformat() if d else None, [], kind="neutral_mention", mentions=mentions))

    def content_free(self, spec: _Spec, k: int) -> None:
        text = spec.variant
        slug = _slug(text).strip("- ")
        stem = self.rng.choice([slug if slug and slug != "note" else "untitled", "untitled", "quick note"])
        path = self.unique("inbox" if self.rng.random() < 0.85 else "", stem)
        self.emit(path, (text + "\n").encode("utf-8"),
                  NoteTruth("quarantined", None, None, None, kind="content_free"))

    def bad(self, spec: _Spec, k: int) -> None:
        rng = self.rng
        domain = rng.choice(WORKSPACES)
        d = self.rand_date()
        self.w.set_context(domain, d.year)
        title, blocks = self.body(domain, rng.randint(30, 120), [])
        body = "\n\n".join(blocks) + "\n"
        if spec.variant == "malformed_yaml":
            data = ("---\n" + rng.choice(MALFORMED_YAML).format(date=d.isoformat()) + "---\n\n" + body).encode("utf-8")
        elif spec.variant == "empty":
            data = b""
        elif spec.variant == "non_utf8":
            data = (rng.choice(LATIN1_TEXTS) + "\n\n" + body.replace("€", "EUR")).encode("latin-1", errors="replace")
        else:
            data = body.encode("utf-8")
            cut = rng.randint(0, len(data))
            data = data[:cut] + b"\x00\x00\x01\x02PK\x03\x04\x00" + data[cut:]
        folder = rng.choice(["inbox", "inbox", FOLDERS[domain][0]])
        path = self.unique(folder, f"{d.isoformat()} {_slug(title)}" if rng.random() < 0.5 else _slug(title))
        self.emit(path, data, NoteTruth("invalid", None, None, None, kind="bad", reason=spec.variant))

    # ---- cases
    def cases(self) -> list[QueryCase]:
        T, rng = self.truth, self.rng
        cases: list[QueryCase] = []
        indexed = [(p, t) for p, t in T.items() if t.status == "indexed"]

        def newest(items: list[tuple[str, NoteTruth]]) -> list[str]:
            return [p for p, t in sorted(items, key=lambda pt: (pt[1].date or "", pt[0]), reverse=True)]

        def cap(paths: list[str], n: int = FORBID_CAP) -> list[str]:
            return paths[:n]

        # present facts: newest present note stating the current value (and the facts note)
        phrasings = {
            "home": ["where do I live?", "what is my current address?"],
            "employer": ["where do I work?", "which company do I work for now?"],
            "role": ["what is my job title?", "what do I do for a living?"],
            "pet": ["do I have a pet?", "what is my pet called?"],
            "car": ["do I have a car?", "how do I get around?"],
            "bank": ["which bank am I with?", "where is my current account?"],
        }
        for fact, queries in phrasings.items():
            value, key = value_at(fact, self.now.year)
            stating = [(p, t) for p, t in indexed if t.states.get(fact) == value and t.band == "present"
                       and not t.charged and t.date and t.kind == "regular"]
            expect = newest(stating)[:3] + ["personal/facts.md"]
            forbid = newest([(p, t) for p, t in indexed if fact in t.states and t.band == "archival"])
            for q in queries:
                cases.append(QueryCase("present_fact", q, expect, cap(forbid), expect_text=key))
        # archive by year
        year_q = {"home": "where did I live in {y}?", "employer": "where was I working in {y}?",
                  "role": "what was my job title in {y}?", "pet": "did I have a pet in {y}?",
                  "car": "what car did I have in {y}?", "bank": "which bank was I with in {y}?"}
        for fact, q in year_q.items():
            by_year: dict[int, list[tuple[str, NoteTruth]]] = {}
            for p, t in indexed:
                if fact in t.states and t.date and t.kind == "regular":
                    y = int(t.date[:4])
                    if y < self.cutoff.year and t.states[fact] != value_at(fact, self.now.year)[0]:
                        by_year.setdefault(y, []).append((p, t))
            years = sorted(by_year)
            # one year per past value first, then others, at most four
            chosen: list[int] = []
            seen_values: list[str] = []
            for y in years:
                v = value_at(fact, y)[0]
                if v not in seen_values:
                    seen_values.append(v)
                    chosen.append(y)
            rest = [y for y in years if y not in chosen]
            rng.shuffle(rest)
            for y in (chosen + rest)[:4]:
                v, key = value_at(fact, y)
                cases.append(QueryCase("archive_year", q.format(y=y), newest(by_year[y])[:50], [],
                                       archival_open=True, expect_text=key))
        # archive by lexical cue
        child = [(p, t) for p, t in indexed if t.kind == "childhood"]
        haxby = [(p, t) for p, t in indexed if t.states.get("home", "").startswith("Haxby")]
        biscuit = [(p, t) for p, t in child if "pet" in t.states]
        fiesta = [(p, t) for p, t in indexed if "Fiesta" in t.states.get("car", "")]
        old_jobs = [(p, t) for p, t in indexed if "employer" in t.states and t.band == "archival"
                    and t.states["employer"] != value_at("employer", self.now.year)[0]]
        for q, items, key in (("where did I grow up?", haxby, "Haxby"),
                              ("what was our dog called when I was a kid?", biscuit, "Biscuit"),
                              ("what car did I use to drive?", fiesta, "Fiesta"),
                              ("where did I use to work?", old_jobs, None)):
            if items:
                cases.append(QueryCase("archive_cue", q, newest(items)[:50], [], archival_open=True, expect_text=key))
        # deference
        for s, withheld_qs, open_q, bridged_q in (
            ("Grandad Tom", ["how is grandad?", "tell me about Grandad Tom"], "what happened to grandad in {y}?",
             "how have I been feeling about grandad lately?"),
            ("Maya", ["what happened with Maya?", "how are things with Maya?"], "what happened with Maya in {y}?",
             "how do I feel about Maya now?"),
        ):
            charged = [(p, t) for p, t in indexed if s in t.charged]
            present = [(p, t) for p, t in charged if t.band == "present"]
            archival = [(p, t) for p, t in charged if t.band == "archival"]
            for q in withheld_qs:
                cases.append(QueryCase("charged_withheld", q, [], cap(newest(charged)), withheld=[s]))
            if archival:
                y = int(sorted(t.date for _, t in archival)[0][:4])
                in_year = [(p, t) for p, t in archival if t.date.startswith(str(y))]
                cases.append(QueryCase("charged_withheld", open_q.format(y=y), newest(in_year),
                                       cap(newest(present)), archival_open=True))
            if present:
                cases.append(QueryCase("charged_bridged", bridged_q, newest(present), [], bridge=[s]))
        # quarantine and invalid files never answer
        never = [p for p, t in T.items() if t.status != "indexed"]
        texts: list[str] = []
        for p, t in T.items():
            if t.kind == "content_free":
                txt = self.files[p].decode("utf-8").strip()
                if txt not in texts:
                    texts.append(txt)
        for txt in texts[:4]:
            cases.append(QueryCase("quarantine_never", txt, [], cap(never, 2000)))
        # workspace restriction
        lisbon = [(p, t) for p, t in indexed if t.band == "present" and t.kind == "regular"
                  and "Lisbon" in self.files[p].decode("utf-8")]
        for ws in WORKSPACES:
            inside = [(p, t) for p, t in lisbon if t.workspace == ws]
            outside = [(p, t) for p, t in lisbon if t.workspace != ws]
            if inside:
                cases.append(QueryCase("workspace_restriction", "what have I written about Lisbon?",
                                       newest(inside)[:50], cap(newest(outside)), workspaces=[ws], expect_text="Lisbon"))
        watch = [(p, t) for p, t in indexed if t.kind == "neutral_mention" and t.workspace == "administrative"]
        if watch:
            cases.append(QueryCase("workspace_restriction", "what is grandad's pocket watch insured for?",
                                   newest([x for x in watch if x[1].band == "present"] or watch),
                                   cap(newest([(p, t) for p, t in indexed if "Grandad Tom" in t.charged])),
                                   workspaces=["administrative"], archival_open=False, expect_text="pocket watch"))
        toms = [(p, t) for p, t in indexed if t.kind == "neutral_mention" and t.workspace == "technical"]
        if toms:
            cases.append(QueryCase("workspace_restriction", "what did Tom from the SRE team help with?",
                                   newest(toms), cap(newest([(p, t) for p, t in indexed if t.mentions])),
                                   workspaces=["technical"], expect_text="Tom"))
        return cases

    # ---- run
    def run(self) -> GroundTruth:
        self.facts_note()
        specs = self.plan()
        for k, spec in enumerate(specs):
            if spec.kind == "regular":
                self.regular(spec)
            elif spec.kind == "childhood":
                self.childhood(spec)
            elif spec.kind in ("charged_marked", "charged_unmarked"):
                self.charged(spec)
            elif spec.kind == "neutral_mention":
                self.neutral(spec)
            elif spec.kind == "content_free":
                self.content_free(spec, k)
            else:
                self.bad(spec, k)
        cases = self.cases()
        return GroundTruth(
            vault=self.root.name, seed=self.seed, n_notes=len(self.truth), now=self.now.isoformat(),
            archival_cutoff=self.cutoff.isoformat(), subjects=[dict(s) for s in SUBJECTS],
            timelines={f: [{"start_year": s, "value": v, "key": k} for s, v, k in tl] for f, tl in TIMELINES.items()},
            notes=self.truth, cases=cases)


FORBID_CAP = 200
_TAGS = {
    "technical": ["kubernetes", "postgres", "rust", "debugging", "deploy", "ci", "homelab", "runbook"],
    "creative": ["poem", "draft", "story", "verse", "characters", "fiction"],
    "personal": ["journal", "family", "friends", "home", "holiday", "feelings"],
    "administrative": ["tax", "insurance", "bank", "lease", "pension", "invoice", "forms"],
}


def _tiny_png() -> bytes:
    def chunk(t: bytes, d: bytes) -> bytes:
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\x80\x80\x80")) + chunk(b"IEND", b""))


DEFERENCE_YAML = """# Subjects whose material is withheld unless deliberately asked for.
subjects:
  - name: Grandad Tom
    aliases: [grandad, grandpa tom]
  - name: Maya
    aliases: [maya r]
"""


def generate_vault(root: Path, n_notes: int, *, seed: int = 7, now: date = date(2026, 6, 1),
                   overwrite: bool = False) -> GroundTruth:
    """Write a vault of ``n_notes`` files (notes, content-free notes, invalid files) under ``root``.

    Returns the ground truth and writes it to :func:`truth_path` (``<root>.truth.json``).
    ``root`` must be absent or empty unless ``overwrite`` is set (then it is emptied first).
    """
    root = Path(root)
    if root.exists() and any(root.iterdir()):
        if not overwrite:
            raise FileExistsError(f"{root} is not empty (pass overwrite=True / --force to replace it)")
        shutil.rmtree(root)
    gen = _Generator(root, n_notes, seed, now)
    truth = gen.run()
    root.mkdir(parents=True, exist_ok=True)
    made: set[Path] = set()
    for rel, data in gen.files.items():
        path = root / rel
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        path.write_bytes(data)
    extras = {
        ".lucasrag/deference.yaml": DEFERENCE_YAML.encode("utf-8"),
        ".obsidian/app.json": b'{\n  "newFileLocation": "folder",\n  "newFileFolderPath": "inbox"\n}\n',
        ".obsidian/workspace.md": b"# layout scratch\n",
        ".trash/deleted note.md": b"Shopping list: eggs, milk, coffee.\n",
        "attachments/scan-001.png": _tiny_png(),
    }
    for rel, data in extras.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    truth.write(truth_path(root))
    return truth


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lucasrag.evaluation.vault_generator",
                                 description="Write a deterministic synthetic vault and its ground truth.")
    ap.add_argument("out_dir", type=Path, help="the vault root to create (truth goes to OUT_DIR.truth.json)")
    ap.add_argument("--notes", type=int, default=1000, help="number of files to generate (default 1000)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--now", type=date.fromisoformat, default=date(2026, 6, 1), help="reference date (YYYY-MM-DD)")
    ap.add_argument("--force", action="store_true", help="replace OUT_DIR if it is not empty")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    try:
        truth = generate_vault(args.out_dir, args.notes, seed=args.seed, now=args.now, overwrite=args.force)
    except (FileExistsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    counts = truth.counts()
    print(f"wrote {truth.n_notes} files to {args.out_dir} in {time.perf_counter() - t0:.1f}s; "
          + ", ".join(f"{k}={v}" for k, v in counts.items()) + f"; {len(truth.cases)} query cases; "
          f"truth: {truth_path(args.out_dir)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
