//! The flag system as the core sees it, and `migrationVariation` (SPEC A7).

use std::rc::Rc;

use futures::future::LocalBoxFuture;

use super::delegation::{ExternalTracker, ExternalTracking, Tracking};
use super::event::CheckRatioOnWire;
use super::event::MigrationOpEvent;
use super::op_tracker::{Evaluation, OpTracker};
use super::reason::{ErrorKind, Reason};
use super::stage::Stage;
use crate::host::{Host, HostValue};

/// The tracker an evaluation carried, if any.
pub enum OfferedTracker<V> {
    /// Has all six methods: measurements go to it.
    Usable(Box<dyn ExternalTracker<V>>),
    /// Lacks the named method: not used.
    Unusable { missing: String },
}

/// What the flag system answered for one context.
pub struct ServedEvaluation<V> {
    /// The served value when it is one of the six stage strings; `None` for anything else.
    pub value: Option<Stage>,
    pub variation: Option<i64>,
    /// The evaluation reason as the host gave it; read as plain data only if cutover's own
    /// tracker needs it for an event.
    pub reason: Option<V>,
    pub version: Option<i64>,
    pub check_ratio: Option<f64>,
    pub sampling_ratio: Option<f64>,
    pub tracker: Option<OfferedTracker<V>>,
    /// Whether the client had somewhere to send events when it was asked (`None`: ask
    /// [`MigrationClient::tracks_events`]).
    pub takes_events: Option<bool>,
}

impl<V: HostValue> ServedEvaluation<V> {
    /// What a tracker keeps of this answer when it serves `value` (ratios default to 1).
    pub fn evaluation(&self, value: Stage, default: Stage) -> Evaluation<V> {
        Evaluation {
            value,
            default,
            reason: self.reason.clone().map(Reason::Given),
            variation: self.variation,
            version: self.version,
            check_ratio: self.check_ratio.unwrap_or(1.0),
            sampling_ratio: self.sampling_ratio.unwrap_or(1.0),
        }
    }

    /// A bare stage with nothing else known (a client that returned a plain string).
    pub fn stage(value: Option<Stage>) -> Self {
        ServedEvaluation {
            value,
            variation: None,
            reason: None,
            version: None,
            check_ratio: None,
            sampling_ratio: None,
            tracker: None,
            takes_events: None,
        }
    }
}

/// A flag system's answer: at once (a synchronous client), or later (one that returned a promise).
pub enum Asked<V> {
    Now(Result<ServedEvaluation<V>, V>),
    Later(LocalBoxFuture<'static, Result<ServedEvaluation<V>, V>>),
}

/// Any flag system: evaluates migration flags and receives `migration_op` events.
pub trait MigrationClient<V> {
    fn migration_variation(&self, flag_key: &Rc<str>, context: &V, default: Stage) -> Asked<V>;
    /// Whether events have anywhere to go; when not, cutover does not build them.
    fn tracks_events(&self) -> bool;
    fn track_migration_op(&self, event: &MigrationOpEvent<V>) -> Result<(), V>;
    /// How cutover's own events write a check ratio of 1 for this client.
    fn check_ratio_on_wire(&self) -> CheckRatioOnWire {
        CheckRatioOnWire::OmittedWhenOne
    }
}

/// The caller's default stage: a stage, or whatever else was passed as a message prints it (a
/// string quoted).
#[derive(Clone, Debug, PartialEq)]
pub enum DefaultStage {
    Valid(Stage),
    Invalid(String),
}

impl DefaultStage {
    /// The usable default: an invalid one is logged and becomes `off` (SPEC A7.1).
    pub fn resolve(&self, host: &Host) -> Stage {
        match self {
            DefaultStage::Valid(stage) => *stage,
            DefaultStage::Invalid(text) => {
                host.error(&format!("default stage {text} is not a valid stage; using 'off' instead"));
                Stage::Off
            }
        }
    }
}

/// A flag evaluated for one operation.
pub struct Evaluated<V> {
    pub stage: Stage,
    pub tracking: Tracking<V>,
    /// Whether cutover's own event has anywhere to go.
    pub takes_events: bool,
}

/// Evaluates a migration flag: the stage to run and the tracker for the operation.
pub async fn migration_variation<V: HostValue>(
    client: Rc<dyn MigrationClient<V>>,
    host: &Host,
    flag_key: &Rc<str>,
    context: V,
    default: &DefaultStage,
) -> Evaluated<V> {
    let default = default.resolve(host);
    let asked = match client.migration_variation(flag_key, &context, default) {
        Asked::Now(answer) => answer,
        Asked::Later(answer) => answer.await,
    };
    let mut served = match asked {
        Ok(served) => served,
        Err(e) => {
            host.error(&format!(
                "migrationVariation for flag '{flag_key}' failed; using the default stage '{}': {}",
                default.as_str(),
                e.describe()
            ));
            let mut evaluation = Evaluation::plain(default, default);
            evaluation.reason = Some(Reason::Error(ErrorKind::Exception));
            let tracker = OpTracker::new(flag_key.clone(), context, evaluation);
            let tracking = Tracking::Own(tracker.with_check_ratio_on_wire(client.check_ratio_on_wire()));
            return Evaluated { stage: default, tracking, takes_events: client.tracks_events() };
        }
    };
    let stage = served.value.unwrap_or(default);
    let takes_events = served.takes_events.unwrap_or_else(|| client.tracks_events());
    let ratio_rule = client.check_ratio_on_wire();
    let own = move |host: &Host, served: &ServedEvaluation<V>| {
        let evaluation = match served.value {
            Some(value) => served.evaluation(value, default),
            None => {
                host.error(&format!(
                    "migration flag '{flag_key}' served a value that is not a stage; using the default stage '{}'",
                    default.as_str()
                ));
                Evaluation {
                    reason: Some(Reason::Error(ErrorKind::WrongType)),
                    variation: None,
                    ..served.evaluation(default, default)
                }
            }
        };
        OpTracker::new(flag_key.clone(), context, evaluation).with_check_ratio_on_wire(ratio_rule)
    };
    let tracking = match served.tracker.take() {
        Some(OfferedTracker::Usable(tracker)) => Tracking::External(ExternalTracking::new(tracker)),
        Some(OfferedTracker::Unusable { missing }) => {
            host.error(&format!(
                "the migration tracker for flag '{flag_key}' has no {missing}() method; cutover's own tracker is used"
            ));
            Tracking::Own(own(host, &served))
        }
        None => Tracking::Own(own(host, &served)),
    };
    Evaluated { stage, tracking, takes_events }
}
