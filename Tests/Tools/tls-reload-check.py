#!/usr/bin/env python3
"""Acts out a certificate renewal against a running `peez serve` with TLS, as certbot and a browser would.

    tls-reload-check.py PORT PID OLD_ROOT NEW_ROOT NEW_CHAIN NEW_KEY SERVED_CHAIN SERVED_KEY

Opens a keep-alive connection trusting only OLD_ROOT and asks /health; puts NEW_CHAIN and NEW_KEY in place of the
served files (as a renewal does); sends SIGHUP to PID (systemctl reload); then a new connection must be served with
the new certificate (trusting only NEW_ROOT) within 10 s, and the old connection, opened before, must still answer.
Prints one line per step and exits 0 when all held.
"""
import os
import shutil
import signal
import socket
import ssl
import sys
import time

port, pid = int(sys.argv[1]), int(sys.argv[2])
old_root, new_root, new_chain, new_key, served_chain, served_key = sys.argv[3:9]


def connect(root):
    context = ssl.create_default_context(cafile=root)
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    return context.wrap_socket(raw, server_hostname="localhost")


def health(connection):
    connection.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(4096)
        if not chunk:
            raise ConnectionError("closed before the answer")
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    while len(body) < length:
        body += connection.recv(4096)
    return head.split(b"\r\n")[0].decode()


old = connect(old_root)
print("old connection:", health(old))
for source, target in ((new_chain, served_chain), (new_key, served_key)):
    shutil.copyfile(source, target + ".new")
    os.chmod(target + ".new", 0o600)
    os.replace(target + ".new", target)
os.kill(pid, signal.SIGHUP)
deadline = time.time() + 10
while True:
    try:
        fresh = connect(new_root)
        print("new connection, new certificate:", health(fresh))
        fresh.close()
        break
    except (ssl.SSLError, OSError) as error:
        if time.time() > deadline:
            print("the new certificate was not served within 10 s:", error)
            sys.exit(1)
        time.sleep(0.1)
print("old connection, still open:", health(old))
old.close()
