"""What a chat platform plugs into: the Adapter protocol, the Hub its front end answers
through, the console adapter, and the registry that loads only the enabled adapters.

Imports commands, acks, delivery and settings; the platforms (slack/, discord/) import this.
"""
