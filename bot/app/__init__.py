"""The application: the long-running service, its web server and front ends, and the CLI.

service.py       wires store, scheduler, worker, adapters and front ends into `wire run`
frontends.py     the web server, and front ends held by one replica at a time
cli.py           the `wire` command list; each command's module is imported when it runs:
digest_cli.py    `wire digest` / `wire export` (no service); service_cli.py: `run`, `console`, …
cli_options.py   the options and the one-sentence failure every command shares

The top of the house: it may import every other package; nothing imports it.
"""
