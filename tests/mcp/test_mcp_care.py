"""Care over the wire: random charged notes, random queries and bridges through MCP search and read_note.

The property of tests/query/test_policy.py (withheld text never leaks), checked end to end: a
vault of notes with random secrets, random charged subjects and random bands is ingested, and
no response (structured content or text) may carry a secret the care rule withholds — while a
secret the rule allows must come back (so the check cannot pass by returning nothing).
"""

from __future__ import annotations

import datetime as dt
import json
import random

import anyio
import pytest

from lucasrag.settings import Settings

pytestmark = pytest.mark.slow

NOW = dt.date(2026, 6, 1)
SUBJECTS = {"Ada Moss": ["auntie ada"], "Bram": ["bram k"]}
NAMES = [*SUBJECTS, *(a for aliases in SUBJECTS.values() for a in aliases)]
WORKSPACES = ["technical", "creative", "personal", "administrative"]
TOPICS = {
    "technical": "The server needed a new certificate and the deploy script failed twice before lunch.",
    "creative": "I wrote a short poem about the harbour lights and the sound of rain on the tin roof.",
    "personal": "We walked along the river in the evening and talked about the garden and the summer.",
    "administrative": "The tax office sent a letter about the pension payment and the bank statement.",
}


def _canonical(name: str) -> str:
    for subject, aliases in SUBJECTS.items():
        if name.casefold() in (subject.casefold(), *(a.casefold() for a in aliases)):
            return subject
    return name


def _vault(root, rng: random.Random) -> list[dict]:
    (root / ".lucasrag").mkdir(parents=True)
    (root / ".lucasrag" / "deference.yaml").write_text(
        "subjects:\n" + "".join(f"  - name: {s}\n    aliases: {json.dumps(a)}\n" for s, a in SUBJECTS.items())
    )
    notes = []
    for i in range(16):
        charged = sorted(rng.sample(list(SUBJECTS), rng.randint(1, 2))) if rng.random() < 0.6 else []
        archival = rng.random() < 0.5
        date = f"2011-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}" if archival else f"2026-0{rng.randint(1, 4)}-1{i % 10}"
        workspace = rng.choice(WORKSPACES)
        secret = f"sekrit{rng.getrandbits(48):012x}"
        # A second secret next to the first: queries search for the first (the reply echoes the
        # query, so that echo is not a leak), never for this one.
        companion = f"hidden{rng.getrandbits(48):012x}"
        about = (
            f"Thinking about {' and '.join(charged)} today, missing them so much since the loss. " if charged else ""
        )
        body = f"{about}{TOPICS[workspace]} Reference {secret} {companion}."
        meta = f"date: {date}\nworkspace: {workspace}\n" + (f"charged: {json.dumps(charged)}\n" if charged else "")
        path = f"notes/note {i:02d}.md"
        (root / "notes").mkdir(exist_ok=True)
        (root / path).write_text(f"---\n{meta}---\n{body}\n")
        notes.append({"path": path, "secret": secret, "companion": companion, "charged": charged, "archival": archival})
    return notes


@pytest.fixture(scope="module")
def care_vault(tmp_path_factory):
    from lucasrag_assets.ingest import run_ingest

    root = tmp_path_factory.mktemp("care")
    notes = _vault(root / "vault", random.Random(20261201))
    settings = Settings(vault=root / "vault", data=root / "data", now=NOW)
    mp = pytest.MonkeyPatch()
    mp.setenv("DAGSTER_HOME", str(root / "dagster"))
    try:
        run_ingest(settings)
    finally:
        mp.undo()
    return settings, notes


def _dump(result) -> str:
    return json.dumps(result.structured_content, ensure_ascii=False) + "".join(c.text for c in result.content)


