// The facade's ES modules checked against the public declarations: `tsc -p js` (scripts/test.sh)
// fails when an export of index.d.ts is missing from js/api.js or has an incompatible type.
import * as api from './api.js';
import type * as Declared from './index.js';

export const checked: typeof Declared = api;

// The bridge (js/bridge/functions.js) checked against its declaration beside the Rust imports
// (src/js/bridge.d.mts): every declared function is there with a compatible type and exactly as
// many parameters, and nothing else is exported.
import * as bridge from './bridge/functions.js';
import type * as BridgeDeclared from '../src/js/bridge.mjs';

type Declared = typeof BridgeDeclared;
type Implemented = typeof bridge;
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type SameArity = {
  [K in keyof Declared]: K extends keyof Implemented
    ? Exactly<Parameters<Declared[K]>['length'], Parameters<Implemented[K]>['length']>
    : false;
};
export const bridgeChecked: Declared = bridge;
export const bridgeArity: { [K in keyof Declared]: true } = null as unknown as SameArity;
export const bridgeNothingElse: { [K in keyof Implemented]: K extends keyof Declared ? true : false } =
  null as unknown as { [K in keyof Implemented]: true };

// cutover/migrations: its body (js/entries/migrations.js, less the glue's initialisers) has every
// name its declarations (migrations.d.ts) export, with compatible types, and no other.
import * as migrationsBody from './entries/migrations.js';
import type * as MigrationsDeclared from './migrations.js';

type MigrationsApi = Omit<typeof migrationsBody, 'initGlue' | 'initSync'>;
const migrationsApi: MigrationsApi = migrationsBody;
export const migrationsChecked: typeof MigrationsDeclared = migrationsApi;
export const migrationsNothingElse: { [K in keyof MigrationsApi]: K extends keyof typeof MigrationsDeclared ? true : false } =
  null as unknown as { [K in keyof MigrationsApi]: true };
