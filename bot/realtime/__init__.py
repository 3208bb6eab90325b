"""Real-time bulletins: an [immediate] item reaches its channels as the change lands.

    GitHub ──POST /github/webhook──► receiver ──► store.webhooks (pending)
                                                     │  processor (every replica)
    poller (leader, every poll_interval) ─┐          ▼
                                          └──► newsdesk: the project's source → classify and
                                               compose one change (digest rules) → bulletin
                                               → store.deliveries (the outbox) → platforms

signature.py  X-Hub-Signature-256, in constant time
payloads.py   the webhook payload fields read, and a delivery → `Hint` (or ignored)
receiver.py   the aiohttp route: verify, cap, dedupe by X-GitHub-Delivery, store, answer
processor.py  stored deliveries → the activities they announce → the newsdesk
bulletins.py  the newsdesk: judge a change once, cut its story to a bulletin, fan it out
releases.py   the release desk: a story per release or security fix, for the channels that
              follow only those (`/wire subscribe OWNER/REPO releases|security`)
poller.py     polling of projects without a fresh webhook, with the source's ETags
open_watch.py repositories added from chat at poll time: re-checked, withdrawn, dropped
frontend.py   `Realtime`, the front end `wire run` starts

The following digest of a channel notes each delivered bulletin instead of repeating its
action item (`bot.schedule.reported`). Imports schedule, store, settings and `digest`.
"""

from bot.realtime.frontend import Realtime

__all__ = ["Realtime"]
