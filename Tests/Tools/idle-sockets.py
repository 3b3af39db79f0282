#!/usr/bin/env python3
"""Opens COUNT idle connections to 127.0.0.1:PORT and holds them, sending nothing; prints "open COUNT" when all
are open, then, once a line arrives on standard input, how many the server has closed ("closed N").

A test's idle sockets live in this process rather than the test's own: a test process holding hundreds of
descriptors makes Foundation's Process.run() on Linux crash now and then (it over-reads /proc/self/fd's
directory entries; swift-corelibs-foundation PR #5472).

    idle-sockets.py PORT COUNT
"""
import socket
import sys

port, count = int(sys.argv[1]), int(sys.argv[2])
sockets = [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]
print("open", count, flush=True)
sys.stdin.readline()
closed = 0
for held in sockets:
    held.setblocking(False)
    try:
        closed += held.recv(1) == b""
    except BlockingIOError:
        pass
    except OSError:
        closed += 1
print("closed", closed, flush=True)
