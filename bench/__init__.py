"""Benchmarks against the official a2a-sdk: cold start, warm latency, throughput, memory, bundle
size and DynamoDB cost, side by side and measured in the same run (see bench/README.md)."""
