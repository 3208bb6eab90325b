"""GitHub's webhook signature: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`,
keyed with the webhook's secret, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac

PREFIX = "sha256="


def signature_of(body: bytes, secret: str) -> str:
    """The `X-Hub-Signature-256` value GitHub sends with `body`."""
    return PREFIX + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def is_signed(body: bytes, header: str | None, secret: str) -> bool:
    """True when `header` is the signature of `body` under `secret`; a missing or malformed
    header is simply not a signature. The comparison takes the same time whatever differs."""
    if not header or not header.startswith(PREFIX):
        return False
    return hmac.compare_digest(header.encode(), signature_of(body, secret).encode())
