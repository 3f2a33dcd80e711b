# SPDX-License-Identifier: Apache-2.0
"""Interop through Redis and the seed programs, with the real Go libraries
(tests/interop/README.md):

  redis_interop.py bits-and-blooms-redis SRC WORK BLOOMKIT   Go writes a filter, bloomkit
      imports it, bloomkit.so serves it: 200,000 BF.MEXISTS probes answer as Go's Test
      (false positives included), BF.ADD/BF.MADD as Go's TestAndAdd, and what SCANDUMP
      gives after them, exported, is byte for byte Go's own filter after the same adds;
      DEBUG RELOAD and SAVE + restart keep it.
  redis_interop.py seed-bloom SRC WORK BLOOMKIT   the founding document's bits-and-blooms
      program (seeds/bloom): its filter file goes through bloomkit (and a Redis key) and
      back, with the same verdicts.
  redis_interop.py seed-redis SRC WORK BLOOMKIT   the founding document's Redis program
      (seeds/redis, on gopkg.in/redis.v5) against bloomkit.so in both FORMATs.

Go programs are built in GOPATH mode against Debian's packages. Exit 77 (ctest's skip)
with the reason when go, a Go package, redis-server or bloomkit.so is missing.
BLOOMKIT_MODULE names bloomkit.so; Redis servers come from the harness of
tests/integration/redis."""

import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration", "redis"))
import harness  # noqa: E402  (real redis-server on a free 127.0.0.1 port)

GOPATH = "/usr/share/gocode"
PACKAGES = {
    "github.com/bits-and-blooms/bloom": "golang-github-willf-bloom-dev",
    "gopkg.in/redis.v5": "golang-gopkg-redis.v5-dev",
}
SKIP = 77


# Sanitizer builds preload their runtimes (LD_PRELOAD) for redis-server, which loads the
# instrumented bloomkit.so; Go's tools and programs run without them.
GO_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def skip(reason):
    print("SKIPPED: " + reason)
    sys.exit(SKIP)


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def go_build(source, out, work, packages):
    if shutil.which("go") is None:
        skip("needs go (Debian: golang-go %s)" % " ".join(PACKAGES[p] for p in packages))
    for p in packages:
        if not os.path.isdir(os.path.join(GOPATH, "src", p)):
            skip("needs %s in %s (Debian: %s)" % (p, GOPATH, PACKAGES[p]))
    # One build cache beside the work directories, so that a second run compiles nothing.
    env = dict(GO_ENV, GOPATH=GOPATH, GO111MODULE="off", GOFLAGS="",
               GOCACHE=os.path.join(os.path.dirname(os.path.abspath(work)), "gocache"))
    subprocess.run(["go", "build", "-o", out, source], env=env, check=True)
    return out


def need_redis():
    if not harness.MODULE or not os.path.exists(harness.MODULE):
        skip("BLOOMKIT_MODULE must name the built bloomkit.so")
    if not os.access(harness.REDIS_SERVER, os.X_OK):
        skip("needs redis-server (Debian: redis-server)")


def run(*args, **kwargs):
    return subprocess.run([str(a) for a in args], check=True, capture_output=True, **kwargs).stdout


def go_run(*args, **kwargs):
    """A Go program built here (babtool, a seed program)."""
    return run(*args, env=GO_ENV, **kwargs)


def load_into_key(server, name, path):
    """The file into a key as docs/CLI.md shows it: its 128-byte header, then the rest."""
    with open(path, "rb") as f:
        data = f.read()
    for iterator, chunk in ((1, data[:128]), (129, data[128:])):
        out = run(harness.REDIS_CLI, "-p", server.port, "-x", "BF.LOADCHUNK", name, iterator, input=chunk)
        if out.strip() != b"OK":
            fail("BF.LOADCHUNK %s %d: %r" % (name, iterator, out))


def mexists(c, name, items, batch=2000):
    out = []
    for i in range(0, len(items), batch):
        reply = c.call("BF.MEXISTS", name, *items[i:i + batch])
        if isinstance(reply, harness.ReplyError):
            fail("BF.MEXISTS: %s" % reply)
        out.extend(reply)
    return b"".join(b"1" if a == 1 else b"0" for a in out)


# The keys of babtool.go.
def key(i):
    return ("k%d" % i + ("-\u00e9\u65e5" if i % 7 == 0 else "") + "-" + "x" * (i % 37)).encode()


def absent(i):
    return ("a%d-" % i + "y" * (i % 23)).encode()


