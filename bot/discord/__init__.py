"""Discord: the platform that posts stories as threads and the front end that takes `/wire`,
Acknowledge buttons and ✅ reactions.

escape.py   untrusted text made inert; whom a message may ping
render.py   story parts as message payloads (pure)
limits.py   Discord's limits and the splitting that keeps them (pure)
views.py    the persistent Acknowledge button
platform.py posting and editing over REST (the Platform protocol)
commands.py the `/wire` application command group
frontend.py the discord.py client: commands, buttons, reactions, through the hub
adapter.py  all of it as an adapter of `wire run`
"""
