"""Entry point of an isolated session process (``Server(isolate=True)``): serves the socket
it inherited, then exits."""
import sys

from .server import Limits, serve_session

if __name__ == "__main__":
    fd, directory, max_frame, max_upload, max_objects, idle = sys.argv[1:7]
    serve_session(int(fd), directory, Limits(int(max_frame), int(max_upload), int(max_objects)),
                  float(idle))
