# SPDX-License-Identifier: Apache-2.0
"""RedisBloom 8's runtime configs: CONFIG GET/SET, CONFIG REWRITE, redis.conf, and their
effect on the filters BF.ADD/MADD/INSERT and CF.ADD/INSERT create.

RedisBloom 8 (src/config.c) registers bf-error-rate, bf-initial-size, bf-expansion-factor,
cf-bucket-size, cf-initial-size, cf-max-iterations, cf-expansion-factor and
cf-max-expansions without a prefix; servers without unprefixed module configs (Redis
7.x, Valkey 8.0) take them as bloomkit.<name>. The tests find which.
"""

import os
import unittest

from harness import MODULE, REDIS_SERVER, ReplyError, Server, main, server_version, time_limit

# name -> (default, a valid other value, values out of range, the range text)
CONFIGS = {
    "bf-error-rate": ("0.01", "0.002", ["0", "1", "-0.5"], "(0.000000, 1.000000)"),
    "bf-initial-size": ("100", "333", ["0", str(2 ** 30 + 1)], "[1, 1073741824]"),
    "bf-expansion-factor": ("2", "5", ["-1", "32769"], "[0, 32768]"),
    "cf-bucket-size": ("2", "4", ["0", "256"], "[1, 255]"),
    "cf-initial-size": ("1024", "2000", ["3", str(2 ** 30 + 1)], "[4, 1073741824]"),
    "cf-max-iterations": ("20", "7", ["0", "65536"], "[1, 65535]"),
    "cf-expansion-factor": ("1", "2", ["-1", "32769"], "[0, 32768]"),
    "cf-max-expansions": ("32", "3", ["0", "65537"], "[1, 65536]"),
}


class ConfServer(Server):
    """A server started from a redis.conf in its directory, so that CONFIG REWRITE works."""

    def __init__(self, lines=(), module_args=()):
        super().__init__(fmt=None)
        self.conf = os.path.join(self.dir, "redis.conf")
        with open(self.conf, "w") as f:
            f.write("port %d\nbind 127.0.0.1\ndir %s\nsave \"\"\nappendonly no\nlogfile %s\n"
                    "protected-mode no\nloadmodule %s %s\n" % (self.port, self.dir, self.log_path, MODULE,
                                                             " ".join(module_args)))
            for line in lines:
                f.write(line + "\n")

    def command_line(self):
        return [REDIS_SERVER, self.conf]


def prefix_of(c):
    """"" when the server took the unprefixed names, else "bloomkit."."""
    return "" if c.call("CONFIG", "GET", "bf-error-rate") else "bloomkit."


def get(c, name):
    reply = c.call("CONFIG", "GET", prefix_of(c) + name)
    return reply[1].decode() if reply else None


