//! Property-based tests of the migration core: context validation (SPEC A5.4), `build()` and its
//! error order (A5), the wire format of `migration_op` events (A6), the latency histogram and
//! the running statistics. Every property also asserts that nothing panics on junk input: a
//! panic in wasm kills the instance.
//!
//! Each property compares the code with a small model written here from the SPEC, not from the
//! implementation.

use std::cell::Cell;
use std::fmt;
use std::rc::Rc;

use proptest::prelude::*;
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{json, Map, Value};

use super::context::is_valid_context;
use super::delegation::Tracking;
use super::event::{Measurement, Measurements, Ratio};
use super::histogram::Histogram;
use super::op_tracker::{Evaluation, OpTracker};
use super::reason::Reason;
use super::stage::{Operation, Origin, Stage};
use super::stats::{CallRecord, MigrationStats};
use crate::host::Level;
use crate::testing::wire as wire_of;
use crate::testing::{FixedRandom, TestHost, TestValue};

// ---------------------------------------------------------------------------------------------
// Helpers

/// The keys of a JSON object in the order they were written (serde_json's `Value` sorts them).
struct OrderedKeys(Vec<String>);

impl<'de> Deserialize<'de> for OrderedKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeysVisitor;
        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = OrderedKeys;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedKeys, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(key);
                }
                Ok(OrderedKeys(keys))
            }
        }
        deserializer.deserialize_map(KeysVisitor)
    }
}

fn ordered_keys(text: &str) -> Vec<String> {
    serde_json::from_str::<OrderedKeys>(text).unwrap().0
}

/// JSON equality, except that floats may differ in the last bits: serde_json's parser (without
/// its `float_roundtrip` feature) does not always read back the exact f64 it wrote.
fn json_close(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            // Subnormals carry fewer digits: serde_json's text of 1.548046052766097e-309 reads back
            // as 1.5480460527661e-309 (a failing case CI found), so below the normal range they only
            // need to be within the smallest normal number of each other.
            x == y || (x - y).abs() <= 1e-15 * x.abs().max(y.abs()) || (x - y).abs() <= f64::MIN_POSITIVE
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_close(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_close(v, w)))
        }
        _ => a == b,
    }
}

/// Floats that break naive code: NaN, infinities, signed zero, subnormals, huge values, the
/// edges of the exactly representable integers, and fractional ratios.
fn special_f64() -> impl Strategy<Value = f64> {
    prop::sample::select(vec![
        0.0,
        -0.0,
        1.0,
        2.0,
        3.0,
        100.0,
        0.5,
        2.5,
        -1.0,
        -7.0,
        1.0 + f64::EPSILON,
        1.0 - f64::EPSILON,
        5e-324,
        f64::MIN_POSITIVE,
        1e-300,
        1e19,
        1e300,
        f64::MAX,
        f64::MIN,
        9_007_199_254_740_991.0,
        9_007_199_254_740_992.0,
        -9_007_199_254_740_992.0,
        18_446_744_073_709_551_616.0,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ])
}

/// Any f64, biased towards the special ones.
fn junk_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => special_f64(),
        2 => any::<f64>(),
        2 => -1e6f64..1e6,
        1 => (0u32..20).prop_map(f64::from),
    ]
}

/// A sampling ratio: mostly 1 (the default), else anything.
fn ratio() -> impl Strategy<Value = f64> {
    prop_oneof![2 => Just(1.0), 1 => (1u32..10).prop_map(f64::from), 2 => junk_f64()]
}

fn origin() -> impl Strategy<Value = Origin> {
    prop_oneof![Just(Origin::Old), Just(Origin::New)]
}

fn operation() -> impl Strategy<Value = Operation> {
    prop_oneof![Just(Operation::Read), Just(Operation::Write)]
}

fn stage() -> impl Strategy<Value = Stage> {
    prop::sample::select(Stage::ALL.to_vec())
}

/// The JSON form of a finite f64, or `null` for NaN and infinities (what serde_json writes).
fn f64_json(x: f64) -> Value {
    if !x.is_finite() {
        Value::Null
    } else if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
        json!(x as i64)
    } else {
        json!(x)
    }
}

