//! Small utilities the rest of the crate leans on, none of them about migrations or segments.

pub mod number;
pub mod task;
pub mod text;
