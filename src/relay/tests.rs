use serde_json::{json, Value};

use super::wire::{Wire, MAX_DEPTH};
use super::RelayRules;
use crate::migration::event::{EvaluationDetail, Measurements, MigrationOpEvent, Ratio};
use crate::migration::reason::Reason;
use crate::migration::stage::{Operation, Stage};
use crate::testing::{wire, TestValue};

/// An event as cutover's core writes it for LaunchDarkly (the check ratio always written).
fn built_event() -> Value {
    let measurements = Measurements {
        invoked: [true, true],
        latency: [Some(12.3), Some(0.0)],
        error: [false, true],
        consistent: Some(false),
    };
    let event = MigrationOpEvent {
        creation_date: 1_795_989_121_414,
        operation: Operation::Read,
        context: TestValue::Json(json!({"kind": "user", "key": "u1", "name": "Ana"})),
        evaluation: EvaluationDetail {
            key: "search-backend".into(),
            value: Stage::Shadow,
            default: Stage::Off,
            reason: Some(Reason::Given(TestValue::Json(json!({"kind": "FALLTHROUGH"})))),
            variation: Some(2),
            version: Some(7),
        },
        sampling_ratio: Ratio(1.0),
        measurements: measurements.to_wire_as(Ratio(1.0), crate::migration::event::CheckRatioOnWire::Always),
    };
    wire(&event)
}

fn judge_with(rules: &RelayRules, event: &Value) -> Result<(), String> {
    rules.judge(&Wire::of_json(event))
}

fn judge(event: &Value) -> Result<(), String> {
    judge_with(&RelayRules::default(), event)
}

/// `event` with `f` applied.
fn with(f: impl FnOnce(&mut Value)) -> Value {
    let mut event = built_event();
    f(&mut event);
    event
}

fn refused(event: &Value) -> String {
    match judge(event) {
        Err(reason) => reason,
        Ok(()) => panic!("accepted: {event}"),
    }
}

#[test]
fn an_event_the_core_built_is_accepted() {
    assert_eq!(judge(&built_event()), Ok(()));
}

#[test]
fn the_three_context_shapes_are_accepted() {
    for context in [
        json!({"key": "legacy"}),
        json!({"kind": "org", "key": "o1", "anonymous": false, "_meta": {"privateAttributes": ["email"]}, "tier": {"level": [1, 2]}}),
        json!({"kind": "multi", "user": {"key": "u"}, "org": {"key": "o", "name": "Acme"}}),
    ] {
        assert_eq!(judge(&with(|e| e["context"] = context.clone())), Ok(()), "{context}");
    }
}

#[test]
fn optional_fields_may_be_left_out_and_a_sampling_ratio_of_one_written() {
    let event = with(|e| {
        let evaluation = e["evaluation"].as_object_mut().unwrap();
        evaluation.remove("variation");
        evaluation.remove("version");
        e["samplingRatio"] = json!(1);
        e["measurements"] = json!([{"key": "invoked", "values": {"old": true}}]);
        e["evaluation"]["reason"] = json!({"kind": "RULE_MATCH", "ruleIndex": 0, "ruleId": "r", "inExperiment": true});
    });
    assert_eq!(judge(&event), Ok(()));
}

#[test]
fn a_consistent_measurement_without_a_sampling_ratio_has_the_ratio_one_and_is_forwarded_with_it() {
    let rules = RelayRules::default();
    let without = with(|e| drop(e["measurements"][1].as_object_mut().unwrap().remove("samplingRatio")));
    assert_eq!(without["measurements"][1]["key"], json!("consistent"));
    assert_eq!(rules.forward(&Wire::of_json(&without)), Ok(super::Forward { ratio_of_one_at: Some(1) }));
    // With its ratio written, or without a consistency measurement, nothing is written.
    assert_eq!(rules.forward(&Wire::of_json(&built_event())), Ok(super::Forward::default()));
    let unchecked = with(|e| e["measurements"] = json!([{"key": "invoked", "values": {"old": true}}]));
    assert_eq!(rules.forward(&Wire::of_json(&unchecked)), Ok(super::Forward::default()));
    // A refused event is refused whatever it lacks.
    let refused = with(|e| {
        e["measurements"][1].as_object_mut().unwrap().remove("samplingRatio");
        e["kind"] = json!("custom");
    });
    assert_eq!(rules.forward(&Wire::of_json(&refused)), Err("kind: must be migration_op".into()));
}

