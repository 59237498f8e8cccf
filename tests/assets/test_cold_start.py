"""Cold start: the sample vault with every `workspace:` label stripped still routes
sensibly, content-free notes stay quarantined, and a person's routing.yaml rule wins over the
router but not over frontmatter. Real embeddings, no mocks."""

from __future__ import annotations

import re

import pytest

from lucasrag.embedding_cache import EmbeddingCache
from lucasrag_assets.assets.notes import notes_frame
from lucasrag_assets.rules.routing.passes import route_frame
from lucasrag_assets.rules.routing.vault_rules import load_routing_rules
from lucasrag_assets.rules.vault_scan import scan_vault

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def embed(tmp_path_factory):
    cache = EmbeddingCache(tmp_path_factory.mktemp("emb") / "emb.sqlite")
    yield cache.embed
    cache.close()


def _strip_labels(vault):
    for md in vault.rglob("*.md"):
        raw = md.read_bytes()
        if raw.startswith(b"---"):
            md.write_bytes(re.sub(rb"(?m)^workspace[ \t]*:.*\r?\n", b"", raw, count=1))


def _decide(vault, embed):
    notes = notes_frame(scan_vault(vault, max_bytes=1 << 20))
    return {r["path"]: r for r in route_frame(notes, embed, 0.5, load_routing_rules(vault)).iter_rows(named=True)}


def test_unlabelled_sample_vault(tmp_path, embed, truth, copy_vault):
    vault = copy_vault(tmp_path / "vault")
    _strip_labels(vault)
    assert not any(b"\nworkspace:" in p.read_bytes() for p in vault.rglob("*.md"))
    decided = _decide(vault, embed)
    expected = {p: t for p, t in truth["notes"].items() if t["status"] != "invalid"}
    bearing = [p for p, t in expected.items() if t["status"] == "indexed"]
    held = [p for p in bearing if decided[p]["workspace"] is None]
    routed = [p for p in bearing if decided[p]["workspace"]]
    right = [p for p in routed if decided[p]["workspace"] == expected[p]["workspace"]]
    assert len(held) <= 0.15 * len(bearing), held
    assert len(right) >= 0.9 * len(routed), [(p, decided[p]["workspace"]) for p in routed if p not in right]
    content_free = [
        p for p, t in expected.items() if t["status"] == "quarantined" and p != "inbox/hetzner and a poem.md"
    ]
    assert all(decided[p]["workspace"] is None for p in content_free)


def test_vault_rule_between_frontmatter_and_router(tmp_path, embed, copy_vault):
    vault = copy_vault(tmp_path / "vault")
    (vault / ".lucasrag" / "routing.yaml").write_text("folders:\n  tech: creative\ntags:\n  never-used: personal\n")
    decided = _decide(vault, embed)
    tech = {p: r for p, r in decided.items() if p.startswith("tech/")}
    assert tech["tech/tessellate-onboarding.md"]["workspace"] == "technical", "frontmatter still wins"
    ruled = [r for p, r in tech.items() if p != "tech/tessellate-onboarding.md"]
    assert ruled and all(r["workspace"] == "creative" and "(routing.yaml)" in r["route_reason"] for r in ruled)
    assert decided["journal/2013-04-02.md"]["workspace"] == "personal", "rules touch only their folder"


def test_broken_rules_file_names_the_entry(tmp_path, embed, copy_vault):
    vault = copy_vault(tmp_path / "vault")
    (vault / ".lucasrag" / "routing.yaml").write_text("folders:\n  tech: engineering\n")
    with pytest.raises(ValueError, match="tech.*'engineering'.*expected one of"):
        load_routing_rules(vault)


