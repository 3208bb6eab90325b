"""Judging the model's answer against the facts, and rendering it as the story's prose.

An answer is rejected for anything that is not a rewrite of the draft:

- a body of another length (sentence k rewrites draft k), or a sentence far longer than its draft;
- citation markers that differ from the draft sentence's (a new reference, a dropped or
  reordered one), or a marker after a claim that shares no content word with the
  reference it cites (a citation moved to a claim that is not its own);
- a name, number, code span or quotation the facts do not hold, markup, links, mentions;
- a project named where the draft does not name it (a change credited to another project);
- in a sentence that cites nothing, any content word its draft does not have;
- in the lede, which cites nothing either: a citation, anything said of a project that the
  draft does not say of it, and dropping "quiet" from a quiet window's lede.

Every error is one sentence the model can act on in its retry.
"""

from __future__ import annotations

import json
import re

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from digest.model import Sentence
from digest.prose.facts import (
    MARKER,
    MARKERS,
    Facts,
    Vocabulary,
    claim_words,
    is_name_or_number,
    tokens,
)

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)
_CODE = re.compile(r"`([^`]+)`")
_QUOTE = re.compile(r"“([^”]+)”|\"([^\"]+)\"")
_MARKUP = re.compile(r"@|<|>|://|\]\(|www\.|\*\*")
_FINAL_MARKERS = re.compile(r"[.!]\s*((?:\[\d+\]\s*)+)$")
# Capitalised openers a rewrite may start a sentence with although no fact holds them.
OPENERS = frozenset({
    "a", "an", "the", "also", "and", "but", "in", "on", "at", "for", "with", "after",
    "before", "by", "this", "these", "its", "it", "both", "meanwhile", "separately",
    "elsewhere", "additionally", "finally", "together", "there", "here",
})  # fmt: skip
MAX_SENTENCE_CHARS = 600


class Answer(BaseModel):
    """The JSON the model must return."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    lede: str = Field(min_length=1, max_length=MAX_SENTENCE_CHARS)
    body: tuple[str, ...]


class AnswerError(Exception):
    """The model's reply is not the JSON object asked for."""


def parse_answer(content: str) -> Answer:
    """The answer in the model's reply (a ```json fence around it is tolerated)."""
    fenced = _FENCE.match(content)
    text = fenced.group(1) if fenced else content.strip()
    try:
        return Answer.model_validate(json.loads(text))
    except json.JSONDecodeError as error:
        raise AnswerError(f"the reply is not a JSON object ({error.msg})") from None
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the object"
        raise AnswerError(f"the reply's {where} is wrong: {first['msg']}") from None


def answer_errors(answer: Answer, facts: Facts) -> list[str]:
    """Every way `answer` is not a faithful rewrite of the facts; empty when it is one."""
    if len(answer.body) != len(facts.sentences):
        return [
            f"the body has {len(answer.body)} sentences; the draft has {len(facts.sentences)}: "
            "return exactly one sentence per drafted sentence, in order"
        ]
    errors = _lede_errors(answer.lede, facts)
    for index, text in enumerate(answer.body):
        errors += [f"sentence {index + 1}{e}" for e in _sentence_errors(index, text, facts)]
    return errors


def _lede_errors(lede: str, facts: Facts) -> list[str]:
    errors = []
    if MARKER.search(lede):
        errors.append(f"the lede cites {MARKERS.findall(lede)}; the lede carries no citations")
    errors += [f"the lede: {e}" for e in _wording_errors(lede, facts.lede_vocabulary())]
    errors += _lede_credit_errors(lede, facts)
    if facts.quiet and "quiet" not in lede.lower():
        errors.append("the lede must say the window was quiet, as its draft does")
    return errors


def _sentence_errors(index: int, text: str, facts: Facts) -> list[str]:
    """The errors of body sentence `index`, each starting where "sentence N" leaves off."""
    draft = facts.sentences[index]
    if not text.strip() or len(text) > MAX_SENTENCE_CHARS:
        return [f" is empty or longer than {MAX_SENTENCE_CHARS} characters"]
    errors = []
    length, drafted = len(text.split()), len(draft.text.split())
    if length > 2 * drafted + 8:
        errors.append(f" has {length} words; its draft has {drafted}: keep it as short")
    errors += [f": {e}" for e in _citation_errors(text, draft.refs, facts)]
    credited = facts.projects_named(text) - facts.projects_named(draft.text)
    if credited:
        errors.append(
            f" names {', '.join(sorted(credited))}, which its draft does not: "
            "a change is credited only to the project that made it"
        )
    if not draft.refs:
        ignore = facts.name_words
        new = claim_words(text, ignore=ignore) - claim_words(draft.text, ignore=ignore)
        if new:
            errors.append(
                f" cites nothing, so it may say only what its draft says; new: {', '.join(sorted(new))}"
            )
    errors += [f": {e}" for e in _wording_errors(text, facts.sentence_vocabulary(index))]
    return errors


