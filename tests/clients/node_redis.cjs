'use strict';
/**
 * Drives redis-bf through node-redis's RedisBloom APIs, as Node.js applications do: the `redis`
 * package 6.3.1, which bundles @redis/bloom (client.bf, client.cf, client.cms, client.topK and
 * client.tDigest), every command each of them exposes, in RESP2 and in RESP3.
 *
 * The expected values are what node-redis users get from RedisBloom: node-redis's own tests
 * (packages/bloom/lib/commands/<family>/<COMMAND>.spec.ts, run with RESP3 against RedisBloom),
 * made exact with RedisBloom 2.8.2's replies where those only check a type.
 *
 * Run by tests/clients.rs with the port of a server it started: node node_redis.cjs PORT MAPS,
 * MAPS being "maps", or "flat" on servers whose modules cannot send RESP3 maps and booleans
 * (Redis 6.x). node-redis transforms RESP2 replies (1 → true, INFO arrays → objects) but passes
 * RESP3 ones through as they come, so there its users get integers for booleans and the INFO
 * replies as flat arrays, from RedisBloom too. `redis` is found through NODE_PATH.
 * Exits non-zero, naming the failed check, if any reply differs; prints nothing on success.
 */
const assert = require('node:assert/strict');
const { inspect } = require('node:util');
const { createClient, ErrorReply, RESP_TYPES } = require('redis');

class Failure extends Error {}

/** One connection's checks: `label` names them in failures. */
class Checks {
  constructor(resp, maps) {
    this.resp = resp;
    this.label = `RESP${resp}`;
    // RESP3 where modules cannot send maps or booleans: replies reach the user untransformed.
    this.flat = resp === 3 && !maps;
  }

  /** A boolean as node-redis hands it over: an integer in flat RESP3. */
  bool(b) {
    return this.flat ? Number(b) : b;
  }

  /** An INFO reply with `fields` as node-redis hands it over: a flat array in flat RESP3. */
  infoReply(fields) {
    return this.flat ? Object.entries(fields).flat() : fields;
  }

  fail(what, message) {
    throw new Failure(`${this.label}: ${what}: ${message}`);
  }

  same(what, got, expected) {
    try {
      assert.deepStrictEqual(got, expected); // NaN equals NaN; Buffers compare by content
    } catch {
      this.fail(what, `got ${show(got)}, expected ${show(expected)}`);
    }
  }

  /** The reply of `promise`; a failed command fails the check `what`. */
  async reply(what, promise) {
    try {
      return await promise;
    } catch (e) {
      return this.fail(what, `failed: ${e instanceof ErrorReply ? e.message : e}`);
    }
  }

  async eq(what, promise, expected) {
    this.same(what, await this.reply(what, promise), expected);
  }

  /** The command fails with the error reply `message`, as node-redis words it. */
  async err(what, promise, message) {
    let got;
    try {
      got = await promise;
    } catch (e) {
      if (!(e instanceof ErrorReply)) this.fail(what, `failed without an error reply: ${e}`);
      this.same(what, e.message, message);
      return;
    }
    this.fail(what, `got ${show(got)}, expected the error ${show(message)}`);
  }

  /**
   * An INFO reply: an object (not an array, not a Map) with `expected`'s fields in its order,
   * or in flat RESP3 the same as a flat array. `loose` fields (sizes in memory, which are
   * redis-bf's own) need only be positive numbers.
   */
  async info(what, promise, expected, loose = []) {
    const reply = await this.reply(what, promise);
    let fields = reply;
    if (this.flat) {
      if (!Array.isArray(reply)) this.fail(what, `got ${show(reply)}, expected a flat array`);
      fields = {};
      for (let i = 0; i < reply.length; i += 2) fields[reply[i]] = reply[i + 1];
    } else if (!isPlainObject(reply)) {
      this.fail(what, `got ${show(reply)}, expected a plain object`);
    }
    this.same(`${what} fields`, Object.keys(fields), Object.keys(expected));
    for (const name of loose) {
      if (typeof fields[name] !== 'number' || !(fields[name] > 0)) {
        this.fail(what, `${name} is ${show(fields[name])}, expected a positive number`);
      }
      fields = { ...fields, [name]: expected[name] };
    }
    this.same(what, fields, expected);
  }
}

function isPlainObject(value) {
  const object = typeof value === 'object' && value !== null;
  return object && !Array.isArray(value) && !(value instanceof Map);
}

function show(value) {
  return inspect(value, { breakLength: Infinity, depth: 4 });
}

/**
 * Every chunk of a SCANDUMP, `api` being client.bf or client.cf of a Buffer-mapped client; the
 * reply with iterator 0 that ends it carries `last`.
 */
