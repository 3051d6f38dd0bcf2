//! Filters evaluated on stored items in place: only the attributes a
//! filter names are read out of the stored bytes (strings and numbers
//! borrowed, the other attributes passed over undecoded), and the one
//! condition evaluator ([`cond::holds`]) reads them from there.

use super::codec::{self, Wanted};
use super::cond::{self, Attrs};
use super::error::{Fail, Res};
use super::hash::PREFIX;
use super::table::TableData;
use super::value::Val;
use singletable_core::expr::Condition;
use singletable_core::reader::AttrRef;

/// A prepared filter over the stored items of one table, reusable from
/// item to item.
pub(crate) struct Filter<'f, 'a> {
    cond: &'f Condition,
    table: &'a TableData,
    /// The top-level attributes the filter reads, each once.
    names: Vec<&'f str>,
    wanted: Wanted,
    /// The current item's value of each of `names`.
    slots: Vec<Option<AttrRef<'a>>>,
}

impl<'f, 'a> Filter<'f, 'a> {
    pub(crate) fn new(cond: &'f Condition, table: &'a TableData) -> Self {
        let mut names = Vec::new();
        cond::paths(cond, &mut names);
        names.sort_unstable();
        names.dedup();
        let wanted = table.wanted(&names);
        let slots = vec![None; names.len()];
        Self {
            cond,
            table,
            names,
            wanted,
            slots,
        }
    }

    /// Whether the filter keeps the item stored at table position `pos`
    /// with value `value`.
    pub(crate) fn keeps(&mut self, pos: &'a [u8], value: &'a [u8]) -> Res<bool> {
        self.slots.fill(None);
        codec::pick(
            pos,
            PREFIX,
            value,
            self.table.keys(),
            &self.wanted,
            &mut self.slots,
        )
        .ok_or_else(|| Fail::internal("stored item is corrupt"))?;
        let picked = Picked {
            names: &self.names,
            slots: &self.slots,
        };
        Ok(cond::holds(self.cond, &picked))
    }
}

/// The attributes of one stored item a filter reads.
pub(crate) struct Picked<'s, 'a> {
    names: &'s [&'s str],
    slots: &'s [Option<AttrRef<'a>>],
}

impl Attrs for Picked<'_, '_> {
    fn attr(&self, name: &str) -> Option<Val<'_>> {
        let i = self.names.iter().position(|n| *n == name)?;
        self.slots.get(i)?.as_ref().map(Val::stored)
    }
}
