#!/usr/bin/env python3
"""What a server pays for each connection it holds, read from /proc/PID: open COUNT
keep-alive connections to it over loopback, hold them idle for HOLD seconds, then make
them all active (each sends ROUNDS requests, one at a time, a POST /jobs replaying one
Idempotency-Key), then close them. Prints one line of name=value figures: the server's
resident set (VmRSS), CPU (every live thread's on-CPU nanoseconds from schedstat, which
counts finer than /proc/PID/stat's 10 ms ticks; the servers measured keep their threads,
a thread that ended would take its time out of the sum) and descriptors after each
phase, and
how many connections it held or refused. The caller raises `ulimit -n` to fit COUNT.

Usage: hold_connections.py PID PORT COUNT ROUNDS HOLD
"""
import os
import selectors
import socket
import sys
import time

BODY = b'{"orderId":"order-42","amount":120}'
REQUEST = (b"POST /jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           b"Idempotency-Key: bench:connections\r\nContent-Length: %d\r\n\r\n" % len(BODY)) + BODY
BATCH = 256  # connects in flight at once: well under the listen backlog (SOMAXCONN)


def server(pid):
    """(resident KiB, CPU ns summed over its threads, open descriptors)"""
    with open(f"/proc/{pid}/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    cpu = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as stat:
                cpu += int(stat.read().split()[0])
        except FileNotFoundError:  # a thread that just ended
            pass
    return rss, cpu, len(os.listdir(f"/proc/{pid}/fd"))


def settle(pid, want_fds, limit):
    """Wait until the server holds want_fds descriptors (it accepted, or closed, them all),
    or until its count stops moving for a second, or limit seconds."""
    end = time.time() + limit
    last, since = None, time.time()
    while time.time() < end:
        fds = server(pid)[2]
        if fds == want_fds:
            return
        if fds != last:
            last, since = fds, time.time()
        elif time.time() - since > 1:
            return
        time.sleep(0.05)


def open_all(port, count):
    """count connected sockets; a connect the kernel refuses is counted, not retried."""
    socks, refused = [], 0
    while len(socks) + refused < count:
        batch = []
        for _ in range(min(BATCH, count - len(socks) - refused)):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", port))
            batch.append(sock)
        with selectors.DefaultSelector() as sel:
            for sock in batch:
                sel.register(sock, selectors.EVENT_WRITE)
            pending, end = len(batch), time.time() + 10
            while pending and time.time() < end:
                for key, _ in sel.select(timeout=1):
                    sel.unregister(key.fileobj)
                    pending -= 1
        for sock in batch:
            if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                socks.append(sock)
            else:
                sock.close()
                refused += 1
    return socks, refused


def still_held(socks):
    """The sockets the server has neither answered unasked (a 503) nor closed."""
    held, answered = [], 0
    with selectors.DefaultSelector() as sel:
        for sock in socks:
            sel.register(sock, selectors.EVENT_READ)
        ready = {key.fileobj for key, _ in sel.select(timeout=0)}
    for sock in socks:
        if sock not in ready:
            held.append(sock)
            continue
        try:
            if sock.recv(65536).startswith(b"HTTP/1.1 503"):
                answered += 1
        except OSError:
            pass
        sock.close()
    return held, answered


def complete(buffer):
    """Responses whole at the start of buffer: (how many, their statuses, what is left)."""
    statuses = []
    while True:
        head_end = buffer.find(b"\r\n\r\n")
        if head_end < 0:
            break
        head = buffer[:head_end].split(b"\r\n")
        length = next((int(line.split(b":", 1)[1]) for line in head
                       if line.lower().startswith(b"content-length:")), 0)
        if len(buffer) < head_end + 4 + length:
            break
        statuses.append(int(head[0].split()[1]))
        buffer = buffer[head_end + 4 + length:]
    return statuses, buffer


def drive(socks, rounds):
    """Each socket sends rounds requests, the next when the last is answered; returns
    (2xx answers, other answers, connections lost)."""
    ok = other = lost = 0
    sent = {sock: 1 for sock in socks}
    buffers = {sock: b"" for sock in socks}
    with selectors.DefaultSelector() as sel:
        for sock in socks:
            sock.send(REQUEST)
            sel.register(sock, selectors.EVENT_READ)
        open_count = len(socks)
        while open_count:
            events = sel.select(timeout=30)
            if not events:
                break  # a server that stopped answering: its silent connections count as lost
            for key, _ in events:
                sock = key.fileobj
                try:
                    data = sock.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    sel.unregister(sock)
                    open_count -= 1
                    lost += 1
                    continue
                statuses, buffers[sock] = complete(buffers[sock] + data)
                ok += sum(200 <= s < 300 for s in statuses)
                other += sum(not 200 <= s < 300 for s in statuses)
                if statuses and sent[sock] < rounds:
                    sent[sock] += 1
                    sock.send(REQUEST)
                elif statuses:
                    sel.unregister(sock)
                    open_count -= 1
        lost += open_count
    return ok, other, lost


def main(pid, port, count, rounds, hold):
    # The key is created before the first measurement, so that every request measured is a
    # replay: no store or journal growth mixed into a connection's cost.
    warm = socket.create_connection(("127.0.0.1", port))
    warm.sendall(REQUEST)
    warm.recv(65536)
    warm.close()
    time.sleep(0.2)
    rss0, cpu0, fds0 = server(pid)

    began = time.time()
    socks, refused = open_all(port, count)
    settle(pid, fds0 + len(socks), 30)
    opened_s = time.time() - began
    rss1, cpu1, fds1 = server(pid)

    time.sleep(hold)  # longer than a reserved control seat's 1 s: those close meanwhile
    held, answered = still_held(socks)
    rss2, cpu2, fds2 = server(pid)

    began = time.time()
    ok, other, lost = drive(held, rounds)
    active_s = time.time() - began
    rss3, cpu3, fds3 = server(pid)

    for sock in held:
        sock.close()
    settle(pid, fds0, 10)
    rss4, cpu4, fds4 = server(pid)

    figures = dict(
        asked=count, connected=len(socks), refused_connect=refused, answered_503=answered,
        closed_idle=len(socks) - len(held) - answered, held=len(held), opened_s=round(opened_s, 2),
        rss_before_kib=rss0, rss_idle_kib=rss1, rss_held_kib=rss2, rss_active_kib=rss3,
        rss_closed_kib=rss4, fds_before=fds0, fds_idle=fds1, fds_closed=fds4,
        cpu_open_ns=cpu1 - cpu0, cpu_hold_ns=cpu2 - cpu1, cpu_active_ns=cpu3 - cpu2,
        cpu_close_ns=cpu4 - cpu3, answers_2xx=ok, answers_other=other, lost=lost,
        active_s=round(active_s, 2), hold_s=hold)
    print(" ".join(f"{name}={value}" for name, value in figures.items()))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
         float(sys.argv[5]))