async function scanDump(t, what, api, key, last) {
  const chunks = [];
  for (let it = 0; ;) {
    const { iterator, chunk } = await t.reply(what, api.scanDump(key, it));
    if (typeof iterator !== 'number') t.fail(what, `iterator ${show(iterator)}, expected a number`);
    if (iterator === 0) {
      t.same(`${what}: the last chunk`, chunk, last);
      return chunks;
    }
    if (!Buffer.isBuffer(chunk)) t.fail(what, `chunk ${show(chunk)}, expected a Buffer`);
    chunks.push({ iterator, chunk });
    it = iterator;
  }
}

const WRONGTYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value';
const BINARY = Buffer.from([0, 255, 10, 13]);

/** Items and increments as CMS.INCRBY and TOPK.INCRBY take them. */
function increments(pairs) {
  return pairs.map(([item, incrementBy]) => ({ item, incrementBy }));
}

async function checkBloom(t, client, bin) {
  const bf = client.bf;
  const B = (b) => t.bool(b);
  await t.eq('BF.RESERVE', bf.reserve('seen', 0.01, 1000), 'OK');
  await t.err('BF.RESERVE of an existing key', bf.reserve('seen', 0.01, 1000), 'ERR item exists');
  await t.eq('BF.RESERVE EXPANSION', bf.reserve('wide', 0.001, 100, { EXPANSION: 4 }), 'OK');
  await t.eq('BF.RESERVE NONSCALING', bf.reserve('fixed', 0.01, 100, { NONSCALING: true }), 'OK');
  // Keys that do not exist yet: BF.ADD, BF.MADD and BF.INSERT create them with the defaults.
  await t.eq('BF.ADD creating a filter', bf.add('auto', 'item'), B(true));
  await t.eq('BF.MADD creating a filter', bf.mAdd('auto-madd', ['1', '2']), [B(true), B(true)]);
  await t.eq('BF.INSERT creating a filter', bf.insert('auto-insert', 'item'), [B(true)]);
  await t.eq('BF.CARD of a missing key', bf.card('missing'), 0);
  await t.eq('BF.EXISTS on a missing key', bf.exists('missing', 'x'), B(false));
  await t.eq('BF.ADD', bf.add('seen', 'user:42'), B(true));
  await t.eq('BF.ADD again', bf.add('seen', 'user:42'), B(false));
  const madd = bf.mAdd('seen', ['a', 'b', 'user:42']);
  await t.eq('BF.MADD', madd, [B(true), B(true), B(false)]);
  await t.eq('BF.ADD binary', bf.add('seen', BINARY), B(true));
  await t.eq('BF.EXISTS', bf.exists('seen', 'a'), B(true));
  await t.eq('BF.EXISTS absent', bf.exists('seen', 'zzz'), B(false));
  await t.eq('BF.EXISTS binary', bf.exists('seen', BINARY), B(true));
  await t.eq('BF.MEXISTS', bf.mExists('seen', ['a', 'zzz']), [B(true), B(false)]);
  await t.eq('BF.CARD', bf.card('seen'), 4);
  const insert = bf.insert('ins', ['x', 'y'], { CAPACITY: 2, NONSCALING: true });
  await t.eq('BF.INSERT', insert, [B(true), B(true)]);
  // A full non-scaling filter: the error is an element of the array, which node-redis's RESP2
  // transform turns into false and RESP3 leaves as an ErrorReply.
  const full = await t.reply('BF.INSERT into a full filter', bf.insert('ins', 'z'));
  if (t.resp === 2) {
    t.same('BF.INSERT into a full filter', full, [false]);
  } else if (!(full.length === 1 && full[0] instanceof ErrorReply)) {
    t.fail('BF.INSERT into a full filter', `got ${show(full)}, expected one error reply`);
  } else {
    t.same('BF.INSERT into a full filter', full[0].message, 'ERR non scaling filter is full');
  }
  await t.err('BF.ADD to a full filter', bf.add('ins', 'z'), 'ERR non scaling filter is full');
  const nocreate = bf.insert('missing', 'x', { NOCREATE: true });
  await t.err('BF.INSERT NOCREATE', nocreate, 'ERR not found');
  const options = { CAPACITY: 100, ERROR: 0.001, EXPANSION: 1 };
  await t.eq('BF.INSERT with options', bf.insert('opts', ['p', 'q'], options), [B(true), B(true)]);
  await t.err('CF.ADD to a Bloom filter', client.cf.add('seen', 'x'), WRONGTYPE);
  // BF.MERGE (ours) has no node-redis method: sendCommand.
  await t.eq('BF.RESERVE for a merge', bf.reserve('more', 0.01, 1000), 'OK');
  await t.eq('BF.MERGE', client.sendCommand(['BF.MERGE', 'merged', '2', 'seen', 'more']), 'OK');
  await t.eq('BF.MEXISTS of the union', bf.mExists('merged', ['a', 'zzz']), [B(true), B(false)]);
  const info = (capacity, size, items, expansion) => ({
    Capacity: capacity,
    Size: size,
    'Number of filters': 1,
    'Number of items inserted': items,
    'Expansion rate': expansion
  });
  await t.info('BF.INFO', bf.info('seen'), info(1000, 1480, 4, 2));
  await t.info('BF.INFO EXPANSION', bf.info('wide'), info(100, 296, 0, 4));
  await t.info('BF.INFO NONSCALING', bf.info('fixed'), info(100, 216, 0, null));
  await t.info('BF.INFO of BF.INSERT options', bf.info('opts'), info(100, 296, 2, 1));
  await t.info('BF.INFO with Buffers', bin.bf.info('ins'), info(2, 104, 2, null));
  await t.info('BF.INFO of defaults', bf.info('auto'), info(100, 240, 1, 2));
  await t.err('BF.INFO of a missing key', bf.info('missing'), 'ERR not found');
  // The default type mapping decodes chunks as UTF-8 strings (node-redis's SCANDUMP spec);
  // moving a filter takes Buffers, as its LOADCHUNK spec does.
  const first = await t.reply('BF.SCANDUMP as text', bf.scanDump('seen', 0));
  const types = [typeof first.iterator, typeof first.chunk];
  t.same('BF.SCANDUMP as text', types, ['number', 'string']);
  const chunks = await scanDump(t, 'BF.SCANDUMP', bin.bf, 'seen', Buffer.alloc(0));
  t.same('BF.SCANDUMP chunk count', chunks.length, 2);
  for (const { iterator, chunk } of chunks) {
    await t.eq('BF.LOADCHUNK', bin.bf.loadChunk('bf-copy', iterator, chunk), 'OK');
  }
  const copied = bf.mExists('bf-copy', ['a', 'b', 'user:42', BINARY, 'zzz']);
  await t.eq('BF.MEXISTS on the copy', copied, [B(true), B(true), B(true), B(true), B(false)]);
  const again = await scanDump(t, 'BF.SCANDUMP of the copy', bin.bf, 'bf-copy', Buffer.alloc(0));
  t.same('BF.SCANDUMP of the copy', again, chunks);
  await t.eq('BF.CARD of the copy', bf.card('bf-copy'), 4);
  // Pipelined (node-redis's specs send their commands so) and in a transaction, where node-redis
  // applies the same reply transforms.
  const piped = [bf.reserve('piped', 0.01, 100), bf.add('piped', 'a'), bf.exists('piped', 'a')];
  await t.eq('pipelined', Promise.all(piped), ['OK', B(true), B(true)]);
  const multi = client.multi().bf.add('tx', 'a').bf.mExists('tx', ['a', 'b']);
  const replies = [B(true), [B(true), B(false)], 1, t.infoReply(info(100, 240, 1, 2))];
  await t.eq('MULTI', multi.bf.card('tx').bf.info('tx').exec(), replies);
}

