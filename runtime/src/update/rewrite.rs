//! What an update rewrites beside the changes it was given: the automatic
//! timestamps, every key attribute built from a field it sets (the stamps
//! included), and the marker items of the unique values it changes.
//!
//! Each key attribute is rewritten on its own, when the update sets a
//! field of its template: changing a field that only an index's sort key
//! uses needs no field of that index's partition key. A template field the
//! update does not set comes from the item given with
//! [`Update::knowing`](crate::Update::knowing) (the update is then
//! conditioned on the stored item still holding that value), or the update
//! is refused before anything is sent.

use std::time::SystemTime;

use super::{IndexKeys, KeyTemplate, Seg, When};
use crate::clock::TimeKind;
use crate::entity::Entity;
use crate::error::{Error, Refusal};
use crate::expr::Condition;
use crate::key::PrimaryKey;
use crate::request::{SetValue, UpdateAction};
use crate::unique::{self, MarkerOp};
use crate::value::{AttributeValue, Item};
use singletable_core::__private::HeldField;

/// An item the application holds, given to an update with
/// [`Update::knowing`](crate::Update::knowing).
#[derive(Debug)]
pub(crate) struct Held {
    /// Its primary key.
    pub key: PrimaryKey,
    /// Its encoded attributes.
    pub item: Item,
    /// `(field, attribute, key part)` of the fields keys and sparse
    /// conditions are built from.
    pub fields: Vec<(&'static str, &'static str, Option<String>)>,
}

impl Held {
    pub(crate) fn of<E: Entity>(current: &E) -> Result<Self, Error> {
        let fields = current
            .held_fields()
            .into_iter()
            .map(
                |HeldField {
                     field,
                     attribute,
                     part,
                 }| Ok((field, attribute, part.transpose()?)),
            )
            .collect::<Result<_, Error>>()?;
        Ok(Self {
            key: current.primary_key()?,
            item: current.to_item()?,
            fields,
        })
    }
}

