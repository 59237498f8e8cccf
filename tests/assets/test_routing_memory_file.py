"""Routing's memory in a file (lucasrag_assets/routing_memory.py): a fresh process starts from what the last run
computed, exactly as the process that computed it would go on, and only from a file made with the same rules."""

from __future__ import annotations

import json

import polars as pl
import pytest
from routing_vaults import fake_embed, synthetic_notes

from lucasrag.file_memo import KeptByIdentity
from lucasrag_assets import routing_memory
from lucasrag_assets.routing_memory import keep_routing, load_remembered, memory_path, remembered_routing
from lucasrag_assets.rules.routing import router
from lucasrag_assets.rules.routing.remembered import RoutingMemory, pass_context
from lucasrag_assets.rules.routing.vault_rules import parse_routing_rules

RULES = parse_routing_rules({"folders": {"inbox/clips": "personal"}, "tags": {"recipe": "personal"}})
CONTEXT = pass_context(0.5, RULES, ("evidence salt", "model"))


def _routed(notes: pl.DataFrame, memory: RoutingMemory | None = None) -> RoutingMemory:
    memory = memory or RoutingMemory()
    memory.route(notes, fake_embed, 0.5, RULES, context=CONTEXT[2])
    return memory


def _edited(notes: pl.DataFrame, n: int = 3) -> pl.DataFrame:
    paths = notes.filter(pl.col("status") == "ok")["path"].head(n).to_list()
    return notes.with_columns(
        pl.when(pl.col("path").is_in(paths))
        .then(pl.col("body") + " garden moon")
        .otherwise(pl.col("body"))
        .alias("body")
    )


def _same(a, b) -> None:
    """Two remembered passes hold equal values, field by field (dtypes included)."""
    assert a.context == b.context
    pairs = [(a.hashes, b.hashes), (a.near, b.near), (a.heard, b.heard)]
    pairs += [(getattr(a.inputs, k), v) for k, v in vars(b.inputs).items()]
    pairs += [(getattr(a.first, k), v) for k, v in vars(b.first).items()]
    pairs += [(a.decisions[k], v) for k, v in b.decisions.items()]
    for mine, theirs in (
        (a.prototypes, b.prototypes),
        *zip(a.centroids, b.centroids),
        *zip(a.sums, b.sums),
    ):
        assert mine.keys() == theirs.keys()
        pairs += [(mine[k], theirs[k]) for k in mine]
    for x, y in pairs:
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tolist() == y.tolist()


def test_a_memory_read_back_equals_the_one_written(tmp_path):
    memory = _routed(synthetic_notes(0, 300))
    path = tmp_path / "memory.npz"
    routing_memory.save_remembered(path, memory.last)
    loaded = load_remembered(path, CONTEXT)
    _same(loaded, memory.last)
    assert any(isinstance(r, tuple) for r in loaded.inputs.ruled.tolist())  # a rule's (workspace, reason)


@pytest.mark.parametrize("next_notes", [lambda n: n, _edited, lambda n: n.head(250)], ids=["same", "edit", "delete"])
def test_a_fresh_process_goes_on_as_the_process_that_wrote_the_file(tmp_path, next_notes):
    notes = synthetic_notes(1, 300)
    writer = _routed(notes)
    path = tmp_path / "memory.npz"
    routing_memory.save_remembered(path, writer.last)
    fresh = RoutingMemory(last=load_remembered(path, CONTEXT))
    later = next_notes(notes)
    want = writer.route(later, fake_embed, 0.5, RULES, context=CONTEXT[2])
    got = fresh.route(later, fake_embed, 0.5, RULES, context=CONTEXT[2])
    assert got.equals(want)
    assert (fresh.how, fresh.rescored, fresh.read_afresh) == (writer.how, writer.rescored, writer.read_afresh)
    assert fresh.how != "full: nothing remembered"


@pytest.mark.parametrize(
    "other",
    [
        pass_context(0.6, RULES, CONTEXT[2]),  # another threshold
        pass_context(0.5, parse_routing_rules({"tags": {"recipe": "creative"}}), CONTEXT[2]),
        pass_context(0.5, RULES, ("another evidence salt", "model")),
        pass_context(0.5, RULES, ("evidence salt", "another model")),
    ],
    ids=["threshold", "rules", "evidence rules", "model"],
)
def test_a_file_made_with_anything_else_is_not_used(tmp_path, other):
    path = tmp_path / "memory.npz"
    routing_memory.save_remembered(path, _routed(synthetic_notes(2, 200)).last)
    assert load_remembered(path, other) is None
    assert load_remembered(path, CONTEXT) is not None


