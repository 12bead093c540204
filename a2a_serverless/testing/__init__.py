"""Test helpers shipped with the kit, for adapter distributions and applications.

`AgentTestClient` (testing/client.py) is an A2A client for an agent's own tests, in-process,
over either protocol version and either binding; `store_contract` is the Store contract suite.
"""

from .client import A2AClientError, AgentTestClient, reply_text

__all__ = ["A2AClientError", "AgentTestClient", "reply_text"]
