//! The relay's decisions (`migrationEventRelay`, API.md §2c): which events of a posted batch are
//! forwarded to LaunchDarkly's `trackMigration`, and why the others are not. The bindings read the
//! value `JSON.parse` gave into a [`Wire`] (src/js/relay.rs); what is about HTTP (method, content
//! type, body size, parsing, the response) stays in js/relay.js.

pub mod event;
mod schema;
pub mod wire;

pub use event::{Forward, Refusal};
pub use wire::Wire;

/// What the relay was configured with that decides about events.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RelayRules {
    /// When given, the only flag keys whose events are forwarded.
    pub flag_keys: Option<Vec<String>>,
}

impl RelayRules {
    /// `Ok` when the event is forwarded, else the reason it is not (the text of the 400 answer's
    /// `rejected[].reason`).
    pub fn judge(&self, event: &Wire) -> Result<(), Refusal> {
        self.forward(event).map(|_| ())
    }

    /// `Ok` with what to write into the event when it is forwarded, else the reason it is not.
    pub fn forward(&self, event: &Wire) -> Result<Forward, Refusal> {
        event::judge(event, self.flag_keys.as_deref())
    }

    /// The rejected events of a batch, by index, with their reasons.
    pub fn rejections(&self, events: &[Wire]) -> Vec<(usize, Refusal)> {
        events.iter().enumerate().filter_map(|(i, event)| self.judge(event).err().map(|r| (i, r))).collect()
    }
}

#[cfg(test)]
mod tests;
