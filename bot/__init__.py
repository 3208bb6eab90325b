"""The Wire's distribution side: settings, store, platforms and the delivery worker.

`bot` may import `digest`; `digest` never imports `bot`.
"""
