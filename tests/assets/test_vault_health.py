"""Saying when most of a vault is unsearchable (lucasrag/vault_health.py)."""

import pytest

from lucasrag.vault_health import likely_fix, reason_group, unsearchable_warning, vault_health

GROUPS = [
    pytest.param("low confidence: best guess personal at 0.31 < threshold 0.50", "low confidence", id="router"),
    pytest.param("too little content to route (3 meaningful words, need 5)", "too little content to route", id="thin"),
    pytest.param(
        "malformed frontmatter: YAML error at line 3: found unhashable key", "malformed frontmatter", id="yaml"
    ),
    pytest.param("not UTF-8: invalid byte 0xE9 at offset 3 (re-save the file as UTF-8)", "not UTF-8", id="utf8"),
    pytest.param("bad workspace 'work': expected one of technical", "bad workspace …", id="quoted-value-hidden"),
    pytest.param(
        "skipped: templates folder 'Templates' (from .obsidian/templates.json 'folder')", "templates folder …", id="tpl"
    ),
    pytest.param(
        "file is 1.2 MiB, over the 1.0 MiB cap (LUCASRAG_MAX_NOTE_BYTES)",
        "file is N MiB, over the N MiB cap",
        id="size",
    ),
    pytest.param(
        "content-free: a web clipping of a page that failed to load (its title starts 'Not found.')",
        "content-free",
        id="failed-clipping",
    ),
    pytest.param(None, "no reason given", id="none"),
]


@pytest.mark.parametrize("reason, group", GROUPS)
def test_reason_group(reason, group):
    assert reason_group(reason) == group


def _rows(indexed=0, invalid=0, quarantined=0, skipped=0):
    rows = [(f"ok{i}.md", "indexed", None) for i in range(indexed)]
    rows += [(f"bad{i}.md", "invalid", f"malformed frontmatter: YAML error at line {i}") for i in range(invalid)]
    rows += [(f"q{i}.md", "quarantined", f"low confidence: best guess x at 0.{i}") for i in range(quarantined)]
    rows += [(f"Templates/t{i}.md", "skipped", "skipped: templates folder 'Templates'") for i in range(skipped)]
    return rows


WARN = [
    pytest.param(_rows(indexed=75, invalid=25), None, id="a-quarter-is-fine"),
    pytest.param(_rows(indexed=74, invalid=26), "malformed frontmatter", id="over-a-quarter-invalid"),
    pytest.param(_rows(indexed=10, quarantined=30), "lucasrag quarantine approve", id="mostly-quarantined"),
    pytest.param(_rows(indexed=0, invalid=5), "fix the YAML", id="fully-invalid"),
    pytest.param(_rows(indexed=10, skipped=90), None, id="skipped-templates-do-not-count"),
    pytest.param(
        [("ok.md", "indexed", None)]
        + [(f"c{i}.md", "quarantined", "content-free: a web clipping of …") for i in range(3)],
        "clip the article again",
        id="mostly-failed-clippings",
    ),
    pytest.param([], None, id="empty-vault"),
]


@pytest.mark.parametrize("rows, fragment", WARN)
def test_unsearchable_warning(rows, fragment):
    warning = unsearchable_warning(vault_health(rows))
    if fragment is None:
        assert warning is None
    else:
        assert warning and fragment in warning
        assert ".md" not in warning  # counts and causes, never a note's name or text


def test_groups_count_and_keep_a_few_examples():
    health = vault_health(_rows(indexed=2, invalid=7, quarantined=1))
    top = health.groups[0]
    assert (top.status, top.reason, top.count) == ("invalid", "malformed frontmatter", 7)
    assert len(top.examples) == 3
    assert health.counts == {"indexed": 2, "invalid": 7, "quarantined": 1}
    assert "YAML" in likely_fix(top)
