"""The structural entity extractor, table by table (pure functions, no index)."""

from __future__ import annotations

import pytest

from lucasrag.entities import (
    ALIAS_OF,
    CO_OCCURS,
    LINKS_TO,
    SECTION,
    TAGGED,
    entity_fragment,
    extract_chunk,
    link_target,
    mention_positions,
    note_meta,
    query_terms,
    recognise_names,
    relation_fragment,
    relation_weight,
)

# --- the recogniser -----------------------------------------------------------------------

NAMES = [
    # (text, expected name → type; names that must NOT be found)
    ("Our landlady, Dona Fátima, showed me how the heater works.", {"Dona Fátima": "person"}, ["Our"]),
    ("The flat on Rua das Flores is at the top of four flights.", {"Rua das Flores": "place"}, ["The", "Rua"]),
    (
        "Three weeks into working at Tessellate from Manchester.",
        {"Tessellate": "organization", "Manchester": "place"},
        ["Three"],
    ),
    ("Grandad's funeral was at St Mary's in Haxby this morning.", {"Haxby": "place"}, ["Grandad"]),
    ("Rang Mum on the walk home.", {"Mum": "person"}, ["Rang Mum", "Rang"]),
    ("Family: my sister Ellie is in Bristol.", {"Ellie": "person", "Bristol": "place"}, ["Family"]),
    ("Joaquim, her father: the keeper. Speaks little.", {"Joaquim": "person"}, ["Speaks"]),
    ("Ana (12): narrator. Watchful, stubborn.", {"Ana": "person"}, ["Watchful"]),
    (
        "First day at Brightwire. Lunch at the Tiger Inn.",
        {"Brightwire": "organization", "Tiger Inn": "place"},
        ["First", "Lunch"],
    ),
    ("We met at the Manchester City Council offices.", {"Manchester City Council": "organization"}, []),
    ("I moved to Lisbon in February 2024.", {"Lisbon": "place"}, ["I", "February"]),
    ("Services mostly in Go, with Python workers and Kafka.", {"Python": "concept", "Kafka": "concept"}, ["Services"]),
    ("Paperwork still needed: NIF, NISS and a Portuguese IBAN.", {"NIF": "concept", "NISS": "concept"}, ["Paperwork"]),
    ("Meeting with Tom Hargreaves about the SRE rota.", {"Tom Hargreaves": "person"}, ["Meeting"]),
    # a single capitalised word at a sentence start counts only if repeated or used mid-sentence
    ("Rosa laughed. Later the captain, Rosa, steered home.", {"Rosa": "person"}, ["Later"]),
    ("Coffee costs less than a euro here.", {}, ["Coffee"]),
    # several title-case words at a sentence start are a name; days, months and "I" never are
    ("Tom Hargreaves joined on Monday.", {"Tom Hargreaves": "concept"}, ["Monday"]),
    ("On Tuesday in May I cycled.", {}, ["Tuesday", "May", "I", "On Tuesday"]),
]


@pytest.mark.parametrize("text,expected,absent", NAMES, ids=[t[:32] for t, _, _ in NAMES])
def test_recogniser_finds_names_and_types(text, expected, absent):
    found = {n.name: n.type for n in recognise_names(text)}
    for name, type_ in expected.items():
        assert name in found, f"{name!r} not found in {found}"
        assert found[name] == type_, f"{name!r}: {found[name]} (expected {type_})"
    for name in absent:
        assert name not in found, f"{name!r} should not be a name ({found})"


def test_known_names_count_even_at_a_sentence_start():
    assert recognise_names("Miso slept all day.") == []
    assert [n.name for n in recognise_names("Miso slept all day.", known={"Miso"})] == ["Miso"]


def test_markup_never_becomes_a_name():
    text = "```\nSELECT Name FROM Users\n```\nSee `Foo Bar` at https://Example.com/Path and **Lisbon** trips to Porto."
    names = {n.name for n in recognise_names(text)}
    assert names == {"Lisbon", "Porto"}


# --- frontmatter --------------------------------------------------------------------------

