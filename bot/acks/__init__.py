"""Acknowledgements of [immediate] items and the reminder for the ones nobody acknowledged.

escalate.py  record an ack, re-render the item's message, send the single reminder
unacked.py   the query for items still unacknowledged

Imports delivery (to re-render through a Platform) and the store.
"""
