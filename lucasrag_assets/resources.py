"""Dagster resources: settings (embedded ↔ production by configuration) and progress (``lucasrag.progress``)."""

import contextlib
import datetime as dt
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import get_args, get_type_hints

from dagster import ConfigurableResource, EnvVar, InitResourceContext, ResourceDependency

from lucasrag.data_folder import LOCK_HOLDER_TAG, exclusive_ingest, open_data_folder
from lucasrag.embedding_cache import EmbeddingCache
from lucasrag.settings import ENV_VARS, PROFILES, SECRET_FIELDS, Settings, SettingsError, mask_secrets, parse_now


@dataclass(frozen=True)
class InMemorySecrets:
    """Secrets given in code rather than through their environment variable (``run_ingest(settings)``
    from Python with a password of its own). A plain-object resource: Dagster stores no config of it,
    so the values never reach a run record or the UI; they exist only in this process."""

    values: dict[str, str] = field(default_factory=dict, repr=False)


def _config_fields() -> dict[str, object]:
    """A class namespace with one optional config field per :class:`Settings` field (paths and the date as
    strings): the resource's fields are derived, so a new setting reaches Dagster without a second list."""
    hints = get_type_hints(Settings)
    annotations: dict[str, object] = {}
    defaults: dict[str, object] = {"vault": "vault", "data": ".lucasrag_data"}  # relative to the working folder
    for f in fields(Settings):
        kind = hints[f.name]
        if kind in (Path, dt.date) or f.name in defaults:
            kind = str
        kind = next((a for a in get_args(kind) if a is not type(None)), kind)  # X | None → X
        if f.name in defaults:
            annotations[f.name] = kind
        else:
            annotations[f.name] = kind | None
            defaults[f.name] = None  # unset: the Settings default
    return {"__annotations__": annotations, **defaults}


_SettingsFields = type("_SettingsFields", (ConfigurableResource,), _config_fields())


class LucasragSettings(_SettingsFields):
    """Every :class:`~lucasrag.settings.Settings` field, as Dagster configuration: the one way settings
    reach the assets (a step in another process or pod rebuilds them from here, not from the
    environment). An unset field (None) takes the Settings default. Secrets (``SECRET_FIELDS``) are given
    as ``EnvVar`` (see :meth:`from_settings`), so run records hold the variable's name, not its value."""

    secrets: ResourceDependency[InMemorySecrets] = InMemorySecrets()

    @classmethod
    def from_settings(cls, settings: Settings) -> "LucasragSettings":
        """The resource for ``settings``, every field set; a secret that is its environment variable's
        value becomes ``EnvVar(name)``, one given in code goes to :class:`InMemorySecrets`."""
        values, in_memory = {}, {}
        for name, value in settings_config(settings, in_memory).items():
            values[name] = EnvVar(value["env"]) if isinstance(value, dict) else value
        return cls(**values, secrets=InMemorySecrets(in_memory))

    @classmethod
    def from_env(cls) -> "LucasragSettings":
        """The code location's resource (``dagster dev``, a deployment): the environment, read once."""
        return cls.from_settings(Settings.from_env())

    def get(self) -> Settings:
        values = {}
        for f in fields(Settings):
            value = getattr(self, f.name)
            if value is None:
                value = self.secrets.values.get(f.name)
            if value is not None:
                values[f.name] = value
        profile = values.get("profile", "embedded")
        if profile not in PROFILES:
            raise SettingsError(f"profile {profile!r} (LUCASRAG_PROFILE): expected one of {', '.join(PROFILES)}")
        values["vault"] = Path(values["vault"]).expanduser().resolve()
        values["data"] = Path(values["data"]).expanduser().resolve()
        values["now"] = parse_now(values.get("now"))
        settings = Settings(**values)
        # Every run (CLI, `dagster dev`, sensor-launched) and the sensor pass here before they write:
        # the data folder is created 0700 (tightened once per process; run_ingest tightens after each run).
        open_data_folder(settings.data)
        return settings

    @contextlib.contextmanager
    def yield_for_execution(self, context: InitResourceContext) -> Iterator["LucasragSettings"]:
        """Every run holds the data folder's ingest lock while its steps use these settings, however it
        was launched (the CLI, the UI, the vault sensor, a schedule): a run started while another ingest
        runs waits for it, with a warning in its log. A run launched by ``run_ingest`` carries that
        ingest's lock line as a tag and goes on under its lock. A sensor evaluating (no run) takes nothing.
        With the multiprocess executor each step process holds the lock for its own step."""
        run = context.dagster_run
        if run is None:
            yield self
            return
        with exclusive_ingest(self.get().data, notify=context.log.warning, holder=run.tags.get(LOCK_HOLDER_TAG)):
            yield self

    def embedding_cache(self, model: str | None = None) -> EmbeddingCache:
        """The vector cache of ``model`` (default: the index's ``embedding_model``)."""
        settings = self.get()
        return EmbeddingCache(settings.data / "embeddings.sqlite", model or settings.embedding_model)


def settings_config(settings: Settings, in_memory: dict[str, str] | None = None) -> dict[str, object]:
    """``settings`` as the ``lucasrag`` resource's config (what a run launched in other processes
    carries). A secret appears as ``{"env": NAME}`` when the environment holds that value, as itself
    when it carries no password; otherwise it goes into ``in_memory``, or, without one, is refused:
    a run outside this process can only read a secret from its own environment."""
    config: dict[str, object] = {}
    for f in fields(Settings):
        value = getattr(settings, f.name)
        if value is None or (f.name in SECRET_FIELDS and value == ""):
            continue
        if f.name in SECRET_FIELDS:
            env = ENV_VARS[f.name]
            if os.environ.get(env) == value:
                config[f.name] = {"env": env}
                continue
            if f.name != "neo4j_password" and mask_secrets(value) == value:
                config[f.name] = value
                continue
            if in_memory is None:
                raise SettingsError(
                    f"{f.name} carries a password that is not the value of {env}: a run outside this "
                    f"process reads secrets from its environment only (set {env})"
                )
            in_memory[f.name] = value
            continue
        config[f.name] = value.isoformat() if f.name == "now" else str(value) if isinstance(value, Path) else value
    return config