async function checkCuckoo(t, client, bin) {
  const cf = client.cf;
  const B = (b) => t.bool(b);
  await t.eq('CF.ADD creating a filter', cf.add('cf-auto', 'item'), B(true));
  await t.eq('CF.INSERT creating a filter', cf.insert('cf-auto-insert', 'item'), [B(true)]);
  await t.eq('CF.INSERTNX creating a filter', cf.insertNX('cf-auto-insertnx', 'item'), [1]);
  await t.eq('CF.RESERVE', cf.reserve('cuckoo', 1000), 'OK');
  const options = { BUCKETSIZE: 4, MAXITERATIONS: 10, EXPANSION: 1 };
  await t.eq('CF.RESERVE with options', cf.reserve('tuned', 1000, options), 'OK');
  await t.err('CF.RESERVE of an existing key', cf.reserve('cuckoo', 1000), 'ERR item exists');
  const empty = { iterator: 0, chunk: null };
  await t.eq('CF.SCANDUMP of an empty filter', cf.scanDump('cuckoo', 0), empty);
  await t.eq('CF.ADD', cf.add('cuckoo', 'filter'), B(true));
  await t.eq('CF.ADDNX of a present item', cf.addNX('cuckoo', 'filter'), B(false));
  await t.eq('CF.ADDNX', cf.addNX('cuckoo', 'newItem'), B(true));
  await t.eq('CF.INSERT', cf.insert('captest', 'foo'), [B(true)]);
  await t.eq('CF.INSERT CAPACITY', cf.insert('captest', ['foo'], { CAPACITY: 1000 }), [B(true)]);
  await t.eq('CF.INSERTNX', cf.insertNX('captest', 'bar'), [1]);
  await t.eq('CF.INSERTNX NOCREATE', cf.insertNX('captest', ['food'], { NOCREATE: true }), [1]);
  const present = cf.insertNX('captest', ['bar', 'food', 'baz']);
  await t.eq('CF.INSERTNX of present items', present, [0, 0, 1]);
  await t.eq('CF.ADD binary', cf.add('captest', BINARY), B(true));
  const nocreate = { NOCREATE: true };
  await t.err('CF.INSERT NOCREATE', cf.insert('missing', 'x', nocreate), 'ERR not found');
  await t.err('CF.INSERTNX NOCREATE', cf.insertNX('missing', 'x', nocreate), 'ERR not found');
  await t.eq('CF.EXISTS', cf.exists('captest', 'foo'), B(true));
  await t.eq('CF.EXISTS absent', cf.exists('captest', 'noexist'), B(false));
  await t.eq('CF.EXISTS on a missing key', cf.exists('missing', 'x'), B(false));
  await t.eq('CF.MEXISTS', cf.mExists('captest', ['foo', 'noexist']), [B(true), B(false)]);
  await t.eq('CF.COUNT', cf.count('captest', 'foo'), 2);
  await t.eq('CF.COUNT on a missing key', cf.count('missing', 'foo'), 0);
  // CF.MERGE (ours) has no node-redis method: sendCommand.
  await t.eq('CF.MERGE', client.sendCommand(['CF.MERGE', 'cfunion', '2', 'captest', 'captest']), 'OK');
  await t.eq('CF.COUNT of the union', cf.count('cfunion', 'foo'), 4);
  await t.eq('CF.DEL', cf.del('captest', 'bar'), B(true));
  await t.eq('CF.COUNT after CF.DEL', cf.count('captest', 'bar'), 0);
  await t.eq('CF.DEL of an absent item', cf.del('captest', 'bar'), B(false));
  await t.err('CF.DEL on a missing key', cf.del('missing', 'x'), 'Not found');
  await t.err('BF.ADD to a Cuckoo filter', client.bf.add('captest', 'x'), WRONGTYPE);
  const info = (size, buckets, inserted, deleted, bucketSize, expansion, iterations) => ({
    Size: size,
    'Number of buckets': buckets,
    'Number of filters': 1,
    'Number of items inserted': inserted,
    'Number of items deleted': deleted,
    'Bucket size': bucketSize,
    'Expansion rate': expansion,
    'Max iterations': iterations
  });
  await t.info('CF.INFO', cf.info('captest'), info(1080, 512, 5, 1, 2, 1, 20));
  await t.info('CF.INFO with options', cf.info('tuned'), info(1080, 256, 0, 0, 4, 1, 10));
  await t.info('CF.INFO of defaults', cf.info('cf-auto'), info(1080, 512, 1, 0, 2, 1, 20));
  await t.err('CF.INFO of a missing key', cf.info('missing'), 'ERR not found');
  const chunks = await scanDump(t, 'CF.SCANDUMP', bin.cf, 'captest', null);
  t.same('CF.SCANDUMP chunk count', chunks.length, 2);
  for (const { iterator, chunk } of chunks) {
    await t.eq('CF.LOADCHUNK', bin.cf.loadChunk('cf-copy', iterator, chunk), 'OK');
  }
  const copied = cf.mExists('cf-copy', ['foo', 'food', 'baz', BINARY, 'bar']);
  await t.eq('CF.MEXISTS on the copy', copied, [B(true), B(true), B(true), B(true), B(false)]);
  const again = await scanDump(t, 'CF.SCANDUMP of the copy', bin.cf, 'cf-copy', null);
  t.same('CF.SCANDUMP of the copy', again, chunks);
  // A full filter that may not grow.
  await t.eq('CF.RESERVE EXPANSION 0', cf.reserve('full', 4, { EXPANSION: 0 }), 'OK');
  for (const item of ['1', '2', '3', '4']) {
    await t.eq(`CF.ADD ${item}`, cf.add('full', item), B(true));
  }
  // RESP2's -1 is not 1: false; RESP3 sends false, or -1 where modules have no booleans.
  const noRoom = t.flat ? -1 : false;
  await t.eq('CF.INSERT into a full filter', cf.insert('full', ['5', '6']), [noRoom, noRoom]);
  await t.eq('CF.INSERTNX into a full filter', cf.insertNX('full', '5'), [-1]);
  await t.err('CF.ADD to a full filter', cf.add('full', '5'), 'Filter is full');
}

