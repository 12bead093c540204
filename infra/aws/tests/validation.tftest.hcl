# Settings that contradict each other, or AWS's recommendations, fail at plan time with the
# reason, rather than deploying functions that refuse to start.

mock_provider "aws" {
  source = "./tests/mocks"
}

variables {
  name        = "test-agent"
  package_zip = "tests/fixtures/package.zip"
}

run "streaming_needs_the_web_adapter_layer" {
  command = plan

  variables {
    streaming = true
  }

  expect_failures = [var.web_adapter_layer_arn]
}

run "visibility_below_six_times_the_timeout" {
  command = plan

  variables {
    visibility_timeout_factor = 2
  }

  expect_failures = [var.visibility_timeout_factor]
}

run "lease_shorter_than_the_worker" {
  command = plan

  variables {
    worker_timeout = 600
    worker_lease_s = 600
  }

  expect_failures = [var.worker_lease_s]
}

run "http_timeout_beyond_api_gateway" {
  command = plan

  variables {
    http_timeout = 60
  }

  expect_failures = [var.http_timeout]
}

run "http_timeout_shorter_than_a_blocking_send" {
  command = plan

  variables {
    http_timeout = 20
  }

  expect_failures = [aws_lambda_function.http]
}

run "worker_timeout_shorter_than_a_webhook_attempt" {
  command = plan

  variables {
    worker_timeout = 12
  }

  expect_failures = [aws_lambda_function.worker]
}

run "environment_cannot_override_derived_settings" {
  command = plan

  variables {
    environment = {
      A2A_LAMBDA_TIMEOUT_S = "900"
    }
  }

  expect_failures = [var.environment]
}

run "signing_keys_from_one_place" {
  command = plan

  variables {
    push_signing_keys_ssm_parameter = "/a"
    push_signing_keys_secret_id     = "b"
  }

  expect_failures = [var.push_signing_keys_secret_id]
}

run "signing_keys_parameter_is_a_name" {
  command = plan

  variables {
    push_signing_keys_ssm_parameter = "arn:aws:ssm:eu-west-1:123456789012:parameter/a"
  }

  expect_failures = [var.push_signing_keys_ssm_parameter]
}

run "signing_keys_kms_key_is_a_key_arn" {
  command = plan

  variables {
    push_signing_keys_ssm_parameter = "/a"
    push_signing_keys_kms_key_arn   = "alias/aws/ssm"
  }

  expect_failures = [var.push_signing_keys_kms_key_arn]
}

run "signing_keys_kms_key_without_keys" {
  command = plan

  variables {
    push_signing_keys_kms_key_arn = "arn:aws:kms:eu-west-1:123456789012:key/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
  }

  expect_failures = [var.push_signing_keys_kms_key_arn]
}

run "name_fits_lambda_limits" {
  command = plan

  variables {
    name = "an-agent-name-far-too-long-for-function-names"
  }

  expect_failures = [var.name]
}

run "dead_letter_timeout_within_the_lease" {
  command = plan

  variables {
    dead_letter_handler = "dead_letters.handler"
    dead_letter_timeout = 600
  }

  expect_failures = [var.dead_letter_timeout]
}

run "snap_start_needs_python_3_12" {
  command = plan

  variables {
    snap_start = true
    runtime    = "python3.11"
  }

  expect_failures = [var.snap_start]
}
