//! `MigratorBuilder#mismatches()` (API §1 "Differences"): every consistency check whose
//! comparison returned `false` explained by the structural walk, the last `keep` of them kept
//! (by reference), the paths they differ at counted, and `onMismatch` told.
//!
//! Nothing here runs without `mismatches()`: the migrator holds no [`Mismatches`] then, and a
//! check costs what it cost before.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use super::stage::Stage;
use crate::diff::{Difference, Explanation, Ignore, PathTable, DEFAULT_MAX_DIFFERENCES};
use crate::error::Error;

/// `keep`'s default and its largest value.
pub const DEFAULT_KEEP: usize = 20;
pub const MAX_KEEP: usize = 1000;

/// How the host walks two of its values for their differences: the structural walk of
/// `crate::diff` over its own values, with the comparison's `ignore` when it has one.
pub trait Explainer<V> {
    fn explain(&self, old: &V, new: &V, ignore: Option<&Ignore>, max_differences: usize) -> Explanation<V>;
}

/// `onMismatch`: told of each mismatch once it was explained, in the caller's async context. An
/// `Err` is what it threw (logged, nothing more).
pub trait MismatchListener<V> {
    fn on_mismatch(&self, mismatch: &Mismatch<V>) -> Result<(), V>;
}

/// One explained mismatch: the operation's flag key, stage and context (the caller's object),
/// when, the two values compared (references), and their differences.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch<V> {
    pub flag_key: Rc<str>,
    pub stage: Stage,
    pub context: V,
    /// Epoch milliseconds.
    pub at: f64,
    pub old: V,
    pub new: V,
    pub differences: Vec<Difference<V>>,
    pub truncated: bool,
}

/// The values `mismatches()` was given, checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MismatchSettings {
    pub keep: usize,
    pub max_differences: usize,
}

impl MismatchSettings {
    /// `keep` and `maxDifferences` as the caller gave them (`None`: the default).
    pub fn new(keep: Option<f64>, max_differences: Option<f64>) -> Result<Self, Error> {
        let integer = |n: f64, low: f64, high: f64| n.is_finite() && n.fract() == 0.0 && n >= low && n <= high;
        let keep = match keep {
            None => DEFAULT_KEEP,
            Some(n) if integer(n, 0.0, MAX_KEEP as f64) => n as usize,
            Some(n) => {
                return Err(Error::Range(format!(
                    "mismatches: keep must be an integer from 0 to {MAX_KEEP}, got {}",
                    crate::util::text::number(n)
                )))
            }
        };
        let max_differences = match max_differences {
            None => DEFAULT_MAX_DIFFERENCES,
            Some(n) if integer(n, 1.0, f64::from(u32::MAX)) => n as usize,
            Some(n) => {
                return Err(Error::Range(format!(
                    "mismatches: maxDifferences must be a positive integer, got {}",
                    crate::util::text::number(n)
                )))
            }
        };
        Ok(MismatchSettings { keep, max_differences })
    }
}

/// What a migrator with `mismatches()` keeps.
pub struct Mismatches<V> {
    settings: MismatchSettings,
    explainer: Rc<dyn Explainer<V>>,
    listener: Option<Rc<dyn MismatchListener<V>>>,
    /// The last `keep` mismatches, oldest first.
    kept: RefCell<VecDeque<Rc<Mismatch<V>>>>,
    paths: RefCell<PathTable>,
}

/// What the migrator knows of a mismatch before it is explained.
pub struct Found<'a, V> {
    pub flag_key: &'a Rc<str>,
    pub stage: Stage,
    pub context: &'a V,
    pub at: f64,
    pub old: &'a V,
    pub new: &'a V,
    pub ignore: Option<&'a Ignore>,
    /// The explanation the comparison made in the same pass, if it did.
    pub explained: Option<Explanation<V>>,
}

impl<V: Clone> Mismatches<V> {
    pub fn new(
        settings: MismatchSettings,
        explainer: Rc<dyn Explainer<V>>,
        listener: Option<Rc<dyn MismatchListener<V>>>,
    ) -> Self {
        Mismatches { settings, explainer, listener, kept: RefCell::default(), paths: RefCell::default() }
    }

    /// Explains a mismatch, keeps it, counts its paths and tells the listener. Returns the label
    /// of its first difference's path for the metric (`None`: the walk found no difference), and
    /// what the listener threw.
    pub fn record(&self, found: Found<'_, V>) -> (Option<String>, Result<(), V>) {
        let explanation = match found.explained {
            Some(explanation) => explanation,
            None => self.explainer.explain(found.old, found.new, found.ignore, self.settings.max_differences),
        };
        let label = self.paths.borrow_mut().record(&explanation.differences).map(str::to_owned);
        let mismatch = Rc::new(Mismatch {
            flag_key: found.flag_key.clone(),
            stage: found.stage,
            context: found.context.clone(),
            at: found.at,
            old: found.old.clone(),
            new: found.new.clone(),
            differences: explanation.differences,
            truncated: explanation.truncated,
        });
        if self.settings.keep > 0 {
            let mut kept = self.kept.borrow_mut();
            if kept.len() >= self.settings.keep {
                kept.pop_front();
            }
            kept.push_back(mismatch.clone());
        }
        let told = match &self.listener {
            Some(listener) => listener.on_mismatch(&mismatch),
            None => Ok(()),
        };
        (label, told)
    }

    /// `maxDifferences`: the most differences an explanation records.
    pub fn max_differences(&self) -> usize {
        self.settings.max_differences
    }

    /// The kept mismatches, oldest first.
    pub fn kept(&self) -> Vec<Rc<Mismatch<V>>> {
        self.kept.borrow().iter().cloned().collect()
    }

    /// The paths table as it is now.
    pub fn paths(&self) -> PathTable {
        self.paths.borrow().clone()
    }

    /// `resetStats()`: the paths table starts again (the kept mismatches stay).
    pub fn reset_paths(&self) {
        *self.paths.borrow_mut() = PathTable::default();
    }
}
