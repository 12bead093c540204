"""The adapter's settings and the timing rules between the function, the queue and the lease."""

from __future__ import annotations

import pytest

from a2a_serverless.config import Settings
from a2a_serverless_aws.config import (
    AwsSettings,
    ConfigurationError,
    check_http_timing,
    invocation_seconds,
    streaming_timeout,
    visibility_below_recommendation,
    worker_time_budget,
)

pytestmark = pytest.mark.aws

WORKER = Settings(worker_lease_s=120, push_timeout_s=10)


def aws(**values: object) -> AwsSettings:
    return AwsSettings(**values)  # type: ignore[arg-type]


def test_settings_come_from_a2a_variables() -> None:
    settings = AwsSettings.from_env(
        {
            "A2A_SQS_QUEUE_URL": "https://sqs.eu-west-1.amazonaws.com/1/jobs",
            "A2A_SQS_WEBHOOK_QUEUE_URL": "https://sqs.eu-west-1.amazonaws.com/1/hooks",
            "A2A_SQS_MAX_RECEIVE_COUNT": "4",
            "A2A_SQS_VISIBILITY_TIMEOUT_S": "360",
            "A2A_LAMBDA_TIMEOUT_S": "60",
            "A2A_LAMBDA_TIMEOUT_MARGIN_S": "2.5",
            "A2A_TRACING": "true",
        }
    )
    assert settings == AwsSettings(
        sqs_queue_url="https://sqs.eu-west-1.amazonaws.com/1/jobs",
        sqs_webhook_queue_url="https://sqs.eu-west-1.amazonaws.com/1/hooks",
        sqs_max_receive_count=4,
        sqs_visibility_timeout_s=360.0,
        lambda_timeout_s=60.0,
        lambda_timeout_margin_s=2.5,
        tracing=True,
    )


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("A2A_SQS_MAX_RECEIVE_COUNT", "many", "not a number"),
        ("A2A_SQS_MAX_RECEIVE_COUNT", "0", "at least 1"),
        ("A2A_TRACING", "maybe", "not a boolean"),
        ("A2A_LAMBDA_TIMEOUT_S", "-1", "positive"),
    ],
)
def test_bad_values_fail_loudly(name: str, value: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        AwsSettings.from_env({name: value})


def test_the_queue_url_is_required_by_the_handlers() -> None:
    with pytest.raises(ConfigurationError, match="A2A_SQS_QUEUE_URL"):
        AwsSettings().require_queue_url()


def test_an_agent_without_budget_gets_the_function_timeout_minus_the_margin() -> None:
    assert (
        worker_time_budget(WORKER, aws(lambda_timeout_s=60, lambda_timeout_margin_s=5), None) == 55
    )


def test_an_agent_budget_that_fits_is_kept() -> None:
    assert worker_time_budget(WORKER, aws(lambda_timeout_s=60), 30) == 30


def test_without_a_timeout_or_a_budget_the_worker_refuses_to_start() -> None:
    with pytest.raises(ConfigurationError, match="A2A_LAMBDA_TIMEOUT_S"):
        worker_time_budget(WORKER, aws(), None)


def test_a_budget_without_a_timeout_is_checked_against_the_lease() -> None:
    assert worker_time_budget(WORKER, aws(), 60) == 60
    with pytest.raises(ConfigurationError, match="A2A_WORKER_LEASE_S"):
        worker_time_budget(WORKER, aws(), 118)


@pytest.mark.parametrize(
    ("settings", "aws_settings", "budget", "message"),
    [
        (WORKER, aws(lambda_timeout_s=60), 59, "exceeds the function's timeout"),
        (WORKER, aws(lambda_timeout_s=2, lambda_timeout_margin_s=3), None, "leaves no time"),
        (WORKER, aws(lambda_timeout_s=120), None, "A2A_WORKER_LEASE_S=120 must be longer"),
        (
            Settings(worker_lease_s=900, push_timeout_s=30),
            aws(lambda_timeout_s=20),
            10,
            "A2A_PUSH_TIMEOUT_S",
        ),
        (
            WORKER,
            aws(lambda_timeout_s=60, sqs_visibility_timeout_s=30),
            None,
            "A2A_SQS_VISIBILITY_TIMEOUT_S=30 is shorter",
        ),
    ],
)
def test_clocks_that_do_not_nest_are_refused(
    settings: Settings, aws_settings: AwsSettings, budget: float | None, message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message):
        worker_time_budget(settings, aws_settings, budget)


def test_a_visibility_under_six_times_the_timeout_is_only_below_the_recommendation() -> None:
    assert visibility_below_recommendation(aws(lambda_timeout_s=60, sqs_visibility_timeout_s=60))
    assert not visibility_below_recommendation(
        aws(lambda_timeout_s=60, sqs_visibility_timeout_s=360)
    )
    assert not visibility_below_recommendation(aws(lambda_timeout_s=60))


def test_the_http_function_must_outlive_a_blocking_send() -> None:
    check_http_timing(Settings(blocking_timeout_s=25), aws(lambda_timeout_s=29))
    check_http_timing(Settings(blocking_timeout_s=25), aws())  # unknown: checked per invocation
    with pytest.raises(ConfigurationError, match="A2A_BLOCKING_TIMEOUT_S"):
        check_http_timing(Settings(blocking_timeout_s=25), aws(lambda_timeout_s=27))


def test_a_default_stream_timeout_is_lowered_to_fit_the_function() -> None:
    settings = Settings()  # stream_timeout_s=300
    assert streaming_timeout(settings, aws(lambda_timeout_s=900), explicit=False) == 300
    assert streaming_timeout(settings, aws(lambda_timeout_s=120), explicit=False) == 117
    assert streaming_timeout(settings, aws(), explicit=False) == 300
    with pytest.raises(ConfigurationError, match="A2A_STREAM_TIMEOUT_S"):
        streaming_timeout(settings, aws(lambda_timeout_s=120), explicit=True)


def test_an_invocation_sees_the_timeout_in_whole_seconds() -> None:
    assert invocation_seconds(59_987) == 60
    assert invocation_seconds(60_000) == 60


def test_every_settings_error_is_the_cores_configuration_error() -> None:
    from a2a_serverless.config import ConfigurationError as Core
    from a2a_serverless.config import Settings, SettingsError
    from a2a_serverless_aws.sqs import QueueConfigurationError
    from a2a_serverless_gcp.config import ConfigError, GcpSettings
    from a2a_serverless_gcp.config import ConfigurationError as GcpConfigurationError

    assert ConfigurationError is Core and GcpConfigurationError is Core
    assert ConfigError is Core  # the GCP adapter's earlier name, deprecated
    assert issubclass(SettingsError, Core) and issubclass(QueueConfigurationError, Core)
    # One parser: the same message for the same mistake, whoever reads the variable.
    with pytest.raises(Core, match=r"A2A_TRACING='maybe' is not a boolean"):
        AwsSettings.from_env({"A2A_TRACING": "maybe"})
    with pytest.raises(Core, match=r"A2A_STREAMING='maybe' is not a boolean"):
        Settings.from_env({"A2A_STREAMING": "maybe"})
    with pytest.raises(Core, match=r"A2A_PRIME='maybe' is not a boolean"):
        GcpSettings.from_env({"A2A_PRIME": "maybe"})