async function checkCountMin(t, client) {
  const cms = client.cms;
  await t.eq('CMS.INITBYDIM', cms.initByDim('dim', 1000, 5), 'OK');
  await t.eq('CMS.INITBYPROB', cms.initByProb('prob', 0.01, 0.01), 'OK');
  const exists = 'CMS: key already exists';
  await t.err('CMS.INITBYDIM of an existing key', cms.initByDim('dim', 10, 5), exists);
  await t.err('CMS.INITBYDIM width 0', cms.initByDim('bad', 0, 5), 'CMS: invalid width');
  const byProb = { width: 200, depth: 7, count: 0, cell_size: 4 };
  await t.info('CMS.INFO of CMS.INITBYPROB', cms.info('prob'), byProb);
  await t.eq('CMS.INCRBY', cms.incrBy('dim', { item: 'foo', incrementBy: 5 }), [5]);
  await t.eq('CMS.QUERY of an absent item', cms.query('dim', 'notexist'), [0]);
  await t.eq('CMS.QUERY', cms.query('dim', 'foo'), [5]);
  const several = increments([['foo', 5], ['bar', 15]]);
  await t.eq('CMS.INCRBY of several items', cms.incrBy('dim', several), [10, 15]);
  await t.eq('CMS.QUERY of several items', cms.query('dim', ['foo', 'bar']), [10, 15]);
  // Redis 8.12's CMS: a negative increment subtracts.
  const negative = cms.incrBy('dim', { item: 'foo', incrementBy: -1 });
  await t.eq('CMS.INCRBY by a negative number', negative, [9]);
  const missing = 'CMS: key does not exist';
  const one = { item: 'a', incrementBy: 1 };
  await t.err('CMS.INCRBY on a missing key', cms.incrBy('missing', one), missing);
  await t.err('CMS.QUERY on a missing key', cms.query('missing', 'a'), missing);
  await t.info('CMS.INFO', cms.info('dim'), { width: 1000, depth: 5, count: 24, cell_size: 4 });
  for (const key of ['A', 'B', 'C']) {
    await t.eq(`CMS.INITBYDIM ${key}`, cms.initByDim(key, 1000, 5), 'OK');
  }
  const a = increments([['foo', 5], ['bar', 3], ['baz', 9]]);
  const b = increments([['foo', 2], ['bar', 3], ['baz', 1]]);
  await t.eq('CMS.INCRBY A', cms.incrBy('A', a), [5, 3, 9]);
  await t.eq('CMS.INCRBY B', cms.incrBy('B', b), [2, 3, 1]);
  const items = ['foo', 'bar', 'baz'];
  await t.eq('CMS.MERGE', cms.merge('C', ['A', 'B']), 'OK');
  await t.eq('CMS.QUERY of CMS.MERGE', cms.query('C', items), [7, 6, 10]);
  const weights = (x, y) => [{ name: 'A', weight: x }, { name: 'B', weight: y }];
  await t.eq('CMS.MERGE WEIGHTS 1 2', cms.merge('C', weights(1, 2)), 'OK');
  await t.eq('CMS.QUERY of CMS.MERGE WEIGHTS 1 2', cms.query('C', items), [9, 9, 11]);
  await t.eq('CMS.MERGE WEIGHTS 2 3', cms.merge('C', weights(2, 3)), 'OK');
  await t.eq('CMS.QUERY of CMS.MERGE WEIGHTS 2 3', cms.query('C', items), [16, 15, 21]);
  await t.info('CMS.INFO of CMS.MERGE', cms.info('C'), { width: 1000, depth: 5, count: 52, cell_size: 4 });
  await t.err('CMS.MERGE into a missing key', cms.merge('missing', ['A']), missing);
  const unequal = 'CMS: width/depth is not equal';
  await t.err('CMS.MERGE of other dimensions', cms.merge('C', ['dim', 'prob']), unequal);
  // Redis 8.12's cell sizes, through node-redis's CELL_SIZE option.
  await t.eq('CMS.INITBYDIM CELL_SIZE 1', cms.initByDim('bytes', 1000, 5, { CELL_SIZE: 1 }), 'OK');
  await t.eq('CMS.INITBYPROB CELL_SIZE 8', cms.initByProb('eightbytes', 0.01, 0.01, { CELL_SIZE: 8 }), 'OK');
  await t.info('CMS.INFO of CELL_SIZE 1', cms.info('bytes'), { width: 1000, depth: 5, count: 0, cell_size: 1 });
  await t.info('CMS.INFO of CELL_SIZE 8', cms.info('eightbytes'), { width: 200, depth: 7, count: 0, cell_size: 8 });
  await t.eq('CMS.INCRBY to a one-byte maximum', cms.incrBy('bytes', { item: 'a', incrementBy: 255 }), [255]);
  const otherCells = 'CMS: cell_size is not equal';
  await t.err('CMS.MERGE of other cell sizes', cms.merge('bytes', ['A']), otherCells);
}

