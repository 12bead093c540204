"""adapters/gcp/firestore.indexes.json: valid, and covering every query the store runs.

The emulator serves any query without indexes; production Firestore refuses a query that has no
matching composite index. So the expected indexes are derived here from the queries the store
actually builds (their filters and orderings), not written out by hand a second time.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from google.auth.credentials import AnonymousCredentials
from google.cloud.firestore_v1.types import StructuredQuery

from a2a_serverless.store import TaskQuery
from a2a_serverless_gcp.firestore import Collections, FirestoreStore

pytestmark = pytest.mark.gcp

INDEX_FILE = Path(__file__).resolve().parents[2] / "adapters" / "gcp" / "firestore.indexes.json"
Field = tuple[str, str]


@pytest.fixture(scope="module")
def index_file() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(INDEX_FILE.read_text())
    return data


@pytest.fixture
async def store() -> AsyncIterator[FirestoreStore]:
    # Queries are only built, never sent: no emulator, no real credentials.
    store = FirestoreStore(
        project="index-check",
        credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
    )
    yield store
    await store.close()


def index_fields(query: StructuredQuery) -> list[Field]:
    """The composite index a query needs: its equality fields, then its orderings."""
    filters = [query.where.field_filter]
    if query.where.composite_filter.filters:
        filters = [f.field_filter for f in query.where.composite_filter.filters]
    equal = StructuredQuery.FieldFilter.Operator.EQUAL
    fields = [(f.field.field_path, "ASCENDING") for f in filters if f.op == equal]
    for order in query.order_by:
        direction = (
            "DESCENDING"
            if order.direction == StructuredQuery.Direction.DESCENDING
            else ("ASCENDING")
        )
        fields.append((order.field.field_path, direction))
    return fields


def test_file_shape(index_file: dict[str, Any]) -> None:
    assert set(index_file) == {"indexes", "fieldOverrides"}
    for index in index_file["indexes"]:
        assert set(index) == {"collectionGroup", "queryScope", "fields"}
        assert index["queryScope"] == "COLLECTION"
        for field in index["fields"]:
            assert set(field) == {"fieldPath", "order"}
            assert field["order"] in ("ASCENDING", "DESCENDING")
    for override in index_file["fieldOverrides"]:
        assert {"collectionGroup", "fieldPath", "indexes"} <= set(override)
        assert set(override) <= {"collectionGroup", "fieldPath", "indexes", "ttl"}


async def test_every_list_query_shape_has_its_index(
    store: FirestoreStore, index_file: dict[str, Any]
) -> None:
    tasks = Collections("a2a").tasks
    declared = {
        tuple((f["fieldPath"], f["order"]) for f in index["fields"])
        for index in index_file["indexes"]
        if index["collectionGroup"] == tasks
    }
    client = store._clients.current()
    needed = set()
    for context_id, state, updated_after, after in itertools.product(
        [None, "ctx"], [None, "working"], [None, 5], [None, (7, "t")]
    ):
        query = TaskQuery(
            owner="o", context_id=context_id, state=state, updated_after_ms=updated_after
        )
        built = store._list_query(client, query)
        if after is not None:
            built = built.start_after(list(after))
        needed.add(tuple(index_fields(built._to_protobuf())))
    # Four shapes: owner alone, with contextId, with state, with both.
    assert len(needed) == 4
    assert needed == declared, f"missing: {needed - declared}, unused: {declared - needed}"


def test_ttl_policy_and_index_exemptions(index_file: dict[str, Any]) -> None:
    overrides = {(o["collectionGroup"], o["fieldPath"]): o for o in index_file["fieldOverrides"]}
    # Every collection group carries the TTL field; it is not indexed (a timestamp that only
    # grows would make a hot spot in its index).
    for group in Collections("a2a").all:
        assert overrides[(group, "expireAt")] == {
            "collectionGroup": group,
            "fieldPath": "expireAt",
            "ttl": True,
            "indexes": [],
        }
    # Bodies are up to 1 MiB and never queried.
    collections = Collections("a2a")
    for group in (collections.tasks, collections.events, collections.push_configs):
        assert overrides[(group, "body")]["indexes"] == []