class ConfigTest(unittest.TestCase):
    @time_limit(30)
    def test_names_follow_the_servers_module_api(self):
        """Unprefixed names exactly where the server takes REDISMODULE_CONFIG_UNPREFIXED:
        Redis from 8.0.0 on. Redis 7.x, Redis 8's milestones (7.9.x) and Valkey 8 refuse the
        flag, and there the names carry the module's name (bf. under IDENTITY redisbloom)."""
        for identity, module_name in (("bloomkit", "bloomkit."), ("redisbloom", "bf.")):
            with Server(fmt=None, module_args=["IDENTITY", identity]) as s, s.client() as c:
                name, version = server_version(c)
                expected = "" if name == "redis" and version >= (8, 0, 0) else module_name
                unexpected = module_name if expected == "" else ""
                self.assertEqual(c.call("CONFIG", "GET", expected + "bf-error-rate"), [
                    (expected + "bf-error-rate").encode(), b"0.01"], (name, version))
                self.assertEqual(c.call("CONFIG", "GET", unexpected + "bf-error-rate"), [], (name, version))
                self.assertEqual(len(c.call("CONFIG", "GET", expected + "bf-*", expected + "cf-*")), 16)
                if expected:
                    self.assertIn("configs are named %sbf-error-rate" % expected, s.log())

    @time_limit(30)
    def test_defaults_set_get_and_range_errors(self):
        with Server(fmt=None) as s, s.client() as c:
            p = prefix_of(c)
            self.assertEqual(len(c.call("CONFIG", "GET", p + "bf-*", p + "cf-*")), 16)
            for name, (default, other, bad, text) in CONFIGS.items():
                self.assertEqual(get(c, name), default, name)
                c.ok("CONFIG", "SET", p + name, other)
                self.assertEqual(get(c, name), other, name)
                for value in bad:
                    reply = c.call("CONFIG", "SET", p + name, value)
                    self.assertIsInstance(reply, ReplyError, (name, value))
                    self.assertTrue(reply.message.endswith("Value for `%s` must be in the range %s" % (name, text)),
                                    (name, value, reply))
                    self.assertEqual(get(c, name), other, name)
                reply = c.call("CONFIG", "SET", p + name, "x1")
                self.assertTrue(reply.message.endswith("Invalid value for `%s`" % name), reply)
                c.ok("CONFIG", "SET", p + name, default)

    @time_limit(30)
    def test_cross_limits_and_error_rate_cap(self):
        with Server(fmt=None) as s, s.client() as c:
            p = prefix_of(c)
            c.ok("CONFIG", "SET", p + "cf-initial-size", "10")
            reply = c.call("CONFIG", "SET", p + "cf-bucket-size", "6")
            self.assertTrue(reply.message.endswith("Value for `cf-bucket-size` must be in the range [1, 5]"), reply)
            # CF.RESERVE's bucket size is bounded the same way.
            self.assertEqual(c.call("CF.RESERVE", "c", "100", "BUCKETSIZE", "6"),
                             ReplyError("BUCKETSIZE: value must be in the range [1, 5]"))
            c.ok("CONFIG", "SET", p + "cf-bucket-size", "5")
            reply = c.call("CONFIG", "SET", p + "cf-initial-size", "9")
            self.assertTrue(reply.message.endswith("Value for `cf-initial-size` must be in the range [10, 1073741824]"),
                            reply)
            self.assertEqual(c.call("CF.INSERT", "c", "CAPACITY", "9", "ITEMS", "a"),
                             ReplyError("Capacity must be in the range [cf-bucket-size * 2, 1073741824]"))
            # RedisBloom 8 keeps 0.25 for any rate above it.
            c.ok("CONFIG", "SET", p + "bf-error-rate", "0.6")
            self.assertEqual(get(c, "bf-error-rate"), "0.25")

    @time_limit(30)
    def test_auto_created_filters_follow_the_configs(self):
        with Server(fmt=None) as s, s.client() as c:
            p = prefix_of(c)
            for name, value in (("bf-error-rate", "0.002"), ("bf-initial-size", "333"), ("bf-expansion-factor", "5"),
                                ("cf-bucket-size", "4"), ("cf-initial-size", "2000"), ("cf-max-iterations", "7"),
                                ("cf-expansion-factor", "2")):
                c.ok("CONFIG", "SET", p + name, value)
            for command in (("BF.ADD", "b1", "x"), ("BF.MADD", "b2", "x"), ("BF.INSERT", "b3", "ITEMS", "x")):
                c.call(*command)
                key = command[1]
                self.assertEqual(c.call("BF.INFO", key, "CAPACITY"), [333], command)
                self.assertEqual(c.call("BF.INFO", key, "EXPANSION"), [5], command)
                # The first link gets half the configured rate.
                self.assertIn(b"ratio:0.001", c.call("BF.DEBUG", key)[1], command)
            c.ok("BF.RESERVE", "r", "0.01", "10")
            self.assertEqual(c.call("BF.INFO", "r", "EXPANSION"), [5])
            for command in (("CF.ADD", "c1", "x"), ("CF.ADDNX", "c2", "x"), ("CF.INSERT", "c3", "ITEMS", "x"),
                            ("CF.INSERTNX", "c4", "ITEMS", "x")):
                c.call(*command)
                info = c.call("CF.INFO", command[1])
                fields = dict(zip(info[0::2], info[1::2]))
                self.assertEqual(fields[b"Bucket size"], 4, command)
                self.assertEqual(fields[b"Number of buckets"], 512, command)  # 2000 / 4, to a power of two
                self.assertEqual(fields[b"Max iterations"], 7, command)
                self.assertEqual(fields[b"Expansion rate"], 2, command)
            # bf-expansion-factor 0: new filters do not scale; a full one says so.
            c.ok("CONFIG", "SET", p + "bf-expansion-factor", "0")
            c.ok("CONFIG", "SET", p + "bf-initial-size", "2")
            self.assertEqual(c.call("BF.MADD", "ns", "a", "b", "c")[2], ReplyError("ERR non scaling filter is full"))
            self.assertEqual(c.call("BF.INFO", "ns", "EXPANSION"), [None])
            self.assertEqual(c.call("BF.RESERVE", "ns2", "0.01", "10", "EXPANSION", "2"),
                             ReplyError("Nonscaling filters cannot expand"))
            # cf-max-expansions 1: a filter with one sub-filter takes no more items.
            c.ok("CONFIG", "SET", p + "cf-max-expansions", "1")
            self.assertEqual(c.call("CF.ADD", "c1", "y"), ReplyError("Maximum expansions reached"))

    @time_limit(60)
    def test_rewrite_and_redis_conf(self):
        s = ConfServer(module_args=["INITIAL_SIZE", "150"])
        try:
            s.start()
            with s.client() as c:
                p = prefix_of(c)
                # The module argument of 2.8 is the config's value.
                self.assertEqual(get(c, "bf-initial-size"), "150")
                for name, (_, other, _, _) in CONFIGS.items():
                    c.ok("CONFIG", "SET", p + name, other)
                c.ok("CONFIG", "REWRITE")
            with open(s.conf) as f:
                conf = f.read()
            for name, (_, other, _, _) in CONFIGS.items():
                # String configs are written quoted.
                self.assertIn('%s%s "%s"' % (p, name, other), conf)
            s.restart()
            with s.client() as c:
                for name, (_, other, _, _) in CONFIGS.items():
                    self.assertEqual(get(c, name), other, name)
                c.call("BF.ADD", "b", "x")
                self.assertEqual(c.call("BF.INFO", "b", "CAPACITY"), [333])
        finally:
            s.cleanup()
        # Set in redis.conf from the start; a value out of range stops the load.
        s = ConfServer(lines=["%scf-max-iterations 9" % p, "%sbf-error-rate 0.03" % p])
        try:
            s.start()
            with s.client() as c:
                self.assertEqual(get(c, "cf-max-iterations"), "9")
                self.assertEqual(get(c, "bf-error-rate"), "0.03")
                c.call("CF.ADD", "c", "x")
                self.assertEqual(c.call("CF.INFO", "c")[15], 9)
        finally:
            s.cleanup()
        s = ConfServer(lines=["%scf-max-iterations 0" % p])
        try:
            self.assertFalse(s.start(expect_failure=True))
            self.assertIn("must be in the range [1, 65535]", s.log())
        finally:
            s.cleanup()


if __name__ == "__main__":
    main()
