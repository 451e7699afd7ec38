"""Serve Decoding Lab to a classroom: N app replicas on 127.0.0.1 behind nginx with sticky sessions
(deploy/nginx.conf.template). Needs Debian's nginx (apt-get install nginx-light).

    python scripts/serve_replicas.py --replicas 2 --port 8080      # then open http://HOST:8080

One 2-core replica serves the forwards of all its sessions one after another; see README "Reliability"
for how tokens/s per replica size a class. Ctrl-C stops nginx and the replicas.
"""
from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "deploy" / "nginx.conf.template"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, timeout: float = 180) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(url, timeout=2).status == 200:
                return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


class Classroom:
    """Start ``replicas`` streamlit servers and nginx in front (``listen`` e.g. "127.0.0.1:8080")."""

    def __init__(self, replicas: int = 2, listen: str | None = None, run_dir: Path | None = None):
        if not shutil.which("nginx") and not Path("/usr/sbin/nginx").exists():
            raise RuntimeError("nginx is not installed: apt-get install nginx-light")
        self.run = Path(run_dir or tempfile.mkdtemp(prefix="decoding-lab-proxy-"))
        self.run.mkdir(parents=True, exist_ok=True)
        self.ports = [free_port() for _ in range(replicas)]
        self.listen = listen or f"127.0.0.1:{free_port()}"
        self.procs: list[subprocess.Popen] = []

    @property
    def url(self) -> str:
        host, port = self.listen.rsplit(":", 1)
        return f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{port}"

    def start(self) -> "Classroom":
        for i, port in enumerate(self.ports):
            log = open(self.run / f"replica-{i}.log", "w")
            self.procs.append(subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1",
                 "--server.port", str(port), "--server.headless", "true"], cwd=ROOT, stdout=log,
                stderr=subprocess.STDOUT))
        for port in self.ports:
            wait_healthy(f"http://127.0.0.1:{port}/_stcore/health")
        servers = "\n".join(f"    server 127.0.0.1:{p} max_fails=0;" for p in self.ports)
        conf = (TEMPLATE.read_text().replace("{RUN}", str(self.run)).replace("{SERVERS}", servers)
                .replace("{LISTEN}", self.listen))
        (self.run / "nginx.conf").write_text(conf)
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.procs.append(subprocess.Popen([nginx, "-p", str(self.run), "-c", str(self.run / "nginx.conf"),
                                            "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                                           stderr=open(self.run / "nginx.out", "w")))
        wait_healthy(self.url + "/healthz", timeout=30)
        return self

    def stop(self) -> None:
        for p in reversed(self.procs):
            p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--host", default="0.0.0.0")
    ap.add_argument("--port", type=int, default=8080)
    args = ap.parse_args()
    room = Classroom(args.replicas, f"{args.host}:{args.port}").start()
    print(f"{args.replicas} replicas on ports {room.ports} behind nginx at {room.url} (logs in {room.run})", flush=True)
    try:
        while all(p.poll() is None for p in room.procs):
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        room.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
