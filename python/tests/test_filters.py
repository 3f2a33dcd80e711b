# SPDX-License-Identifier: Apache-2.0
"""The set-like surface of every kind: keys, add/in/update, removal, merges, copies,
pickling, equality, info and the error classes."""

from __future__ import annotations

import copy
import pickle

import pytest

import bloomkit

KEYS = [f"user:{i}" for i in range(2_000)]
ABSENT = [f"absent:{i}" for i in range(20_000)]


def test_no_false_negatives_and_fp_rate_near_target(make):
    f = make()
    for key in KEYS:
        f.add(key)
    assert all(key in f for key in KEYS)
    assert f.contains_many(KEYS) == [True] * len(KEYS)
    false_positives = sum(f.contains_many(ABSENT))
    # At most a fifth of capacity the rate is far below the 1% target; 2% would be a bug.
    assert false_positives < 0.02 * len(ABSENT)


def test_key_types_hash_the_same_bytes(make):
    f = make()
    f.add("grüße")
    encoded = "grüße".encode()
    assert encoded in f
    assert bytearray(encoded) in f
    assert memoryview(encoded) in f
    assert memoryview(b"xx" + encoded)[2:] in f
    f.add(b"\x00\xff raw")
    assert b"\x00\xff raw" in f
    assert "grüsse" not in f


@pytest.mark.parametrize("bad", [42, 4.2, None, ("a",), object()])
def test_other_key_types_are_a_type_error_that_says_how(make, bad):
    f = make()
    for call in (f.add, f.add_if_absent, f.__contains__, lambda k: f.update([k]),
                 lambda k: f.contains_many(["ok", k])):
        with pytest.raises(TypeError, match="str, bytes, bytearray or memoryview"):
            call(bad)
    assert len(f) == 0


def test_int_key_message_names_a_conversion():
    with pytest.raises(TypeError, match=r"to_bytes"):
        bloomkit.BloomFilter(capacity=10).add(7)


def test_surrogate_str_is_an_error_not_a_silent_key():
    f = bloomkit.BloomFilter(capacity=10)
    with pytest.raises(UnicodeEncodeError):
        f.add("\udcff")


def test_update_of_a_single_str_is_refused():
    with pytest.raises(TypeError, match="single str/bytes key"):
        bloomkit.BloomFilter(capacity=10).update("abc")


def test_update_takes_any_iterable(make):
    f = make()
    f.update(key for key in KEYS[:100])
    f.update(tuple(KEYS[100:200]))
    f.update(iter(KEYS[200:300]))
    assert f.contains_many(KEYS[:300]) == [True] * 300
    # 3 x 10^5 keys cross the 2^16-key chunks of the batch path.
    many = [f"k{i}".encode() for i in range(3 * 2**16 + 5)]
    g = bloomkit.BlockedBloomFilter(capacity=len(many))
    g.update(many)
    assert all(g.contains_many(many))


def test_batches_of_large_keys_cross_the_chunk_buffer():
    # Keys of up to 3 MiB: a chunk's 4 MiB buffer fills before its 2^16 keys, and a key
    # larger than a quarter of it is taken alone; every key must still be added whole.
    keys = [bytes([i]) * size for i, size in enumerate([10, 3 << 20, 20, 1 << 20, 2 << 20, 5, 3 << 20, 7])]
    keys += [bytearray(b"m" * (1 << 20)), memoryview(b"v" * (3 << 20))]
    f = bloomkit.BlockedBloomFilter(capacity=1000)
    f.update(keys)
    assert f.contains_many(keys) == [True] * len(keys)
    assert all(key in f for key in keys)
    assert not any(bytes(key)[:-1] in f for key in keys)  # whole keys, not truncated ones


def test_contains_many_of_every_iterable(make):
    f = make()
    f.update(KEYS[:100])
    probes = KEYS[:100]
    expected = [True] * 100
    assert f.contains_many(probes) == expected
    assert f.contains_many(tuple(probes)) == expected
    assert f.contains_many(k for k in probes) == expected
    assert f.contains_many([]) == []
    big = [f"k{i}" for i in range(2**16 + 3)]  # past one chunk: sized list filled across chunks
    answers = f.contains_many(big)
    assert len(answers) == len(big) and all(isinstance(a, bool) for a in answers)


def test_contains_into_fills_a_buffer(make):
    f = make()
    f.update(KEYS[:10])
    out = bytearray(12)
    present = f.contains_into(KEYS[:5] + ["nope:1", "nope:2"], out)
    assert out[:5] == b"\x01" * 5
    assert present == 5 + sum(out[5:7])
    with pytest.raises(ValueError, match="fewer than the keys"):
        f.contains_into(KEYS[:20], bytearray(3))


def test_add_if_absent_reports_new_keys(make):
    f = make()
    assert f.add_if_absent("a") is True
    assert f.add_if_absent("a") is False
    assert "a" in f


