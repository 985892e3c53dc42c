//! Native tests of `mismatches()` in the migrator: what is explained and when, the ring of kept
//! mismatches, the paths table, the listener and the metric's path attribute.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde_json::json;

use super::migrator_tests::{request, text, FakeClient, Fixture, V};
use super::test_runs::Runs;
use super::*;
use crate::diff::{Difference, DifferenceKind, Explanation, Ignore};
use crate::host::Level;
use crate::testing::TestHost;

/// Explains every pair with the differences it was given, counting its calls.
struct FakeExplainer {
    calls: Cell<u32>,
    paths: Vec<(&'static str, &'static str)>,
    saw_ignore: Cell<bool>,
}

impl Explainer<V> for FakeExplainer {
    fn explain(&self, old: &V, new: &V, ignore: Option<&Ignore>, max_differences: usize) -> Explanation<V> {
        self.calls.set(self.calls.get() + 1);
        self.saw_ignore.set(ignore.is_some());
        let differences: Vec<_> = self
            .paths
            .iter()
            .take(max_differences)
            .map(|(path, normalised)| Difference {
                path: (*path).into(),
                normalised: (*normalised).into(),
                kind: DifferenceKind::Changed,
                old: Some(old.clone()),
                new: Some(new.clone()),
                unreadable: None,
            })
            .collect();
        Explanation { truncated: self.paths.len() > max_differences, differences, bound: None }
    }
}

#[derive(Default)]
struct Listener {
    seen: RefCell<Vec<Mismatch<V>>>,
    throws: bool,
}

impl MismatchListener<V> for Listener {
    fn on_mismatch(&self, mismatch: &Mismatch<V>) -> Result<(), V> {
        self.seen.borrow_mut().push(mismatch.clone());
        if self.throws {
            Err(text("listener broke"))
        } else {
            Ok(())
        }
    }
}

fn explainer(paths: Vec<(&'static str, &'static str)>) -> Rc<FakeExplainer> {
    Rc::new(FakeExplainer { calls: Cell::new(0), paths, saw_ignore: Cell::new(false) })
}

/// A fixture whose comparison answers `consistent`, with `mismatches()` when `settings` is given.
fn fixture(consistent: bool, settings: Option<MismatchSettings>, e: &Rc<FakeExplainer>, l: &Rc<Listener>) -> Fixture {
    let mut f = Fixture::custom(TestHost::new(42), false, false, Ok(consistent));
    if let Some(settings) = settings {
        f.builder.mismatches(settings, e.clone(), Some(l.clone()));
    }
    f
}

fn settings(keep: f64, max: f64) -> MismatchSettings {
    MismatchSettings::new(Some(keep), Some(max)).unwrap()
}

#[test]
fn a_mismatch_is_explained_kept_counted_and_told() {
    let e = explainer(vec![("/items/3/price", "/items/*/price"), ("/updatedAt", "/updatedAt")]);
    let l = Rc::new(Listener::default());
    let f = fixture(false, Some(settings(20.0, 16.0)), &e, &l);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    f.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(e.calls.get(), 1);
    let kept = m.mismatches();
    assert_eq!(kept.len(), 1);
    let mismatch = &kept[0];
    assert_eq!((&*mismatch.flag_key, mismatch.stage), ("mig", Stage::Shadow));
    assert_eq!(mismatch.context, request(Stage::Off).context, "the caller's context");
    assert_eq!((mismatch.old.clone(), mismatch.new.clone()), (text("old"), text("new")));
    assert_eq!(mismatch.differences.len(), 2);
    assert!(!mismatch.truncated);
    assert_eq!(mismatch.at, f.t.host.clock.epoch_ms());
    assert_eq!(l.seen.borrow().len(), 1);
    let stats = serde_json::to_value(m.stats()).unwrap();
    assert_eq!(stats["read"]["consistency"]["paths"], json!({"/items/*/price": 1, "/updatedAt": 1}));
}

