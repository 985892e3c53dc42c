//! The tape: a pair of values flattened by the facade (js/bridge/tape.js) into numbers in wasm
//! memory, and the walk's [`Structure`] over it. `sameStructure` reads each value once, in one
//! tight JavaScript loop and one crossing; the core's walk (src/diff) then decides on numbers,
//! with no call back into JavaScript.
//!
//! **Layout** (`f64` slots). Slot 0: where the new value's nodes start; slot 1: where they end;
//! slot 2: 1 when the tape is irregular (below), else 0; slot 3: where the old value's nodes
//! start, at least slot 4 ([`HEADER`]; anything less reads as 4). A tape written while another
//! was being written (a getter of that one's values ran a comparison) starts after that one's
//! slots so far, which stay as they are (js/bridge/tape.js, "Nesting"). Each value is its nodes
//! in pre-order, a
//! node being a [`TapeNode`] code and one number (see codes.rs for what the number is). A plain
//! object's children are each preceded by one slot, the key's id: ids name keys across tapes
//! (the facade interns them, and their texts reach [`Tape`] once, through `internKeys`, see
//! tape_buffer.rs). Nodes are numbered from 0 across both values, old first (their ordinals):
//! the walk's values are ordinals, and the facade keeps a value per ordinal when it is asked to
//! explain, so that a difference can name the very JavaScript values.
//!
//! **Bounds.** The facade writes at most `max_nodes` nodes per value and does not read deeper
//! than `max_depth`: what it did not read is a [`TapeNode::CutDepth`]/[`TapeNode::CutNodes`] node,
//! or is missing from the tape (the value's nodes end early). A missing node reads as
//! `CutNodes`, an object whose keys were not all written as [`Shape::LargeObject`], and a cut
//! value as [`Shape::Cut`]: the walk reports the bound hit where it reaches it.
//!
//! **Written alike.** Nothing in a value's slots depends on where it sits on the tape but a
//! [`TapeNode::Seen`] node's ordinal, so two equal values whose keys come in the same order are
//! the very same slots (string ids, key ids and other values' ids included: see
//! js/bridge/tape.js). [`written_alike`] answers `Same` for such a pair without indexing or
//! walking, when the tape is regular: no `Seen`, `Threw`, `Unreadable` or cut node, and neither
//! value stopped by the node bound. That is the walk's own answer for it: every node is then the
//! value's own, equal slots are equal values by every rule of the walk (numbers compared by
//! their bits: equal bits are equal numbers, and `NaN` is `NaN`; equal ids are the same string,
//! key or value), the keys of each object are the same in the same order, and the walk stays
//! within its bounds (no node deeper than the depth bound was written, and no more positions than
//! nodes were). Any other pair is walked.
//!
//! **Never trusted.** [`TapeIndex::build`] reads any slots without panicking: a code it does not
//! know reads as `CutNodes`, an ordinal that points nowhere as the one cut node, and it parses
//! with its own stack (no recursion), in time linear in the slots.
//!
//! Plain Rust: its tests run natively (lib.rs compiles it, and codes.rs, outside wasm too).

use std::borrow::Cow;

use super::codes::TapeNode;
use crate::diff::{Limit, Shape, Structure};

/// The header's slots, before any tape's nodes: where the new value's start, where they end,
/// whether the tape is irregular, and where the old value's start.
pub const HEADER: usize = 4;

/// Where the old value's nodes start (slot 3), at least [`HEADER`].
fn old_start(slots: &[f64]) -> usize {
    slot_index(slots, 3).max(HEADER)
}

/// Whether the two values on the tape are written alike, slot for slot, on a regular tape: then
/// they are the same structure (see "Written alike" above).
pub fn written_alike(slots: &[f64]) -> bool {
    let (Some(&new_start), Some(&end), Some(&irregular)) = (slots.first(), slots.get(1), slots.get(2)) else {
        return false;
    };
    if irregular != 0.0 {
        return false;
    }
    let (new_start, end) = (new_start as usize, end as usize);
    match (slots.get(old_start(slots)..new_start), slots.get(new_start..end)) {
        (Some(old), Some(new)) => {
            !old.is_empty() && old.len() == new.len() && old.iter().zip(new).all(|(a, b)| a.to_bits() == b.to_bits())
        }
        _ => false,
    }
}

/// No node (a root's parent), no key (an array's child).
const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    kind: TapeNode,
    number: f64,
    parent: u32,
    /// The key's id under which it sits in its parent object.
    key: u32,
    /// An array's or object's children: from `first` in [`TapeIndex::children`] (and their keys
    /// in [`TapeIndex::keys`]), `count` of them on the tape.
    first: u32,
    count: u32,
    /// The array's length or the object's key count, as written.
    declared: u32,
}

/// A tape's nodes indexed for the walk: each container's children (and keys) side by side, so
/// that `property` and `element` are one lookup. Built in two linear passes; kept and reused
/// (cleared, not freed) from one comparison to the next.
#[derive(Debug, Default)]
pub struct TapeIndex {
    nodes: Vec<Node>,
    children: Vec<u32>,
    keys: Vec<u32>,
    /// The old and the new value's root ordinals.
    roots: [u32; 2],
    /// The ordinal of the one node every missing node reads as (`CutNodes`), after the tape's.
    cut: u32,
    /// The parse's own stack: the containers open.
    stack: Vec<Open>,
}