async function checkTopK(t, client) {
  const topK = client.topK;
  const B = (b) => t.bool(b);
  await t.eq('TOPK.RESERVE', topK.reserve('fresh', 3), 'OK');
  const defaults = { k: 3, width: 8, depth: 7, decay: 0.9 };
  await t.info('TOPK.INFO of defaults', topK.info('fresh'), defaults);
  await t.eq('TOPK.LIST of an empty Top-K', topK.list('fresh'), []);
  await t.eq('TOPK.LIST WITHCOUNT of an empty Top-K', topK.listWithCount('fresh'), []);
  await t.eq('TOPK.QUERY of an empty Top-K', topK.query('fresh', 'item'), [B(false)]);
  await t.eq('TOPK.COUNT of an empty Top-K', topK.count('fresh', 'item'), [0]);
  await t.eq('TOPK.ADD', topK.add('fresh', 'item'), [null]);
  const listed = [{ item: 'item', count: 1 }];
  await t.eq('TOPK.LIST WITHCOUNT', topK.listWithCount('fresh'), listed);
  const exists = 'TopK: key already exists';
  await t.err('TOPK.RESERVE of an existing key', topK.reserve('fresh', 3), exists);
  await t.err('TOPK.ADD on a missing key', topK.add('missing', 'x'), 'TopK: key does not exist');
  // redis-py's test_topk, the same stream through node-redis.
  const options = { width: 50, depth: 4, decay: 0.9 };
  await t.eq('TOPK.RESERVE with options', topK.reserve('topk', 3, options), 'OK');
  const stream = 'A B C D E A A B C G D B D A E E 1'.split(' ');
  const expelled = [null, null, null, 'A', 'C', 'D', null, null, 'E', null, 'B', 'C'];
  expelled.push(null, null, null, 'D', null);
  await t.eq('TOPK.ADD of a stream', topK.add('topk', stream), expelled);
  const found = [true, true, false, false, true, false, false].map(B);
  await t.eq('TOPK.QUERY', topK.query('topk', [...'ABCDEFG']), found);
  await t.eq('TOPK.COUNT', topK.count('topk', [...'ABCDEFG']), [4, 3, 2, 3, 3, 0, 1]);
  const three = { width: 50, depth: 3, decay: 0.9 };
  await t.eq('TOPK.RESERVE topklist', topK.reserve('topklist', 3, three), 'OK');
  await t.reply('TOPK.ADD topklist', topK.add('topklist', stream.slice(0, -1)));
  await t.eq('TOPK.LIST', topK.list('topklist'), ['A', 'B', 'E']);
  await t.eq('TOPK.LIST WITHCOUNT of a stream', topK.listWithCount('topklist'), [
    { item: 'A', count: 4 },
    { item: 'B', count: 3 },
    { item: 'E', count: 3 }
  ]);
  await t.info('TOPK.INFO', topK.info('topklist'), { k: 3, ...three });
  // Items that read as numbers stay strings.
  const special = { width: 20, depth: 4, decay: 0.9 };
  await t.eq('TOPK.RESERVE special', topK.reserve('special', 5, special), 'OK');
  const words = ['infinity', 'B', 'nan', 'D', '-infinity', 'infinity', 'infinity', 'B', 'nan'];
  words.push('G', 'D', 'B', 'D', 'infinity', '-infinity', '-infinity');
  await t.reply('TOPK.ADD special', topK.add('special', words));
  const top = ['infinity', 'B', 'D', '-infinity', 'nan'];
  await t.eq('TOPK.LIST special', topK.list('special'), top);
  // redis-py's test_topk_incrby.
  const noDecay = { width: 10, depth: 3, decay: 1 };
  await t.eq('TOPK.RESERVE inc', topK.reserve('inc', 3, noDecay), 'OK');
  const first = increments([['bar', 3], ['baz', 6], ['42', 2]]);
  await t.eq('TOPK.INCRBY', topK.incrBy('inc', first), [null, null, null]);
  const second = increments([['42', 8], ['xyzzy', 4]]);
  await t.eq('TOPK.INCRBY expelling', topK.incrBy('inc', second), [null, 'bar']);
  const one = { item: 'baz', incrementBy: 1 };
  await t.eq('TOPK.INCRBY of one item', topK.incrBy('inc', one), [null]);
  const counts = topK.count('inc', ['bar', 'baz', '42', 'xyzzy', '4']);
  await t.eq('TOPK.COUNT after TOPK.INCRBY', counts, [3, 7, 10, 4, 0]);
}

