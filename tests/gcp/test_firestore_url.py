"""The firestore:// URL, the entry point, collection names and document ids (no emulator)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from a2a_serverless.store import open_store
from a2a_serverless_gcp.firestore import (
    Collections,
    FirestoreLocation,
    FirestoreStore,
    open_firestore_store,
    parse_firestore_url,
)
from a2a_serverless_gcp.firestore.documents import document_id, event_document_id, key_document_id

pytestmark = pytest.mark.gcp

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("url", "location"),
    [
        ("firestore://", FirestoreLocation()),
        ("firestore://my-project", FirestoreLocation(project="my-project")),
        ("firestore://my-project/", FirestoreLocation(project="my-project")),
        ("firestore://my-project/(default)", FirestoreLocation(project="my-project")),
        ("firestore://my-project/%28default%29", FirestoreLocation(project="my-project")),
        (
            "firestore://my-project/agents-db?prefix=shouter",
            FirestoreLocation(project="my-project", database="agents-db", prefix="shouter"),
        ),
        ("firestore:///agents-db", FirestoreLocation(database="agents-db")),
        ("firestore://?prefix=agent_1", FirestoreLocation(prefix="agent_1")),
        ("firestore://p?prefix=", FirestoreLocation(project="p", prefix="")),
        ("FIRESTORE://p", FirestoreLocation(project="p")),
        # Legacy domain-scoped project ids.
        ("firestore://example.com:my-project", FirestoreLocation(project="example.com:my-project")),
    ],
)
def test_parse_url(url: str, location: FirestoreLocation) -> None:
    assert parse_firestore_url(url) == location


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("dynamodb://table", "not a firestore:// URL"),
        ("firestore://p/db/extra", "one database id"),
        ("firestore://p/Agents", "not a Firestore database id"),
        ("firestore://p/ab", "not a Firestore database id"),
        ("firestore://p?prefx=a", "unknown firestore:// URL option"),
        ("firestore://p?prefix=a&prefix=b", "more than once"),
        ("firestore://p?prefix=has/slash", "prefix"),
        ("firestore://p?prefix=_leading", "prefix"),
        ("firestore://p?prefix=" + "x" * 65, "prefix"),
        ("firestore://user@p", "no user"),
        ("firestore://p#fragment", "fragment"),
        ("firestore://bad%20project", "project id"),
    ],
)
def test_parse_url_refuses(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_firestore_url(url)


def test_open_store_finds_the_entry_point() -> None:
    # Constructing a store contacts nothing: clients are made on first use.
    store = open_store("firestore://some-project/agents-db?prefix=shouter")
    assert isinstance(store, FirestoreStore)
    assert store.location == FirestoreLocation("some-project", "agents-db", "shouter")
    assert store.collections.tasks == "shouter_tasks"
    assert "some-project" in repr(store) and "shouter" in repr(store)
    direct = open_firestore_store("firestore://")
    assert direct.location == FirestoreLocation()


def test_collection_names() -> None:
    collections = Collections("a2a")
    assert collections.all == (
        "a2a_tasks",
        "a2a_events",
        "a2a_pushConfigs",
        "a2a_idempotencyKeys",
    )
    assert Collections("").tasks == "tasks"


@pytest.mark.parametrize("raw", ["task-1", "Ünïcode ✓", "a.b", "x" * 1500])
def test_document_ids_kept_when_firestore_accepts_them(raw: str) -> None:
    assert document_id(raw) == raw


@pytest.mark.parametrize("raw", ["a/b", ".", "..", "__x__", "~tilde", "", "x" * 1501, "é" * 751])
def test_document_ids_hashed_when_firestore_refuses_them(raw: str) -> None:
    assert document_id(raw) == "~" + hashlib.sha256(raw.encode()).hexdigest()


def test_event_and_key_document_ids() -> None:
    assert event_document_id(7) == "000000000007"
    assert sorted(event_document_id(n) for n in (10, 9, 100)) == [
        event_document_id(n) for n in (9, 10, 100)
    ]
    assert key_document_id("k/1") == hashlib.sha256(b"k/1").hexdigest()


def test_importing_the_package_does_not_import_the_sdk() -> None:
    code = (
        "import sys, a2a_serverless_gcp.firestore as f; "
        "assert 'google.cloud.firestore' not in sys.modules, 'imported eagerly'; "
        "assert 'grpc' not in sys.modules, 'grpc imported eagerly'; "
        "f.parse_firestore_url('firestore://p'); "
        "assert 'google.cloud.firestore' not in sys.modules; "
        "f.FirestoreStore; assert 'google.cloud.firestore' in sys.modules"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