/// A ratio on the wire: an integer when it is a whole number that JavaScript represents
/// exactly, else a float (`null` when not finite).
fn ratio_json(r: f64) -> Value {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if r.is_finite() && r.trunc() == r && -EXACT < r && r < EXACT {
        json!(r as i64)
    } else {
        f64_json(r)
    }
}

/// SPEC A5: "a non-integer or ≤ 0 never samples, 1 always samples, N samples with probability
/// 1/N". With a random source fixed at 0.0 every N ≥ 1 samples.
fn samples_with_zero_random(r: f64) -> bool {
    r > 0.0 && r.is_finite() && r.trunc() == r
}

fn zero_random_host() -> TestHost {
    TestHost::new(1).with_random(Rc::new(FixedRandom(Cell::new(0.0))))
}

// ---------------------------------------------------------------------------------------------
// Contexts

/// Kind names: valid ones, the reserved `kind` and `multi`, and names with characters outside
/// `A-Z a-z 0-9 . _ -`.
fn kind_name() -> BoxedStrategy<String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "user", "org", "device", "a.b-c_9", "_", "-", ".", "Multi", "KIND", "_meta", "key",
            "kind", "multi", "", "us er", "usér", "b@d", "é", "user\n", " user", "ü-1",
        ])
        .prop_map(String::from),
        2 => "[A-Za-z0-9._-]{1,8}",
        1 => "[a-z@ é.\\-]{0,4}",
        1 => any::<String>(),
    ]
    .boxed()
}

fn attribute_name() -> BoxedStrategy<String> {
    prop_oneof![
        2 => prop::sample::select(vec!["key", "kind", "name", "_meta", "anonymous", "email"]).prop_map(String::from),
        1 => kind_name(),
    ]
    .boxed()
}

fn scalar_json() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-9_000_000_000_000_000i64..9_000_000_000_000_000).prop_map(Value::from),
        junk_f64().prop_map(f64_json),
        "[a-z ]{0,5}".prop_map(Value::String),
        Just(json!("multi")),
        Just(json!("")),
    ]
    .boxed()
}

fn arb_json() -> BoxedStrategy<Value> {
    scalar_json()
        .prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((attribute_name(), inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
        .boxed()
}

/// A `key` attribute: mostly a non-empty string, sometimes empty or not a string at all.
fn key_value() -> BoxedStrategy<Value> {
    prop_oneof![
        5 => "[a-z0-9]{1,6}".prop_map(Value::String),
        1 => Just(json!("")),
        1 => any::<String>().prop_map(Value::String),
        1 => scalar_json(),
        1 => Just(json!({"key": "k"})),
        1 => Just(json!(["k"])),
    ]
    .boxed()
}

/// A single (or legacy) context, with random kind, key, OpenFeature targetingKey and attributes.
fn single_context() -> BoxedStrategy<Map<String, Value>> {
    (
        prop::option::weighted(0.8, prop_oneof![5 => kind_name().prop_map(Value::String), 1 => scalar_json()]),
        (prop::option::weighted(0.7, key_value()), prop::option::weighted(0.4, key_value())),
        prop::collection::vec((attribute_name(), arb_json()), 0..3),
        prop::option::of(Just(json!({"privateAttributes": ["name"]}))),
    )
        .prop_map(|(kind, (key, targeting_key), attributes, meta)| {
            let mut context: Map<String, Value> = attributes.into_iter().collect();
            if let Some(meta) = meta {
                context.insert("_meta".into(), meta);
            }
            if let Some(kind) = kind {
                context.insert("kind".into(), kind);
            }
            if let Some(key) = key {
                context.insert("key".into(), key);
            }
            if let Some(key) = targeting_key {
                context.insert("targetingKey".into(), key);
            }
            context
        })
        .boxed()
}

/// A `{kind: "multi", …}` context with 0–3 nested entries (some of them junk or multi again)
/// and, rarely, a forbidden top-level `key`.
fn multi_context() -> BoxedStrategy<Value> {
    let nested = prop_oneof![
        5 => single_context().prop_map(Value::Object),
        1 => arb_json(),
        1 => Just(json!({"kind": "multi", "user": {"key": "u"}})),
    ];
    (prop::collection::vec((kind_name(), nested), 0..4), prop::option::weighted(0.15, key_value()))
        .prop_map(|(nested, key)| {
            let mut context: Map<String, Value> = nested.into_iter().collect();
            if let Some(key) = key {
                context.insert("key".into(), key);
            }
            context.insert("kind".into(), json!("multi"));
            Value::Object(context)
        })
        .boxed()
}

fn arb_context() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => single_context().prop_map(Value::Object),
        3 => multi_context(),
        1 => arb_json(),
    ]
    .boxed()
}

