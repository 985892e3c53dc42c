// The stand-ins of the docs' code blocks: what a block uses but a reader brings (their databases,
// their cluster's seed nodes). A block names the ones it uses in its first line,
// `// stand-ins: legacyDb, newDb (…)`, and the runner prepends `import { legacyDb, newDb } from
// './stand-ins.mjs';` to that line, so the block's own lines keep their numbers.
//
// Written in TypeScript so that ```ts blocks type-check against them (tsc reads this file; the
// runner transpiles it with esbuild for the js blocks). Each export is one stand-in; the runner
// reads their names from the `export const` lines, and starts the services whose environment
// variables a stand-in reads (REDIS_CLUSTER_URLS: a Redis Cluster).

// No @types/node in the docs' type check: the one Node global used here.
declare const process: { env: Record<string, string | undefined> };

/** A row of the tour's databases. */
export interface UserRow {
  id: string;
  name: string;
}

/** An in-memory table with the shape the migration tour's databases have. */
class Table<Row extends { id: string }> {
  readonly #rows = new Map<string, Row>();

  constructor(rows: Row[]) {
    for (const row of rows) this.#rows.set(row.id, row);
  }

  /** The row, or undefined; rejects with the signal's reason when it has aborted. */
  async get(key: string, options: { signal?: AbortSignal } = {}): Promise<Row | undefined> {
    options.signal?.throwIfAborted();
    return this.#rows.get(key);
  }

  async put(row: Row): Promise<Row> {
    this.#rows.set(row.id, row);
    return row;
  }
}

/** The old database of a migration: it has user-123. */
export const legacyDb = new Table<UserRow>([{ id: 'user-123', name: 'Ann' }]);

/** The new database of a migration: it has user-123 too. */
export const newDb = new Table<UserRow>([{ id: 'user-123', name: 'Ann' }]);

/** A row to write. */
export const row: UserRow = { id: 'user-456', name: 'Bo' };

/** A Redis Cluster's seed nodes, as ioredis takes them: the docs' private cluster. */
export const seeds: { host: string; port: number }[] = (process.env.REDIS_CLUSTER_URLS ?? '')
  .split(/\s+/)
  .filter(Boolean)
  .map((url) => ({ host: new URL(url).hostname, port: Number(new URL(url).port) }));