#[test]
fn wrong_kinds_and_operations_are_refused() {
    assert_eq!(refused(&with(|e| e["kind"] = json!("custom"))), "kind: must be migration_op");
    assert_eq!(refused(&with(|e| e["operation"] = json!("delete"))), "operation: must be read or write");
    assert_eq!(refused(&with(|e| e["operation"] = json!(1))), "operation: must be a string, got a number");
    assert_eq!(refused(&json!([])), "the event must be an object, got an array");
    assert_eq!(refused(&json!("migration_op")), "the event must be an object, got a string");
}

#[test]
fn missing_and_unknown_fields_are_refused() {
    assert_eq!(refused(&with(|e| drop(e.as_object_mut().unwrap().remove("context")))), "context: is missing");
    assert_eq!(
        refused(&with(|e| e["contextKeys"] = json!({"user": "u"}))),
        "contextKeys: is not a field of a migration_op event"
    );
    assert_eq!(
        refused(&with(|e| e["evaluation"]["extra"] = json!(1))),
        "evaluation.extra: is not a field of an evaluation"
    );
    assert_eq!(
        refused(&with(|e| e["evaluation"]["reason"]["note"] = json!("x"))),
        "evaluation.reason.note: is not a field of an evaluation reason"
    );
    assert_eq!(
        refused(&with(|e| e["measurements"][0]["value"] = json!(true))),
        "measurements[0].value: is not a field of this measurement"
    );
    assert_eq!(
        refused(&with(|e| e["measurements"][0]["values"]["third"] = json!(true))),
        "measurements[0].values.third: is not a field of a measurement's values (old, new)"
    );
}

#[test]
fn a_proto_key_is_refused_anywhere() {
    let proto = |path: &[&str]| {
        with(|e| {
            let mut target = e;
            for step in path {
                target = &mut target[*step];
            }
            target["__proto__"] = json!({"polluted": true});
        })
    };
    assert_eq!(refused(&proto(&[])), "the event has a key __proto__");
    assert_eq!(refused(&proto(&["context"])), "context: has a key __proto__");
    assert_eq!(refused(&proto(&["evaluation", "reason"])), "evaluation.reason: has a key __proto__");
    let nested = with(|e| e["context"]["address"] = json!({"city": {"__proto__": 1}}));
    assert_eq!(refused(&nested), "context.address.city: has a key __proto__");
}

#[test]
fn stages_must_be_stage_names() {
    assert_eq!(
        refused(&with(|e| e["evaluation"]["value"] = json!("Shadow"))),
        "evaluation.value: must be a stage (off, dualwrite, shadow, live, rampdown, complete)"
    );
    assert!(refused(&with(|e| e["evaluation"]["default"] = json!(null)))
        .starts_with("evaluation.default: must be a string"));
}

#[test]
fn numbers_are_checked_without_formatting_them() {
    assert_eq!(refused(&with(|e| e["creationDate"] = json!("today"))), "creationDate: must be a number, got a string");
    assert_eq!(refused(&with(|e| e["creationDate"] = json!(-1))), "creationDate: must be an integer of at least 0");
    assert_eq!(refused(&with(|e| e["creationDate"] = json!(1.5))), "creationDate: must be an integer of at least 0");
    assert_eq!(
        refused(&with(|e| e["evaluation"]["variation"] = json!(-2))),
        "evaluation.variation: must be an integer of at least 0"
    );
    assert_eq!(
        refused(&with(|e| e["measurements"][2]["values"]["old"] = json!(-0.5))),
        "measurements[2].values.old: must be a latency of at least 0 ms"
    );
    assert_eq!(
        refused(&with(|e| e["measurements"][2]["values"]["new"] = json!("3"))),
        "measurements[2].values.new: must be a number, got a string"
    );
    // A number JSON cannot write (the bindings give NaN/Infinity as numbers, not rejected by parsing).
    let mut infinite = Wire::of_json(&built_event());
    if let Wire::Object(entries) = &mut infinite {
        for (k, v) in entries.iter_mut() {
            if k == "creationDate" {
                *v = Wire::Number(f64::INFINITY);
            }
        }
    }
    assert_eq!(RelayRules::default().judge(&infinite), Err("creationDate: must be a finite number".into()));
}

