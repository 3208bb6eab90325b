"""The `/wire` command layer, shared by every platform and the console.

grammar.py   the one parser: text → a typed command, or a hint of what would work
targets.py   what a subscription target names (project, topic, owner/repo), checked against config
handlers.py  each command's effect on the store, answered as a neutral reply
open_door.py OWNER/REPO nobody configured: asked of GitHub, admitted if public (open subscriptions)
open_replies.py  the sentences of open subscriptions (refusals name their setting)
replies.py   replies as platform-neutral structures that each adapter renders

Imports schedule (for previews), acks, delivery and the store; never a chat platform.
"""
