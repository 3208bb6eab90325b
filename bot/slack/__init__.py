"""The Slack adapter: Block Kit rendering (pure), the Web API platform and the bolt app (thin).

`escape` makes untrusted text safe for mrkdwn, `blocks` turns a story part into messages,
`platform` posts and edits them, `app` takes `/wire`, Acknowledge buttons and ✅ reactions,
and `adapter` plugs both into `wire run` (HTTP mode or Socket Mode).
"""