META = [
    ({"tags": ["Tessellate", "#platform"]}, "tags", ("#tessellate", "#platform")),
    ({"tags": "pension, finances"}, "tags", ("#pension", "#finances")),
    ({"aliases": ["El", "my sister"]}, "aliases", ("El", "my sister")),
    ({"alias": "Ellie B"}, "aliases", ("Ellie B",)),
    (
        {"people": ["[[Rosa Mendes]]", "Tom"], "with": "Ana, Joana"},
        "people",
        (("Rosa Mendes", "people"), ("Tom", "people"), ("Ana", "with"), ("Joana", "with")),
    ),
    (
        {"attendees": ["[[people/Inês|Inês P]]"], "author": "Lucas"},
        "people",
        (("Inês", "attendees"), ("Lucas", "author")),
    ),
    ({"people": 42, "aliases": {"bad": 1}}, "people", ()),
]


@pytest.mark.parametrize("frontmatter,field,expected", META, ids=[str(m[0])[:40] for m in META])
def test_note_meta_reads_frontmatter_leniently(frontmatter, field, expected):
    meta = note_meta("notes/x.md", frontmatter)
    assert getattr(meta, field) == expected


def test_note_meta_title_is_an_alias_unless_it_is_the_file_name():
    assert note_meta("a/facts.md", {}, title="Facts about me").aliases == ("Facts about me",)
    assert note_meta("a/facts.md", {}, title="Facts").aliases == ()


@pytest.mark.parametrize(
    "raw,target",
    [
        ("Target", "Target"),
        ("folder/Target", "Target"),
        ("folder/Target.md", "Target"),
        (" Target ", "Target"),
    ],
)
def test_link_target(raw, target):
    assert link_target(raw) == target


# --- a chunk's graph ----------------------------------------------------------------------

CHUNK = """# Week one

Met [[Inês Duarte|Inês]] and Tom Hargreaves in the Lisbon office. See [[tech/tessellate-onboarding#Stack]]
and ![[diagram.png]]. Tom Hargreaves said he runs the on-call rota. #oncall

## Billing migration

Nothing else today."""


def _graph():
    meta = note_meta("journal/2026-01-05 week one.md", {"tags": ["work"], "people": ["Rosa"], "aliases": ["W1"]})
    return extract_chunk(CHUNK, meta)


ENTITIES = [
    ("2026-01-05 week one", "note"),
    ("#work", "tag"),
    ("#oncall", "tag"),
    ("Rosa", "person"),
    ("W1", "note"),
    ("Inês Duarte", "note"),
    ("tessellate-onboarding", "note"),
    ("Tom Hargreaves", "person"),
    ("Lisbon", "concept"),
    ("Billing migration", "concept"),
]


@pytest.mark.parametrize("name,type_", ENTITIES)
def test_chunk_entities(name, type_):
    entity = _graph().entity(name)
    assert entity is not None, f"{name!r} missing: {[e.name for e in _graph().entities]}"
    assert entity.type == type_
    assert entity.description


def test_attachments_and_bare_words_are_not_entities():
    names = {e.name for e in _graph().entities}
    assert "diagram.png" not in names and "diagram" not in names
    assert "Nothing" not in names and "Met" not in names


RELATIONS = [
    ("2026-01-05 week one", "Inês Duarte", LINKS_TO),
    ("2026-01-05 week one", "tessellate-onboarding", LINKS_TO),
    ("2026-01-05 week one", "#work", TAGGED),
    ("2026-01-05 week one", "#oncall", TAGGED),
    ("2026-01-05 week one", "W1", ALIAS_OF),
    ("2026-01-05 week one", "Rosa", "people"),
    ("2026-01-05 week one", "Billing migration", SECTION),
    ("Inês Duarte", "Tom Hargreaves", CO_OCCURS),
    ("Tom Hargreaves", "Lisbon", CO_OCCURS),
]


@pytest.mark.parametrize("a,b,keyword", RELATIONS)
def test_chunk_relations(a, b, keyword):
    relation = _graph().relation(a, b)
    assert relation is not None, f"{a} – {b} missing"
    assert keyword in relation.keywords
    assert 1.0 <= relation.weight <= 2.0
    assert relation.description


