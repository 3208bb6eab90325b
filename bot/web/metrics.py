"""`GET /metrics`: the service's Prometheus metrics (see `bot.metrics`).

The outbox depth is read from the store on each scrape; every other figure is counted
where it happens.
"""

from __future__ import annotations

import logging

from aiohttp import web

from bot import metrics
from bot.store import Store

log = logging.getLogger("wire.web.metrics")


class MetricsSite:
    """Serves `/metrics` on a web server that runs anyway (it starts none by itself)."""

    def __init__(self, *, store: Store, instance: metrics.Metrics | None = None) -> None:
        self.store = store
        self.instance = instance

    def mount(self, app: web.Application) -> bool:
        """Add `/metrics`; False: metrics alone are no reason to open a port."""
        app.router.add_get("/metrics", self.scrape)
        return False

    async def scrape(self, _request: web.Request) -> web.Response:
        """The Prometheus text format, with the outbox depth read now."""
        target = self.instance or metrics.active()
        try:
            counts = await self.store.listing.counts()
        except Exception as error:  # a scrape still answers when the database does not
            log.warning("could not read the outbox depth: %s", error)
        else:
            for state, count in counts.items():
                target.outbox.labels(state=state).set(count)
        body, content_type = metrics.render(target)
        response = web.Response(body=body)
        response.headers["Content-Type"] = content_type
        return response
