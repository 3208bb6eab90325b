"""Re-create the trimmed API descriptions in tests/peers/ from the full upstream files.

    python tests/peers/vendor.py PEERS_DIR

PEERS_DIR is laid out as the upstream snapshots are (see README.md here): for instance
`slack-api-specs/web-api/slack_web_openapi_v2.json`. Small files are copied whole; each large
description keeps only the operations below and every component they reach through `$ref`,
so it stays a valid document of the same kind. Output is deterministic: running this on the
same upstream files reproduces the committed copies byte for byte.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

# What the fakes and tests read, and nothing else (one place: change it here, then re-run).
GITHUB_REST_PATHS = (  # tests/fakes/github/rest.py checks every request against these
    "/rate_limit",
    "/repos/{owner}/{repo}",
    "/repos/{owner}/{repo}/commits",
    "/repos/{owner}/{repo}/commits/{ref}",
    "/repos/{owner}/{repo}/commits/{commit_sha}/pulls",
    "/repos/{owner}/{repo}/compare/{basehead}",
    "/repos/{owner}/{repo}/pulls",
    "/repos/{owner}/{repo}/pulls/{pull_number}",
    "/repos/{owner}/{repo}/pulls/{pull_number}/commits",
    "/repos/{owner}/{repo}/pulls/{pull_number}/files",
    "/repos/{owner}/{repo}/releases",
    "/repos/{owner}/{repo}/tags",
    "/search/issues",
    "/user",
)
DISCORD_PATHS = (  # tests/fakes/discord_rest.py validates request bodies against these
    "/users/@me",
    "/oauth2/applications/@me",
    "/gateway/bot",
    "/channels/{channel_id}/messages",
    "/channels/{channel_id}/messages/{message_id}",
    "/channels/{channel_id}/messages/{message_id}/threads",
    "/channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}/@me",
    "/interactions/{interaction_id}/{interaction_token}/callback",
    "/applications/{application_id}/commands",
    "/applications/{application_id}/guilds/{guild_id}/commands",
    "/webhooks/{webhook_id}/{webhook_token}",
    "/webhooks/{webhook_id}/{webhook_token}/messages/@original",
    "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}",
)
SLACK_METHODS = (  # tests/fakes/slack_server.py reads each method's parameters
    "/api.test",
    "/auth.test",
    "/chat.delete",
    "/chat.getPermalink",
    "/chat.postEphemeral",
    "/chat.postMessage",
    "/chat.update",
    "/conversations.history",
    "/conversations.info",
    "/conversations.replies",
    "/reactions.add",
    "/reactions.get",
    "/reactions.remove",
    "/users.info",
    "/usergroups.list",
)
WHOLE = (
    "github-graphql-schema/schema.graphql",  # graphql-core validates queries against all of it
    "slack-api-specs/events-api/slack_events_api_async_v1.json",
    "slack-bolt-python-payloads/bolt_python_test_payloads.json",
    "slack-signature-vector/slack_signature_test_vector.json",
)


def _refs(value: Any) -> set[str]:
    """Every local `$ref` target ("#/components/schemas/X") inside `value`."""
    if isinstance(value, dict):
        found = {value["$ref"]} if isinstance(value.get("$ref"), str) else set()
        return found.union(*(_refs(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_refs(v) for v in value))
    return set()


def _pointer(document: dict[str, Any], ref: str) -> list[str]:
    return [part.replace("~1", "/").replace("~0", "~") for part in ref[2:].split("/")]


def trimmed(document: dict[str, Any], paths: tuple[str, ...], components: str) -> dict[str, Any]:
    """`document` with only `paths` and the parts of `components` ("components" in OpenAPI 3,
    "definitions" in Swagger 2) they reach, in upstream order."""
    missing = [p for p in paths if p not in document["paths"]]
    if missing:
        raise SystemExit(f"not in the upstream description: {missing}")
    kept = {p: document["paths"][p] for p in document["paths"] if p in paths}
    reached: set[str] = set()
    todo = _refs(kept)
    while todo:
        ref = todo.pop()
        if ref in reached or not ref.startswith("#/"):
            continue
        reached.add(ref)
        target: Any = document
        for part in _pointer(document, ref):
            target = target[part]
        todo |= _refs(target)
    out = {k: v for k, v in document.items() if k not in ("paths", components)}
    out["paths"] = kept
    section: dict[str, Any] = {}
    for ref in sorted(reached):
        parts = _pointer(document, ref)
        if parts[0] != components:
            continue
        source, target = document[components], section
        for part in parts[1:-1]:
            source = source[part]
            target = target.setdefault(part, {})
        target[parts[-1]] = source[parts[-1]]
    if components == "components":  # keep upstream key order within each kind
        section = {
            kind: {
                n: document[components][kind][n] for n in document[components][kind] if n in names
            }
            for kind, names in section.items()
        }
    out[components] = section
    return out


def _write(document: dict[str, Any], target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: list[str]) -> None:
    if len(argv) != 2 or not Path(argv[1]).is_dir():
        raise SystemExit("usage: python tests/peers/vendor.py PEERS_DIR (the full upstream files)")
    peers = Path(argv[1])
    load = lambda rel: json.loads((peers / rel).read_text(encoding="utf-8"))  # noqa: E731
    for rel in WHOLE:
        (HERE / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(peers / rel, HERE / rel)
    rest = "github-rest-openapi/api.github.com.json"
    _write(trimmed(load(rest), GITHUB_REST_PATHS, "components"), HERE / rest)
    discord = "discord-api-spec/specs/openapi.json"
    _write(trimmed(load(discord), DISCORD_PATHS, "components"), HERE / discord)
    slack = "slack-api-specs/web-api/slack_web_openapi_v2.json"
    _write(trimmed(load(slack), SLACK_METHODS, "definitions"), HERE / slack)
    for path in sorted(HERE.rglob("*")):
        if path.is_file() and path.suffix in (".json", ".graphql"):
            print(f"{path.stat().st_size:>10,}  {path.relative_to(HERE)}")


if __name__ == "__main__":
    main(sys.argv)
