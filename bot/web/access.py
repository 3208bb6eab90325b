"""Who may read private projects' stories: the holder of `[web] token`.

A reader proves it with `Authorization: Bearer TOKEN`, with `?token=TOKEN` (a browser's
first visit), or with the cookie such a visit sets. Every comparison is constant-time
(`hmac.compare_digest`), and the cookie carries a keyed digest of the token, never the
token itself. Without a configured token, private stories are served to nobody.

Whatever a request offers is compared as bytes (`_raw`): a header or cookie byte that is
not UTF-8 (aiohttp hands it on as a lone surrogate) is simply not the token, and the
reader sees what any reader without it sees, rather than a 500.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable

from aiohttp import web
from pydantic import SecretStr

COOKIE = "wire_archive"
_COOKIE_CONTEXT = b"the-wire archive cookie v1"


def _raw(text: str) -> bytes:
    """`text` as bytes, lone surrogates included: distinct strings stay distinct."""
    return text.encode("utf-8", "surrogatepass")


class Access:
    """The private repositories and the token that unlocks them."""

    def __init__(self, *, private_repos: Iterable[str], token: SecretStr | None) -> None:
        self.private_repos = frozenset(repo.lower() for repo in private_repos)
        secret = _raw(token.get_secret_value()) if token is not None else b""
        self._token = secret or None
        self._cookie = hmac.new(secret, _COOKIE_CONTEXT, hashlib.sha256).hexdigest()

    def _is_token(self, offered: str | None) -> bool:
        if self._token is None or not offered:
            return False
        return hmac.compare_digest(_raw(offered), self._token)

    def offered_in_query(self, request: web.Request) -> bool:
        """True when `?token=` carries the right token (the caller then sets the cookie)."""
        return self._is_token(request.query.get("token"))

    def authorized(self, request: web.Request) -> bool:
        """True when the request carries the token: bearer header, query or cookie."""
        if self._token is None:
            return False
        scheme, _, credentials = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() == "bearer" and self._is_token(credentials.strip()):
            return True
        if self.offered_in_query(request):
            return True
        cookie = request.cookies.get(COOKIE, "")
        return bool(cookie) and hmac.compare_digest(_raw(cookie), self._cookie.encode())

    def hidden(self, request: web.Request) -> frozenset[str]:
        """The repositories whose stories this request may not see."""
        return frozenset() if self.authorized(request) else self.private_repos

    def remember(self, request: web.Request, response: web.StreamResponse) -> None:
        """After a visit with the right `?token=`, keep the reader in with a cookie."""
        if self.offered_in_query(request):
            response.set_cookie(
                COOKIE,
                self._cookie,
                httponly=True,
                samesite="Strict",
                path="/",
                secure=request.secure,
            )
