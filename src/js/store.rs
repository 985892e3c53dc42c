//! A JavaScript store object as the core's `BigSegmentStore` (`segments/store.rs`), and its
//! membership answers as frozen JavaScript objects.

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use js_sys::{Function, Object};
use wasm_bindgen::prelude::*;

use super::intern::intern;
use super::native_store::NativeStore;
use super::promise::awaited;
use super::value::{finite, get, got, method, object_keys, set, type_error};
use crate::segments::membership::{counted_entries, within_bound};
use crate::segments::{BigSegmentStore, BigSegmentsStatus, StoreMetadata};

/// A store written in JavaScript: `getMetadata()`, `getMembership(hash)` (or LaunchDarkly's
/// `getUserMembership`), and optionally `close()`. Its methods are looked up when they are
/// called (a stub installed later takes effect); construction only checks that they exist.
pub struct JsStore {
    target: JsValue,
    empty: JsMembership,
    /// The Rust store behind a `redisBigSegmentStore` or `dynamoDbBigSegmentStore` object,
    /// queried directly instead of through the object's methods.
    native: Option<NativeStore>,
}

/// A membership as the cache keeps it: one JavaScript handle, 8 bytes. Until a lookup answers
/// from it, the frozen membership object; from then on the frozen `{membership, status}` answer
/// of the status it was last asked with, which warm lookups hand out again (the facade resolves
/// a promise with it). Measured (issue 32, 200,000 cached contexts, wasm memory + JS heap,
/// tests/hardening/helpers/cache-memory.mjs): 197 B per cached context, the cache's node and
/// key included; 637 B before, with the answers and resolved promises of every status kept in
/// an `Rc` and memberships in V8's dictionary mode.
#[derive(Clone)]
pub struct JsMembership {
    value: JsValue,
    /// The status `value` is the answer for; `None`: `value` is the membership itself.
    answered: Option<BigSegmentsStatus>,
}

impl JsMembership {
    fn new(membership: JsValue) -> Self {
        JsMembership { value: membership, answered: None }
    }

    /// The frozen membership object.
    fn membership(&self) -> JsValue {
        match self.answered {
            None => self.value.clone(),
            // Our own frozen answer: a data property, so the read cannot throw.
            Some(_) => js_sys::Reflect::get(&self.value, intern("membership")).unwrap_or(JsValue::NULL),
        }
    }

    /// The frozen answer for `status`, kept in place of what was kept before.
    pub(super) fn answer(&mut self, status: BigSegmentsStatus) -> JsValue {
        if self.answered != Some(status) {
            self.value = answer_object(&self.membership(), status);
            self.answered = Some(status);
        }
        self.value.clone()
    }
}

/// A frozen `{membership, status}` (made by the bridge, as an object literal).
pub(super) fn answer_object(membership: &JsValue, status: BigSegmentsStatus) -> JsValue {
    super::bridge::answer_object(membership, intern(status.as_str()))
}

/// A frozen null-prototype object of `entries` (segment ref → included). Made as `new Object()`
/// whose prototype is then set to null, its entries defined read-only and non-configurable, then
/// made non-extensible (so frozen: `Object.isFrozen` is true): V8 keeps such an object in fast
/// mode, with a shape shared by every membership of the same refs in the same order, where
/// `Object.create(null)` makes a dictionary. Measured (Node 20, two entries): 57 B against 256 B.
/// Not through `Object.freeze`: Node 20's V8 has a fatal error in its deoptimizer that the
/// `BigSegmentStoreManager` fuzz family meets on a loaded machine (seed 42 before issue 32 too);
/// with such objects frozen, seed 7 met it as well (2 runs in 2), defined this way it did not.
pub(super) fn membership_object(entries: &mut dyn Iterator<Item = (JsValue, bool)>) -> JsValue {
    let o = Object::set_prototype_of(&Object::new(), &JsValue::NULL.into());
    let (mut included, mut excluded) = (None, None);
    for (key, value) in entries {
        let slot = if value { &mut included } else { &mut excluded };
        let descriptor = slot.get_or_insert_with(|| {
            let d = Object::new();
            set(&d, "value", &JsValue::from_bool(value));
            set(&d, "enumerable", &JsValue::TRUE);
            d
        });
        let _ = js_sys::Reflect::define_property(&o, &key, descriptor);
    }
    Object::prevent_extensions(&o);
    o.into()
}

impl JsStore {
    /// `native`: the Rust store `store` was made for, if it is such a store object.
    pub(super) fn from_js(store: &JsValue, native: Option<NativeStore>) -> Result<Self, JsValue> {
        let missing = |what: &str| {
            type_error(&format!("store must be an object with getMetadata and {what} methods, {}", got(store)))
        };
        method(store, "getMetadata").ok_or_else(|| missing("getMembership"))?;
        method(store, "getMembership")
            .or_else(|| method(store, "getUserMembership"))
            .ok_or_else(|| missing("getMembership (or getUserMembership)"))?;
        Ok(JsStore {
            target: store.clone(),
            empty: JsMembership::new(membership_object(&mut std::iter::empty())),
            native,
        })
    }
}