def test_random_charged_texts_never_leak_over_mcp(care_vault, mcp):
    settings, notes = care_vault
    rng = random.Random(7)
    charged = [n for n in notes if n["charged"]]
    assert charged and any(n["archival"] for n in charged) and any(not n["archival"] for n in charged)
    queries = [*NAMES, "missing them", "the garden", "in 2011", "back then", "what happened in 2026?"]
    queries += [n["secret"] for n in charged]  # the assistant searching for the withheld words themselves
    leaks, served, found = [], 0, 0

    async def scenario():
        nonlocal served, found
        async with mcp.stdio(settings) as client:
            for q in queries:
                bridge = rng.sample([*NAMES, "nobody"], rng.randint(0, 2))
                bridged = {_canonical(b) for b in bridge}
                r = await client.call_tool("search", {"query": q, "bridge": bridge, "top_k": 25})
                assert not r.is_error, r.content[0].text
                dumped, archive_open = _dump(r), r.structured_content["temporal"]["archival_open"]
                for n in charged:
                    allowed = set(n["charged"]) <= bridged or (archive_open and n["archival"])
                    if not allowed and (n["secret"] in dumped.replace(q, "") or n["companion"] in dumped):
                        leaks.append(("search", q, bridge, n["path"]))
                    found += allowed and n["companion"] in dumped
            for n in notes:
                for bridge in ([], rng.sample(NAMES, rng.randint(1, 3))):
                    r = await client.call_tool("read_note", {"path": n["path"], "bridge": bridge})
                    assert not r.is_error, r.content[0].text
                    allowed = set(n["charged"]) <= {_canonical(b) for b in bridge}
                    dumped = _dump(r)
                    if not allowed and (n["secret"] in dumped or n["companion"] in dumped):
                        leaks.append(("read_note", n["path"], bridge))
                    if allowed:
                        assert n["secret"] in dumped, (n["path"], bridge)
                        served += 1
                    else:
                        assert r.structured_content["withheld"] >= 1 and "withheld out of care" in dumped

    anyio.run(scenario)
    assert not leaks, leaks
    assert found > 0  # bridged (or archive-opened) charged passages do come back through search
    assert served >= len(notes) - len(charged)


def test_pending_pairs_are_withheld_by_read_note_and_pending_in_status(tmp_path, monkeypatch):
    """A reference the detector does not release is withheld until bridged, and status lists it as pending."""
    from lucasrag.catalog import read_catalog
    from lucasrag_assets.ingest import run_ingest
    from lucasrag_query.mcp.notes import read_note
    from lucasrag_query.mcp.status import status

    vault = tmp_path / "vault"
    (vault / ".lucasrag").mkdir(parents=True)
    (vault / ".lucasrag" / "deference.yaml").write_text("subjects:\n  - name: Maya\n")
    (vault / "journal").mkdir()
    (vault / "journal" / "call.md").write_text(
        "---\nworkspace: personal\ndate: 2026-05-02\n---\nMaya texted about the books. I still haven't answered.\n"
    )
    (vault / "journal" / "garden.md").write_text(
        "---\nworkspace: personal\ndate: 2026-05-03\n---\nPlanted tomatoes and basil by the south wall.\n"
    )
    settings = Settings(vault=vault, data=tmp_path / "data", now=NOW)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    run_ingest(settings)
    care = {r["path"]: r["care"] for r in read_catalog(settings).to_dicts()}
    # The precondition: the note refers to Maya and the detector does not release it (withheld, pending).
    assert [(a["subject"], a["outcome"], a["source"]) for a in care["journal/call.md"]] == [
        ("Maya", "withheld", "inferred")
    ]
    (pair,) = care["journal/call.md"]  # the catalogue keeps the vector evidence: view and nearest prototype
    assert pair["vector_view"] in ("span", "chunk") and "(similarity " in pair["prototype"]

    unbridged = read_note(settings, "journal/call.md")
    dumped = json.dumps(unbridged, ensure_ascii=False)
    assert "still haven't answered" not in dumped and unbridged["withheld"] == 1
    assert [h["subject"] for h in unbridged["hints"]] == ["Maya"]
    assert "still haven't answered" in read_note(settings, "journal/call.md", bridge=["maya"])["text"]

    pending = status(settings)["pending_care"]
    assert pending == {"count": 1, "notes": [{"path": "journal/call.md", "subject": "Maya"}]}
    assert "still haven't answered" not in json.dumps(status(settings), ensure_ascii=False)
