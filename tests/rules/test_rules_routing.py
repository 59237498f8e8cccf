"""The cold-start router's pieces (docs/routing.md): word counting, the note's own words, code
share, tags and folder names as evidence, folder evidence, the gate, vault rules and rule suggestions. The whole router on a vault is in tests/assets/test_cold_start.py."""

import numpy as np
import pytest

from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.rules.routing.evidence import code_share, folder_prior, meaningful_words, own_words, tag_words
from lucasrag_assets.rules.routing.router import MIN_MEANINGFUL_WORDS, content_logits, decide, folder_evidence
from lucasrag_assets.rules.routing.vault_rules import (
    RoutingRules,
    RoutingRulesError,
    parse_routing_rules,
    rules_yaml,
    suggest_folder_rules,
)

WORDS = [
    pytest.param("Postgres vacuum tuning notes", ["postgres", "vacuum", "tuning", "notes"], id="plain"),
    pytest.param("## Notes\n\n![[Daily.base]]\n", ["notes"], id="base-embed-is-not-words"),
    pytest.param("![photo](img/cat.png) the cat", ["cat"], id="image-embed"),
    pytest.param("[About](https://x.com/about)[Press](https://x.com/press) hi", [], id="link-navigation-junk"),
    pytest.param("see https://example.com/long/path?q=1 now", ["see", "now"], id="bare-url"),
    pytest.param(
        "Met [[Kevin Kelly]] about [[Out of Control]]", ["met", "kevin", "kelly", "control"], id="wikilinks-kept"
    ),
    pytest.param("the and of to it is", [], id="stop-words"),
]


@pytest.mark.parametrize("text, expected", WORDS)
def test_meaningful_words(text, expected):
    assert meaningful_words(text) == expected


OWN_WORDS = [
    pytest.param(
        "- Self Intro\n- Strengths & Weaknesses\n- Stories\n",
        ["Self Intro", "Strengths & Weaknesses", "Stories"],
        "Behavioural",
        [],
        id="index-page-of-links-says-nothing",
    ),
    pytest.param(
        "Met Kevin Kelly about Out of Control", ["Kevin Kelly", "Out of Control"], "", ["met"], id="link-names-not-own"
    ),
    pytest.param(
        "source: https://x.sharepoint.com/doc\nauthor: x.sharepoint.com\ncreated: 2026-01-20\ntags: to-process, misc\n",
        [],
        "Sign in to your account",
        [],
        id="clipping-metadata-only",
    ),
    pytest.param(
        "500\n## Apologies, something went wrong\nRefresh the page",
        [],
        "Apologies, something went wrong",
        ["refresh", "page"],
        id="heading-repeating-title-dropped",
    ),
    pytest.param(
        "## Tax return 2024\nSend the forms", [], "Admin", ["tax", "return", "send", "forms"], id="other-heading-kept"
    ),
    pytest.param("rating: 7\ngenre: Sci-fi", [], "Futurama", ["rating", "genre", "sci-fi"], id="properties-count"),
]


@pytest.mark.parametrize("text, links, title, expected", OWN_WORDS)
def test_own_words(text, links, title, expected):
    assert own_words(text, links, title) == expected


CODE = [
    pytest.param("```bash\nfind / -size +200M\n```", 1.0, id="only-a-fenced-block"),
    pytest.param("Plain words about my weekend", 0.0, id="no-code"),
    pytest.param("run `git` now", 5 / 11, id="inline-code"),
    pytest.param("notes\n```\nunclosed fence", 16 / 21, id="unclosed-fence-runs-to-the-end"),
    pytest.param("   \n", 0.0, id="blank"),
]


@pytest.mark.parametrize("text, expected", CODE)
def test_code_share(text, expected):
    assert code_share(text) == pytest.approx(expected)


TAGS = [
    pytest.param(["data-access", "#issue"], ["data", "access", "issue"], id="hyphens-and-hash"),
    pytest.param(["areas/finance"], ["areas", "finance"], id="nested-tag"),
    pytest.param(["to_process", "ai"], ["process"], id="underscore-and-short-words"),
]


