// Process entry for tests/hardening/cache-memory.test.mjs and the bench scenario
// cached-context-memory: memory per cached Big Segments context against the packed build (the
// 'cutover' that files under tests/ resolve to). Run with --expose-gc.
import { cachedContextMemoryMain } from './cache-memory.mjs';

process.exitCode = await cachedContextMemoryMain(() => import('cutover'));