def added(i):
    return ("n%d-" % i + "z" * (i % 19)).encode()


def bits_and_blooms_redis(src, work, cli):
    need_redis()
    babtool = go_build(os.path.join(src, "babtool.go"), os.path.join(work, "babtool"), work,
                       ["github.com/bits-and-blooms/bloom"])
    n, probes = 20000, 100000
    go_file = os.path.join(work, "users.bloom")
    go_run(babtool, "serve", go_file, n, 0.01)
    read = lambda suffix: open(go_file + suffix, "rb").read()  # noqa: E731
    run(cli, "import", "bits-and-blooms", os.path.join(work, "users.bkf"), "--from", go_file)
    everything = [key(i) for i in range(probes)] + [absent(i) for i in range(probes)]
    with harness.Server(fmt=None) as s:
        c = s.client()
        load_into_key(s, "users", os.path.join(work, "users.bkf"))
        if c.call("TYPE", "users") != b"bloomkitG":
            fail("TYPE users is %r" % c.call("TYPE", "users"))
        got = mexists(c, "users", everything)
        if got != read(".ans"):
            fail("BF.MEXISTS differs from Go's Test at %d probes" % sum(a != b for a, b in zip(got, read(".ans"))))
        fp = got[probes:].count(b"1")
        if not 500 < fp < 2000:  # 1% of 100,000 absent keys
            fail("%d false positives of %d" % (fp, probes))
        # BF.ADD answers 1 when the item was not there: Go's TestAndAdd answers the opposite.
        replies = [c.call("BF.ADD", "users", added(i)) for i in range(1000)]
        for i in range(1000, n // 2, 1000):
            replies += c.call("BF.MADD", "users", *[added(j) for j in range(i, i + 1000)])
        want = bytes(b"0"[0] if a == b"1"[0] else b"1"[0] for a in read(".add"))
        if b"".join(b"%d" % r for r in replies) != want:
            fail("BF.ADD/BF.MADD replies differ from Go's TestAndAddString")
        print("%d adds, %d answered 'may have been there' as in Go" % (len(replies), replies.count(0)))

        def check(what):
            got = mexists(c, "users", everything)
            if got != read(".after.ans"):
                fail("%s: BF.MEXISTS differs from Go's Test after the adds" % what)
            dump = os.path.join(work, "scandump.bkf")
            with open(dump, "wb") as f:
                for _, chunk in harness.scandump(c, "BF.SCANDUMP", "users"):
                    f.write(chunk)
            back = os.path.join(work, "back.bloom")
            run(cli, "export", dump, "--format", "bits-and-blooms", "--to", back, "--force")
            if open(back, "rb").read() != read(".after"):
                fail("%s: the exported SCANDUMP is not Go's filter after the same adds" % what)
            go_run(babtool, "contains", back, n // 2)
            go_run(babtool, "answers", back, back + ".ans")
            if open(back + ".ans", "rb").read() != read(".after.ans"):
                fail("%s: Go reading the export answers otherwise" % what)
            print("%s: 200,000 probes as Go's, SCANDUMP + export = Go's bytes, Go reads it back" % what)

        check("served")
        if c.call("DEBUG", "RELOAD") != b"OK":
            fail("DEBUG RELOAD")
        check("DEBUG RELOAD")
        c.call("SAVE")
        c.close()
        s.stop(save=False)
        s.start()
        c = s.client()
        check("SAVE + restart")
        c.close()
    print("bits-and-blooms through Redis: passed")


SEED_IDS = ["1", "50", "100", "888", "999"]


def seed_verdicts(out):
    """The seed's lines, as {id: True (可能存在) or False (一定不存在)}."""
    verdicts = {}
    for line in out.decode().splitlines():
        user, _, rest = line.partition(" → ")
        verdicts[user.split()[-1]] = rest.startswith("可能存在")
    if sorted(verdicts) != sorted(SEED_IDS):
        fail("unexpected output of the seed program:\n" + out.decode())
    return verdicts


def bloomkit_verdicts(cli, path, ids):
    out = subprocess.run([cli, "query", path], input="".join(i + "\n" for i in ids).encode(),
                         capture_output=True).stdout.decode()
    return {line.split("\t")[0]: line.endswith("\tmaybe") for line in out.splitlines()}


def seed_bloom(src, work, cli):
    seed = go_build(os.path.join(src, "seeds", "bloom", "main.go"), os.path.join(work, "seed_bloom"), work,
                    ["github.com/bits-and-blooms/bloom"])
    go_file, bk_file = os.path.join(work, "users.bloom"), os.path.join(work, "users.bkf")
    go = seed_verdicts(go_run(seed, "-save", go_file))
    # The program's own data: its IDs are "maybe", the two it never added are not.
    if go != {"1": True, "50": False, "100": True, "888": False, "999": True}:
        fail("the seed program answered %r" % go)
    run(cli, "import", "bits-and-blooms", bk_file, "--from", go_file)
    wide = [str(i) for i in range(100000)]
    mine = bloomkit_verdicts(cli, bk_file, wide)
    if {i: mine[i] for i in SEED_IDS} != go:
        fail("bloomkit answers %r, Go %r" % (mine, go))
    if seed_verdicts(go_run(seed, "-load", go_file)) != go:
        fail("the seed program reading its own file answers otherwise")
    # bloomkit adds the two missing users and exports; the program finds them.
    run(cli, "add", bk_file, input=b"50\n888\n")
    back = os.path.join(work, "back.bloom")
    run(cli, "export", bk_file, "--format", "bits-and-blooms", "--to", back)
    again = seed_verdicts(go_run(seed, "-load", back))
    if again != dict.fromkeys(SEED_IDS, True):
        fail("after bloomkit added 50 and 888 the program answers %r" % again)
    # The same file served by Redis, when bloomkit.so and redis-server are here.
    if harness.MODULE and os.path.exists(harness.MODULE) and os.access(harness.REDIS_SERVER, os.X_OK):
        with harness.Server(fmt=None) as s, s.client() as c:
            load_into_key(s, "users:filter", os.path.join(work, "users.bkf"))
            replies = c.call("BF.MEXISTS", "users:filter", *wide)
            after = bloomkit_verdicts(cli, bk_file, wide)
            if {i: r == 1 for i, r in zip(wide, replies)} != after:
                fail("BF.MEXISTS of 100,000 IDs differs from bloomkit query")
        print("the program's filter served by bloomkit.so: 100,000 IDs answered as bloomkit and Go")
    print("seed bits-and-blooms program: passed")


def seed_redis(src, work, cli):
    need_redis()
    seed = go_build(os.path.join(src, "seeds", "redis", "main.go"), os.path.join(work, "seed_redis"), work,
                    ["gopkg.in/redis.v5"])
    for fmt, redis_type in ((None, b"MBbloom--"), ("native", b"bloomkitB")):
        with harness.Server(fmt=fmt) as s, s.client() as c:
            out = go_run(seed, "127.0.0.1:%d" % s.port)
            if out != b"user:1001 exists: true\nuser:9999 exists: false\n":
                fail("FORMAT %s: the program printed %r" % (fmt, out))
            checks = {
                "TYPE": (c.call("TYPE", "users:filter"), redis_type),
                "BF.CARD": (c.call("BF.CARD", "users:filter"), 4),
                "BF.MEXISTS": (c.call("BF.MEXISTS", "users:filter", "user:1001", "user:1002", "user:1003",
                                      "user:1004", "user:9999"), [1, 1, 1, 1, 0]),
                "BF.INFO CAPACITY": (c.call("BF.INFO", "users:filter", "CAPACITY"), [1000000]),
            }
            for what, (got, want) in checks.items():
                if got != want:
                    fail("FORMAT %s: %s is %r, not %r" % (fmt, what, got, want))
            # Run again on the same server: BF.RESERVE of the existing key is an error,
            # which the program reports with status 1.
            again = subprocess.run([seed, "127.0.0.1:%d" % s.port], capture_output=True, env=GO_ENV)
            if again.returncode != 1 or b"item exists" not in again.stderr:
                fail("a second run should fail on BF.RESERVE: %r" % (again,))
        print("FORMAT %s: the program's replies and the key it built are right" % (fmt or "default"))
    print("seed Redis program: passed")


def main():
    if len(sys.argv) != 5:
        print("usage: redis_interop.py bits-and-blooms-redis|seed-bloom|seed-redis SRC WORK BLOOMKIT",
              file=sys.stderr)
        return 2
    mode, src, work, cli = sys.argv[1:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    {"bits-and-blooms-redis": bits_and_blooms_redis, "seed-bloom": seed_bloom, "seed-redis": seed_redis}[mode](
        src, work, cli)
    return 0


if __name__ == "__main__":
    sys.exit(main())