@pytest.mark.parametrize("tags, expected", TAGS)
def test_tag_words(tags, expected):
    assert tag_words(tags) == expected


FOLDERS = [
    pytest.param(("000 Tech", "CLI"), "technical", id="numbered-folder"),
    pytest.param(("02 Areas", "Personal", "Finance"), "administrative", id="innermost-wins"),
    pytest.param(("Book Notes",), "personal", id="word-of-a-name"),
    pytest.param(("1. Journal",), "personal", id="decimal-numbering"),
    pytest.param(("writing", "tech"), "technical", id="innermost-of-two-priors"),
    pytest.param(("Inbox", "Web Clippings"), None, id="no-hint"),
    pytest.param((), None, id="vault-root"),
]


@pytest.mark.parametrize("folders, expected", FOLDERS)
def test_folder_prior(folders, expected):
    assert folder_prior(folders) == expected


TECH, PERS = {"technical": 1.0}, {"personal": 1.0}
EVIDENCE = [
    pytest.param(
        ["a/1.md", "a/2.md", "a/3.md"], [TECH, TECH, PERS], [0.5, 0.5], id="leave-one-out: first note hears 2 and 3"
    ),
    pytest.param(["a/1.md", "a/2.md"], [TECH, TECH], [0.0, 0.0], id="one other note is too few"),
    pytest.param(
        ["top/a/1.md", "top/b/2.md", "top/b/3.md"], [None, TECH, TECH], [1.0, 0.0], id="small folder lends ancestor"
    ),
    pytest.param(["1.md", "2.md", "3.md"], [TECH, TECH, TECH], [0.0, 0.0], id="vault root is no folder"),
    pytest.param(["a/1.md", "a/2.md", "a/3.md"], [None, TECH, TECH], [1.0, 0.0], id="non-voter still hears"),
]


@pytest.mark.parametrize("paths, votes, first_note_tech_personal", EVIDENCE)
def test_folder_evidence(paths, votes, first_note_tech_personal):
    first = folder_evidence(paths, votes)[0]
    assert [first["technical"], first["personal"]] == pytest.approx(first_note_tech_personal)


SCORES = {"technical": 0.7, "creative": 0.05, "personal": 0.1, "administrative": 0.05}
RULE = ("personal", "folder rule journal/ → personal (routing.yaml)")
DECISIONS = [
    pytest.param(SCORES, 9, None, ("technical", "technical", "content routed"), id="confident"),
    pytest.param({**SCORES, "technical": 0.4}, 9, None, (None, "technical", "low confidence"), id="below-threshold"),
    pytest.param(SCORES, MIN_MEANINGFUL_WORDS - 1, None, (None, "technical", "too little content"), id="content-free"),
    pytest.param(SCORES, 9, RULE, ("personal", "personal", "folder rule journal/"), id="rule-wins-over-content"),
    pytest.param(SCORES, 2, RULE, (None, "personal", "too little content"), id="content-free-even-under-a-rule"),
]


@pytest.mark.parametrize("scores, n_words, rule, expected", DECISIONS)
def test_decide(scores, n_words, rule, expected):
    d = decide(scores, n_words, threshold=0.5, rule=rule)
    assert (d.workspace, d.suggestion) == expected[:2]
    assert d.reason.startswith(expected[2]) or expected[2] in d.reason


CLIPPED = "a web clipping of a page that failed to load (its title starts 'Not found.')"


@pytest.mark.parametrize(
    "rule, expected",
    [
        pytest.param(None, f"content-free: {CLIPPED}", id="clipped-error-page"),
        pytest.param(RULE, f"content-free: {CLIPPED}; folder rule journal/", id="even-under-a-rule"),
    ],
)
def test_a_failed_clipping_is_quarantined_however_many_words(rule, expected):
    d = decide(SCORES, 120, threshold=0.5, rule=rule, content_free=CLIPPED)
    assert d.workspace is None and d.reason.startswith(expected), d.reason


