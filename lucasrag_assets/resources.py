"""Dagster resources: settings (embedded ↔ production by configuration) and progress (``lucasrag.progress``)."""

from pathlib import Path

from dagster import ConfigurableResource

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
        return Settings.from_env(**overrides)

    def embedding_cache(self) -> EmbeddingCache:
        return EmbeddingCache(self.get().data / "embeddings.sqlite")
