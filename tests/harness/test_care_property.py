"""One care rule, every surface: random charged texts never leave unbridged (§3.5, §3.11).

A vault of random notes (charged passages from the care corpus, some marked in
frontmatter, and neutral notes) is ingested once; every note carries a unique
marker word. Hypothesis then drives the Python API, the CLI query and the graph
listing with random queries and bridges, and checks the output for the marker
of every chunk the detector withheld (charged or uncertain) whose subject is not
bridged. All notes are present-dated, so no query may open their archive.
"""

from __future__ import annotations

import json
import random

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from lucasrag_harness.evaluation.care_corpus import generate_corpus

pytestmark = pytest.mark.slow
SUBJECTS = {"Grandad Tom": ["grandad", "grandpa tom"], "Maya": ["maya r"]}
NOTES = 14


def _marker(i: int) -> str:
    return f"zqmark{i:03d}x"


@pytest.fixture(scope="module")
def care_vault(tmp_path_factory, settings_for):
    from lucasrag_assets.ingest import run_ingest

    root = tmp_path_factory.mktemp("care_property")
    vault = root / "vault"
    (vault / ".lucasrag").mkdir(parents=True)
    (vault / ".lucasrag" / "deference.yaml").write_text(
        yaml.safe_dump({"subjects": [{"name": n, "aliases": a} for n, a in SUBJECTS.items()]})
    )
    rng = random.Random(5)
    # the tune half only: the test half is never shown to the detector before the final evaluation
    passages = [p for p in generate_corpus() if p.subject in SUBJECTS and p.label == "charged" and p.half == "tune"]
    (vault / "journal").mkdir()
    for i in range(NOTES):
        p = rng.choice(passages)
        marked = i % 3 == 0
        head = f"---\ndate: 2026-0{1 + i % 5}-1{i % 9}\n" + (f"charged: [{p.subject}]\n" if marked else "") + "---\n"
        body = f"{p.text}\n\nThe {_marker(i)} box is still in the hall, next to the bike and the garden tools.\n"
        (vault / "journal" / f"2026-01-{10 + i:02d} note {i}.md").write_text(head + body)
    for j in range(4):  # neutral notes with markers too: they must stay findable
        (vault / "journal" / f"2026-02-0{j + 1} garden {j}.md").write_text(
            f"Garden diary: planted leeks and the {_marker(100 + j)} beans by the bike shed, watered the tools box.\n"
        )
    s = settings_for(vault, root / "data")
    mp = pytest.MonkeyPatch()
    mp.setenv("DAGSTER_HOME", str(root / "dagster"))
    try:
        run_ingest(s)
    finally:
        mp.undo()
    from lucasrag.catalog import read_catalog

    withheld = {}  # marker -> subjects the detector withheld that note's text for
    for row in read_catalog(s).to_dicts():
        i = int(row["path"].split(" ")[-1].removesuffix(".md")) + (100 if "garden" in row["path"] else 0)
        withheld[_marker(i)] = set(row["charged"] or [])
    assert any(withheld.values()), "the vault must hold withheld text for the property to mean anything"
    return s, withheld


def _leaks(output: str, withheld: dict[str, set[str]], bridge: list[str]) -> list[str]:
    bridged = {b.casefold() for b in bridge}
    aliases = {a.casefold(): n.casefold() for n, al in SUBJECTS.items() for a in [n, *al]}
    lifted = {aliases.get(b, b) for b in bridged}
    return [m for m, subs in withheld.items() if m in output and {s.casefold() for s in subs} - lifted]


QUERIES = st.sampled_from(["grandad", "maya", "the box in the hall", "bike", "garden tools", "what did I write", "tea"])
BRIDGES = st.lists(st.sampled_from(["Grandad Tom", "grandad", "maya", "Grandma Sue", "Maya"]), max_size=2)
PROPERTY = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@PROPERTY
@given(text=QUERIES, bridge=BRIDGES)
def test_python_api_never_returns_withheld_text(care_vault, text, bridge):
    from lucasrag_query import query

    s, withheld = care_vault
    result = query(text, bridge=bridge, top_k=25, settings=s).to_dict()
    assert _leaks(json.dumps(result), withheld, bridge) == []
    if "Grandma Sue" in bridge:
        assert any("Grandma Sue" in w for w in result["warnings"])


@PROPERTY
@given(text=QUERIES, bridge=BRIDGES)
def test_cli_query_never_prints_withheld_text(care_vault, text, bridge):
    from lucasrag_cli import app

    s, withheld = care_vault
    env = {"LUCASRAG_VAULT": str(s.vault), "LUCASRAG_DATA": str(s.data), "LUCASRAG_NOW": s.now.isoformat()}
    args = ["query", text, "--top-k", "25", *[a for b in bridge for a in ("--bridge", b)]]
    for extra in ([], ["--json"]):
        result = CliRunner().invoke(app, [*args, *extra], env=env)
        assert result.exit_code == 0, result.output
        assert _leaks(result.output, withheld, bridge) == []


@PROPERTY
@given(bridge=BRIDGES, pick=st.integers(min_value=0, max_value=50))
def test_graph_listing_never_shows_withheld_text(care_vault, bridge, pick):
    from lucasrag_query import _loop
    from lucasrag_query.graph_listing import collect

    s, withheld = care_vault
    top = _loop.run(collect(s, "personal", None, bridge=tuple(bridge)))
    names = [r["name"] for r in top["top"]] or [None]
    report = _loop.run(collect(s, "personal", names[pick % len(names)], bridge=tuple(bridge)))
    assert _leaks(json.dumps(report), withheld, bridge) == []
