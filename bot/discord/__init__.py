"""Discord: the platform that posts stories as threads and the front end that takes `/wire`,
Acknowledge buttons and ✅ reactions.

escape.py   untrusted text made inert; whom a message may ping
render.py   story parts as message payloads within Discord's limits (pure)
views.py    the persistent Acknowledge button
platform.py posting and editing over REST (the Platform protocol)
commands.py the `/wire` application command group
client.py   the discord.py client: commands, buttons, reactions, through the hub
adapter.py  all of it as an adapter of `wire run`
"""
