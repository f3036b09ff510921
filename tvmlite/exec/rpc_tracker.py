"""``python -m tvmlite.exec.rpc_tracker``: match device keys to free RPC servers."""
from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from typing import List, Optional

from ..rpc.tracker import Tracker


def main(argv: Optional[List[str]] = None) -> int:
    """Run the tracker until interrupted."""
    p = argparse.ArgumentParser(prog="python -m tvm.exec.rpc_tracker", description=__doc__)
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1; others print a warning)")
    p.add_argument("--port", type=int, default=9190, help="first port to try (0: any)")
    p.add_argument("--port-end", type=int, default=9199, help="end of the port range")
    p.add_argument("--silent", action="store_true", help="log warnings only")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING if args.silent else logging.INFO)
    tracker = Tracker(args.host, args.port, args.port_end)
    print(f"RPC tracker listening on {args.host}:{tracker.port}", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    tracker.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
