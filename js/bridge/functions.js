// The bridge: the functions the wasm imports (src/js/bridge.rs, declared in src/js/bridge.d.mts
// and checked against it by `tsc -p js`). None of them throws; each looks the caller's methods
// up when it calls them and reads only the properties a decision needs. One file per job, each named after the
// Rust file it serves (src/js/<name>.rs):
//   stage.js         the names the wasm's codes stand for, told when it starts
//   promise.js       the clock, promises, timers and abort signals
//   client.js        a flag client's answer, classified
//   held.js          the caller's functions a migrator keeps, held weakly by the wasm (`weakly`)
//   host.js          the caller's logger, called
//   origin.js        origins and comparisons, called and timed
//   delegation.js    a flag system's own tracker: the measurements replayed, its event sent
//   events.js        cutover's own migration_op event
//   migrator.js      an operation's result, to the facade's promise
//   meter.js         a measurement into an OpenTelemetry instrument
//   context_facts.js what validation reads of a caller's context
//   tape.js          a pair of values flattened onto the wasm's tape, for sameStructure (a
//                    writer per nesting level: tape_writer.js; the keys' ids: tape_buffer.js)
//   same_response.js a fetch Response snapshotted, for sameResponse
//   store.js         a Big Segments lookup's answer object
//   thrown.js, record.js  what the calls above hand over beside their arguments (bridge.rs,
//                    record.rs)
export { started } from './stage.js';
export { awaitValue, now, offAbort, onAbort, startTimer, stopTimer } from './promise.js';
export { takeThrown } from './thrown.js';
export { askClient, readAnswer, stage, takesEvents } from './client.js';
export { weakly } from './held.js';
export { logTo } from './host.js';
export { callBoth, callEach, callOrigin, compare, notify } from './origin.js';
export { settleTracker, trackerCall, trackerConsistency } from './delegation.js';
export { buildEvent, ownEvent } from './events.js';
export { handOver, partEnded, rejectPending, resolveRead, resolveWrite, signalOf } from './migrator.js';
export { recordMetric } from './meter.js';
export { contextFacts } from './context_facts.js';
export { canonicaliseTape, flatten, releaseTape, tapeValue } from './tape.js';
export { readResponse, stopReading } from './same_response.js';
export { answerObject } from './store.js';
