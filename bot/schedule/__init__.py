"""Scheduling: which window is due for which channel, and composing it once per filter.

scheduler.py  the due-window pass: one composition per distinct filter, one delivery per channel
newsroom.py   sources and composition of a window for a set of subscriptions
crontab.py    schedules (`weekdays 09:00 Europe/Berlin`) as APScheduler triggers
leader.py     the PostgreSQL advisory lock that makes one replica the scheduler

Imports acks, delivery, the store and `digest`.
"""
