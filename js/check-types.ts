// The facade's ES modules checked against the public declarations: `tsc -p js` (scripts/test.sh)
// fails when an export of index.d.ts is missing from js/api.js or has an incompatible type.
import * as api from './api.js';
import type * as Declared from './index.js';

export const checked: typeof Declared = api;
