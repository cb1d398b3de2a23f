"""Hostile inputs against a running provider, each over a raw socket on loopback: what it
sent, what came back, and whether the provider still answers its control plane after.

Usage: python3 bench/hostile_inputs.py PORT PID   (scripts/hostile.sh starts the provider)
Exit status 1 if any case got an unexpected answer or left the provider unresponsive.
"""
import os
import resource
import socket
import sys
import time

PORT = int(sys.argv[1])
PID = int(sys.argv[2])
HOST = b"Host: 127.0.0.1:%d\r\n" % PORT


def connect():
    sock = socket.create_connection(("127.0.0.1", PORT), timeout=5)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def read_answer(sock, deadline=15.0):
    """Everything the server sends until it closes, or until `deadline` seconds pass."""
    sock.settimeout(0.5)
    data = b""
    end = time.time() + deadline
    while time.time() < end:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            if data.count(b"\r\n\r\n") and b"Connection: close" not in data:
                break  # a kept-alive answer is complete enough to judge
            continue
        except ConnectionResetError:
            return data, "reset"
        if not chunk:
            return data, "closed"
        data += chunk
    return data, "open"


def send_all(sock, data):
    try:
        sock.sendall(data)
        return True
    except (BrokenPipeError, ConnectionResetError):
        return False  # the server closed early: read what it said


def status(data):
    return int(data[9:12]) if data.startswith(b"HTTP/1.1 ") and len(data) >= 12 else None


def one_request(payload, deadline=15.0):
    sock = connect()
    send_all(sock, payload)
    data, end = read_answer(sock, deadline)
    sock.close()
    return status(data), end, data


def alive():
    try:
        code, _, body = one_request(b"GET /_test/jobs HTTP/1.1\r\n" + HOST + b"Connection: close\r\n\r\n", 5)
        return code == 200
    except OSError:
        return False


def flood_headers(megabytes):
    sock = connect()
    send_all(sock, b"GET /jobs HTTP/1.1\r\n" + HOST)
    block = b"X-Flood: " + b"f" * 100 + b"\r\n"
    block *= 64 * 1024 // len(block)
    sent = 0
    while sent < megabytes * 1024 * 1024 and send_all(sock, block):
        sent += len(block)
    data, end = read_answer(sock, 5)
    sock.close()
    return status(data), end, data


def pipelining_flood(count):
    """`count` lookups in one write, never read until the end."""
    sock = connect()
    request = b"GET /jobs/by-idempotency-key/none HTTP/1.1\r\n" + HOST + b"\r\n"
    sock.settimeout(30)
    send_all(sock, request * count)
    data, end = read_answer(sock, 20)
    sock.close()
    answered = data.count(b"HTTP/1.1 404")
    return (200 if answered == count else None), "%d of %d answered" % (answered, count), data


def slowloris(connections, seconds):
    """Connections that send one byte of a head every 100 ms: each must end with a 408."""
    socks = [connect() for _ in range(connections)]
    head = b"POST /jobs HTTP/1.1\r\n" + HOST + b"X-Slow: " + b"s" * 10000
    end = time.time() + seconds
    at = 0
    closed_with_408 = 0
    while time.time() < end and socks:
        for sock in list(socks):
            if not send_all(sock, head[at:at + 1]):
                data, _ = read_answer(sock, 1)
                closed_with_408 += status(data) == 408
                socks.remove(sock)
        at += 1
        time.sleep(0.1)
    for sock in socks:
        sock.close()
    return (408 if closed_with_408 == connections else None), "%d of %d got 408" % (closed_with_408, connections), b""


def half_open():
    sock = connect()
    sock.sendall(b"POST /jobs HTTP/1.1\r\n" + HOST + b"Idempotency-Key: half\r\nContent-Length: 100\r\n\r\n{")
    sock.shutdown(socket.SHUT_WR)
    data, end = read_answer(sock, 40)
    sock.close()
    return status(data), end, data


def reset_mid_request():
    sock = connect()
    sock.sendall(b"POST /jobs HTTP/1.1\r\n" + HOST + b"Content-Length: 100\r\n\r\n{")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    sock.close()
    return None, "reset by us", b""


