// The bridge's signatures: what src/js/bridge.rs imports (js/bridge.js's `bridge` namespace, the
// functions of js/bridge/functions.js), in TypeScript. `tsc -p js` checks them against this file (js/check-types.ts: every function, with
// exactly these parameters), and tests/node/bridge-signatures.test.mjs checks this file against
// the Rust block (names, argument counts, and types: f64/i32/u32 → number, bool → boolean,
// &JsValue → unknown, JsValue → unknown, Array → string[], &str → string). Codes are the enums of
// src/js/codes.rs as the glue declares them; a parameter or result named after one carries it.
import type { Answer, Call, Check, Settle, Side, TapeStatus, TrackerMethod } from '../../js/wasm/cutover.js';

/** The names the wasm's codes stand for, once, when the wasm starts. */
export function started(stages: string[], origins: string[], operations: string[], methods: string[]): void;
export function now(): number;
/** The value a caller's method threw, left by the last call that answered `Threw`. */
export function takeThrown(): unknown;
export function awaitValue(value: unknown, id: number): boolean;
export function startTimer(ms: number, id: number, unref: boolean): unknown;
export function stopTimer(handle: unknown): void;
export function onAbort(signal: unknown, id: number): unknown;
export function offAbort(signal: unknown, listener: unknown): boolean;
export function contextFacts(context: unknown): unknown;
export function stage(value: unknown): Answer;
export function askClient(client: unknown, flagKey: unknown, context: unknown, defaultStage: unknown, id: number): Answer;
export function takesEvents(client: unknown): boolean;
export function readAnswer(answer: unknown, id: number): Answer;
/** A weak reference to `f`, kept by the wasm in its place (js/bridge/held.js); every `client`, `f`, `g`, `comparison` and `listener` here is such a reference. */
export function weakly(f: unknown): unknown;
export function logTo(logger: unknown, level: string, message: string): void;
export function callOrigin(f: unknown, payload: unknown, signal: unknown, id: number): void;
export function callBoth(f: unknown, g: unknown, payload: unknown, signal: unknown, id: number): void;
export function callEach(f: unknown, g: unknown, payload: unknown, signal: unknown, first: number, second: number): void;
export function compare(comparison: unknown, oldValue: unknown, newValue: unknown): Check;
export function notify(listener: unknown, argument: unknown): Call;
export function trackerCall(tracker: unknown, method: TrackerMethod, a: unknown, b: unknown): Call;
export function trackerConsistency(tracker: unknown, comparison: unknown, oldValue: unknown, newValue: unknown): Check;
export function settleTracker(tracker: unknown, client: unknown, calls: number, last: boolean): Settle;
export function ownEvent(client: unknown, context: unknown, flagKey: unknown, reason: unknown): Call;
export function buildEvent(context: unknown, flagKey: unknown, reason: unknown): unknown;
export function recordMetric(instrument: unknown, histogram: boolean, value: number, attributes: unknown): Call;
export function resolveRead(pending: unknown, side: Side, payload: unknown): void;
export function resolveWrite(pending: unknown, first: Side, payload: unknown, second: Side, secondPayload: unknown): void;
export function rejectPending(pending: unknown, error: unknown): void;
export function handOver(pending: unknown): Call;
export function partEnded(pending: unknown): void;
export function signalOf(pending: unknown): unknown;
/** Writes a pair of values onto the wasm's tape (src/js/tape.rs); with `keep`, their nodes' values stay for `tapeValue`. */
export function flatten(oldValue: unknown, newValue: unknown, maxNodes: number, maxDepth: number, keep: boolean): TapeStatus;
/** The value kept for a node of the tape written with `keep` (`thrown`: what reading it threw). */
export function tapeValue(ordinal: number, thrown: boolean): unknown;
/** Makes the string ids of the tape written with `keep` canonical, to explain a mismatch. */
export function canonicaliseTape(): void;
export function releaseTape(): void;
/** Clones a fetch Response and reads it into a sameResponse snapshot, reported to `deliver(id, …)`; undefined for any other value. */
export function readResponse(value: unknown, headers: unknown, maxBodyBytes: number, id: number): unknown;
/** Stops a reading `readResponse` started (it still reports, as a failure). */
export function stopReading(reading: unknown): void;
/** A frozen `{ membership, status }`, a Big Segments lookup's answer. */
export function answerObject(membership: unknown, status: unknown): unknown;
