"""`Security`: the policy an app enforces — its authenticators and the card's requirements.

    security = Security(
        [ApiKeyAuthenticator("apiKey", keys=...), BearerJWTAuthenticator("bearer", ...)],
        requirements=[{"apiKey": []}, {"bearer": ["a2a:invoke"]}],
    )
    identity = await security.authenticate(RequestView.from_asgi_scope(scope, headers))

`requirements` has the card's `security` shape and meaning (OpenAPI's): a list of
alternatives (OR), each a mapping scheme name -> scopes that must ALL be satisfied (AND). The
default is "any one of the schemes, no scopes". An empty alternative `{}` makes authentication
optional: a request that presents no credentials at all is then the anonymous caller — but one
that presents bad credentials is still refused (a client with an expired token must learn it,
not silently become someone else).

`authenticate` runs every authenticator (so a request may satisfy several schemes; per-skill
requirements are checked against all of them) and returns the Identity of the first scheme
of the first satisfied alternative, its `schemes` listing every scheme that succeeded. When no
alternative is satisfied it raises:
- `Forbidden` (403) if some alternative had all its schemes authenticated but lacked scopes;
- `AuthenticationUnavailable` (503) if keys could not be fetched to check a credential;
- `Unauthenticated` (401) otherwise, with one WWW-Authenticate challenge per scheme the card
  requires (carrying RFC 6750 error attributes for the schemes whose credentials were refused).

Credentials that one scheme refuses while another alternative is satisfied are ignored (a
deployment trusting two issuers sees every token fail for one of them).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping, Sequence

from ..models import AgentSkill
from .base import (
    ANONYMOUS,
    ANONYMOUS_SCHEME,
    AuthenticationUnavailable,
    Authenticator,
    AuthError,
    Forbidden,
    Identity,
    InvalidCredentials,
    RequestView,
    SchemeModel,
    Unauthenticated,
)

log = logging.getLogger("a2a_serverless.auth")

Requirement = Mapping[str, Sequence[str]]
# Compiled on first use, by re's own cache: only an authenticated owner is checked with it.
_CONTROL = r"[\x00-\x1f\x7f]"


class Security:
    def __init__(
        self,
        authenticators: Sequence[Authenticator] = (),
        requirements: Sequence[Requirement] | None = None,
        *,
        public_card: bool = True,
    ) -> None:
        """`public_card`: whether /.well-known/agent-card.json is served without credentials
        (the default; the spec expects the card to be discoverable). Without authenticators
        this is the unauthenticated (anonymous) mode: see `Security.anonymous()`."""
        self.authenticators: dict[str, Authenticator] = {}
        for auth in authenticators:
            if not auth.name or auth.name == ANONYMOUS_SCHEME:
                raise ValueError(f"{auth!r} needs a scheme name other than {auth.name!r}")
            if auth.name in self.authenticators:
                raise ValueError(f"two authenticators are named {auth.name!r}")
            self.authenticators[auth.name] = auth
        if requirements is None:
            requirements = [{name: []} for name in self.authenticators]
        elif self.authenticators and not requirements:
            raise ValueError("requirements is empty: use [{}] to make authentication optional")
        self.requirements: list[dict[str, tuple[str, ...]]] = [
            {name: tuple(scopes) for name, scopes in alt.items()} for alt in requirements
        ]
        if self.requirements and not self.authenticators:
            raise ValueError("requirements name schemes, but there are no authenticators")
        self._check_names(self.requirements, "the security requirements")
        self.public_card = public_card

    @classmethod
    def anonymous(cls) -> Security:
        """No authentication: every request is the one anonymous caller (owner "anonymous").
        For development, or when nothing about the agent or its tasks is private."""
        return cls()

    def __repr__(self) -> str:
        return f"Security({list(self.authenticators)!r}, requirements={self.requirements!r})"

    @property
    def enabled(self) -> bool:
        return bool(self.authenticators)

    @property
    def protects_card(self) -> bool:
        """Whether fetching the public card needs credentials too."""
        return self.enabled and not self.public_card

    def _check_names(self, requirements: Iterable[Mapping[str, object]], where: str) -> None:
        for alt in requirements:
            for name in alt:
                if name not in self.authenticators:
                    raise ValueError(f"{where} name the unknown security scheme {name!r}")

    def check_skills(self, skills: Iterable[AgentSkill]) -> None:
        """Refuse (ValueError, at start-up) skills whose security requirements name an unknown
        scheme."""
        if not self.enabled:
            return
        for skill in skills:
            self._check_names(skill.requirements() or [], f"skill {skill.id!r}'s security")

    # --- the card -------------------------------------------------------------------------------

    def card_fields(
        self,
    ) -> tuple[dict[str, SchemeModel] | None, list[dict[str, list[str]]] | None]:
        """The card's `securitySchemes` and `security` (both None when anonymous)."""
        if not self.enabled:
            return None, None
        schemes = {name: auth.security_scheme() for name, auth in self.authenticators.items()}
        security = [
            {name: list(scopes) for name, scopes in alt.items()} for alt in self.requirements
        ]
        return schemes, security

    # --- authentication -------------------------------------------------------------------------

    async def authenticate(self, request: RequestView) -> Identity:
        if not self.enabled:
            return ANONYMOUS
        found: dict[str, Identity] = {}
        refused: dict[str, InvalidCredentials] = {}
        unavailable: AuthenticationUnavailable | None = None
        for name, auth in self.authenticators.items():
            try:
                identity = await auth.authenticate(request)
            except InvalidCredentials as exc:
                refused[name] = exc
                log.info("credentials for scheme %r refused: %s", name, exc.reason)
            except AuthenticationUnavailable as exc:
                unavailable = exc
                log.warning("credentials for scheme %r cannot be checked: %s", name, exc.reason)
            else:
                if identity is None:
                    continue
                if not identity.owner or re.search(_CONTROL, identity.owner):
                    refused[name] = InvalidCredentials("the identity is not acceptable")
                    log.warning("scheme %r returned an identity unfit to own tasks", name)
                    continue
                found[name] = identity
        granted = {name: identity.scopes for name, identity in found.items()}
        for alt in self.requirements:
            if not alt:  # authentication is optional
                if refused or unavailable:
                    continue
                if found:
                    return next(iter(found.values())).with_schemes(granted)
                return ANONYMOUS
            if _satisfied(alt, granted):
                return found[next(iter(alt))].with_schemes(granted)
        lacking = [alt for alt in self.requirements if alt and all(n in found for n in alt)]
        if lacking:
            raise self._forbidden(lacking, granted, "the credentials lack the required scopes")
        if unavailable is not None:
            raise unavailable
        if refused:
            reason = "; ".join(f"{name}: {exc.reason}" for name, exc in refused.items())
        elif found:
            reason = "more credentials are needed: " + _describe(self.requirements)
        else:
            reason = "credentials are required: " + _describe(self.requirements)
        raise Unauthenticated(reason, self._challenges(self.requirements, refused))

    def _challenges(
        self, requirements: Iterable[Mapping[str, object]], refused: Mapping[str, AuthError]
    ) -> list[str]:
        names = dict.fromkeys(name for alt in requirements for name in alt)
        if not names:  # only "optional" alternatives: offer every scheme
            names = dict.fromkeys(self.authenticators)
        return [self.authenticators[n].challenge(refused.get(n)) for n in names]

    def _forbidden(
        self,
        requirements: Sequence[Mapping[str, Sequence[str]]],
        granted: Mapping[str, frozenset[str]],
        reason: str,
    ) -> Forbidden:
        missing: dict[str, set[str]] = {}
        for alt in requirements:
            for name, scopes in alt.items():
                lack = set(scopes) - granted.get(name, frozenset())
                if lack:
                    missing.setdefault(name, set()).update(lack)
        detail = "; ".join(f"{n}: {' '.join(sorted(s))}" for n, s in missing.items())
        message = f"{reason} ({detail})" if detail else reason
        every_scope = {s for lack in missing.values() for s in lack}
        challenges = [
            self.authenticators[n].challenge(Forbidden(message, required_scopes=lack))
            for n, lack in missing.items()
            if n in self.authenticators
        ]
        return Forbidden(message, challenges, every_scope)

    # --- authorization --------------------------------------------------------------------------

    def authorize(
        self, identity: Identity, requirements: Sequence[Requirement] | None, what: str = ""
    ) -> None:
        """Raise Forbidden (Unauthenticated for the anonymous caller) unless `identity`
        satisfies one of `requirements` (the card's `security` shape). None or [] allows."""
        if not self.enabled or not requirements:
            return
        for alt in requirements:
            if _satisfied(alt, identity.schemes):
                return
        subject = f"{what} requires" if what else "this request requires"
        if identity.is_anonymous:
            raise Unauthenticated(
                f"{subject} credentials: {_describe(requirements)}",
                self._challenges(requirements, {}),
            )
        reachable = [alt for alt in requirements if all(n in identity.schemes for n in alt)]
        raise self._forbidden(
            reachable or list(requirements),
            identity.schemes,
            f"{subject} {_describe(requirements)}",
        )

    def authorize_skill(self, identity: Identity, skill: AgentSkill) -> None:
        """Raise Forbidden unless `identity` meets the skill's security requirements."""
        self.authorize(identity, skill.requirements(), f"skill {skill.id!r}")

    def allowed_skills(self, identity: Identity, skills: Iterable[AgentSkill]) -> list[AgentSkill]:
        """The skills `identity` may use (e.g. to list in the authenticated extended card)."""
        allowed = []
        for skill in skills:
            try:
                self.authorize_skill(identity, skill)
            except AuthError:
                continue
            allowed.append(skill)
        return allowed


def _satisfied(alt: Mapping[str, Sequence[str]], granted: Mapping[str, frozenset[str]]) -> bool:
    return all(name in granted and set(scopes) <= granted[name] for name, scopes in alt.items())


def _describe(requirements: Iterable[Mapping[str, Sequence[str]]]) -> str:
    parts = []
    for alt in requirements:
        terms = [f"{n}[{' '.join(s)}]" if s else n for n, s in alt.items()]
        parts.append(" and ".join(terms) or "none")
    return " or ".join(parts)
