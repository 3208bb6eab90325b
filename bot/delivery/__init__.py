"""Delivery: the outbox worker that posts each story's parts in order through a Platform.

worker.py    claims due deliveries, posts parts, retries with back-off, dead-letters;
             claims at once when this process queues a delivery, else every poll_interval
attempts.py  the run summary, part idempotency keys, the back-off, worker ids
followups.py an item's message refreshed with its acks; reminders in the story's thread
listing.py   the outbox as `wire deliveries` lists it
pacing.py    per-channel and per-minute budgets shared by the platforms
parts.py     a story cut into platform-neutral parts (parent, body, items, references)
platform.py  the Platform protocol, the console platform, and the shared key memory

Imports the store, settings and errors; nothing of commands, schedules or chat platforms.
"""
