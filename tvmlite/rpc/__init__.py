"""Remote devices (``tvm.rpc``): a server that runs modules for clients over a framed binary
protocol, the client session proxying devices, arrays and modules, and a tracker matching
device keys to free servers."""
from .client import (
                     LocalSession,
                     RemoteModule,
                     RemoteNDArray,
                     RPCDevice,
                     RPCSession,
                     TrackerSession,
                     connect,
                     connect_tracker,
)
from .protocol import ProtocolError, RPCError
from .server import Server
from .tracker import Tracker

__all__ = ["connect", "connect_tracker", "LocalSession", "RPCSession", "RPCDevice",
           "RemoteModule", "RemoteNDArray", "TrackerSession", "Server", "Tracker",
           "RPCError", "ProtocolError"]
