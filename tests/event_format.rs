//! The bridge's event builder, `js/bridge/event_format.js`, is generated from the wire format's
//! tables (src/migration/event_format.rs) by scripts/event_format.rs, which scripts/build.sh runs:
//! the file in the tree must be what the generator writes from the tables as they are now.

#[path = "../scripts/event_format.rs"]
#[allow(dead_code)]
mod generator;

#[test]
fn the_generated_event_builder_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(generator::OUTPUT);
    let in_tree = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        in_tree == generator::render(),
        "{} is not what scripts/event_format.rs writes from src/migration/event_format.rs now: run scripts/build.sh",
        generator::OUTPUT
    );
}

#[test]
fn the_generated_builder_writes_every_field_of_the_tables() {
    use generator::event_format::{Holds, EVENT, MEASUREMENTS};
    let text = generator::render();
    let written = |name: &str| {
        text.contains(&format!("{name}: "))
            || text.contains(&format!(".{name} = "))
            || text.contains(&format!(" {name},"))
            || text.contains(&format!(" {name} }}"))
    };
    let mut fields: Vec<_> = EVENT.fields.iter().collect();
    for f in EVENT.fields {
        if let Holds::Object(form) = f.holds {
            fields.extend(form.fields);
        }
    }
    fields.extend(MEASUREMENTS.iter().flat_map(|m| m.fields));
    for f in fields {
        assert!(written(f.name), "the generated builder does not write {}", f.name);
    }
    for m in &MEASUREMENTS {
        assert!(
            text.contains(&format!("'{}'", m.key)),
            "the generated builder does not write the measurement {}",
            m.key
        );
    }
}
