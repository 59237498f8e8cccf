"""Care per (chunk, subject): ``withheld`` or ``released``, by whom and why.

A subject on the deference list is **withheld until released**: every chunk that refers to it (``mentions``:
names it, refers back to it, or belongs to a note whose title names it) is withheld unless something releases
it. In authority order:

1. the person: the note's frontmatter ``charged:`` lists the subject (withheld, ``declared``) or
   ``<vault>/.lucasrag/care_decisions.yaml`` releases it for the note (``dismissed``);
2. reference resolution: every mention that looks like the subject is someone else or a word
   (``resolution``: "another person: Maya Chen", "someone else's relation: Sam's mum");
3. the subject's policy in deference.yaml (``policy``): a ``charged-only`` subject, or a reference written
   before the subject's ``since:`` date, is released unless the detector infers it charged;
4. the detector (``inferred``): released when the evidence that the mention is neutral is strong — its
   probability of charged below the model's release cut, chosen so that at most 1 % of charged passages are
   released — or when it closely resembles a chunk the person released for the same subject (``learned``).

Everything else stays withheld and is pending the person's review. A query still releases a chunk by a bridge
or, for an archival chunk, an archive it opens (``lucasrag_query.policy``). The detector's scores are the
evidence either way: the lexical model over what the chunk says about the subject (``features`` → ``model``),
and with a span embedder one forward pass gives a contextual vector of those sentences, stacked on it
(``vectors``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import date

import numpy as np

from lucasrag.catalog import care_pending
from lucasrag.vocabulary import DeferenceSubject
from lucasrag_assets.rules.charged import canonical_name, charging_evidence

from .collisions import is_word
from .features import SUBJECT_TOKEN, cosine, featurise
from .holding import holding_cue
from .mentions import SubjectContext, resolve_all, subject_pattern, whole_chunk
from .model import CareModel, Exemplar, shipped_model
from .unnamed import unnamed_references
from .vectors import SpanEmbed

#: A pending pair at least this similar (hashed lexical features) to a chunk the person released for the same
#: subject is released too, unless the detector infers it charged: a decision teaches the release step.
RELEASED_EXAMPLE_SIMILARITY = 0.8

OUTCOMES = ("withheld", "released")


@dataclass(frozen=True)
class CareAssessment:
    subject: str
    outcome: str  # withheld | released
    source: str  # declared | dismissed | resolution | policy | inferred | learned (who or what decided)
    why: str  # one line a person can read: what decided the outcome
    mention: str | None = None  # the first mention as written
    reference: str | None = None  # how the chunk refers to the subject ("names it", "the note's title ...")
    sentence: str | None = None  # the first sentence that refers to the subject (shown to the person only)
    rule_cue: str | None = None  # "cue (why)" from rules/charged.py, if any
    holding: str | None = None  # words that speak of the subject as gone or missed (holding.py), if any
    score: float | None = None  # the classifier's probability of charged
    inferred: str | None = None  # the detector's reading: charged | uncertain | neutral
    nearest: str | None = None  # the labelled example it resembles most (corpus family or vault path)
    lexical_score: float | None = None  # the lexical model alone
    vector_score: float | None = None  # the vector model alone (None: no usable vector)
    vector_view: str | None = None  # "span" (the sentences about the subject) | "chunk" (see ``vectors``)
    prototype: str | None = None  # the charged situation description the pair lies nearest (``prototypes``)

    @property
    def withheld(self) -> bool:
        return self.outcome == "withheld"

    @property
    def pending(self) -> bool:
        """Withheld with no decision of the person's: listed for review (``catalog.care_pending``)."""
        return care_pending(vars(self))

    def to_dict(self) -> dict:
        return asdict(self)


def masked_context(context: SubjectContext, subject: DeferenceSubject, *, focus: bool = False) -> str:
    """The sentences about the subject (``focus``: only those naming it or referring back) with each name
    mention replaced by one placeholder token."""
    return subject_pattern(subject).sub(SUBJECT_TOKEN, context.focus_text if focus else context.text)


def vectorise(
    text: str, subject: DeferenceSubject, context: SubjectContext, *, focus: bool = False
) -> tuple[np.ndarray, str | None]:
    """The lexical features of the pair (``focus``: of its focus lines, ``mentions.SubjectContext``) and
    the rule table's cue."""
    cues = charging_evidence(text, (subject,)).get(subject.name, [])  # the rule's own sentence window
    cue = f"{cues[0].cue} ({cues[0].why})" if cues else None
    sentences = context.focus_sentences if focus else context.sentences
    return featurise(masked_context(context, subject, focus=focus), rule_cue=bool(cues), sentences=list(sentences)), cue


