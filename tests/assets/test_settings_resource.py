"""Every setting reaches the assets through the Dagster resource, whole, and never through the environment.

For each field of :class:`Settings` a non-default value is given the three ways a run gets its settings
(``run_ingest(settings)`` from Python, the run config a multiprocess or Kubernetes run carries, the
environment the CLI and a code location read), and the resource's ``get()`` inside a materialisation must
return it. Then real ingests show that the ingestion knobs change what the assets produce.
"""

from __future__ import annotations

import ast
import datetime as dt
import os
import shutil
from dataclasses import fields, replace
from pathlib import Path

import polars as pl
import pytest
from dagster import DagsterInstance, EnvVar, asset, materialize
from dagster._serdes import serialize_value

from lucasrag.settings import ENV_VARS, SECRET_FIELDS, Settings, SettingsError
from lucasrag_assets.ingest import run_config, run_ingest
from lucasrag_assets.io_manager import asset_value_path
from lucasrag_assets.resources import LucasragSettings

REPO = Path(__file__).resolve().parents[2]
SAMPLE_VAULT = REPO / "vault"
NOW = dt.date(2026, 6, 1)  # any fixed day (the hermetic fixture pins the same one)

SECRET = "s3cret-pw"
# A non-default value for every setting: (the value, the same as the environment writes it).
NON_DEFAULT: dict[str, tuple[object, str]] = {
    "vault": (Path("/srv/notes/vault"), "/srv/notes/vault"),
    "data": (Path("/srv/notes/data"), "/srv/notes/data"),
    "now": (dt.date(2031, 2, 3), "2031-02-03"),
    "profile": ("production", "production"),
    "max_note_bytes": (4096, "4096"),
    "archive_after_years": (7, "7"),
    "route_threshold": (0.73, "0.73"),
    "chunk_tokens": (64, "64"),
    "embedding_model": ("bge-small", "bge-small"),
    "candidates_per_workspace": (11, "11"),
    "top_k": (9, "9"),
    "reranker_url": ("http://rr:8012", "http://rr:8012"),
    "reranker_timeout_s": (2.5, "2.5"),
    "rerank_max_chars": (640, "640"),
    "rescore": (False, "0"),
    "graph": (False, "0"),
    "llm_url": (f"http://llm:{SECRET}@llm.lan:8080/v1", f"http://llm:{SECRET}@llm.lan:8080/v1"),
    "llm_model": ("qwen-small", "qwen-small"),
    "llm_timeout_s": (33.0, "33"),
    "postgres_dsn": (f"postgresql://app:{SECRET}@db:5432/notes", f"postgresql://app:{SECRET}@db:5432/notes"),
    "neo4j_uri": ("bolt://graph:7687", "bolt://graph:7687"),
    "neo4j_user": ("reader", "reader"),
    "neo4j_password": (SECRET, SECRET),
}
SETTING_NAMES = [f.name for f in fields(Settings)]
BASE = Settings(vault=Path("/srv/base/vault"), data=Path("/srv/base/data"), now=NOW)


@asset
def settings_probe(lucasrag: LucasragSettings) -> Settings:
    """What an asset sees."""
    return lucasrag.get()


def seen_by_asset(resource: LucasragSettings, run_config: dict | None = None, instance=None) -> Settings:
    result = materialize([settings_probe], resources={"lucasrag": resource}, run_config=run_config, instance=instance)
    return result.output_for_node("settings_probe")


def test_the_resource_has_every_setting_and_the_table_covers_them():
    assert set(LucasragSettings.model_fields) - {"secrets"} == set(SETTING_NAMES)
    assert set(NON_DEFAULT) == set(SETTING_NAMES) == set(ENV_VARS)
    defaults = Settings.from_env()
    for name, (value, _) in NON_DEFAULT.items():
        assert value != getattr(defaults, name), name


@pytest.mark.parametrize("name", SETTING_NAMES)
def test_a_value_given_to_run_ingest_arrives_in_the_asset(name):
    """``run_ingest(settings)`` builds its resource with ``LucasragSettings.from_settings``."""
    given = replace(BASE, **{name: NON_DEFAULT[name][0]})
    assert seen_by_asset(LucasragSettings.from_settings(given)) == given