def test_len_is_the_count_of_new_keys(make):
    f = make()
    f.update(KEYS)
    assert isinstance(len(f), int)
    assert len(f) == f.count
    # Bloom kinds count adds that set a bit: a few false positives of the add are not counted.
    assert 0.98 * len(KEYS) <= len(f) <= len(KEYS)
    assert abs(f.estimated_count() - len(KEYS)) < 0.05 * len(KEYS)


def test_fp_rate_properties(make):
    f = make()
    if f.kind == "redisbloom-cf":
        # No rate parameter: the rate of one full sub-filter, 2 buckets of 2 one-byte fingerprints.
        assert f.fp_rate == pytest.approx(1 - (1 - 1 / 255) ** 4)
    else:
        assert f.fp_rate == pytest.approx(0.01)
    assert f.estimated_fp_rate == 0
    f.update(KEYS)
    assert 0 < f.estimated_fp_rate < 0.01
    assert 0 < f.expected_fp_rate < 0.02


def test_info_is_a_dict_of_the_filter(make):
    f = make()
    f.update(KEYS[:100])
    info = f.info()
    assert info["kind"] == f.kind
    assert info["count"] == len(f)
    assert info["memory_bytes"] == f.memory_bytes > 0
    assert info["can_remove"] == f.can_remove
    assert info["capacity"] == f.capacity


def test_copy_is_independent_and_equal(make):
    f = make()
    f.update(KEYS[:50])
    for g in (f.copy(), copy.copy(f), copy.deepcopy(f)):
        assert g == f and g is not f
        g.add("only in the copy")
        assert g != f
        assert "only in the copy" not in f


def test_pickle_round_trip(make):
    f = make()
    f.update(KEYS[:50])
    g = pickle.loads(pickle.dumps(f))
    assert type(g) is type(f)
    assert g == f
    assert g.contains_many(KEYS[:50]) == [True] * 50


def test_equality_compares_kind_and_contents():
    a = bloomkit.BloomFilter(capacity=1000)
    b = bloomkit.BloomFilter(capacity=1000)
    assert a == b
    a.add("x")
    assert a != b
    b.add("x")
    assert a == b
    assert a != bloomkit.BlockedBloomFilter(capacity=1000)
    assert a != "not a filter"
    with pytest.raises(TypeError):
        hash(a)


@pytest.mark.parametrize("cls", [bloomkit.CountingBloomFilter, bloomkit.CuckooFilter, bloomkit.RedisCuckooFilter])
def test_discard_and_remove(cls):
    f = cls(capacity=1000)
    assert cls.can_remove
    f.add("a")
    f.add("a")
    assert f.key_count("a") >= 2
    assert f.discard("a") is True
    assert "a" in f
    f.remove("a")
    assert "a" not in f
    assert f.discard("a") is False
    with pytest.raises(KeyError):
        f.remove("a")
    assert len(f) == 0


@pytest.mark.parametrize("cls", [bloomkit.BloomFilter, bloomkit.BlockedBloomFilter,
                                 bloomkit.ScalableBloomFilter, bloomkit.ConcurrentBloomFilter,
                                 bloomkit.RedisBloomFilter])
def test_kinds_without_removal_have_no_discard(cls):
    assert not cls.can_remove
    assert not hasattr(cls(capacity=10), "discard")


@pytest.mark.parametrize("cls", [bloomkit.BloomFilter, bloomkit.BlockedBloomFilter])
def test_union_and_intersection(cls):
    a = cls(capacity=1000)
    b = cls(capacity=1000)
    a.update(["a", "both"])
    b.update(["b", "both"])
    u = a | b
    assert all(k in u for k in ("a", "b", "both"))
    assert u == a.union(b)
    i = a & b
    assert "both" in i and "a" not in i and "b" not in i
    assert i == a.intersection(b)
    a |= b
    assert a == u
    a &= i
    assert "both" in a
    with pytest.raises(bloomkit.IncompatibleError):
        a | cls(capacity=999_999)
    with pytest.raises(TypeError):
        a | {"a"}


def test_scalable_union():
    a = bloomkit.ScalableBloomFilter(capacity=100)
    b = bloomkit.ScalableBloomFilter(capacity=100)
    a.add("a")
    b.add("b")
    assert {"a", "b"} <= {k for k in ("a", "b") if k in a | b}


def test_scalable_grows_past_its_first_stage():
    f = bloomkit.ScalableBloomFilter(capacity=100, fp_rate=0.01)
    f.update(KEYS)
    assert len(f.info()["stages"]) > 1
    assert all(f.contains_many(KEYS))
    fixed = bloomkit.ScalableBloomFilter(capacity=100, scaling=False)
    with pytest.raises(bloomkit.FullError):
        fixed.update(KEYS)


