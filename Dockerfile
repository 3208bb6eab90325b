# The Wire — two-stage image: the builder installs the package into a virtualenv, the
# runtime image carries only that virtualenv, the configuration and the demo data, and runs
# as an unprivileged user.
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

# Dependencies first (cached while only the code changes), then the wheel itself.
COPY pyproject.toml README.md ./
COPY digest ./digest
COPY bot ./bot
RUN /opt/wire/bin/python -m build --wheel --outdir /wheels . \
 && /opt/wire/bin/pip install /wheels/*.whl \
 && /opt/wire/bin/pip uninstall --yes build

# ---------------------------------------------------------------- runtime
FROM python:3.11-slim AS runtime

ENV PATH=/opt/wire/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    WIRE_CONFIG=/app/config/demo.toml \
    WIRE_DATABASE_URL=sqlite+aiosqlite:////app/var/wire.db \
    WIRE_HTTP__HOST=0.0.0.0

RUN groupadd --system --gid 10001 wire \
 && useradd --system --uid 10001 --gid wire --home-dir /app --shell /usr/sbin/nologin wire

WORKDIR /app
COPY --from=builder /opt/wire /opt/wire
COPY config ./config
COPY demo ./demo
RUN mkdir -p /app/var && chown -R wire:wire /app/var

USER wire
VOLUME ["/app/var"]

# Slack's events, /wire and buttons arrive here in HTTP mode; GET /healthz answers too.
# The service binds loopback by default; WIRE_HTTP__HOST above opens it to the container's
# network, which publishes the port (a configuration's [http] host gives way to it).
EXPOSE 3000

# `wire health --http` exits 0 only when the running service's GET /healthz answers 200: it
# answers 503, with the reason, while the database or a chat platform is down.
HEALTHCHECK --interval=30s --timeout=15s --start-period=20s --retries=3 \
  CMD ["wire", "health", "--http"]

# `wire run` stops cleanly on SIGTERM (docker stop): the part in flight finishes.
STOPSIGNAL SIGTERM
ENTRYPOINT ["wire"]
CMD ["run"]