/// The state of an update's key rewriting.
pub(crate) struct Rewrite<'a> {
    /// The item's primary key (shards are derived from it).
    pub key: &'a PrimaryKey,
    /// Key parts of the fields the update sets, of the primary-key fields
    /// and of the stamps.
    pub parts: Vec<(&'static str, String)>,
    /// Fields the update changes, stamps included.
    pub touched: Vec<&'static str>,
    /// `bool` values the update sets.
    pub bools: &'a [(&'static str, bool)],
    /// The item given with `knowing`.
    pub held: Option<&'a Held>,
    /// Whether the update may create the item.
    pub upsert: bool,
    /// The primary-key fields.
    pub primary: &'a [&'static str],
    /// Fields the update stamps itself (automatic timestamps).
    pub stamped: Vec<&'static str>,
    /// Key parts of `created_at` fields an upsert sets only on a new item.
    pub created_if_new: Vec<(&'static str, String)>,
    /// Stored values of the held item the update relies on: its condition.
    pub guards: Vec<(&'static str, Option<AttributeValue>)>,
}

fn set_by(actions: &[UpdateAction], attribute: &str) -> bool {
    actions
        .iter()
        .any(|a| matches!(a, UpdateAction::Set(name, _) if name == attribute))
}

fn template_fields(t: &KeyTemplate) -> impl Iterator<Item = &'static str> + '_ {
    t.segments.iter().filter_map(|s| match s {
        Seg::Field(f) => Some(*f),
        Seg::Lit(_) => None,
    })
}

/// The key attributes of `ix` an update writes: not those that are the
/// table's own key attributes (an index on the table's sort key), which
/// the item's key already holds and no update may change.
fn rewritten<E: Entity>(ix: &IndexKeys) -> impl Iterator<Item = (&KeyTemplate, usize)> {
    let table_pk = <E::Table as crate::Table>::PK;
    let table_sk = <E::Table as crate::Table>::SK;
    ix.templates()
        .filter(move |(t, _)| t.attr != table_pk && Some(t.attr) != table_sk)
}

fn remove_all<E: Entity>(ix: &IndexKeys, actions: &mut Vec<UpdateAction>) {
    for (t, _) in rewritten::<E>(ix) {
        actions.push(UpdateAction::Remove(t.attr.to_owned()));
    }
}

const KNOWING: &str = "give the current item with `.knowing(&item)`";

impl Rewrite<'_> {
    /// `SET` of every `updated_at` field the update does not set itself,
    /// at `now`; `created_at` fields too, as `if_not_exists`, in upserts.
    pub(crate) fn stamp<E: Entity>(
        &mut self,
        now: SystemTime,
        actions: &mut Vec<UpdateAction>,
    ) -> Result<(), Error> {
        for t in E::TIMESTAMPS {
            if set_by(actions, t.attribute) {
                continue;
            }
            let value = (t.value)(now)?;
            let part = t.key_part.map(|p| p(now)).transpose()?;
            match t.kind {
                TimeKind::Updated => {
                    actions.push(UpdateAction::Set(
                        t.attribute.to_owned(),
                        SetValue::Value(value),
                    ));
                    if let Some(p) = part {
                        self.parts.retain(|(f, _)| *f != t.field);
                        self.parts.push((t.field, p));
                    }
                    if !self.touched.contains(&t.field) {
                        self.touched.push(t.field);
                    }
                    self.stamped.push(t.field);
                }
                TimeKind::Created if self.upsert => {
                    actions.push(UpdateAction::Set(
                        t.attribute.to_owned(),
                        SetValue::IfNotExists(value),
                    ));
                    if let Some(p) = part {
                        self.created_if_new.push((t.field, p));
                    }
                }
                TimeKind::Created => {}
            }
        }
        Ok(())
    }

    /// The held item's key part of `field`, recording the stored value the
    /// update now relies on.
    fn held_part(&mut self, field: &str) -> Option<String> {
        let held = self.held?;
        let &(_, attribute, ref part) = held.fields.iter().find(|(f, _, _)| *f == field)?;
        let part = part.clone()?;
        self.guard(attribute);
        Some(part)
    }

    /// The held item's value of the sparse condition field `field`.
    fn held_bool(&mut self, field: &str) -> Option<bool> {
        let held = self.held?;
        let &(_, attribute, _) = held.fields.iter().find(|(f, _, _)| *f == field)?;
        self.guard(attribute);
        Some(matches!(
            held.item.get(attribute),
            Some(AttributeValue::Bool(true))
        ))
    }

    fn guard(&mut self, attribute: &'static str) {
        let Some(held) = self.held else { return };
        if !self.guards.iter().any(|(a, _)| *a == attribute) {
            self.guards
                .push((attribute, held.item.get(attribute).cloned()));
        }
    }

    /// The condition that the stored item still holds the held values the
    /// update relied on.
    pub(crate) fn condition(&self) -> Option<Condition> {
        self.guards
            .iter()
            .map(|(a, v)| match v {
                Some(v) => Condition::eq(*a, v.clone()),
                None => Condition::NotExists((*a).to_owned()),
            })
            .reduce(Condition::and)
    }

    /// Rewrites (or removes) every index key attribute the update changes.
    pub(crate) fn index_keys<E: Entity>(
        &mut self,
        actions: &mut Vec<UpdateAction>,
    ) -> Result<(), Error> {
        for ix in E::INDEX_KEYS {
            let changes_key = self.upsert
                || ix
                    .templates()
                    .any(|(t, _)| template_fields(t).any(|f| self.touched.contains(&f)));
            let changes_when = matches!(ix.when, When::Field(w) if self.touched.contains(&w));
            if !changes_key && !changes_when {
                continue;
            }
            // Whether the item enters the index now: then every key
            // attribute of the index is written, not only changed ones.
            let entering = match ix.when {
                When::Always => self.upsert,
                When::Function if self.upsert => {
                    return Err(Error::Refused(Refusal::SparseByFunction {
                        entity: E::ENTITY_TYPE,
                        index: index_name::<E::Table>(ix.index),
                        what: "an upsert".to_owned(),
                    }));
                }
                When::Function => {
                    let stamp = self
                        .touched
                        .iter()
                        .find(|t| self.stamped.contains(t) && ix.fields().any(|f| f == **t));
                    let only_stamps = self
                        .touched
                        .iter()
                        .filter(|t| ix.fields().any(|f| f == **t))
                        .all(|t| self.stamped.contains(t));
                    return Err(Error::Refused(Refusal::SparseByFunction {
                        entity: E::ENTITY_TYPE,
                        index: index_name::<E::Table>(ix.index),
                        what: match stamp {
                            Some(s) if only_stamps => {
                                format!("every update (it stamps `{s}`, an automatic timestamp)")
                            }
                            _ => "this update".to_owned(),
                        },
                    }));
                }
                When::Field(w) => match self.bools.iter().find(|(f, _)| *f == w) {
                    Some((_, false)) => {
                        remove_all::<E>(ix, actions);
                        continue;
                    }
                    Some((_, true)) => true,
                    // `remove` of the condition field: it reads as false.
                    None if changes_when => {
                        remove_all::<E>(ix, actions);
                        continue;
                    }
                    None => match self.held_bool(w) {
                        Some(true) => false,
                        // Not in the index, and the update does not put it there.
                        Some(false) => continue,
                        None => {
                            let stamps: Vec<&str> = self
                                .touched
                                .iter()
                                .copied()
                                .filter(|t| ix.fields().any(|f| f == *t))
                                .collect();
                            let by_stamp = stamps.iter().all(|t| self.stamped.contains(t));
                            let writes = ix
                                .pk
                                .as_ref()
                                .or(ix.sk.as_ref())
                                .map_or(ix.index, |t| t.attr);
                            return Err(Error::UpdateNeedsItem {
                                entity: E::ENTITY_TYPE,
                                writes,
                                needs: w,
                                message: if by_stamp {
                                    format!(
                                        "every update of `{}` stamps `{}` (an automatic timestamp), a key field of sparse index `{}`, which needs `{w}` to know whether the item is in the index; set `{w}` in the same update, or {KNOWING}",
                                        E::ENTITY_TYPE,
                                        stamps.join("`, `"),
                                        ix.index
                                    )
                                } else {
                                    format!(
                                        "this update of `{}` changes a key of sparse index `{}` without setting `{w}`; set `{w}` in the same update so the index entry is written or removed correctly, or {KNOWING}",
                                        E::ENTITY_TYPE,
                                        ix.index
                                    )
                                },
                            });
                        }
                    },
                },
            };
            for (t, max) in rewritten::<E>(ix) {
                if !entering && !template_fields(t).any(|f| self.touched.contains(&f)) {
                    continue;
                }
                let value = self.build::<E>(ix, t, max)?;
                actions.push(UpdateAction::Set(t.attr.to_owned(), value));
            }
        }
        Ok(())
    }

    /// The new value of key attribute `t` of index `ix`.
    fn build<E: Entity>(
        &mut self,
        ix: &IndexKeys,
        t: &KeyTemplate,
        max: usize,
    ) -> Result<SetValue, Error> {
        let mut value = String::new();
        let mut if_new: Option<&'static str> = None;
        for seg in t.segments {
            let f = match seg {
                Seg::Lit(text) => {
                    value.push_str(text);
                    continue;
                }
                Seg::Field(f) => *f,
            };
            if let Some((_, part)) = self.parts.iter().find(|(name, _)| *name == f) {
                value.push_str(part);
            } else if let Some(part) = self.held_part(f) {
                value.push_str(&part);
            } else if let Some((_, part)) = self.created_if_new.iter().find(|(name, _)| *name == f)
            {
                value.push_str(part);
                if_new = Some(f);
            } else {
                return Err(self.missing::<E>(ix, t, f));
            }
        }
        if let Some(created) = if_new {
            // The stored creation time stays on an existing item, so may
            // the key built from it, but only when nothing else in it
            // changes.
            let other = template_fields(t).find(|g| *g != created && !self.primary.contains(g));
            if other.is_some() || ix.when != When::Always {
                return Err(Error::UpsertIncomplete {
                    entity: E::ENTITY_TYPE,
                    fields: vec![created],
                    message: format!(
                        "an upsert of `{}` may create the item, and `{}` of index `{}` is built from `{created}`, which an upsert sets only on a new item{}; set `{created}` in the upsert, or create the item with `create` or `put`",
                        E::ENTITY_TYPE,
                        t.attr,
                        ix.index,
                        match other {
                            Some(g) => format!(" and from `{g}`"),
                            None => " in a sparse index".to_owned(),
                        },
                    ),
                });
            }
        }
        if ix.shards > 1 && ix.pk.as_ref().is_some_and(|pk| pk.attr == t.attr) {
            let shard = crate::shard::shard_of(&self.key.pk, self.key.sk.as_deref(), ix.shards);
            value = crate::shard::with_shard(&value, shard);
        }
        crate::key::check_len(E::ENTITY_TYPE, t.attr, &value, max)?;
        let value = AttributeValue::S(value);
        Ok(match if_new {
            Some(_) => SetValue::IfNotExists(value),
            None => SetValue::Value(value),
        })
    }

    /// The refusal of an update that cannot build `t`, which needs `f`.
    fn missing<E: Entity>(&self, ix: &IndexKeys, t: &KeyTemplate, f: &'static str) -> Error {
        let entity = E::ENTITY_TYPE;
        let (attr, index) = (t.attr, ix.index);
        let changed: Vec<&str> = self
            .touched
            .iter()
            .copied()
            .filter(|c| template_fields(t).any(|g| g == *c))
            .collect();
        if self.upsert {
            return Error::UpsertIncomplete {
                entity,
                fields: vec![f],
                message: format!(
                    "an upsert of `{entity}` may create the item, and `{attr}` of index `{index}` needs `{f}`, which the update does not set; set `{f}` in the upsert, or create the item with `create` or `put`"
                ),
            };
        }
        let message = if changed.is_empty() {
            let w = match ix.when {
                When::Field(w) => w,
                _ => "",
            };
            format!(
                "this update of `{entity}` sets `{w}`, which puts the item in sparse index `{index}`, so `{attr}` is written, and it needs `{f}`, which the update does not set; set `{f}` in the same update, or {KNOWING}"
            )
        } else if changed.iter().all(|c| self.stamped.contains(c)) {
            format!(
                "this update of `{entity}` stamps `{}` (an automatic timestamp), which `{attr}` of index `{index}` is built from, but `{attr}` also needs `{f}`, which the update does not set; set `{f}` in the same update, or {KNOWING}",
                changed.join("`, `"),
            )
        } else {
            format!(
                "this update of `{entity}` changes `{}`, which index `{index}` is keyed on, but `{attr}` also needs `{f}`, which the update does not set; set `{f}` in the same update, or {KNOWING}",
                changed.join("`, `"),
            )
        };
        Error::UpdateNeedsItem {
            entity,
            writes: attr,
            needs: f,
            message,
        }
    }

    /// The marker moves of the unique values the update changes: each
    /// needs the held item's old value, on which the update is conditioned.
    pub(crate) fn unique_moves<E: Entity>(
        &mut self,
        table: &str,
        actions: &[UpdateAction],
    ) -> Result<Vec<MarkerOp>, Error> {
        let mut ops = Vec::new();
        for u in E::UNIQUE {
            let Some(action) = actions.iter().rev().find(|a| match a {
                UpdateAction::Set(name, _)
                | UpdateAction::Remove(name)
                | UpdateAction::Add(name, _)
                | UpdateAction::Delete(name, _) => name == u.attribute,
                // A unique value is a scalar: no path reaches inside it.
                _ => false,
            }) else {
                continue;
            };
            let entity = E::ENTITY_TYPE;
            let field = u.field;
            if self.upsert {
                return Err(Error::Refused(Refusal::UniqueMarker {
                    entity,
                    field,
                    operation: "an upsert",
                    instead: "create the item with `create`, or update it with `.knowing(&item)`",
                }));
            }
            let new = match action {
                UpdateAction::Set(_, SetValue::Value(v)) => (u.part)(v)?,
                UpdateAction::Remove(_) => None,
                _ => {
                    return Err(Error::Refused(Refusal::UniqueNeedsValue { entity, field }));
                }
            };
            let Some(held) = self.held else {
                return Err(Error::UpdateNeedsItem {
                    entity,
                    writes: field,
                    needs: field,
                    message: format!(
                        "this update of `{entity}` changes `{field}`, a unique field, so the marker of its old value moves in the same transaction; {KNOWING}"
                    ),
                });
            };
            self.guard(u.attribute);
            let old = unique::part_in(u, Some(&held.item))?;
            if old == new {
                continue;
            }
            if let Some(old) = &old {
                ops.push(unique::release::<E>(table, u, old, self.key)?);
            }
            if let Some(new) = &new {
                ops.push(unique::claim::<E>(table, u, new, self.key)?);
            }
        }
        Ok(ops)
    }
}

/// The DynamoDB name of the table's index declared as `gsiN` or `lsiN`
/// (`GSI1` unless the table names it otherwise): how refusals name an
/// index.
fn index_name<T: crate::entity::Table>(declared: &'static str) -> &'static str {
    let number = |prefix: &str| declared.strip_prefix(prefix)?.parse::<u8>().ok();
    if let Some(n) = number("gsi") {
        T::GLOBAL_INDEXES
            .iter()
            .find(|g| g.number == n)
            .map_or(declared, |g| g.name)
    } else if let Some(n) = number("lsi") {
        T::LOCAL_INDEXES
            .iter()
            .find(|l| l.number == n)
            .map_or(declared, |l| l.name)
    } else {
        declared
    }
}
