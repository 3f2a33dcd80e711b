#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Runs the examples of README.md and docs/*.md against the built tool and module.

Usage: run_doc_examples.py SOURCE_DIR PATH/TO/bloomkit PATH/TO/bloomkit.so

Two kinds of examples are checked, so that a change that breaks a document fails the
build:

1. Transcripts: fenced blocks with lines starting with `$ `. Each command runs in bash,
   in a scratch directory shared by the blocks of one document (in order), with the
   built `bloomkit` first on PATH; its stdout must equal the lines that follow it in
   the block (up to the next `$ ` line; trailing spaces ignored). `redis-cli` talks to a
   private redis-server with the built bloomkit.so, started on a free loopback port for
   each document. An HTML comment right before the block's fence may say:
     <!-- doctest: setup: SHELL COMMANDS -->   run first (not shown in the document)
     <!-- doctest: mask: REGEX -->             matches of REGEX (Python syntax) become
                                               `<...>` in both the documented and the
                                               real output: for timings only
     <!-- doctest: skip: REASON -->            not run; the reason is required
   (several directives: one comment each, or separated by ` ;; `).
2. Command lines in other fenced blocks that start with `bloomkit ` (also after `| `):
   the subcommand must exist and each `--option` it uses must be one its --help lists.

Prints one line per example and a summary; exits 1 if any failed.
"""

import glob
import os
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^(```+|~~~+)(.*)$")
DIRECTIVE = re.compile(r"^<!--\s*doctest:\s*(.*?)\s*-->\s*$")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Block:
    def __init__(self, path, line, lang, lines, directives):
        self.path, self.line, self.lang, self.lines, self.directives = path, line, lang, lines, directives


def blocks_of(path):
    """Fenced blocks of a Markdown file, each with the directives of the comments just before it."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks = []
    pending = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        directive = DIRECTIVE.match(lines[i])
        if directive:
            for part in directive.group(1).split(" ;; "):
                name, _, value = part.partition(":")
                pending.append((name.strip(), value.strip()))
            i += 1
            continue
        if match:
            fence = match.group(1)
            start = i
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith(fence):
                body.append(lines[i])
                i += 1
            blocks.append(Block(path, start + 1, match.group(2).strip(), body, pending))
            pending = []
            i += 1
            continue
        if lines[i].strip():
            pending = []
        i += 1
    return blocks


class Redis:
    def __init__(self, module, workdir):
        self.port = free_port()
        self.dir = os.path.join(workdir, "redis")
        os.makedirs(self.dir, exist_ok=True)
        self.proc = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--dir", self.dir, "--save", "",
             "--appendonly", "no", "--logfile", os.path.join(self.dir, "redis.log"), "--loadmodule", module],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("redis-server exited: " + open(os.path.join(self.dir, "redis.log")).read())
            ping = subprocess.run(["redis-cli", "-p", str(self.port), "PING"], capture_output=True, text=True)
            if ping.stdout.strip() == "PONG":
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not answer")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


class Session:
    """One document's scratch directory, PATH and (on first use) redis-server."""

    def __init__(self, bloomkit, module, tmp):
        self.dir = tmp
        self.module = module
        self.redis = None
        bindir = os.path.join(tmp, ".bin")
        os.makedirs(bindir)
        os.symlink(bloomkit, os.path.join(bindir, "bloomkit"))
        self.env = dict(os.environ, PATH=bindir + ":" + os.environ.get("PATH", "/usr/bin:/bin"), LC_ALL="C")

    def shell(self, command):
        if re.search(r"(^|[|;&]\s*)redis-cli\b", command):
            if self.redis is None:
                self.redis = Redis(self.module, self.dir)
            command = re.sub(r"(^|[|;&]\s*)redis-cli\b", lambda m: f"{m.group(1)}redis-cli --no-raw -p {self.redis.port}",
                             command)
        return subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=self.dir, env=self.env,
                              capture_output=True, text=True, timeout=300)

    def close(self):
        if self.redis is not None:
            self.redis.stop()


def transcript(block):
    """[(command, expected output lines)] of a block, or [] if it has no `$ ` line."""
    steps = []
    for line in block.lines:
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    return steps


