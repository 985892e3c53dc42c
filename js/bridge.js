// The bridge: the plain functions the wasm calls (src/js/bridge.rs), installed once.
import * as wasm from './wasm/cutover.js';
import {
  ANSWER_OBJECT, NOT_A_STAGE, PENDING, TAKES_EVENTS, THREW, TRACKER_METHODS,
  callBoth, classify, initCalls, now, originSettled, readAnswer, settle, stageIndex,
} from './bridge-calls.js';
import { contextFacts } from './context.js';
import { buildEvent } from './event.js';
import { isObject, present, promiseOf, read, when } from './util.js';

// Plain functions the wasm calls on hot paths without an exception wrapper, so none of them
// may throw (see src/js/bridge.rs). They look the caller's methods up when they call them
// (a stub installed later takes effect), read only the properties a decision needs, and
// report promise outcomes through `settlePromise` from reactions registered while the
// operation runs, so every callback stays in the operation's caller's async context.
// Installed on first use, because with the web entry the wasm is initialised after this module
// has loaded.
let bridged = false;
let thrown;
let keptEvent;
export function bridge() {
  if (bridged) return;
  initCalls();
  function sendEvent(client, event) {
    if (event === undefined) {
      event = keptEvent;
      keptEvent = undefined;
    }
    let track;
    try {
      track = client.trackMigrationOp;
    } catch (error) {
      thrown = error;
      return 1;
    }
    if (typeof track !== 'function') return 2;
    try {
      track.call(client, event);
      return 0;
    } catch (error) {
      thrown = error;
      return 1;
    }
  }
  wasm.installBridge({
    // Which of the core's stage names (in its order) a value is exactly, else -1.
    stage: (value) => stageIndex.get(value) ?? -1,
    now,
    // A promise or thenable is awaited (true); anything else is a plain result (false).
    awaitValue(value, id) {
      const promise = promiseOf(value);
      if (promise === undefined) return false;
      when(promise, (result) => settle(id, true, result, NaN), (error) => settle(id, false, error, NaN));
      return true;
    },
    callBoth,
    callOrigin(f, payload, signal, id) {
      const start = now();
      let value;
      try {
        value = f(payload, signal);
      } catch (error) {
        return settle(id, false, error, now() - start);
      }
      const promise = promiseOf(value);
      if (promise === undefined) return originSettled(id, value, start);
      when(promise, (result) => originSettled(id, result, start), (error) => settle(id, false, error, now() - start));
    },
    askClient(client, flagKey, context, defaultStage, id) {
      let answer;
      try {
        answer = client.migrationVariation(flagKey, context, defaultStage);
      } catch (error) {
        thrown = error;
        answer = THREW;
      }
      const takes = typeof read(client, 'trackMigrationOp') === 'function' ? TAKES_EVENTS : 0;
      if (answer === THREW) return THREW + takes;
      if (typeof answer === 'string') return (stageIndex.get(answer) ?? NOT_A_STAGE) + takes;
      const promise = promiseOf(answer);
      if (promise === undefined) return classify(answer, id) + takes;
      when(
        promise,
        (result) => {
          // An object answer's fields and the settlement cross in one call.
          if (typeof result !== 'string' && isObject(result)) readAnswer(result, id, ANSWER_OBJECT + takes);
          else settle(id, true, undefined, classify(result, id) + takes);
        },
        (error) => settle(id, false, error, NaN),
      );
      return PENDING;
    },
    readAnswer,
    trackerCall(tracker, method, a, b) {
      try {
        tracker[TRACKER_METHODS[method]](a, b);
        return true;
      } catch (error) {
        thrown = error;
        return false;
      }
    },
    trackerOrigin(tracker, origin, ms, failed) {
      let mask = 0;
      let errors;
      try {
        tracker.invoked(origin);
      } catch (error) {
        mask |= 1;
        errors = [error];
      }
      if (present(ms)) {
        try {
          tracker.latency(origin, ms);
        } catch (error) {
          mask |= 2;
          (errors ??= []).push(error);
        }
      }
      if (failed) {
        try {
          tracker.error(origin);
        } catch (error) {
          mask |= 4;
          (errors ??= []).push(error);
        }
      }
      if (mask) thrown = errors;
      return mask;
    },
    trackerConsistency(tracker, comparison, oldValue, newValue) {
      let answer = -1;
      try {
        tracker.consistency(() => {
          answer = -1;
          const consistent = Boolean(comparison(oldValue, newValue));
          answer = consistent ? 1 : 0;
          return consistent;
        });
      } catch (error) {
        thrown = error;
        return -2;
      }
      return answer;
    },
    createEvent(tracker) {
      try {
        keptEvent = tracker.createEvent() ?? undefined;
        return keptEvent === undefined ? 1 : 0;
      } catch (error) {
        thrown = error;
        return 2;
      }
    },
    sendEvent,
    compare(comparison, oldValue, newValue) {
      try {
        return comparison(oldValue, newValue) ? 1 : 0;
      } catch (error) {
        thrown = error;
        return -1;
      }
    },
    contextFacts,
    ownEvent(client, creationDate, operation, context, key, value, dflt, reason, variation, version, samplingRatio,
      invoked, consistent, checkRatio, latencyOld, latencyNew, errors) {
      const event = buildEvent(creationDate, operation, context, key, value, dflt, reason, variation, version,
        samplingRatio, invoked, consistent, checkRatio, latencyOld, latencyNew, errors);
      if (client !== undefined) return sendEvent(client, event);
      keptEvent = event;
      return 0;
    },
    takeEvent() {
      const event = keptEvent;
      keptEvent = undefined;
      return event;
    },
    recordMetric(instrument, histogram, value, attributes) {
      try {
        if (histogram) instrument.record(value, attributes);
        else instrument.add(value, attributes);
        return false;
      } catch (error) {
        thrown = error;
        return true;
      }
    },
    takeError() {
      const error = thrown;
      thrown = undefined;
      return error;
    },
    startTimer(ms, id, unref) {
      try {
        /** @type {any} a Timeout in Node, a number elsewhere */
        const handle = setTimeout(() => settle(id, true, undefined, NaN), ms);
        if (unref && typeof handle === 'object' && handle !== null && typeof handle.unref === 'function') handle.unref();
        return handle;
      } catch {
        return undefined;
      }
    },
    stopTimer(handle) {
      try {
        clearTimeout(handle);
      } catch {
        // nothing to stop
      }
    },
    // The abort event relayed through a promise whose reaction is registered now, in the
    // operation's async context (an abort listener runs in whoever called abort()'s).
    onAbort(signal, id) {
      try {
        let fire;
        new Promise((resolve) => (fire = resolve)).then(() => settle(id, true, read(signal, 'reason'), NaN));
        /** @type {{ (): void, fired?: boolean }} */
        const listener = () => {
          listener.fired = true;
          fire();
        };
        signal.addEventListener('abort', listener);
        return listener;
      } catch {
        return undefined;
      }
    },
    offAbort(signal, listener) {
      try {
        signal.removeEventListener('abort', listener);
      } catch {
        // a signal that refuses: nothing to remove
      }
      return listener.fired === true;
    },
    resolveRead(pending, origin, success, payload) {
      pending.resolve(success ? { origin, success, value: payload } : { origin, success, error: payload });
    },
    resolveWrite(pending, origin, success, payload, hasSecond, origin2, success2, payload2) {
      const authoritative = success ? { origin, success, value: payload } : { origin, success, error: payload };
      if (!hasSecond) return pending.resolve({ authoritative });
      const nonAuthoritative = success2
        ? { origin: origin2, success: success2, value: payload2 }
        : { origin: origin2, success: success2, error: payload2 };
      pending.resolve({ authoritative, nonAuthoritative });
    },
    rejectPending(pending, error) {
      pending.reject(error);
    },
    // The caller's signal when it is an AbortSignal whose state can be read, else undefined.
    signalOf(pending) {
      const signal = pending.signal;
      try {
        if (signal instanceof AbortSignal) {
          void signal.aborted;
          return signal;
        }
      } catch {
        // a proxy or subclass whose checks throw: not a usable signal
      }
      return undefined;
    },
  });
  bridged = true;
}