async function checkTDigest(t, client) {
  const td = client.tDigest;
  await t.eq('TDIGEST.CREATE', td.create('empty'), 'OK');
  await t.eq('TDIGEST.CREATE COMPRESSION', td.create('q', { COMPRESSION: 100 }), 'OK');
  const exists = 'ERR T-Digest: key already exists';
  await t.err('TDIGEST.CREATE of an existing key', td.create('q'), exists);
  // An empty digest: nan (RESP3 doubles, RESP2 bulk strings) and rank -2.
  await t.eq('TDIGEST.MIN of an empty digest', td.min('empty'), NaN);
  await t.eq('TDIGEST.MAX of an empty digest', td.max('empty'), NaN);
  await t.eq('TDIGEST.QUANTILE of an empty digest', td.quantile('empty', [1]), [NaN]);
  await t.eq('TDIGEST.CDF of an empty digest', td.cdf('empty', [1]), [NaN]);
  await t.eq('TDIGEST.RANK of an empty digest', td.rank('empty', [1]), [-2]);
  await t.eq('TDIGEST.REVRANK of an empty digest', td.revRank('empty', [1]), [-2]);
  await t.eq('TDIGEST.BYRANK of an empty digest', td.byRank('empty', [1]), [NaN]);
  await t.eq('TDIGEST.BYREVRANK of an empty digest', td.byRevRank('empty', [1]), [NaN]);
  await t.eq('TDIGEST.TRIMMED_MEAN of an empty digest', td.trimmedMean('empty', 0, 1), NaN);
  await t.eq('TDIGEST.ADD', td.add('q', [1, 2, 3, 4, 5]), 'OK');
  await t.eq('TDIGEST.MIN', td.min('q'), 1);
  await t.eq('TDIGEST.MAX', td.max('q'), 5);
  await t.eq('TDIGEST.QUANTILE', td.quantile('q', [0, 0.5, 1]), [1, 3, 5]);
  await t.eq('TDIGEST.CDF', td.cdf('q', [0, 3, 10]), [0, 0.5, 1]);
  await t.eq('TDIGEST.CDF of infinities', td.cdf('q', [Infinity, -Infinity]), [1, 0]);
  await t.eq('TDIGEST.RANK', td.rank('q', [0, 3, 10]), [-1, 2, 5]);
  await t.eq('TDIGEST.REVRANK', td.revRank('q', [0, 3, 10]), [5, 2, -1]);
  // Past the last rank: inf and -inf.
  await t.eq('TDIGEST.BYRANK', td.byRank('q', [0, 2, 5]), [1, 3, Infinity]);
  await t.eq('TDIGEST.BYREVRANK', td.byRevRank('q', [0, 2, 5]), [5, 3, -Infinity]);
  await t.eq('TDIGEST.TRIMMED_MEAN', td.trimmedMean('q', 0.1, 0.9), 3);
  // [merged, unmerged] nodes and weights: a digest merges what it buffers when queried.
  const info = (compression, capacity, [merged, unmerged], [weight, unmergedWeight], runs) => ({
    Compression: compression,
    Capacity: capacity,
    'Merged nodes': merged,
    'Unmerged nodes': unmerged,
    'Merged weight': weight,
    'Unmerged weight': unmergedWeight,
    Observations: weight + unmergedWeight,
    'Total compressions': runs,
    'Memory usage': 'a positive number'
  });
  const memory = ['Memory usage'];
  await t.info('TDIGEST.INFO', td.info('q'), info(100, 610, [5, 0], [5, 0], 1), memory);
  await t.eq('TDIGEST.CREATE c', td.create('c', { COMPRESSION: 100 }), 'OK');
  await t.eq('TDIGEST.ADD c', td.add('c', [1, 2, 3, 4, 5, 6, 7, 8, 9]), 'OK');
  await t.eq('TDIGEST.CDF of 1 and 0', td.cdf('c', [1, 0]), [1 / 18, 0]);
  await t.eq('TDIGEST.TRIMMED_MEAN 0.4 0.5', td.trimmedMean('c', 0.4, 0.5), 4.5);
  // TDIGEST.MERGE: into a key that does not exist yet, one source as a string, OVERRIDE and
  // COMPRESSION.
  await t.eq('TDIGEST.CREATE from-1', td.create('from-1', { COMPRESSION: 10 }), 'OK');
  await t.eq('TDIGEST.CREATE from-3', td.create('from-3', { COMPRESSION: 10 }), 'OK');
  await t.eq('TDIGEST.ADD from-1', td.add('from-1', Array(10).fill(1)), 'OK');
  await t.eq('TDIGEST.ADD from-3', td.add('from-3', Array(10).fill(3)), 'OK');
  await t.eq('TDIGEST.MERGE', td.merge('to', ['from-1', 'from-3']), 'OK');
  await t.eq('TDIGEST.MIN of TDIGEST.MERGE', td.min('to'), 1);
  await t.eq('TDIGEST.MAX of TDIGEST.MERGE', td.max('to'), 3);
  await t.eq('TDIGEST.MERGE of one source', td.merge('to', 'from-1'), 'OK');
  await t.eq('TDIGEST.RANK after TDIGEST.MERGE', td.rank('to', [2]), [20]);
  const override = td.merge('to', 'from-3', { COMPRESSION: 30, OVERRIDE: true });
  await t.eq('TDIGEST.MERGE OVERRIDE COMPRESSION', override, 'OK');
  await t.eq('TDIGEST.MIN after OVERRIDE', td.min('to'), 3);
  const merged = info(30, 190, [0, 7], [0, 10], 0);
  await t.info('TDIGEST.INFO after OVERRIDE', td.info('to'), merged, memory);
  await t.eq('TDIGEST.RESET', td.reset('q'), 'OK');
  await t.eq('TDIGEST.MIN after TDIGEST.RESET', td.min('q'), NaN);
  const reset = info(100, 610, [0, 0], [0, 0], 0);
  await t.info('TDIGEST.INFO after TDIGEST.RESET', td.info('q'), reset, memory);
  const missing = 'ERR T-Digest: key does not exist';
  await t.err('TDIGEST.ADD to a missing key', td.add('missing', [1]), missing);
  await t.err('TDIGEST.MERGE of a missing key', td.merge('to', 'missing'), missing);
  const finite = 'ERR T-Digest: val parameter needs to be a finite number';
  await t.err('TDIGEST.ADD of inf', td.add('q', [Infinity]), finite);
  const quantile = 'ERR T-Digest: quantile should be in [0,1]';
  await t.err('TDIGEST.QUANTILE 2', td.quantile('c', [2]), quantile);
  const cuts = 'ERR T-Digest: low_cut_percentile should be lower than high_cut_percentile';
  await t.err('TDIGEST.TRIMMED_MEAN 0.9 0.1', td.trimmedMean('c', 0.9, 0.1), cuts);
  const rank = 'ERR T-Digest: rank needs to be non negative';
  await t.err('TDIGEST.BYRANK -1', td.byRank('c', [-1]), rank);
}

