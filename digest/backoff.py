"""The one back-off of the house, for GitHub's answers and for chat platforms' alike."""

from __future__ import annotations

import random


def full_jitter(attempt: int, *, base: float, cap: float, rng: random.Random) -> float:
    """Seconds to wait after failed attempt number `attempt` (1-based): a uniform draw in
    [0, min(cap, base·2^(attempt-1))], "full jitter", so that clients retrying the same
    failure spread out instead of returning together."""
    return rng.uniform(0, min(cap, base * 2 ** max(attempt - 1, 0)))