def _nearest(vec: np.ndarray, exemplars: Sequence[Exemplar]) -> tuple[Exemplar | None, float]:
    best, best_sim = None, -1.0
    for e in exemplars:
        sim = cosine(vec, e.vector)
        if sim > best_sim:
            best, best_sim = e, sim
    return best, best_sim


@dataclass(frozen=True)
class _Scores:
    p: float
    inferred: str
    cue: str | None
    nearest: str | None
    lexical: float
    vector: float | None
    view: str | None
    prototype: str | None
    features: np.ndarray
    released: bool  # below the model's release cut for this evidence, and no holding cue
    release_rule: str
    holding: str | None  # holding.holding_cue: speaks of the subject as gone, missed or counterfactual


def _score(
    text: str,
    subject: DeferenceSubject,
    context: SubjectContext,
    model: CareModel,
    vector_model,
    pair_vector: tuple[np.ndarray | None, str | None],
    pooled: np.ndarray | None,
    focus_vector: np.ndarray | None,
) -> _Scores:
    vec, cue = vectorise(text, subject, context)
    holding = holding_cue(masked_context(context, subject))
    holding = holding.replace(SUBJECT_TOKEN, subject.name) if holding else None  # as the person reads it
    focus_vec = vectorise(text, subject, context, focus=True)[0]
    p_lexical = model.probability(vec)
    p = model.focused_probability(vec, focus_vec)
    near, sim = _nearest(vec, model.exemplars)
    nearest = f"{near.label}: {near.name} (similarity {sim:.2f})" if near is not None else None
    vector, view = pair_vector
    with_vectors = vector_model is not None and vector_model.usable(vector)
    p_vector = prototype = None
    if with_vectors:
        p_vector = vector_model.vector_probability(vector)
        p = vector_model.probability(p_lexical, vector, pooled, (model.probability(focus_vec), focus_vector))
        if vector_model.prototypes is not None:
            text_of, psim = vector_model.prototypes.nearest(vector)
            prototype = f"{text_of} (similarity {psim:.2f})"
        centroid, vsim = vector_model.nearest(vector)
        if centroid is not None:
            nearest = f"{centroid.label}: {centroid.name} (vector similarity {vsim:.2f})"
    return _Scores(
        p,
        (vector_model if with_vectors else model).outcome(p),
        cue,
        nearest,
        p_lexical,
        p_vector,
        view if with_vectors else None,
        prototype,
        vec,
        model.releases(p, p_lexical, with_vectors) and holding is None,
        model.release_rule(with_vectors),
        holding,
    )


def _decide(
    subject: DeferenceSubject, s: _Scores, note_date: date | None, released: Sequence[Exemplar]
) -> tuple[str, str, str]:
    """(outcome, source, why) of an undecided reference, from the subject's policy and the detector."""
    charged = s.inferred != "neutral"
    # with vector evidence the release also needs the lexical score below its cut: show both, or a withheld
    # "score 0.01" beside "released when score below 0.295" reads like a mistake
    lexical = f", lexical {s.lexical:.2f}" if s.vector is not None else ""
    reading = f"the detector reads it {s.inferred} (score {s.p:.2f}{lexical})"
    if subject.withhold == "charged-only":
        if charged:
            return "withheld", "inferred", f"{reading}; {subject.name} is withheld when charged"
        return "released", "policy", f"{subject.name} is withheld only when charged; {reading}"
    if subject.since and note_date and note_date < subject.since and not charged:
        return "released", "policy", f"written before {subject.since.isoformat()} (the subject's since:); {reading}"
    if s.released:
        return "released", "inferred", f"a neutral mention: score {s.p:.3f} (lexical {s.lexical:.3f}), {s.release_rule}"
    near, sim = _nearest(s.features, released)
    if near is not None and sim >= RELEASED_EXAMPLE_SIMILARITY and not charged and s.holding is None:
        return "released", "learned", f"like {near.name}, which you released (similarity {sim:.2f}); {reading}"
    why = "inferred charged" if charged else "refers to the subject and is not confidently neutral"
    if s.holding is not None:  # the scores alone would have released it: say what holds it
        return "withheld", "inferred", f"{why}: {reading}, but it speaks of them as gone or missed: {s.holding}"
    return "withheld", "inferred", f"{why}: {reading}; released when {s.release_rule}"


