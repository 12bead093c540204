"""How records become table items and back: key formats, compression, sizes, expiry.

Kept free of pynamodb so the formats can be read (and tested) on their own; store.py builds the
pynamodb items from these pieces.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from typing import Any

TASK_PREFIX = "T#"
KEY_PREFIX = "K#"
EVENT_PREFIX = "E#"
PUSH_PREFIX = "P#"
TASK_SK = "T"
KEY_SK = "K"

# Widths of the zero-padded numbers inside sort keys, so that string order is numeric order.
SEQ_DIGITS = 10
MAX_SEQ = 10**SEQ_DIGITS - 1
TIME_DIGITS = 15
MAX_TIME_MS = 10**TIME_DIGITS - 1

COMPRESS_LEVEL = 6


def task_pk(task_id: str) -> str:
    return TASK_PREFIX + task_id


def key_pk(key: str) -> str:
    return KEY_PREFIX + key


def event_sk(seq: int) -> str:
    if not 0 <= seq <= MAX_SEQ:
        raise ValueError(f"event seq {seq} is outside 0..{MAX_SEQ}")
    return f"{EVENT_PREFIX}{seq:0{SEQ_DIGITS}d}"


def seq_of(sk: str) -> int:
    return int(sk[len(EVENT_PREFIX) :])


def push_sk(config_id: str) -> str:
    return PUSH_PREFIX + config_id


def order_key(updated_at_ms: int, task_id: str) -> str:
    """The listing indexes' sort key: string order is (updated_at_ms, task id) order."""
    return f"{time_prefix(updated_at_ms)}#{task_id}"


def time_prefix(updated_at_ms: int) -> str:
    if not 0 <= updated_at_ms <= MAX_TIME_MS:
        raise ValueError(f"updated_at_ms {updated_at_ms} is outside 0..{MAX_TIME_MS}")
    return f"{updated_at_ms:0{TIME_DIGITS}d}"


def owner_context(owner: str, context_id: str) -> str:
    """The by_context index's partition key: one (owner, context) pair, unambiguously."""
    return json.dumps([owner, context_id], separators=(",", ":"), ensure_ascii=False)


def pack(text: str) -> bytes:
    return zlib.compress(text.encode(), COMPRESS_LEVEL)


def unpack(data: bytes) -> str:
    return zlib.decompress(data).decode()


# What a task's events have in common, as a zlib preset dictionary for its inline events (a
# task item's `events`): alone, zlib shrinks a 200-byte event to about 170 bytes, mostly the
# two ids; with a dictionary and the task's ids, to about 40. The dictionaries are part of the
# stored format: a stream names the one it was packed with (its header's DICTID, the Adler-32
# of the dictionary), so a changed byte would make the events packed with it unreadable (an
# error, never wrong events). New events are packed with the newest; the others stay readers.
#
# The events as the kit wrote them before its model was A2A 1.0's (`kind`, `final`, 0.3 parts).
_EVENT_DICTIONARY_V1 = (
    b'{"kind":"artifact-update","artifact":{"artifactId":"","name":"","description":"",'
    b'"parts":[{"kind":"data","data":{}},{"kind":"file","file":{"uri":"","mimeType":"",'
    b'"bytes":""}},{"kind":"text","text":""}],"metadata":{}},"append":true,"lastChunk":true,'
    b'"status":{"state":"working","message":{"kind":"message","role":"agent","messageId":"",'
    b'"parts":[{"kind":"text","text":""}]},"timestamp":"20"},"final":false}'
    b'{"kind":"status-update","status":{"state":"input-required"},"final":false}'
    b'{"kind":"status-update","status":{"state":"completed","timestamp":"20"},"final":true}'
)
# The events as written since (store/base.py: the 1.0 way, tagged by the one member set).
_EVENT_DICTIONARY_V2 = (
    b'{"artifactUpdate":{"artifact":{"artifactId":"","name":"","description":"","parts":'
    b'[{"data":{}},{"url":"","mediaType":"","filename":""},{"raw":""},{"text":""}],'
    b'"metadata":{}},"append":true,"lastChunk":true}}'
    b'{"statusUpdate":{"status":{"state":"working","message":{"messageId":"","role":"agent",'
    b'"parts":[{"text":""}]},"timestamp":"20"}}}'
    b'{"statusUpdate":{"status":{"state":"input-required"}}}'
    b'{"statusUpdate":{"status":{"state":"completed","timestamp":"20"}}}'
    b'{"artifactUpdate":{"statusUpdate":{'
)
_EVENT_DICTIONARIES = (_EVENT_DICTIONARY_V2, _EVENT_DICTIONARY_V1)  # the newest first


def _event_dictionary(base: bytes, task_id: str, context_id: str) -> bytes:
    # zlib looks back from the end of a dictionary: what matches most often goes last.
    ids = f'"taskId":"{task_id}","contextId":"{context_id}",'.encode()
    return base + ids


def pack_event(text: str, task_id: str, context_id: str) -> bytes:
    """An inline event: zlib with the task's preset dictionary (the newest)."""
    zdict = _event_dictionary(_EVENT_DICTIONARIES[0], task_id, context_id)
    packer = zlib.compressobj(COMPRESS_LEVEL, zdict=zdict)
    return packer.compress(text.encode()) + packer.flush()


def unpack_event(data: bytes, task_id: str, context_id: str) -> str:
    """An inline event, packed with whichever of the dictionaries its header names."""
    wanted = int.from_bytes(data[2:6], "big") if len(data) >= 6 else None
    dictionaries = [_event_dictionary(d, task_id, context_id) for d in _EVENT_DICTIONARIES]
    # The one the stream names; if none matches (another task's ids), the newest, whose
    # checksum zlib then refuses.
    zdict = next((d for d in dictionaries if zlib.adler32(d) == wanted), dictionaries[0])
    unpacker = zlib.decompressobj(zdict=zdict)
    return (unpacker.decompress(data) + unpacker.flush()).decode()


def context_of(owner_ctx: str) -> str:
    """The context id in a task item's `owner_ctx` (see `owner_context`)."""
    context_id: str = json.loads(owner_ctx)[1]
    return context_id


def inline_size(blobs: list[bytes]) -> int:
    """What a task item's `events` list grows by when these compressed events join it."""
    return sum(1 + len(blob) for blob in blobs)


def ttl_seconds(expires_at_ms: int | None) -> int | None:
    """DynamoDB's TTL is whole epoch seconds; round up so an item never goes before it expires."""
    return None if expires_at_ms is None else -(-expires_at_ms // 1000)


def item_size(attributes: Mapping[str, Mapping[str, Any]]) -> int:
    """The size DynamoDB counts for an item in botocore's wire form, as its docs define it:
    attribute names plus values (UTF-8 strings, raw binary, about one byte per two digits of a
    number), never less than the real size for the shapes this store writes."""
    return sum(len(name.encode()) + _value_size(value) for name, value in attributes.items())


def _value_size(value: Mapping[str, Any]) -> int:
    ((kind, data),) = value.items()
    if kind == "S":
        return len(str(data).encode())
    if kind == "B":
        return len(data)
    if kind == "N":
        return len(str(data)) // 2 + 2
    if kind == "SS":
        return sum(len(str(s).encode()) for s in data)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "L":
        # DynamoDB: 3 bytes for the list, 1 per element, then the elements.
        return 3 + sum(1 + _value_size(member) for member in data)
    # Shapes the store never writes (maps, number and binary sets): count generously.
    return len(json.dumps(data, default=str).encode()) + 3
