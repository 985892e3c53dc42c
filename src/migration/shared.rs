//! What a migrator's operations share: its origins, settings, client, host, statistics,
//! background parts, mismatches and guard. The flows that use it (migrator.rs, calling.rs,
//! consistency.rs, background_flow.rs) each add their own methods; this file only declares it, so
//! that none of them imports another to reach it.

use std::cell::RefCell;
use std::rc::Rc;

use super::background::BackgroundParts;
use super::client::MigrationClient;
use super::context_warning::ContextWarning;
use super::guard::Guard;
use super::mismatches::Mismatches;
use super::origin::{ReadOrigins, WriteOrigins};
use super::settings::MigratorSettings;
use super::stats::MigrationStats;
use crate::host::Host;

pub(super) struct Shared<V> {
    pub(super) settings: MigratorSettings,
    pub(super) read: ReadOrigins<V>,
    pub(super) write: WriteOrigins<V>,
    pub(super) client: Rc<dyn MigrationClient<V>>,
    pub(super) host: Host,
    pub(super) stats: RefCell<MigrationStats>,
    pub(super) background: BackgroundParts,
    pub(super) mismatches: Option<Mismatches<V>>,
    pub(super) context_warning: ContextWarning,
    pub(super) guard: Option<Guard>,
    /// Epoch ms: when it was built (a guard's `since` for a key it never saw).
    pub(super) created_at: f64,
}
