#!/usr/bin/env bash
# Install (if needed) and start a throwaway PostgreSQL server on 127.0.0.1 for the tests.
# Idempotent: a server already answering on the port is reused.
set -euo pipefail
PORT="${WIRE_PG_PORT:-54329}"
DATA="${WIRE_PG_DATA:-/tmp/wire-pg-$PORT}"

pg_bin() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$dir" ] && echo "$dir"
}

if [ -z "$(pg_bin)" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
fi
BIN=$(pg_bin)
id postgres >/dev/null 2>&1 || useradd --system --home /var/lib/postgresql postgres

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if as_postgres "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT"; then
  echo "postgres: already running on 127.0.0.1:$PORT"
else
  rm -rf "$DATA"
  mkdir -p "$DATA"
  [ "$(id -u)" = 0 ] && chown postgres "$DATA"
  as_postgres "$BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 >/dev/null
  as_postgres "$BIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w \
    -o "-h 127.0.0.1 -p $PORT -k /tmp -c fsync=off -c max_connections=200" start >/dev/null
  echo "postgres: started on 127.0.0.1:$PORT ($DATA)"
fi

psql_cmd() { as_postgres psql -h 127.0.0.1 -p "$PORT" -U postgres -v ON_ERROR_STOP=1 -qtA "$@"; }
if [ "$(psql_cmd -c "select 1 from pg_roles where rolname='wire'")" != 1 ]; then
  psql_cmd -c "create role wire login password 'wire' createdb"
fi
if [ "$(psql_cmd -c "select 1 from pg_database where datname='wire_test'")" != 1 ]; then
  psql_cmd -c "create database wire_test owner wire"
fi
