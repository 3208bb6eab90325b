"""Discord: escaping, rendering of story parts as message payloads, and the Acknowledge view.

The client wiring (gateway, application commands, the Platform implementation) builds on
these pure pieces.
"""
