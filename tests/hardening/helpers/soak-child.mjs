// Process entry for tests/hardening/soak.test.mjs: the soak against the packed build (the
// 'cutover' that files under tests/ resolve to). Run with --expose-gc.
import { soakMain } from './soak.mjs';

process.exitCode = await soakMain(() => import('cutover'));
