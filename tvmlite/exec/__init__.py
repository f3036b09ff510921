"""Command-line programs (``python -m tvm.exec.rpc_server`` and friends)."""
