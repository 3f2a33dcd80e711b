# SPDX-License-Identifier: Apache-2.0
"""A second Bloom-filter module beside bloomkit.so: valkey-bloom, RedisBloom, or
bloomkit.so itself loaded twice.

Redis and Valkey give a command name to the first module that registers it: a later
RedisModule_CreateCommand of BF.ADD fails, the later module's OnLoad fails, and the server
unloads it. At startup (loadmodule) that stops the server; at run time MODULE LOAD answers
an error and the first module keeps serving. bf_command_module.so stands in for the other
module: it registers BF.ADD and BF.EXISTS under the name "bfother" and nothing else.
A second MODULE LOAD of the same bloomkit.so file gets the library that is already mapped
(dlopen counts references), so it must be refused before its arguments touch the
running module's settings.
"""

import os
import shutil
import unittest

from harness import MODULE, ReplyError, Server, main, time_limit

OTHER = os.environ.get("BLOOMKIT_TEST_BF_MODULE", "")


def bf_modules(c):
    """The loaded modules, less those a server brings itself (Redis 8: vectorset)."""
    return sorted(m[1] for m in c.call("MODULE", "LIST") if m[1] in (b"bloomkit", b"bf", b"bfother"))


class SecondModuleTest(unittest.TestCase):
    def setUp(self):
        if not OTHER or not os.path.exists(OTHER):
            self.fail("BLOOMKIT_TEST_BF_MODULE must name bf_command_module.so, got %r" % OTHER)

    @staticmethod
    def restore_asan_options(value):
        if value is None:
            os.environ.pop("ASAN_OPTIONS", None)
        else:
            os.environ["ASAN_OPTIONS"] = value

    @time_limit(30)
    def test_loaded_after_another_bf_module_the_server_does_not_start(self):
        s = Server(fmt=None, load_module=False,
                   extra=["--loadmodule", OTHER, "--loadmodule", MODULE])
        try:
            self.assertFalse(s.start(expect_failure=True))
            log = s.log()
            self.assertIn("bloomkit: not loaded: could not register bf.", log.lower())
            self.assertIn("server aborting", log)
        finally:
            s.cleanup()

    @time_limit(30)
    def test_another_bf_module_loaded_later_is_refused(self):
        with Server(fmt=None, extra=["--enable-module-command", "yes"]) as s, s.client() as c:
            reply = c.call("MODULE", "LOAD", OTHER)
            self.assertIsInstance(reply, ReplyError)
            self.assertEqual(c.call("BF.ADD", "k", "a"), 1)  # bloomkit.so's, not "+bfother"
            self.assertEqual(bf_modules(c), [b"bloomkit"])

    @time_limit(30)
    def test_the_same_file_twice_changes_nothing(self):
        with Server(fmt=None, extra=["--enable-module-command", "yes"]) as s, s.client() as c:
            for identity in ("bloomkit", "redisbloom"):
                reply = c.call("MODULE", "LOAD", MODULE, "IDENTITY", identity, "ERROR_RATE", "0.2",
                               "INITIAL_SIZE", "7", "CF_INITIAL_SIZE", "64")
                self.assertIsInstance(reply, ReplyError, identity)
            # The running module keeps its settings: new filters get the defaults.
            c.call("BF.ADD", "b", "x")
            self.assertEqual(c.call("BF.INFO", "b", "CAPACITY"), [100])
            self.assertIn(b"ratio:0.005", c.call("BF.DEBUG", "b")[1])
            c.call("CF.ADD", "c", "x")
            info = c.call("CF.INFO", "c")
            self.assertEqual(dict(zip(info[0::2], info[1::2]))[b"Number of buckets"], 512)
            self.assertEqual(bf_modules(c), [b"bloomkit"])
            self.assertIn("bloomkit: not loaded: this bloomkit.so is already loaded", s.log())

    @time_limit(30)
    def test_a_copy_under_another_path_is_refused(self):
        # Another file: its own globals, but the types and commands are taken. Under the
        # asan-ubsan preset both copies register the same instrumented globals, which
        # AddressSanitizer would report as an ODR violation before OnLoad runs.
        asan_options = os.environ.get("ASAN_OPTIONS")
        if asan_options is not None:
            os.environ["ASAN_OPTIONS"] = asan_options + ":detect_odr_violation=0"
        self.addCleanup(self.restore_asan_options, asan_options)
        with Server(fmt=None, extra=["--enable-module-command", "yes"]) as s, s.client() as c:
            copy = os.path.join(s.dir, "bloomkit-copy.so")
            shutil.copy(MODULE, copy)
            reply = c.call("MODULE", "LOAD", copy, "IDENTITY", "redisbloom")
            self.assertIsInstance(reply, ReplyError)
            self.assertEqual(c.call("BF.ADD", "k", "a"), 1)
            self.assertEqual(bf_modules(c), [b"bloomkit"])


if __name__ == "__main__":
    main()
