"""One HTTP request timed from its first byte sent to the last byte of the answer, for ``bench/abuse.py``.

The body is sent from its own thread while the answer is read, so a server
that refuses a large body early (a 413 before the rest has arrived) is timed
at its answer and not at the end of a send it no longer reads; the send's
broken pipe is then expected and ignored. Gunicorn's sync workers close the
connection after each answer, so the answer ends at end of file.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass
class Answer:
    status: int  # -1: no answer (the connection was reset or timed out before one)
    seconds: float
    body: bytes


def exchange(
    port: int, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
) -> Answer:
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"]
    if body or method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    head = ("\r\n".join(lines) + "\r\n\r\n").encode()
    sock = socket.create_connection(("127.0.0.1", port), timeout=300)
    received = bytearray()

    def send() -> None:
        try:
            sock.sendall(head)
            sock.sendall(body)
        except OSError:  # the server answered and closed before the body was all sent
            pass

    sender = threading.Thread(target=send)
    started = time.perf_counter()
    sender.start()
    try:
        while chunk := sock.recv(1 << 16):
            received += chunk
    except OSError:
        pass
    seconds = time.perf_counter() - started
    sock.close()
    sender.join(timeout=60)
    status_line, _, rest = bytes(received).partition(b"\r\n")
    try:
        status = int(status_line.split()[1])
    except (IndexError, ValueError):
        return Answer(-1, seconds, bytes(received[:200]))
    return Answer(status, seconds, rest.partition(b"\r\n\r\n")[2])


def at_once(requests: Sequence[Callable[[], Answer]]) -> list[Answer]:
    """Run each request in its own thread, released together by a barrier; their answers in order."""
    gate = threading.Barrier(len(requests))
    answers = [Answer(-1, 0.0, b"")] * len(requests)

    def run(index: int) -> None:
        gate.wait(timeout=60)
        answers[index] = requests[index]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    return answers