def _evidence(s: _Scores) -> dict:
    """The detector's scores as a :class:`CareAssessment` records them."""
    return dict(
        score=round(s.p, 4),
        inferred=s.inferred,
        nearest=s.nearest,
        lexical_score=round(s.lexical, 4),
        vector_score=None if s.vector is None else round(s.vector, 4),
        vector_view=s.view,
        prototype=s.prototype,
        rule_cue=s.cue,
        holding=s.holding,
    )


#: A chunk whose every mention looks like an everyday word ("the gas bill", "the rory update") is released only
#: below this score, stricter than the neutral reading (below 0.775) a namesake needs: on the care corpus written
#: about subjects named like words (benchmarks/care_name_words.py --corpus) the neutral reading released 8 charged
#: passages as words ("moving grace to comfort care"), this cut 1; it holds 1 of the 20 word uses written to test
#: the rules ("No hope of a refund", 0.65), and on the corpus's tuning half "after the rory update" (0.71).
WORD_LOOK_ALIKE_BELOW = 0.6


def _look_alike(
    subject: DeferenceSubject, context: SubjectContext, whole: SubjectContext | None, s: _Scores | None
) -> CareAssessment:
    """A chunk whose mentions all look like someone else or a word: released as not the subject, unless the
    detector (``s``: its scores of ``whole``, the whole chunk) reads it as charged or uncertain — then withheld
    and pending, with both pieces of evidence. No ``whole``: the person released the note for the subject."""
    looks = "; ".join(context.collisions)
    why = f"not the subject: {looks}"
    if whole is None or s is None:
        return CareAssessment(subject.name, "released", "resolution", why, reference=why)
    # a word is weaker evidence than another person's surname or workplace: it needs a clearer neutral reading
    word_only = all(is_word(c) for c in context.collisions)
    if s.inferred != "neutral" or (word_only and s.p >= WORD_LOOK_ALIKE_BELOW):
        held = f"seems not the subject ({looks}), but the detector reads it {s.inferred} (score {s.p:.2f})"
        if s.inferred == "neutral":
            held += f", and a word's or a time's look-alike is released only below {WORD_LOOK_ALIKE_BELOW}"
        sentence = next((t for t in whole.sentences if subject_pattern(subject).search(t)), None)
        return CareAssessment(
            subject.name, "withheld", "inferred", held, reference=why, sentence=sentence, **_evidence(s)
        )
    return CareAssessment(subject.name, "released", "resolution", why, reference=why, **_evidence(s))