def test_a_file_made_with_other_router_weights_is_not_used(tmp_path, monkeypatch):
    path = tmp_path / "memory.npz"
    routing_memory.save_remembered(path, _routed(synthetic_notes(2, 200)).last)
    monkeypatch.setattr(router, "SEMANTIC_WEIGHT", router.SEMANTIC_WEIGHT + 0.5)
    assert load_remembered(path, CONTEXT) is None


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),  # torn
        lambda p: p.write_text("not a routing memory"),
        lambda p: p.unlink(),
    ],
    ids=["torn", "foreign", "missing"],
)
def test_a_damaged_or_missing_file_routes_the_whole_vault(tmp_path, damage):
    notes = synthetic_notes(3, 200)
    path = tmp_path / "memory.npz"
    routing_memory.save_remembered(path, _routed(notes).last)
    damage(path)
    memory = RoutingMemory(last=load_remembered(path, CONTEXT))
    assert memory.last is None
    _routed(notes, memory)
    assert memory.how == "full: nothing remembered"


def test_a_process_takes_its_own_memory_back_and_another_writers_from_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(routing_memory, "_kept", KeptByIdentity(limit=2))
    first = _routed(synthetic_notes(4, 200))
    keep_routing(tmp_path, first)
    assert memory_path(tmp_path).is_file()
    assert remembered_routing(tmp_path, CONTEXT) is first.last  # not read back
    other = _routed(synthetic_notes(5, 200)).last
    routing_memory.save_remembered(memory_path(tmp_path), other)  # another writer replaced the file
    _same(remembered_routing(tmp_path, CONTEXT), other)


def test_the_file_is_rewritten_after_a_full_pass_and_once_it_lags_too_far(tmp_path, monkeypatch):
    """A long-lived writer does not rewrite the file for every edit: it keeps its newer memory with the file it
    descends from until the file lags ``most_behind`` notes; a fresh process then reads those notes again and
    goes on as the writer does."""
    monkeypatch.setattr(routing_memory, "_kept", KeptByIdentity(limit=2))
    monkeypatch.setattr(routing_memory, "BEHIND_AT_LEAST", 2)
    notes = synthetic_notes(7, 300)
    writer = RoutingMemory(tolerance=float("inf"))  # every edit remembered: what is checked is the file's lag
    writer.route(notes, fake_embed, 0.5, RULES, context=CONTEXT[2])
    keep_routing(tmp_path, writer)
    written = memory_path(tmp_path).stat().st_mtime_ns
    ok = notes.filter(pl.col("status") == "ok")["path"].to_list()
    stamps = []
    for i in range(4):  # one note edited a run: the file lags 1, 2 (kept), 3 (written), then 1
        notes = notes.with_columns(
            pl.when(pl.col("path") == ok[i]).then(pl.col("body") + " moon").otherwise(pl.col("body")).alias("body")
        )
        writer.route(notes, fake_embed, 0.5, RULES, context=CONTEXT[2])
        assert (writer.how, writer.read_afresh) == ("remembered", 1)
        keep_routing(tmp_path, writer)
        assert remembered_routing(tmp_path, CONTEXT) is writer.last  # its own memory, newer than the file
        stamps.append(memory_path(tmp_path).stat().st_mtime_ns)
    assert stamps[0] == stamps[1] == written < stamps[2] == stamps[3]

    fresh = RoutingMemory(tolerance=float("inf"), last=load_remembered(memory_path(tmp_path), CONTEXT))
    got = fresh.route(notes, fake_embed, 0.5, RULES, context=CONTEXT[2])
    assert fresh.read_afresh == 1  # the note edited since the file was written
    assert got.equals(writer.route(notes, fake_embed, 0.5, RULES, context=CONTEXT[2]))


def test_a_note_gone_or_made_private_leaves_the_file_at_once(tmp_path, monkeypatch):
    """A private note leaves no trace: the file is rewritten in the run that no longer routes the note, whatever
    the lag allowance, and holds neither its path nor its row."""
    monkeypatch.setattr(routing_memory, "_kept", KeptByIdentity(limit=2))
    notes = synthetic_notes(8, 300)
    writer = RoutingMemory(tolerance=float("inf"))
    writer.route(notes, fake_embed, 0.5, RULES, context=CONTEXT[2])
    keep_routing(tmp_path, writer)
    gone = notes.filter(pl.col("status") == "ok")["path"][5]
    private = notes.with_columns(
        pl.when(pl.col("path") == gone).then(pl.lit("private")).otherwise(pl.col("status")).alias("status")
    )
    writer.route(private, fake_embed, 0.5, RULES, context=CONTEXT[2])
    assert (writer.how, writer.forgotten) == ("remembered", 1)
    keep_routing(tmp_path, writer)
    on_disk = load_remembered(memory_path(tmp_path), CONTEXT)
    assert gone not in on_disk.inputs.paths.tolist() and len(on_disk.hashes) == len(writer.last.hashes)
    assert json.dumps(gone).encode() not in memory_path(tmp_path).read_bytes()
