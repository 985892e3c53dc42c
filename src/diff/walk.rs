//! The one structural walk behind [`super::same_structure`] and [`super::differences`].
//!
//! It compares two values position by position, in document order: depth first, a plain
//! object's keys in the old value's order and then the keys only the new value has, an array's
//! indices ascending. It keeps its own stack of containers being compared (no recursion: a
//! 10,000-deep value costs the walk's bounds, never the thread's stack), and hands each
//! difference to a sink that says whether to go on.
//!
//! Per position:
//! 1. the `ignore` patterns are matched against the new segment ([`Ignore`]); an ignored
//!    position is skipped, with everything under it, and costs nothing;
//! 2. it is counted against the bounds; a bound hit ends the walk ([`End::Bound`]);
//! 3. both values are read from their parents (only the side present for an added or removed
//!    key, and only when the sink wants that value);
//! 4. [`Structure::identical`] settles the pair when it can (the same reference, the same
//!    string): equal, unread;
//! 5. otherwise each side's [`Shape`] decides: primitives, dates and other objects are
//!    compared at once; two arrays or two plain objects become a frame whose children come next;
//!    a side the host did not read ([`Shape::Cut`]: its own copy of the value stopped at a
//!    bound) ends the walk with that bound hit, as if the walk had hit it there.
//!
//! Keys are the host's ([`Structure::Key`]): each child position knows its key's position
//! among each side's keys, so the host is asked for `object[key]` by position too.
//!
//! **Failed reads.** A read that fails (a shape, a property, an element) makes its position a
//! difference of kind `type`, with what the host threw in [`Difference::unreadable`]; a key only
//! one side has stays `added`/`removed`, with the thrown value beside it. It is never taken for
//! equal, and [`super::same_structure`] answers [`super::Sameness::Unreadable`].
//!
//! **Cycles.** Before two containers are opened, they are checked against the pairs already
//! open on the current path: the same pair again is taken as equal (it is being compared
//! further up; if it differs, that difference is found there). Only the open pairs that could be
//! the same (two arrays of the same lengths, two objects with the same keys in the same order)
//! are asked about, with one `identical` call each (two when the old sides are the same), so
//! acyclic values rarely pay for it; a chain of containers alike at every level (a linked list)
//! pays one call per level above. Only the nearest [`CYCLE_WINDOW`] open pairs are checked, so
//! the check costs at most 64 comparisons per container whatever the bounds: a cycle longer
//! than 64 levels (beyond the default depth bound anyway) walks until the depth bound, as does a
//! value cyclic on one side only.

use super::bounds::{BoundHit, Bounds, Limit};
use super::difference::{Difference, DifferenceKind, Unreadable};
use super::frame::{members, Children, Frame, Members};
use super::ignore::{Ignore, States, Step};
use super::path::Path;
use super::structure::{same_number, Shape, Structure};

/// How many of the nearest open pairs a pair about to be opened is checked against: cycles up to
/// this long are recognised. With the default depth bound (64) every cycle the walk can reach
/// is; with raised bounds the check stays linear in the positions visited.
pub const CYCLE_WINDOW: usize = 64;

/// Whether the walk goes on after a difference.
pub enum Flow {
    Continue,
    Stop,
}

/// How a walk ended.
pub enum End {
    /// Every position was compared (or ignored).
    Finished,
    /// The sink asked to stop.
    Stopped,
    /// A bound was hit: positions remain uncompared.
    Bound(BoundHit),
}

/// What one side of a position holds: absent (the key or index is not there), or present, with its value
/// read (`None` when the sink does not want a lone side's value).
enum Presence<V> {
    Absent,
    Present(Option<Result<V, V>>),
}

/// One walk over a pair of values.
pub struct Walk<'a, S: Structure> {
    structure: &'a S,
    ignore: &'a Ignore,
    bounds: Bounds,
    /// Whether the value of a key or index only one side has is read (for an explanation).
    read_lone: bool,
    frames: Vec<Frame<'a, S::Value, S::Key>>,
    /// Positions compared so far.
    visited: usize,
    /// Keys held by open object frames whose positions are still to come: the walk hands the
    /// host no more keys than it could still visit.
    pending_keys: usize,
}

impl<'a, S: Structure> Walk<'a, S> {
    pub fn new(structure: &'a S, ignore: &'a Ignore, bounds: Bounds, read_lone: bool) -> Self {
        Walk { structure, ignore, bounds, read_lone, frames: Vec::new(), visited: 0, pending_keys: 0 }
    }

