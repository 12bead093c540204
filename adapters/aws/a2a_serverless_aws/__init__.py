"""AWS adapter for a2a-serverless: DynamoDB store, SQS queue and Lambda entry points.

Nothing here is imported by the core; install this distribution (`pip install
a2a-serverless-aws`) to use it.
"""
