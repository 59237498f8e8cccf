"""Settings, read from the environment in one place.

Every knob the pipeline and the query side share lives here, so that
``lucasrag ingest`` and ``lucasrag query`` can never disagree about where the
vault or the indexes are.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path

PROFILES = ("embedded", "production")


class SettingsError(ValueError):
    """A setting has a value that cannot be used; the message names the variable."""


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return value if value not in (None, "") else default


def _int(name: str, default: int) -> int:
    raw = _env(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not a whole number") from None


def _float(name: str, default: float) -> float:
    raw = _env(name)
    if raw is None:
        return default
    try:
        return float(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not a number") from None


def _bool(name: str, default: bool) -> bool:
    raw = _env(name)
    if raw is None:
        return default
    if raw.strip().lower() in ("1", "true", "yes", "on"):
        return True
    if raw.strip().lower() in ("0", "false", "no", "off"):
        return False
    raise SettingsError(f"{name}={raw!r} is not a switch: use 1/0, true/false, yes/no or on/off")


def parse_now(raw: str | None) -> dt.date:
    """``LUCASRAG_NOW`` (YYYY-MM-DD) or today."""
    if raw is None:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(raw)
    except ValueError:
        raise SettingsError(f"LUCASRAG_NOW={raw!r} is not a date in the form YYYY-MM-DD") from None


_URL_PASSWORD = re.compile(r"(?P<head>://[^:/@?#\s]*:)[^@/\s]*@")
_KV_PASSWORD = re.compile(r"(?P<head>\bpassword\s*=\s*)('[^']*'|\S+)", re.IGNORECASE)


def mask_secrets(text: str | None) -> str | None:
    """``text`` with the password of any URL (``scheme://user:pw@host``) or ``password=...``
    conninfo pair replaced by ``***``: for everything LucasRAG prints or logs."""
    if not text:
        return text
    text = _URL_PASSWORD.sub(lambda m: f"{m.group('head')}***@", text)
    return _KV_PASSWORD.sub(lambda m: f"{m.group('head')}***", text)


@dataclass(frozen=True)
class Settings:
    vault: Path
    data: Path
    now: dt.date
    profile: str = "embedded"
    # ingestion
    max_note_bytes: int = 1024 * 1024
    archive_after_years: int = 3
    route_threshold: float = 0.5
    chunk_tokens: int = 200
    # the model of chunk and query vectors (lucasrag.embedding_models.MODELS); routing stays on
    # the calibrated model whatever this says
    embedding_model: str = "minilm"
    # query
    candidates_per_workspace: int = 30
    top_k: int = 25
    reranker_url: str | None = None
    reranker_timeout_s: float = 10.0
    rerank_max_chars: int = 1200
    rescore: bool = True  # LUCASRAG_RESCORE=0 turns off the learned second stage over the fused top k (_rescore)
    # entity graph (see docs/graph.md)
    graph: bool = True  # LUCASRAG_GRAPH=0 turns it off (chunks only; docs/graph.md)
    llm_url: str | None = None
    llm_model: str = "local"
    llm_timeout_s: float = 120.0
    # production profile (see lucasrag.services)
    postgres_dsn: str | None = None
    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: str = field(default="", repr=False)

    @classmethod
    def from_env(cls, **overrides) -> Settings:
        profile = _env(ENV_VARS["profile"], "embedded")
        if profile not in PROFILES:
            raise SettingsError(f"LUCASRAG_PROFILE={profile!r}: expected one of {', '.join(PROFILES)}")
        read = {int: _int, float: _float, bool: _bool}
        values = {}
        for f in fields(cls):
            if f.name in ("vault", "data", "now", "profile"):
                continue
            kind = _FIELD_TYPES[f.name]
            values[f.name] = (
                read[kind](ENV_VARS[f.name], f.default) if kind in read else _env(ENV_VARS[f.name], f.default)
            )
        settings = cls(
            vault=Path(_env(ENV_VARS["vault"], "vault")).expanduser().resolve(),
            data=Path(_env(ENV_VARS["data"], ".lucasrag_data")).expanduser().resolve(),
            now=parse_now(_env(ENV_VARS["now"])),
            profile=profile,
            **values,
        )
        return replace(settings, **overrides) if overrides else settings

    def __post_init__(self) -> None:
        from lucasrag.embedding_models import MODELS

        if self.embedding_model not in MODELS:
            raise SettingsError(
                f"LUCASRAG_EMBEDDING_MODEL={self.embedding_model!r}: expected one of {', '.join(MODELS)}"
            )

    def __repr__(self) -> str:  # the DSN/URI may carry a password: never show it
        parts = []
        for f in fields(self):
            if not f.repr:
                continue
            value = getattr(self, f.name)
            if f.name in SECRET_FIELDS:
                value = mask_secrets(value)
            parts.append(f"{f.name}={value!r}")
        return f"Settings({', '.join(parts)})"

    @property
    def archive_cutoff(self) -> dt.date:
        """Notes dated before this day are archival (default: three years before now)."""
        try:
            return self.now.replace(year=self.now.year - self.archive_after_years)
        except ValueError:  # 29 February
            return self.now.replace(year=self.now.year - self.archive_after_years, day=28)

    @property
    def index_dir(self) -> Path:
        return self.data / "indexes"

    def workspace_dir(self, workspace: str) -> Path:
        return self.index_dir / workspace


# The environment variable of every setting: what the CLI reads, what a deployment sets.
ENV_VARS: dict[str, str] = {
    "vault": "LUCASRAG_VAULT",
    "data": "LUCASRAG_DATA",
    "now": "LUCASRAG_NOW",
    "profile": "LUCASRAG_PROFILE",
    "max_note_bytes": "LUCASRAG_MAX_NOTE_BYTES",
    "archive_after_years": "LUCASRAG_ARCHIVE_AFTER_YEARS",
    "route_threshold": "LUCASRAG_ROUTE_THRESHOLD",
    "chunk_tokens": "LUCASRAG_CHUNK_TOKENS",
    "embedding_model": "LUCASRAG_EMBEDDING_MODEL",
    "candidates_per_workspace": "LUCASRAG_CANDIDATES",
    "top_k": "LUCASRAG_TOP_K",
    "reranker_url": "LUCASRAG_RERANKER_URL",
    "reranker_timeout_s": "LUCASRAG_RERANKER_TIMEOUT",
    "rerank_max_chars": "LUCASRAG_RERANK_MAX_CHARS",
    "rescore": "LUCASRAG_RESCORE",
    "graph": "LUCASRAG_GRAPH",
    "llm_url": "LUCASRAG_LLM_URL",
    "llm_model": "LUCASRAG_LLM_MODEL",
    "llm_timeout_s": "LUCASRAG_LLM_TIMEOUT",
    "postgres_dsn": "LUCASRAG_POSTGRES_DSN",
    "neo4j_uri": "LUCASRAG_NEO4J_URI",
    "neo4j_user": "LUCASRAG_NEO4J_USER",
    "neo4j_password": "LUCASRAG_NEO4J_PASSWORD",
}
# Settings that are, or may carry, a password (a DSN or URL with user:password@): never written into
# plain configuration that is stored or shown (Dagster run records, logs).
SECRET_FIELDS = frozenset({"postgres_dsn", "neo4j_uri", "neo4j_password", "llm_url", "reranker_url"})
# The type of each scalar setting (the annotations are strings under ``from __future__ import annotations``).
_FIELD_TYPES: dict[str, type] = {
    f.name: type(f.default) if f.default not in (None, MISSING) else str for f in fields(Settings)
}
