//! Every number that crosses the boundary with a meaning, defined once: each enum is exported
//! to the facade by the glue (`import { Answer } from './wasm/cutover.js'`), and the bindings
//! read what comes back with `from_code`. The conventions they share:
//! - a number that is absent is NaN, a reference that is absent is `undefined`;
//! - a caller's method that threw, was not a function or made nothing is a [`Call`];
//! - flags (`Answer::TakesEvents`, `Hint`, `Pair`) are combined with `|` and tested with `&`
//!   on both sides.
//!
//! Plain Rust but for the `#[wasm_bindgen]` that exports them: natively (the tests of tape.rs)
//! the enums are compiled without it.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen::prelude::*;

/// Declares a `#[wasm_bindgen]` enum and `from_code`, which reads a number the facade passed
/// back (`None` for a number that is none of the variants; never a trap).
macro_rules! codes {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $value:literal,)+ }) => {
        $(#[$doc])*
        #[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vdoc])* $variant = $value,)+
        }

        impl $name {
            #[allow(dead_code)]
            pub fn from_code(code: u32) -> Option<Self> {
                match code {
                    $($value => Some(Self::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

codes! {
    /// How the bridge classifies a flag client's answer (`askClient`, `readAnswer`, `stage`):
    /// a stage (its index in `stageNames`), or what else it was. `TakesEvents` is a flag added
    /// with `|` when the client had a `trackMigrationOp` method when it was asked.
    Answer {
        Off = 0,
        DualWrite = 1,
        Shadow = 2,
        Live = 3,
        RampDown = 4,
        Complete = 5,
        /// A string or value that names no stage.
        NotAStage = 6,
        /// An object: its fields are in the record (`AnswerField`), handed over by `answerFields`.
        Object = 7,
        /// Asking threw; the error waits in `takeThrown()`.
        Threw = 8,
        /// A promise: the code arrives later through `answered` or `answerFields`.
        Pending = 9,
        TakesEvents = 16,
    }
}

codes! {
    /// The outcome of calling one of the caller's methods through the bridge.
    Call {
        Done = 0,
        /// It threw; the thrown value waits in `takeThrown()` (see bridge.rs for why).
        Threw = 1,
        /// The property was not a function when it was looked up.
        NotAFunction = 2,
        /// It ran and returned nothing (`createEvent` without an event).
        Absent = 3,
    }
}

codes! {
    /// A consistency check's outcome (`compare`, `trackerConsistency`).
    Check {
        Inconsistent = 0,
        Consistent = 1,
        /// The tracker did not run the check (or the check threw into the tracker).
        NotRun = 2,
        /// The comparison (or the tracker's `consistency`) threw; see `takeThrown()`.
        Threw = 3,
    }
}

codes! {
    /// The tracker methods by number, in the order of `TRACKER_METHODS` (delegation.rs).
    TrackerMethod {
        Op = 0,
        Invoked = 1,
        Latency = 2,
        Error = 3,
        Consistency = 4,
        CreateEvent = 5,
    }
}

codes! {
    /// A flag system's tracker's measurements in the record, written by the bindings right before
    /// `settleTracker` (delegation.rs): the operation, then each origin call's `TrackerCall`
    /// slots from `FirstCall`, one call after the other.
    TrackerField {
        /// The operation's index in the names `started` gave (NaN: none was noted).
        Operation = 0,
        FirstCall = 1,
    }
}

codes! {
    /// One origin call's slots in the record after `TrackerField::FirstCall`.
    TrackerCall {
        /// The origin's index in the names `started` gave.
        Origin = 0,
        /// Its latency in ms (NaN: not tracked).
        Latency = 1,
        /// 1 when it failed (`error(origin)` is replayed), else 0.
        Failed = 2,
        /// How many slots a call takes.
        Slots = 3,
    }
}

codes! {
    /// What `settleTracker` answers, as flags: 0 when every method ran and the event was sent.
    Settle {
        Done = 0,
        /// `createEvent()` made no event: nothing was sent.
        NoEvent = 1,
        /// Something threw: `takeThrown()` holds `[method, error, …]` pairs in the order they
        /// threw, `method` a `TrackerMethod`, or `ClientMethod::TrackMigrationOp`.
        Threw = 2,
    }
}

codes! {
    /// The flag client's method in `settleTracker`'s thrown pairs, numbered after the
    /// `TrackerMethod`s (delegation.rs checks that it follows them).
    ClientMethod {
        TrackMigrationOp = 6,
    }
}

codes! {
    /// One origin's part of an operation's result: which origin, and whether it succeeded.
    Side {
        OldSucceeded = 0,
        OldFailed = 1,
        NewSucceeded = 2,
        NewFailed = 3,
        /// No second origin ran.
        None = 4,
    }
}

codes! {
    /// What the facade already knows of an operation, in `run`'s `hints`: the default stage's
    /// `Answer` code under `StageBits` (`Answer::NotAStage` when it names none), and flags.
    Hint {
        StageBits = 7,
        /// The flag key is the very string the previous operation passed.
        SameKey = 8,
        /// The operation is a write (else a read).
        Write = 16,
        /// The caller passed an abort signal (in `pending.signal`).
        Signal = 32,
        /// There is a `waitUntil` (in `pending.waitUntil`) to hand a background part to.
        WaitUntil = 64,
    }
}

codes! {
    /// `deliverBoth`'s flags: which of two origins started together succeeded.
    Pair {
        FirstSucceeded = 1,
        SecondSucceeded = 2,
    }
}

codes! {
    /// The numbers of a flag client's answer object in the record (`record.rs`), written by the
    /// facade before `answerFields`.
    AnswerField {
        /// The served value's `Answer` stage code, or `Answer::NotAStage`.
        Stage = 0,
        Variation = 1,
        Version = 2,
        CheckRatio = 3,
        SamplingRatio = 4,
        /// 1 when `reason` is an object (else the reason passed is ignored).
        HasReason = 5,
        /// 1 when `tracker` is not null or undefined.
        HasTracker = 6,
        /// The `TrackerMethod` of the first tracker method that is not a function; NaN: none.
        MissingMethod = 7,
        /// For an answer a promise resolved to: its `Answer` code (the slot is settled too);
        /// NaN for an answer given synchronously.
        Settles = 8,
    }
}

codes! {
    /// The options objects the facade reads and hands to `checkOptionNames` (src/js/options.rs),
    /// each the core's `OptionsObject` of the same name. The stores read in Rust (Redis,
    /// DynamoDB) are checked there and need no code.
    OptionsOf {
        BigSegmentStoreManager = 0,
        MigratorBuilder = 1,
        MigratorRead = 2,
        MigratorWrite = 3,
        LdMigrationRead = 4,
        LdMigrationWrite = 5,
        CreateMigration = 6,
        LaunchDarklyBigSegmentStore = 7,
        OpenFeatureClient = 8,
        MigratorBackground = 9,
        MigratorMismatches = 10,
        SameStructure = 11,
        SameResponse = 12,
        BeaconSink = 13,
        MigrationEventRelay = 14,
        LaunchDarklyBrowserClient = 15,
        MigratorGuard = 16,
        MigrationConsole = 17,
        RedisFleet = 18,
    }
}

codes! {
    /// What a fleet's reader makes of one published instance (`fleetStandings`): the core's
    /// `fleet::roster::Standing`.
    FleetStanding {
        /// Published within `ttlMs`: shown and counted.
        Live = 0,
        /// Silent for longer than `ttlMs` (or its time unreadable): gone.
        Expired = 1,
        /// Alive, but beyond the 256 most recent publishers.
        Dropped = 2,
    }
}

codes! {
    /// One node of a value flattened onto the tape (tape.rs reads it, js/bridge/tape.js writes
    /// it): its kind, then one number. Nodes are in pre-order, numbered from 0 across both sides
    /// (their ordinals).
    TapeNode {
        Undefined = 0,
        Null = 1,
        False = 2,
        True = 3,
        /// The number itself.
        Number = 4,
        /// The string's id in this tape: an old string's, or, for a new string, the id of an old
        /// string with the same text (a negative one when there is none).
        String = 5,
        /// A `Date`: its time value (NaN for an invalid date).
        Date = 6,
        /// Compared by identity only (a function, a class instance, a symbol, a bigint): its id in
        /// this tape, the same for the same value (`===`).
        Other = 7,
        /// The value was read, but not what it is (a revoked proxy, a trap that threw): its id
        /// among the other values (the same value is identical); the thrown value stays with
        /// the facade.
        Unreadable = 8,
        /// Reading this property or element threw; the thrown value stays with the facade.
        Threw = 9,
        /// An array: its length. Its elements follow, as many as the node bound left.
        Array = 10,
        /// A plain object: its key count. Each key's id (one number) then its value follow; a
        /// count above the keys that follow marks an object the node bound cut.
        Object = 11,
        /// An array or object already on the tape: the ordinal of its node (an ancestor's: a
        /// cycle; or, in the new value, the old value's at the same place, the very same one).
        Seen = 12,
        /// Not read: deeper than the depth bound.
        CutDepth = 13,
        /// Not read: past the node bound (tape.rs also reads every node a tape lacks as one).
        CutNodes = 14,
    }
}

codes! {
    /// What `flatten` made of a pair of values (js/bridge/tape.js).
    TapeStatus {
        /// Both values are on the tape.
        Written = 0,
        /// Writing failed (the JavaScript stack ran out): nothing of the tape is read, and the
        /// comparison answers as for values it could not read. (A comparison that a getter of the
        /// values runs meanwhile writes a nested tape: js/bridge/tape.js, "Nesting".)
        Failed = 1,
    }
}
