"""Stored records in the shapes earlier versions of the kit wrote, read into today's models.

Records outlive the code that wrote them: a store written before a model changed shape is still
read, on every store (they all share `base.py`'s JSON forms). This module is the one place that
knows the old shapes, next to the new ones, and turns what it reads into today's model. The old
shapes are the kit's own storage forms, not a protocol's wire: nothing here imports a codec
(`v03/` stays deletable on its own).

Push configs (`StoredPushConfig.config`): written flat since the internal model became 1.0's,
`{url, id, taskId, token, authentication: {scheme, credentials}}`; before, without `taskId`
(the record's own `taskId` says it) and with `authentication: {schemes: [...], credentials}`.
Of an old list of schemes the one notifications were sent with is kept
(`AuthenticationInfo.of_schemes`, as 0.3's wire form has it now).
"""

from __future__ import annotations

import msgspec

from ..models import AuthenticationInfo, TaskPushNotificationConfig


class StoredAuthentication(msgspec.Struct, gc=False):
    """A push config's authentication, as stored now (`scheme`) or before (`schemes`)."""

    scheme: str | None = None
    schemes: list[str] | None = None
    credentials: str | None = None


class StoredPushConfigBody(msgspec.Struct, rename="camel", gc=False):
    """A push config, as stored now or before (the differences are optional fields)."""

    url: str
    id: str | None = None
    task_id: str | None = None
    token: str | None = None
    authentication: StoredAuthentication | None = None


def push_config(stored: StoredPushConfigBody, task_id: str) -> TaskPushNotificationConfig:
    """Today's push config of a stored one of task `task_id`, whichever shape it was kept in."""
    auth = stored.authentication
    authentication = None
    if auth is not None:
        if auth.scheme is not None:
            authentication = AuthenticationInfo(scheme=auth.scheme, credentials=auth.credentials)
        else:
            authentication = AuthenticationInfo.of_schemes(auth.schemes or [], auth.credentials)
    return TaskPushNotificationConfig(
        url=stored.url,
        id=stored.id,
        task_id=stored.task_id or task_id,
        token=stored.token,
        authentication=authentication,
    )
