"""Dagster resources: settings (embedded ↔ production by configuration) and progress."""

from pathlib import Path

from dagster import ConfigurableResource

from lucasrag.data_folder import open_data_folder
from lucasrag.embedding_cache import EmbeddingCache
from lucasrag.settings import Settings, parse_now


class LucasragSettings(ConfigurableResource):
    """Where the vault and the indexes are. Unset fields come from the environment
    (``LUCASRAG_VAULT``, ``LUCASRAG_DATA``, ``LUCASRAG_NOW``, ``LUCASRAG_PROFILE``)."""

    vault: str | None = None
    data: str | None = None
    now: str | None = None

    def get(self) -> Settings:
        overrides = {}
        if self.vault:
            overrides["vault"] = Path(self.vault).resolve()
        if self.data:
            overrides["data"] = Path(self.data).resolve()
        if self.now:
            overrides["now"] = parse_now(self.now)
        settings = Settings.from_env(**overrides)
        # Every run (CLI, `dagster dev`, sensor-launched) and the sensor pass here before they write:
        # the data folder is created 0700 (tightened once per process; run_ingest tightens after each run).
        open_data_folder(settings.data)
        return settings

    def embedding_cache(self) -> EmbeddingCache:
        return EmbeddingCache(self.get().data / "embeddings.sqlite")


class Progress:
    """Receives progress from long stages. The CLI swaps in a progress bar;
    in the Dagster UI the stages report through logs and metadata instead."""

    def update(self, stage: str, done: int, total: int) -> None:  # noqa: D102 - no-op by design
        pass
