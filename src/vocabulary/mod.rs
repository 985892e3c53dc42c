//! The shared vocabulary: the words every floor speaks and none decides with. Stages, origins,
//! operations and execution orders (`stage`), and the facts a host reads of a context
//! (`context`). A leaf: it imports nothing from the crate, and everything may import it.

pub mod context;
pub mod stage;
