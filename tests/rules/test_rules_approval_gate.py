"""Approval means approval: which approvals and moves are allowed, and what the refusal says."""

import pytest

from lucasrag_assets.rules.approval_checks import (
    ApprovalRefused,
    check_approve,
    describe_move,
    did_you_mean,
    has_tag,
    quarantined_under,
    select_quarantined,
)

INDEXED = {"path": "journal/2013-04-02.md", "status": "indexed", "workspace": "personal", "confidence": 0.94}
HELD = {"path": "inbox/x.md", "status": "quarantined", "workspace": None, "suggestion": "technical", "reason": "low"}
BAD = {"path": "inbox/binary.md", "status": "invalid", "workspace": None, "reason": "binary content (NUL byte)"}

APPROVALS = [
    pytest.param(HELD, "ok", None, "technical", None, None, id="quarantined-now"),
    pytest.param(HELD, "ok", None, "technical", "technical", None, id="already-approved-same"),
    pytest.param(
        INDEXED, "ok", None, "administrative", None,
        ["not quarantined", "indexed in personal", "routed at confidence 0.94", "lucasrag route journal/2013-04-02.md"],
        id="routed-note-names-status-and-route-command",
    ),
    pytest.param(
        INDEXED, "ok", None, "technical", "personal", ["workspace: in its frontmatter"], id="labelled-note-says-so"
    ),
    pytest.param(BAD, "invalid", "binary content (NUL byte)", "personal", None,
                 ["is invalid (binary content (NUL byte))", "never writes"], id="invalid-gives-its-reason"),
    pytest.param(HELD, "invalid", "empty file (0 bytes)", "personal", None, ["empty file"], id="invalid-since-ingest"),
    pytest.param(None, "ok", None, "personal", None, ["not in the last ingest", "lucasrag ingest"], id="new-file"),
    pytest.param(BAD, "ok", None, "personal", None, ["was invalid", "lucasrag ingest"], id="fixed-since-ingest"),
    pytest.param(HELD, "ok", None, "personal", "creative", ["already approved into creative", "lucasrag route"],
                 id="changing-an-approval-is-a-move"),
]  # fmt: skip


@pytest.mark.parametrize("row, status_now, reason_now, workspace, declared, refusal", APPROVALS)
def test_check_approve(row, status_now, reason_now, workspace, declared, refusal):
    path = row["path"] if row else "inbox/new.md"
    if refusal is None:
        check_approve(path, row, status_now, reason_now, workspace, declared)
        return
    with pytest.raises(ApprovalRefused) as caught:
        check_approve(path, row, status_now, reason_now, workspace, declared)
    for part in refusal:
        assert part in str(caught.value)


MOVES = [
    pytest.param(INDEXED, "ok", None, None, "administrative", "indexed in personal (routed at confidence 0.94) → administrative", id="routed"),
    pytest.param(HELD, "ok", None, None, "creative", "quarantined (suggestion technical: low) → creative", id="quarantined"),
    pytest.param(INDEXED, "ok", None, "personal", "personal", "nothing to change", id="already-there"),
    pytest.param(INDEXED, "ok", None, None, "personal",
                 "is already indexed in personal (routed at confidence 0.94): nothing to change", id="routed-there"),
    pytest.param(INDEXED, "ok", None, "technical", "personal", "→ personal (recorded as", id="relabelled-since"),
]  # fmt: skip


@pytest.mark.parametrize("row, status_now, reason_now, declared, workspace, says", MOVES)
def test_describe_move(row, status_now, reason_now, declared, workspace, says):
    assert says in describe_move(row["path"], row, status_now, reason_now, workspace, declared)


@pytest.mark.parametrize(
    "row, status_now, workspace, message",
    [
        pytest.param(BAD, "invalid", "personal", "never writes", id="invalid"),
        pytest.param(INDEXED, "ok", "kitchen", "unknown workspace", id="unknown-workspace"),
        pytest.param(None, "ok", "personal", "run `lucasrag ingest` first", id="not-ingested"),
    ],
)
def test_describe_move_refuses(row, status_now, workspace, message):
    with pytest.raises(ValueError, match=message):
        describe_move("inbox/binary.md", row, status_now, "binary", workspace)


