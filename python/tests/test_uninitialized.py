# SPDX-License-Identifier: Apache-2.0
"""Objects made without __init__ (cls.__new__(cls), or a pickle that gives no state): every
method and property of every class raises a clear ValueError, never reads uninitialized
memory. The members are found by introspection, so a new method is checked without a new
test; each class is checked in a child process, where a crash or a hang cannot take pytest
down."""

from __future__ import annotations

import json
import pickle

import pytest

import bloomkit
from bloomkit import _bloomkit

CLASSES = sorted(name for name, value in vars(_bloomkit).items() if isinstance(value, type))

# A child process: for each member of the class, on an object from cls.__new__(cls) and on
# one from a 40-byte pickle without state, prints one JSON line of what the call did.
CHILD = r"""
import json, pickle, sys
from bloomkit import _bloomkit

name = sys.argv[1]
cls = getattr(_bloomkit, name)
# The ways an object gets its state, and what is not a member.
SKIP = {"__init__", "__setstate__", "__new__", "__module__", "__doc__", "__hash__", "__dict__", "__weakref__"}


def outcome(call):
    try:
        if call() is NotImplemented:  # pybind11's operators, given a count of arguments that does not fit
            return "NotImplemented"
    except ValueError as e:
        return "ValueError: " + str(e)
    except TypeError as e:
        return "TypeError: " + str(e)
    except BaseException as e:  # noqa: BLE001 - reported to the parent
        return "other: " + type(e).__name__ + ": " + str(e)
    return "returned"


def made_by_new():
    return cls.__new__(cls)


def made_by_pickle():
    return pickle.loads(b"\x80\x02cbloomkit._bloomkit\n" + name.encode() + b"\nq\x00)\x81q\x01.")


for make in (made_by_new, made_by_pickle):
    for member, attr in sorted(vars(cls).items()):
        if member in SKIP or isinstance(attr, staticmethod):
            continue
        print(json.dumps({"make": make.__name__, "member": member, "start": True}), flush=True)
        if type(attr).__name__ == "pybind11_static_property":  # a property of the class, not of self
            results = ["static " + outcome(lambda: getattr(make(), member) == getattr(cls, member))]
        elif isinstance(attr, property):
            results = ["property " + outcome(lambda: getattr(make(), member))]
        else:
            # The arity is not known: every call whose count and types of arguments fit must
            # raise the error, the others are TypeErrors of pybind11 or CPython (NotImplemented
            # for operators). The arguments are a key, or an object of the class made the same
            # way (what the operators and union() take).
            results = [
                outcome(lambda n=n, arg=arg: getattr(make(), member)(*[arg] * n))
                for arg in (b"key", make())
                for n in range(4)
            ]
        print(json.dumps({"make": make.__name__, "member": member, "results": results}), flush=True)
for make in (made_by_new, made_by_pickle):
    # What the interpreter calls for the object: the same error, or the object's own rule.
    print(json.dumps({"make": make.__name__, "member": "protocols", "start": True}), flush=True)
    import copy
    results = [outcome(lambda op=op: op(make())) for op in (copy.copy, copy.deepcopy, pickle.dumps, str)]
    print(json.dumps({"make": make.__name__, "member": "protocols", "results": results}), flush=True)
"""

NOT_INITIALIZED = "object is not initialized: it was made without __init__"


def check_class(name, run_python):
    result = run_python(CHILD, name, timeout=30)
    assert result.returncode == 0, f"{name}: exit {result.returncode}: {result.stdout[-1000:]} {result.stderr[-2000:]}"
    checked = []
    for line in result.stdout.splitlines():
        row = json.loads(line)
        if "start" in row:
            continue
        where = f"{name}.{row['member']} on an object {row['make']}"
        results = row["results"]
        if row["member"] == "protocols":
            for r in results:
                assert r.startswith("ValueError: " + name + " " + NOT_INITIALIZED) or "cannot pickle" in r or (
                    r == "returned" and name == "FileLock"  # object's repr: reads nothing of the lock
                ), f"{where}: {r}"
            continue
        if results[0].startswith("static "):
            assert results == ["static returned"], f"{where}: {results}"
            continue
        if results[0].startswith("property "):
            assert results[0].startswith("property ValueError: " + name + " " + NOT_INITIALIZED), f"{where}: {results}"
        else:
            raised = [r for r in results if r.startswith("ValueError: ")]
            assert raised, f"{where}: no call raised the error: {results}"
            for r in results:
                assert (
                    r.startswith("ValueError: " + name + " " + NOT_INITIALIZED)
                    or r.startswith("TypeError: ")
                    or r == "NotImplemented"
                ), f"{where}: {r}"
        checked.append(row["member"])
    return checked


@pytest.mark.parametrize("name", CLASSES)
def test_every_member_of_an_uninitialized_object_raises(name, run_python):
    checked = check_class(name, run_python)
    cls = getattr(_bloomkit, name)
    # Every member that takes self was reached, on both kinds of object.
    members = {
        m
        for m, attr in vars(cls).items()
        if callable(attr) or isinstance(attr, property)
        if m not in {"__init__", "__setstate__", "__new__"}
        and not isinstance(attr, staticmethod)
        and type(attr).__name__ != "pybind11_static_property"
    }
    assert sorted(checked) == sorted(list(members) * 2)


def test_the_classes_are_found():
    assert {"BloomFilter", "ConcurrentBloomFilter", "RedisCuckooFilter", "MappedFilter", "FileLock"} <= set(CLASSES)


def test_an_object_from_new_still_unpickles():
    # __setstate__ is how pickle gives an object made by __new__ its state.
    for cls in (bloomkit.BloomFilter, bloomkit.ScalableBloomFilter, bloomkit.RedisCuckooFilter):
        f = cls(capacity=1000)
        f.add("x")
        g = cls.__new__(cls)
        g.__setstate__(f.__getstate__())
        assert g == f and "x" in g
        assert pickle.loads(pickle.dumps(f)) == f
