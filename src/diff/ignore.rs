//! The `ignore` patterns compiled into a trie, matched segment by segment as the walk descends.
//!
//! A pattern ignores the value at the position it matches and everything under it (its
//! differences of every kind, `added` and `removed` included). The walk never builds a path
//! string to match: each position carries the set of trie nodes its path has reached
//! ([`States`]), and a child's set is computed from its parent's and the one new segment. The
//! set is a subset of the trie's nodes at that depth, so it holds at most as many entries as
//! there are patterns; with no patterns, or once no pattern can match below a position, it is
//! empty and costs nothing.

use std::collections::HashMap;

use super::pattern::{parse_pattern_of, PatternSegment};
use crate::error::Error;

/// The compiled patterns.
#[derive(Clone, Debug, Default)]
pub struct Ignore {
    /// `nodes[0]` is the root; empty when there are no patterns.
    nodes: Vec<TrieNode>,
}

#[derive(Clone, Debug, Default)]
struct TrieNode {
    /// A pattern ends here: the position is ignored.
    terminal: bool,
    /// The child for `*`.
    any: Option<u32>,
    /// The children for literal segments.
    literals: HashMap<String, u32>,
}

/// The trie nodes a position's path has reached (indices into the trie).
pub type States = Vec<u32>;

/// What the patterns say of a child position.
pub enum Step {
    /// A pattern matches it: skip it and everything under it.
    Ignored,
    /// Compare it; these are its own states.
    Compare(States),
}

impl Ignore {
    /// No patterns.
    pub fn none() -> Self {
        Ignore::default()
    }

    /// Compiles `patterns` (the `ignore` option, in order); the first one that is not a JSON
    /// Pointer is refused with a `TypeError` naming it.
    pub fn compile<S: AsRef<str>>(patterns: &[S]) -> Result<Self, Error> {
        Self::compile_of(super::pattern::SAME_STRUCTURE, patterns)
    }

    /// [`Ignore::compile`] for the `ignore` option of `owner` (`sameResponse`), which errors name.
    pub fn compile_of<S: AsRef<str>>(owner: &str, patterns: &[S]) -> Result<Self, Error> {
        let mut ignore = Ignore::none();
        for (position, pattern) in patterns.iter().enumerate() {
            let segments = parse_pattern_of(owner, pattern.as_ref(), position)?;
            ignore.insert(&segments);
        }
        Ok(ignore)
    }

    fn insert(&mut self, segments: &[PatternSegment]) {
        if self.nodes.is_empty() {
            self.nodes.push(TrieNode::default());
        }
        let mut at = 0u32;
        for segment in segments {
            let next = self.nodes.len() as u32;
            let Some(node) = self.nodes.get_mut(at as usize) else { return };
            let child = match segment {
                PatternSegment::Any => *node.any.get_or_insert(next),
                PatternSegment::Literal(text) => *node.literals.entry(text.clone()).or_insert(next),
            };
            if child == next {
                self.nodes.push(TrieNode::default());
            }
            at = child;
        }
        if let Some(node) = self.nodes.get_mut(at as usize) {
            node.terminal = true;
        }
    }

    /// Whether there are no patterns.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// What the patterns say of the root.
    pub fn root(&self) -> Step {
        match self.nodes.first() {
            None => Step::Compare(States::new()),
            Some(root) if root.terminal => Step::Ignored,
            Some(_) => Step::Compare(vec![0]),
        }
    }

    /// What the patterns say of the child of a position in `states` at key `key`.
    pub fn key(&self, states: &[u32], key: &str) -> Step {
        self.step(states, |node| node.literals.get(key).copied())
    }

    /// What the patterns say of the child of a position in `states` at array index `index`
    /// (matched by `*` and by the literal written in decimal).
    pub fn index(&self, states: &[u32], index: usize) -> Step {
        if states.is_empty() {
            return Step::Compare(States::new());
        }
        let mut text = None;
        self.step(states, |node| {
            if node.literals.is_empty() {
                return None;
            }
            let text = text.get_or_insert_with(|| index.to_string());
            node.literals.get(text.as_str()).copied()
        })
    }

    fn step(&self, states: &[u32], mut literal: impl FnMut(&TrieNode) -> Option<u32>) -> Step {
        let mut next = States::new();
        for &state in states {
            let Some(node) = self.nodes.get(state as usize) else { continue };
            for child in [node.any, literal(node)].into_iter().flatten() {
                if self.nodes.get(child as usize).is_some_and(|c| c.terminal) {
                    return Step::Ignored;
                }
                if self.nodes.get(child as usize).is_some_and(|c| c.any.is_some() || !c.literals.is_empty()) {
                    next.push(child);
                }
            }
        }
        Step::Compare(next)
    }

    /// Whether every child of a position in `states` is ignored (a pattern ending in `*`
    /// reaches it): then its keys and elements need not be read at all.
    pub fn all_children(&self, states: &[u32]) -> bool {
        states.iter().any(|&state| {
            self.nodes
                .get(state as usize)
                .and_then(|node| node.any)
                .and_then(|any| self.nodes.get(any as usize))
                .is_some_and(|any| any.terminal)
        })
    }
}
