"""Generators of the ONNX models the relay tests and bench/bench_relay.py compile."""
