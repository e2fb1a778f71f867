"""The prefork pool, with pool processes that wait for work without holding the pool's lock.

Celery runs billiard's plain ``Pool`` (not its event-loop ``AsynPool``) when
the broker's transport cannot drive an event loop -- Kombu's filesystem
transport, ``make run``'s broker on a machine without Redis. That pool hands
jobs to its processes through one shared pipe guarded by one process-shared
lock, and billiard's pool process takes the lock *before* it blocks on the
pipe: an idle process holds it for as long as no job comes. A SIGKILL (the OOM
killer's, say) to that process leaves the lock taken for ever; every other
pool process, and every one started to replace the dead, waits on it, and the
worker takes messages from the broker but runs nothing until it is restarted
(docs/reliability.md, "A killed pool process does not stall the worker").

``Worker`` here waits on the pipe first and takes the lock only to read a job
already there -- a single small read -- so a process killed while waiting
holds nothing. With Redis Celery uses ``AsynPool`` (one pipe per process, no
shared lock); this class changes nothing there. Chosen in settings by
``CELERY_WORKER_POOL``; ``-P prefork`` on the command line then means this pool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from billiard import pool as billiard_pool
from billiard.common import pickle_loads
from celery.concurrency import prefork

Receive = Callable[[float], tuple[bool, Any]]


class Worker(billiard_pool.Worker):
    """A pool process that holds the job pipe's read lock only while it reads a waiting job."""

    def _make_recv_method(self, conn: Any) -> Receive:
        lock = getattr(conn, "_rlock", None)
        reader = getattr(conn, "_reader", None)
        if lock is None or reader is None:
            recv: Receive = super()._make_recv_method(conn)  # type: ignore[misc]  # not in the stubs
            return recv

        def receive(timeout: float) -> tuple[bool, Any]:
            if not reader.poll(timeout):
                return False, None
            # Other idle processes saw the same job; the first to take the lock reads it.
            if not lock.acquire(True, timeout):
                return False, None
            try:
                if not reader.poll(0):
                    return False, None
                payload = reader.recv_bytes()
            finally:
                lock.release()
            return True, pickle_loads(payload)

        return receive


class BlockingPool(billiard_pool.Pool):
    Worker = Worker


class TaskPool(prefork.TaskPool):
    """Celery's prefork pool; without an event loop it runs ``BlockingPool``."""

    BlockingPool = BlockingPool