#[test]
fn nothing_is_explained_without_mismatches_or_for_a_consistent_check() {
    let e = explainer(vec![("/a", "/a")]);
    let l = Rc::new(Listener::default());
    let f = fixture(false, None, &e, &l);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    f.t.run(m.read(request(Stage::Off))).unwrap();
    assert!(m.mismatches().is_empty());
    assert_eq!(serde_json::to_value(m.stats()).unwrap()["read"]["consistency"]["paths"], json!({}));
    let f = fixture(true, Some(settings(20.0, 16.0)), &e, &l);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    f.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(e.calls.get(), 0, "a consistent check is not explained");
    assert!(m.mismatches().is_empty());
}

#[test]
fn only_a_check_that_ran_is_explained() {
    let e = explainer(vec![("/a", "/a")]);
    let l = Rc::new(Listener::default());
    let f = fixture(false, Some(settings(20.0, 16.0)), &e, &l);
    let m = f.migrator(FakeClient::serving(Stage::RampDown));
    f.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(e.calls.get(), 0, "no shadow, no check");
    let mut f = Fixture::custom(TestHost::new(42), false, true, Ok(false));
    f.builder.mismatches(settings(20.0, 16.0), e.clone(), None);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    f.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!(e.calls.get(), 0, "a failed origin: no check");
}

#[test]
fn the_ring_keeps_the_last_ones_oldest_first_and_keep_0_keeps_none() {
    let e = explainer(vec![("/a", "/a")]);
    let l = Rc::new(Listener::default());
    let f = fixture(false, Some(settings(2.0, 16.0)), &e, &l);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    for _ in 0..3 {
        f.t.run(m.read(request(Stage::Off))).unwrap();
        f.t.advance(5.0);
    }
    let kept = m.mismatches();
    assert_eq!(kept.len(), 2);
    assert!(kept[0].at < kept[1].at, "oldest first");
    assert_eq!(l.seen.borrow().len(), 3);
    assert_eq!(l.seen.borrow()[1], *kept[0], "the first one was dropped");
    let f = fixture(false, Some(settings(0.0, 16.0)), &e, &l);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    f.t.run(m.read(request(Stage::Off))).unwrap();
    assert!(m.mismatches().is_empty());
    assert_eq!(
        serde_json::to_value(m.stats()).unwrap()["read"]["consistency"]["paths"],
        json!({"/a": 1}),
        "paths are still counted"
    );
}

#[test]
fn max_differences_bounds_the_explanation() {
    let e = explainer(vec![("/a", "/a"), ("/b", "/b"), ("/c", "/c")]);
    let l = Rc::new(Listener::default());
    let f = fixture(false, Some(settings(20.0, 2.0)), &e, &l);
    let m = f.migrator(FakeClient::serving(Stage::Live));
    f.t.run(m.read(request(Stage::Off))).unwrap();
    let kept = m.mismatches();
    assert_eq!(kept[0].differences.len(), 2);
    assert!(kept[0].truncated);
}

#[test]
fn a_throwing_listener_is_logged_and_the_read_goes_on() {
    let e = explainer(vec![("/a", "/a")]);
    let l = Rc::new(Listener { throws: true, ..Listener::default() });
    let f = fixture(false, Some(settings(20.0, 16.0)), &e, &l);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    assert_eq!(f.t.run(m.read(request(Stage::Off))).unwrap().result, Ok(text("old")));
    assert_eq!(f.t.logger.messages(Level::Error), ["onMismatch threw: listener broke"]);
    assert_eq!(m.mismatches().len(), 1);
}

#[test]
fn reset_stats_empties_the_paths_table_and_keeps_the_ring() {
    let e = explainer(vec![("/a", "/a")]);
    let l = Rc::new(Listener::default());
    let f = fixture(false, Some(settings(20.0, 16.0)), &e, &l);
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    f.t.run(m.read(request(Stage::Off))).unwrap();
    m.reset_stats();
    assert_eq!(serde_json::to_value(m.stats()).unwrap()["read"]["consistency"]["paths"], json!({}));
    assert_eq!(m.mismatches().len(), 1);
}

