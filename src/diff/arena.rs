//! The native tests' host values: primitives inline, containers in an arena by id, so a test
//! can build cycles, shared references and hostile values (throwing getters, revoked proxies),
//! and compare identities. The arena counts the reads made through it.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;

use super::bounds::Limit;
use super::structure::{Shape, Structure};

/// A reference to a test value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Undefined,
    Null,
    Bool(bool),
    Num(f64),
    Str(Rc<str>),
    /// A container (or a date, or an other object) in the arena.
    Ref(usize),
}

/// A property or an element: a value, or a getter that throws.
#[derive(Clone, Debug)]
pub enum Slot {
    Value(Val),
    Throws(Val),
}

#[derive(Clone, Debug)]
pub enum Node {
    Array(Vec<Slot>),
    /// Entries in order, and each key's place among them.
    Object(Vec<(String, Slot)>, HashMap<String, usize>),
    Date(f64),
    /// An object compared by identity (a class instance, a function, a `Map`).
    Other,
    /// A revoked proxy: every read of it throws.
    Revoked,
    /// An object whose key listing throws (a proxy's `ownKeys` trap).
    KeysThrow,
    /// Where the host's own copy of a value stopped (a host that reads values ahead, bounded).
    Cut(Limit),
}

#[derive(Debug, Default)]
pub struct Arena {
    nodes: Vec<Node>,
    /// Reads made through [`Structure`].
    pub reads: Cell<usize>,
}

pub fn s(text: &str) -> Val {
    Val::Str(text.into())
}

pub fn n(number: f64) -> Val {
    Val::Num(number)
}

impl Arena {
    pub fn new() -> Self {
        Arena::default()
    }

    fn add(&mut self, node: Node) -> Val {
        self.nodes.push(node);
        Val::Ref(self.nodes.len() - 1)
    }

    pub fn object(&mut self, entries: Vec<(&str, Val)>) -> Val {
        let object = self.add(Node::Object(Vec::new(), HashMap::new()));
        for (k, v) in entries {
            self.set(&object, k, Slot::Value(v));
        }
        object
    }

    pub fn array(&mut self, items: Vec<Val>) -> Val {
        self.add(Node::Array(items.into_iter().map(Slot::Value).collect()))
    }

    pub fn date(&mut self, time: f64) -> Val {
        self.add(Node::Date(time))
    }

    pub fn other(&mut self) -> Val {
        self.add(Node::Other)
    }

    pub fn revoked(&mut self) -> Val {
        self.add(Node::Revoked)
    }

    pub fn keys_throw(&mut self) -> Val {
        self.add(Node::KeysThrow)
    }

    pub fn cut(&mut self, limit: Limit) -> Val {
        self.add(Node::Cut(limit))
    }

    /// Sets (or adds, last) `key` of the object `object`.
    pub fn set(&mut self, object: &Val, key: &str, slot: Slot) {
        let Val::Ref(id) = object else { panic!("not an object") };
        let Some(Node::Object(entries, places)) = self.nodes.get_mut(*id) else { panic!("not an object") };
        match places.get(key) {
            Some(&at) => entries[at].1 = slot,
            None => {
                places.insert(key.to_owned(), entries.len());
                entries.push((key.to_owned(), slot));
            }
        }
    }

    /// Appends to the array `array`.
    pub fn push(&mut self, array: &Val, slot: Slot) {
        let Val::Ref(id) = array else { panic!("not an array") };
        let Some(Node::Array(items)) = self.nodes.get_mut(*id) else { panic!("not an array") };
        items.push(slot);
    }

    /// A test value from JSON (objects in `serde_json`'s order: sorted keys).
    pub fn json(&mut self, value: &serde_json::Value) -> Val {
        use serde_json::Value as J;
        match value {
            J::Null => Val::Null,
            J::Bool(b) => Val::Bool(*b),
            J::Number(x) => Val::Num(x.as_f64().unwrap_or(f64::NAN)),
            J::String(text) => s(text),
            J::Array(items) => {
                let items = items.iter().map(|v| Slot::Value(self.json(v))).collect();
                self.add(Node::Array(items))
            }
            J::Object(map) => {
                let object = self.object(vec![]);
                for (k, v) in map {
                    let value = self.json(v);
                    self.set(&object, k, Slot::Value(value));
                }
                object
            }
        }
    }

    fn node(&self, value: &Val) -> Option<&Node> {
        match value {
            Val::Ref(id) => self.nodes.get(*id),
            _ => None,
        }
    }
}

fn read(slot: Option<&Slot>) -> Result<Val, Val> {
    match slot {
        None => Ok(Val::Undefined),
        Some(Slot::Value(v)) => Ok(v.clone()),
        Some(Slot::Throws(thrown)) => Err(thrown.clone()),
    }
}

impl Structure for Arena {
    type Value = Val;
    type Key = String;

    fn shape(&self, value: &Val, key_limit: usize) -> Result<Shape<'_, String>, Val> {
        self.reads.set(self.reads.get() + 1);
        Ok(match value {
            Val::Undefined => Shape::Undefined,
            Val::Null => Shape::Null,
            Val::Bool(b) => Shape::Boolean(*b),
            Val::Num(x) => Shape::Number(*x),
            Val::Str(_) => Shape::String,
            Val::Ref(_) => match self.node(value) {
                Some(Node::Array(items)) => Shape::Array(items.len()),
                Some(Node::Object(entries, _)) if entries.len() > key_limit => Shape::LargeObject,
                Some(Node::Object(entries, _)) => {
                    Shape::Object(Cow::Owned(entries.iter().map(|(k, _)| k.clone()).collect()))
                }
                Some(Node::Date(time)) => Shape::Date(*time),
                Some(Node::Other) => Shape::Other,
                Some(Node::Revoked) => return Err(s("TypeError: revoked")),
                Some(Node::KeysThrow) => return Err(s("TypeError: ownKeys")),
                Some(Node::Cut(limit)) => Shape::Cut(*limit),
                None => return Err(s("no such node")),
            },
        })
    }

    fn property(&self, object: &Val, key: &String, at: usize) -> Result<Val, Val> {
        self.reads.set(self.reads.get() + 1);
        match self.node(object) {
            Some(Node::Object(entries, places)) => {
                assert_eq!(places.get(key), Some(&at), "the walk names the key's position");
                read(places.get(key).and_then(|&at| entries.get(at)).map(|(_, v)| v))
            }
            Some(Node::Revoked) => Err(s("TypeError: revoked")),
            _ => Ok(Val::Undefined),
        }
    }

    fn element(&self, array: &Val, index: usize) -> Result<Val, Val> {
        self.reads.set(self.reads.get() + 1);
        match self.node(array) {
            Some(Node::Array(items)) => read(items.get(index)),
            _ => Ok(Val::Undefined),
        }
    }

    fn identical(&self, a: &Val, b: &Val) -> bool {
        self.reads.set(self.reads.get() + 1);
        match (a, b) {
            (Val::Undefined, Val::Undefined) | (Val::Null, Val::Null) => true,
            (Val::Bool(x), Val::Bool(y)) => x == y,
            (Val::Num(x), Val::Num(y)) => x == y,
            (Val::Str(x), Val::Str(y)) => x == y,
            (Val::Ref(x), Val::Ref(y)) => x == y,
            _ => false,
        }
    }

    fn key_text<'k>(&'k self, key: &'k String) -> &'k str {
        key
    }
}
