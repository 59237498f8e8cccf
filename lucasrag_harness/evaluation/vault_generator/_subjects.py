"""Notes about particular subjects: undated childhood memories, charged notes about the
deference subjects (marked and unmarked), and neutral mentions of them (a mixin of the generator)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import TYPE_CHECKING

from lucasrag_harness.evaluation.vault_generator._persona import (
    FIRST_DAY,
    GRANDAD_DIED,
    GRANDAD_FUNERAL,
    GRIEF_CUES,
    MAYA_BREAKUP,
    MAYA_START,
    PAST_CUES,
    SUBJECT_MENTION,
    TESSELLATE_START,
    TIMELINES,
)
from lucasrag_harness.evaluation.vault_generator._phrases import (
    ADMIN,
    CHARGED_FILLER,
    CHILDHOOD_OPENINGS,
    CHILDHOOD_TOPICS,
    CREATIVE_NOTES,
    GRANDAD_ELEGY,
    GRANDAD_FISHING,
    GRANDAD_MARKED,
    GRANDAD_TOOLBOX,
    GRANDAD_UNMARKED,
    MAYA_BREAKUP_NOTE,
    MAYA_MARKED,
    MAYA_NEUTRAL,
    MAYA_UNMARKED,
    PERSONAL,
    RECIPE_DISHES,
    SLOTS,
    TECH,
    TECH_TITLES,
    TOM_COLLEAGUE,
)
from lucasrag_harness.evaluation.vault_generator._truth import NoteTruth
from lucasrag_harness.evaluation.vault_generator._writer import FOLDERS, _frontmatter, _poem, _prose, _slug

if TYPE_CHECKING:
    from lucasrag_harness.evaluation.vault_generator._generator import _Spec


class SubjectNotes:
    """``childhood``, ``charged`` and ``neutral`` of the generator (use its rng, dates and writer)."""

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
            blocks = (
                [rng.choice(CHILDHOOD_OPENINGS)]
                + _poem(w, 2)
                + [CHILDHOOD_TOPICS[p] for p in picks[:2]]
                + ["Draft. The imagery of the beck is the heart of it; the rest is scaffolding."]
            )
            domain, folder = "creative", rng.choice(FOLDERS["creative"])
        else:
            title = rng.choice(
                ["growing up", "when I was a kid", "haxby", "the village", "summers as a kid", "memories of home"]
            )
            blocks = [rng.choice(CHILDHOOD_OPENINGS) + " " + CHILDHOOD_TOPICS[picks[0]]] + [
                CHILDHOOD_TOPICS[p] for p in picks[1:]
            ]
            blocks.append(" ".join(w.sentences(PERSONAL, rng.randint(0, 2), GRIEF_CUES)) or "Happy times.")
            domain, folder = "personal", rng.choice(["personal", "personal", "journal", "personal/memories"])
        text = f"# {title[0].upper()}{title[1:]}\n\n" + "\n\n".join(b for b in blocks if b) + "\n"
        assert not GRIEF_CUES.search(text) and PAST_CUES.search(text), text
        path = self.unique(folder, _slug(title))
        self.emit(
            path,
            text.encode("utf-8"),
            NoteTruth("indexed", domain, "archival", None, kind="childhood", states=states, mentions=mentions),
        )

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
                paras = [
                    "Grandad's funeral was at St Mary's in Haxby this morning. Dad read the eulogy and had to stop "
                    "at the bit about the fishing trips. I couldn't do my reading; Ellie did it for me."
                ]
                title = "grandad's funeral"
            elif marked:
                paras = [rng.choice(GRANDAD_MARKED)]
                title = "grandad"
            elif rng.random() < 0.25:
                domain = "creative"
                lines = GRANDAD_ELEGY[:]
                rng.shuffle(lines)
                paras = [
                    "\n".join(lines[:3]),
                    rng.choice(CREATIVE_NOTES)
                    .replace("{small}", "2")
                    .replace("{image}", "flask")
                    .replace("{weekday}", "Friday"),
                ]
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
        self.emit(
            path,
            data.encode("utf-8"),
            NoteTruth("indexed", domain, self.band_for(d), d.isoformat(), [s], kind=spec.kind, mentions=[s]),
        )

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
            paras = [
                f"# {title}",
                f"The family recipe: Grandad Tom's {dish}, still the best thing to cook on a cold Sunday.",
                "## Ingredients\n"
                + "\n".join(
                    f"- {x}"
                    for x in rng.sample(
                        [
                            "1 kg lamb shoulder",
                            "2 onions",
                            "3 carrots",
                            "100 g pearl barley",
                            "1 litre stock",
                            "2 bay leaves",
                            "a sprig of rosemary",
                            "butter",
                            "plain flour",
                            "4 eggs",
                            "milk",
                            "golden syrup",
                            "oats",
                            "potatoes",
                            "white fish",
                            "parsley",
                        ],
                        6,
                    )
                ),
                "## Method\n1. Prepare everything before you start.\n2. Cook low and slow; don't rush it.\n"
                "3. Season, taste, season again.\n4. Serve with bread and good company.",
                "Serves four. Better the next day.",
            ]
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
            paras = [
                f"# {title.capitalize()}",
                f"Home contents policy {rng.choice(SLOTS['policy'])}: items over {cur}500 are listed individually.",
                "| Item | Valuation |\n|---|---|\n"
                f"| grandad's pocket watch (silver, Smiths) | {cur}{rng.choice(['750', '900', '1,100'])} |\n"
                f"| laptop | {cur}1,500 |\n| commuter bike | {cur}{rng.choice(['800', '1,100'])} |",
                " ".join(w.sentences(ADMIN, 2, GRIEF_CUES)),
            ]
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
            paras = [
                " ".join(w.fill(x) for x in rng.sample(MAYA_NEUTRAL, 2)),
                " ".join(w.sentences(PERSONAL, 2, GRIEF_CUES)),
            ]
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
        # A recipe is timeless: present whatever its date (architecture §3.3); the rest ages.
        band = self.band_for(d) if d and v != "recipe" else "present"
        self.emit(
            path,
            data.encode("utf-8"),
            NoteTruth(
                "indexed", domain, band, d.isoformat() if d else None, [], kind="neutral_mention", mentions=mentions
            ),
        )
