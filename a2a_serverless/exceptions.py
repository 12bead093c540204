"""The kit's exception tree: one root, `A2AServerlessError`, that every fault derives from.

    try:
        runtime = Runtime.from_env()
    except A2AServerlessError as error:    # any fault the kit reports, and nothing else
        ...

The branches say what kind of fault it is; each class keeps the builtin base it always had
(ValueError, RuntimeError, ImportError), so an `except ValueError` still catches what it did.
A class with a second parent in the tree says so (`+ StoreError`). The modules are the kit's
(`a2a_serverless.` left out) or an adapter's (`aws:`, `gcp:`, for `a2a_serverless_aws.`...).

* A2AServerlessError                          (exceptions)
  x A2AError                                  a protocol error: JSON-RPC code, HTTP status (errors)
    + JSONParseError
    + InvalidRequestError
      - UnsupportedMediaTypeError
      - ExtensionSupportRequiredError
      - NestingTooDeepError                   (limits)
      - RequestTooLargeError                  (limits)
    + MethodNotFoundError
      - MethodNotAllowedError
    + InvalidParamsError
      - PushConfigConflictError
      - LimitExceededError                    (limits)
    + InternalError
      - DirectAnswerTimeoutError              (direct)
    + TaskNotFoundError
      - PushConfigNotFoundError
    + TaskNotCancelableError
    + PushNotificationNotSupportedError
    + UnsupportedOperationError
      - FinishedTaskError
      - ResponseTooLargeError                 (budget)
    + ContentTypeNotSupportedError
    + InvalidAgentResponseError
    + ServiceUnavailableError                 the wire's answer to an UnavailableError
    + AuthenticatedExtendedCardNotConfiguredError
    + VersionNotSupportedError
    + AuthorizationError
    + RemoteTaskFailed                        a called agent's task failed (client.remote)
  x AuthError                                 a request's credentials refused (auth.base)
    + InvalidCredentials
    + Unauthenticated
    + Forbidden
    + AuthenticationUnavailable               + UnavailableError
  x ConfigurationError (ValueError)           a setting missing, malformed or contradictory
    + SettingsError                           (config)
    + StoreOpenError                          + StoreError
    + StoreTakenError                         (devstore)
    + TargetError                             (devserver)
    + InspectorRefused                        (inspector)
    + PushNotConfigured (RuntimeError)        (push.keys; was PushUnavailable)
    + QueueConfigurationError                 (aws: sqs)
  x UnavailableError                          a backend cannot serve now; retry later
    + StoreUnavailable                        + StoreError
      - DynamoDBUnavailable                   + DynamoDBStoreError (aws: dynamodb.errors)
    + TooMuchContention                       (journal)
    + KeySetUnavailable                       (jwks)
    + AuthenticationUnavailable               + AuthError
    + HostUnresolvable                        (push.ssrf)
    + SecretUnavailable (RuntimeError)        (secretrefs)
      - SecretMissing
    + AgentUnreachable                        + ClientError
    + RemoteUnavailable                       + CallError
  x StoreError                                a store refused or failed a request (store.base)
    + StoreUnavailable                        + UnavailableError
    + StoreOpenError                          + ConfigurationError
    + TaskAlreadyExists
    + VersionConflict
    + IdempotencyKeyTaken
    + KeyHeld
    + StoreLimitExceeded                      + LimitError
      - ItemTooLarge, TransactionTooLarge     + DynamoDBStoreError
      - FirestoreLimitExceeded                (gcp: firestore.documents)
      - StoreFull                             a new task past the tasks a store keeps
    + ContentMissing                          (store.content)
    + ContentCorrupt                          (store.content)
    + DynamoDBStoreError                      (aws: dynamodb.errors)
      - ItemTooLarge, TransactionTooLarge     + StoreLimitExceeded
      - DynamoDBUnavailable                   + StoreUnavailable
  x LimitError                                content over a bound; nothing was written
    + TaskTooLarge                            (journal)
    + BodyTooLarge                            (http)
    + StoreLimitExceeded                      + StoreError (and the stores' own, above)
  x FormatError (ValueError)                  data that does not have the shape it claims
    + ValidationError                         (codec)
    + JobFormatError                          (queue.base)
    + PushFormatError                         (gcp: pubsub)
    + TaskFormatError                         (gcp: cloud_tasks)
  x NotificationRejected                      a webhook failed verification (webhook_receiver)
    + MissingSignature
    + MalformedNotification
    + UnknownKey
    + BadSignature
    + ClaimMismatch
    + ExpiredNotification
    + BodyMismatch
    + TokenMismatch
    + ReplayedNotification
  x TaskGone                                  the task vanished while written (journal)
  x InvalidTransition                         a state change the lifecycle forbids (lifecycle)
  x UrlRefused (ValueError)                   a push URL that may never be called (push.ssrf)
  x MissingExtra (ImportError)                an optional dependency not installed (extras)
  x OpsError                                  an operator command that cannot be done (ops)
  x A2AClientError                            the agent answered an error (testing.client)
  x ClientError                               a call got no A2A answer (client.errors)
    + AgentUnreachable                        + UnavailableError
    + HTTPStatusError
    + ResponseTooLarge
    + CardError
  x CheckFailed                               what a checked agent did wrong (client.check)
  x CallError                                 a durable call gave no result (durable.outcomes)
    + RemoteTaskEnded                         the remote task ended otherwise than completed
      - RemoteFailed, RemoteRejected, RemoteCanceled
    + CallDeadlineExceeded
    + RemoteUnavailable                       + UnavailableError
  x UnknownRemote (LookupError)               a remote agent named but not configured
  x DurableUnavailable (RuntimeError)         a durable operation where there is none

**Control-flow signals stay apart from the root.** They steer a turn or a job rather than
report a fault, and an `except A2AServerlessError` must not swallow them:

* RetryJob                    a job handler asking for a planned retry (queue.base)
* TurnOutcome                 an agent ending its turn in a state (turn; the agent's face)
  x InputRequired, AuthRequired, Rejected, Failed
    + NonDeterministicReplay  a replayed turn diverged from its record (durable.session)
* TaskEnded                   the task ended elsewhere: the agent stops working (executor)
* TurnSuspended               a turn waiting on a durable operation (durable.outcomes; a
                              BaseException, so an agent's `except Exception` cannot swallow it)

Private signals (`worker._Skip`, `service._MaybeRetry`, `limits._NotJSON`, the DynamoDB store's
`writes._Conflicted` and `writes._NoRoom`) are raised and caught inside their module.
tests/unit/test_exceptions.py walks every exception class of the kit and the adapters and holds
them to this page.

A leaf: this module imports nothing, so any module (the HTTP edge included) may derive from it.
"""

from __future__ import annotations


class A2AServerlessError(Exception):
    """The root of every fault the kit reports (see the tree above)."""


class ConfigurationError(A2AServerlessError, ValueError):
    """A deployment's settings are missing, malformed or contradict each other (the message
    names the variable and what it must be). The adapters' settings raise it too."""


class UnavailableError(A2AServerlessError):
    """Something the kit depends on (a store, a key set, a secret, DNS) could not serve the
    request right now: nothing is known to have been done, and the same request may succeed
    later. The one kind of "unavailable": a store's answers HTTP 503 with `Retry-After`."""


class LimitError(A2AServerlessError):
    """Content larger than a bound the kit or a backend holds (the message names the bound and
    the figures); nothing was written."""


class FormatError(A2AServerlessError, ValueError):
    """Data that does not have the shape it claims (a model's input, a queue's message, a
    pushed request); retrying cannot fix it."""
