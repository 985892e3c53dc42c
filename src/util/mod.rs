//! Small utilities the rest of the crate leans on, none of them about migrations or segments.

pub mod closest_name;
pub mod histogram;
pub mod number;
pub mod random;
pub mod shared_future;
pub mod slots;
pub mod sort;
pub mod task;
pub mod text;