/// A container being parsed: how many children it still expects, and whether they have keys.
#[derive(Debug)]
struct Open {
    ordinal: u32,
    remaining: u32,
    object: bool,
}

/// Above this many nodes, an index gives its memory back after use.
const KEPT_NODES: usize = 4096;

impl TapeIndex {
    /// Indexes `slots`, a tape as laid out above (anything else reads as cut values).
    pub fn build(&mut self, slots: &[f64]) {
        self.nodes.clear();
        self.children.clear();
        self.keys.clear();
        let end = slot_index(slots, 1).min(slots.len());
        let start = old_start(slots).min(end.max(HEADER));
        let new_start = slot_index(slots, 0).clamp(start, end.max(start));
        let old = self.side(slots, start, new_start);
        let new = self.side(slots, new_start, end);
        self.cut = self.nodes.len() as u32;
        self.nodes.push(Node {
            kind: TapeNode::CutNodes,
            number: f64::NAN,
            parent: NONE,
            key: NONE,
            first: 0,
            count: 0,
            declared: 0,
        });
        self.roots = [old, new].map(|root| self.resolve(root));
        self.link();
    }

    /// Gives back the memory of a large tape's index (a 10,000-node value's), keeping enough for
    /// the usual ones.
    pub fn trim(&mut self) {
        if self.nodes.capacity() > KEPT_NODES {
            self.nodes = Vec::new();
            self.children = Vec::new();
            self.keys = Vec::new();
            self.stack = Vec::new();
        }
    }

    /// Parses one value's nodes from `slots[start..end]`, in pre-order; returns its root's ordinal
    /// (`NONE` when there is no node at all). Stops at the end of the value's slots, leaving the
    /// containers still open with fewer children than they declared.
    fn side(&mut self, slots: &[f64], start: usize, end: usize) -> u32 {
        self.stack.clear();
        let slots = slots.get(start..end).unwrap_or(&[]);
        let mut at = 0;
        let mut root = NONE;
        loop {
            // The innermost open container still expecting a child is this node's parent.
            let (parent, in_object) = loop {
                match self.stack.last_mut() {
                    Some(open) if open.remaining == 0 => {
                        self.stack.pop();
                    }
                    Some(open) => {
                        open.remaining -= 1;
                        break (open.ordinal, open.object);
                    }
                    None => break (NONE, false),
                }
            };
            if parent == NONE && root != NONE {
                break;
            }
            let key = if in_object {
                let Some(&key) = slots.get(at) else { break };
                at += 1;
                key as u32
            } else {
                NONE
            };
            let (Some(&code), Some(&number)) = (slots.get(at), slots.get(at + 1)) else { break };
            at += 2;
            let kind = TapeNode::from_code(code as u32).unwrap_or(TapeNode::CutNodes);
            let container = is_container(kind);
            let declared = if container { number as u32 } else { 0 };
            let ordinal = self.nodes.len() as u32;
            self.nodes.push(Node { kind, number, parent, key, first: 0, count: 0, declared });
            if let Some(parent) = self.nodes.get_mut(parent as usize) {
                parent.count += 1;
            }
            if root == NONE {
                root = ordinal;
            }
            if container && declared > 0 {
                self.stack.push(Open { ordinal, remaining: declared, object: kind == TapeNode::Object });
            }
        }
        root
    }

    /// Lays each container's children out side by side, in order.
    fn link(&mut self) {
        let mut next = 0u32;
        for node in &mut self.nodes {
            if is_container(node.kind) {
                node.first = next;
                next = next.saturating_add(node.count);
                node.count = 0;
            }
        }
        self.children.resize(next as usize, self.cut);
        self.keys.resize(next as usize, NONE);
        for ordinal in 0..self.nodes.len() {
            let Some(&Node { parent, key, .. }) = self.nodes.get(ordinal) else { break };
            let Some(parent) = self.nodes.get_mut(parent as usize) else { continue };
            let at = (parent.first + parent.count) as usize;
            parent.count += 1;
            if let (Some(child), Some(slot)) = (self.children.get_mut(at), self.keys.get_mut(at)) {
                *child = ordinal as u32;
                *slot = key;
            }
        }
    }

    /// The walk's view of the tape, with the texts of the keys' ids.
    pub fn tape<'t>(&'t self, key_texts: &'t [String]) -> Tape<'t> {
        Tape { index: self, key_texts }
    }

    fn node(&self, ordinal: u32) -> Option<&Node> {
        self.nodes.get(ordinal as usize)
    }

    /// The node an ordinal stands for: a [`TapeNode::Seen`] node's container (the cut node when
    /// it names none before it).
    fn resolve(&self, ordinal: u32) -> u32 {
        match self.node(ordinal) {
            Some(node) if node.kind == TapeNode::Seen => {
                let target = node.number as u32;
                let valid = target < ordinal && self.node(target).is_some_and(|t| is_container(t.kind));
                if valid {
                    target
                } else {
                    self.cut
                }
            }
            Some(_) => ordinal,
            None => self.cut,
        }
    }

