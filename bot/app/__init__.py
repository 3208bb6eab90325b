"""The application: the long-running service, its web server and front ends, and the CLI.

service.py       wires store, scheduler, worker, adapters and front ends into `wire run`
frontends.py     the web server, and front ends held by one replica at a time
cli.py           `wire digest` / `wire export`; service_cli.py: `wire run`, `console`, …

The top of the house: it may import every other package; nothing imports it.
"""
