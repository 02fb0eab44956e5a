"""redis-py's `r.bf()` and `r.cf()` against the module with `BF_COMMANDS yes`, and against
RedisBloom 2.4.23.

Every case runs on each module over RESP2 and RESP3 (`protocol=3`), through redis-py's own
command methods and reply parsing (`BFInfo` and `CFInfo` included), and checks what RedisBloom
documents.
Each case also returns what it observed, apart from what depends on the module's memory
layout (`Size`, the dump's bytes); splitbloom's observations must equal RedisBloom's, the
oracle, in the same run. The servers are started here, on free localhost ports, and stopped.

Usage: python redis_py.py SPLITBLOOM_MODULE [REDISBLOOM_MODULE]
Without the second argument the oracle is skipped, and the output says so. The last line is
`N passed, N failed`; the exit status is 1 when anything failed.
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback

import redis
from redis.commands.bf.info import BFInfo, CFInfo
from redis.exceptions import ResponseError


class Server:
    """A redis-server with one module loaded, in a scratch directory."""

    def __init__(self, module, module_args):
        self.dir = tempfile.mkdtemp(prefix="splitbloom-redis-py-")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.process = subprocess.Popen(
            [os.environ.get("SPLITBLOOM_REDIS_SERVER", "redis-server"),
             "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", self.dir,
             "--logfile", "redis.log", "--loadmodule", module, *module_args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            try:
                if redis.Redis(port=self.port).ping():
                    return
            except redis.ConnectionError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start:\n{self.log()}")
            time.sleep(0.02)

    def log(self):
        try:
            with open(os.path.join(self.dir, "redis.log")) as log:
                return log.read()
        except OSError:
            return ""

    def client(self, protocol):
        return redis.Redis(port=self.port, protocol=protocol)

    def stop(self):
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def error_of(call):
    """The error message a call raises (redis-py drops the `ERR ` prefix)."""
    try:
        call()
    except ResponseError as error:
        return str(error)
    raise AssertionError("expected an error reply")


def info(r, key):
    """`BF.INFO key` parsed by redis-py's `BFInfo`: RESP2's callback, or, over RESP3 (where
    redis-py registers no callback and RedisBloom 2.4 still answers a flat array), fed to it."""
    reply = r.bf().info(key)
    if isinstance(reply, list):
        assert reply[::2] == [b"Capacity", b"Size", b"Number of filters",
                              b"Number of items inserted", b"Expansion rate"], reply
        reply = BFInfo(reply)
    assert isinstance(reply, BFInfo), reply
    assert isinstance(reply.size, int) and reply.size > 0, reply.size
    return reply


def info_fields(r, key):
    """Every `BFInfo` field but `size` (each module's own memory)."""
    parsed = info(r, key)
    return [parsed.capacity, parsed.filterNum, parsed.insertedNum, parsed.expansionRate]


def raw(r, *args):
    """One command's reply without redis-py's callback for its name (which parses every
    `BF.INFO` reply as the five-field form, the one-field form included)."""
    connection = r.connection_pool.get_connection(args[0])
    try:
        connection.send_command(*args)
        reply = connection.read_response()
    finally:
        r.connection_pool.release(connection)
    if isinstance(reply, ResponseError):
        raise reply
    return reply


def dump(r, key):
    """redis-py's documented `scandump` loop: the (iterator, data) pairs, in order."""
    chunks = []
    iterator = 0
    while True:
        iterator, data = r.bf().scandump(key, iterator)
        if iterator == 0:
            return chunks
        chunks.append((iterator, data))


def restore(r, key, chunks):
    for iterator, data in chunks:
        r.bf().loadchunk(key, iterator, data)


def answers(r, key, items):
    return r.bf().mexists(key, *items)


def case_reserve(r):
    bf = r.bf()
    assert bf.create("a", 0.01, 1000) is True
    assert bf.reserve("b", 0.001, 500, expansion=4) is True
    assert bf.reserve("c", 0.01, 100, noScale=True) is True
    exists = error_of(lambda: bf.reserve("a", 0.01, 1000))
    assert "item exists" in exists, exists
    bad_rate = error_of(lambda: bf.reserve("d", 2, 1000))
    assert "error rate" in bad_rate, bad_rate
    assert r.exists("d") == 0
    return [exists, bad_rate, info_fields(r, "a"), info_fields(r, "b"), info_fields(r, "c")]


def case_add_exists(r):
    bf = r.bf()
    bf.create("f", 0.01, 1000)
    replies = [bf.add("f", "x"), bf.add("f", "x"), bf.madd("f", "y", "x", "z", "y")]
    assert replies == [1, 0, [1, 0, 1, 0]], replies
    present = [bf.exists("f", "x"), bf.exists("f", b"\x00\xff"), bf.mexists("f", "y", "nope", "z")]
    assert present == [1, 0, [1, 0, 1]], present
    # A missing key: no error, nothing present, and ADD creates it with the defaults.
    missing = [bf.exists("none", "x"), bf.mexists("none", "x", "y"), bf.add("auto", "x")]
    assert missing == [0, [0, 0], 1], missing
    auto = info_fields(r, "auto")
    assert auto == [100, 1, 1, 2], auto
    r.set("string", "v")
    wrong_type = error_of(lambda: bf.add("string", "x"))
    assert "WRONGTYPE" in wrong_type, wrong_type
    return [replies, present, missing, auto, wrong_type]


def case_insert(r):
    bf = r.bf()
    observed = [bf.insert("i", ["a", "b", "a"])]
    assert observed[-1] == [1, 1, 0], observed
    observed.append(info_fields(r, "i"))
    assert observed[-1] == [100, 1, 2, 2], observed
    observed.append(bf.insert("i2", ["a"], capacity=5000, error=0.001))
    observed.append(info_fields(r, "i2"))
    assert observed[-1][0] == 5000, observed
    not_found = error_of(lambda: bf.insert("none", ["a"], noCreate=True))
    assert "not found" in not_found, not_found
    assert r.exists("none") == 0
    observed.append(not_found)
    # NOCREATE on an existing key inserts.
    observed.append(bf.insert("i", ["c"], noCreate=True))
    assert observed[-1] == [1], observed
    observed.append(bf.insert("e", ["a", "b"], capacity=10, expansion=4))
    observed.append(info_fields(r, "e"))
    assert observed[-1] == [10, 1, 2, 4], observed
    # Past its capacity an EXPANSION 4 filter adds a sub-filter four times as large.
    bf.insert("e", [f"item-{n}" for n in range(30)])
    # The item count depends on the first sub-filter's false positives once it is past its
    # capacity, so it is left out.
    capacity, filters, _, expansion = info_fields(r, "e")
    observed.append([capacity, filters, expansion])
    assert observed[-1] == [50, 2, 4], observed
    observed.append(bf.insert("n", ["a"], capacity=3, noScale=True))
    observed.append(info_fields(r, "n"))
    assert observed[-1] == [3, 1, 1, None], observed
    # The batch that fills the filter answers its items up to the full one, then the error as
    # the array's last element (which redis-py hands back as an exception object in the list).
    batch = bf.insert("n", ["b", "c", "d", "e"], noScale=True)
    assert batch[:2] == [1, 1] and len(batch) == 3, batch
    assert isinstance(batch[2], ResponseError), batch
    assert "non scaling filter is full" in str(batch[2]), batch
    observed.append(batch[:2] + [str(batch[2])])
    observed.append(info_fields(r, "n"))
    assert observed[-1] == [3, 1, 3, None], observed
    return observed


def case_info(r):
    bf = r.bf()
    bf.create("s", 0.01, 100)
    bf.madd("s", *[f"key-{n}" for n in range(1000)])
    parsed = info(r, "s")
    assert parsed.capacity == 100 + 200 + 400 + 800, parsed.capacity
    assert parsed.filterNum == 4 and parsed.expansionRate == 2, vars(parsed)
    # Items only the filter's own false positives turn away are not counted, so the count is
    # near 1000; RedisBloom's differs by its own false positives, so it is not compared.
    assert 980 <= parsed.insertedNum <= 1000, parsed.insertedNum
    assert bf.card("s") == parsed.insertedNum
    one_field = [raw(r, "BF.INFO", "s", field) for field in ("CAPACITY", "FILTERS", "EXPANSION")]
    assert one_field == [[1500], [4], [2]], one_field
    bad_field = error_of(lambda: raw(r, "BF.INFO", "s", "NOPE"))
    missing = error_of(lambda: bf.info("none"))
    assert "not found" in missing, missing
    return [parsed.capacity, parsed.filterNum, parsed.expansionRate, one_field, bad_field,
            missing]


def case_card(r):
    bf = r.bf()
    observed = [bf.card("none")]
    bf.create("c", 0.01, 1000)
    observed.append(bf.card("c"))
    bf.madd("c", "a", "b", "c", "a")
    observed.append(bf.card("c"))
    assert observed == [0, 0, 3], observed
    r.set("string", "v")
    observed.append(error_of(lambda: bf.card("string")))
    assert "WRONGTYPE" in observed[-1], observed
    return observed


def round_trip(r, key, probes):
    """Dumps `key`, deletes it, restores it into a fresh key and into `key`, and checks that
    the restored filters dump the same chunks, answer the same, and report the same INFO."""
    before_info = info_fields(r, key)
    before_answers = answers(r, key, probes)
    chunks = dump(r, key)
    assert len(chunks) >= 2, "a header and at least one chunk of bits"
    r.delete(key)
    restore(r, key, chunks)
    restore(r, key + "-copy", chunks)
    for restored in (key, key + "-copy"):
        assert dump(r, restored) == chunks, f"{restored} dumps other bytes"
        assert answers(r, restored, probes) == before_answers, f"{restored} answers otherwise"
        assert info_fields(r, restored) == before_info, f"{restored}: INFO differs"
    # The item count and which probes answer 1 depend on each module's false positives.
    return [before_info[:2] + before_info[3:], len(chunks)]


def case_dump_plain(r):
    r.bf().create("p", 0.01, 10_000, noScale=True)
    r.bf().madd("p", *range(5000))
    # Absent probes too: a restored filter's false positives must be the original's.
    return round_trip(r, "p", list(range(10_000)))


def case_dump_scaling(r):
    r.bf().create("s", 0.01, 500)
    for start in range(0, 8000, 1000):
        r.bf().madd("s", *range(start, start + 1000))
    assert info(r, "s").filterNum == 5
    return round_trip(r, "s", list(range(10_000)))


def case_dump_large(r):
    # Above one chunk's 16 MiB in both modules (about 20 MB of wide blocks here, 18 MB in
    # RedisBloom's): a restore is several LOADCHUNKs of one sub-filter.
    r.bf().create("big", 0.001, 10_000_000, noScale=True)
    for start in range(0, 20_000, 2000):
        r.bf().madd("big", *range(start, start + 2000))
    chunks = dump(r, "big")
    total = sum(len(data) for _, data in chunks[1:])
    assert len(chunks) >= 3 and total > 16 << 20, (len(chunks), total)
    r.delete("big")
    restore(r, "big", chunks)
    assert dump(r, "big") == chunks, "the restored filter dumps other bytes"
    assert sum(answers(r, "big", list(range(20_000)))) == 20_000
    assert info_fields(r, "big") == [10_000_000, 1, 20_000, None]
    return [info_fields(r, "big")]


def case_loadchunk_errors(r):
    bf = r.bf()
    bf.create("src", 0.01, 1000)
    bf.madd("src", "a", "b")
    chunks = dump(r, "src")
    # A chunk before its header: the key does not exist yet.
    observed = [error_of(lambda: bf.loadchunk("dst", chunks[1][0], chunks[1][1]))]
    assert r.exists("dst") == 0
    observed.append(error_of(lambda: bf.loadchunk("dst", 1, b"not a header")))
    assert "received bad data" in observed[-1], observed
    return observed


def case_pipeline(r):
    # A transaction (MULTI/EXEC) through `pipeline().bf()`, with the same reply callbacks.
    pipe = r.pipeline()
    bf = pipe.bf()
    bf.create("t", 0.01, 1000)
    bf.add("t", "a")
    bf.madd("t", "a", "b")
    bf.mexists("t", "a", "b", "c")
    bf.info("t")
    bf.card("t")
    replies = pipe.execute()
    assert replies[:4] == [True, 1, [0, 1], [1, 1, 0]], replies
    parsed = replies[4]
    if isinstance(parsed, list):
        parsed = BFInfo(parsed)
    fields = [parsed.capacity, parsed.filterNum, parsed.insertedNum, parsed.expansionRate]
    assert fields == [1000, 1, 2, 2] and replies[5] == 2, replies
    return [replies[:4], fields, replies[5]]


def case_booleans(r):
    """What code written against current RedisBloom (2.6 and later, Redis 8) checks: over RESP3
    the predicates answer booleans (`is True`), over RESP2 the integers 1 and 0. RedisBloom
    2.4.23 answers integers over both, so this case runs on splitbloom alone."""
    protocol = r.connection_pool.connection_kwargs.get("protocol") or 2
    bf = r.bf()
    bf.create("b", 0.01, 1000)
    replies = [bf.add("b", "x"), bf.add("b", "x"), *bf.madd("b", "y", "y"), bf.exists("b", "x"),
               bf.exists("none", "x"), *bf.mexists("b", "y", "nope"),
               *bf.insert("b", ["z", "z"])]
    assert replies == [1, 0, 1, 0, 1, 0, 1, 0, 1, 0], replies
    kind = bool if int(protocol) == 3 else int
    assert all(type(reply) is kind for reply in replies), (protocol, replies)
    if kind is bool:
        assert replies[0] is True and replies[1] is False, replies
    assert type(bf.card("b")) is int
    return [replies]


def cf_info(r, key):
    """`CF.INFO key` parsed by redis-py's `CFInfo` (fed the flat array over RESP3, where
    redis-py registers no callback), every field but `size` and `bucketNum` (each module's
    own memory and layout)."""
    reply = r.cf().info(key)
    if isinstance(reply, list):
        reply = CFInfo(reply)
    assert isinstance(reply, CFInfo), reply
    assert isinstance(reply.size, int) and reply.size > 0, reply.size
    return [reply.filterNum, reply.insertedNum, reply.deletedNum, reply.bucketSize,
            reply.expansionRate, reply.maxIteration]


def case_cf_commands(r):
    cf = r.cf()
    assert cf.create("c", 1000) is True
    assert cf.reserve("e", 1000, expansion=2, bucket_size=4, max_iterations=50) is True
    exists = error_of(lambda: cf.create("c", 1000))
    assert "item exists" in exists, exists
    small = error_of(lambda: cf.create("d", 3))
    observed = [exists, small, cf_info(r, "c"), cf_info(r, "e")]
    assert observed[2] == [1, 0, 0, 2, 1, 20] and observed[3] == [1, 0, 0, 4, 2, 50], observed
    replies = [cf.add("c", "x"), cf.add("c", "x"), cf.addnx("c", "x"), cf.addnx("c", "y"),
               cf.count("c", "x"), cf.exists("c", "x"), cf.exists("c", "nope"),
               cf.mexists("c", "x", "y", "nope"), cf.insert("c", ["z", "z"]),
               cf.insertnx("c", ["z", "w"]), cf.delete("c", "x"), cf.count("c", "x"),
               cf.delete("c", "nope"), cf.exists("none", "x"), cf.count("none", "x")]
    assert replies == [1, 1, 0, 1, 2, 1, 0, [1, 1, 0], [1, 1], [0, 1], 1, 1, 0, 0, 0], replies
    observed += [replies, cf_info(r, "c")]
    assert observed[-1] == [1, 5, 1, 2, 1, 20], observed
    # A missing key: CF.ADD and CF.INSERT create it, NOCREATE refuses, CF.DEL says so.
    observed.append(cf.insert("auto", ["a"], capacity=5000))
    not_found = error_of(lambda: cf.insert("none", ["a"], nocreate=True))
    assert "not found" in not_found, not_found
    missing = error_of(lambda: cf.delete("none", "a"))
    assert "Not found" in missing, missing
    r.set("string", "v")
    wrong_type = error_of(lambda: cf.add("string", "x"))
    assert "WRONGTYPE" in wrong_type, wrong_type
    return observed + [not_found, missing, wrong_type]


def case_cf_dump(r):
    """redis-py's `scandump`/`loadchunk` loop over a filter that grew and had deletes."""
    cf = r.cf()
    cf.create("g", 100, expansion=2)
    for start in range(0, 3000, 500):
        cf.insert("g", [f"item-{n}" for n in range(start, start + 500)])
    cf.delete("g", "item-7")
    chunks = []
    iterator = 0
    while True:
        iterator, data = cf.scandump("g", iterator)
        if iterator == 0:
            break
        chunks.append((iterator, data))
    before = cf_info(r, "g")
    for iterator, data in chunks:
        cf.loadchunk("restored", iterator, data)
    probes = [f"item-{n}" for n in range(3000)]
    found = cf.mexists("restored", *probes)
    assert sum(found) >= 2999 and cf_info(r, "restored") == before, (sum(found), before)
    empty = cf.create("empty", 100) and cf.scandump("empty", 0)
    assert list(empty) == [0, None], empty
    # The filter's shape and counts, not its bytes or its false positives.
    return [before, list(empty)]


def case_cf_booleans(r):
    """Over RESP3 current RedisBloom answers CF.ADD, ADDNX, INSERT, EXISTS, MEXISTS and DEL
    with booleans, CF.INSERTNX and COUNT with integers; over RESP2 all integers."""
    protocol = r.connection_pool.connection_kwargs.get("protocol") or 2
    cf = r.cf()
    cf.create("b", 1000)
    predicates = [cf.add("b", "x"), cf.addnx("b", "x"), *cf.insert("b", ["y"]),
                  cf.exists("b", "x"), *cf.mexists("b", "x", "nope"), cf.delete("b", "x"),
                  cf.delete("b", "x")]
    assert predicates == [1, 0, 1, 1, 1, 0, 1, 0], predicates
    kind = bool if int(protocol) == 3 else int
    assert all(type(reply) is kind for reply in predicates), (protocol, predicates)
    integers = [*cf.insertnx("b", ["y", "z"]), cf.count("b", "y")]
    assert integers == [0, 1, 1] and all(type(n) is int for n in integers), integers
    return [predicates, integers]


CASES = [case_reserve, case_add_exists, case_insert, case_info, case_card, case_dump_plain,
         case_dump_scaling, case_dump_large, case_loadchunk_errors, case_pipeline, case_booleans,
         case_cf_commands, case_cf_dump, case_cf_booleans]

# Cases that check what only current RedisBloom sends, and so run on splitbloom alone.
SPLITBLOOM_ONLY = {case_booleans, case_cf_booleans}


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    # Absolute paths: each server runs in a directory of its own.
    modules = [("splitbloom", os.path.abspath(sys.argv[1]), ["BF_COMMANDS", "yes"])]
    if len(sys.argv) == 3:
        # The oracle first, so splitbloom's observations can be compared with its.
        modules.insert(0, ("RedisBloom", os.path.abspath(sys.argv[2]), []))
    else:
        print("RedisBloom not given: the oracle's cases and the comparison are SKIPPED")
    print(f"redis-py {redis.__version__}")
    passed = failed = 0
    oracle = {}
    for name, path, args in modules:
        server = Server(path, args)
        try:
            for protocol in (2, 3):
                r = server.client(protocol)
                for case in CASES:
                    if name == "RedisBloom" and case in SPLITBLOOM_ONLY:
                        continue
                    label = f"{name} RESP{protocol} {case.__name__}"
                    r.flushall()
                    try:
                        observed = case(r)
                        if name == "RedisBloom":
                            oracle[(protocol, case.__name__)] = observed
                        elif (protocol, case.__name__) in oracle:
                            expected = oracle[(protocol, case.__name__)]
                            assert observed == expected, \
                                f"observed {observed!r}, RedisBloom {expected!r}"
                        print(f"PASS {label}")
                        passed += 1
                    except Exception:
                        print(f"FAIL {label}\n{traceback.format_exc()}")
                        failed += 1
                r.close()
        finally:
            server.stop()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