def assess_chunk(
    text: str,
    subjects: Sequence[DeferenceSubject],
    *,
    declared: Sequence[str] = (),
    dismissed: Collection[str] = (),
    released_examples: Mapping[str, Sequence[Exemplar]] | None = None,
    note_refs: Mapping[str, str] | None = None,
    namesakes: Mapping[str, Sequence[str]] | None = None,
    note_date: date | None = None,
    named_nearby: str | None = None,
    poem: bool = False,
    model: CareModel | None = None,
    embed: SpanEmbed | None = None,
) -> list[CareAssessment]:
    """One assessment per subject the chunk refers to (or only seems to), or the note declares, sorted.

    ``declared`` are the note's ``charged:`` names; ``dismissed`` the canonical names a person released
    for this note; ``released_examples`` maps a canonical subject to features of chunks the person released
    for it (:func:`released_examples`); ``note_refs`` the subjects the note's title or first line names, with
    the evidence (``mentions.note_reference``); ``namesakes`` the other people of a subject's name the note's head
    names (``mentions.note_namesakes``); ``note_date`` the note's date (for ``since:``); ``named_nearby`` the subject the
    vault names nearest in time to the note (``unnamed.nearest_subject``: whom a loss that names no one is about);
    ``poem`` the note is a poem or a song (``unnamed.is_poem``). ``embed``
    (a ``vectors.SpanEmbed``: one forward pass over ``text``) runs the embedding model the vector weights were
    trained on (the caller checks which model, see ``vectors.vector_warning``); without it the lexical
    evidence decides alone, with its own release cut.
    """
    model = model or shipped_model()
    by_name = {s.name: s for s in subjects}
    declared_names = {canonical_name(d, subjects) for d in declared if d and d.strip()}
    dismissed_folded = {d.casefold() for d in dismissed}
    found: dict[str, CareAssessment] = {
        n: CareAssessment(n, "withheld", "declared", "marked charged in the note's frontmatter") for n in declared_names
    }
    contexts = {c.subject: c for c in resolve_all(text, subjects, namesakes)}
    refs = dict(note_refs or {})
    cue = None  # the words that make a chunk naming no one refer to a subject (unnamed.py)
    if not refs and not contexts:  # names no subject, nor anyone who only looks like one: its date or a loss may
        refs, cue = unnamed_references(text, subjects, note_date, named_nearby, poem=poem)
    for name, evidence in refs.items():  # the note is about the subject: so is this chunk
        if name in by_name and not (name in contexts and contexts[name].mentions):
            contexts[name] = whole_chunk(text, by_name[name], evidence, cue.span if cue else None)
    # A chunk whose every mention looks like someone else or a word is still read by the detector: a rule that
    # misfires ("after the rory update: hearing his voice in empty rooms") must not release grief.
    look_alikes = {
        n: whole_chunk(text, by_name[n], "")
        for n, c in contexts.items()
        if not c.mentions and n not in declared_names and n.casefold() not in dismissed_folded
    }
    referring = [c for c in contexts.values() if c.mentions and c.subject not in declared_names]
    referring += list(look_alikes.values())
    vector_model = model.vector if model.vector is not None and embed is not None and referring else None
    pair_vectors: dict[str, tuple[np.ndarray | None, str | None]] = {}
    focus_vectors: dict[str, np.ndarray | None] = {}
    pooled = None
    if vector_model is not None:  # one pass: every pair's context and focus spans
        pooled, spans = embed(text, [c.spans for c in referring] + [c.focus_spans for c in referring])
        for c, v, f in zip(referring, spans, spans[len(referring) :]):
            pair_vectors[c.subject] = (v, "span") if v is not None else (pooled, "chunk")
            focus_vectors[c.subject] = f if f is not None else pair_vectors[c.subject][0]

    def score(name: str, context: SubjectContext) -> _Scores:
        vectors = pair_vectors.get(name, (None, None))
        return _score(text, by_name[name], context, model, vector_model, vectors, pooled, focus_vectors.get(name))

    for name, context in contexts.items():
        if name in declared_names:
            found[name] = replace(found[name], mention=context.mentions[0] if context.mentions else None)
            continue
        if not context.mentions:
            whole = look_alikes.get(name)
            found[name] = _look_alike(by_name[name], context, whole, score(name, whole) if whole else None)
            continue
        sentence = context.focus_sentences[0] if context.focus_sentences else None
        ref = dict(mention=context.mentions[0], reference=context.reference, sentence=sentence)
        if name.casefold() in dismissed_folded:
            found[name] = CareAssessment(
                name, "released", "dismissed", "released by your decision (.lucasrag/care_decisions.yaml)", **ref
            )
            continue
        s = score(name, context)
        if cue is not None and cue.holds and s.holding is None:  # words of a loss hold it like the holding words
            s = replace(s, holding=cue.words, released=False)
        outcome, source, why = _decide(by_name[name], s, note_date, (released_examples or {}).get(name, ()))
        found[name] = CareAssessment(
            name,
            outcome,
            source,
            why,
            **ref,
            **_evidence(s),
        )
    return [found[n] for n in sorted(found, key=str.casefold)]


def released_examples(
    chunks: Iterable[tuple[str, str, Collection[str]]], subjects: Sequence[DeferenceSubject]
) -> dict[str, list[Exemplar]]:
    """Examples the person released: ``(path, chunk text, dismissed canonical names)`` → per subject, the
    lexical features of the note's chunks that refer to a subject the person released for that note."""
    by_name = {s.name: s for s in subjects}
    out: dict[str, list[Exemplar]] = {}
    for path, text, dismissed in chunks:
        names = sorted(set(dismissed) & set(by_name))
        for context in resolve_all(text, [by_name[n] for n in names]):
            if context.mentions:
                vec, _ = vectorise(text, by_name[context.subject], context)
                out.setdefault(context.subject, []).append(Exemplar("released", path, vec))
    return out


def read_as_charged(assessments: Sequence[CareAssessment]) -> tuple[str, ...]:
    """The subjects the detector reads as charged or uncertain (what decides for a ``charged-only`` subject and
    before a ``since:`` date), whatever the outcome."""
    return tuple(a.subject for a in assessments if a.inferred in ("charged", "uncertain"))


def withheld_subjects(assessments: Sequence[CareAssessment]) -> tuple[str, ...]:
    """The subjects a chunk is withheld for."""
    return tuple(a.subject for a in assessments if a.withheld)
