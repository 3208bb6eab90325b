"""What delivery attempts produce and how they are spaced: the run summary, each part's
idempotency key, the back-off between attempts and the worker's id."""

from __future__ import annotations

import os
import random
import socket
from dataclasses import dataclass, fields

from digest.backoff import full_jitter


@dataclass
class Summary:
    """What a run did: deliveries claimed and how each ended, and parts posted."""

    claimed: int = 0
    delivered: int = 0
    retried: int = 0
    dead: int = 0
    released: int = 0
    lost: int = 0
    parts_posted: int = 0

    def __iadd__(self, other: Summary) -> Summary:
        for field in fields(self):
            setattr(self, field.name, getattr(self, field.name) + getattr(other, field.name))
        return self


def part_key(delivery_id: int, part_index: int) -> str:
    """The idempotency key of one part of one delivery."""
    return f"{delivery_id}.{part_index}"


def backoff(
    attempts: int, *, base: float, cap: float, retry_after: float | None, rng: random.Random
) -> float:
    """Seconds to wait after failed attempt number `attempts` (1-based): full jitter
    (`digest.backoff`), but never less than the platform's `retry_after`."""
    return max(full_jitter(attempts, base=base, cap=cap, rng=rng), retry_after or 0.0)


def default_worker_id() -> str:
    """host:pid plus a random suffix, unique among live workers."""
    return f"{socket.gethostname()}:{os.getpid()}:{random.randrange(16**6):06x}"
