"""The Dagster code location loads and has the shape the design card promises."""

from dagster import AssetKey

from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.definitions import defs


def test_definitions_load():
    defs.validate_loadable(defs)


def test_asset_graph_lineage():
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    expected = {"vault_notes", "routed_documents", "quarantine", "banded_chunks", "note_catalog"}
    assert expected | {f"{ws}_index" for ws in WORKSPACES} <= keys
    assert AssetKey("vault_notes") in graph.get(AssetKey("routed_documents")).parent_keys
    assert AssetKey("routed_documents") in graph.get(AssetKey("banded_chunks")).parent_keys
    for ws in WORKSPACES:
        assert AssetKey("banded_chunks") in graph.get(AssetKey(f"{ws}_index")).parent_keys


def test_quarantine_has_a_warning_check():
    checks = list(defs.resolve_asset_graph().asset_check_keys)
    assert any(c.asset_key == AssetKey("quarantine") and c.name == "quarantine_reviewed" for c in checks)


def test_automation_is_declared():
    assert defs.resolve_sensor_def("vault_changed").job_name == "ingest"
    for ws in WORKSPACES:
        schedule = defs.resolve_schedule_def(f"nightly_{ws}")
        job = defs.resolve_job_def(f"rebuild_{ws}")
        assert schedule.job_name == job.name
        assert {k.to_user_string() for k in job.asset_layer.selected_asset_keys} == {f"{ws}_index"}
    assert defs.resolve_job_def("approve_quarantined_note")
