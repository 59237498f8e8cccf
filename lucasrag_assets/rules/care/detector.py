"""Care per (chunk, subject): ``charged``, ``uncertain`` or ``neutral``, and why.

Authority order, as for bands: the person's decision (a subject in the note's
``charged:`` frontmatter — where ``lucasrag care confirm`` writes — or a
dismissal in ``<vault>/.lucasrag/care_decisions.yaml``) > inference. Inference
resolves the subject's mentions (``mentions``), scores what the chunk says about
them (``features`` → ``model``) with the rule table's cue (``rules/charged.py``)
as one feature, and lifts a pair to at least ``uncertain`` when it closely
resembles a chunk the person marked charged for the same subject (the vault
teaches the detector). (Until ``care-lr-3`` a rule-table cue lifted a pair to
``uncertain`` too; out of fold that lift cost more recall at the 5 % false
positive cut than it bought: the cue stays a feature and in the evidence.)
Given a span embedder, one forward pass over the chunk gives a contextual vector
of the sentences about each subject, and a vector model (``vectors``) stacks on
the lexical one. From ``care-lr-5`` each pair is scored twice, over its context
and over its focus (only the lines naming the subject: a grief aside in a list of
chores), from the same pass, and the focus raises the score when it is higher
(``focus_weight``). Every pair carries its evidence:
the mention as written, the rule's cue, the lexical, vector and combined scores
and the labelled example it resembles most.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from lucasrag.vocabulary import DeferenceSubject
from lucasrag_assets.rules.charged import canonical_name, charging_evidence

from .features import SUBJECT_TOKEN, cosine, featurise
from .mentions import SubjectContext, name_pattern, resolve_all
from .model import CareModel, Exemplar, shipped_model
from .vectors import SpanEmbed

#: A pair at least this similar to a vault chunk marked charged for the subject is at least uncertain.
VAULT_EXAMPLE_SIMILARITY = 0.5

WITHHELD_OUTCOMES = ("charged", "uncertain")


@dataclass(frozen=True)
class CareAssessment:
    subject: str
    outcome: str  # charged | uncertain | neutral
    confidence: float  # probability of the outcome (1.0 for a person's decision)
    source: str  # declared | dismissed | inferred
    mention: str | None = None  # the first mention as written
    rule_cue: str | None = None  # "cue (why)" from rules/charged.py, if any
    score: float | None = None  # the classifier's probability of charged (the one the outcome is cut from)
    nearest: str | None = None  # the labelled example it resembles most (corpus family or vault path)
    lexical_score: float | None = None  # the lexical model alone
    vector_score: float | None = None  # the vector model alone (None: no usable vector)
    vector_view: str | None = None  # "span" (the sentences about the subject) | "chunk" (see ``vectors``)
    prototype: str | None = None  # the charged situation description the pair lies nearest (``prototypes``)

    @property
    def withheld(self) -> bool:
        return self.outcome in WITHHELD_OUTCOMES

    def to_dict(self) -> dict:
        return asdict(self)


def masked_context(context: SubjectContext, subject: DeferenceSubject, *, focus: bool = False) -> str:
    """The sentences about the subject (``focus``: only those naming it or referring back) with each name
    mention replaced by one placeholder token."""
    return name_pattern(subject.names).sub(SUBJECT_TOKEN, context.focus_text if focus else context.text)


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


def assess_chunk(
    text: str,
    subjects: Sequence[DeferenceSubject],
    *,
    declared: Sequence[str] = (),
    dismissed: Collection[str] = (),
    vault_examples: dict[str, list[Exemplar]] | None = None,
    model: CareModel | None = None,
    embed: SpanEmbed | None = None,
) -> list[CareAssessment]:
    """One assessment per subject the chunk mentions or the note declares, sorted by subject.

    ``declared`` are the note's ``charged:`` names; ``dismissed`` the canonical names
    a person dismissed for this note; ``vault_examples`` maps a canonical subject to
    vectors of chunks the person marked charged for it. ``embed`` (a
    ``vectors.SpanEmbed``: one forward pass over ``text``) runs the embedding
    model the vector weights were trained on (the caller checks which model, see
    ``vectors.vector_warning``); without it the lexical evidence decides alone.
    """
    model = model or shipped_model()
    by_name = {s.name: s for s in subjects}
    declared_names = {canonical_name(d, subjects) for d in declared if d and d.strip()}
    dismissed_folded = {d.casefold() for d in dismissed}
    found: dict[str, CareAssessment] = {n: CareAssessment(n, "charged", 1.0, "declared") for n in declared_names}
    contexts = resolve_all(text, subjects)
    inferred = [c for c in contexts if c.subject not in declared_names]
    vector_model = model.vector if model.vector is not None and embed is not None and inferred else None
    pair_vectors: dict[str, tuple[np.ndarray, str]] = {}
    pooled = None
    focus_vectors: dict[str, np.ndarray] = {}
    if vector_model is not None:  # one pass: every pair's context and focus spans
        pooled, spans = embed(text, [c.spans for c in inferred] + [c.focus_spans for c in inferred])
        for c, v, f in zip(inferred, spans, spans[len(inferred) :]):
            pair_vectors[c.subject] = (v, "span") if v is not None else (pooled, "chunk")
            focus_vectors[c.subject] = f if f is not None else pair_vectors[c.subject][0]
    for context in contexts:
        name, mention = context.subject, context.mentions[0]
        if name in declared_names:
            found[name] = CareAssessment(name, "charged", 1.0, "declared", mention)
            continue
        vec, cue = vectorise(text, by_name[name], context)
        focus_vec = vectorise(text, by_name[name], context, focus=True)[0]
        p_lexical = model.probability(vec)
        p = model.focused_probability(vec, focus_vec)
        p_vector = prototype = None
        examples = (vault_examples or {}).get(name, [])
        near, sim = _nearest(vec, [*examples, *model.exemplars])
        nearest = f"{near.label}: {near.name} (similarity {sim:.2f})" if near is not None else None
        pair_vector, view = pair_vectors.get(name, (None, None))
        if vector_model is not None and vector_model.usable(pair_vector):
            p_vector = vector_model.vector_probability(pair_vector)
            focus = (model.probability(focus_vec), focus_vectors.get(name, pair_vector))
            p = vector_model.probability(p_lexical, pair_vector, pooled, focus)
            outcome = vector_model.outcome(p)
            if vector_model.prototypes is not None:
                text_of, psim = vector_model.prototypes.nearest(pair_vector)
                prototype = f"{text_of} (similarity {psim:.2f})"
            centroid, vsim = vector_model.nearest(pair_vector)
            vault_near, vault_sim = _nearest(vec, examples)
            if centroid is not None and not (vault_near and vault_sim >= VAULT_EXAMPLE_SIMILARITY):
                nearest = f"{centroid.label}: {centroid.name} (vector similarity {vsim:.2f})"
        else:
            outcome, view = model.outcome(p), None
        if outcome == "neutral" and examples and _nearest(vec, examples)[1] >= VAULT_EXAMPLE_SIMILARITY:
            outcome = "uncertain"  # resembles what the person marked charged for this subject
        if name.casefold() in dismissed_folded:
            found[name] = CareAssessment(name, "neutral", 1.0, "dismissed", mention, cue, round(p, 4))
            continue
        confidence = p if outcome == "charged" else 1 - p if outcome == "neutral" else max(p, 1 - p)
        found[name] = CareAssessment(
            name,
            outcome,
            round(confidence, 4),
            "inferred",
            mention,
            cue,
            round(p, 4),
            nearest,
            round(p_lexical, 4),
            None if p_vector is None else round(p_vector, 4),
            view,
            prototype,
        )
    return [found[n] for n in sorted(found, key=str.casefold)]


def vault_examples(
    chunks: Iterable[tuple[str, str, Sequence[str]]], subjects: Sequence[DeferenceSubject]
) -> dict[str, list[Exemplar]]:
    """Labelled examples from the vault: ``(path, chunk text, declared charged)`` → per subject,
    the vectors of chunks that mention a subject their note marks ``charged:``."""
    by_name = {s.name: s for s in subjects}
    out: dict[str, list[Exemplar]] = {}
    for path, text, declared in chunks:
        names = {canonical_name(d, subjects) for d in declared if d and d.strip()} & set(by_name)
        for context in resolve_all(text, [by_name[n] for n in sorted(names)]):
            vec, _ = vectorise(text, by_name[context.subject], context)
            out.setdefault(context.subject, []).append(Exemplar("charged", path, vec))
    return out


def withheld_subjects(assessments: Sequence[CareAssessment]) -> tuple[str, ...]:
    """The subjects a chunk is withheld for: charged or uncertain."""
    return tuple(a.subject for a in assessments if a.withheld)