#[test]
fn strings_longer_than_the_bound_are_refused_keys_included() {
    let long = "x".repeat(1025);
    let fits = "é".repeat(1024);
    assert_eq!(judge(&with(|e| e["context"]["name"] = json!(fits))), Ok(()));
    assert_eq!(refused(&with(|e| e["context"]["name"] = json!(long))), "context.name: is longer than 1024 characters");
    assert_eq!(
        refused(&with(|e| e["context"][long.as_str()] = json!(1))),
        "context: has a key longer than 1024 characters"
    );
    assert_eq!(
        refused(&with(|e| e["context"]["tags"] = json!(["a", long]))),
        "context.tags[1]: is longer than 1024 characters"
    );
    // UTF-16 units, as a page counts: 513 astral characters are 1,026 units.
    assert!(refused(&with(|e| e["evaluation"]["key"] = json!("😀".repeat(513))))
        .ends_with("is longer than 1024 characters"));
}

#[test]
fn deep_nesting_is_refused_where_it_starts_to_be_too_deep() {
    let mut deep = json!("leaf");
    for _ in 0..MAX_DEPTH {
        deep = json!({"a": deep});
    }
    let reason = refused(&with(|e| e["context"]["deep"] = deep.clone()));
    assert!(reason.ends_with(&format!("is nested deeper than {MAX_DEPTH} levels")), "{reason}");
    // Arrays nest too.
    let mut array = json!(1);
    for _ in 0..1000 {
        array = json!([array]);
    }
    assert!(refused(&with(|e| e["context"]["list"] = array.clone())).contains("nested deeper"));
    // Within the bound, nesting is data.
    assert_eq!(judge(&with(|e| e["context"]["address"] = json!({"geo": {"lat": 1, "tags": ["x"]}}))), Ok(()));
}

#[test]
fn contexts_launchdarkly_refuses_are_refused() {
    for context in [
        json!({"kind": "user"}),
        json!({"kind": "user", "key": ""}),
        json!({"kind": "user", "key": 5}),
        json!({"kind": "bad kind", "key": "k"}),
        json!({"kind": "kind", "key": "k"}),
        json!({"kind": "multi"}),
        json!({"kind": "multi", "key": "k", "user": {"key": "u"}}),
        json!({"kind": "multi", "user": {"name": "no key"}}),
        json!({"kind": "multi", "user": "u"}),
        json!({"kind": 3, "key": "k"}),
        json!({"targetingKey": "openfeature-only"}),
        json!({"kind": "user", "key": "k", "_meta": {"privateAttributes": "email"}}),
        json!({"kind": "user", "key": "k", "_meta": {"secret": true}}),
        json!({"key": "k", "privateAttributeNames": {"0": "email"}}),
        json!({"kind": "user", "key": "k", "anonymous": "yes"}),
        json!("u1"),
        json!(null),
    ] {
        assert!(judge(&with(|e| e["context"] = context.clone())).is_err(), "{context}");
    }
    assert_eq!(
        refused(&with(|e| e["context"] = json!({"kind": "multi", "user": {"key": "u"}, "org": {"name": "o"}}))),
        "context.org.key: is missing"
    );
}

#[test]
fn what_launchdarkly_would_drop_or_change_is_refused() {
    assert_eq!(
        refused(&with(|e| drop(e["evaluation"].as_object_mut().unwrap().remove("reason")))),
        "evaluation.reason: is missing (LaunchDarkly's trackMigration drops an event without one)"
    );
    assert_eq!(
        refused(&with(|e| e["samplingRatio"] = json!(3))),
        "samplingRatio: must be 1 or left out (LaunchDarkly's SDK samples a forwarded event again by its samplingRatio)"
    );
    assert!(refused(&with(|e| e["evaluation"]["reason"] = json!({"kind": "SOMETHING"})))
        .starts_with("evaluation.reason.kind: must be one of"));
    assert_eq!(refused(&with(|e| e["evaluation"]["reason"] = json!({}))), "evaluation.reason.kind: is missing");
    assert_eq!(refused(&with(|e| e["evaluation"]["key"] = json!(""))), "evaluation.key: must be a non-empty string");
}