    /// Compares `old` with `new`, handing each difference to `sink` in document order.
    pub fn run(&mut self, old: &S::Value, new: &S::Value, sink: &mut impl FnMut(Difference<S::Value>) -> Flow) -> End {
        let states = match self.ignore.root() {
            Step::Ignored => return End::Finished,
            Step::Compare(states) => states,
        };
        if let Some(end) = self.charge(0) {
            return end;
        }
        if let Some(end) = self.compare(old.clone(), new.clone(), states, sink) {
            return end;
        }
        loop {
            let Some(frame) = self.frames.last_mut() else { return End::Finished };
            if frame.next >= frame.count {
                self.frames.pop();
                continue;
            }
            let index = frame.next;
            frame.next += 1;
            if matches!(frame.children, Children::Object { .. }) {
                self.pending_keys = self.pending_keys.saturating_sub(1);
            }
            let Some(states) = self.step(index) else { continue };
            if let Some(end) = self.charge(self.frames.len()) {
                return end;
            }
            let (old, new) = self.read(index);
            if let Some(end) = self.visit(old, new, states, sink) {
                return end;
            }
        }
    }

    /// The `ignore` states of the top frame's child `index`; `None` when it is ignored.
    fn step(&self, index: usize) -> Option<States> {
        let frame = self.frames.last()?;
        let slot = frame.slot(index)?;
        if frame.states.is_empty() {
            return Some(States::new());
        }
        let step = match slot.key {
            Ok(key) => self.ignore.key(&frame.states, self.structure.key_text(key)),
            Err(index) => self.ignore.index(&frame.states, index),
        };
        match step {
            Step::Ignored => None,
            Step::Compare(states) => Some(states),
        }
    }

    /// Counts one position at `depth` against the bounds.
    fn charge(&mut self, depth: usize) -> Option<End> {
        self.visited += 1;
        let limit = if depth > self.bounds.max_depth {
            Limit::Depth
        } else if self.visited > self.bounds.max_nodes {
            Limit::Nodes
        } else {
            return None;
        };
        Some(End::Bound(BoundHit { limit, path: self.path().pointer() }))
    }

    /// Both sides of the top frame's child `index`.
    fn read(&self, index: usize) -> (Presence<S::Value>, Presence<S::Value>) {
        let Some(frame) = self.frames.last() else { return (Presence::Absent, Presence::Absent) };
        let Some(slot) = frame.slot(index) else { return (Presence::Absent, Presence::Absent) };
        let read = |parent: &S::Value, at: Option<usize>, wanted: bool| {
            let Some(at) = at else { return Presence::Absent };
            if !wanted {
                return Presence::Present(None);
            }
            Presence::Present(Some(match slot.key {
                Ok(key) => self.structure.property(parent, key, at),
                Err(index) => self.structure.element(parent, index),
            }))
        };
        let both = slot.old.is_some() && slot.new.is_some();
        (read(&frame.old, slot.old, both || self.read_lone), read(&frame.new, slot.new, both || self.read_lone))
    }

    /// One position whose sides have been read.
    fn visit(
        &mut self,
        old: Presence<S::Value>,
        new: Presence<S::Value>,
        states: States,
        sink: &mut impl FnMut(Difference<S::Value>) -> Flow,
    ) -> Option<End> {
        let (old, new) = match (old, new) {
            (Presence::Absent, Presence::Absent) => return None,
            (Presence::Present(Some(Ok(a))), Presence::Present(Some(Ok(b)))) => {
                return self.compare(a, b, states, sink)
            }
            (Presence::Present(old), Presence::Absent) => {
                let (value, thrown) = split(old);
                let unreadable = thrown.map(|t| Unreadable { old: Some(t), new: None });
                return self.report(DifferenceKind::Removed, value, None, unreadable, sink);
            }
            (Presence::Absent, Presence::Present(new)) => {
                let (value, thrown) = split(new);
                let unreadable = thrown.map(|t| Unreadable { old: None, new: Some(t) });
                return self.report(DifferenceKind::Added, None, value, unreadable, sink);
            }
            (Presence::Present(old), Presence::Present(new)) => (split(old), split(new)),
        };
        // Both present, at least one read failed.
        let unreadable = Unreadable { old: old.1, new: new.1 };
        self.report(DifferenceKind::Type, old.0, new.0, Some(unreadable), sink)
    }

