"""``python -m tvmlite.exec.query_rpc_tracker``: print a tracker's servers and queues."""
from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from ..rpc.client import connect_tracker
from ..rpc.protocol import RPCError


def main(argv: Optional[List[str]] = None) -> int:
    """Print the tracker's summary; exit status 1 when it cannot be reached."""
    p = argparse.ArgumentParser(prog="python -m tvm.exec.query_rpc_tracker",
                                description=__doc__)
    p.add_argument("--host", default="127.0.0.1", help="tracker address")
    p.add_argument("--port", type=int, default=9190, help="tracker port")
    args = p.parse_args(argv)
    try:
        print(f"Tracker address {args.host}:{args.port}\n")
        print(connect_tracker(args.host, args.port).text_summary(), end="")
    except RPCError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
