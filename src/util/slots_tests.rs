use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::FutureExt;

use super::{deliver, Slots, Wait};

thread_local! {
    static TABLE: RefCell<Slots<&'static str>> = const { RefCell::new(Slots::new()) };
}

fn in_use() -> usize {
    TABLE.with(|t| t.borrow().in_use())
}

#[test]
fn a_report_before_the_first_poll_is_taken_at_once_and_frees_the_slot() {
    let mut wait = Wait::new(&TABLE);
    deliver(&TABLE, wait.id(), "done");
    assert_eq!(wait.take_report(), Some("done"));
    drop(wait);
    assert_eq!(in_use(), 0);
}

#[test]
fn a_report_after_a_poll_wakes_the_task_with_it() {
    let wait = Wait::new(&TABLE);
    let id = wait.id();
    let mut future = wait.boxed_local();
    assert!(future.as_mut().now_or_never().is_none());
    deliver(&TABLE, id, "later");
    assert_eq!(future.now_or_never(), Some("later"));
    assert_eq!(in_use(), 0);
}

#[test]
fn a_dropped_wait_keeps_its_id_until_the_late_report_so_it_is_never_reused_early() {
    let first = Wait::new(&TABLE);
    let id = first.id();
    drop(first);
    assert_eq!(in_use(), 1, "abandoned, not free: the host may still report on it");
    let second = Wait::new(&TABLE);
    assert_ne!(second.id(), id);
    deliver(&TABLE, id, "late");
    assert_eq!(in_use(), 1, "the late report freed the abandoned slot");
    let third = Wait::new(&TABLE);
    assert_eq!(third.id(), id, "and its id is reused after that");
    third.release();
    second.release();
    assert_eq!(in_use(), 0);
}

#[test]
fn a_cleanup_that_rules_out_a_report_frees_the_slot_when_the_wait_is_dropped() {
    let ran = Rc::new(Cell::new(false));
    let seen = ran.clone();
    let wait = Wait::new(&TABLE).on_cancel(move || {
        seen.set(true);
        true
    });
    drop(wait);
    assert!(ran.get());
    assert_eq!(in_use(), 0);
}

#[test]
fn a_cleanup_that_cannot_rule_out_a_report_leaves_the_slot_abandoned() {
    let wait = Wait::new(&TABLE).on_cancel(|| false);
    let id = wait.id();
    drop(wait);
    assert_eq!(in_use(), 1);
    deliver(&TABLE, id, "fired anyway");
    assert_eq!(in_use(), 0);
}

#[test]
fn reports_to_unknown_or_free_ids_are_dropped() {
    deliver(&TABLE, 9_999, "nobody");
    let wait = Wait::new(&TABLE);
    let id = wait.id();
    wait.release();
    deliver(&TABLE, id, "too late");
    assert_eq!(in_use(), 0);
}
