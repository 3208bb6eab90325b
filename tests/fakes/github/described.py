"""GitHub's published API descriptions, which the fake checks every request against.

Both are vendored in tests/peers/: the GraphQL schema (github-graphql-schema, whole) and
the REST OpenAPI description (github-rest-openapi, trimmed to the operations the fake serves).
"""

from __future__ import annotations

import functools
import json
import re

import graphql

from tests.peers import PEERS

GRAPHQL_SCHEMA = PEERS / "github-graphql-schema/schema.graphql"
REST_OPENAPI = PEERS / "github-rest-openapi/api.github.com.json"


@functools.cache
def graphql_schema() -> graphql.GraphQLSchema:
    """GitHub's schema, loaded once per session (its SDL repeats two fields, hence assume_valid)."""
    schema = graphql.build_schema(GRAPHQL_SCHEMA.read_text(encoding="utf-8"), assume_valid_sdl=True)
    schema._validation_errors = []  # graphql-core 3.3 flags deprecation mismatches in GitHub's SDL
    return schema


@functools.cache
def rest_operations() -> list[tuple[re.Pattern[str], str, dict[str, set[str]]]]:
    """(path regex, path template, method → query parameter names) for every documented path."""
    spec = json.loads(REST_OPENAPI.read_text(encoding="utf-8"))
    shared = spec["components"]["parameters"]

    def query_names(parameters: list[dict]) -> set[str]:
        resolved = (shared[p["$ref"].rsplit("/", 1)[1]] if "$ref" in p else p for p in parameters)
        return {p["name"] for p in resolved if p["in"] == "query"}

    operations = []
    for template, item in spec["paths"].items():
        common = query_names(item.get("parameters", []))
        methods = {
            method.upper(): common | query_names(op.get("parameters", []))
            for method, op in item.items()
            if method in {"get", "post", "put", "patch", "delete"}
        }
        pattern = re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$")
        operations.append((pattern, template, methods))
    return operations
