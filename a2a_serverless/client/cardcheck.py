"""What is wrong with an agent card, for each protocol version: warnings for people.

`card_problems(card)` returns `CardProblem`s, each naming its version ("0.3", "1.0" or "both"),
the field and what is wrong. A2A 0.3's card is checked against the kit's own 0.3 model
(`v03/card.py`'s `AgentCard`, as our server writes it and the official 0.3 SDK reads it);
1.0's against a2a.proto's required fields (`supportedInterfaces`, each with `url`,
`protocolBinding`, `protocolVersion`; `capabilities`; the default modes; skills with `id`,
`name`, `description`, `tags`). A card that only one version's clients can read is worth a
warning, not an error: an agent may speak one version alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..codec import ValidationError
from ..v03 import card as v03_card
from .discovery import interfaces

V10_REQUIRED = (
    "name",
    "description",
    "supportedInterfaces",
    "version",
    "capabilities",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
)
SKILL_REQUIRED = ("id", "name", "description", "tags")
INTERFACE_REQUIRED = ("url", "protocolBinding", "protocolVersion")


@dataclass(frozen=True, slots=True)
class CardProblem:
    version: str  # "0.3", "1.0" or "both"
    field: str
    message: str

    def __str__(self) -> str:
        return f"[{self.version}] {self.field}: {self.message}"


def card_problems(card: dict[str, Any]) -> list[CardProblem]:
    problems = _v03(card) + _v10(card)
    problems.extend(_urls(card))
    if not interfaces(card):
        problems.append(
            CardProblem("both", "supportedInterfaces", "no JSON-RPC or HTTP+JSON interface")
        )
    return problems


def _v03(card: dict[str, Any]) -> list[CardProblem]:
    speaks_03 = "url" in card or any(i.version == "0.3" for i in interfaces(card))
    if not speaks_03:
        return [CardProblem("0.3", "url", "missing: A2A 0.3 clients cannot use this card")]
    try:
        v03_card.AgentCard.model_validate(card)
    except ValidationError as exc:
        return [
            CardProblem("0.3", ".".join(str(p) for p in item["loc"]) or "card", item["msg"])
            for item in exc.errors()
        ]
    return []


def _v10(card: dict[str, Any]) -> list[CardProblem]:
    problems = [
        CardProblem("1.0", name, "required, missing")
        for name in V10_REQUIRED
        if card.get(name) in (None, "") or (name == "supportedInterfaces" and not card[name])
    ]
    for index, item in enumerate(card.get("supportedInterfaces") or []):
        if not isinstance(item, dict):
            problems.append(CardProblem("1.0", f"supportedInterfaces.{index}", "not an object"))
            continue
        for name in INTERFACE_REQUIRED:
            if not item.get(name):
                problems.append(
                    CardProblem("1.0", f"supportedInterfaces.{index}.{name}", "required, missing")
                )
    for index, skill in enumerate(card.get("skills") or []):
        if not isinstance(skill, dict):
            continue
        for name in SKILL_REQUIRED:
            if name not in skill:
                problems.append(CardProblem("1.0", f"skills.{index}.{name}", "required, missing"))
    return problems


def _urls(card: dict[str, Any]) -> list[CardProblem]:
    problems = []
    for interface in interfaces(card):
        parts = urlsplit(interface.url)
        where = f"interface {interface.version} {interface.binding}"
        if parts.scheme not in ("http", "https") or not parts.hostname:
            problems.append(CardProblem(interface.version, where, "not an absolute http(s) URL"))
        elif parts.scheme == "http" and parts.hostname not in ("localhost", "127.0.0.1", "::1"):
            problems.append(CardProblem(interface.version, where, "plain http, not https"))
    return problems
