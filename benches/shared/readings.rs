//! The readings the embedded benchmarks store (`benches/embedded.rs` and
//! the dynoxide comparison, `benches/dynoxide`): one small entity in
//! tables with no, one and two global indexes. Included with `#[path]`,
//! so both measure the same items.

use singletable::{Entity, Table};

#[derive(Table)]
#[table(name = "Bench")]
pub struct BenchTable;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = BenchTable, name = "Reading", rename_all = "camelCase")]
#[pk("SENSOR#<sensor>")]
#[sk("T#<t>")]
#[access(readings)]
pub struct Reading {
    pub sensor: String,
    pub t: u32,
    pub value: f64,
    pub unit: String,
}

#[derive(Table)]
#[table(name = "BenchOne", gsi1)]
pub struct OneIndex;

#[derive(Table)]
#[table(name = "BenchTwo", gsi1, gsi2)]
pub struct TwoIndexes;

/// A reading in a table with one global index (the readings of a unit).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = OneIndex, name = "Reading", rename_all = "camelCase")]
#[pk("SENSOR#<sensor>")]
#[sk("T#<t>")]
#[gsi1(pk = "UNIT#<unit>", sk = "T#<t>")]
pub struct Indexed1 {
    pub sensor: String,
    pub t: u32,
    pub value: f64,
    pub unit: String,
}

/// The same reading in a table with two global indexes.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = TwoIndexes, name = "Reading", rename_all = "camelCase")]
#[pk("SENSOR#<sensor>")]
#[sk("T#<t>")]
#[gsi1(pk = "UNIT#<unit>", sk = "T#<t>")]
#[gsi2(pk = "ALL", sk = "S#<sensor>#T#<t>")]
pub struct Indexed2 {
    pub sensor: String,
    pub t: u32,
    pub value: f64,
    pub unit: String,
}

pub fn reading(sensor: &str, t: u32) -> Reading {
    Reading {
        sensor: sensor.into(),
        t,
        value: f64::from(t) * 0.5,
        unit: "celsius".into(),
    }
}

impl From<Reading> for Indexed1 {
    fn from(r: Reading) -> Self {
        Self {
            sensor: r.sensor,
            t: r.t,
            value: r.value,
            unit: r.unit,
        }
    }
}

impl From<Reading> for Indexed2 {
    fn from(r: Reading) -> Self {
        Self {
            sensor: r.sensor,
            t: r.t,
            value: r.value,
            unit: r.unit,
        }
    }
}
