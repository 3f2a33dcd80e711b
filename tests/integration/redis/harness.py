# SPDX-License-Identifier: Apache-2.0
"""Test harness for bloomkit.so: real redis-server processes on free loopback ports.

Every server gets its own temporary directory, is started with --loadmodule and is
always stopped (SHUTDOWN NOSAVE, then SIGKILL) when its `with` block ends, when the
test process exits, or when a test exceeds its time limit.

Debian 12's redis-py (4.3) speaks RESP2 only, so `Resp` below is a small client of
our own that speaks RESP2 or RESP3 (HELLO 3) and keeps every reply type distinct:
RESP3 booleans come back as Python bool, integers as int, maps as dict, nulls as
None, simple strings as `Simple`, bulk strings as bytes, errors as `ReplyError`
values (not exceptions, so per-item errors inside arrays can be checked).

The built CLI (BLOOMKIT_CLI) runs here too, as a real process (`run_cli`), for the tests
that move filters between files and keys and for the CLI fault tests.
"""

import atexit
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest

MODULE = os.environ.get("BLOOMKIT_MODULE", "")
CLI = os.environ.get("BLOOMKIT_CLI", "")
# The server under test. By default Debian's redis-server; ctest runs a subset of these
# scripts once more against other builds (tests/integration/redis/CMakeLists.txt), with
# BLOOMKIT_SERVER_KIND naming the kind ("redis8", "valkey") and BLOOMKIT_REDIS_SERVER the
# binary. Such a run skips (exit code 77) when no binary of that kind was given.
SERVER_KIND = os.environ.get("BLOOMKIT_SERVER_KIND", "")
SERVER_KINDS = {
    # kind: (variable naming the binary, what `--version` must say, how to get one)
    "redis8": ("BLOOMKIT_REDIS8_SERVER", r"^Redis server v=(8\.|7\.9\.)",
               "scripts/build-server on redis/redis at an 8.x tag"),
    "valkey": ("BLOOMKIT_VALKEY_SERVER", r"^Valkey server v=", "scripts/build-server on valkey-io/valkey"),
}
SKIP_EXIT_CODE = 77
if SERVER_KIND:
    REDIS_SERVER = os.environ.get("BLOOMKIT_REDIS_SERVER") or os.environ.get(SERVER_KINDS[SERVER_KIND][0], "")
else:
    REDIS_SERVER = os.environ.get("BLOOMKIT_REDIS_SERVER") or shutil.which("redis-server") or "/usr/bin/redis-server"
REDIS_CLI = shutil.which("redis-cli") or "/usr/bin/redis-cli"

_live_servers = []


def _cleanup():
    for server in list(_live_servers):
        server.stop()


atexit.register(_cleanup)


def free_port():
    """A port that was free a moment ago on 127.0.0.1 (the kernel picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _port_free(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def free_cluster_port():
    """A free port p whose cluster bus port p + 10000 is free too."""
    import random
    rng = random.Random(os.getpid() ^ int(time.time() * 1000))
    for _ in range(1000):
        port = rng.randrange(20000, 30000)
        if _port_free(port) and _port_free(port + 10000):
            return port
    raise RuntimeError("no free port pair for a cluster node")


class Simple(bytes):
    """A RESP simple string (+OK), distinct from a bulk string."""


class ReplyError(Exception):
    """A RESP error reply; returned as a value by Resp, raised by Resp.ok()."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message

    def __eq__(self, other):
        return isinstance(other, ReplyError) and other.message == self.message

    def __hash__(self):
        return hash(self.message)

    def __repr__(self):
        return "ReplyError(%r)" % self.message


