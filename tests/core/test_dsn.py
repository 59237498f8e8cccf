"""PostgreSQL DSNs: every form LucasRAG accepts, read and rewritten by ``lucasrag.dsn``."""

import pytest

from lucasrag import dsn
from lucasrag.dsn import DsnError, PgAddress

PARSE = [
    # (dsn, host, port, user, password, database, sslmode)
    ("postgresql://app:s3cret@db.example:6543/notes", "db.example", 6543, "app", "s3cret", "notes", None),
    ("postgres://app@db.example/notes", "db.example", 5432, "app", None, "notes", None),
    ("postgresql://", "127.0.0.1", 5432, "postgres", None, "postgres", None),
    ("postgresql://us%40r:p%2Fw@[::1]:5433/d%20b?sslmode=require", "::1", 5433, "us@r", "p/w", "d b", "require"),
    ("postgresql://u@%2Ftmp%2Fsock/db", "/tmp/sock", 5432, "u", None, "db", None),
    ("host=h port=5 user=p dbname=d", "h", 5, "p", None, "d", None),
    ("host=h password='it\\'s' sslmode=verify-full", "h", 5432, "postgres", "it's", "postgres", "verify-full"),
    ("hostaddr=10.0.0.7 dbname=x", "10.0.0.7", 5432, "postgres", None, "x", None),
]


@pytest.mark.parametrize(("text", "host", "port", "user", "password", "database", "sslmode"), PARSE)
def test_parse(text, host, port, user, password, database, sslmode):
    address = dsn.parse(text)
    assert (address.host, address.port, address.user, address.password, address.database, address.sslmode) == (
        host,
        port,
        user,
        password,
        database,
        sslmode,
    )


BAD = [
    ("", "empty"),
    ("   ", "empty"),
    ("nonsense", 'missing "="'),
    ("postgresql://app:hunter2@h:notaport/x", "port 'notaport' is not a number"),
]


@pytest.mark.parametrize(("text", "reason"), BAD)
def test_a_bad_dsn_says_why_and_never_shows_the_password(text, reason):
    with pytest.raises(DsnError, match=reason) as caught:
        dsn.parse(text)
    assert "hunter2" not in str(caught.value)


WHERE = [
    ("postgresql://app:pw@db.example:6543/notes", "db.example:6543"),
    ("host=::1 dbname=x", "[::1]:5432"),
    ("nonsense password=hunter2", "nonsense password=***"),  # unreadable: masked, not parsed
]


@pytest.mark.parametrize(("text", "expected"), WHERE)
def test_where_names_the_server_for_messages(text, expected):
    assert dsn.where(text) == expected


WITH_DATABASE = [
    ("postgresql://app:pw@h:5/admin", "postgresql://app:pw@h:5/lucasrag_t1"),
    (
        "postgresql://postgres@[::1]:5433/postgres?sslmode=require",
        "postgresql://postgres@[::1]:5433/lucasrag_t1?sslmode=require",
    ),
    ("host=h port=5 user=p dbname=admin", "host=h port=5 user=p dbname=lucasrag_t1"),
]


@pytest.mark.parametrize(("text", "expected"), WITH_DATABASE)
def test_with_database_keeps_the_form_and_everything_else(text, expected):
    result = dsn.with_database(text, "lucasrag_t1")
    assert sorted(result.split()) == sorted(expected.split())  # conninfo keys come back in libpq's order
    assert dsn.parse(result) == PgAddress(**{**dsn.parse(text).__dict__, "database": "lucasrag_t1"})


SQLALCHEMY = [
    ("postgresql://p:x@h:5/d", "postgresql+psycopg2://p:x@h:5/d"),
    ("host=h port=5 user=p dbname=d", "postgresql+psycopg2://p@h:5/d"),
    ("host=h user=p password=a@b dbname=d", "postgresql+psycopg2://p:a%40b@h:5432/d"),
    ("postgresql+psycopg://p@h:5/d", "postgresql+psycopg://p@h:5/d"),  # a driver already named: kept
]


@pytest.mark.parametrize(("text", "expected"), SQLALCHEMY)
def test_sqlalchemy_url(text, expected):
    assert dsn.sqlalchemy_url(text) == expected


LIGHTRAG = [
    (
        "postgresql://app:pw@h:6543/notes",
        {"host": "h", "port": 6543, "user": "app", "password": "pw", "database": "notes"},
    ),
    # LightRAG insists on a password; a trust-auth server ignores the placeholder
    (
        "postgresql://postgres@127.0.0.1:5555/lucasrag",
        {"host": "127.0.0.1", "port": 5555, "user": "postgres", "password": "unused", "database": "lucasrag"},
    ),
    ("dbname=x", {"host": "127.0.0.1", "port": 5432, "user": "postgres", "password": "unused", "database": "x"}),
]


@pytest.mark.parametrize(("text", "expected"), LIGHTRAG)
def test_lightrag_settings(text, expected):
    assert dsn.lightrag_settings(text) == expected


@pytest.mark.parametrize(
    "address",
    [
        PgAddress(),
        PgAddress(host="::1", port=1, user="a b", password="p@ss:/w", database="x/y"),
        PgAddress(host="/run/postgresql", database="d", extra=(("application_name", "lucasrag"),)),
    ],
)
def test_to_url_round_trips_through_libpq(address):
    assert dsn.parse(dsn.to_url(address)) == address