#: A small vault written the way real vaults are (numbered PARA folders, snippet notes that are
#: only code, an index page of links, book notes, a web clipping whose page failed to import).
REAL_VAULT_CONVENTIONS = {
    "000 Tech/CLI/Find large files.md": "```bash\nfind / -type f -size +200M -exec du -h {} + | sort -rh\n```\n",
    "000 Tech/CLI/Tag an old commit.md": (
        '```\ngit checkout <hash>\nGIT_COMMITTER_DATE="$(git show --format=%aD | head -1)" git tag v1.2\n'
        "git push origin --tags\n```\n"
    ),
    "000 Tech/DevOps/Certbot.md": "```\nsudo apt install certbot python3-certbot-nginx\nsudo certbot --nginx\n```\n",
    "20 Reading/Book Notes/Book Notes.md": "- [[Deep Work]]\n- [[Atomic Habits]]\n- [[The Obstacle Is the Way]]\n",
    "20 Reading/Book Notes/Deep Work.md": (
        "## Chapter 1\n- focus is a skill; schedule every minute of the day and protect long blocks of time\n"
        "- quit social media for a month and notice what you miss\n## Chapter 2\n- boredom is training\n"
    ),
    "20 Reading/Book Notes/Atomic Habits.md": (
        "Small habits compound. Make the habit obvious, attractive, easy and satisfying.\n"
        "I want to try habit stacking: after my morning coffee I meditate for two minutes.\n"
    ),
    "20 Reading/Book Notes/The Obstacle Is the Way.md": (
        "Stoic ideas from the book: what stands in the way becomes the way. Control your perceptions, "
        "act with persistence, accept what you cannot change.\n"
    ),
    "Clippings/Sign in to your account.md": (
        "---\ntitle: Sign in to your account\nsource: https://example.sharepoint.com/doc.aspx\n"
        "author: example.sharepoint.com\ncreated: 2026-01-20\ntags:\n  - clippings\n---\n\n"
        "![](https://example.com/banner.png)\n"
    ),
    # Clipped pages with plenty of words, none the person wanted: an error page and a site's front page.
    "Clippings/Not found. Sign up to continue.md": (
        "---\ntitle: Not found. Sign up to continue.\nsource: https://feeds.example.com/x/feed\n---\n\n"
        "## Get feeds from almost any webpage\nInstantly generate feeds from any address. No coding: copy and "
        "paste the address into the builder. Customise your feed with filters and widgets, updated daily.\n"
    ),
    "Clippings/Every story needs a reader.md": (
        "---\ntitle: Every story needs a reader\nsource: https://stories.example.com/about\n---\n\n"
        "The best stories change who we are. We are an open platform where millions of readers find "
        "insightful and dynamic thinking, and writers find their audience without advertising.\n"
    ),
    # A clipping that arrived: an article, judged on its content like any note.
    "Clippings/Postgres vacuum tuning.md": (
        "---\ntitle: Postgres vacuum tuning\nsource: https://blog.example.com/2024/postgres-vacuum\n---\n\n"
        "Autovacuum falls behind on tables with heavy updates: lower the scale factor per table and raise "
        "the cost limit, then watch the dead tuples.\n\n```sql\nALTER TABLE events SET "
        "(autovacuum_vacuum_scale_factor = 0.01);\nSELECT relname, n_dead_tup FROM pg_stat_user_tables;\n```\n"
    ),
}


def test_real_vault_conventions(tmp_path, embed):
    vault = tmp_path / "vault"
    for rel, text in REAL_VAULT_CONVENTIONS.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text)
    decided = _decide(vault, embed)
    for path in ("000 Tech/CLI/Find large files.md", "000 Tech/CLI/Tag an old commit.md", "000 Tech/DevOps/Certbot.md"):
        assert decided[path]["workspace"] == "technical", (path, decided[path]["route_reason"])
    for path in ("Deep Work.md", "Atomic Habits.md", "The Obstacle Is the Way.md"):
        row = decided[f"20 Reading/Book Notes/{path}"]
        assert row["workspace"] == "personal", (path, row["workspace"], row["route_reason"])
    for path in ("20 Reading/Book Notes/Book Notes.md", "Clippings/Sign in to your account.md"):
        assert decided[path]["workspace"] is None, (path, decided[path]["route_reason"])
        assert decided[path]["route_reason"].startswith("too little content")
    for path in ("Clippings/Not found. Sign up to continue.md", "Clippings/Every story needs a reader.md"):
        assert decided[path]["workspace"] is None, (path, decided[path]["route_reason"])
        assert decided[path]["route_reason"].startswith("content-free: a web clipping"), decided[path]["route_reason"]
    article = decided["Clippings/Postgres vacuum tuning.md"]  # judged on its content, like any note
    assert article["suggestion"] == "technical", article["route_reason"]
    assert not article["route_reason"].startswith(("content-free", "too little content")), article["route_reason"]
