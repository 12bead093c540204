"""A lean A2A client: call another agent, A2A 1.0 or 0.3, over JSON-RPC or HTTP+JSON.

    from a2a_serverless.client import A2AClient

    client = await A2AClient.connect("https://agent.example.com")
    task = await client.send("hello")

Built on the kit's own models and codecs (the server's, the other way round), with httpx; no
auth library is imported until its scheme is used. See docs/client.md.

- `client.py`: `A2AClient`, every operation of both versions;
- `discovery.py`: the card, fetched and cached, and the interface chosen from it;
- `wire.py`: each operation on each of the four interfaces (the one module that imports the
  version codecs);
- `transport.py`: the pooled HTTP client, bounded reads, SSE;
- `auth.py`: outbound credentials (secrets given by reference: `secretrefs.py`);
- `errors.py`: the client's own errors, and the agent's errors read back into the kit's;
- `remote.py`: the remote agents an agent calls in its turn (`ctx.remote(name)`);
- `check.py`: the conformance smoke behind `a2a-serverless check`.
"""

from __future__ import annotations

from .auth import (
    ApiKey,
    AwsSigV4,
    BearerToken,
    Credential,
    CredentialOptions,
    GoogleIdToken,
    OAuth2ClientCredentials,
)
from .client import A2AClient, text_message
from .discovery import Interface, fetch_card
from .errors import AgentUnreachable, CardError, ClientError, HTTPStatusError, ResponseTooLarge
from .remote import RemoteAgent, RemoteTaskFailed
from .transport import ClientLimits

__all__ = [
    "A2AClient",
    "AgentUnreachable",
    "ApiKey",
    "AwsSigV4",
    "BearerToken",
    "CardError",
    "ClientError",
    "ClientLimits",
    "Credential",
    "CredentialOptions",
    "GoogleIdToken",
    "HTTPStatusError",
    "Interface",
    "OAuth2ClientCredentials",
    "RemoteAgent",
    "RemoteTaskFailed",
    "ResponseTooLarge",
    "fetch_card",
    "text_message",
]