/// Contexts built to be valid by SPEC A5.4.
fn valid_context() -> BoxedStrategy<Value> {
    let kind = "[A-Za-z0-9._-]{1,8}".prop_filter("reserved kind", |k| k != "kind" && k != "multi");
    let key = "[^\u{0}]{1,6}";
    let attributes = prop::collection::vec(("[a-z]{1,5}", arb_json()), 0..3);
    let single = (prop::option::of(kind.clone()), key, attributes.clone()).prop_map(|(kind, key, attributes)| {
        let mut context: Map<String, Value> =
            attributes.into_iter().filter(|(name, _)| name != "kind" && name != "key").collect();
        if let Some(kind) = kind {
            context.insert("kind".into(), json!(kind));
        }
        context.insert("key".into(), json!(key));
        context.insert("_meta".into(), json!({"privateAttributes": []}));
        Value::Object(context)
    });
    let nested = (kind, "[a-z0-9]{1,4}", attributes).prop_map(|(kind, key, attributes)| {
        let mut inner: Map<String, Value> = attributes.into_iter().collect();
        inner.insert("key".into(), json!(key));
        (kind, Value::Object(inner))
    });
    let multi = prop::collection::vec(nested, 1..4).prop_map(|nested| {
        let mut context: Map<String, Value> = nested.into_iter().collect();
        context.insert("kind".into(), json!("multi"));
        Value::Object(context)
    });
    prop_oneof![single, multi].boxed()
}

