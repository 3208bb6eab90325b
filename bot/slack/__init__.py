"""The Slack adapter: Block Kit rendering (pure), the Web API platform and the bolt app (thin).

`escape` makes untrusted text safe for mrkdwn, `render` turns a story part into messages
(within Slack's limits, which `limits` keeps by splitting), `platform` posts and edits
them, `frontend` (the bolt app) takes `/wire`, Acknowledge buttons and ✅ reactions, and
`adapter` plugs both into `wire run` (HTTP mode or Socket Mode).
"""
