#!/bin/sh
# The streaming function's handler: the Lambda Web Adapter layer (AWS_LAMBDA_EXEC_WRAPPER=
# /opt/bootstrap) runs this script, waits for the server to answer on AWS_LWA_PORT, then forwards
# every invocation to it over HTTP and streams the response (function URL in RESPONSE_STREAM mode).
# The packaged dependencies sit in the task root, next to this file's directory.
export PYTHONPATH="${LAMBDA_TASK_ROOT:-.}${PYTHONPATH:+:$PYTHONPATH}"
exec python3 -m a2a_serverless_aws.web_adapter examples.trip_planner:trip_planner
