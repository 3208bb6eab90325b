"""The Wire's distribution side: everything that talks to people or keeps state.

Packages, lowest first; a package imports only from those above it in this list
(`tests/test_architecture.py` holds the code to it):

    errors, settings, settings_sections, config_errors   leaves: the error tree, the
                 typed configuration and its sections (one model a table), and the
                 one-sentence account of what is wrong with a config file
    metrics, logs, progress           leaves: Prometheus metrics, text or JSON log
                 lines, and progress of long work on a terminal or in a log
    store/       SQLAlchemy tables, migrations and the repositories over them
    delivery/    the outbox worker, pacing, story parts and the Platform protocol
    acks/        acknowledgements, reminders and the unacknowledged-item query
    schedule/    windows, cron triggers, the leader lock and the newsroom that composes
    commands/    the one `/wire` grammar, its targets, handlers and neutral replies
    chat/        what a chat platform plugs into: the Adapter protocol and the Hub
    slack/, discord/   the platforms
    realtime/    GitHub webhooks, polling and bulletins for [immediate] items
    web/         the story archive pages and /metrics
                 (none of these four imports another of them)
    app/         the service, its web server and front ends, and the `wire` CLI

`bot` may import `digest`; `digest` never imports `bot`.
"""
