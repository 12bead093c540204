"""Google Cloud adapter for a2a-serverless: Firestore store, Pub/Sub and Cloud Tasks queues,
functions-framework entry points.

Nothing here is imported by the core; install this distribution (`pip install
a2a-serverless-gcp`) to use it.
"""