KNOWN = ["inbox/ideas.md", "inbox/todo.md", "inbox/binary.md", "journal/2013-04-02.md", "writing/ideas for a novel.md"]


@pytest.mark.parametrize(
    "typo, hint",
    [
        pytest.param("inbox/idea.md", " (did you mean 'inbox/ideas.md'?)", id="readme-typo"),
        pytest.param("journal/2013-4-02.md", " (did you mean 'journal/2013-04-02.md'?)", id="date-typo"),
        pytest.param("todo.md", " (did you mean 'inbox/todo.md'?)", id="right-name-wrong-folder"),
        pytest.param("admin/taxes.md", "", id="nothing-close"),
    ],
)
def test_did_you_mean(typo, hint):
    assert did_you_mean(typo, KNOWN) == hint


ROWS = [
    {"path": "inbox/a.md", "status": "quarantined"},
    {"path": "inbox/sub/b.md", "status": "quarantined"},
    {"path": "inbox/c.md", "status": "indexed"},
    {"path": "inboxes/d.md", "status": "quarantined"},
]


@pytest.mark.parametrize(
    "folder, expected",
    [
        pytest.param("inbox", ["inbox/a.md", "inbox/sub/b.md"], id="folder-and-below-only-quarantined"),
        pytest.param("inbox/", ["inbox/a.md", "inbox/sub/b.md"], id="trailing-slash"),
        pytest.param("inbox/sub", ["inbox/sub/b.md"], id="subfolder"),
        pytest.param("", ["inbox/a.md", "inbox/sub/b.md", "inboxes/d.md"], id="whole-vault"),
    ],
)
def test_quarantined_under(folder, expected):
    assert quarantined_under(folder, ROWS) == expected


@pytest.mark.parametrize("folder", ["../elsewhere", "/etc"])
def test_quarantined_under_refuses_outside(folder):
    with pytest.raises(ApprovalRefused, match="not a folder inside the vault"):
        quarantined_under(folder, ROWS)


@pytest.mark.parametrize(
    "tags, wanted, expected",
    [
        (["garden"], "garden", True),
        (["Garden/Seedling"], "garden", True),
        (["#garden"], "#GARDEN", True),
        (["gardening"], "garden", False),
        (["area/garden"], "garden", False),
        ([], "garden", False),
    ],
)
def test_has_tag(tags, wanted, expected):
    assert has_tag(tags, wanted) is expected


PICK = [
    {"path": "garden/a.md", "status": "quarantined", "suggestion": "personal"},
    {"path": "garden/b.md", "status": "quarantined", "suggestion": "technical"},
    {"path": "garden/c.md", "status": "indexed", "suggestion": "personal"},
    {"path": "inbox/d.md", "status": "quarantined", "suggestion": "personal"},
]
TAGS = {"garden/a.md": ["seedling"], "garden/b.md": ["seedling/x"], "inbox/d.md": ["todo"]}
NEAR = {"garden/a.md": 0.62, "garden/b.md": 0.38, "inbox/d.md": 0.41}


@pytest.mark.parametrize(
    "kwargs, expected",
    [
        pytest.param({"folder": "garden"}, ["garden/a.md", "garden/b.md"], id="folder"),
        pytest.param({"tag": "seedling", "tags_of": TAGS}, ["garden/a.md", "garden/b.md"], id="tag-and-nested"),
        pytest.param({"similarity": NEAR}, ["garden/a.md", "inbox/d.md"], id="like-at-the-default-cut"),
        pytest.param({"similarity": NEAR, "min_similarity": 0.6}, ["garden/a.md"], id="like-stricter"),
        pytest.param({"suggested": "personal"}, ["garden/a.md", "inbox/d.md"], id="suggested"),
        pytest.param(
            {"folder": "garden", "tag": "seedling", "tags_of": TAGS, "suggested": "technical"},
            ["garden/b.md"],
            id="every-condition-holds",
        ),
        pytest.param({"tag": "todo", "tags_of": TAGS, "folder": "garden"}, [], id="none-left"),
    ],
)
def test_select_quarantined(kwargs, expected):
    assert select_quarantined(PICK, **kwargs) == expected
