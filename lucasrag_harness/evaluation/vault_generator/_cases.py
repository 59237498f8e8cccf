"""Query cases generated from the truth (what ``lucasrag eval policy`` asks)."""

from __future__ import annotations

from lucasrag.vocabulary import WORKSPACES
from lucasrag_harness.evaluation.vault_generator._cases_recency import recency_cases
from lucasrag_harness.evaluation.vault_generator._persona import value_at
from lucasrag_harness.evaluation.vault_generator._truth import NoteTruth, QueryCase

#: Forbidden paths listed per case at most (a sample keeps the truth file small). Expected paths are never
#: capped: a case lists every note that answers it, or a larger vault's right answers would count as misses.
FORBID_CAP = 200


class CaseMaker:
    """``cases()`` of the generator (reads ``self.truth``, ``self.now``, ...)."""

    def cases(self) -> list[QueryCase]:
        T, rng = self.truth, self.rng
        cases: list[QueryCase] = []
        indexed = [(p, t) for p, t in T.items() if t.status == "indexed"]

        def newest(items: list[tuple[str, NoteTruth]]) -> list[str]:
            return [p for p, t in sorted(items, key=lambda pt: (pt[1].date or "", pt[0]), reverse=True)]

        def cap(paths: list[str], n: int = FORBID_CAP) -> list[str]:
            return paths[:n]

        # present facts: every present note stating the current value, newest first, and the facts note
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
            stating = [
                (p, t)
                for p, t in indexed
                if t.states.get(fact) == value
                and t.band == "present"
                and not t.charged
                and t.date
                and t.kind == "regular"
            ]
            expect = newest(stating) + ["personal/facts.md"]
            forbid = newest([(p, t) for p, t in indexed if fact in t.states and t.band == "archival"])
            for q in queries:
                cases.append(QueryCase("present_fact", q, expect, cap(forbid), expect_text=key))
        # archive by year
        year_q = {
            "home": "where did I live in {y}?",
            "employer": "where was I working in {y}?",
            "role": "what was my job title in {y}?",
            "pet": "did I have a pet in {y}?",
            "car": "what car did I have in {y}?",
            "bank": "which bank was I with in {y}?",
        }
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
                cases.append(
                    QueryCase(
                        "archive_year", q.format(y=y), newest(by_year[y]), [], archival_open=True, expect_text=key
                    )
                )
        # archive by lexical cue
        child = [(p, t) for p, t in indexed if t.kind == "childhood"]
        haxby = [(p, t) for p, t in indexed if t.states.get("home", "").startswith("Haxby")]
        biscuit = [(p, t) for p, t in child if "pet" in t.states]
        fiesta = [(p, t) for p, t in indexed if "Fiesta" in t.states.get("car", "")]
        old_jobs = [
            (p, t)
            for p, t in indexed
            if "employer" in t.states
            and t.band == "archival"
            and t.states["employer"] != value_at("employer", self.now.year)[0]
        ]
        for q, items, key in (
            ("where did I grow up?", haxby, "Haxby"),
            ("what was our dog called when I was a kid?", biscuit, "Biscuit"),
            ("what car did I use to drive?", fiesta, "Fiesta"),
            ("where did I use to work?", old_jobs, None),
        ):
            if items:
                cases.append(QueryCase("archive_cue", q, newest(items), [], archival_open=True, expect_text=key))
        # periods below the year and false alarms
        cases += recency_cases(indexed, self.now, rng)
        # deference
        for s, withheld_qs, open_q, bridged_q in (
            (
                "Grandad Tom",
                ["how is grandad?", "tell me about Grandad Tom"],
                "what happened to grandad in {y}?",
                "how have I been feeling about grandad lately?",
            ),
            (
                "Maya",
                ["what happened with Maya?", "how are things with Maya?"],
                "what happened with Maya in {y}?",
                "how do I feel about Maya now?",
            ),
        ):
            charged = [(p, t) for p, t in indexed if s in t.charged]
            present = [(p, t) for p, t in charged if t.band == "present"]
            archival = [(p, t) for p, t in charged if t.band == "archival"]
            for q in withheld_qs:
                cases.append(QueryCase("charged_withheld", q, [], cap(newest(charged)), withheld=[s]))
            if archival:
                y = int(sorted(t.date for _, t in archival)[0][:4])
                in_year = [(p, t) for p, t in archival if t.date.startswith(str(y))]
                cases.append(
                    QueryCase(
                        "charged_withheld",
                        open_q.format(y=y),
                        newest(in_year),
                        cap(newest(present)),
                        archival_open=True,
                    )
                )
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
        lisbon = [
            (p, t)
            for p, t in indexed
            if t.band == "present" and t.kind == "regular" and "Lisbon" in self.files[p].decode("utf-8")
        ]
        for ws in WORKSPACES:
            inside = [(p, t) for p, t in lisbon if t.workspace == ws]
            outside = [(p, t) for p, t in lisbon if t.workspace != ws]
            if inside:
                cases.append(
                    QueryCase(
                        "workspace_restriction",
                        "what have I written about Lisbon?",
                        newest(inside),
                        cap(newest(outside)),
                        workspaces=[ws],
                        expect_text="Lisbon",
                    )
                )
        watch = [(p, t) for p, t in indexed if t.kind == "neutral_mention" and t.workspace == "administrative"]
        if watch:
            cases.append(
                QueryCase(
                    "workspace_restriction",
                    "what is grandad's pocket watch insured for?",
                    newest([x for x in watch if x[1].band == "present"] or watch),
                    cap(newest([(p, t) for p, t in indexed if "Grandad Tom" in t.charged])),
                    workspaces=["administrative"],
                    archival_open=False,
                    expect_text="pocket watch",
                )
            )
        toms = [(p, t) for p, t in indexed if t.kind == "neutral_mention" and t.workspace == "technical"]
        if toms:
            cases.append(
                QueryCase(
                    "workspace_restriction",
                    "what did Tom from the SRE team help with?",
                    newest(toms),
                    cap(newest([(p, t) for p, t in indexed if t.mentions])),
                    workspaces=["technical"],
                    expect_text="Tom",
                )
            )
        return cases

    # ---- run