def normalize(lines, masks):
    text = "\n".join(line.rstrip() for line in lines).strip("\n")
    for mask in masks:
        text = re.sub(mask, "<...>", text)
    return text


def check_transcript(session, block, failures):
    where = f"{os.path.relpath(block.path)}:{block.line}"
    directives = block.directives
    skip = [v for k, v in directives if k == "skip"]
    if skip:
        if not skip[0]:
            failures.append(f"{where}: a skip needs a reason")
        print(f"skip  {where}: {skip[0]}")
        return
    masks = [v for k, v in directives if k == "mask"]
    for _, setup in [(k, v) for k, v in directives if k == "setup"]:
        result = session.shell(setup)
        if result.returncode != 0:
            failures.append(f"{where}: setup failed ({result.returncode}): {setup}\n{result.stderr}")
            return
    for command, expected in transcript(block):
        result = session.shell(command)
        want = normalize(expected, masks)
        got = normalize(result.stdout.split("\n"), masks)
        if want != got:
            failures.append(f"{where}: $ {command}\n--- documented\n{want}\n--- actual (exit {result.returncode})\n"
                            f"{got}\n--- stderr\n{result.stderr.strip()}")
            print(f"FAIL  {where}: $ {command}")
        else:
            print(f"ok    {where}: $ {command}")


def help_options(bloomkit, path, cache):
    key = tuple(path)
    if key not in cache:
        result = subprocess.run([bloomkit, *path, "--help"], capture_output=True, text=True)
        if result.returncode != 0:
            cache[key] = None
        else:
            cache[key] = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z0-9])\b", result.stdout))
    return cache[key]


def check_command_lines(bloomkit, block, failures, cache):
    """Every `bloomkit SUBCOMMAND --option ...` of a non-transcript block names real things."""
    where = f"{os.path.relpath(block.path)}:{block.line}"
    top = help_options(bloomkit, [], cache)
    checked = 0
    for number, line in enumerate(block.lines, start=block.line + 1):
        code = line.split(" #", 1)[0]
        for segment in re.split(r"[|;]|&&", code):
            try:
                words = shlex.split(segment)
            except ValueError:
                continue
            if not words or words[0] != "bloomkit":
                continue
            args = words[1:]
            path = []
            i = 0
            while i < len(args):
                if args[i] == "--max-memory":
                    i += 2
                    continue
                if args[i].startswith("-"):
                    i += 1
                    continue
                candidate = path + [args[i]]
                if help_options(bloomkit, candidate, cache) is None:
                    break
                path = candidate
                i += 1
                if path[0] not in ("experiment", "import"):  # the commands with subcommands
                    break
            if not path and not any(a in ("--help", "--version") for a in args):
                failures.append(f"{os.path.relpath(block.path)}:{number}: no bloomkit command in: {line.strip()}")
                continue
            known = (help_options(bloomkit, path, cache) or set()) | (top or set())
            for arg in args:
                option = arg.split("=", 1)[0]
                if option.startswith("-") and option != "-" and option not in known:
                    failures.append(f"{os.path.relpath(block.path)}:{number}: bloomkit {' '.join(path)} has no "
                                    f"option {option}: {line.strip()}")
            checked += 1
    if checked:
        print(f"ok    {where}: {checked} bloomkit command line(s) name real commands and options")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    source, bloomkit, module = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    documents = [os.path.join(source, "README.md")] + sorted(glob.glob(os.path.join(source, "docs", "*.md")))
    os.chdir(source)
    failures = []
    cache = {}
    transcripts = 0
    for document in documents:
        with tempfile.TemporaryDirectory(prefix="bloomkit-doc-") as tmp:
            session = Session(bloomkit, module, tmp)
            try:
                for block in blocks_of(document):
                    if transcript(block):
                        transcripts += 1
                        check_transcript(session, block, failures)
                    else:
                        check_command_lines(bloomkit, block, failures, cache)
            finally:
                session.close()
    print(f"{transcripts} transcripts in {len(documents)} documents; {len(failures)} failures")
    for failure in failures:
        print("\n" + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
