# The Wire — two-stage image: the builder installs the package into a virtualenv, the
# runtime image carries only that virtualenv, git, the configuration and the demo data, and
# runs as an unprivileged user.
#
#   docker build -t the-wire .
#   docker run --rm the-wire run --once --config config/demo.toml     # the demo, no tokens
#   docker compose up                                                  # with PostgreSQL 16

# ---------------------------------------------------------------- builder
FROM python:3.11-slim AS builder

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1

WORKDIR /src
RUN python -m venv /opt/wire \
 && /opt/wire/bin/pip install --upgrade pip build

# Dependencies first, in a layer of their own: only a change to pyproject.toml installs
# them again. They are read from [project] dependencies and the extras the service runs
# with (service, slack, discord, postgres: what `pip install '.[service,slack,discord,
# postgres]'` installs), which pip cannot install alone; an extra's reference to another
# (`the-wire[service]`) is left out, since every extra it names is listed here too.
COPY pyproject.toml ./
RUN /opt/wire/bin/python -c "import tomllib; project = tomllib.load(open('pyproject.toml', 'rb'))['project']; extras = project['optional-dependencies']; wanted = project['dependencies'] + [r for extra in ('service', 'slack', 'discord', 'postgres') for r in extras[extra]]; print(*dict.fromkeys(r for r in wanted if not r.startswith('the-wire[')), sep='\n')" > /tmp/requirements.txt \
 && /opt/wire/bin/pip install --requirement /tmp/requirements.txt

# Then the code: the wheel itself, without its dependencies (installed above).
COPY README.md ./
COPY digest ./digest
COPY bot ./bot
RUN /opt/wire/bin/python -m build --wheel --outdir /wheels . \
 && /opt/wire/bin/pip install --no-deps /wheels/*.whl \
 && /opt/wire/bin/pip uninstall --yes build

# ---------------------------------------------------------------- runtime
FROM python:3.11-slim AS runtime

# git reads the clones of `git:` sources (mount them, read-only will do). They belong to
# another user than the one the service runs as, which git refuses ("dubious ownership")
# unless told that every directory is safe.
RUN apt-get update \
 && apt-get install --yes --no-install-recommends git \
 && rm -rf /var/lib/apt/lists/* \
 && git config --system --add safe.directory '*'

# WIRE_CACHE_DIR: the lexicon's fast copy (see digest/english/lexicon.py), written below.
ENV PATH=/opt/wire/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    WIRE_CONFIG=/app/config/demo.toml \
    WIRE_DATABASE_URL=sqlite+aiosqlite:////app/var/wire.db \
    WIRE_CACHE_DIR=/app/cache \
    WIRE_HTTP__HOST=0.0.0.0

RUN groupadd --system --gid 10001 wire \
 && useradd --system --uid 10001 --gid wire --home-dir /app --shell /usr/sbin/nologin wire

WORKDIR /app
COPY --from=builder /opt/wire /opt/wire
COPY config ./config
COPY demo ./demo
# /app belongs to root; the service writes only to what its user owns: var/ (the SQLite
# database and the heartbeat `wire health` reads) and cache/.
RUN mkdir -p /app/var /app/cache && chown wire:wire /app/var /app/cache

USER wire
# The lexicon's copy is made once here, so no start of a container reads lemminflect's
# files again (0.5-0.7 s in every process that writes a story).
RUN python -c "from digest.english.lexicon import load; load()"
VOLUME ["/app/var"]

# Slack's events, /wire and buttons arrive here in HTTP mode; GET /healthz answers too.
# The service binds loopback by default; WIRE_HTTP__HOST above opens it to the container's
# network, which publishes the port (a configuration's [http] host gives way to it).
EXPOSE 3000

# `wire health` exits 0 only when the database answers, the scheduler ticked lately and,
# when the service serves HTTP at all, GET /healthz answers 200 (503 with the reason while
# the database or a chat platform is down). A service with no web server (Slack in Socket
# Mode, Discord alone) is healthy without one.
HEALTHCHECK --interval=30s --timeout=15s --start-period=20s --retries=3 \
  CMD ["wire", "health"]

# `wire run` stops cleanly on SIGTERM (docker stop): the part in flight finishes.
STOPSIGNAL SIGTERM
ENTRYPOINT ["wire"]
CMD ["run"]
