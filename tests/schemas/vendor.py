"""Re-create the files of this folder from the two npm packages (see README.md).

    npm pack @octokit/webhooks-schemas@7.6.1 @octokit/webhooks-examples@7.6.1
    mkdir s e && tar xzf octokit-webhooks-schemas-7.6.1.tgz -C s \
        && tar xzf octokit-webhooks-examples-7.6.1.tgz -C e
    python tests/schemas/vendor.py s/package/schema.json e/package/api.github.com/index.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOTS = (
    "ping$event",
    "pull_request$closed",
    "push$event",
    "check_suite$completed",
    "release$published",
)
EXAMPLES = {  # file name → (event, the example's index in the package)
    "ping.json": ("ping", 1),
    "pull_request.closed.json": ("pull_request", 3),
    "push.json": ("push", 4),
    "release.published.json": ("release", 10),
}


def reachable(definitions: dict, roots: tuple[str, ...]) -> set[str]:
    """The definitions `roots` refer to, directly or not, and the roots."""
    found: set[str] = set()

    def visit(node: object) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/definitions/"):
                name = ref.removeprefix("#/definitions/")
                if name not in found:
                    found.add(name)
                    visit(definitions[name])
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    for root in roots:
        found.add(root)
        visit(definitions[root])
    return found


def main(schema_path: str, examples_path: str) -> None:
    schema = json.loads(Path(schema_path).read_text(encoding="utf-8"))
    names = reachable(schema["definitions"], ROOTS)
    subset = {
        "$schema": schema["$schema"],
        "definitions": {name: schema["definitions"][name] for name in sorted(names)},
    }
    (HERE / "webhook-schemas.json").write_text(json.dumps(subset, indent=1) + "\n")
    examples = {e["name"]: e["examples"] for e in json.loads(Path(examples_path).read_text())}
    for file_name, (event, index) in EXAMPLES.items():
        payload = examples[event][index]
        (HERE / "examples" / file_name).write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