@pytest.mark.parametrize("name", SETTING_NAMES)
def test_a_value_in_the_run_config_arrives_in_a_step_that_rebuilds_its_settings(name, monkeypatch):
    """What a multiprocess (or Kubernetes) run carries: the code location's default resource, replaced by
    the run config; a secret travels as the name of its environment variable."""
    value, text = NON_DEFAULT[name]
    given = replace(BASE, **{name: value})
    if name in SECRET_FIELDS:
        monkeypatch.setenv(ENV_VARS[name], text)
    config = run_config(given)
    assert SECRET not in repr(config)
    assert seen_by_asset(LucasragSettings(), run_config=config) == given


@pytest.mark.parametrize("name", SETTING_NAMES)
def test_a_value_in_the_environment_arrives_in_the_asset(name, monkeypatch):
    """The CLI reads ``Settings.from_env()``; ``dagster dev`` loads ``LucasragSettings.from_env()``."""
    value, text = NON_DEFAULT[name]
    monkeypatch.setenv(ENV_VARS[name], text)
    from_env = Settings.from_env()
    assert getattr(from_env, name) == value
    for resource in (LucasragSettings.from_settings(from_env), LucasragSettings.from_env()):
        assert getattr(seen_by_asset(resource), name) == value


def test_secrets_stay_out_of_dagsters_run_records(tmp_path, monkeypatch):
    """A secret from the environment is stored as its variable's name; one given in code is held in
    memory only. Neither reaches the run, its config or the job snapshot Dagster keeps."""
    monkeypatch.setenv("LUCASRAG_NEO4J_PASSWORD", SECRET)
    given = replace(BASE, neo4j_password=SECRET, postgres_dsn=NON_DEFAULT["postgres_dsn"][0])
    resource = LucasragSettings.from_settings(given)
    assert isinstance(resource.neo4j_password, EnvVar) and resource.postgres_dsn is None  # the DSN: in memory
    with DagsterInstance.ephemeral() as instance:
        assert seen_by_asset(resource, instance=instance) == given
        (run,) = instance.get_runs()
        stored = serialize_value(run) + serialize_value(instance.get_job_snapshot(run.job_snapshot_id))
        assert "LUCASRAG_NEO4J_PASSWORD" in stored
        assert SECRET not in stored
    with pytest.raises(SettingsError, match="LUCASRAG_POSTGRES_DSN"):
        run_config(given)  # another process could not read the in-code DSN: refused, not dropped


def test_a_multiprocess_run_refuses_a_secret_it_cannot_pass(tmp_path, settings_for):
    """A password given in code is in no step process's environment: named before the run, not dropped."""
    settings = replace(settings_for(tmp_path, tmp_path), llm_url="http://u:pw@llm:1/v1")
    with pytest.raises(SettingsError, match="LUCASRAG_LLM_URL"):
        run_ingest(settings, multiprocess=True)


def test_a_bad_profile_in_the_config_is_named():
    with pytest.raises(SettingsError, match="LUCASRAG_PROFILE"):
        LucasragSettings(profile="staging").get()


# --------------------------------------------------------------------------- real ingests

DATED = "tech/2022-07-14 remote terraform state.md"
TINY_VAULT = ["tech", "admin/tessellate contract.md", "admin/pension transfer.md", ".lucasrag"]


def tiny_vault(dest: Path) -> Path:
    for part in TINY_VAULT:
        source = SAMPLE_VAULT / part
        if source.is_dir():
            shutil.copytree(source, dest / part)
        else:
            (dest / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, dest / part)
    # Labelled (placed at any threshold) and banded by its date alone: the archive age decides its band.
    (dest / DATED).write_text(
        "---\nworkspace: technical\ndate: 2022-07-14\n---\n# Terraform state\n\n"
        "Moved the terraform state to a remote backend with locking; plan and apply from CI only.\n"
    )
    return dest


def asset_frame(settings: Settings, name: str) -> pl.DataFrame:
    return pl.read_parquet(asset_value_path(settings.data, [name]))


