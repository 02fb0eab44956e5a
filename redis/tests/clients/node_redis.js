// node-redis's `client.bf` and `client.cf` commands against the module with `BF_COMMANDS yes`,
// and against RedisBloom 2.4.23, the oracle, in the same run, over RESP2 and RESP3 (`RESP: 3`):
// a smaller set than redis_py.py. Each case checks what RedisBloom documents and returns what
// it observed, apart from `size` and the dump's bytes; splitbloom's observations must equal
// RedisBloom's. The predicates' RESP3 booleans (`add`, `mAdd`, `insert`, `exists`, `mExists`,
// and the CF predicates, answer `true`/`false` as they are, which node-redis passes through
// unchanged over RESP3) are current RedisBloom's; RedisBloom 2.4.23 answers the integers 1 and
// 0 there, so those cases run on splitbloom only.
//
// Usage: node node_redis.js NODE_MODULES_PARENT SPLITBLOOM_MODULE [REDISBLOOM_MODULE]
// The last line is `N passed, N failed`; the exit status is 1 when anything failed.
"use strict";

const assert = require("node:assert/strict");
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const net = require("node:net");
const os = require("node:os");
const path = require("node:path");

const [nodeModulesParent, splitbloomModule, redisBloomModule] = process.argv.slice(2);
if (!splitbloomModule) {
  console.error("usage: node node_redis.js NODE_MODULES_PARENT SPLITBLOOM_MODULE [REDISBLOOM_MODULE]");
  process.exit(2);
}
const redis = require(path.resolve(nodeModulesParent, "node_modules", "redis"));
const { RESP_TYPES } = redis;