def test_relation_endpoints_are_entities_of_the_chunk():
    g = _graph()
    names = {e.name for e in g.entities}
    for r in g.relations:
        assert r.source in names and r.target in names and r.source != r.target


def test_co_occurrence_is_weighted_by_proximity():
    text = (
        "That night Ana met Rosa at the harbour. "
        + "Nothing happened for a very long while after that. " * 3
        + "Then Joaquim."
    )
    g = extract_chunk(text, note_meta("w/story.md"))
    close, far = g.relation("Ana", "Rosa"), g.relation("Ana", "Joaquim")
    assert close is not None and far is not None
    assert close.weight > far.weight
    text_far = text + " " + "word " * 60 + "Pedro arrived."
    assert extract_chunk(text_far, note_meta("w/story.md")).relation("Ana", "Pedro") is None  # beyond the window


def test_descriptions_quote_the_connecting_sentence():
    g = _graph()
    assert g.entity("Tom Hargreaves").description == "Met Inês and Tom Hargreaves in the Lisbon office."
    assert "Lisbon office" in g.relation("Tom Hargreaves", "Lisbon").description
    assert g.relation("2026-01-05 week one", "#work").description == "Note '2026-01-05 week one' is tagged #work"


# --- fragments and weights are pure functions of (names, chunk text, path) ---------------


@pytest.mark.parametrize(
    "name,expected",
    [
        ("Tom Hargreaves", "Met Inês and Tom Hargreaves in the Lisbon office."),
        ("#oncall", "Tom Hargreaves said he runs the on-call rota."),
        ("Inês Duarte", "Met Inês and Tom Hargreaves in the Lisbon office."),
        ("#work", "Tag #work on note '2026-01-05 week one'"),
        ("Rosa", "Named in note '2026-01-05 week one'"),
    ],
)
def test_entity_fragment(name, expected):
    assert entity_fragment(name, CHUNK, "journal/2026-01-05 week one.md").startswith(expected)


def test_fragments_and_weights_are_what_extraction_wrote():
    g, path = _graph(), "journal/2026-01-05 week one.md"
    for e in g.entities:
        assert e.description == entity_fragment(e.name, CHUNK, path)
    for r in g.relations:
        assert r.weight == relation_weight(r.source, r.target, CHUNK, path)
        assert r.description == relation_fragment(r.source, r.target, CHUNK, path)


def test_link_mentions_sit_where_the_display_text_is():
    assert mention_positions("Call [[ellie|my sister]] tonight.", "ellie") == [1]
    assert relation_weight("note", "ellie", "Call [[ellie|my sister]] tonight.", "j/note.md") == 2.0


# --- queries ------------------------------------------------------------------------------

QUERIES = [
    ("Who is Rosa?", ["Rosa"], ["rosa"]),
    ("what did Tom Hargreaves say about the rota", ["Tom Hargreaves"], ["tom", "hargreaves", "rota"]),
    ("notes tagged #oncall", ["#oncall"], ["tagged"]),
    ("see [[facts]]", ["facts"], ["facts"]),
    ('the "lighthouse keeper" story', ["lighthouse keeper"], ["lighthouse", "keeper", "story"]),
    ("where does ellie live", [], ["ellie", "live"]),
]


@pytest.mark.parametrize("text,names,words", QUERIES)
def test_query_terms(text, names, words):
    terms = query_terms(text)
    assert list(terms.names) == names
    assert list(terms.words) == words


def test_query_candidates_cover_spellings_of_a_name():
    cands = query_terms("where does ellie live").candidates
    assert {"Ellie", "ellie", "#ellie", "where does ellie live"} <= set(cands)


def test_links_whose_brackets_indexing_removed_still_link():
    from lucasrag.entities import extract_chunk, note_meta

    meta = note_meta("writing/draft.md", links=["characters - the lighthouse keeper", "Nowhere"])
    graph = extract_chunk("Character notes are in characters - the lighthouse keeper.", meta)
    relation = graph.relation("draft", "characters - the lighthouse keeper")
    assert relation is not None and LINKS_TO in relation.keywords
    assert graph.entity("Nowhere") is None  # a link this chunk does not name is not this chunk's
