"""Reviews converge (rules/routing/stability.py): an unchanged indexed note keeps its workspace whatever the
router learned since; a changed note, a person's move or a rule change is routed afresh."""

import polars as pl
import pytest

from lucasrag_assets.rules.routing.stability import keep_placed

RULE = "folder rule 'Work/' → technical (routing.yaml)"


def _decided(workspace, confidence, reason, content_hash="h1", declared=None):
    return pl.DataFrame(
        [
            {
                "path": "a.md",
                "workspace": workspace,
                "suggestion": workspace or "personal",
                "confidence": confidence,
                "route_reason": reason,
                "content_hash": content_hash,
                "declared_workspace": declared,
            }
        ]
    )


def _before(status="indexed", workspace="personal", reason="routed to personal at 0.81", declared=None):
    catalog = pl.DataFrame([{"path": "a.md", "status": status, "workspace": workspace, "confidence": 0.81}])
    state = pl.DataFrame(
        [{"path": "a.md", "content_hash": "h1", "declared_workspace": declared, "route_reason": reason}]
    )
    return catalog, state


CASES = [
    # (decided now, before) → (workspace, confidence, reason starts with)
    pytest.param(
        _decided(None, 0.44, "low confidence: best guess personal at 0.44 < threshold 0.50"),
        _before(),
        ("personal", 0.81, "kept in personal: unchanged since the last ingest; the router would now quarantine it"),
        id="router-would-quarantine-an-unchanged-note",
    ),
    pytest.param(
        _decided("creative", 0.7, "routed to creative at 0.70"),
        _before(),
        (
            "personal",
            0.81,
            "kept in personal: unchanged since the last ingest; the router would now place it in creative",
        ),
        id="router-would-move-an-unchanged-note",
    ),
    pytest.param(
        _decided("personal", 0.9, "routed to personal at 0.90"),
        _before(),
        ("personal", 0.9, "routed to personal"),
        id="same-place-nothing-to-keep",
    ),
    pytest.param(
        _decided(None, 0.44, "low confidence", content_hash="h2"),
        _before(),
        (None, 0.44, "low confidence"),
        id="edited-note-is-routed-afresh",
    ),
    pytest.param(
        _decided("technical", 1.0, "workspace: in its frontmatter", declared="technical"),
        _before(),
        ("technical", 1.0, "workspace: in its frontmatter"),
        id="a-persons-move-wins",
    ),
    pytest.param(
        _decided("technical", 1.0, RULE),
        _before(),
        ("technical", 1.0, RULE),
        id="a-new-routing-rule-wins",
    ),
    pytest.param(
        _decided("personal", 0.6, "routed to personal at 0.60"),
        _before(status="quarantined", workspace=None),
        ("personal", 0.6, "routed to personal"),
        id="a-held-note-may-be-placed-by-learning",
    ),
]


@pytest.mark.parametrize("decided, before, expected", CASES)
def test_keep_placed(decided, before, expected):
    row = keep_placed(decided, *before).row(0, named=True)
    assert (row["workspace"], row["confidence"]) == expected[:2]
    assert row["route_reason"].startswith(expected[2]), row["route_reason"]


def test_first_ingest_has_nothing_to_keep():
    decided = _decided(None, 0.4, "low confidence")
    assert keep_placed(decided, None, None).equals(decided)
