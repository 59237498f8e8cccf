"""PostgreSQL connection strings (``LUCASRAG_POSTGRES_DSN``), read and written in one place.

A DSN comes as a URL (``postgresql://user:pw@host:5432/db?sslmode=require``) or as
libpq ``key=value`` conninfo (``host=h dbname=db``); libpq's own parser (through
``psycopg.conninfo``) reads both, percent-decoding included. What each consumer needs
is derived here: LightRAG's separate host/port/user/password/database settings, a
database next to the one named, the SQLAlchemy URL dagster-postgres wants, and the
``host:port`` an error message names (never the password).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, urlencode

from lucasrag.settings import mask_secrets

URL_SCHEMES = ("postgresql://", "postgres://")
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 5432
DEFAULT_USER = "postgres"
DEFAULT_DATABASE = "postgres"


class DsnError(ValueError):
    """A PostgreSQL DSN that libpq cannot read (the message says why, with the password masked)."""


@dataclass(frozen=True)
class PgAddress:
    """The parts of a DSN, libpq's defaults filled in where LucasRAG relies on them."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    user: str = DEFAULT_USER
    password: str | None = None
    database: str = DEFAULT_DATABASE
    #: every other conninfo key (sslmode, options, application_name, …), as given
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def sslmode(self) -> str | None:
        return dict(self.extra).get("sslmode")

    @property
    def where(self) -> str:
        """``host:port`` for messages (IPv6 in brackets)."""
        return f"{_url_host(self.host)}:{self.port}"


def _params(dsn: str) -> dict[str, str]:
    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict

    if not dsn or not dsn.strip():
        raise DsnError("the PostgreSQL DSN is empty (LUCASRAG_POSTGRES_DSN)")
    try:
        return {k: str(v) for k, v in conninfo_to_dict(dsn).items()}
    except ProgrammingError as exc:
        raise DsnError(f"not a PostgreSQL DSN ({exc}): {mask_secrets(dsn)}") from None


def parse(dsn: str) -> PgAddress:
    """Read a URL or ``key=value`` DSN; :class:`DsnError` says what is wrong with a bad one."""
    params = _params(dsn)
    port = params.pop("port", "") or str(DEFAULT_PORT)
    if not port.isdigit():
        raise DsnError(f"port {port!r} is not a number: {mask_secrets(dsn)}")
    host = params.pop("host", "") or params.pop("hostaddr", "") or DEFAULT_HOST
    params.pop("hostaddr", None)
    return PgAddress(
        host=host,
        port=int(port),
        user=params.pop("user", "") or DEFAULT_USER,
        password=params.pop("password", "") or None,
        database=params.pop("dbname", "") or DEFAULT_DATABASE,
        extra=tuple(sorted(params.items())),
    )


def is_url(dsn: str) -> bool:
    return dsn.startswith(URL_SCHEMES)


def where(dsn: str) -> str:
    """``host:port`` of a DSN for an error message; the masked DSN itself when unreadable."""
    try:
        return parse(dsn).where
    except DsnError:
        return mask_secrets(dsn) or ""


def to_url(address: PgAddress, scheme: str = "postgresql") -> str:
    """``scheme://user[:password]@host[:port]/database[?extra]``, every part percent-quoted."""
    auth = quote(address.user, safe="")
    if address.password:
        auth += ":" + quote(address.password, safe="")
    query = f"?{urlencode(address.extra)}" if address.extra else ""
    return f"{scheme}://{auth}@{_url_host(address.host)}:{address.port}/{quote(address.database, safe='')}{query}"


def with_database(dsn: str, database: str) -> str:
    """The same server, user and options with ``database`` instead; a URL stays a URL,
    ``key=value`` stays ``key=value``."""
    from psycopg.conninfo import make_conninfo

    if is_url(dsn):
        address = parse(dsn)
        return to_url(PgAddress(**{**address.__dict__, "database": database}))
    return make_conninfo(**{**_params(dsn), "dbname": database})


def sqlalchemy_url(dsn: str, driver: str = "psycopg2") -> str:
    """A SQLAlchemy URL (``postgresql+driver://``) for the DSN; one that already names a driver is kept."""
    if dsn.startswith(("postgresql+", "postgres+")):
        return dsn
    return to_url(parse(dsn), scheme=f"postgresql+{driver}")


def lightrag_settings(dsn: str) -> dict[str, str | int]:
    """The separate settings LightRAG's PostgreSQL storages read (it has no DSN setting).
    It insists on a password; a trust-auth server ignores the placeholder."""
    address = parse(dsn)
    return {
        "host": address.host,
        "port": address.port,
        "user": address.user,
        "password": address.password or "unused",
        "database": address.database,
    }


def _url_host(host: str) -> str:
    if host.startswith("/"):  # a Unix socket folder
        return quote(host, safe="")
    return f"[{host}]" if ":" in host else host
