"""What live sampling costs: CPU seconds per hour of ``headroom-agent sample --interval 1``.

Target (issue 5): sampling at 1 Hz costs less than 0.5 % of one core, i.e.
less than 18 CPU-seconds per hour.

The real agent runs as a child process against a tiny local HTTP sink that
accepts every request with 202 (so the figure includes serialising,
gzipping, spooling and sending each batch), and the child's CPU time is read
from the operating system's own accounting: ``os.wait4``'s resource usage on
POSIX, psutil's process times on Windows (sampled until just before the
child exits). Two runs separate the one-off start-up cost (interpreter,
imports, first and last batch) from the steady state that a long run pays:

    steady CPU per second = (cpu(long run) - cpu(1 s run)) / (long - 1 s)

(the 1 s run is the median of three, start-up cost varies a little).

    python agents/bench_overhead.py [--duration 60] [--zipapp dist/headroom-agent.pyz]

Exit status 0 if the steady state is under the target, 1 if not.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

AGENTS = Path(__file__).resolve().parent
TARGET_PERCENT = 0.5


class Sink(BaseHTTPRequestHandler):
    """Accepts everything with 202, counting batches and samples."""

    batches = 0
    samples = 0
    lock = threading.Lock()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        try:
            count = len(json.loads(body).get("samples", []))
        except (ValueError, AttributeError):
            count = 0
        with Sink.lock:
            Sink.batches += 1
            Sink.samples += count
        answer = json.dumps({"id": Sink.batches, "status": "received", "duplicate": False}).encode()
        self.send_response(202)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    do_GET = do_POST

    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass
class Usage:
    seconds: float
    user: float
    system: float
    batches: int
    samples: int

    @property
    def cpu(self) -> float:
        return self.user + self.system


def run_agent(command: list[str], url: str, duration: float, interval: float, batch: float) -> Usage:
    """Run ``sample`` for ``duration`` seconds; the child's CPU time from the OS."""
    Sink.batches = Sink.samples = 0
    with tempfile.TemporaryDirectory() as home:
        env = {
            **os.environ,
            "HEADROOM_CONFIG": str(Path(home) / "agent.json"),
            "HEADROOM_DATA_DIR": str(Path(home) / "data"),
            "PYTHONPATH": str(AGENTS),
        }
        args = [
            *command,
            "sample",
            "--server",
            url,
            "--token",
            "bench",
            "--campaign",
            "bench",
            "--run",
            "bench",
            "--interval",
            str(interval),
            "--duration",
            str(duration),
            "--batch",
            str(batch),
        ]
        started = time.monotonic()
        child = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if hasattr(os, "wait4"):
            _, status, usage = os.wait4(child.pid, 0)
            child.returncode = os.waitstatus_to_exitcode(status)
            user, system = usage.ru_utime, usage.ru_stime
        else:
            user, system = _poll_windows(child)
        elapsed = time.monotonic() - started
        errors = child.stderr.read().decode(errors="replace") if child.stderr else ""
        if child.returncode != 0:
            raise SystemExit(f"the agent failed (exit {child.returncode}):\n{errors}")
    return Usage(elapsed, user, system, Sink.batches, Sink.samples)


def _poll_windows(child: subprocess.Popen[bytes]) -> tuple[float, float]:
    import psutil  # type: ignore[import-untyped,unused-ignore]

    process = psutil.Process(child.pid)
    user = system = 0.0
    while child.poll() is None:
        try:
            times = process.cpu_times()
            user, system = times.user, times.system
        except psutil.Error:
            break
        time.sleep(0.2)
    return user, system


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CPU cost of headroom-agent live sampling")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of sampling (default 60)")
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--batch", type=float, default=30.0, help="agent batch period (default 30)")
    parser.add_argument("--zipapp", type=Path, help="measure the zipapp instead of the source tree")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    command = [sys.executable, str(args.zipapp)] if args.zipapp else [sys.executable, "-m", "headroom_agent"]
    server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        # Start-up cost varies by a few tens of milliseconds: take the median of three.
        shorts = sorted(
            (run_agent(command, url, args.interval, args.interval, args.batch) for _ in range(3)),
            key=lambda usage: usage.cpu,
        )
        short = shorts[1]
        long = run_agent(command, url, args.duration, args.interval, args.batch)
    finally:
        server.shutdown()

    total_per_hour = long.cpu / args.duration * 3600
    steady_per_second = max(long.cpu - short.cpu, 0.0) / (args.duration - args.interval)
    steady_per_hour = steady_per_second * 3600
    steady_percent = steady_per_second * 100
    figures = {
        "duration_s": args.duration,
        "interval_s": args.interval,
        "batches": long.batches,
        "samples": long.samples,
        "cpu_user_s": round(long.user, 3),
        "cpu_system_s": round(long.system, 3),
        "startup_cpu_s": round(short.cpu, 3),
        "cpu_s_per_hour_total": round(total_per_hour, 2),
        "cpu_s_per_hour_steady": round(steady_per_hour, 2),
        "percent_of_one_core_steady": round(steady_percent, 3),
        "percent_of_one_core_total": round(long.cpu / args.duration * 100, 3),
        "target_percent": TARGET_PERCENT,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(
            f"sampled {args.duration:g} s at {1 / args.interval:g} Hz: {long.samples} samples in "
            f"{long.batches} batches reached the sink\n"
            f"child CPU: user {long.user:.2f} s + system {long.system:.2f} s = {long.cpu:.2f} s "
            f"(start-up and shutdown alone: {short.cpu:.2f} s)\n"
            f"steady state: {steady_per_hour:.1f} CPU-seconds per hour = {steady_percent:.3f} % of one core "
            f"(target < {TARGET_PERCENT} %)\n"
            f"this run including start-up: {total_per_hour:.1f} CPU-seconds per hour = "
            f"{long.cpu / args.duration * 100:.3f} % of one core"
        )
    return 0 if steady_percent < TARGET_PERCENT else 1


if __name__ == "__main__":
    sys.exit(main())
