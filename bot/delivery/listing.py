"""The outbox as `wire deliveries` lists it: newest first, one line each."""

from __future__ import annotations

from bot.store import DeliveryInfo, Store


async def list_deliveries(
    store: Store, *, state: str | None = None, channel: str | None = None, limit: int = 50
) -> list[DeliveryInfo]:
    """Deliveries for `wire deliveries`, newest first: state, headline, channel, attempts,
    last error (see `DeliveryInfo`)."""
    return await store.listing.list(state=state, channel=channel, limit=limit)


def describe(info: DeliveryInfo) -> str:
    """One line about a delivery, e.g. for a plain-text listing."""
    error = f" — {info.last_error}" if info.last_error else ""
    return (
        f"#{info.id} {info.state:<11} {info.platform}:{info.channel} "
        f"attempts={info.attempts} parts={info.parts_posted} {info.headline!r}{error}"
    )