/// SPEC A5.4, written out.
fn model_valid_context(context: &Value) -> bool {
    fn kind_ok(kind: &str, allow_multi: bool) -> bool {
        let charset_ok = kind.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        !kind.is_empty() && charset_ok && kind != "kind" && (allow_multi || kind != "multi")
    }
    fn key_ok(context: &Map<String, Value>) -> bool {
        // `key` when present, else OpenFeature's `targetingKey`.
        let key = context.get("key").or_else(|| context.get("targetingKey"));
        key.and_then(Value::as_str).is_some_and(|k| !k.is_empty())
    }
    let Some(top) = context.as_object() else {
        return false;
    };
    match top.get("kind") {
        // legacy user
        None => key_ok(top),
        Some(Value::String(kind)) if kind == "multi" => {
            let nested: Vec<_> = top.iter().filter(|(name, _)| name.as_str() != "kind").collect();
            !top.contains_key("key")
                && !nested.is_empty()
                && nested.iter().all(|(name, inner)| kind_ok(name, false) && inner.as_object().is_some_and(key_ok))
        }
        Some(Value::String(kind)) => kind_ok(kind, false) && key_ok(top),
        Some(_) => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn context_validation_matches_the_model(context in arb_context()) {
        prop_assert_eq!(is_valid_context(&context), model_valid_context(&context), "{}", context);
    }

    #[test]
    fn constructed_valid_contexts_are_accepted(context in valid_context()) {
        prop_assert!(model_valid_context(&context), "{}", context);
        prop_assert!(is_valid_context(&context), "{}", context);
    }

    /// Breaking one rule of a valid context makes it invalid.
    #[test]
    fn one_broken_rule_makes_a_valid_context_invalid(context in valid_context(), which in 0u8..6) {
        let mut broken = context.clone();
        let object = broken.as_object_mut().unwrap();
        let is_multi = object.get("kind") == Some(&json!("multi"));
        match (which, is_multi) {
            (0, _) => { object.insert("kind".into(), json!(7)); }
            (1, false) => { object.insert("key".into(), json!("")); }
            (2, false) => { object.remove("key"); }
            (3, false) => { object.insert("kind".into(), json!("multi")); }
            (4, false) => { object.insert("kind".into(), json!("kind")); }
            (5, false) => { object.insert("kind".into(), json!("us/er")); }
            (1, true) => { object.insert("key".into(), json!("k")); }
            (2, true) => { object.insert("multi".into(), json!({"key": "m"})); }
            (3, true) => { object.insert("b@d".into(), json!({"key": "m"})); }
            (4, true) => { object.insert("user".into(), json!({"key": ""})); }
            _ => { object.insert("org".into(), json!("not an object")); }
        }
        prop_assert!(!model_valid_context(&broken), "{}", broken);
        prop_assert!(!is_valid_context(&broken), "{}", broken);
    }
}

// ---------------------------------------------------------------------------------------------
// Measurements on the wire (SPEC A6)

fn arb_measurements() -> impl Strategy<Value = Measurements> {
    (
        any::<[bool; 2]>(),
        [prop::option::of(junk_f64()), prop::option::of(junk_f64())],
        any::<[bool; 2]>(),
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(invoked, latency, error, consistent)| Measurements { invoked, latency, error, consistent })
}

fn flags_json(flags: [bool; 2]) -> Value {
    let mut values = Map::new();
    for (name, set) in ["old", "new"].into_iter().zip(flags) {
        if set {
            values.insert(name.into(), json!(true));
        }
    }
    Value::Object(values)
}

/// SPEC A6's measurement list: invoked, consistent, latency_ms, error, each only when it applies.
fn model_wire(
    invoked: [bool; 2],
    latency: [Option<f64>; 2],
    error: [bool; 2],
    consistent: Option<bool>,
    check_ratio: f64,
) -> Value {
    let mut out = Vec::new();
    if invoked.contains(&true) {
        out.push(json!({"key": "invoked", "values": flags_json(invoked)}));
    }
    if let Some(value) = consistent {
        let mut m = json!({"key": "consistent", "value": value});
        if check_ratio != 1.0 {
            m["samplingRatio"] = ratio_json(check_ratio);
        }
        out.push(m);
    }
    if latency.iter().any(Option::is_some) {
        let mut values = Map::new();
        for (name, ms) in ["old", "new"].into_iter().zip(latency) {
            if let Some(ms) = ms {
                values.insert(name.into(), f64_json(ms));
            }
        }
        out.push(json!({"key": "latency_ms", "values": values}));
    }
    if error.contains(&true) {
        out.push(json!({"key": "error", "values": flags_json(error)}));
    }
    Value::Array(out)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn measurements_serialize_in_wire_order(m in arb_measurements(), check_ratio in ratio()) {
        let wire = m.to_wire(Ratio(check_ratio));
        let expected = model_wire(m.invoked, m.latency, m.error, m.consistent, check_ratio);
        prop_assert_eq!(wire_of(&wire), expected.clone());
        // The text is valid JSON (no NaN or Infinity literals) and says the same.
        let text = serde_json::to_string(&wire).unwrap();
        let reread: Value = serde_json::from_str(&text).unwrap();
        prop_assert!(json_close(&reread, &expected), "{} vs {}", reread, expected);
        // Within each measurement, `key` comes first, then the fields in declaration order,
        // and `old` before `new`.
        for item in &wire {
            let text = serde_json::to_string(item).unwrap();
            let keys = ordered_keys(&text);
            let value = wire_of(item);
            let expected_keys: Vec<&str> = match value["key"].as_str().unwrap() {
                "consistent" if value.get("samplingRatio").is_some() => vec!["key", "value", "samplingRatio"],
                "consistent" => vec!["key", "value"],
                _ => vec!["key", "values"],
            };
            prop_assert_eq!(keys, expected_keys, "{}", text);
            if let (Some(old), Some(new)) = (text.find("\"old\":"), text.find("\"new\":")) {
                prop_assert!(old < new, "{}", text);
            }
        }
    }

    #[test]
    fn ratios_serialize_as_numbers_and_never_panic(r in junk_f64()) {
        let consistent = Measurement::Consistent { value: true, sampling_ratio: Some(Ratio(r)) };
        let text = serde_json::to_value(&consistent).unwrap()["samplingRatio"].to_string();
        let reread: Value = serde_json::from_str(&text).unwrap();
        prop_assert!(json_close(&reread, &ratio_json(r)), "{} vs {}", reread, ratio_json(r));
        prop_assert_eq!(Ratio(r).is_one(), r == 1.0);
    }
}

// ---------------------------------------------------------------------------------------------
// OpTracker::build (SPEC A5) and the event it makes (A6)

#[derive(Clone, Debug)]
enum Step {
    Op(Operation),
    Invoked(Origin),
    Latency(Origin, f64),
    Error(Origin),
    /// `consistent()`: sampled with `checkRatio`, then the comparison answers.
    Check(Result<bool, String>),
    /// `record_check()`: the host ran the comparison itself.
    Record(Result<bool, String>),
}

fn step() -> impl Strategy<Value = Step> {
    let answer = prop_oneof![4 => any::<bool>().prop_map(Ok), 1 => "[a-z]{1,5}".prop_map(Err)];
    prop_oneof![
        2 => operation().prop_map(Step::Op),
        4 => origin().prop_map(Step::Invoked),
        3 => (origin(), prop_oneof![3 => 0.0f64..500.0, 1 => junk_f64()]).prop_map(|(o, ms)| Step::Latency(o, ms)),
        2 => origin().prop_map(Step::Error),
        1 => answer.clone().prop_map(Step::Check),
        1 => answer.prop_map(Step::Record),
    ]
}

fn evaluation() -> impl Strategy<Value = Evaluation<TestValue>> {
    (
        stage(),
        stage(),
        prop::option::of(prop_oneof![Just(json!({"kind": "FALLTHROUGH"})), arb_json()]),
        prop::option::of(-9_000_000_000_000_000i64..9_000_000_000_000_000),
        prop::option::of(-9_000_000_000_000_000i64..9_000_000_000_000_000),
        ratio(),
        ratio(),
    )
        .prop_map(|(value, default, reason, variation, version, check_ratio, sampling_ratio)| Evaluation {
            value,
            default,
            reason: reason.map(|r| Reason::Given(TestValue::Json(r))),
            variation,
            version,
            check_ratio,
            sampling_ratio,
        })
}

fn flag_key() -> impl Strategy<Value = String> {
    prop_oneof![2 => Just(String::new()), 6 => "[a-z-]{1,8}", 1 => any::<String>()]
}

fn host_context() -> impl Strategy<Value = TestValue> {
    prop_oneof![
        4 => arb_context().prop_map(TestValue::Json),
        4 => valid_context().prop_map(TestValue::Json),
        1 => "[a-z]{0,4}".prop_map(TestValue::Text),
    ]
}

fn epoch() -> impl Strategy<Value = f64> {
    prop_oneof![4 => 1.7e12f64..1.9e12, 1 => junk_f64()]
}

/// What the tracker should have recorded, by SPEC A4/A5.
#[derive(Default)]
struct TrackerModel {
    operation: Option<Operation>,
    invoked: [bool; 2],
    latency: [Option<f64>; 2],
    error: [bool; 2],
    consistent: Option<bool>,
}

impl TrackerModel {
    fn apply(&mut self, step: &Step, check_ratio: f64) {
        match step {
            Step::Op(op) => self.operation = Some(*op),
            Step::Invoked(o) => self.invoked[o.index()] = true,
            // The tracker refuses (and does not record) a latency that is not finite and ≥ 0.
            Step::Latency(o, ms) if ms.is_finite() && *ms >= 0.0 => self.latency[o.index()] = Some(*ms),
            Step::Latency(..) => {}
            Step::Error(o) => self.error[o.index()] = true,
            Step::Check(answer) => {
                if let (true, Ok(v)) = (samples_with_zero_random(check_ratio), answer) {
                    self.consistent = Some(*v);
                }
            }
            Step::Record(answer) => {
                if let Ok(v) = answer {
                    self.consistent = Some(*v);
                }
            }
        }
    }

    /// The first SPEC A5 rule broken, as its exact message.
    fn build_error(&self, flag_key: &str, context: &TestValue) -> Option<String> {
        if self.operation.is_none() {
            return Some("operation not provided".into());
        }
        if flag_key.is_empty() {
            return Some("migration operation cannot contain an empty key".into());
        }
        if self.invoked == [false, false] {
            return Some("no origins were invoked".into());
        }
        let context_ok = match context {
            TestValue::Json(v) => model_valid_context(v),
            TestValue::Text(_) => false,
        };
        if !context_ok {
            return Some("provided context was invalid".into());
        }
        for (i, name) in ["old", "new"].into_iter().enumerate() {
            if self.invoked[i] {
                continue;
            }
            if self.latency[i].is_some() {
                return Some(format!("provided latency for origin '{name}' without recording invocation"));
            }
            if self.error[i] {
                return Some(format!("provided error for origin '{name}' without recording invocation"));
            }
        }
        if self.consistent.is_some() && self.invoked != [true, true] {
            return Some("provided consistency without recording both invocations".into());
        }
        None
    }
}

/// `creationDate`: whole ms, clamped into u64.
fn model_creation_date(epoch_ms: f64) -> u64 {
    if epoch_ms.is_nan() || epoch_ms < 1.0 {
        0
    } else if epoch_ms >= 18_446_744_073_709_551_616.0 {
        u64::MAX
    } else {
        epoch_ms.floor() as u64
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn build_reports_the_first_spec_error_or_the_exact_event(
        key in flag_key(),
        context in host_context(),
        eval in evaluation(),
        steps in prop::collection::vec(step(), 0..10),
        epoch_ms in epoch(),
    ) {
        let th = zero_random_host();
        let mut tracker = OpTracker::new(key.clone(), context.clone(), eval.clone());
        let mut model = TrackerModel::default();
        for s in &steps {
            match s {
                Step::Op(op) => tracker.operation(*op),
                Step::Invoked(o) => tracker.invoked(*o),
                Step::Latency(o, ms) => {
                    let refused = tracker.latency(*o, *ms).is_err();
                    prop_assert_eq!(refused, !(ms.is_finite() && *ms >= 0.0), "latency {}", ms);
                }
                Step::Error(o) => tracker.error(*o),
                Step::Check(answer) => {
                    let answer = answer.clone().map_err(TestValue::Text);
                    tracker.consistent(&th.host, move || answer);
                }
                Step::Record(answer) => {
                    tracker.record_check(&th.host, answer.clone().map_err(TestValue::Text));
                }
            }
            model.apply(s, eval.check_ratio);
        }
        let built = tracker.build(epoch_ms);
        match (model.build_error(&key, &context), built) {
            (Some(want), Err(got)) => prop_assert_eq!(got.to_string(), want),
            (Some(want), Ok(event)) => return Err(TestCaseError::fail(format!("expected {want:?}, got {event:?}"))),
            (None, Err(got)) => return Err(TestCaseError::fail(format!("expected an event, got {got}"))),
            (None, Ok(event)) => {
                let value = wire_of(&event);
                let TestValue::Json(context_json) = &context else { unreachable!() };
                let mut evaluation = json!({"key": key, "value": eval.value.as_str(), "default": eval.default.as_str()});
                if let Some(reason) = &eval.reason {
                    evaluation["reason"] = wire_of(reason);
                }
                if let Some(variation) = eval.variation {
                    evaluation["variation"] = json!(variation);
                }
                if let Some(version) = eval.version {
                    evaluation["version"] = json!(version);
                }
                let mut expected = json!({
                    "kind": "migration_op",
                    "creationDate": f64_json(model_creation_date(epoch_ms) as f64),
                    "operation": match model.operation { Some(Operation::Read) => "read", _ => "write" },
                    "context": context_json,
                    "evaluation": evaluation,
                    "measurements": model_wire(model.invoked, model.latency, model.error, model.consistent, eval.check_ratio),
                });
                if eval.sampling_ratio != 1.0 {
                    expected["samplingRatio"] = ratio_json(eval.sampling_ratio);
                }
                prop_assert_eq!(value, expected.clone());
                let text = serde_json::to_string(&event).unwrap();
                let reread: Value = serde_json::from_str(&text).unwrap();
                prop_assert!(json_close(&reread, &expected), "{} vs {}", reread, expected);
                let mut top = vec!["kind", "creationDate", "operation", "context", "evaluation"];
                if eval.sampling_ratio != 1.0 {
                    top.push("samplingRatio");
                }
                top.push("measurements");
                prop_assert_eq!(ordered_keys(&text), top);
            }
        }

        // `finish`: a failed build is logged with its message and sends nothing; a good one is
        // sent when the 1-in-samplingRatio sampler picks it.
        let expected_error = model.build_error(&key, &context);
        let tracking = Tracking::Own(tracker);
        let sent = tracking.finish(&th.host);
        let errors = th.logger.messages(Level::Error);
        match expected_error {
            Some(message) => {
                prop_assert!(sent.is_none());
                prop_assert_eq!(
                    errors.last().cloned(),
                    Some(format!("error generating migration op event {message}; no event will be emitted"))
                );
            }
            None => {
                prop_assert_eq!(sent.is_some(), samples_with_zero_random(eval.sampling_ratio));
                prop_assert!(!errors.iter().any(|e| e.starts_with("error generating")));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Histogram and statistics

/// The top bucket starts at 0.001 ms × 1.04^718 ≈ 1.7e9 ms (19.6 days); the 2% bound is
/// documented for values below it.
const HISTOGRAM_RESOLVED_MAX_MS: f64 = 1.6e9;

fn latency_value() -> impl Strategy<Value = f64> {
    prop_oneof![
        6 => (-6.0f64..HISTOGRAM_RESOLVED_MAX_MS.log10()).prop_map(|e| 10f64.powf(e)),
        1 => Just(0.0),
        1 => Just(0.001),
        1 => (0i32..718).prop_map(|k| 0.001 * 1.04f64.powi(k)),
        1 => (0u32..400).prop_map(|n| f64::from(n) * 0.25),
    ]
}

/// Junk without the finite values ≥ 1e305 that trigger the `bucket_of` overflow.
fn junk_below_overflow() -> impl Strategy<Value = f64> {
    junk_f64().prop_map(|v| if v.is_finite() && v.abs() > 1e305 { v / 1e10 } else { v })
}

/// The exact nearest-rank percentile `p/100` of sorted data.
fn nearest_rank(sorted: &[f64], p: usize) -> f64 {
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn histogram_percentiles_are_within_two_percent(values in prop::collection::vec(latency_value(), 1..400)) {
        let mut h = Histogram::default();
        for v in &values {
            h.record(*v);
        }
        let s = h.summary().unwrap();
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let (min, max) = (sorted[0], sorted[sorted.len() - 1]);
        prop_assert_eq!(s.count, values.len() as u64);
        prop_assert_eq!(s.max, max);
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        prop_assert!((s.mean - mean).abs() <= 1e-9 * mean.max(1.0));
        for (got, p) in [(s.p50, 50), (s.p90, 90), (s.p99, 99)] {
            let exact = nearest_rank(&sorted, p);
            prop_assert!(min <= got && got <= max, "p{p} {got} outside [{min}, {max}]");
            if exact >= 0.001 {
                prop_assert!((got - exact).abs() <= 0.02 * exact, "p{p}: {got} vs exact {exact}");
            }
        }
    }

    /// BUG (found by this property): a finite latency ≥ ~1.8e305 ms panics with "attempt to add
    /// with overflow" in `bucket_of` (`ms / FLOOR_MS` is infinite, `as usize` saturates, `+ 1`
    /// overflows). Debug builds panic; release builds wrap to bucket 0. Minimal case:
    /// `values = [1.7976931348623157e308]`; see `histogram_records_a_huge_latency_without_panicking`.
    #[test]
    fn histogram_ignores_junk_and_stays_in_range(values in prop::collection::vec(junk_f64(), 0..200)) {
        check_histogram_on_junk(&values)?;
    }

    /// The same, without the values that trigger the overflow above, so that the rest of the
    /// property keeps being checked.
    #[test]
    fn histogram_ignores_junk_below_the_overflow(
        values in prop::collection::vec(junk_below_overflow(), 0..200),
    ) {
        check_histogram_on_junk(&values)?;
    }
}

fn check_histogram_on_junk(values: &[f64]) -> Result<(), TestCaseError> {
    let mut h = Histogram::default();
    for v in values {
        h.record(*v);
    }
    let kept: Vec<f64> = values.iter().copied().filter(|v| v.is_finite() && *v >= 0.0).collect();
    match h.summary() {
        None => prop_assert!(kept.is_empty()),
        Some(s) => {
            prop_assert_eq!(s.count, kept.len() as u64);
            let min = kept.iter().copied().fold(f64::INFINITY, f64::min);
            let max = kept.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            prop_assert_eq!(s.max, max);
            for got in [s.p50, s.p90, s.p99] {
                prop_assert!(min <= got && got <= max, "{got} outside [{min}, {max}]");
            }
            prop_assert!(!s.mean.is_nan());
        }
    }
    Ok(())
}

/// Minimal case of the `bucket_of` overflow (see `histogram_ignores_junk_and_stays_in_range`).
#[test]
fn histogram_records_a_huge_latency_without_panicking() {
    let mut h = Histogram::default();
    h.record(1e306);
    h.record(f64::MAX);
    let s = h.summary().unwrap();
    assert_eq!((s.count, s.max), (2, f64::MAX));
    assert!(1e306 <= s.p50 && s.p99 <= f64::MAX);
}

/// The same overflow reached through the public statistics API.
#[test]
fn stats_record_a_huge_latency_without_panicking() {
    let mut stats = MigrationStats::default();
    stats.record_call(
        Operation::Read,
        Origin::Old,
        CallRecord { latency_ms: f64::MAX, failed: false, timed_out: false },
    );
    let snapshot = stats.snapshot();
    assert_eq!(snapshot.read.old.invoked, 1);
    assert_eq!(snapshot.read.old.latency_ms.map(|l| l.count), Some(1));
}

#[derive(Clone, Debug)]
enum StatsStep {
    Call(Operation, Origin, f64, bool, bool),
    Check(bool),
    Completed(Operation, Stage),
}

fn stats_step() -> impl Strategy<Value = StatsStep> {
    prop_oneof![
        // Latencies past 1e305 ms hit the `bucket_of` overflow reported above.
        3 => (operation(), origin(), junk_below_overflow(), any::<bool>(), any::<bool>())
            .prop_map(|(op, o, ms, failed, timed_out)| StatsStep::Call(op, o, ms, failed, timed_out)),
        1 => any::<bool>().prop_map(StatsStep::Check),
        2 => (operation(), stage()).prop_map(|(op, s)| StatsStep::Completed(op, s)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn stats_count_every_record_and_serialize(steps in prop::collection::vec(stats_step(), 0..60)) {
        let mut stats = MigrationStats::default();
        // [op][origin] = (invoked, errors, timeouts, latencies kept)
        let mut calls = [[(0u64, 0u64, 0u64, 0u64); 2]; 2];
        let mut completed = [[0u64; 6]; 2];
        let (mut checked, mut consistent) = (0u64, 0u64);
        let op_index = |op: Operation| match op { Operation::Read => 0, Operation::Write => 1 };
        for s in &steps {
            match *s {
                StatsStep::Call(op, origin, latency_ms, failed, timed_out) => {
                    stats.record_call(op, origin, CallRecord { latency_ms, failed, timed_out });
                    let c = &mut calls[op_index(op)][origin.index()];
                    c.0 += 1;
                    c.1 += u64::from(failed);
                    c.2 += u64::from(timed_out);
                    c.3 += u64::from(latency_ms.is_finite() && latency_ms >= 0.0);
                }
                StatsStep::Check(v) => {
                    stats.record_check(v);
                    checked += 1;
                    consistent += u64::from(v);
                }
                StatsStep::Completed(op, stage) => {
                    stats.record_completed(op, stage);
                    completed[op_index(op)][stage.index()] += 1;
                }
            }
        }
        let snapshot = serde_json::to_value(stats.snapshot()).unwrap();
        for (op, name) in [(0, "read"), (1, "write")] {
            let s = &snapshot[name];
            prop_assert_eq!(&s["count"], &json!(completed[op].iter().sum::<u64>()));
            let mut by_stage = Map::new();
            for stage in Stage::ALL {
                let n = completed[op][stage.index()];
                if n > 0 {
                    by_stage.insert(stage.as_str().into(), json!(n));
                }
            }
            prop_assert_eq!(&s["byStage"], &Value::Object(by_stage));
            for (origin, oname) in [(0, "old"), (1, "new")] {
                let (invoked, errors, timeouts, kept) = calls[op][origin];
                prop_assert_eq!(&s[oname]["invoked"], &json!(invoked));
                prop_assert_eq!(&s[oname]["errors"], &json!(errors));
                prop_assert_eq!(&s[oname]["timeouts"], &json!(timeouts));
                if kept == 0 {
                    prop_assert_eq!(&s[oname]["latencyMs"], &Value::Null);
                } else {
                    prop_assert_eq!(&s[oname]["latencyMs"]["count"], &json!(kept));
                }
            }
            let (c, k) = if op == 0 { (checked, consistent) } else { (0, 0) };
            prop_assert_eq!(&s["consistency"], &json!({"checked": c, "consistent": k, "paths": {}}));
        }
    }
}
