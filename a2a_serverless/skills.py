"""Which skill a message asks for, and whether its caller may use it (per-skill authorization).

A2A messages do not name a skill, so the kit reads one from metadata: `metadata.skillId` on
the message, or on the `message/send` params (`SKILL_ID_KEY`). The rules:

- A named skill must be one of the agent's skills (public or extended), else -32602.
- A message that names none continues its task's skill, and a new task's is the agent's
  default skill: the first one it lists (clients that know nothing of `skillId` just work).
- The caller must meet the skill's `security` requirements (scopes); if not: HTTP 403
  (401 for an anonymous caller) with the -32000 error, over both transports.

So every turn is for exactly one skill the caller was allowed to use, and the agent sees it in
`Context.skill_id`: an agent with guarded skills branches on it, never on what a message says.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .errors import AuthorizationError, InvalidParamsError
from .models import AgentSkill, SendMessageRequest

if TYPE_CHECKING:
    from .auth import Identity, Security

SKILL_ID_KEY = "skillId"


class SkillGate:
    def __init__(self, skills: Sequence[AgentSkill], security: Security | None = None) -> None:
        self.skills = {skill.id: skill for skill in skills}
        self.security = security

    def resolve(
        self,
        params: SendMessageRequest,
        identity: Identity | None,
        *,
        current: str | None = None,
    ) -> str | None:
        """The id of the skill `params` is for (None only for an agent without skills).

        `current` is the skill of the task the message continues, if any. Raises
        InvalidParamsError for an unknown skill, AuthorizationError when the caller may not
        use it.
        """
        skill_id = _named_skill(params) or current or next(iter(self.skills), None)
        if skill_id is None:
            return None
        skill = self.skills.get(skill_id)
        if skill is None:
            raise InvalidParamsError(
                f"Unknown skill {skill_id!r}",
                data={SKILL_ID_KEY: skill_id, "skills": list(self.skills)},
            )
        self._authorize(identity, skill)
        return skill_id

    def _authorize(self, identity: Identity | None, skill: AgentSkill) -> None:
        if self.security is None or not skill.security_requirements:
            return
        # Here: an agent whose skills name no requirements loads nothing of auth/.
        from .auth import ANONYMOUS, AuthError

        try:
            self.security.authorize_skill(identity or ANONYMOUS, skill)
        except AuthError as error:
            raise AuthorizationError(
                error.reason,
                data={
                    "httpStatus": error.status,
                    "error": error.error_code,
                    SKILL_ID_KEY: skill.id,
                },
                status=error.status,
                headers=error.headers(),
            ) from None


def _named_skill(params: SendMessageRequest) -> str | None:
    message_metadata, metadata = params.message.metadata, params.metadata
    if not (message_metadata and SKILL_ID_KEY in message_metadata) and not (
        metadata and SKILL_ID_KEY in metadata
    ):
        # Most sends name no skill: nothing to compare (0.65 -> 0.1 us a send).
        return None
    named = {
        source: value
        for source, metadata in (
            ("message.metadata", message_metadata),
            ("metadata", metadata),
        )
        if (value := _skill_in(metadata, source)) is not None
    }
    values = set(named.values())
    if len(values) > 1:
        raise InvalidParamsError(
            f"message.metadata.{SKILL_ID_KEY} and metadata.{SKILL_ID_KEY} name different skills",
            data=named,
        )
    return values.pop() if values else None


def _skill_in(metadata: dict[str, Any] | None, source: str) -> str | None:
    if not metadata or metadata.get(SKILL_ID_KEY) is None:
        return None
    value = metadata[SKILL_ID_KEY]
    if not isinstance(value, str) or not value:
        raise InvalidParamsError(
            data={"errors": [{"field": f"{source}.{SKILL_ID_KEY}", "message": "Not a skill id"}]}
        )
    return value