RULES = parse_routing_rules(
    {"folders": {"01 Projects/": "technical", "01 Projects/Life": "personal"}, "tags": {"#Recipe": "personal"}}
)
MATCHES = [
    pytest.param("01 Projects/PII/scan.md", (), "technical", id="folder"),
    pytest.param("01 Projects/Life/x.md", (), "personal", id="deepest-folder-wins"),
    pytest.param("notes/stew.md", ("recipe",), "personal", id="tag-case-folded"),
    pytest.param("01 Projects.md", (), None, id="file-named-like-folder"),
    pytest.param("inbox/x.md", ("other",), None, id="nothing"),
]


@pytest.mark.parametrize("path, tags, expected", MATCHES)
def test_rule_match(path, tags, expected):
    got = RULES.match(path, tags)
    assert (got[0] if got else None) == expected


BAD_RULES = [
    pytest.param({"folders": {"a": "work"}}, "expected one of", id="unknown-workspace"),
    pytest.param({"folder": {"a": "technical"}}, "unknown key", id="unknown-section"),
    pytest.param({"folders": ["a"]}, "must map", id="list-not-mapping"),
    pytest.param(["a"], "expected a mapping", id="not-a-mapping"),
]


@pytest.mark.parametrize("raw, message", BAD_RULES)
def test_bad_rules_name_the_entry(raw, message):
    with pytest.raises(RoutingRulesError, match=message):
        parse_routing_rules(raw)


def _pairs(folder, spec):
    return [(f"{folder}/{i}.md", ws) for i, ws in enumerate(spec)]


SUGGESTIONS = [
    pytest.param(_pairs("tech", ["technical"] * 4), [("tech", "technical")], id="agreeing-folder"),
    pytest.param(_pairs("tech", ["technical"] * 2), [], id="too-few-notes"),
    pytest.param(_pairs("mix", ["technical", "technical", "personal", None]), [], id="disagreeing-folder"),
    pytest.param(
        _pairs("a", ["personal"] * 3) + _pairs("a/b", ["personal"] * 3), [("a", "personal")], id="child-inherits"
    ),
    pytest.param(
        _pairs("a", ["personal"] * 5) + _pairs("a/b", ["technical"] * 3),
        [("a/b", "technical")],
        id="child-differs-parent-too-mixed",
    ),
]


@pytest.mark.parametrize("pairs, expected", SUGGESTIONS)
def test_suggest_folder_rules(pairs, expected):
    assert [(s.folder, s.workspace) for s in suggest_folder_rules(pairs)] == expected


def test_suggested_yaml_reads_back_as_rules():
    suggestions = suggest_folder_rules(_pairs("Finance: 2024", ["administrative"] * 3))
    text = rules_yaml(RoutingRules(tags={"recipe": "personal"}), suggestions)
    import yaml

    rules = parse_routing_rules(yaml.safe_load(text))
    assert rules.folders == {"Finance: 2024": "administrative"} and rules.tags == {"recipe": "personal"}
    assert "suggested: 3 of 3 notes" in text


def test_vote_vectors_do_not_leak_between_calls():
    # folder_evidence must not keep state: the same input gives the same answer twice.
    paths, votes = ["a/1.md", "a/2.md", "a/3.md"], [TECH, PERS, TECH]
    assert folder_evidence(paths, votes) == folder_evidence(paths, votes)
    assert np.isclose(sum(folder_evidence(paths, votes)[1].values()), 1.0)


KIND_PRIORS = [
    # (folders, kinds) → the workspace whose logit gets the folder-name prior
    pytest.param(("Notes",), ("Recipes",), "personal", id="category-in-a-neutral-folder"),
    pytest.param(("000 Tech",), ("Books",), "personal", id="the-category-is-more-specific-than-the-folder"),
    pytest.param(("000 Tech",), ("Meetings",), "technical", id="an-unknown-kind-leaves-the-folder"),
    pytest.param((), (), None, id="nothing"),
]


@pytest.mark.parametrize("folders, kinds, expected", KIND_PRIORS)
def test_kinds_count_like_the_innermost_folder(folders, kinds, expected):
    vector = np.zeros(3)
    centroids = {ws: np.zeros(3) for ws in WORKSPACES}
    logits = content_logits([], folders, vector, centroids, kinds=kinds)
    boosted = [ws for ws, v in logits.items() if v > 0]
    assert boosted == ([expected] if expected else [])
