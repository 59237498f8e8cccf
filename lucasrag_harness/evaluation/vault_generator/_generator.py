"""The generator proper: plans the vault, writes each kind of note, records the truth."""

from __future__ import annotations

import random
import re
import struct
import zlib
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from lucasrag.vocabulary import WORKSPACES
from lucasrag_harness.evaluation.vault_generator._cases import CaseMaker
from lucasrag_harness.evaluation.vault_generator._persona import (
    FACT_DOMAINS,
    FIRST_DAY,
    PAST_CUES,
    STATEMENTS,
    SUBJECTS,
    TIMELINES,
    value_at,
)
from lucasrag_harness.evaluation.vault_generator._phrases import (
    ADMIN,
    ADMIN_ITEMS,
    ADMIN_TITLES,
    CITY_SENTENCES,
    CONTENT_FREE,
    CREATIVE_NOTES,
    CREATIVE_TITLES,
    LATIN1_TEXTS,
    MALFORMED_YAML,
    PERSONAL,
    PERSONAL_ITEMS,
    PERSONAL_TITLES,
    PREMISES,
    STORY,
    TECH,
    TECH_CODE,
    TECH_HEADINGS,
    TECH_ITEMS,
    TECH_TITLES,
)
from lucasrag_harness.evaluation.vault_generator._subjects import SubjectNotes
from lucasrag_harness.evaluation.vault_generator._truth import GroundTruth, NoteTruth, archival_cutoff
from lucasrag_harness.evaluation.vault_generator._writer import (
    FOLDERS,
    UNKNOWN_KEYS,
    _frontmatter,
    _poem,
    _prose,
    _slug,
    _Writer,
)


@dataclass
class _Spec:
    kind: str
    domain: str | None = None
    subject: str | None = None
    band_want: str | None = None  # for charged: archival | present
    variant: str | None = None


class _Generator(SubjectNotes, CaseMaker):
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
            stem = (
                d.isoformat()
                if (folder.startswith("journal") and self.rng.random() < 0.5)
                else f"{d.isoformat()} {slug}"
            )
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
        combos = [
            (s, m, b)
            for s in ("Grandad Tom", "Maya")
            for m in ("charged_marked", "charged_unmarked")
            for b in ("archival", "present")
        ]
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
            for d, p in weights:  # noqa: B007 (d is the pick, read after the loop)
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
        fm = _frontmatter(
            [
                ("title", "Facts about me"),
                ("date", d),
                ("band", "present"),
                ("workspace", "personal"),
                ("tags", ["facts", "about-me"]),
            ]
        )
        path = "personal/facts.md"
        self.used.add(path.casefold())
        self.emit(
            path,
            (fm + "\n" + body).encode("utf-8"),
            NoteTruth(
                "indexed", "personal", "present", d.isoformat(), kind="facts", states={f: v[0] for f, v in cur.items()}
            ),
        )

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
        workspace, band, fm_keys, timeless = domain, None, [], False
        dated_name = d is not None
        name_date = d
        if has_fm:
            if d is not None and rng.random() < 0.8:
                dated_name = rng.random() < 0.4
                if rng.random() < 0.03:  # file name says one thing, frontmatter (which wins) another
                    name_date, dated_name = self.rand_date(), True
                fm_keys.append(("date", ("quoted-date", d.isoformat()) if rng.random() < 0.1 else d))
            if rng.random() < 0.5:
                fm_keys.append(("title", title))
            if rng.random() < 0.6:
                tags = rng.sample(_TAGS[domain], rng.randint(1, 3))
                fm_keys.append(("tags", tags))
                # A runbook is a how-to: timeless, present whatever its date (architecture §3.3).
                timeless = "runbook" in tags and "journal" not in tags
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
            truth_band = band or ("present" if timeless else self.band_for(d))
        path = self.path_for(domain, title, name_date, dated_name)
        data = (_frontmatter(fm_keys) + "\n" if fm_keys else "") + text
        self.emit(
            path,
            data.encode("utf-8"),
            NoteTruth("indexed", workspace, truth_band, d.isoformat() if d else None, kind="regular", states=states),
        )

    def body(
        self, domain: str, target: int, first: list[str], exclude: re.Pattern | None = None
    ) -> tuple[str, list[str]]:
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
            title = w.fill(
                rng.choice(
                    [
                        "draft - the {object}",
                        "story notes - {char}",
                        "flash fiction - {char2}",
                        "characters for the harbour story",
                    ]
                )
            )
            return title, _prose(
                w,
                STORY,
                target,
                first,
                exclude,
                [
                    "- " + s
                    for s in (
                        "cut the market scene",
                        "give {char2} a secret",
                        "end on the {object}",
                        "more dialogue, fewer adjectives",
                        "check the timeline of chapter two",
                    )
                ],
            )
        title = "novel ideas"
        picks = rng.sample(PREMISES, rng.randint(3, 6))
        blocks = ([" ".join(first)] if first else []) + [
            "Ideas for stories, in no particular order:",
            "\n".join(f"{i}. {p}" for i, p in enumerate(picks, 1)),
            " ".join(w.sentences(STORY, 2, exclude)),
        ]
        return title, blocks

    def content_free(self, spec: _Spec, k: int) -> None:
        text = spec.variant
        slug = _slug(text).strip("- ")
        stem = self.rng.choice([slug if slug and slug != "note" else "untitled", "untitled", "quick note"])
        path = self.unique("inbox" if self.rng.random() < 0.85 else "", stem)
        self.emit(path, (text + "\n").encode("utf-8"), NoteTruth("quarantined", None, None, None, kind="content_free"))

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
            vault=self.root.name,
            seed=self.seed,
            n_notes=len(self.truth),
            now=self.now.isoformat(),
            archival_cutoff=self.cutoff.isoformat(),
            subjects=[dict(s) for s in SUBJECTS],
            timelines={f: [{"start_year": s, "value": v, "key": k} for s, v, k in tl] for f, tl in TIMELINES.items()},
            notes=self.truth,
            cases=cases,
        )


_TAGS = {
    "technical": ["kubernetes", "postgres", "rust", "debugging", "deploy", "ci", "homelab", "runbook"],
    "creative": ["poem", "draft", "story", "verse", "characters", "fiction"],
    "personal": ["journal", "family", "friends", "home", "holiday", "feelings"],
    "administrative": ["tax", "insurance", "bank", "lease", "pension", "invoice", "forms"],
}


def _tiny_png() -> bytes:
    def chunk(t: bytes, d: bytes) -> bytes:
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"\x00\x80\x80\x80"))
        + chunk(b"IEND", b"")
    )


DEFERENCE_YAML = """# Subjects whose material is withheld unless deliberately asked for.
subjects:
  - name: Grandad Tom
    aliases: [grandad, grandpa tom]
  - name: Maya
    aliases: [maya r]
"""