function freePort() {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function connect(port, protocol) {
  const client = redis.createClient({
    socket: { port, host: "127.0.0.1", reconnectStrategy: false },
    RESP: protocol,
  });
  client.on("error", () => {});
  return client;
}

async function startServer(module, moduleArgs) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "splitbloom-node-redis-"));
  const port = await freePort();
  const child = spawn(process.env.SPLITBLOOM_REDIS_SERVER || "redis-server", [
    "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
    "--dir", dir, "--logfile", "redis.log", "--loadmodule", module, ...moduleArgs,
  ], { stdio: "ignore" });
  const deadline = Date.now() + 20000;
  for (;;) {
    const client = connect(port, 2);
    try {
      await client.connect();
      return { child, dir, port, client };
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`redis-server did not start: ${error}\n${fs.readFileSync(path.join(dir, "redis.log"), "utf8")}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

async function errorOf(promise) {
  try {
    await promise;
  } catch (error) {
    return error.message;
  }
  throw new Error("expected an error reply");
}

// node-redis's `info` reply without `size` (each module's own memory): over RESP2 node-redis
// makes an object of the five fields; over RESP3 both modules answer a flat array (RedisBloom
// 2.4 sends no map), which node-redis passes through.
async function info(client, key) {
  let parsed = await client.bf.info(key);
  if (Array.isArray(parsed)) {
    const fields = Object.create(null);
    for (let n = 0; n < parsed.length; n += 2) fields[parsed[n].toString()] = parsed[n + 1];
    parsed = fields;
  }
  assert.deepEqual(Object.keys(parsed),
    ["Capacity", "Size", "Number of filters", "Number of items inserted", "Expansion rate"]);
  const size = parsed.Size;
  assert.ok(Number.isInteger(size) && size > 0, `size ${size}`);
  return [parsed.Capacity, parsed["Number of filters"], parsed["Number of items inserted"],
    parsed["Expansion rate"]];
}

// The SCANDUMP loop as node-redis documents it, with the chunks as bytes (a type mapping).
async function dump(client, key) {
  const bytes = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
  const chunks = [];
  let iterator = 0;
  for (;;) {
    const reply = await bytes.bf.scanDump(key, iterator);
    iterator = reply.iterator;
    if (iterator === 0) return chunks;
    chunks.push(reply);
  }
}

// The predicates' answers as a number (1, 0) or a boolean, whichever the client was given.
function kind(value) {
  return Array.isArray(value) ? value.map(kind) : typeof value;
}

const cases = {
  async reserve(client) {
    assert.equal(await client.bf.reserve("a", 0.01, 1000), "OK");
    assert.equal(await client.bf.reserve("b", 0.001, 500, { EXPANSION: 4 }), "OK");
    assert.equal(await client.bf.reserve("c", 0.01, 100, { NONSCALING: true }), "OK");
    const exists = await errorOf(client.bf.reserve("a", 0.01, 1000));
    assert.match(exists, /item exists/);
    return [exists, await info(client, "a"), await info(client, "b"), await info(client, "c")];
  },

  // Over RESP2 node-redis turns the integers into booleans; over RESP3 it passes the reply
  // through, so the answers are booleans only from a module that sends them (the next case).
  async addExists(client, protocol) {
    const truth = (value) => (protocol === 3 ? value === true || value === 1 : value);
    await client.bf.reserve("f", 0.01, 1000);
    const replies = [await client.bf.add("f", "x"), await client.bf.add("f", "x"),
      await client.bf.mAdd("f", ["y", "x", "z"])];
    assert.deepEqual([truth(replies[0]), truth(replies[1]), replies[2].map(truth)],
      [true, false, [true, false, true]]);
    const present = [await client.bf.exists("f", "x"), await client.bf.exists("f", "nope"),
      await client.bf.mExists("f", ["y", "nope", "z"]), await client.bf.exists("none", "x")];
    assert.deepEqual([truth(present[0]), truth(present[1]), present[2].map(truth), truth(present[3])],
      [true, false, [true, false, true], false]);
    assert.equal(truth(await client.bf.add("auto", "x")), true);
    const auto = await info(client, "auto");
    assert.deepEqual(auto, [100, 1, 1, 2]);
    return [auto];
  },

  // What code written against current RedisBloom checks over RESP3: `=== true`.
  async booleansOverResp3(client, protocol) {
    await client.bf.reserve("f", 0.01, 1000);
    const replies = [await client.bf.add("f", "x"), await client.bf.add("f", "x"),
      await client.bf.mAdd("f", ["y", "x"]), await client.bf.exists("f", "x"),
      await client.bf.exists("none", "x"), await client.bf.mExists("f", ["y", "nope"]),
      await client.bf.insert("f", ["z", "z"])];
    assert.deepEqual(replies, [true, false, [true, false], true, false, [true, false],
      [true, false]]);
    // Over RESP3 the booleans come as they are sent; over RESP2 node-redis makes them of 1/0.
    const raw = await client.sendCommand(["BF.MEXISTS", "f", "x", "nope"]);
    assert.deepEqual(kind(raw), protocol === 3 ? ["boolean", "boolean"] : ["number", "number"]);
    assert.equal(typeof await client.bf.card("f"), "number");
    return [replies];
  },

  async infoScaling(client) {
    await client.bf.reserve("s", 0.01, 100);
    await client.bf.mAdd("s", Array.from({ length: 1000 }, (_, n) => `key-${n}`));
    const [capacity, filters, items, expansion] = await info(client, "s");
    assert.deepEqual([capacity, filters, expansion], [1500, 4, 2]);
    assert.ok(items >= 980 && items <= 1000, `items ${items}`);
    await client.bf.reserve("n", 0.01, 100, { NONSCALING: true });
    const nonscaling = await info(client, "n");
    assert.deepEqual(nonscaling, [100, 1, 0, null]);
    // The item count depends on false positives, so it is not compared.
    return [capacity, filters, expansion, nonscaling];
  },

  async scanDumpLoadChunk(client) {
    await client.bf.reserve("s", 0.01, 500);
    const keys = Array.from({ length: 8000 }, (_, n) => `k${n}`);
    await client.bf.mAdd("s", keys);
    const probes = keys.concat(Array.from({ length: 2000 }, (_, n) => `absent${n}`));
    const before = [await info(client, "s"), await client.bf.mExists("s", probes)];
    const chunks = await dump(client, "s");
    assert.ok(chunks.length >= 2);
    await client.del("s");
    for (const { iterator, chunk } of chunks) {
      assert.equal(await client.bf.loadChunk("s", iterator, chunk), "OK");
    }
    const after = await dump(client, "s");
    assert.equal(after.length, chunks.length);
    after.forEach((pair, n) => {
      assert.equal(pair.iterator, chunks[n].iterator);
      assert.ok(pair.chunk.equals(chunks[n].chunk), `chunk ${n} differs after the restore`);
    });
    assert.deepEqual([await info(client, "s"), await client.bf.mExists("s", probes)], before);
    const [capacity, filters, , expansion] = before[0];
    return [capacity, filters, expansion, chunks.length];
  },

  // `client.cf`, every command node-redis has for it. Over RESP2 node-redis makes the
  // predicates' 1/0 booleans (and a refused INSERT item's -1 false); over RESP3 it passes the
  // reply through, so the answers are compared as truth values.
  async cfCommands(client, protocol) {
    const truth = (value) => (protocol === 3 ? value === true || value === 1 : value);
    assert.equal(await client.cf.reserve("c", 1000,
      { BUCKETSIZE: 2, MAXITERATIONS: 20, EXPANSION: 1 }), "OK");
    const exists = await errorOf(client.cf.reserve("c", 1000));
    assert.match(exists, /item exists/);
    const adds = [await client.cf.add("c", "x"), await client.cf.add("c", "x"),
      await client.cf.addNX("c", "x"), await client.cf.addNX("c", "y")];
    const inserts = [await client.cf.insert("c", ["z", "w"]),
      await client.cf.insertNX("c", ["z", "v"]), await client.cf.insert("new", ["a"], { CAPACITY: 500 })];
    const present = [await client.cf.exists("c", "x"), await client.cf.exists("c", "nope"),
      await client.cf.exists("none", "x")];
    const counts = [await client.cf.count("c", "x"), await client.cf.count("none", "x")];
    const deletes = [await client.cf.del("c", "x"), await client.cf.del("c", "x"),
      await client.cf.del("c", "x")];
    const missing = [await errorOf(client.cf.insert("none", ["x"], { NOCREATE: true })),
      await errorOf(client.cf.del("none", "x"))];
    const observed = [adds.map(truth), inserts.map((answers) => answers.map(truth)),
      present.map(truth), counts, deletes.map(truth), missing];
    assert.deepEqual(observed.slice(0, 5), [[true, true, false, true],
      [[true, true], [false, true], [true]], [true, false, false], [2, 0], [true, true, false]]);
    assert.match(missing[0], /not found/);
    assert.match(missing[1], /Not found/);
    // CF.INFO without Size and Number of buckets (each module's own memory and layout).
    let info = await client.cf.info("c");
    if (Array.isArray(info)) {
      const fields = Object.create(null);
      for (let n = 0; n < info.length; n += 2) fields[info[n].toString()] = info[n + 1];
      info = fields;
    }
    const { Size: size, "Number of buckets": buckets, ...rest } = info;
    assert.ok(Number.isInteger(size) && Number.isInteger(buckets), `${size} ${buckets}`);
    return [exists, observed, rest];
  },

  // The scanDump/loadChunk loop over a filter that grew and had deletes: the restored filter
  // dumps the same chunks and answers the same.
  async cfScanDumpLoadChunk(client) {
    await client.cf.reserve("s", 100, { EXPANSION: 2 });
    const keys = Array.from({ length: 2000 }, (_, n) => `k${n}`);
    for (let n = 0; n < keys.length; n += 500) await client.cf.insert("s", keys.slice(n, n + 500));
    await client.cf.del("s", "k7");
    const probes = keys.concat(Array.from({ length: 500 }, (_, n) => `absent${n}`));
    const lookups = () => client.sendCommand(["CF.MEXISTS", "s", ...probes]);
    const bytes = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
    const chunks = [];
    for (let iterator = 0; ;) {
      const reply = await bytes.cf.scanDump("s", iterator);
      iterator = reply.iterator;
      if (iterator === 0) break;
      chunks.push(reply);
    }
    assert.ok(chunks.length >= 2);
    const before = await lookups();
    await client.del("s");
    for (const { iterator, chunk } of chunks) {
      assert.equal(await client.cf.loadChunk("s", iterator, chunk), "OK");
    }
    assert.deepEqual(await lookups(), before);
    const found = before.filter((answer) => answer === 1 || answer === true).length;
    assert.ok(found >= keys.length - 1, `${found} found`);
    return [chunks.length > 1];
  },

  // What code written against current RedisBloom checks over RESP3: the CF predicates are
  // booleans as they come, CF.INSERTNX and CF.COUNT integers.
  async cfBooleansOverResp3(client, protocol) {
    await client.cf.reserve("c", 1000);
    const raw = [await client.sendCommand(["CF.ADD", "c", "x"]),
      await client.sendCommand(["CF.ADDNX", "c", "x"]),
      await client.sendCommand(["CF.INSERT", "c", "ITEMS", "y"]),
      await client.sendCommand(["CF.EXISTS", "c", "x"]),
      await client.sendCommand(["CF.MEXISTS", "c", "x", "nope"]),
      await client.sendCommand(["CF.DEL", "c", "x"])];
    const want = protocol === 3 ? "boolean" : "number";
    assert.deepEqual(kind(raw), [want, want, [want], want, [want, want], want]);
    const integers = [await client.sendCommand(["CF.INSERTNX", "c", "ITEMS", "z"]),
      await client.sendCommand(["CF.COUNT", "c", "y"])];
    assert.deepEqual(kind(integers), [["number"], "number"]);
    assert.deepEqual([await client.cf.add("c", "w"), await client.cf.exists("c", "w")],
      [true, true]);
    return [raw];
  },
};

// Cases that check what only current RedisBloom sends, and so run on splitbloom alone.
const SPLITBLOOM_ONLY = new Set(["booleansOverResp3", "cfBooleansOverResp3"]);

async function main() {
  const modules = [["splitbloom", path.resolve(splitbloomModule), ["BF_COMMANDS", "yes"]]];
  if (redisBloomModule) {
    // The oracle first, so splitbloom's observations can be compared with its.
    modules.unshift(["RedisBloom", path.resolve(redisBloomModule), []]);
  } else {
    console.log("RedisBloom not given: the oracle's cases and the comparison are SKIPPED");
  }
  const version = require(path.resolve(nodeModulesParent, "node_modules", "redis", "package.json")).version;
  console.log(`node-redis ${version}`);
  const oracle = {};
  let passed = 0;
  let failed = 0;
  for (const [name, module, args] of modules) {
    const server = await startServer(module, args);
    try {
      for (const protocol of [2, 3]) {
        const client = connect(server.port, protocol);
        await client.connect();
        for (const [caseName, run] of Object.entries(cases)) {
          if (name === "RedisBloom" && SPLITBLOOM_ONLY.has(caseName)) continue;
          const label = `${name} RESP${protocol} ${caseName}`;
          await client.flushAll();
          try {
            const observed = await run(client, protocol);
            const key = `${protocol} ${caseName}`;
            if (name === "RedisBloom") oracle[key] = observed;
            else if (key in oracle) assert.deepEqual(observed, oracle[key], "differs from RedisBloom");
            console.log(`PASS ${label}`);
            passed++;
          } catch (error) {
            console.log(`FAIL ${label}\n${error.stack}`);
            failed++;
          }
        }
        await client.quit();
      }
    } finally {
      await server.client.quit();
      server.child.kill("SIGKILL");
      fs.rmSync(server.dir, { recursive: true, force: true });
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

main().catch((error) => {
  console.log(`${error.stack}\n0 passed, 1 failed`);
  process.exitCode = 1;
});