#[test]
fn measurements_must_be_ones_a_tracker_could_build() {
    let measurements = |m: Value| with(|e| e["measurements"] = m);
    assert_eq!(refused(&measurements(json!([]))), "measurements: invoke no origin (no origins were invoked)");
    assert_eq!(
        refused(&measurements(
            json!([{"key": "invoked", "values": {"old": true}}, {"key": "latency_ms", "values": {"new": 1}}])
        )),
        "measurements: record latency for origin 'new' without its invocation"
    );
    assert_eq!(
        refused(&measurements(
            json!([{"key": "invoked", "values": {"new": true}}, {"key": "error", "values": {"old": true}}])
        )),
        "measurements: record error for origin 'old' without its invocation"
    );
    assert_eq!(
        refused(&measurements(
            json!([{"key": "invoked", "values": {"old": true}}, {"key": "consistent", "value": true, "samplingRatio": 1}])
        )),
        "measurements: record consistency without both origins invoked"
    );
    assert_eq!(
        refused(&measurements(
            json!([{"key": "invoked", "values": {"old": true}}, {"key": "invoked", "values": {"old": true}}])
        )),
        "measurements[1]: repeats a measurement key"
    );
    assert_eq!(
        refused(&measurements(json!([{"key": "invoked", "values": {"old": false}}]))),
        "measurements[0].values.old: must be true, got a boolean"
    );
    assert_eq!(
        refused(&measurements(json!([{"key": "custom", "values": {}}]))),
        "measurements[0].key: must be invoked, consistent, latency_ms or error"
    );
    assert_eq!(refused(&with(|e| e["measurements"] = json!({}))), "measurements: must be an array, got an object");
    assert_eq!(
        refused(&measurements(
            json!([{"key": "invoked", "values": {"old": true, "new": true}}, {"key": "consistent", "value": true, "samplingRatio": 0}])
        )),
        "measurements[1].samplingRatio: must be an integer of at least 1"
    );
}

#[test]
fn the_flag_key_allow_list_is_applied_when_given() {
    let rules = RelayRules { flag_keys: Some(vec!["search-backend".into(), "other".into()]) };
    assert_eq!(judge_with(&rules, &built_event()), Ok(()));
    let rules = RelayRules { flag_keys: Some(vec!["other".into()]) };
    assert_eq!(judge_with(&rules, &built_event()), Err("evaluation.key: is not one of the relay's flagKeys".into()));
    let none = RelayRules { flag_keys: Some(vec![]) };
    assert!(judge_with(&none, &built_event()).is_err());
}

#[test]
fn a_batch_answers_the_rejected_indices_in_order() {
    let good = built_event();
    let batch = [good.clone(), json!(null), good.clone(), with(|e| e["kind"] = json!("x"))];
    let batch: Vec<Wire> = batch.iter().map(Wire::of_json).collect();
    let rejected = RelayRules::default().rejections(&batch);
    assert_eq!(
        rejected,
        vec![(1, "the event must be an object, got null".to_string()), (3, "kind: must be migration_op".to_string())]
    );
}

#[test]
fn values_json_never_gives_are_refused() {
    let mut event = Wire::of_json(&built_event());
    if let Wire::Object(entries) = &mut event {
        entries.push(("samplingRatio".into(), Wire::NotData));
    }
    assert_eq!(
        RelayRules::default().judge(&event),
        Err("samplingRatio: must be a number, got a value that is not JSON data".into())
    );
    let mut context = Wire::of_json(&built_event());
    if let Wire::Object(entries) = &mut context {
        for (k, v) in entries.iter_mut() {
            if k == "context" {
                if let Wire::Object(attributes) = v {
                    attributes.push(("fn".into(), Wire::NotData));
                }
            }
        }
    }
    assert_eq!(RelayRules::default().judge(&context), Err("context.fn: is not JSON data".into()));
}