class Resp:
    """A blocking RESP2/RESP3 connection."""

    def __init__(self, port, protocol=2, timeout=20):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.file = self.sock.makefile("rb")
        self.protocol = protocol
        if protocol == 3:
            hello = self.call("HELLO", "3")
            assert isinstance(hello, dict), hello

    def close(self):
        try:
            self.file.close()
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @staticmethod
    def encode(args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            if isinstance(a, str):
                a = a.encode()
            elif isinstance(a, int):
                a = str(a).encode()
            elif isinstance(a, float):
                a = repr(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        return b"".join(out)

    def send(self, *args):
        self.sock.sendall(self.encode(args))

    def call(self, *args):
        self.send(*args)
        return self.read()

    def pipeline(self, commands):
        self.sock.sendall(b"".join(self.encode(c) for c in commands))
        return [self.read() for _ in commands]

    def ok(self, *args):
        """call() that raises on an error reply."""
        reply = self.call(*args)
        if isinstance(reply, ReplyError):
            raise reply
        return reply

    def _line(self):
        line = self.file.readline()
        if not line.endswith(b"\r\n"):
            raise ConnectionError("connection closed mid-reply")
        return line[:-2]

    def read(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return Simple(rest)
        if kind == b"-":
            return ReplyError(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.file.read(n + 2)
            return data[:-2]
        if kind == b"*":
            n = int(rest)
            if n < 0:
                return None
            return [self.read() for _ in range(n)]
        if kind == b"%":
            n = int(rest)
            out = {}
            for _ in range(n):
                k = self.read()
                out[k] = self.read()
            return out
        if kind == b"_":
            return None
        if kind == b"#":
            return rest == b"t"
        if kind == b",":
            return float(rest)
        if kind == b"(":
            return int(rest)
        if kind == b"~":
            return set(self.read() for _ in range(int(rest)))
        if kind == b"=":
            data = self.file.read(int(rest) + 2)
            return data[4:-2]
        if kind == b">":
            return [self.read() for _ in range(int(rest))]
        raise ValueError("unknown RESP type %r" % line)


class Server:
    """One redis-server with bloomkit.so loaded, in its own temporary directory.

    `fmt` is the FORMAT module argument, the layout of the filters that commands create:
    these tests check bloomkit's native filters unless they ask for "redisbloom", or for
    the module's default (None)."""

    def __init__(self, module_args=(), extra=(), directory=None, port=None, load_module=True, fmt="native"):
        self.port = port or free_port()
        self.owns_dir = directory is None
        self.dir = directory or tempfile.mkdtemp(prefix="bloomkit-redis-")
        self.module_args = (["FORMAT", fmt] if fmt else []) + list(module_args)
        self.extra = list(extra)
        self.load_module = load_module
        self.proc = None
        self.log_path = os.path.join(self.dir, "redis-%d.log" % self.port)

    def command_line(self):
        cmd = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
               "--save", "", "--appendonly", "no", "--logfile", self.log_path,
               "--enable-debug-command", "yes", "--protected-mode", "no", "--daemonize", "no"]
        if self.load_module:
            cmd += ["--loadmodule", MODULE] + [str(a) for a in self.module_args]
        return cmd + [str(a) for a in self.extra]

    def start(self, timeout=10, expect_failure=False):
        self.proc = subprocess.Popen(self.command_line(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _live_servers.append(self)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                if expect_failure:
                    return False
                raise RuntimeError("redis-server exited with %s:\n%s" % (self.proc.returncode, self.log()))
            try:
                with Resp(self.port, timeout=2) as c:
                    reply = c.call("PING")
                    if reply == b"PONG":
                        if expect_failure:
                            raise AssertionError("redis-server started although the load should fail")
                        return True
            except (ConnectionError, OSError):
                pass
            time.sleep(0.05)
        raise TimeoutError("redis-server on port %d did not start:\n%s" % (self.port, self.log()))

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def client(self, protocol=2):
        return Resp(self.port, protocol=protocol)

    def redis_py(self, **kwargs):
        import redis  # Debian python3-redis
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=20, **kwargs)

    def stop(self, save=False):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                with Resp(self.port, timeout=5) as c:
                    c.send("SHUTDOWN", "SAVE" if save else "NOSAVE")
                    try:
                        c.read()
                    except (ConnectionError, OSError):
                        pass
            except (ConnectionError, OSError):
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self in _live_servers:
            _live_servers.remove(self)
        self.proc = None

    def restart(self, timeout=20):
        self.stop(save=False)
        self.start(timeout=timeout)

    def cleanup(self):
        self.stop()
        if self.owns_dir:
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.cleanup()


def crc64_redis(data):
    """CRC-64/Jones as Redis computes it for DUMP payloads (reflected, init 0)."""
    poly = 0x95AC9329AC4BC9B5  # 0xad93d23594c935a9 reflected
    table = crc64_redis.table
    if table is None:
        table = []
        for i in range(256):
            crc = i
            for _ in range(8):
                crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
            table.append(crc)
        crc64_redis.table = table
    crc = 0
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


crc64_redis.table = None


def seal_dump(body, version):
    """A DUMP payload from its body and 2-byte RDB version, with Redis' CRC-64 appended."""
    data = bytes(body) + version
    return data + struct.pack("<Q", crc64_redis(data))


def dump_version(c):
    """The 2-byte RDB version this server puts at the end of DUMP payloads: 10 on Redis
    7.0, 11 on 7.2 and Valkey 8.0, 12 on Redis 7.4 and 8. A payload recorded on one server
    (a golden file) is compared with another's DUMP after `reseal_dump`."""
    probe_key = "bloomkit:dump-version-probe"
    c.call("SET", probe_key, "x")
    payload = c.call("DUMP", probe_key)
    c.call("DEL", probe_key)
    return payload[-10:-8]


def reseal_dump(payload, version):
    """`payload` (a DUMP reply) with its RDB version replaced and the CRC-64 recomputed."""
    return seal_dump(payload[:-10], version)


def scandump(c, command, key):
    """Every (iterator, chunk) pair of `command` (BF.SCANDUMP, CF.SCANDUMP, ...) on `key`,
    in order; a reply error is raised."""
    chunks, it = [], 0
    while True:
        reply = c.call(command, key, it)
        if isinstance(reply, ReplyError):
            raise reply
        it, data = reply
        if it == 0:
            return chunks
        chunks.append((it, data))


def start_cluster(count=3):
    """`count` cluster-enabled servers joined by `redis-cli --cluster create`; returns
    them (stop each when done). Raises AssertionError with redis-cli's output on failure."""
    nodes = []
    for _ in range(count):
        port = free_cluster_port()
        node = Server(port=port, extra=["--cluster-enabled", "yes", "--cluster-config-file",
                                        "nodes-%d.conf" % port, "--cluster-node-timeout", "3000"])
        nodes.append(node)
        node.start()
    create = subprocess.run(
        [REDIS_CLI, "--cluster", "create"] + ["127.0.0.1:%d" % n.port for n in nodes] + ["--cluster-yes"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    if create.returncode != 0:
        for n in nodes:
            n.stop()
        raise AssertionError(create.stdout.decode(errors="replace"))
    return nodes


def wait_for(predicate, timeout=30, what="condition", interval=0.05):
    """Polls `predicate` every `interval` seconds until it is true; fails the test after
    `timeout` seconds, naming `what` it waited for."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError("timed out waiting for " + what)


def time_limit(seconds):
    """Decorator: fail (and kill the servers, via atexit) a test that runs too long."""

    def wrap(fn):
        def run(*args, **kwargs):
            def expired(signum, frame):
                raise TimeoutError("%s exceeded %d s" % (fn.__name__, seconds))

            old = signal.signal(signal.SIGALRM, expired)
            signal.alarm(seconds)
            try:
                return fn(*args, **kwargs)
            finally:
                signal.alarm(0)
                signal.signal(signal.SIGALRM, old)

        run.__name__ = fn.__name__
        run.__doc__ = fn.__doc__
        return run

    return wrap


def server_version(c):
    """(server name, (major, minor, patch)) from INFO server: ("valkey", ...) when the
    server is Valkey (which also reports a redis_version for clients), else ("redis", ...)."""
    info = c.call("INFO", "server")
    for name in ("valkey", "redis"):
        m = re.search(rb"^%s_version:(\d+)\.(\d+)\.(\d+)" % name.encode(), info, re.MULTILINE)
        if m:
            return name, tuple(int(x) for x in m.groups())
    raise AssertionError("INFO server names no version: %r" % info[:200])


def check_server_kind():
    """For a run against another server kind: skip when its binary is missing, fail when
    the binary is of another kind than the run says."""
    if not SERVER_KIND:
        return
    variable, banner, how = SERVER_KINDS[SERVER_KIND]
    if not REDIS_SERVER or not os.access(REDIS_SERVER, os.X_OK):
        print("SKIPPED: no %s server (%r); configure with -D%s=/path/to/server or set %s (%s)" %
              (SERVER_KIND, REDIS_SERVER, variable, variable, how))
        sys.exit(SKIP_EXIT_CODE)
    version = subprocess.run([REDIS_SERVER, "--version"], capture_output=True, text=True).stdout.strip()
    if not re.search(banner, version):
        print("%s is not a %s server: %s" % (REDIS_SERVER, SERVER_KIND, version), file=sys.stderr)
        sys.exit(2)
    print("server under test: %s (%s)" % (REDIS_SERVER, version))


def run_cli(args, input=None, timeout=60, **kwargs):
    """Runs the built bloomkit with `args` (each through str) and the bytes `input` on its
    stdin; returns the CompletedProcess. stdout and stderr are captured unless given
    (subprocess.DEVNULL, a file descriptor); other keywords go to subprocess.run (check,
    text); subprocess.TimeoutExpired after `timeout` s."""
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([CLI, *map(str, args)], input=input, timeout=timeout, **kwargs)


def cli_main():
    """unittest.main for a script that runs the CLI and no server, once BLOOMKIT_CLI names
    the built executable."""
    if not CLI or not os.path.exists(CLI):
        print("BLOOMKIT_CLI must name the built bloomkit executable, got %r" % CLI, file=sys.stderr)
        sys.exit(2)
    unittest.main(verbosity=2)


def main():
    if not MODULE or not os.path.exists(MODULE):
        print("BLOOMKIT_MODULE must name the built bloomkit.so, got %r" % MODULE, file=sys.stderr)
        sys.exit(2)
    check_server_kind()
    try:
        unittest.main(verbosity=2)
    finally:
        _cleanup()
