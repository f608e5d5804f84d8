'use strict';
/**
 * Drives redis-bf on a cluster through node-redis's cluster client (`createCluster`, the `redis`
 * package 6.3.1): every family through cluster.bf, cf, cms, topK and tDigest on keys spread
 * over every primary, merges under one hash tag, and merges whose sources live in another slot
 * refused by the server with CROSSSLOT (node-redis routes a command by its first key and leaves
 * the check to the server).
 *
 * Booleans are compared as truth values: node-redis hands them over as `true` or as `1` by the
 * server's version.
 *
 * Run by tests/clients.rs: node node_redis_cluster.cjs PORT, PORT a node of a cluster it
 * started. Exits non-zero, naming the failed check, if any reply differs; prints nothing on
 * success.
 */
const assert = require('node:assert/strict');
const { createCluster, ErrorReply } = require('redis');

async function main() {
  const port = Number(process.argv[2]);
  const cluster = createCluster({ rootNodes: [{ url: `redis://127.0.0.1:${port}` }] });
  cluster.on('error', (e) => {
    console.error(`node-redis cluster: ${e}`);
    process.exit(1);
  });
  await cluster.connect();
  try {
    const { bf, cf, cms, topK, tDigest: td } = cluster;
    const truths = (reply) => [reply].flat().map(Boolean);
    for (let i = 0; i < 12; i++) {
      const key = `key${i}`;
      assert.deepEqual(truths(await bf.add(`bf:${key}`, 'a')), [true], 'BF.ADD');
      const exists = truths(await bf.mExists(`bf:${key}`, ['a', 'b']));
      assert.deepEqual(exists, [true, false], 'BF.MEXISTS');
      assert.deepEqual(truths(await cf.add(`cf:${key}`, 'a')), [true], 'CF.ADD');
      assert.equal(await cf.count(`cf:${key}`, 'a'), 1, 'CF.COUNT');
      assert.equal(await cms.initByDim(`cms:${key}`, 100, 3), 'OK', 'CMS.INITBYDIM');
      const increment = { item: 'a', incrementBy: i + 1 };
      assert.deepEqual(await cms.incrBy(`cms:${key}`, increment), [i + 1], 'CMS.INCRBY');
      assert.equal(await topK.reserve(`topk:${key}`, 3), 'OK', 'TOPK.RESERVE');
      await topK.add(`topk:${key}`, ['a', 'b', 'a']);
      assert.deepEqual(truths(await topK.query(`topk:${key}`, 'a')), [true], 'TOPK.QUERY');
      assert.equal(await td.create(`td:${key}`), 'OK', 'TDIGEST.CREATE');
      assert.equal(await td.add(`td:${key}`, [1, 2, i + 3]), 'OK', 'TDIGEST.ADD');
      assert.equal(await td.max(`td:${key}`), i + 3, 'TDIGEST.MAX');
    }
    assert.ok(cluster.masters.length > 1, 'a cluster of several primaries');

    // One hash tag: the merges run where the tag lives.
    assert.equal(await cms.initByDim('{t}total', 100, 3), 'OK');
    assert.equal(await cms.initByDim('{t}day', 100, 3), 'OK');
    await cms.incrBy('{t}day', { item: 'x', incrementBy: 2 });
    assert.equal(await cms.merge('{t}total', ['{t}day', '{t}day']), 'OK', 'CMS.MERGE');
    assert.deepEqual(await cms.query('{t}total', 'x'), [4], "CMS.MERGE's sum");
    assert.equal(await td.create('{t}minute'), 'OK');
    assert.equal(await td.add('{t}minute', [5, 6]), 'OK');
    assert.equal(await td.merge('{t}hour', ['{t}minute']), 'OK', 'TDIGEST.MERGE');
    assert.equal(await td.max('{t}hour'), 6, "TDIGEST.MERGE's digest");

    // Sources of another slot: CROSSSLOT from the server, and nothing changes.
    assert.equal(await cms.initByDim('{u}day', 100, 3), 'OK');
    assert.equal(await td.create('{u}minute'), 'OK');
    const crossSlot = /^CROSSSLOT/;
    const refused = async (name, promise) => {
      try {
        await promise;
      } catch (e) {
        assert.ok(e instanceof ErrorReply && crossSlot.test(e.message), `${name}: ${e}`);
        return;
      }
      assert.fail(`${name} across slots ran`);
    };
    await refused('CMS.MERGE', cms.merge('{t}total', ['{t}day', '{u}day']));
    await refused('TDIGEST.MERGE', td.merge('{t}hour', ['{t}minute', '{u}minute']));
    assert.deepEqual(await cms.query('{t}total', 'x'), [4], 'a refused merge changed nothing');
  } finally {
    await cluster.close();
  }
}

setTimeout(() => {
  console.error('node-redis cluster: timed out');
  process.exit(1);
}, 120000).unref();

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`node-redis cluster: ${e.stack ?? e}`);
    process.exit(1);
  }
);
