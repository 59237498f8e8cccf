"""Who may talk to the HTTP transport: a bearer token and local Host/Origin headers only.

stdio needs neither (the assistant launched the process and owns its pipes). Over
HTTP any program on the machine, and any web page the person opens, can reach
127.0.0.1; the token keeps out the first, the Host/Origin check (the SDK's
DNS-rebinding protection) the second. Both are the SDK's own machinery: a
:class:`TokenVerifier` behind its bearer middleware (401 with ``WWW-Authenticate``)
and :class:`TransportSecuritySettings` (421 for a foreign Host, 403 for a foreign Origin).
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat
from pathlib import Path

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings

from lucasrag.settings import Settings

TOKEN_ENV = "LUCASRAG_MCP_TOKEN"
HOST = "127.0.0.1"
PATH = "/mcp"


class TokenFileError(PermissionError):
    """The token file exists but others could read it; the message says how to fix it."""


def token_path(settings: Settings) -> Path:
    return settings.data / "mcp" / "token"


def load_or_create_token(settings: Settings) -> tuple[str, str]:
    """The bearer token and where it came from: ``LUCASRAG_MCP_TOKEN``, else the token
    file under ``LUCASRAG_DATA`` (created on first use, mode 0600)."""
    given = os.environ.get(TOKEN_ENV, "").strip()
    if given:
        return given, TOKEN_ENV
    path = token_path(settings)
    if path.is_file():
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise TokenFileError(f"{path} is readable by others (mode {mode:04o}): run `chmod 600 {path}`")
        return path.read_text(encoding="utf-8").strip(), str(path)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.parent.chmod(0o700)  # mkdir's mode is masked by the umask: the token's folder is the owner's alone
    token = secrets.token_urlsafe(32)
    # O_EXCL: two servers starting at once never overwrite each other's token.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(token + "\n")
    return token, str(path)


class StaticTokenVerifier:
    """Accepts exactly one token (compared in constant time)."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("an empty bearer token would let anyone in")
        self._token = token

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode(), self._token.encode()):
            return AccessToken(token=token, client_id="lucasrag-local", scopes=[])
        return None


def auth_settings(port: int) -> AuthSettings:
    """Bearer-only: no authorization server and no OAuth routes are mounted (``resource_server_url``
    is None); ``issuer_url`` is required by the model and names this server."""
    return AuthSettings(issuer_url=f"http://{HOST}:{port}", resource_server_url=None)


def transport_security(port: int) -> TransportSecuritySettings:
    """Host and Origin must name this machine's loopback on this port (DNS-rebinding protection)."""
    hosts = [f"{HOST}:{port}", f"localhost:{port}", f"[::1]:{port}"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{h}" for h in hosts],
    )


def serve_http(server, port: int) -> None:
    """Run an MCP ``server`` (built with this module's token verifier and ``auth_settings``) over streamable
    HTTP on the loopback: JSON responses (no event stream per call) and the Host/Origin checks above."""
    import anyio

    anyio.run(
        lambda: server.run_streamable_http_async(
            host=HOST,
            port=port,
            streamable_http_path=PATH,
            json_response=True,
            transport_security=transport_security(port),
        )
    )
