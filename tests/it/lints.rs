//! The derives' expansion is lint-clean: this module denies every rustc and
//! clippy warning (`cargo clippy --all-targets` runs in CI) over a
//! declaration that uses every feature of the derives.
#![deny(warnings, clippy::all)]

use std::collections::{BTreeMap, BTreeSet};

use singletable::{Blob, Collection, Document, Entity, StrEnum, Table};

#[derive(Table)]
#[table(
    name = "Lints",
    gsi1,
    gsi2(no_sk, keys_only),
    lsi1,
    entity_type = "kind"
)]
pub struct LintTable;

#[derive(StrEnum, Debug, Clone, Copy, PartialEq, Eq)]
#[str_enum(rename_all = "kebab-case")]
pub enum Colour {
    DeepRed,
    #[str_enum(rename = "BLUE")]
    Blue,
}

#[derive(Document, Debug, Clone, PartialEq, Default)]
#[document(rename_all = "camelCase")]
pub struct Address {
    pub street_name: String,
    pub zip: Option<u32>,
}

fn non_blank(s: &str) -> Result<(), String> {
    if s.trim().is_empty() {
        Err("must not be blank".into())
    } else {
        Ok(())
    }
}

fn is_featured(w: &Widget) -> bool {
    w.rank > 10
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = LintTable, name = "Widget", rename_all = "camelCase")]
#[pk("WIDGET#<widget_id>")]
#[sk("V#<version>#<colour>")]
#[gsi1(pk = "COLOUR#<colour>", sk = "RANK#<rank>#<widget_id>", when = is_featured)]
#[gsi2(pk = "ACTIVE#<active>")]
#[lsi1(sk = "RANK#<rank>#<created_at>")]
#[access(by_widget)]
#[access(by_colour, index = gsi1)]
#[access(active, index = gsi2, keys)]
#[access(by_rank, index = lsi1)]
pub struct Widget {
    #[attr(validate = non_blank)]
    pub widget_id: String,
    pub version: u16,
    pub colour: Colour,
    pub rank: i64,
    pub active: bool,
    pub tags: BTreeSet<String>,
    pub props: BTreeMap<String, i32>,
    pub address: Address,
    pub blob: Option<Blob>,
    #[attr(skip)]
    pub cache: Option<String>,
    #[attr(default, max_len = 3)]
    pub notes: Vec<String>,
    #[attr(unique)]
    pub handle: Option<String>,
    #[attr(created_at)]
    pub created_at: String,
    #[attr(updated_at)]
    pub updated_at: i64,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum WidgetVersions {
    Widget(Widget),
}

#[test]
fn expansion_is_lint_clean() {
    let w = Widget {
        widget_id: "w".into(),
        version: 2,
        colour: Colour::DeepRed,
        rank: 11,
        active: true,
        tags: BTreeSet::new(),
        props: BTreeMap::new(),
        address: Address::default(),
        blob: None,
        cache: None,
        notes: vec![],
        handle: Some("w".into()),
        created_at: "2024-01-01T00:00:00.000000Z".into(),
        updated_at: 0,
    };
    let item = w.to_item().unwrap();
    assert_eq!(item["GSI1PK"].as_s().unwrap(), "COLOUR#deep-red");
    assert_eq!(
        item["LSI1SK"].as_s().unwrap(),
        "RANK#0000000000000000011#2024-01-01T00:00:00.000000Z"
    );
    assert!(!item.contains_key("GSI2SK"));
    assert_eq!(item["kind"].as_s().unwrap(), "Widget");
    assert_eq!(Widget::from_item(item).unwrap(), w);
    assert_eq!(
        Widget::parse_sk("V#00002#deep-red").unwrap(),
        (2, Colour::DeepRed)
    );
    let _query = WidgetVersions::query(Widget::partition("w").unwrap());
}