def _lede_credit_errors(lede: str, facts: Facts) -> list[str]:
    """The lede cites nothing, so what it says of a project must be what the draft says of it."""
    said = facts.lede_claims()
    everywhere = set().union(*said.values()) if said else set()
    errors = []
    for project, claim in facts.credits(lede):
        if project is not None and project not in said:
            errors.append(f"the lede names {project}, which the draft does not")
            continue
        known = said.get(project, set()) if project else everywhere
        new = claim - known
        if new:
            about = f"of {project}" if project else "before naming a project"
            errors.append(
                f"the lede says {', '.join(sorted(new))} {about}, which the draft does not"
            )
    return errors


def _citation_errors(text: str, drafted: tuple[int, ...], facts: Facts) -> list[str]:
    cited = [int(n) for n in MARKER.findall(text)]
    wanted = list(dict.fromkeys(drafted))
    markers = ", ".join(f"[{n}]" for n in wanted)
    unknown = sorted({n for n in cited if n not in facts.citations})
    if unknown:
        return [f"cites {unknown}, which are not references; keep exactly {markers}"]
    if list(dict.fromkeys(cited)) != wanted or len(cited) != len(set(cited)):
        found = ", ".join(f"[{n}]" for n in cited) or "no marker"
        return [f"cites {found}; its draft cites {markers}: keep exactly those, in that order"]
    errors = []
    start = 0
    for group in MARKERS.finditer(text):
        claim = claim_words(text[start : group.start()], ignore=facts.name_words)
        start = group.end()
        for number in (int(n) for n in MARKER.findall(group.group())):
            supported = claim & facts.citations[number].words(ignore=facts.name_words)
            if not supported:
                shown = " ".join(text[: group.start()].split()[-8:])
                errors.append(
                    f"[{number}] follows “{shown}”, which is not the claim of reference "
                    f"{number} (“{facts.citations[number].title[:60]}”)"
                )
    return errors


def _wording_errors(text: str, vocabulary: Vocabulary) -> list[str]:
    """New names, numbers, code spans or quotations, and markup."""
    errors = []
    # Markup is new unless the word holding it is quoted from the facts ("Vectorized<float>").
    words = vocabulary.text.split()
    if any(
        not any(word in fact for fact in words) for word in text.split() if _MARKUP.search(word)
    ) or re.search(r"[\x00-\x1f\x7f]", text):
        errors.append("has markup, a link, a mention or a line break; write plain prose")
    new: list[str] = []
    for position, token in enumerate(tokens(text)):
        if not is_name_or_number(token) or vocabulary.knows(token):
            continue
        opener = position == 0 and token[0].isupper() and token[1:].islower()
        if opener and (token.lower() in OPENERS or vocabulary.knows_plain(token)):
            continue
        new.append(token)
    if new:
        listed = ", ".join(dict.fromkeys(new))
        errors.append(f"uses names or numbers that are not in the facts: {listed}")
    for span in _CODE.findall(text):
        if span not in vocabulary.text:
            errors.append(f"has code `{_shown(span)}` that is not in the facts")
    for curly, straight in _QUOTE.findall(text):
        quoted = (curly or straight).strip(" ,.")
        if quoted and quoted not in vocabulary.text:
            errors.append(f"quotes “{_shown(quoted)}”, which no fact says")
    return errors


def _shown(fragment: str) -> str:
    """A fragment of the answer as an error may quote it: one line, at most 60 characters."""
    return " ".join(fragment.split())[:60]


def render_sentence(text: str) -> Sentence:
    """A body sentence in the house form: markers as [n][m] after their claim, one period."""
    text = " ".join(text.split())
    text = _FINAL_MARKERS.sub(lambda m: " " + m.group(1).strip() + ".", text)
    text = re.sub(r"\s*((?:\[\d+\])+)", r" \1", text)
    text = re.sub(r"\](\s*)\[", "][", text).strip()
    if text[-1] not in ".!?":
        text += "."
    refs = tuple(dict.fromkeys(int(n) for n in MARKER.findall(text)))
    return Sentence(text=text, refs=refs)


def render_lede(text: str) -> str:
    """The lede as one sentence ending in a period."""
    text = " ".join(text.split())
    return text if text[-1] in ".!?" else text + "."
