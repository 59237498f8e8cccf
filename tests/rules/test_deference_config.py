"""deference.yaml: the per-subject policy and its validation errors (name the file, the subject, the fix)."""

from __future__ import annotations

from datetime import date

import pytest

from lucasrag.deference import DeferenceConfigError, load_deference

VALID = [
    pytest.param(
        "subjects:\n  - name: Grandad Tom\n    aliases: [grandad]\n",
        [("Grandad Tom", ("grandad",), "every-reference", None)],
        id="as-before",
    ),
    pytest.param(
        "subjects:\n  - name: Maya\n    withhold: charged-only\n    since: 2021-03-14\n",
        [("Maya", (), "charged-only", date(2021, 3, 14))],
        id="light-with-date",
    ),
    pytest.param(
        "subjects:\n  - name: Maya\n    since: 2021-03\n",
        [("Maya", (), "every-reference", date(2021, 3, 1))],
        id="month",
    ),
    pytest.param(
        "subjects:\n  - name: Maya\n    since: 2021\n", [("Maya", (), "every-reference", date(2021, 1, 1))], id="year"
    ),
    pytest.param(
        "subjects:\n  - name: Maya\n    aliases: maya r\n",
        [("Maya", ("maya r",), "every-reference", None)],
        id="one-alias",
    ),
    pytest.param("# nothing yet\n", [], id="empty"),
]


@pytest.mark.parametrize("text, expected", VALID)
def test_valid_lists(tmp_path, text, expected):
    (tmp_path / ".lucasrag").mkdir()
    (tmp_path / ".lucasrag" / "deference.yaml").write_text(text, encoding="utf-8")
    assert [(s.name, s.aliases, s.withhold, s.since) for s in load_deference(tmp_path)] == expected


INVALID = [
    pytest.param(
        "subjects:\n  - name: Maya\n    witheld: charged-only\n",
        ["'Maya'", "unknown key 'witheld'", "withhold"],
        id="typo",
    ),
    pytest.param(
        "subjects:\n  - name: Maya\n    withhold: lightly\n",
        ["'Maya'", "every-reference, charged-only"],
        id="bad-policy",
    ),
    pytest.param("subjects:\n  - name: Maya\n    since: last spring\n", ["'Maya'", "2012-10-01"], id="bad-date"),
    pytest.param("subjects:\n  - name: Maya\n    aliases: [1, 2]\n", ["'Maya'", "list of strings"], id="bad-aliases"),
    pytest.param("subjects:\n  - aliases: [x]\n", ["subject #1", "name"], id="no-name"),
    pytest.param(
        "subjects:\n  - name: Mum\n    aliases: [nan]\n  - name: Nana Joan\n    aliases: [Nan]\n",
        ["'Nan'", "'Mum'", "'Nana Joan'"],
        id="one-name-two-subjects",
    ),
    pytest.param("subjects: Maya\n", ["'subjects' must be a list"], id="not-a-list"),
]


@pytest.mark.parametrize("text, fragments", INVALID)
def test_errors_name_the_file_the_subject_and_the_fix(tmp_path, text, fragments):
    (tmp_path / ".lucasrag").mkdir()
    (tmp_path / ".lucasrag" / "deference.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(DeferenceConfigError) as err:
        load_deference(tmp_path)
    assert "deference.yaml" in str(err.value)
    for fragment in fragments:
        assert fragment in str(err.value)