@pytest.mark.slow
def test_ingestion_settings_change_what_the_assets_produce(tmp_path, settings_for):
    """Route threshold, chunk size, archive age and size cap given to ``run_ingest`` change routing,
    chunking, banding and validation; the process environment is the same before and after."""
    vault = tiny_vault(tmp_path / "vault")
    default = settings_for(vault, tmp_path / "default", graph=False)
    changed = replace(
        default,
        data=tmp_path / "changed",
        route_threshold=1.0,  # only frontmatter labels (confidence 1.0) pass: the cold-start router is sure of the rest
        chunk_tokens=48,
        archive_after_years=5,
        max_note_bytes=1500,
    )
    import lucasrag.index._lightrag  # noqa: F401 — the adapter sets LightRAG's own variables at import (allowed)

    environment = dict(os.environ)
    run_ingest(default)
    run_ingest(changed)
    assert dict(os.environ) == environment

    routed = {s.data: asset_frame(s, "routed_documents") for s in (default, changed)}
    held = {s.data: asset_frame(s, "quarantine") for s in (default, changed)}
    for settings in (default, changed):  # routing: placed at or above this run's threshold, held below it
        assert (routed[settings.data]["confidence"] >= settings.route_threshold).all()
        low = held[settings.data].filter(pl.col("reason").str.starts_with("low confidence"))
        assert all(f"< threshold {settings.route_threshold:.2f}" in reason for reason in low["reason"])
    assert held[changed.data].height > held[default.data].height

    chunks = {s.data: asset_frame(s, "banded_chunks") for s in (default, changed)}
    both = set(chunks[default.data]["path"]) & set(chunks[changed.data]["path"])
    per_note = {d: chunks[d].filter(pl.col("path").is_in(both)).height for d in chunks}
    assert per_note[changed.data] > per_note[default.data]  # 48-token chunks: more of them

    catalog = {s.data: asset_frame(s, "note_catalog") for s in (default, changed)}
    band = {d: c.filter(pl.col("path") == DATED)["band"].to_list() for d, c in catalog.items()}  # 3 years / 5
    assert band == {default.data: ["archival"], changed.data: ["present"]}
    invalid = {d: set(c.filter(pl.col("status") == "invalid")["path"]) for d, c in catalog.items()}
    too_big = {p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if p.stat().st_size > 1500}
    assert too_big and too_big <= invalid[changed.data] and not too_big & invalid[default.data]


# --------------------------------------------------------------------------- nothing writes the environment

ENVIRONMENT_WRITERS = {"putenv", "unsetenv"}
ENVIRON_MUTATORS = {"update", "pop", "setdefault", "clear", "popitem", "__setitem__", "__delitem__"}
ALLOWED = "lucasrag/index/_lightrag/"  # LightRAG reads its storage settings from the environment


def environment_writes(path: Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ENVIRONMENT_WRITERS or node.func.attr in ENVIRON_MUTATORS:
                target = node.func.value if node.func.attr in ENVIRON_MUTATORS else node.func
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
            for t in getattr(node, "targets", None) or [node.target]:
                if isinstance(t, ast.Subscript):
                    target = t.value
        if target is not None and ("environ" in ast.unparse(target) or ast.unparse(target).endswith("putenv")):
            lines.append(node.lineno)
    return lines


def test_only_the_lightrag_adapter_writes_the_environment(tmp_path):
    packages = [p.parent for p in REPO.glob("*/__init__.py") if p.parent.name != "tests"]
    offenders = [
        f"{path.relative_to(REPO)}:{line}"
        for package in packages
        for path in package.rglob("*.py")
        if not path.relative_to(REPO).as_posix().startswith(ALLOWED)
        for line in environment_writes(path)
    ]
    assert packages and not offenders, offenders
    sample = tmp_path / "writer.py"
    sample.write_text("import os\nos.environ['X'] = '1'\nos.environ.update(Y='2')\nos.putenv('Z', '3')\n")
    assert environment_writes(sample) == [2, 3, 4]  # the check itself can fail
