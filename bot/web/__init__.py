"""The web side of the service: the story archive and `/metrics`, on the web server of
`bot.app.frontends`.

    ArchiveSite(store=…, config=…, settings=settings.web).mount(app)   # /, /stories/{id}
    MetricsSite(store=…).mount(app)                                   # /metrics

Rank 7: it reads the store and renders stories; it imports no chat platform.
"""

from __future__ import annotations

from bot.web.metrics import MetricsSite
from bot.web.site import ArchiveSite

__all__ = ["ArchiveSite", "MetricsSite"]
