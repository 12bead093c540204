"""AWS Lambda's limit on a synchronous invocation's response, as the core's `ResponseBudget`.

Lambda refuses a response payload over 6 MiB (it says "exceeded maximum allowed payload size
(6291556 bytes)"), and API Gateway then answers 502 with nothing of ours in it. The payload is
the JSON our HTTP handler returns (the envelope: status, headers, the body as a JSON string,
base64 when it is binary), encoded by the runtime client (awslambdaric: simplejson, ASCII
escapes outside Lambda's managed 3.12+ runtimes). `LambdaResponseBudget` counts a response as
that envelope (non-ASCII text counted escaped, the larger figure), so the core keeps an answer
within it (a2a_serverless/budget.py): gzip for a client that accepts it, else a typed error.
An Application Load Balancer in front takes only 1 MB from a Lambda target: its events get that
budget (`for_alb`). A REST API (API Gateway v1) passes a base64 body on as binary only for the
media types it is configured with (`binaryMediaTypes`), so its answers are never gzipped.
"""

from __future__ import annotations

from json.encoder import encode_basestring_ascii

from a2a_serverless.budget import ResponseBudget
from a2a_serverless.http import Headers

from .http_api import TEXT_TYPES

# 6 MiB: what Lambda's quotas page calls 6 MB (its own message says 6291556 bytes; the 100
# bytes between are left unused).
LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024
# An Application Load Balancer takes at most 1 MB of response JSON from a Lambda target.
ALB_RESPONSE_BYTES = 1_000_000
# The envelope's keys and punctuation ("statusCode", "body", "isBase64Encoded", ...), generously.
_ENVELOPE = 256


class LambdaResponseBudget(ResponseBudget):
    """A response counted as the Lambda invoke response our HTTP handler returns for it."""

    def __init__(
        self,
        limit: int = LAMBDA_RESPONSE_BYTES,
        platform: str = "AWS Lambda",
        *,
        compress: bool = True,
    ) -> None:
        super().__init__(limit, platform, compress=compress)

    @classmethod
    def for_alb(cls, limit: int) -> LambdaResponseBudget:
        """The budget of an answer to an ALB event: the ALB's 1 MB, or `limit` if lower."""
        return cls(min(limit, ALB_RESPONSE_BYTES), "an Application Load Balancer")

    def overhead(self, status: int, headers: Headers) -> int:
        # Mangum's event formats give the headers twice (headers and multiValueHeaders).
        size = _ENVELOPE
        for name, value in headers:
            size += 2 * (_escaped(name.decode("latin-1")) + _escaped(value.decode("latin-1")) + 8)
        return size

    def is_text(self, headers: Headers) -> bool:
        # As http_api.event_response and Mangum decide: text types go as text, unless encoded.
        content_type = ""
        for name, value in headers:
            if name.lower() == b"content-encoding":
                return False
            if name.lower() == b"content-type":
                content_type = value.decode("latin-1")
        return content_type.startswith(TEXT_TYPES)

    def text_size(self, chunk: bytes) -> int:
        return _escaped(chunk.decode("utf-8", "replace"))

    def binary_size(self, size: int) -> int:
        return 4 * ((size + 2) // 3)

    def bound(self, status: int, headers: Headers, body_size: int) -> int:
        # JSON-escaped to ASCII, a byte (latin-1 header, UTF-8 or undecodable body) is at most
        # six characters (\uXXXX); base64 makes four of three.
        header_bytes = sum(len(name) + len(value) for name, value in headers)
        return _ENVELOPE + 2 * (6 * header_bytes + 8 * len(headers)) + 6 * body_size


def _escaped(text: str) -> int:
    """The length of `text` as a JSON string's contents, escaped to ASCII (quotes not counted)."""
    return len(encode_basestring_ascii(text)) - 2