    /// Child `at` of container `parent` as the walk reads it: `Err` when reading it threw.
    fn child(&self, parent: &Node, at: usize) -> Result<u32, u32> {
        if at >= parent.count as usize {
            return Ok(self.cut);
        }
        let Some(&child) = self.children.get(parent.first as usize + at) else { return Ok(self.cut) };
        match self.node(child) {
            Some(node) if node.kind == TapeNode::Threw => Err(child),
            _ => Ok(self.resolve(child)),
        }
    }

    fn keys_of(&self, node: &Node) -> &[u32] {
        let first = node.first as usize;
        self.keys.get(first..first + node.count as usize).unwrap_or(&[])
    }
}

fn is_container(kind: TapeNode) -> bool {
    matches!(kind, TapeNode::Array | TapeNode::Object)
}

/// A header slot as an index (`as` saturates: NaN and negatives are 0).
fn slot_index(slots: &[f64], at: usize) -> usize {
    slots.get(at).map_or(0, |&n| n as usize)
}

/// The walk's [`Structure`] over an indexed tape: values and keys are numbers.
#[derive(Clone, Copy)]
pub struct Tape<'t> {
    index: &'t TapeIndex,
    key_texts: &'t [String],
}

impl Tape<'_> {
    /// The old value's root.
    pub fn old(&self) -> u32 {
        self.index.roots[0]
    }

    /// The new value's root.
    pub fn new_root(&self) -> u32 {
        self.index.roots[1]
    }
}

impl Structure for Tape<'_> {
    /// A node's ordinal.
    type Value = u32;
    /// A key's id.
    type Key = u32;

    fn shape(&self, value: &u32, key_limit: usize) -> Result<Shape<'_, u32>, u32> {
        let Some(node) = self.index.node(*value) else { return Ok(Shape::Cut(Limit::Nodes)) };
        Ok(match node.kind {
            TapeNode::Undefined => Shape::Undefined,
            TapeNode::Null => Shape::Null,
            TapeNode::False => Shape::Boolean(false),
            TapeNode::True => Shape::Boolean(true),
            TapeNode::Number => Shape::Number(node.number),
            TapeNode::String => Shape::String,
            TapeNode::Date => Shape::Date(node.number),
            TapeNode::Other => Shape::Other,
            TapeNode::Unreadable | TapeNode::Threw => return Err(*value),
            TapeNode::Array => Shape::Array(node.declared as usize),
            TapeNode::Object if node.count < node.declared || node.count as usize > key_limit => Shape::LargeObject,
            TapeNode::Object => Shape::Object(Cow::Borrowed(self.index.keys_of(node))),
            TapeNode::CutDepth => Shape::Cut(Limit::Depth),
            TapeNode::Seen | TapeNode::CutNodes => Shape::Cut(Limit::Nodes),
        })
    }

    fn property(&self, object: &u32, key: &u32, at: usize) -> Result<u32, u32> {
        let Some(node) = self.index.node(*object).filter(|n| n.kind == TapeNode::Object) else {
            return Ok(self.index.cut);
        };
        let keys = self.index.keys_of(node);
        let at = if keys.get(at) == Some(key) { Some(at) } else { keys.iter().position(|k| k == key) };
        match at {
            Some(at) => self.index.child(node, at),
            None => Ok(self.index.cut),
        }
    }

    fn element(&self, array: &u32, index: usize) -> Result<u32, u32> {
        match self.index.node(*array).filter(|n| n.kind == TapeNode::Array) {
            Some(node) => self.index.child(node, index),
            None => Ok(self.index.cut),
        }
    }

    /// `===` as the facade saw it: the same container node, the same string, other value or
    /// unreadable value by id, equal numbers (NaN not, ±0 so), equal booleans, `undefined` and
    /// `null` each with itself. A cut or thrown position is never identical to anything. Only
    /// ever asked of an old and a new value, or of two containers (where strings' ids would not
    /// do).
    fn identical(&self, a: &u32, b: &u32) -> bool {
        let (Some(x), Some(y)) = (self.index.node(*a), self.index.node(*b)) else { return false };
        if a == b {
            return is_container(x.kind);
        }
        match (x.kind, y.kind) {
            (TapeNode::Undefined, TapeNode::Undefined)
            | (TapeNode::Null, TapeNode::Null)
            | (TapeNode::False, TapeNode::False)
            | (TapeNode::True, TapeNode::True) => true,
            (TapeNode::Number, TapeNode::Number)
            | (TapeNode::String, TapeNode::String)
            | (TapeNode::Other, TapeNode::Other)
            | (TapeNode::Unreadable, TapeNode::Unreadable) => x.number == y.number,
            _ => false,
        }
    }

    fn key_text<'k>(&'k self, key: &'k u32) -> &'k str {
        self.key_texts.get(*key as usize).map_or("", String::as_str)
    }
}

#[cfg(test)]
#[path = "tape_tests.rs"]
mod tests;
