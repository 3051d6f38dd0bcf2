//! Why some updates of an entity need the held item (`Update::knowing`),
//! read from its shape: the rows of the design document's held-item
//! table.

use singletable_runtime::design::EntityShape;

/// Why some updates of an entity need the held item: a secondary index
/// key built from several fields is rewritten whole when one of them
/// changes, so an update that sets some of them needs the others, from
/// the update or from the item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeldItemNeed {
    /// The index (`gsi1`).
    pub index: &'static str,
    /// The key template that is rewritten (`ISSUECOMMENT#<updatedAt>#<replyViewed>`).
    pub template: &'static str,
    /// Its placeholders that are not primary-key fields (stored names): an
    /// update that sets one of them needs all of them.
    pub fields: Vec<&'static str>,
    /// The stamped fields among them: when there is one, every update
    /// rewrites the key, so every update needs the other fields.
    pub stamped: Vec<&'static str>,
}

impl HeldItemNeed {
    /// Whether every update needs the held item or the other fields
    /// (an `updated_at` field is in the template with another field).
    pub(crate) fn every_update(&self) -> bool {
        !self.stamped.is_empty() && self.fields.len() > self.stamped.len()
    }
}

/// The placeholders of a template (stored names), in order.
fn placeholders(template: &'static str) -> impl Iterator<Item = &'static str> {
    template
        .split('<')
        .skip(1)
        .filter_map(|rest| rest.split('>').next())
}

/// The index keys an update of `e` cannot always rebuild from what it
/// sets: each template built from two or more fields outside the primary
/// key. An update that sets some of them but not all needs the held item
/// (`Update::knowing`) or the others set in the same update; with an
/// `updated_at` field among them, every update does.
pub(crate) fn held_item_needs(e: &EntityShape) -> Vec<HeldItemNeed> {
    let primary: Vec<&str> = placeholders(e.pk.template)
        .chain(e.sk.iter().flat_map(|k| placeholders(k.template)))
        .collect();
    let mut out = Vec::new();
    for ix in e.indexes {
        for key in ix.pk.iter().chain(ix.sk.iter()) {
            let mut fields: Vec<&'static str> = Vec::new();
            for f in placeholders(key.template) {
                if !primary.contains(&f) && !fields.contains(&f) {
                    fields.push(f);
                }
            }
            if fields.len() < 2 {
                continue;
            }
            let stamped = fields
                .iter()
                .copied()
                .filter(|f| e.stamped.contains(f))
                .collect();
            out.push(HeldItemNeed {
                index: ix.name,
                template: key.template,
                fields,
                stamped,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use singletable::{Entity, Table};

    use super::*;

    #[derive(Table)]
    #[table(name = "App", gsi1)]
    pub struct App;

    #[derive(Entity)]
    #[entity(table = App, rename_all = "camelCase")]
    #[pk("ISSUE#<number>")]
    #[sk("COMMENT#<id>")]
    #[gsi1(pk = "ISSUE#<number>", sk = "ISSUECOMMENT#<updated_at>#<reply_viewed>")]
    pub struct Comment {
        pub number: u32,
        pub id: String,
        pub reply_viewed: bool,
        #[attr(updated_at)]
        pub updated_at: u64,
    }

    #[derive(Entity)]
    #[entity(table = App, rename_all = "camelCase")]
    #[pk("PR#<number>")]
    #[sk("PR")]
    #[gsi1(pk = "REPO#<repo>", sk = "PR#<status>#<created_at>")]
    pub struct Pull {
        pub number: u32,
        pub repo: String,
        pub status: String,
        pub created_at: i64,
    }

    #[test]
    fn held_item_needs_name_the_fields_of_rebuilt_keys() {
        let needs = held_item_needs(&Comment::SHAPE);
        assert_eq!(needs.len(), 1);
        assert_eq!(needs[0].fields, ["updatedAt", "replyViewed"]);
        assert!(needs[0].every_update());

        let need = &held_item_needs(&Pull::SHAPE)[0];
        assert_eq!(
            (need.index, need.template),
            ("gsi1", "PR#<status>#<createdAt>")
        );
        assert_eq!(need.fields, ["status", "createdAt"]);
        assert!(!need.every_update()); // only those that set one of them
    }
}