/// A store's membership answer as a frozen null-prototype object of the entries the core
/// counts (`segments::membership`). Reads the answer's own enumerable keys (none when it is not
/// an object or refuses to list them; a key whose read throws is unreadable); keys are data
/// (a `__proto__` key is an ordinary entry). An answer with more keys than the core's bound is
/// refused before any entry is read: a `RangeError` naming `owner` (the store method), the
/// bound and the count, which the manager logs as a store error. Only a store miss pays for
/// this copy: reading each entry from here costs about 0.3 µs per key more than the facade's
/// JavaScript copy did (a miss on a one-key answer 6.0 → 6.6 µs, Node 20, paired runs; 0.2 µs
/// with no keys).
fn membership_from(answer: &JsValue, owner: &'static str) -> Result<Option<JsMembership>, JsValue> {
    if answer.is_undefined() || answer.is_null() {
        return Ok(None);
    }
    let keys = if answer.is_object() { object_keys(answer).ok() } else { None };
    let listed = keys.as_ref().map_or(0, |keys| keys.length() as usize);
    within_bound(owner, listed).map_err(|refused| JsValue::from(js_sys::RangeError::new(&refused.to_string())))?;
    let read = keys.iter().flat_map(|keys| keys.iter()).map(|key| {
        let value = js_sys::Reflect::get(answer, &key).ok().and_then(|v| v.as_bool());
        (key, value)
    });
    Ok(Some(JsMembership::new(membership_object(&mut counted_entries(read).into_iter()))))
}

/// Who answered, for launchDarklyBigSegmentStore's copy of a JavaScript store's answer.
const LAUNCHDARKLY_STORE: &str = "launchDarklyBigSegmentStore: the store";

/// For the facade's own copy of a JavaScript store's answer (js/launchdarkly-store.js): throws
/// the core's refusal (a `RangeError`) when `entries` keys are more than the bound, before the
/// facade reads any of them.
#[wasm_bindgen(js_name = checkMembershipWidth)]
pub fn check_membership_width(entries: f64) -> Result<(), JsValue> {
    within_bound(LAUNCHDARKLY_STORE, entries as usize).map_err(|e| js_sys::RangeError::new(&e.to_string()).into())
}

fn call_settled(
    f: Option<Function>,
    this: &JsValue,
    arg: Option<&JsValue>,
) -> LocalBoxFuture<'static, Result<JsValue, JsValue>> {
    let Some(f) = f else {
        let error = type_error("the store no longer has the method cutover called");
        return futures::future::ready(Err(error)).boxed_local();
    };
    let called = match arg {
        Some(a) => f.call1(this, a),
        None => f.call0(this),
    };
    match called {
        Ok(v) => awaited(v),
        Err(e) => futures::future::ready(Err(e)).boxed_local(),
    }
}

impl BigSegmentStore for JsStore {
    type Membership = JsMembership;
    type Error = JsValue;

    fn get_metadata(&self) -> LocalBoxFuture<'static, Result<Option<StoreMetadata>, JsValue>> {
        if let Some(native) = &self.native {
            return native.metadata().map(|r| r.map(Some)).boxed_local();
        }
        call_settled(method(&self.target, "getMetadata"), &self.target, None)
            .map(|r| {
                let answer = r?;
                if answer.is_undefined() || answer.is_null() {
                    return Ok(None);
                }
                Ok(Some(StoreMetadata { last_up_to_date: finite(&get(&answer, "lastUpToDate")) }))
            })
            .boxed_local()
    }

    fn get_membership(&self, context_hash: &str) -> LocalBoxFuture<'static, Result<Option<JsMembership>, JsValue>> {
        if let Some(native) = &self.native {
            return native
                .membership(context_hash)
                .map(|r| {
                    r.map(|entries| {
                        entries.map(|entries| {
                            let mut refs = entries.iter().map(|(r, included)| (JsValue::from_str(r), *included));
                            JsMembership::new(membership_object(&mut refs))
                        })
                    })
                })
                .boxed_local();
        }
        let (f, owner) = match method(&self.target, "getMembership") {
            Some(f) => (Some(f), "store.getMembership"),
            None => (method(&self.target, "getUserMembership"), "store.getUserMembership"),
        };
        call_settled(f, &self.target, Some(&JsValue::from_str(context_hash)))
            .map(move |r| r.and_then(|answer| membership_from(&answer, owner)))
            .boxed_local()
    }

    fn empty_membership(&self) -> JsMembership {
        self.empty.clone()
    }

    fn close(&self) -> LocalBoxFuture<'static, ()> {
        match method(&self.target, "close") {
            None => futures::future::ready(()).boxed_local(),
            f => call_settled(f, &self.target, None).map(|_| ()).boxed_local(),
        }
    }
}