async function check(port, resp, maps) {
  const t = new Checks(resp, maps);
  // node-redis 6 speaks RESP3 unless told otherwise; no reconnecting: a lost server fails.
  const socket = { host: '127.0.0.1', port, reconnectStrategy: false };
  const client = createClient({ socket, RESP: resp });
  client.on('error', () => {}); // a failed command or connection rejects its promise anyway
  await t.reply('connect', client.connect());
  try {
    t.same('HELLO proto', (await t.reply('HELLO', client.hello(resp))).proto, resp);
    await t.reply('FLUSHALL', client.flushAll());
    // SCANDUMP chunks are binary: Buffers, not the default UTF-8 strings.
    const bin = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
    await checkBloom(t, client, bin);
    await checkCuckoo(t, client, bin);
    await checkCountMin(t, client);
    await checkTopK(t, client);
    await checkTDigest(t, client);
  } finally {
    client.destroy();
  }
}

async function main() {
  const port = Number(process.argv[2]);
  const maps = (process.argv[3] ?? 'maps') === 'maps';
  if (!Number.isInteger(port)) throw new Failure('usage: node node_redis.cjs PORT [maps|flat]');
  for (const resp of [2, 3]) await check(port, resp, maps);
}

// A server that stops answering fails the run rather than hanging it.
setTimeout(() => {
  console.error('node-redis: timed out');
  process.exit(1);
}, 120000).unref();

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`node-redis: ${e instanceof Failure ? e.message : e.stack}`);
    process.exit(1);
  }
);
