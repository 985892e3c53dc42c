//! Stages, origins, operations and execution orders, and the stage table (SPEC A1).

/// A migration stage, in the order a migration moves through them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    Off,
    DualWrite,
    Shadow,
    Live,
    RampDown,
    Complete,
}

/// One of the two implementations being migrated between.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    Old,
    New,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operation {
    Read,
    Write,
}

/// How a read that runs both origins schedules them (SPEC A2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ExecutionOrder {
    /// The authoritative origin to completion, then the other.
    Serial,
    Random,
    #[default]
    Parallel,
    /// Old to completion, then new, whichever is authoritative (LaunchDarkly's
    /// `LDExecutionOrdering.Fixed`). Not one of `readExecutionOrder`'s strings: set by
    /// `MigratorBuilder::read_old_first`.
    OldFirst,
}

/// What a read runs at a stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadPlan {
    /// The origin whose result the read returns.
    pub authoritative: Origin,
    /// Whether the other origin runs too (and a consistency check may compare the two).
    pub shadowed: bool,
}

/// What a write runs at a stage: the authoritative write first, then, if it succeeded, the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WritePlan {
    pub authoritative: Origin,
    pub non_authoritative: Option<Origin>,
}

impl Stage {
    pub const ALL: [Stage; 6] =
        [Stage::Off, Stage::DualWrite, Stage::Shadow, Stage::Live, Stage::RampDown, Stage::Complete];

    /// Exact, case-sensitive parse of the six stage strings.
    pub fn parse(s: &str) -> Option<Stage> {
        Some(match s {
            "off" => Stage::Off,
            "dualwrite" => Stage::DualWrite,
            "shadow" => Stage::Shadow,
            "live" => Stage::Live,
            "rampdown" => Stage::RampDown,
            "complete" => Stage::Complete,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Off => "off",
            Stage::DualWrite => "dualwrite",
            Stage::Shadow => "shadow",
            Stage::Live => "live",
            Stage::RampDown => "rampdown",
            Stage::Complete => "complete",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn read_plan(self) -> ReadPlan {
        let (authoritative, shadowed) = match self {
            Stage::Off | Stage::DualWrite => (Origin::Old, false),
            Stage::Shadow => (Origin::Old, true),
            Stage::Live => (Origin::New, true),
            Stage::RampDown | Stage::Complete => (Origin::New, false),
        };
        ReadPlan { authoritative, shadowed }
    }

    pub fn write_plan(self) -> WritePlan {
        let (authoritative, non_authoritative) = match self {
            Stage::Off => (Origin::Old, None),
            Stage::DualWrite | Stage::Shadow => (Origin::Old, Some(Origin::New)),
            Stage::Live | Stage::RampDown => (Origin::New, Some(Origin::Old)),
            Stage::Complete => (Origin::New, None),
        };
        WritePlan { authoritative, non_authoritative }
    }
}

impl Origin {
    pub fn other(self) -> Origin {
        match self {
            Origin::Old => Origin::New,
            Origin::New => Origin::Old,
        }
    }
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Old => "old",
            Origin::New => "new",
        }
    }
    pub fn parse(s: &str) -> Option<Origin> {
        match s {
            "old" => Some(Origin::Old),
            "new" => Some(Origin::New),
            _ => None,
        }
    }
}

impl Operation {
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Read => "read",
            Operation::Write => "write",
        }
    }
    pub fn parse(s: &str) -> Option<Operation> {
        match s {
            "read" => Some(Operation::Read),
            "write" => Some(Operation::Write),
            _ => None,
        }
    }
}

impl ExecutionOrder {
    pub fn parse(s: &str) -> Option<ExecutionOrder> {
        match s {
            "serial" => Some(ExecutionOrder::Serial),
            "random" => Some(ExecutionOrder::Random),
            "parallel" => Some(ExecutionOrder::Parallel),
            _ => None,
        }
    }
}

/// Stages, origins and operations are written as their names.
macro_rules! serialize_as_name {
    ($($t:ty),*) => {$(
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    )*};
}

serialize_as_name!(Stage, Origin, Operation);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_round_trip_exactly_and_case_sensitively() {
        for stage in Stage::ALL {
            assert_eq!(Stage::parse(stage.as_str()), Some(stage));
        }
        assert_eq!(Stage::parse("Live"), None);
        assert_eq!(Stage::parse(" live"), None);
        assert_eq!(Stage::parse(""), None);
    }

    #[test]
    fn read_table_matches_spec_a1() {
        let rows = [
            (Stage::Off, Origin::Old, false),
            (Stage::DualWrite, Origin::Old, false),
            (Stage::Shadow, Origin::Old, true),
            (Stage::Live, Origin::New, true),
            (Stage::RampDown, Origin::New, false),
            (Stage::Complete, Origin::New, false),
        ];
        for (stage, authoritative, shadowed) in rows {
            assert_eq!(stage.read_plan(), ReadPlan { authoritative, shadowed }, "{stage:?}");
        }
    }

    #[test]
    fn write_table_matches_spec_a1() {
        use Origin::*;
        let rows = [
            (Stage::Off, Old, None),
            (Stage::DualWrite, Old, Some(New)),
            (Stage::Shadow, Old, Some(New)),
            (Stage::Live, New, Some(Old)),
            (Stage::RampDown, New, Some(Old)),
            (Stage::Complete, New, None),
        ];
        for (stage, authoritative, non_authoritative) in rows {
            assert_eq!(stage.write_plan(), WritePlan { authoritative, non_authoritative }, "{stage:?}");
        }
    }

    #[test]
    fn execution_orders_parse() {
        assert_eq!(ExecutionOrder::parse("serial"), Some(ExecutionOrder::Serial));
        assert_eq!(ExecutionOrder::parse("random"), Some(ExecutionOrder::Random));
        assert_eq!(ExecutionOrder::parse("parallel"), Some(ExecutionOrder::Parallel));
        assert_eq!(ExecutionOrder::parse("concurrent"), None);
        assert_eq!(ExecutionOrder::parse("oldfirst"), None, "old-first is not a public order string");
        assert_eq!(ExecutionOrder::default(), ExecutionOrder::Parallel);
    }
}
