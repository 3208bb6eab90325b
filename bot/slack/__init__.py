"""The Slack adapter: Block Kit rendering (pure) and the Web API platform (thin).

`escape` makes untrusted text safe for mrkdwn, `blocks` turns a story part into messages,
`pacing` keeps posts under Slack's rate limits, `platform` posts and edits them.
"""
