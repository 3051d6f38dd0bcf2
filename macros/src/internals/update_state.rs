//! The update state of an entity: which fields an update must set together
//! (or take from the held item) so that every index key it changes can be
//! rebuilt. The derive types `Entity::update(..)` with one slot per such
//! field and marks the combinations of set fields that can be sent (see
//! the runtime's `update::state`).

use crate::internals::attr::Keys;
use crate::internals::model::Field;

/// The most slots tracked in an update's type (the runtime's
/// `update::state::MAX_SLOTS`); an entity with more is checked when its
/// updates are sent.
pub const MAX_SLOTS: usize = 6;

pub struct UpdateState {
    /// The fields tracked, by position (Rust names).
    pub slots: Vec<String>,
    /// For every combination of set slots (bit `i` is slot `i`), whether
    /// the update can rebuild every key it changes.
    pub ready: Vec<bool>,
}

/// The fields each multi-field index key template needs together: its
/// placeholders outside the primary key, when there are two or more.
fn needs(keys: &Keys) -> Vec<Vec<&str>> {
    let primary = keys.primary_fields();
    let mut out = Vec::new();
    for ix in &keys.indexes {
        for t in ix.pk.iter().chain(ix.sk.iter()) {
            let mut need: Vec<&str> = Vec::new();
            for f in t.fields() {
                if !primary.contains(&f) && !need.contains(&f) {
                    need.push(f);
                }
            }
            if need.len() >= 2 {
                out.push(need);
            }
        }
    }
    out
}

/// The entity's update state, or `None` when every update can rebuild the
/// keys it changes (or the entity needs more than [`MAX_SLOTS`] slots).
pub fn update_state(fields: &[Field], keys: &Keys) -> Option<UpdateState> {
    let stamped = |name: &str| {
        fields
            .iter()
            .any(|f| f.name() == name && f.opts.updated_at.is_present())
    };
    let needs = needs(keys);
    let mut slots: Vec<String> = Vec::new();
    for f in needs.iter().flatten() {
        if !stamped(f) && !slots.iter().any(|s| s == f) {
            slots.push((*f).to_owned());
        }
    }
    if slots.is_empty() || slots.len() > MAX_SLOTS {
        return None;
    }
    let ready = (0..1usize << slots.len())
        .map(|mask| {
            let set = |f: &str| {
                stamped(f)
                    || slots
                        .iter()
                        .position(|s| s == f)
                        .is_some_and(|i| mask & (1 << i) != 0)
            };
            needs
                .iter()
                .all(|need| need.iter().all(|f| set(f)) || !need.iter().any(|f| set(f)))
        })
        .collect();
    Some(UpdateState { slots, ready })
}
