"""The Firestore store's URL: ``firestore://[project][/database][?prefix=p][&content=gs://b/p]``.

- ``firestore://`` -- the project from the environment (GOOGLE_CLOUD_PROJECT, or Application
  Default Credentials), the ``(default)`` database, prefix ``a2a``;
- ``firestore://my-project`` -- that project's ``(default)`` database;
- ``firestore://my-project/agents?prefix=shouter`` -- database ``agents``, collections
  ``shouter_tasks``, ``shouter_events``, ...;
- ``firestore:///agents`` -- database ``agents`` of the project from the environment;
- ``firestore://my-project?content=gs://my-bucket/a2a`` -- parts too large for a document in
  the Cloud Storage bucket ``my-bucket``, names under ``a2a/`` (a2a_serverless.store.content).

The emulator is not part of the URL: the client library connects to it whenever
FIRESTORE_EMULATOR_HOST is set (``host:port``), with any project id.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, unquote, urlsplit

import msgspec

from .documents import Collections

DEFAULT_DATABASE = "(default)"
DEFAULT_PREFIX = "a2a"

# Google Cloud project ids, plus the legacy domain-scoped form ("example.com:my-project") and
# the free-form ids the emulator accepts; only what would break the URL or a path is refused.
_PROJECT = re.compile(r"[A-Za-z0-9][A-Za-z0-9.:_-]*")
# Firestore database ids: 4-63 of lowercase letters, digits and '-', or "(default)".
_DATABASE = re.compile(r"[a-z][a-z0-9-]{2,61}[a-z0-9]")


class FirestoreLocation(msgspec.Struct, frozen=True):
    """Where a Firestore store keeps its documents. `project` None: from the environment."""

    project: str | None = None
    database: str = DEFAULT_DATABASE
    prefix: str = DEFAULT_PREFIX
    # gs://<bucket>[/<prefix>], checked.
    content: str | None = None

    def __post_init__(self) -> None:
        if self.project is not None and not _PROJECT.fullmatch(self.project):
            raise ValueError(f"not a Google Cloud project id: {self.project!r}")
        if self.database != DEFAULT_DATABASE and not _DATABASE.fullmatch(self.database):
            raise ValueError(
                f"not a Firestore database id: {self.database!r} (expected {DEFAULT_DATABASE!r} "
                f"or 4-63 lowercase letters, digits and '-', starting with a letter)"
            )
        Collections(self.prefix)  # validates the prefix
        if self.content is not None:
            from a2a_serverless.store.content import parse_bucket_url

            parse_bucket_url(self.content, "gs")


def parse_firestore_url(url: str) -> FirestoreLocation:
    """The location a ``firestore://`` URL names (see the module docstring). ValueError if bad."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "firestore":
        raise ValueError(f"not a firestore:// URL: {url!r}")
    if parts.fragment or "@" in parts.netloc:
        raise ValueError(f"firestore:// URLs take no user, password or fragment: {url!r}")
    project = unquote(parts.netloc) or None
    path = unquote(parts.path).strip("/")
    if "/" in path:
        raise ValueError(
            f"firestore:// URL path is one database id, got {path!r} in {url!r}; "
            f"expected firestore://<project>/<database>?prefix=<prefix>"
        )
    options = parse_qs(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    unknown = sorted(set(options) - {"prefix", "content"})
    if unknown:
        raise ValueError(f"unknown firestore:// URL option(s) {unknown} in {url!r}")
    prefixes = options.get("prefix", [DEFAULT_PREFIX])
    if len(prefixes) != 1:
        raise ValueError(f"firestore:// URL gives prefix more than once: {url!r}")
    contents = options.get("content", [])
    if len(contents) > 1:
        raise ValueError(f"firestore:// URL gives content more than once: {url!r}")
    return FirestoreLocation(
        project=project,
        database=path or DEFAULT_DATABASE,
        prefix=prefixes[0],
        content=contents[0] if contents else None,
    )
