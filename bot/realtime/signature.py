"""GitHub's webhook signature: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`,
keyed with the webhook's secret, compared in constant time.

`is_signed` checks a whole body; `Signing` checks one chunk by chunk as it arrives, and
`looks_like_signature` tells at once whether a header could be a signature at all.
"""

from __future__ import annotations

import hashlib
import hmac
import re

PREFIX = "sha256="
_SHAPE = re.compile(r"sha256=[0-9a-fA-F]{64}")


def signature_of(body: bytes, secret: str) -> str:
    """The `X-Hub-Signature-256` value GitHub sends with `body`."""
    return PREFIX + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def is_signed(body: bytes, header: str | None, secret: str) -> bool:
    """True when `header` is the signature of `body` under `secret`; a missing or malformed
    header is simply not a signature. The comparison takes the same time whatever differs."""
    if not header or not header.startswith(PREFIX):
        return False
    return hmac.compare_digest(header.encode(), signature_of(body, secret).encode())


def looks_like_signature(header: str | None) -> bool:
    """True when `header` has the shape of a signature (`sha256=` and 64 hex digits):
    anything else is refused before a byte of the body is read."""
    return header is not None and _SHAPE.fullmatch(header) is not None


class Signing:
    """The HMAC-SHA256 of a body fed to it chunk by chunk, under `secret`."""

    def __init__(self, secret: str) -> None:
        self._mac = hmac.new(secret.encode(), digestmod=hashlib.sha256)

    def update(self, chunk: bytes) -> None:
        """Add the next chunk of the body."""
        self._mac.update(chunk)

    def matches(self, header: str | None) -> bool:
        """True when `header` is the signature of the chunks fed so far (constant time)."""
        if not header or not header.startswith(PREFIX):
            return False
        expected = PREFIX + self._mac.hexdigest()
        return hmac.compare_digest(header.encode(), expected.encode())
