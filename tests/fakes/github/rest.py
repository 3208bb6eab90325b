"""The fake's REST side: the paged commits list with its ETag, checked against the OpenAPI.

Only `GET /repos/{owner}/{repo}/commits` is served here (`repos` serves the repository); any other documented path is answered 404
and listed in `problems`. The list is paged by `per_page`/`page` with a `Link` header, tagged
with a weak ETag, and answered 304 (costing no quota) when `If-None-Match` names that tag.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any

from aiohttp import web

from tests.fakes.github.described import rest_operations
from tests.fakes.github.limits import Quota
from tests.fakes.github.records import DOCS, FakePull, iso, parse_time


class CommitsEndpoint:
    """REST requests; mixed into FakeGitHub, which provides `_json`, `_repo` and `_exhausted`."""

    quota: dict[str, Quota]
    problems: list[str]
    rest_prefix: str

    def _rest(self, request: web.Request) -> web.StreamResponse:
        path = request.path.removeprefix(self.rest_prefix)
        by_id = re.fullmatch(r"/repositories/(\d+)", path)
        if by_id and request.method == "GET":  # where GitHub redirects a renamed repository
            return self._repository_by_id(request, int(by_id.group(1)))
        declared = self._documented(request.method, path, set(request.query))
        if declared is None:
            return self._json(404, {"message": "Not Found", "documentation_url": DOCS}, "core")
        if path == "/rate_limit" and request.method == "GET":
            return self._rate_limit()  # answered even with no quota left, as on GitHub
        if self.quota["core"].remaining <= 0:
            return self._exhausted("core")
        repository = re.fullmatch(r"/repos/([^/]+)/([^/]+)", path)
        if repository and request.method == "GET":
            return self._repository_answer(request, *repository.groups())
        match = re.fullmatch(r"/repos/([^/]+)/([^/]+)/commits", path)
        if match and request.method == "GET":
            return self._commits(request, *match.groups())
        self.problems.append(
            f"{request.method} {path}: documented, but this fake does not serve it"
        )
        return self._json(404, {"message": "Not Found", "documentation_url": DOCS}, "core")

    def _documented(self, method: str, path: str, params: set[str]) -> str | None:
        for pattern, template, methods in rest_operations():
            if pattern.match(path) and method in methods:
                if unknown := params - methods[method]:
                    self.problems.append(
                        f"{method} {template}: undocumented query {sorted(unknown)}"
                    )
                return template
        self.problems.append(f"{method} {path}: no such operation in GitHub's REST description")
        return None

    def _rate_limit(self) -> web.Response:
        """GET /rate_limit: every resource's quota; it costs nothing, as on GitHub."""
        resources = {
            name: {
                "limit": quota.limit,
                "used": quota.used,
                "remaining": quota.remaining,
                "reset": int(quota.reset_at),
            }
            for name, quota in self.quota.items()
        }
        return self._json(200, {"resources": resources, "rate": resources["core"]}, "core")

    def _commits(self, request: web.Request, owner: str, name: str) -> web.StreamResponse:
        found = self._repo(owner, name)
        if found is None:
            doc = f"{DOCS}/rest/commits/commits#list-commits"
            self.quota["core"].charge(1)
            return self._json(
                404, {"message": "Not Found", "documentation_url": doc, "status": "404"}, "core"
            )
        repo, pulls = found
        query = request.query
        if query.get("sha") not in (None, "main"):
            self.quota["core"].charge(1)
            return self._json(422, {"message": f"No commit found for SHA: {query['sha']}"}, "core")
        since = parse_time(query["since"]) if "since" in query else None
        until = parse_time(query["until"]) if "until" in query else None
        per_page, page = min(int(query.get("per_page", 30)), 100), int(query.get("page", 1))
        history = sorted(pulls, key=lambda p: (p.merged_at, p.number), reverse=True)
        listed = [
            p
            for p in history
            if (since is None or p.merged_at >= since) and (until is None or p.merged_at <= until)
        ]
        shown = listed[(page - 1) * per_page : page * per_page]
        payload = json.dumps([_commit_item(repo, pull) for pull in shown]).encode()
        etag = f'W/"{hashlib.sha256(payload).hexdigest()[:40]}"'
        headers = {"ETag": etag, "Cache-Control": "private, max-age=60, s-maxage=60"}
        if len(listed) > page * per_page:
            last, url = -(-len(listed) // per_page), request.url
            headers["Link"] = ", ".join(
                f'<{url.update_query(page=n)}>; rel="{rel}"'
                for rel, n in (("next", page + 1), ("last", last))
            )
        if etag in (tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")):
            all_headers = {**self._rate_headers("core"), **headers}
            return web.Response(status=304, headers=all_headers)
        self.quota["core"].charge(1)
        all_headers = {**self._rate_headers("core"), **headers}
        return web.Response(
            body=payload,
            status=200,
            headers=all_headers,
            content_type="application/json",
            charset="utf-8",
        )


def _commit_item(repo: str, pull: FakePull) -> dict[str, Any]:
    api = f"https://api.github.com/repos/{repo}"
    message = f"{pull.title} (#{pull.number})" + (f"\n\n{pull.body}" if pull.body else "")
    when = iso(pull.merged_at)
    return {
        "sha": pull.merge_sha,
        "node_id": "C_" + base64.b64encode(pull.merge_sha.encode()).decode()[:20],
        "commit": {
            "author": {
                "name": pull.author,
                "email": f"{pull.author}@users.noreply.github.com",
                "date": when,
            },
            "committer": {"name": "GitHub", "email": "noreply@github.com", "date": when},
            "message": message,
            "tree": {"sha": pull.merge_sha, "url": f"{api}/git/trees/{pull.merge_sha}"},
            "url": f"{api}/git/commits/{pull.merge_sha}",
            "comment_count": 0,
        },
        "url": f"{api}/commits/{pull.merge_sha}",
        "html_url": f"https://github.com/{repo}/commit/{pull.merge_sha}",
        "comments_url": f"{api}/commits/{pull.merge_sha}/comments",
        "author": {"login": pull.author},
        "committer": {"login": "web-flow"},
        "parents": [],
    }