def test_scalable_options_use_the_shared_vocabulary_and_accept_the_older_names():
    f = bloomkit.ScalableBloomFilter(capacity=100, expansion=4, non_scaling=False)
    info = f.info()
    assert (info["expansion"], info["non_scaling"], info["num_stages"]) == (4, False, 1)
    assert (info["growth"], info["scaling"]) == (4, True)
    old = bloomkit.ScalableBloomFilter(capacity=100, growth=4)
    assert old.info()["expansion"] == 4
    assert old.to_bytes() == f.to_bytes()
    fixed = bloomkit.ScalableBloomFilter(capacity=100, non_scaling=True)
    assert fixed.to_bytes() == bloomkit.ScalableBloomFilter(capacity=100, scaling=False).to_bytes()
    assert fixed.info()["non_scaling"] is True
    with pytest.raises(bloomkit.FullError):
        fixed.update(KEYS)
    with pytest.raises(TypeError, match="growth"):
        bloomkit.ScalableBloomFilter(capacity=100, expansion=2, growth=2)
    with pytest.raises(TypeError, match="scaling"):
        bloomkit.ScalableBloomFilter(capacity=100, non_scaling=True, scaling=False)
    cuckoo = bloomkit.CuckooFilter(capacity=1000)
    assert cuckoo.info()["num_stages"] == cuckoo.info()["num_filters"] == 1


def test_cuckoo_full_is_an_error():
    f = bloomkit.CuckooFilter(capacity=100, expansion=0)
    with pytest.raises(bloomkit.FullError) as raised:
        for key in KEYS:
            f.add(key)
    assert raised.value.code == 15 and raised.value.code_name == "full"


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: bloomkit.BloomFilter(capacity=1000, fp_rate=1.5), bloomkit.InvalidArgumentError),
        (lambda: bloomkit.BloomFilter(capacity=0), bloomkit.InvalidArgumentError),
        (lambda: bloomkit.BloomFilter(capacity=10**12, max_memory=1 << 20), bloomkit.TooLargeError),
        (lambda: bloomkit.CuckooFilter(capacity=100, bucket_size=3), bloomkit.InvalidArgumentError),
        (lambda: bloomkit.CountingBloomFilter(capacity=100, counter_bits=5), bloomkit.InvalidArgumentError),
    ],
)
def test_bad_options_raise_the_error_class_of_their_code(call, error):
    with pytest.raises(error) as raised:
        call()
    assert isinstance(raised.value, bloomkit.Error)
    assert isinstance(raised.value, ValueError)
    assert str(raised.value)


def test_explicit_sizing():
    f = bloomkit.BloomFilter(num_bits=1 << 16, num_hashes=3)
    info = f.info()
    assert info["num_bits"] == 1 << 16 and info["num_hashes"] == 3


def test_clear(make):
    f = make()
    f.update(KEYS[:10])
    if f.kind.startswith("redisbloom-"):
        assert not hasattr(f, "clear")  # as RedisBloom: no BF/CF command empties a key
        return
    f.clear()
    assert len(f) == 0 and not any(f.contains_many(KEYS[:10]))


def test_sizeof_counts_the_filter_bytes():
    import sys

    f = bloomkit.BlockedBloomFilter(capacity=1_000_000)
    assert sys.getsizeof(f) >= f.memory_bytes > 1_000_000


def test_blocked_filter_of_256_bit_blocks():
    f = bloomkit.BlockedBloomFilter(capacity=15_000, block_bits=256)
    assert f.info()["block_bits"] == 256
    assert f.info()["hash_id"] == 4  # the short-key hash (docs/FORMAT.md)
    # The default layout follows the rate (docs/FILTERS.md, "Default layout").
    assert bloomkit.BlockedBloomFilter(capacity=10_000).info()["block_bits"] == 256
    assert bloomkit.BlockedBloomFilter(capacity=10_000, fp_rate=0.001).info()["block_bits"] == 256
    assert bloomkit.BlockedBloomFilter(capacity=10_000, fp_rate=1e-4).info()["block_bits"] == 512
    assert bloomkit.BlockedBloomFilter(capacity=10_000, block_bits=512).info()["block_bits"] == 512
    assert bloomkit.BlockedBloomFilter(num_bits=1 << 16, num_hashes=7).info()["block_bits"] == 512
    keys = [f"k{i}" for i in range(10_000)] + [i.to_bytes(8, "little") for i in range(5_000)]
    f.update(keys)
    assert all(f.contains_many(keys))
    false_positives = sum(f.contains_many(f"absent{i}" for i in range(50_000)))
    assert 0 < false_positives < 50_000 * 0.02
    g = bloomkit.from_bytes(f.to_bytes())
    assert type(g) is bloomkit.BlockedBloomFilter
    assert g == f
    assert g.info()["block_bits"] == 256
    with pytest.raises(bloomkit.InvalidArgumentError, match="block_bits must be 512 or 256, got 300"):
        bloomkit.BlockedBloomFilter(capacity=10, block_bits=300)
