# SPDX-License-Identifier: Apache-2.0
"""Shared pieces of the fault tests: the Redis harness of tests/integration/redis
(real redis-server processes on free loopback ports, always stopped), DUMP payload
sealing (CRC-64/Jones, as Redis checks it) and the bloomkit checksum (XXH3-64 of
header + payload, through Debian's libxxhash), so that mutated payloads reach the
module's own checks instead of stopping at Redis' CRC; and for the CLI tests, the
harness's run_cli and cli_main."""

import ctypes
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "redis"))

from harness import (CLI, REDIS_CLI, ReplyError, Resp, Server, Simple, cli_main, crc64_redis,  # noqa: E402,F401
                     free_cluster_port, free_port, main, run_cli, seal_dump, start_cluster, time_limit, wait_for)

MAGIC = b"\x89BLK\r\n\x1a\n"
HEADER_BYTES = 128
CHECKSUM_BYTES = 8

_xxh = ctypes.CDLL("libxxhash.so.0")
_xxh.XXH3_64bits.restype = ctypes.c_uint64
_xxh.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]


def xxh3_64(data):
    return _xxh.XXH3_64bits(bytes(data), len(data))


def reseal_filter(serialized):
    """A bloomkit serialization with its trailing XXH3-64 recomputed."""
    body = bytes(serialized[:-CHECKSUM_BYTES])
    return body + struct.pack("<Q", xxh3_64(body))


def split_dump(payload):
    """DUMP payload -> (body, rdb version footer); checks Redis' CRC on the way."""
    body, version, crc = payload[:-10], payload[-10:-8], payload[-8:]
    assert struct.unpack("<Q", crc)[0] == crc64_redis(body + version), "DUMP CRC does not match"
    return body, version


def scandump(c, prefix, key):
    """All (iterator, data) chunks of PREFIX.SCANDUMP key."""
    chunks = []
    it = 0
    while True:
        reply = c.call(prefix + ".SCANDUMP", key, it)
        assert isinstance(reply, list), reply
        it, data = reply
        if it == 0:
            return chunks
        chunks.append((it, data))


def dump_bytes(c, prefix, key):
    return b"".join(data for _, data in scandump(c, prefix, key))


def kill9(server):
    """SIGKILL the server process (no shutdown, no save) and forget it."""
    import harness
    server.proc.kill()
    server.proc.wait()
    server.proc = None
    if server in harness._live_servers:
        harness._live_servers.remove(server)


def missing(c, cmd, key, items, batch=1000):
    """The items for which CMD (BF.MEXISTS / CF.MEXISTS / CBF.MEXISTS) answers 0."""
    out = []
    for i in range(0, len(items), batch):
        part = items[i:i + batch]
        reply = c.call(cmd, key, *part)
        assert isinstance(reply, list), reply
        out.extend(item for item, present in zip(part, reply) if present != 1)
    return out
