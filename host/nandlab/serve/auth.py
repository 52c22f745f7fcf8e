"""Who may use the dashboard: anyone on this machine when it listens on loopback; with
any other address, only a browser that shows the token.

The token comes in once as `?token=...` (the address `nandlab serve` prints), and the
page keeps it as a cookie for the requests that follow (plots, progress events,
actions); scripts send `Authorization: Bearer <token>`.
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from nandlab.errors import UsageError

COOKIE = "nandlab_token"
LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    """Whether `host` (an address or "localhost") reaches this machine only."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def new_token() -> str:
    return secrets.token_urlsafe(24)


def read_token_file(path: Path) -> str:
    """The token in `path` (its first line); UsageError when unreadable or empty."""
    try:
        token = path.read_text().strip().splitlines()
    except OSError as exc:
        raise UsageError(f"token file {path} cannot be read: {exc.strerror}") from None
    if not token or len(token[0].strip()) < 16:
        raise UsageError(f"token file {path} must hold a token of 16 characters or more")
    return token[0].strip()


def offered_token(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return request.query_params.get("token") or request.cookies.get(COOKIE)


def token_guard(token: str) -> Callable[[Request, Callable[[Request], Awaitable[Response]]],
                                        Awaitable[Response]]:
    """HTTP middleware refusing (401) every request that does not carry `token`."""

    async def guard(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        offered = offered_token(request)
        if offered is None or not secrets.compare_digest(offered.encode(), token.encode()):
            return PlainTextResponse(
                "401: this dashboard needs its token: open the address `nandlab serve` "
                "printed (…/?token=…)",
                status_code=401,
            )
        response = await call_next(request)
        if request.query_params.get("token"):
            response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
        return response

    return guard
