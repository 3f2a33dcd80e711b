# SPDX-License-Identifier: Apache-2.0
"""The type stubs describe the module that is built: every public method of every class
is in bloomkit/_bloomkit.pyi and the other way round, and every method has a docstring."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import bloomkit
from bloomkit import _bloomkit

STUB = Path(bloomkit.__file__).with_name("_bloomkit.pyi")
CLASSES = [
    "BloomFilter",
    "BlockedBloomFilter",
    "CountingBloomFilter",
    "ScalableBloomFilter",
    "CuckooFilter",
    "ConcurrentBloomFilter",
    "ConcurrentBlockedBloomFilter",
    "RedisBloomFilter",
    "RedisCuckooFilter",
    "WindowedBloomFilter",
    "BitsAndBloomsFilter",
    "GuavaBloomFilter",
    "ParquetBloomFilter",
]
# Classes that are not filters.
OTHER_CLASSES = ["FileLock", "MappedFilter"]


def stub_members():
    tree = ast.parse(STUB.read_text())
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}

    def members(name):
        node = classes[name]
        names = {
            item.name if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) else item.target.id
            for item in node.body
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
            or (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name))
        }
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id in classes:
                names |= members(base.id)
        return names

    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    return members, functions


@pytest.mark.parametrize("name", CLASSES + OTHER_CLASSES)
def test_stub_and_class_have_the_same_public_members(name):
    members, _ = stub_members()
    in_stub = {m for m in members(name) if not m.startswith("_") or m in ("__contains__", "__len__", "__or__", "__and__")}
    cls = getattr(_bloomkit, name)
    at_runtime = {m for m in dir(cls) if not m.startswith("_")}
    at_runtime |= {m for m in ("__contains__", "__len__", "__or__", "__and__") if m in cls.__dict__}
    assert in_stub == at_runtime
    for member in at_runtime:
        assert getattr(cls, member).__doc__, f"{name}.{member} has no docstring"
    assert cls.__doc__


def test_stub_has_the_module_functions():
    _, functions = stub_members()
    public = {n for n in dir(_bloomkit) if not n.startswith("_") and callable(getattr(_bloomkit, n))}
    public -= set(CLASSES + OTHER_CLASSES)
    assert public == functions
