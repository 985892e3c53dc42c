// The bridge: the functions the wasm imports (src/js/bridge.rs, declared in src/js/bridge.d.mts
// and checked against it by `tsc -p js`). None of them throws; each looks the caller's methods
// up when it calls them and reads only the properties a decision needs. One file per job:
//   names.js    the names the wasm's codes stand for, told when it starts
//   waiting.js  the clock, promises, timers and abort signals
//   answers.js  a flag client's answer, classified
//   held.js     the caller's functions a migrator keeps, held weakly by the wasm
//   logger.js   the caller's logger, called
//   origins.js  origins and comparisons, called and timed
//   trackers.js a flag system's own tracker, and the event it makes
//   events.js   cutover's own migration_op event
//   results.js  an operation's result, to the facade's promise
//   metrics.js  a measurement into an OpenTelemetry instrument
//   tape.js     a pair of values flattened onto the wasm's tape, for sameStructure (a writer
//               per nesting level: tape_writer.js; the keys' ids: tape_buffer.js)
//   responses.js a fetch Response snapshotted, for sameResponse
//   store.js    a Big Segments lookup's answer object
//   thrown.js, record.js  what the calls above hand over beside their arguments
export { started } from './names.js';
export { awaitValue, now, offAbort, onAbort, startTimer, stopTimer } from './waiting.js';
export { takeThrown } from './thrown.js';
export { askClient, readAnswer, stage, takesEvents } from './answers.js';
export { weakly } from './held.js';
export { logTo } from './logger.js';
export { callBoth, callEach, callOrigin, compare, notify } from './origins.js';
export { settleTracker, trackerCall, trackerConsistency } from './trackers.js';
export { buildEvent, ownEvent } from './events.js';
export { handOver, partEnded, rejectPending, resolveRead, resolveWrite, signalOf } from './results.js';
export { recordMetric } from './metrics.js';
export { contextFacts } from '../context.js';
export { canonicaliseTape, flatten, releaseTape, tapeValue } from './tape.js';
export { readResponse, stopReading } from './responses.js';
export { answerObject } from './store.js';
