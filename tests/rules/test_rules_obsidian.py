"""Obsidian conventions (rules/obsidian.py, conventions.py) and what parse_note makes of them."""

import datetime as dt
import json
from pathlib import Path

import pytest

from lucasrag.vault_files import template_folders
from lucasrag_assets.rules.conventions import load_conventions
from lucasrag_assets.rules.obsidian import aliases_of, kinds_of, link_targets, properties_text
from lucasrag_assets.rules.vault_scan import parse_note, scan_vault

MiB = 1024 * 1024


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


TEMPLATE_SETTINGS = [
    pytest.param({".obsidian/templates.json": {"folder": "Meta/Tpl"}}, ["Meta/Tpl"], id="core-templates"),
    pytest.param(
        {".obsidian/plugins/templater-obsidian/data.json": {"templates_folder": "/Tx/"}}, ["Tx"], id="templater"
    ),
    pytest.param({}, ["Templates"], id="folder-named-templates"),
    pytest.param({".obsidian/templates.json": "not json"}, ["Templates"], id="broken-settings-ignored"),
]


@pytest.mark.parametrize("settings, expected", TEMPLATE_SETTINGS)
def test_template_folders(tmp_path, settings, expected):
    (tmp_path / "Templates").mkdir()
    for rel, data in settings.items():
        write(tmp_path, rel, data if isinstance(data, str) else json.dumps(data))
    found = template_folders(tmp_path)
    assert all(folder in found for folder in expected), found


def test_templates_are_skipped_with_the_reason_not_invalid(tmp_path):
    write(tmp_path, ".obsidian/templates.json", json.dumps({"folder": "Templates"}))
    write(tmp_path, "Templates/Daily.md", "---\ncreated: {{date}}\n---\n# {{title}}\n")  # unhashable-key YAML
    write(tmp_path, "Notes/real.md", "A real note about bread.\n")
    notes = {n.path: n for n in scan_vault(tmp_path, max_bytes=MiB)}
    tpl = notes["Templates/Daily.md"]
    assert tpl.status == "skipped" and "templates folder 'Templates'" in tpl.reason
    assert ".obsidian/templates.json" in tpl.reason
    assert notes["Notes/real.md"].status == "ok"


PROPERTIES = [
    pytest.param(
        {"director": "[[Ridley Scott]]", "rating": 7, "year": 1979},
        "director: Ridley Scott\nrating: 7\nyear: 1979",
        id="film",
    ),
    pytest.param({"cast": [["Sigourney Weaver"], "[[John Hurt|Hurt]]"]}, "cast: Sigourney Weaver, Hurt", id="list"),
    pytest.param({"workspace": "creative", "title": "Alien", "rating": None, "tags": []}, "", id="control-and-empty"),
    pytest.param({"read": True, "start": dt.date(2021, 3, 4)}, "read: yes\nstart: 2021-03-04", id="bool-and-date"),
]


@pytest.mark.parametrize("meta, expected", PROPERTIES)
def test_properties_text(meta, expected):
    assert properties_text(meta) == expected


def test_properties_only_note_is_indexed_from_its_properties(tmp_path):
    path = write(tmp_path, "Films/Alien.md", '---\ndirector: "[[Ridley Scott]]"\nrating: 7\n---\n')
    note = parse_note(tmp_path, path, max_bytes=MiB)
    assert note.status == "ok", note.reason
    assert note.body == "director: Ridley Scott\nrating: 7\n"
    assert note.title == "Alien"


@pytest.mark.parametrize(
    "text",
    ["![[Films.base]]\n", "---\ntags: [categories]\n---\n\n![[Films.base]]\n", "```dataview\nLIST\n```\n"],
    ids=["embed-only", "embed-and-tags", "query-only"],
)
def test_embed_only_page_is_skipped_not_invalid(tmp_path, text):
    note = parse_note(tmp_path, write(tmp_path, "Categories/Films.md", text), max_bytes=MiB)
    assert note.status == "skipped" and "only embeds" in note.reason


def test_tags_alone_are_not_a_properties_only_note(tmp_path):
    note = parse_note(tmp_path, write(tmp_path, "n.md", "---\ntags: [idea]\n---\n"), max_bytes=MiB)
    assert note.status == "invalid" and "no body text or properties" in note.reason


def test_comment_text_never_reaches_the_note(tmp_path):
    path = write(tmp_path, "n.md", "---\ntags: [x]\n---\nLunch with Ana. %% I think she is lying to me %%\n")
    note = parse_note(tmp_path, path, max_bytes=MiB)
    assert "lying" not in note.body and "Lunch with Ana." in note.body


