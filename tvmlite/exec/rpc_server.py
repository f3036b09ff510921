"""``python -m tvmlite.exec.rpc_server``: serve this machine's devices to RPC clients."""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from typing import List, Optional

from ..rpc.server import AUTH_ENV, Server


def _addr(text: str):
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected host:port, got {text!r}")
    return host, int(port)


def main(argv: Optional[List[str]] = None) -> int:
    """Run the server until interrupted."""
    p = argparse.ArgumentParser(prog="python -m tvm.exec.rpc_server", description=__doc__)
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1; others print a warning)")
    p.add_argument("--port", type=int, default=9091, help="first port to try (0: any)")
    p.add_argument("--port-end", type=int, default=9199, help="end of the port range")
    p.add_argument("--key", default="", help="device key announced to the tracker")
    p.add_argument("--tracker", type=_addr, default=None, help="tracker address host:port")
    p.add_argument("--custom-addr", default=None,
                   help="address the tracker hands to clients (default: the bound address)")
    p.add_argument("--auth-key", default=None,
                   help=f"shared secret clients must prove (default: ${AUTH_ENV})")
    p.add_argument("--isolate", action=argparse.BooleanOptionalAction, default=True,
                   help="serve each session in its own process (default), so a crashing "
                        "module ends only its session")
    p.add_argument("--silent", action="store_true", help="log warnings only")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING if args.silent else logging.INFO)
    server = Server(args.host, args.port, args.port_end, key=args.key,
                    tracker_addr=args.tracker, custom_addr=args.custom_addr,
                    auth_key=args.auth_key if args.auth_key is not None
                    else os.environ.get(AUTH_ENV) or None, isolate=args.isolate)
    print(f"RPC server listening on {args.host}:{server.port}", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    server.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
