"""Errors of the service side; every one derives from `digest.errors.WireError`.

Messages are whole sentences for a person, so a caller prints `str(error)` and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from digest.errors import ConfigError, WireError


class SettingsError(ConfigError):
    """One or more settings are missing or wrong; `problems` holds one sentence per setting."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


class StoreError(WireError):
    """The database could not be reached, migrated or used."""


class UnknownDeliveryError(StoreError):
    """A delivery id names no delivery."""

    def __init__(self, delivery_id: int) -> None:
        self.delivery_id = delivery_id
        super().__init__(f"there is no delivery with id {delivery_id}")


class LeaseLostError(StoreError):
    """A worker's claim on a delivery expired and another worker took it over."""

    def __init__(self, delivery_id: int, worker_id: str) -> None:
        self.delivery_id = delivery_id
        self.worker_id = worker_id
        super().__init__(
            f"worker {worker_id} no longer holds delivery {delivery_id}: its lease expired"
        )


class PlatformError(WireError):
    """A chat platform refused or failed to take a message."""


class RetryableError(PlatformError):
    """A failure that may pass: rate limit, timeout, 5xx. `retry_after` is the server's hint."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message)


def retry_after_header(headers: Mapping[str, Any] | None) -> float | None:
    """The seconds of a response's Retry-After header (any case; a list's first value), or
    None when it is missing or not a number."""
    for name, value in dict(headers or {}).items():
        if name.lower() == "retry-after":
            value = value[0] if isinstance(value, list | tuple) else value
            try:
                return float(value)
            except (TypeError, ValueError):
                return None
    return None


class PermanentError(PlatformError):
    """A failure that will not pass by retrying: unknown channel, revoked token, bad payload."""
