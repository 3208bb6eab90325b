"""The fake's `GET /repos/{owner}/{repo}`: a full repository as GitHub's description shows it.

Each answer is GitHub's own example of a full repository (peers/github-rest-openapi) with
this repository's names, visibility, archived flag and default branch, tagged with an ETag
and answered 304 (costing no quota) when `If-None-Match` names it. `pushed_at` is the
newest merge, so the ETag changes when something lands, as on GitHub. A renamed or
transferred repository answers its old name with 301 to `/repositories/{id}`, which GitHub
serves though its description leaves it out; a missing repository is 404.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from tests.fakes.github.described import REST_OPENAPI
from tests.fakes.github.limits import Quota
from tests.fakes.github.records import DOCS, FakePull, iso

LEFT_OUT = ("parent", "source", "organization", "template_repository", "security_and_analysis")


@dataclass
class RepoFacts:
    """What the fake says of a repository besides its pull requests."""

    id: int
    visibility: str = "public"  # "public", "private" or "internal"
    archived: bool = False
    default_branch: str = "main"


@functools.cache
def _example() -> dict[str, Any]:
    spec = json.loads(REST_OPENAPI.read_text(encoding="utf-8"))
    value = spec["components"]["examples"]["full-repository-default-response"]["value"]
    return {k: v for k, v in value.items() if k not in LEFT_OUT}


def repository_body(repo: str, facts: RepoFacts, pulls: list[FakePull]) -> dict[str, Any]:
    """GitHub's example full repository, made into `repo`."""
    owner, name = repo.split("/", 1)
    body = copy.deepcopy(_example())
    old = body["full_name"]
    text = json.dumps(body).replace(old, repo)
    body = json.loads(text)
    body["owner"]["login"] = owner
    newest = max((p.merged_at for p in pulls), default=None)
    body.update(
        id=facts.id,
        name=name,
        full_name=repo,
        private=facts.visibility != "public",
        visibility=facts.visibility,
        archived=facts.archived,
        default_branch=facts.default_branch,
        pushed_at=iso(newest) if newest else body["pushed_at"],
    )
    return body


class RepositoryEndpoint:
    """`GET /repos/{owner}/{repo}` and the redirect target `GET /repositories/{id}`; mixed
    into FakeGitHub, which provides `_json`, `_repo`, `_rate_headers`, `repos` and `quota`."""

    quota: dict[str, Quota]
    repos: dict[str, list[FakePull]]
    releases: dict[str, list]
    facts: dict[str, RepoFacts]
    moved: dict[str, str]
    rest_prefix: str

    def add_repository(self, repo: str, **facts: Any) -> None:
        """Create `repo` (no pulls yet) or change its facts: visibility, archived, branch."""
        self.repos.setdefault(repo, [])
        current = self._facts(repo)
        for name, value in facts.items():
            setattr(current, name, value)

    def rename(self, old: str, new: str) -> None:
        """Rename or transfer `old` to `new`: its pulls and releases move, and `old` answers 301."""
        found = self._repo(*old.split("/", 1))
        assert found is not None, old
        self.repos[new] = self.repos.pop(found[0])
        self.releases[new] = self.releases.pop(found[0], [])
        self.facts[new.lower()] = self.facts.pop(found[0].lower(), self._facts(new))
        self.moved[old.lower()] = new

    def _facts(self, repo: str) -> RepoFacts:
        return self.facts.setdefault(repo.lower(), RepoFacts(id=1_000 + len(self.facts)))

    def _repository_answer(self, request: web.Request, owner: str, name: str):
        wanted = f"{owner}/{name}".lower()
        if wanted in self.moved:
            new = self.moved[wanted]
            self.quota["core"].charge(1)
            url = f"{request.url.origin()}{self.rest_prefix}/repositories/{self._facts(new).id}"
            body = {"message": "Moved Permanently", "url": url, "documentation_url": DOCS}
            return self._json(301, body, "core", {"Location": url})
        found = self._repo(owner, name)
        if found is None:
            self.quota["core"].charge(1)
            doc = f"{DOCS}/rest/repos/repos#get-a-repository"
            return self._json(404, {"message": "Not Found", "documentation_url": doc}, "core")
        repo, pulls = found
        payload = json.dumps(repository_body(repo, self._facts(repo), pulls)).encode()
        etag = f'W/"{hashlib.sha256(payload).hexdigest()[:40]}"'
        headers = {
            **self._rate_headers("core"),
            "ETag": etag,
            "Cache-Control": "private, max-age=60",
        }
        if etag in (t.strip() for t in request.headers.get("If-None-Match", "").split(",")):
            return web.Response(status=304, headers=headers)
        self.quota["core"].charge(1)
        return web.Response(
            body=payload, headers=headers, content_type="application/json", charset="utf-8"
        )

    def _repository_by_id(self, request: web.Request, repo_id: int):
        for repo in list(self.repos):
            if self._facts(repo).id == repo_id:
                return self._repository_answer(request, *repo.split("/", 1))
        self.quota["core"].charge(1)
        return self._json(404, {"message": "Not Found", "documentation_url": DOCS}, "core")
