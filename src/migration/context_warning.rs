//! An invalid context, reported once per migrator (issue 33): LaunchDarkly refuses a context
//! without a key (or with a kind it cannot read) in events, and a flag system evaluates it as it
//! can, so a migrator whose operations pass one says so once, as a warning naming the problem,
//! even when its events go nowhere. (With events, building each event reports it as
//! LaunchDarkly's SDK does.)

use std::cell::Cell;

use super::context::problem;
use crate::host::{Host, HostValue};

/// Whether this migrator has reported an invalid context yet.
#[derive(Debug, Default)]
pub(super) struct ContextWarning {
    warned: Cell<bool>,
}

impl ContextWarning {
    /// Warns about `context` when it is the first invalid one this migrator has seen; after that
    /// it reads nothing.
    pub(super) fn check<V: HostValue>(&self, host: &Host, context: &V) {
        if self.warned.get() {
            return;
        }
        if let Some(problem) = problem(&context.context_facts()) {
            self.warned.set(true);
            host.warn(&format!(
                "migrator: the context {problem}; LaunchDarkly refuses it, and no migration_op event can carry it (reported once per migrator)"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::host::Level;
    use crate::testing::{TestHost, TestValue};

    fn warnings(th: &TestHost) -> Vec<String> {
        th.logger.messages(Level::Warn)
    }

    #[test]
    fn the_first_invalid_context_is_reported_once_naming_its_problem() {
        let th = TestHost::new(1);
        let warning = ContextWarning::default();
        warning.check(&th.host, &TestValue::Json(json!({"kind": "user", "key": "u"})));
        assert_eq!(warnings(&th), Vec::<String>::new());
        warning.check(&th.host, &TestValue::Json(json!({"kind": "user"})));
        warning.check(&th.host, &TestValue::Json(json!({"kind": "user"})));
        warning.check(&th.host, &TestValue::Json(json!({"kind": "multi", "key": "k"})));
        assert_eq!(
            warnings(&th),
            ["migrator: the context has no key (a non-empty string key, or OpenFeature's targetingKey); LaunchDarkly refuses it, and no migration_op event can carry it (reported once per migrator)"]
        );
    }

    #[test]
    fn each_problem_is_named() {
        let cases = [
            (json!("user-1"), Some("is not an object")),
            (json!({"kind": 3, "key": "k"}), Some("has a kind that is not a string")),
            (
                json!({"kind": "a b", "key": "k"}),
                Some("has a kind that is not one or more of A-Z a-z 0-9 . _ - (or is kind or multi)"),
            ),
            (json!({"key": ""}), Some("has no key (a non-empty string key, or OpenFeature's targetingKey)")),
            (
                json!({"kind": "multi", "key": "k", "user": {"key": "u"}}),
                Some("is multi-kind and has a key of its own"),
            ),
            (json!({"kind": "multi"}), Some("is multi-kind with no context in it")),
            (json!({"kind": "multi", "user": {"name": "n"}}), Some("is multi-kind with a context that has no key")),
            (json!({"kind": "multi", "user": "u"}), Some("is multi-kind with an attribute that is not a context")),
            (json!({"kind": "multi", "user": {"key": "u"}, "org": {"targetingKey": "o"}}), None),
            (json!({"targetingKey": "t"}), None),
        ];
        for (context, expected) in cases {
            let facts = super::super::context::ContextFacts::of_json(&context);
            assert_eq!(problem(&facts), expected, "{context}");
        }
    }
}