    /// Two values at the same position.
    fn compare(
        &mut self,
        a: S::Value,
        b: S::Value,
        states: States,
        sink: &mut impl FnMut(Difference<S::Value>) -> Flow,
    ) -> Option<End> {
        if self.structure.identical(&a, &b) {
            return None;
        }
        let all_ignored = self.ignore.all_children(&states);
        let key_limit = if all_ignored { 0 } else { self.key_limit() };
        let (sa, sb) = match (self.structure.shape(&a, key_limit), self.structure.shape(&b, key_limit)) {
            (Ok(sa), Ok(sb)) => (sa, sb),
            (sa, sb) => {
                let unreadable = Unreadable { old: sa.err(), new: sb.err() };
                return self.report(DifferenceKind::Type, Some(a), Some(b), Some(unreadable), sink);
            }
        };
        let kind = match (sa, sb) {
            (Shape::Cut(limit), _) | (_, Shape::Cut(limit)) => {
                return Some(End::Bound(BoundHit { limit, path: self.path().pointer() }));
            }
            (Shape::Undefined, Shape::Undefined) | (Shape::Null, Shape::Null) => return None,
            (Shape::Boolean(x), Shape::Boolean(y)) if x == y => return None,
            (Shape::Number(x), Shape::Number(y)) | (Shape::Date(x), Shape::Date(y)) if same_number(x, y) => {
                return None
            }
            (Shape::Array(_), Shape::Array(_))
            | (Shape::Object(_) | Shape::LargeObject, Shape::Object(_) | Shape::LargeObject)
                if all_ignored =>
            {
                return None
            }
            (Shape::Array(old_len), Shape::Array(new_len)) => {
                return self.open(a, b, Children::Array { old_len, new_len }, states);
            }
            (Shape::Object(old), Shape::Object(new)) => {
                let members = members(&old, &new);
                return self.open(a, b, Children::Object { old, new, members }, states);
            }
            (Shape::LargeObject, Shape::Object(_) | Shape::LargeObject) | (Shape::Object(_), Shape::LargeObject) => {
                return Some(End::Bound(BoundHit { limit: Limit::Nodes, path: self.path().pointer() }));
            }
            (sa, sb) if sa.kind() == sb.kind() => DifferenceKind::Changed,
            _ => DifferenceKind::Type,
        };
        self.report(kind, Some(a), Some(b), None, sink)
    }

    /// Opens two containers of the same kind, unless the same pair is already open.
    fn open(&mut self, old: S::Value, new: S::Value, children: Children<'a, S::Key>, states: States) -> Option<End> {
        let structure = self.structure;
        let open_already = self.frames.iter().rev().take(CYCLE_WINDOW).any(|frame| {
            frame.could_be(&children) && structure.identical(&frame.old, &old) && structure.identical(&frame.new, &new)
        });
        if open_already {
            return None;
        }
        let count = match &children {
            Children::Array { old_len, new_len } => (*old_len).max(*new_len),
            Children::Object { old, members: Members::Same, .. } => old.len(),
            Children::Object { old, members: Members::Mixed { new_only, .. }, .. } => old.len() + new_only.len(),
        };
        if count == 0 {
            return None;
        }
        if matches!(children, Children::Object { .. }) {
            self.pending_keys = self.pending_keys.saturating_add(count);
        }
        self.frames.push(Frame { old, new, children, count, next: 0, states });
        None
    }

    /// How many keys a plain object may have for the walk to take them: the positions left.
    fn key_limit(&self) -> usize {
        self.bounds.max_nodes.saturating_sub(self.visited.saturating_add(self.pending_keys))
    }

    /// The current position.
    fn path(&self) -> Path {
        Path::new(self.frames.iter().filter_map(|frame| frame.current(self.structure)).collect())
    }

    fn report(
        &self,
        kind: DifferenceKind,
        old: Option<S::Value>,
        new: Option<S::Value>,
        unreadable: Option<Unreadable<S::Value>>,
        sink: &mut impl FnMut(Difference<S::Value>) -> Flow,
    ) -> Option<End> {
        let path = self.path();
        let difference = Difference { path: path.pointer(), normalised: path.normalised(), kind, old, new, unreadable };
        match sink(difference) {
            Flow::Continue => None,
            Flow::Stop => Some(End::Stopped),
        }
    }
}

/// A lone side's value, and what its read threw.
fn split<V>(side: Option<Result<V, V>>) -> (Option<V>, Option<V>) {
    match side {
        None => (None, None),
        Some(Ok(value)) => (Some(value), None),
        Some(Err(thrown)) => (None, Some(thrown)),
    }
}