#[test]
fn background_mode_explains_when_its_part_ends() {
    let e = explainer(vec![("/a", "/a")]);
    let l = Rc::new(Listener::default());
    let mut f = fixture(false, Some(settings(20.0, 16.0)), &e, &l);
    f.builder.background(None).unwrap();
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    let (_slot, run) = m.start(Operation::Read, request(Stage::Off));
    let _ = f.t.start(run);
    f.t.advance(10.0);
    assert!(m.mismatches().is_empty(), "the new origin has not settled");
    f.t.advance(10.0);
    assert_eq!(m.mismatches().len(), 1);
}

#[test]
fn settings_are_checked() {
    for (keep, max) in
        [(Some(-1.0), None), (Some(1001.0), None), (Some(1.5), None), (None, Some(0.0)), (None, Some(f64::NAN))]
    {
        let e = MismatchSettings::new(keep, max).unwrap_err();
        assert!(matches!(e, crate::error::Error::Range(_)), "{keep:?} {max:?}");
    }
    assert_eq!(
        MismatchSettings::new(Some(1001.0), None).unwrap_err().to_string(),
        "mismatches: keep must be an integer from 0 to 1000, got 1001"
    );
    assert_eq!(
        MismatchSettings::new(None, Some(0.0)).unwrap_err().to_string(),
        "mismatches: maxDifferences must be a positive integer, got 0"
    );
    assert_eq!(MismatchSettings::new(None, None).unwrap(), MismatchSettings { keep: 20, max_differences: 16 });
}

/// A comparison that explains its own mismatches in the pass that compares (as `sameStructure`'s
/// does over one flattening), counting both kinds of call.
#[derive(Default)]
struct ExplainingComparison {
    compared: Cell<u32>,
    explained: Cell<u32>,
}

impl Comparison<V> for ExplainingComparison {
    fn compare(&self, _old: &V, _new: &V) -> Result<bool, V> {
        self.compared.set(self.compared.get() + 1);
        Ok(false)
    }

    fn compare_explained(&self, old: &V, new: &V, max_differences: usize) -> ExplainedCheck<V> {
        self.explained.set(self.explained.get() + 1);
        let difference = Difference {
            path: "/own".into(),
            normalised: "/own".into(),
            kind: DifferenceKind::Changed,
            old: Some(old.clone()),
            new: Some(new.clone()),
            unreadable: None,
        };
        let differences = vec![difference; max_differences.min(3)];
        Ok((false, Some(Explanation { differences, truncated: max_differences < 3, bound: None })))
    }
}

#[test]
fn a_comparison_that_explains_in_its_pass_is_not_explained_again() {
    let e = explainer(vec![("/a", "/a")]);
    let l = Rc::new(Listener::default());
    let mut f = fixture(false, Some(settings(20.0, 2.0)), &e, &l);
    let comparison = Rc::new(ExplainingComparison::default());
    f.builder.read(ReadOrigins {
        old: f.read_old.clone(),
        new: f.read_old.clone(),
        comparison: Some(comparison.clone()),
    });
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    f.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!((comparison.explained.get(), comparison.compared.get()), (1, 0), "one pass, no plain compare");
    assert_eq!(e.calls.get(), 0, "the explainer is not called");
    let kept = m.mismatches();
    assert_eq!(kept[0].differences.len(), 2, "maxDifferences reached the comparison");
    assert!(kept[0].truncated);
    assert_eq!(
        serde_json::to_value(m.stats()).unwrap()["read"]["consistency"]["paths"],
        json!({"/own": 1}),
        "a path counts once per mismatch"
    );
}

#[test]
fn without_mismatches_a_comparison_is_only_compared() {
    let e = explainer(vec![]);
    let l = Rc::new(Listener::default());
    let mut f = fixture(false, None, &e, &l);
    let comparison = Rc::new(ExplainingComparison::default());
    f.builder.read(ReadOrigins {
        old: f.read_old.clone(),
        new: f.read_old.clone(),
        comparison: Some(comparison.clone()),
    });
    let m = f.migrator(FakeClient::serving(Stage::Shadow));
    f.t.run(m.read(request(Stage::Off))).unwrap();
    assert_eq!((comparison.explained.get(), comparison.compared.get()), (0, 1));
    assert_eq!(serde_json::to_value(m.stats()).unwrap()["read"]["consistency"]["checked"], json!(1));
}
