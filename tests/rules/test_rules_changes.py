"""No silent moves: every status/workspace/band change between two ingests, with its reason."""

import polars as pl
import pytest

from lucasrag.catalog import STATE_SCHEMA
from lucasrag_assets.rules.changes import ROUTER_LEARNING, _candidates, note_changes

CAT = {"path": pl.String, "status": pl.String, "workspace": pl.String, "band": pl.String, "reason": pl.String}


def catalog(*rows):
    return pl.DataFrame([dict(zip(CAT, r)) for r in rows], schema=CAT)


def inputs(*rows):
    return pl.DataFrame([dict(zip(STATE_SCHEMA, r)) for r in rows], schema=STATE_SCHEMA)


P = "journal/2018-03-17.md"
ROUTED = (P, "indexed", "personal", "archival", None)
IN = (P, "h1", None, "content routed to personal at 0.50", "date")

CASES = [
    pytest.param(
        ROUTED, IN, (P, "indexed", "administrative", "archival", None), IN, {},
        [("workspace", "personal", "administrative", ROUTER_LEARNING)],
        id="unchanged-note-moved-by-others-is-router-learning",
    ),
    pytest.param(
        ROUTED, IN, (P, "indexed", "administrative", "archival", None), (P, "h1", "administrative", "x", "date"),
        {P: ("administrative", "approve")},
        [("workspace", "personal", "administrative", "approval (lucasrag quarantine approve)")], id="approval",
    ),
    pytest.param(
        ROUTED, IN, (P, "indexed", "administrative", "archival", None), (P, "h1", "administrative", "x", "date"),
        {P: ("administrative", "route")},
        [("workspace", "personal", "administrative", "explicit move (lucasrag route)")], id="explicit-move",
    ),
    pytest.param(
        ROUTED, IN, (P, "indexed", "creative", "archival", None), (P, "h1", "creative", "x", "date"), {},
        [("workspace", "personal", "creative", "frontmatter: workspace unset → creative")], id="person-edited-key",
    ),
    pytest.param(
        ROUTED, IN, (P, "quarantined", None, None, "low"), (P, "h2", None, "low confidence", None), {},
        [("status", "indexed in personal", "quarantined", "note edited")], id="edited-into-quarantine",
    ),
    pytest.param(
        ROUTED, IN, (P, "indexed", "technical", "archival", None),
        (P, "h1", None, "folder rule journal/ → technical (routing.yaml)", "date"), {},
        [("workspace", "personal", "technical", "routing rule: folder rule journal/ → technical (routing.yaml)")],
        id="routing-rule",
    ),
    pytest.param(
        ROUTED, IN, (P, "indexed", "personal", "present", None), IN, {},
        [("band", "archival", "present", "archive cutoff moved (a new 'now': LUCASRAG_NOW or today)")],
        id="band-by-date-cutoff",
    ),
    pytest.param(
        ROUTED, IN, (P, "indexed", "personal", "present", None), (P, "h1", None, "x", "frontmatter"), {},
        [("band", "archival", "present", "band rule: date → frontmatter")], id="band-rule-changed",
    ),
    pytest.param(
        ROUTED, IN, (P, "invalid", None, None, "not UTF-8"), (P, "h3", None, None, None), {},
        [("status", "indexed in personal", "invalid", "file became invalid: not UTF-8")], id="became-invalid",
    ),
    pytest.param(ROUTED, IN, None, None, {}, [("status", "indexed in personal", "removed", "file removed from the vault")],
                 id="removed"),
    pytest.param(ROUTED, IN, ROUTED, IN, {}, [], id="nothing-changed"),
]  # fmt: skip


@pytest.mark.parametrize("old, old_in, new, new_in, decisions, expected", CASES)
def test_note_changes(old, old_in, new, new_in, decisions, expected):
    got = note_changes(
        catalog(old), catalog(new) if new else catalog(), inputs(old_in), inputs(new_in) if new_in else inputs(),
        decisions,
    )  # fmt: skip
    assert [(r["field"], r["old"], r["new"], r["reason"]) for r in got.to_dicts()] == expected
    assert set(got["path"]) <= {P}


def test_new_notes_are_not_changes_and_first_run_lists_nothing():
    new = catalog(ROUTED, ("inbox/new.md", "quarantined", None, None, "low"))
    assert note_changes(catalog(ROUTED), new, inputs(IN), inputs(IN)).is_empty()
    assert note_changes(None, new, None, inputs(IN)).is_empty()


def test_missing_previous_inputs_say_so():
    moved = catalog((P, "indexed", "creative", "archival", None))
    (row,) = note_changes(catalog(ROUTED), moved, None, inputs(IN)).to_dicts()
    assert row["reason"].startswith("unknown: no record")


def test_fields_restrict_what_is_reported():
    moved = catalog((P, "indexed", "creative", "present", None))
    got = note_changes(catalog(ROUTED), moved, inputs(IN), inputs(IN), fields=("status", "workspace"))
    assert got["field"].to_list() == ["workspace"]


def test_only_the_fields_asked_for_make_a_note_a_candidate():
    """Routing's check has no band: a catalogue without one must not make every note a candidate (each
    candidate is read row by row: at 20,000 notes that was 0.75 s of every one-note change)."""
    others = [(f"journal/2018-03-{d:02}.md", "indexed", "personal", "archival", None) for d in range(18, 28)]
    old = catalog(ROUTED, *others)
    routed = catalog((P, "indexed", "creative", None, None), *[(p, s, w, None, r) for p, s, w, _, r in others])
    assert _candidates(old, routed, ("status", "workspace")).to_list() == [P]
    assert len(_candidates(old, routed, ("status", "workspace", "band"))) == 11


CARE_CAT = {
    **CAT,
    "charged": pl.List(pl.String),
    "care": pl.List(pl.Struct({"subject": pl.String, "source": pl.String})),
}


def care_catalog(charged, source):
    row = {"path": P, "status": "indexed", "workspace": "personal", "band": "present", "reason": None}
    care = [{"subject": "Grandad Tom", "source": source}] if source else []
    return pl.DataFrame([{**row, "charged": charged, "care": care}], schema=CARE_CAT)


@pytest.mark.parametrize(
    "old, new, new_input, expected",
    [
        pytest.param(
            (["Grandad Tom"], "inferred"),
            ([], "dismissed"),
            IN,
            ("withheld", "Grandad Tom", "none", "care decision"),
            id="a-dismissal-releases",
        ),
        pytest.param(
            (["Grandad Tom"], "inferred"),
            ([], "learned"),
            IN,
            ("withheld", "Grandad Tom", "none", "care learning"),
            id="released-like-a-released-note",
        ),
        pytest.param(
            ([], None),
            (["Grandad Tom"], "inferred"),
            (P, "h2", None, "content routed to personal at 0.50", "date"),
            ("withheld", "none", "Grandad Tom", "note edited"),
            id="an-edit-that-names-the-subject",
        ),
    ],
)
def test_care_changes_are_listed_with_their_reason(old, new, new_input, expected):
    changes = note_changes(care_catalog(*old), care_catalog(*new), inputs(IN), inputs(new_input))
    (row,) = changes.iter_rows(named=True)
    assert (row["field"], row["old"], row["new"]) == expected[:3]
    assert row["reason"].startswith(expected[3])