def connection_storm(count):
    resource.setrlimit(resource.RLIMIT_NOFILE, (count + 256, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    socks = []
    for _ in range(count):
        try:
            socks.append(connect())
        except OSError:
            break
    refused = 0
    for sock in socks[-100:]:  # the last ones are over the cap
        data, _ = read_answer(sock, 2)
        refused += b"capacity_exhausted" in data
    for sock in socks:
        sock.close()
    return (503 if refused else None), "%d connections, %d of the last 100 refused with 503" % (len(socks), refused), b""


def post(extra, body=b""):
    return b"POST /jobs HTTP/1.1\r\n" + HOST + b"Idempotency-Key: hostile\r\nConnection: close\r\n" + extra + b"\r\n" + body


CASES = [
    # (name, what the provider must answer: a status, or None for "nothing in particular", run)
    ("random bytes", 400, lambda: one_request(os.urandom(512) + b"\r\n\r\n")),
    ("NUL bytes in the request line", 400, lambda: one_request(b"GET /\x00\x00 HTTP/1.1\r\n" + HOST + b"\r\n")),
    ("NUL byte in a header value", 400, lambda: one_request(b"GET / HTTP/1.1\r\n" + HOST + b"X: a\x00b\r\n\r\n")),
    ("a TLS ClientHello", 400, lambda: one_request(bytes.fromhex("16030100a5010000a10303") + os.urandom(160))),
    ("an HTTP/2 preface", 400, lambda: one_request(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")),
    ("a method that is not a token", 400, lambda: one_request(b"G(T / HTTP/1.1\r\n" + HOST + b"\r\n")),
    ("bare LF line endings", 400, lambda: one_request(b"GET /_test/jobs HTTP/1.1\nHost: 127.0.0.1\n\n")),
    ("a 1 MiB request line", 414, lambda: one_request(b"GET /" + b"a" * (1 << 20) + b" HTTP/1.1\r\n\r\n")),
    ("200 header fields", 431, lambda: one_request(b"GET / HTTP/1.1\r\n" + HOST + b"".join(b"X-%d: v\r\n" % i for i in range(200)) + b"\r\n")),
    ("50 MiB of headers", 431, lambda: flood_headers(50)),
    ("Content-Length: abc", 400, lambda: one_request(post(b"Content-Length: abc\r\n", b"{}"))),
    ("Content-Length: -1", 400, lambda: one_request(post(b"Content-Length: -1\r\n", b"{}"))),
    ("Content-Length beyond 64 bits", 400, lambda: one_request(post(b"Content-Length: 99999999999999999999999\r\n", b"{}"))),
    ("two different Content-Lengths", 400, lambda: one_request(post(b"Content-Length: 2\r\nContent-Length: 3\r\n", b"{}x"))),
    ("Content-Length with chunked", 400, lambda: one_request(post(b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", b"{}"))),
    ("Transfer-Encoding: gzip", 400, lambda: one_request(post(b"Transfer-Encoding: gzip\r\n", b"{}"))),
    ("a chunk size that is not hex", 400, lambda: one_request(post(b"Transfer-Encoding: chunked\r\n", b"zz\r\n{}\r\n0\r\n\r\n"))),
    ("a chunked body over --max-body", 413, lambda: one_request(post(b"Transfer-Encoding: chunked\r\n", b"100001\r\n" + b"x" * 0x100001 + b"\r\n0\r\n\r\n"))),
    ("Content-Length over --max-body", 413, lambda: one_request(post(b"Content-Length: 999999999\r\n"))),
    ("Expect: 100-continue over --max-body", 413, lambda: one_request(post(b"Expect: 100-continue\r\nContent-Length: 999999999\r\n"))),
    ("obsolete line folding", 400, lambda: one_request(post(b"X-A: 1\r\n 2\r\nContent-Length: 2\r\n", b"{}"))),
    ("bytes above 0x7f in the path", 404, lambda: one_request(b"GET /\xff\xfe HTTP/1.1\r\n" + HOST + b"Connection: close\r\n\r\n")),
    ("a control call from a web page (Origin)", 403, lambda: one_request(b"POST /_test/reset HTTP/1.1\r\n" + HOST + b"Origin: http://evil.example\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")),
    ("a control call after DNS rebinding (Host)", 403, lambda: one_request(b"POST /_test/reset HTTP/1.1\r\nHost: evil.example:%d\r\nConnection: close\r\nContent-Length: 0\r\n\r\n" % PORT)),
    ("10,000 pipelined requests, read at the end", 200, lambda: pipelining_flood(10000)),
    ("50 slowloris connections, one byte per 100 ms", 408, lambda: slowloris(50, 14)),
    ("half-open: a partial body, then FIN", None, half_open),
    ("reset in the middle of a body", None, reset_mid_request),
    ("1,300 connections at once (cap 1,024 + 8)", 503, lambda: connection_storm(1300)),
]


def resident_kib():
    with open("/proc/%d/status" % PID) as status_file:
        for line in status_file:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def main():
    failures = 0
    print("| hostile input | expected | answer | connection | provider alive after |")
    print("|---|---|---|---|---|")
    for name, expected, run in CASES:
        try:
            code, end, _ = run()
        except OSError as error:
            code, end = None, "client error: %s" % error
        live = alive()
        ok = live and (expected is None or code == expected)
        failures += not ok
        print("| %s | %s | %s | %s | %s%s |" % (name, expected or "-", code, end, "yes" if live else "NO",
                                               "" if ok else "  <- unexpected"))
    fds = len(os.listdir("/proc/%d/fd" % PID))
    print("\nprovider after all cases: %d KiB resident, %d descriptors open" % (resident_kib(), fds))
    print("%d passed, %d failed" % (len(CASES) - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