def test_links_and_aliases_are_kept_as_names(tmp_path):
    text = "---\naliases: [W1, '[[Week One]]']\n---\nMet [[People/Inês Duarte|Inês]] about [[tessellate]]. ![[x.png]]\n"
    note = parse_note(tmp_path, write(tmp_path, "n.md", text), max_bytes=MiB)
    assert note.body == "Met Inês about tessellate.\n"
    assert note.links == ("Inês Duarte", "tessellate")
    assert note.aliases == ("W1", "Week One")


def test_aliases_and_link_targets():
    assert aliases_of({"alias": "Solo"}) == ("Solo",)
    assert aliases_of({}) == ()
    assert link_targets("[[a]] [[b|B]] ![[c.png]] [[a#x]]") == ("a", "b")


DATED = [
    pytest.param("n.md", "---\ndate: 'Jan 1, 2025'\n---\nx\n", None, dt.date(2025, 1, 1), "frontmatter:date", id="fm"),
    pytest.param("Journal/2021/03/04/n.md", "x\n", None, dt.date(2021, 3, 4), "folder", id="folder"),
    pytest.param("202103041022 Idea.md", "x\n", None, dt.date(2021, 3, 4), "zettel-id", id="zettel"),
    pytest.param("n.md", "---\ndate: 04.03.2021\n---\nx\n", "DMY", dt.date(2021, 3, 4), "frontmatter:date", id="dmy"),
    pytest.param("n.md", "---\ndate: 04.03.2021\n---\nx\n", None, None, None, id="ambiguous-undated"),
]


@pytest.mark.parametrize("rel, text, order, day, source", DATED)
def test_parse_note_dates_and_the_vault_setting(tmp_path, rel, text, order, day, source):
    if order:
        write(tmp_path, ".lucasrag/vault.yaml", f"date_order: {order}\n")
    note = parse_note(tmp_path, write(tmp_path, rel, text), max_bytes=MiB)
    assert note.status == "ok"
    assert (note.date, note.date_source) == (day, source)
    if day is None:
        assert note.warnings and "undated" in note.warnings[0] and "date_order" in note.warnings[0]


def test_bad_date_order_setting_is_ignored_with_a_warning(tmp_path):
    write(tmp_path, ".lucasrag/vault.yaml", "date_order: YMD\n")
    conventions = load_conventions(tmp_path)
    assert conventions.date_order is None and "expected one of DMY, MDY" in conventions.warnings[0]


NAMES = [
    pytest.param("# Alien\nA film.\n", "Alien", "Alien", (), "# Alien\nA film.\n", id="title-already-the-heading"),
    pytest.param("rating: 7\n", "Alien", "Alien", (), "# Alien\n\nrating: 7\n", id="properties-only-gets-its-name"),
    pytest.param(
        "# Lease\nRent.\n", "Lease", "2024-01-28 lisbon lease", (), "# lisbon lease\n\n# Lease\nRent.\n", id="file-name"
    ),
    pytest.param("Rent.\n", "2021-03-04", "2021-03-04", (), "Rent.\n", id="daily-note-name-is-a-date"),
    pytest.param("x\n", "Idea", "202103041022 Idea", ("Thought",), "# Idea · Thought\n\nx\n", id="zettel-and-alias"),
    pytest.param("About idea here.\n", "idea", "idea", (), "About idea here.\n", id="name-in-text-already"),
]


@pytest.mark.parametrize("body, title, stem, aliases, expected", NAMES)
def test_names_lead_the_indexed_text(body, title, stem, aliases, expected):
    from lucasrag_assets.rules.obsidian import with_names

    assert with_names(body, title, stem, aliases) == expected


KINDS = [
    pytest.param({"categories": ["[[Books]]", "[[Recipes]]"]}, ("Books", "Recipes"), id="category-links"),
    pytest.param({"categories": [["Books"]]}, ("Books",), id="unquoted-link"),
    pytest.param({"Type": "book", "genre": "Sci-fi, Drama"}, ("book", "Sci-fi", "Drama"), id="type-and-genre"),
    pytest.param({"topics": [], "type": None, "kind": True}, (), id="empty-and-odd-values"),
    pytest.param({"tags": ["recipe"], "status": "done"}, (), id="tags-are-not-kinds"),
]


@pytest.mark.parametrize("meta, expected", KINDS)
def test_kinds_of(meta, expected):
    assert kinds_of(meta) == expected


def test_kinds_of_a_note_with_body_text_reach_the_note(tmp_path):
    write(tmp_path, "n.md", '---\ntype: "[[Meetings]]"\ncategories: [[Recipes]]\n---\nSoak the beans overnight.\n')
    note = parse_note(tmp_path, tmp_path / "n.md", max_bytes=MiB)
    assert note.status == "ok" and note.kinds == ("Meetings", "Recipes") and "Meetings" not in note.body
