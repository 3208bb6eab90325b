"""Names a person types, resolved against the configuration only: projects (alias, name or
owner/repo), topics (name or alias) and exclusions. Unknown names answer with the closest
known ones, and never with anything learned outside the configuration.
"""

from __future__ import annotations

from difflib import get_close_matches

from bot.commands import grammar as g
from bot.commands import parsed
from bot.commands.replies import Reply, unknown_project, unknown_topic
from digest.config import Project, WireConfig, topic_key

Resolved = tuple[str | None, str | None]  # (repo, canonical topic name)


class Names:
    """Resolve typed names to configured projects and canonical topic names; an unknown
    name is refused with the usage line of `command`, the command it was typed in."""

    def __init__(self, config: WireConfig, *, command: str = "subscribe") -> None:
        self.config = config
        self.usage = g.USAGE[command]

    def typed_in(self, command: str) -> Names:
        """The same names, refusing with the usage line of `command`."""
        return Names(self.config, command=command)

    def _names(self) -> dict[str, Project]:
        return {
            name.lower(): p for p in self.config.projects for name in (p.repo, p.name, *p.aliases)
        }

    def project(self, token: str) -> Project | Reply:
        """The configured project named `token`, or a reply naming the closest ones."""
        found = self.config.resolve_repo(token)
        if found is not None:
            return found
        names = self._names()
        close = get_close_matches(token.lower(), list(names), n=3, cutoff=0.5)
        known = [p.aliases[0] if p.aliases else p.repo for p in self.config.projects]
        return unknown_project(token, close=close, known=known, usage=self.usage)

    def topic(self, token: str, project: Project | None) -> str | Reply:
        """The canonical name of topic `token` (of `project`, else of any project)."""
        projects = [project] if project else list(self.config.projects)
        for p in projects:
            rule = p.topic_for_key(topic_key(token))
            if rule is not None:
                return rule.name
        known = self.config.known_topics(project.repo if project else None)
        by_lower = {k.lower(): k for k in known}
        close = [by_lower[c] for c in get_close_matches(token.lower(), list(by_lower), n=3)]
        return unknown_topic(
            token,
            close=close,
            known=known,
            where=project.name if project else "any project",
            usage=self.usage,
        )

    def resolve(self, target: parsed.Target) -> Resolved | Reply:
        """(repo, topic) of a target, or the reply that rejects it."""
        project = None
        if target.project is not None:
            found = self.project(target.project)
            if isinstance(found, Reply):
                return found
            project = found
        topic = None
        if target.topic is not None:
            named = self.topic(target.topic, project)
            if isinstance(named, Reply):
                return named
            topic = named
        return (project.repo if project else None, topic)

    def describe(self, repo: str | None, topic: str | None) -> str:
        """How a reply names a subscription target, e.g. "ExecuTorch topic:XNNPACK"."""
        name = self.config.project(repo).name if repo else None
        if name and topic:
            return f"{name} topic:{topic}"
        return name or f"topic:{topic}"

    def excludes(self, excludes: tuple[str, ...]) -> tuple[str, ...] | Reply:
        """Exclusions with canonical topic names, or the reply that rejects one."""
        result = []
        for exclude in excludes:
            kind, _, value = exclude.partition(":")
            if kind == "topic":
                named = self.topic(value, None)
                if isinstance(named, Reply):
                    return named
                value = named
            result.append(f"{kind}:{value}")
        return tuple(dict.fromkeys(result))
