//! Where a difference is: a [`Path`] of segments, written as a JSON Pointer (RFC 6901) and in
//! its normalised form, every array index as `*`.
//!
//! The walk knows which segments are array indices, so normalising never mistakes an object's
//! numeric-looking key (`/byId/42`) for an index (`/items/*`).

/// One step from a container to one of its children.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// A plain object's key.
    Key(String),
    /// An array's index.
    Index(usize),
}

/// The position of a value under the root: `[]` is the root itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Path {
    pub segments: Vec<Segment>,
}

/// The segment written for every array index in a normalised path.
pub const ANY_INDEX: &str = "*";

impl Path {
    pub fn new(segments: Vec<Segment>) -> Self {
        Path { segments }
    }

    /// The JSON Pointer: `''` for the root, else `/` before each segment, with `~` and `/` in
    /// keys escaped as `~0` and `~1`.
    pub fn pointer(&self) -> String {
        let mut out = String::new();
        for segment in &self.segments {
            out.push('/');
            match segment {
                Segment::Key(key) => escape_into(&mut out, key),
                Segment::Index(index) => out.push_str(&index.to_string()),
            }
        }
        out
    }

    /// The pointer with every array index written as `*` (`/items/3/price` → `/items/*/price`):
    /// the key of `stats().read.consistency.paths`.
    pub fn normalised(&self) -> String {
        let mut out = String::new();
        for segment in &self.segments {
            out.push('/');
            match segment {
                Segment::Key(key) => escape_into(&mut out, key),
                Segment::Index(_) => out.push_str(ANY_INDEX),
            }
        }
        out
    }
}

/// `path` normalised: every array index as `*` (see [`Path::normalised`]).
pub fn normalise(path: &Path) -> String {
    path.normalised()
}

/// Appends `key` to `out` with RFC 6901's escapes: `~` as `~0`, `/` as `~1`.
pub fn escape_into(out: &mut String, key: &str) {
    for c in key.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}
