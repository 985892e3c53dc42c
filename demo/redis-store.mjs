// The demo's Big Segments store on a real Redis (when REDIS_URL is set): the same members,
// written under LaunchDarkly's Relay Proxy key schema, and read back through cutover's
// redisBigSegmentStore over a node-redis client. Same interface as the in-memory store.

import { createClient } from 'redis';
import { redisBigSegmentStore, nodeRedisHost } from 'cutover';

const PREFIX = 'cutover-demo';
const SYNC_EVERY_MS = 100;

export class RedisDemoStore {
  members = new Map(); // contextHash → membership, filled by the demo, then written by load()
  calls = { membership: 0, metadata: 0 };
  #client;
  #store;
  #syncTimer = null;

  static async connect(url) {
    const client = createClient({ url });
    client.on('error', () => {}); // failures surface as store errors in the manager
    await client.connect();
    return new RedisDemoStore(client);
  }

  constructor(client) {
    this.#client = client;
    this.#store = redisBigSegmentStore(nodeRedisHost(client), { prefix: PREFIX });
  }

  /** Replaces the demo's keys with `members`, pipelined, then starts the "synchronizer". */
  async load() {
    const keys = await this.#client.keys(`${PREFIX}:*`);
    if (keys.length) await this.#client.del(keys);
    const batch = this.#client.multi();
    for (const [hash, membership] of this.members) {
      for (const [ref, included] of Object.entries(membership)) {
        batch.sAdd(`${PREFIX}:big_segment_${included ? 'include' : 'exclude'}:${hash}`, ref);
      }
    }
    await batch.execAsPipeline();
    this.resumeSync();
  }

  #sync = () => this.#client.set(`${PREFIX}:big_segments_synchronized_on`, String(Date.now())).catch(() => {});

  haltSync() {
    clearInterval(this.#syncTimer);
    this.#syncTimer = null;
  }

  resumeSync() {
    this.haltSync();
    this.#sync();
    this.#syncTimer = setInterval(this.#sync, SYNC_EVERY_MS);
  }

  getMetadata() {
    this.calls.metadata++;
    return this.#store.getMetadata();
  }

  getMembership(contextHash) {
    this.calls.membership++;
    return this.#store.getMembership(contextHash);
  }

  async close() {
    this.haltSync();
    await this.#client.quit();
  }
}
