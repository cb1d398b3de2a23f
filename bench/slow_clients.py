"""Connections that misbehave for as long as a soak runs: some sit idle, some trickle a
request head one byte at a time. Each is reopened when the provider closes it (the idle
and header deadlines do), so the pressure stays on.

Usage: python3 bench/slow_clients.py PORT SECONDS IDLE TRICKLING
"""
import socket
import sys
import time

port, seconds, idle_count, trickle_count = (int(arg) for arg in sys.argv[1:5])
HEAD = b"POST /jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: slow\r\nX-Pad: " + b"p" * 4000


def opened():
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=2)
        sock.setblocking(False)
        return [sock, 0]
    except OSError:
        return None


pool = [opened() for _ in range(idle_count + trickle_count)]
end = time.time() + seconds
reopened = 0
while time.time() < end:
    for i, entry in enumerate(pool):
        if entry is None:
            pool[i] = opened()
            continue
        sock, at = entry
        try:
            if i >= idle_count:  # a trickler: one more byte
                sock.send(HEAD[at % len(HEAD):at % len(HEAD) + 1])
                entry[1] = at + 1
            if sock.recv(65536) == b"":
                raise ConnectionError
        except BlockingIOError:
            pass
        except OSError:
            sock.close()
            pool[i] = opened()
            reopened += 1
    time.sleep(0.5)
for entry in pool:
    if entry:
        entry[0].close()
print("slow clients: %d idle, %d trickling, reopened %d times" % (idle_count, trickle_count, reopened))
