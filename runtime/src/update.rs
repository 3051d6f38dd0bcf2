//! Typed UpdateItem requests that keep every index key in sync.
//!
//! `Order::update(order_id)` starts an [`Update`]; its `set`, `remove`,
//! `add`, `delete`, `append`, `prepend` and `set_if_not_exists` take the
//! typed field handles of `Order::fields()`. When an update changes a field
//! that a secondary-index key is built from, the same request rewrites that
//! index's key attributes; when it turns a sparse index's condition false,
//! the same request removes them. If a key cannot be rebuilt from what the
//! update supplies, the update is refused before anything is sent.

use std::collections::BTreeSet;
use std::marker::PhantomData;

use crate::db::{Db, key_item};
use crate::entity::{Entity, Table};
use crate::error::Error;
use crate::exec::Executor;
use crate::expr::Condition;
use crate::fields::{Cond, Field, KeyField};
use crate::key::{KeyPart, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, PrimaryKey};
use crate::request::{ReturnValues, SetValue, UpdateAction, UpdateItem};
use crate::value::{Attr, AttributeValue, Item};

/// One segment of a key template, as the derive describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seg {
    /// Literal text.
    Lit(&'static str),
    /// A placeholder: the Rust field name.
    Field(&'static str),
}

/// A key attribute and the template it is built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyTemplate {
    /// The attribute (`GSI1PK`, …).
    pub attr: &'static str,
    /// The template.
    pub segments: &'static [Seg],
}

/// When a secondary index holds the entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Always.
    Always,
    /// While this `bool` field (Rust name) is true.
    Field(&'static str),
    /// While a function of the whole item returns true.
    Function,
}

/// The key templates of one secondary index of an entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexKeys {
    /// `gsi1`, `lsi2`.
    pub index: &'static str,
    /// Partition key template (global indexes only).
    pub pk: Option<KeyTemplate>,
    /// Sort key template.
    pub sk: Option<KeyTemplate>,
    /// Sparse condition.
    pub when: When,
    /// Write shards of the partition key (1: not sharded).
    pub shards: u16,
}

impl IndexKeys {
    fn templates(&self) -> impl Iterator<Item = (&KeyTemplate, usize)> {
        self.pk
            .iter()
            .map(|t| (t, MAX_PARTITION_KEY_BYTES))
            .chain(self.sk.iter().map(|t| (t, MAX_SORT_KEY_BYTES)))
    }

    fn fields(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.templates().flat_map(|(t, _)| {
            t.segments.iter().filter_map(|s| match s {
                Seg::Field(f) => Some(*f),
                Seg::Lit(_) => None,
            })
        })
    }
}

/// Fields that can be set by an update: every stored field except the
/// primary key's.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be updated",
    label = "primary-key fields are immutable",
    note = "an item's primary key cannot change; write a new item (and delete the old one) instead"
)]
pub trait Settable<E: Entity, T: Attr>: Copy {
    #[doc(hidden)]
    fn attribute(&self) -> &'static str;
    #[doc(hidden)]
    fn check(&self, value: &T) -> Result<(), String>;
    #[doc(hidden)]
    fn field(&self) -> &'static str;
    #[doc(hidden)]
    fn key_part(&self, value: &T) -> Option<Result<String, Error>>;
}

impl<E: Entity, T: Attr> Settable<E, T> for Field<E, T> {
    fn attribute(&self) -> &'static str {
        crate::fields::FieldPath::attribute(self)
    }
    fn check(&self, value: &T) -> Result<(), String> {
        Field::check(self, value)
    }
    fn field(&self) -> &'static str {
        crate::fields::FieldPath::field(self)
    }
    fn key_part(&self, _: &T) -> Option<Result<String, Error>> {
        None
    }
}

impl<E: Entity, T: Attr + KeyPart> Settable<E, T> for KeyField<E, T> {
    fn attribute(&self) -> &'static str {
        crate::fields::FieldPath::attribute(self)
    }
    fn check(&self, value: &T) -> Result<(), String> {
        KeyField::check(self, value)
    }
    fn field(&self) -> &'static str {
        crate::fields::FieldPath::field(self)
    }
    fn key_part(&self, value: &T) -> Option<Result<String, Error>> {
        let mut out = String::new();
        let field = crate::fields::FieldPath::field(self);
        Some(crate::key::write_part(E::ENTITY_TYPE, field, value, &mut out).map(|()| out))
    }
}

/// Numbers and sets, which `ADD` accepts.
pub trait Addable: Attr {}
macro_rules! addable {
    ($($t:ty),*) => {$(impl Addable for $t {})*};
}
addable!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64
);
impl<V> Addable for BTreeSet<V> where BTreeSet<V>: Attr {}
impl<V, S> Addable for std::collections::HashSet<V, S> where std::collections::HashSet<V, S>: Attr {}

/// Sets, which `DELETE` accepts.
pub trait SetType: Attr {}
impl<V> SetType for BTreeSet<V> where BTreeSet<V>: Attr {}
impl<V, S> SetType for std::collections::HashSet<V, S> where std::collections::HashSet<V, S>: Attr {}

/// The error for a value a field's declared validations refuse.
fn invalid<E: Entity>(field: &'static str, message: String) -> Error {
    Error::Validation {
        entity: E::ENTITY_TYPE,
        field,
        message,
    }
}

/// What an executed update returned.
#[derive(Debug, Clone, PartialEq)]
pub enum Returned<E> {
    /// Nothing was asked for.
    Nothing,
    /// The whole item (`ALL_OLD` / `ALL_NEW`); `None` when there was none.
    Item(Option<E>),
    /// The updated attributes only (`UPDATED_OLD` / `UPDATED_NEW`).
    Attributes(Item),
}

/// An UpdateItem request on one item of entity `E`, built by the generated
/// `E::update(key fields…)`.
///
/// Values given to `set`, `set_if_not_exists` and `remove` are checked
/// against the field's declared validations (`min`, `max`, `min_len`,
/// `max_len`, `validate`) as puts are: a refused value is an
/// `Error::Validation` and nothing is sent. `add`, `append`, `prepend` and
/// `delete` change the stored value relative to what DynamoDB holds, so
/// their result is not checked.
#[must_use = "an update does nothing until it is executed"]
pub struct Update<E> {
    key: PrimaryKey,
    parts: Vec<(&'static str, String)>,
    touched: Vec<&'static str>,
    bools: Vec<(&'static str, bool)>,
    actions: Vec<UpdateAction>,
    condition: Option<Condition>,
    expected_version: Option<u64>,
    upsert: bool,
    /// The primary-key fields as stored attributes (or why one cannot be
    /// stored), written by an upsert.
    key_values: Vec<(&'static str, Result<AttributeValue, Error>)>,
    error: Option<Error>,
    _m: PhantomData<fn() -> E>,
}

impl<E> std::fmt::Debug for Update<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Update")
            .field("key", &self.key)
            .field("actions", &self.actions)
            .field("condition", &self.condition)
            .finish_non_exhaustive()
    }
}

impl<E: Entity> Update<E> {
    /// An update of the item with `key`, whose primary-key fields encode to
    /// `parts` (Rust field name, key part). Used by generated code.
    #[doc(hidden)]
    pub fn new(
        key: Result<PrimaryKey, Error>,
        parts: Vec<(&'static str, Result<String, Error>)>,
    ) -> Self {
        let mut error = None;
        let key = key.unwrap_or_else(|e| {
            error = Some(e);
            PrimaryKey {
                pk: String::new(),
                sk: None,
            }
        });
        let parts = parts
            .into_iter()
            .filter_map(|(f, p)| match p {
                Ok(p) => Some((f, p)),
                Err(e) => {
                    error.get_or_insert(e);
                    None
                }
            })
            .collect();
        Self {
            key,
            parts,
            touched: Vec::new(),
            bools: Vec::new(),
            actions: Vec::new(),
            condition: None,
            expected_version: None,
            upsert: false,
            key_values: Vec::new(),
            error,
            _m: PhantomData,
        }
    }

    /// The primary-key fields' stored attributes, each checked against the
    /// field's validations. Used by generated code.
    #[doc(hidden)]
    pub fn with_key_values(
        mut self,
        values: Vec<(&'static str, Result<AttributeValue, Error>)>,
    ) -> Self {
        self.key_values = values;
        self
    }

    fn fail(mut self, e: Error) -> Self {
        self.error.get_or_insert(e);
        self
    }

    fn encode<T: Attr>(&self, attribute: &str, value: &T) -> Result<AttributeValue, Error> {
        value.to_attr().map_err(|e| Error::Encode {
            entity: E::ENTITY_TYPE,
            source: e.at(attribute),
        })
    }

    fn touch(&mut self, field: &'static str) {
        if !self.touched.contains(&field) {
            self.touched.push(field);
        }
    }

    /// `SET field = value`. Index keys built from the field follow.
    pub fn set<T: Attr, F: Settable<E, T>>(mut self, field: F, value: T) -> Self {
        if let Err(message) = field.check(&value) {
            return self.fail(invalid::<E>(field.field(), message));
        }
        let attr = field.attribute();
        if value.is_absent() {
            // None and empty sets are stored as absent attributes.
            return self.remove_attr(attr, field.field());
        }
        let v = match self.encode(attr, &value) {
            Ok(v) => v,
            Err(e) => return self.fail(e),
        };
        if let Some(part) = field.key_part(&value) {
            match part {
                Ok(p) => {
                    self.parts.retain(|(f, _)| *f != field.field());
                    self.parts.push((field.field(), p));
                }
                Err(e) => return self.fail(e),
            }
        }
        if let AttributeValue::Bool(b) = v {
            self.bools.retain(|(f, _)| *f != field.field());
            self.bools.push((field.field(), b));
        }
        self.touch(field.field());
        self.actions
            .push(UpdateAction::Set(attr.to_owned(), SetValue::Value(v)));
        self
    }

    fn remove_attr(mut self, attr: &'static str, field: &'static str) -> Self {
        self.touch(field);
        self.actions.push(UpdateAction::Remove(attr.to_owned()));
        self
    }

    /// `REMOVE field`, for `Option` fields (reads back as `None`). Refused
    /// when the field's validations do not accept `None`.
    pub fn remove<T: Attr>(self, field: Field<E, Option<T>>) -> Self {
        if let Err(message) = field.check(&None) {
            let name = crate::fields::FieldPath::field(&field);
            return self.fail(invalid::<E>(name, message));
        }
        let attr = crate::fields::FieldPath::attribute(&field);
        let name = crate::fields::FieldPath::field(&field);
        self.remove_attr(attr, name)
    }

    /// `SET field = if_not_exists(field, value)`.
    pub fn set_if_not_exists<T: Attr>(mut self, field: Field<E, T>, value: T) -> Self {
        if let Err(message) = field.check(&value) {
            let name = crate::fields::FieldPath::field(&field);
            return self.fail(invalid::<E>(name, message));
        }
        let attr = crate::fields::FieldPath::attribute(&field);
        match self.encode(attr, &value) {
            Ok(v) => {
                self.touch(crate::fields::FieldPath::field(&field));
                self.actions
                    .push(UpdateAction::Set(attr.to_owned(), SetValue::IfNotExists(v)));
                self
            }
            Err(e) => self.fail(e),
        }
    }

    /// `ADD field value`: an atomic counter (no read-modify-write) or set
    /// union. A missing number counts from 0.
    pub fn add<T: Addable>(mut self, field: Field<E, T>, value: T) -> Self {
        let attr = crate::fields::FieldPath::attribute(&field);
        match self.encode(attr, &value) {
            Ok(v) => {
                self.touch(crate::fields::FieldPath::field(&field));
                self.actions.push(UpdateAction::Add(attr.to_owned(), v));
                self
            }
            Err(e) => self.fail(e),
        }
    }

    /// `DELETE field elements`: removes elements from a set.
    pub fn delete<T: SetType>(mut self, field: Field<E, T>, elements: T) -> Self {
        let attr = crate::fields::FieldPath::attribute(&field);
        if elements.is_absent() {
            return self;
        }
        match self.encode(attr, &elements) {
            Ok(v) => {
                self.touch(crate::fields::FieldPath::field(&field));
                self.actions.push(UpdateAction::Delete(attr.to_owned(), v));
                self
            }
            Err(e) => self.fail(e),
        }
    }

    /// `SET field = list_append(field, values)`.
    pub fn append<V: Attr>(mut self, field: Field<E, Vec<V>>, values: Vec<V>) -> Self {
        let attr = crate::fields::FieldPath::attribute(&field);
        match self.encode(attr, &values) {
            Ok(v) => {
                self.touch(crate::fields::FieldPath::field(&field));
                self.actions
                    .push(UpdateAction::Set(attr.to_owned(), SetValue::Append(v)));
                self
            }
            Err(e) => self.fail(e),
        }
    }

    /// `SET field = list_append(values, field)`.
    pub fn prepend<V: Attr>(mut self, field: Field<E, Vec<V>>, values: Vec<V>) -> Self {
        let attr = crate::fields::FieldPath::attribute(&field);
        match self.encode(attr, &values) {
            Ok(v) => {
                self.touch(crate::fields::FieldPath::field(&field));
                self.actions
                    .push(UpdateAction::Set(attr.to_owned(), SetValue::Prepend(v)));
                self
            }
            Err(e) => self.fail(e),
        }
    }

    /// Applies the update only if `condition` holds.
    pub fn only_if(mut self, condition: Cond<E>) -> Self {
        match condition.into_condition() {
            Ok(c) => {
                self.condition = Some(match self.condition.take() {
                    Some(prev) => prev.and(c),
                    None => c,
                });
                self
            }
            Err(e) => self.fail(e),
        }
    }

    /// Optimistic locking: applies only if the stored version is `version`
    /// (the one that was read), and increments it. Required for entities
    /// with a `#[attr(version)]` field.
    pub fn if_version(mut self, version: u64) -> Self {
        self.expected_version = Some(version);
        self
    }

    /// Creates the item when it does not exist. By default an update of a
    /// missing item fails with [`Error::NotFound`], so no partial item
    /// without required fields is ever created.
    ///
    /// An upsert writes a complete item in its one UpdateItem: the
    /// entity-type attribute, the primary-key fields, every index key (the
    /// fields of each must be set by the update or be key fields), the
    /// `created_at` stamp if the item is new. It must set every field the
    /// entity cannot read as absent (non-`Option` fields without a
    /// default), or it is refused before sending
    /// ([`Error::InvalidRequest`]); its values pass the fields'
    /// validations. It applies only where no item or an item of this
    /// entity type exists (otherwise [`Error::ConditionFailed`]).
    /// Versioned entities are created with `put_versioned` instead.
    pub fn upsert(mut self) -> Self {
        self.upsert = true;
        self
    }

    pub(crate) fn key(&self) -> &PrimaryKey {
        &self.key
    }

    /// The request, with every dependent key attribute rewritten.
    pub(crate) fn into_request(self, table: &str) -> Result<UpdateItem, Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut actions = self.actions;
        let mut condition = self.condition;
        if self.upsert {
            upsert_preconditions::<E>(&self.touched, &self.parts)?;
            for (attr, value) in self.key_values {
                actions.push(UpdateAction::Set(attr.to_owned(), SetValue::Value(value?)));
            }
            let type_attr = <E::Table as Table>::ENTITY_TYPE;
            let entity_type = AttributeValue::S(E::ENTITY_TYPE.to_owned());
            actions.push(UpdateAction::Set(
                type_attr.to_owned(),
                SetValue::Value(entity_type.clone()),
            ));
            // Only a new item or one of this entity: never turn another
            // entity's item into this one.
            let c = Condition::NotExists(<E::Table as Table>::PK.to_owned())
                .or(Condition::eq(type_attr, entity_type));
            condition = Some(match condition {
                Some(prev) => c.and(prev),
                None => c,
            });
            if let Some((attr, now)) = E::created_at() {
                let set_by_caller = actions
                    .iter()
                    .any(|a| matches!(a, UpdateAction::Set(name, _) if name == attr));
                if !set_by_caller {
                    actions.push(UpdateAction::Set(
                        attr.to_owned(),
                        SetValue::IfNotExists(now()?),
                    ));
                }
            }
        }
        for ix in E::INDEX_KEYS {
            // An upsert may create the item: it writes every index key.
            let changes_key = self.upsert || ix.fields().any(|f| self.touched.contains(&f));
            let changes_when = matches!(ix.when, When::Field(w) if self.touched.contains(&w));
            if !changes_key && !changes_when {
                continue;
            }
            match ix.when {
                When::Always => {}
                When::Function if self.upsert => {
                    return Err(Error::InvalidRequest(format!(
                        "an upsert of `{}` cannot tell whether the item belongs in `{}`, a sparse index whose condition is a function of the whole item; create the item with `create` or `put`",
                        E::ENTITY_TYPE,
                        ix.index
                    )));
                }
                When::Function => {
                    return Err(Error::InvalidRequest(format!(
                        "this update of `{}` changes a key field of `{}`, a sparse index whose condition is a function of the whole item; write the item with a put instead",
                        E::ENTITY_TYPE,
                        ix.index
                    )));
                }
                When::Field(w) => {
                    let Some((_, on)) = self.bools.iter().find(|(f, _)| *f == w) else {
                        if changes_when {
                            // `remove` of the condition field: it reads as false.
                            for (t, _) in ix.templates() {
                                actions.push(UpdateAction::Remove(t.attr.to_owned()));
                            }
                            continue;
                        }
                        return Err(Error::InvalidRequest(format!(
                            "this update of `{}` changes a key of sparse index `{}` without setting `{w}`; set `{w}` in the same update so the index entry is written or removed correctly",
                            E::ENTITY_TYPE,
                            ix.index
                        )));
                    };
                    if !on {
                        for (t, _) in ix.templates() {
                            actions.push(UpdateAction::Remove(t.attr.to_owned()));
                        }
                        continue;
                    }
                }
            }
            for (t, max) in ix.templates() {
                let mut value = String::new();
                for seg in t.segments {
                    match seg {
                        Seg::Lit(text) => value.push_str(text),
                        Seg::Field(f) => match self.parts.iter().find(|(name, _)| name == f) {
                            Some((_, part)) => value.push_str(part),
                            None if self.upsert => {
                                return Err(Error::InvalidRequest(format!(
                                    "an upsert of `{}` may create the item, and `{}` of index `{}` needs `{f}`, which the update does not set; set `{f}` in the upsert, or create the item with `create` or `put`",
                                    E::ENTITY_TYPE,
                                    t.attr,
                                    ix.index,
                                )));
                            }
                            None => {
                                let changed: Vec<&str> = self
                                    .touched
                                    .iter()
                                    .copied()
                                    .filter(|t| ix.fields().any(|f| f == *t))
                                    .collect();
                                return Err(Error::InvalidRequest(format!(
                                    "this update of `{}` changes `{}`, which index `{}` is keyed on, but `{}` also needs `{f}`, which the update does not set; set `{f}` in the same update",
                                    E::ENTITY_TYPE,
                                    changed.join("`, `"),
                                    ix.index,
                                    t.attr,
                                )));
                            }
                        },
                    }
                }
                if ix.shards > 1 && ix.pk.as_ref().is_some_and(|pk| pk.attr == t.attr) {
                    let shard =
                        crate::shard::shard_of(&self.key.pk, self.key.sk.as_deref(), ix.shards);
                    value = crate::shard::with_shard(&value, shard);
                }
                crate::key::check_len(E::ENTITY_TYPE, t.attr, &value, max)?;
                actions.push(UpdateAction::Set(
                    t.attr.to_owned(),
                    SetValue::Value(AttributeValue::S(value)),
                ));
            }
        }
        if let Some((attr, now)) = E::updated_at() {
            let set_by_caller = actions
                .iter()
                .any(|a| matches!(a, UpdateAction::Set(name, _) if name == attr));
            if !set_by_caller {
                actions.push(UpdateAction::Set(attr.to_owned(), SetValue::Value(now()?)));
            }
        }
        if let Some(version_attr) = E::VERSION {
            let Some(expected) = self.expected_version else {
                return Err(Error::InvalidRequest(format!(
                    "`{}` is versioned: call `.if_version(v)` with the version that was read",
                    E::ENTITY_TYPE
                )));
            };
            let c = Condition::eq(version_attr, AttributeValue::N(expected.to_string()));
            condition = Some(match condition {
                Some(prev) => prev.and(c),
                None => c,
            });
            actions.push(UpdateAction::Set(
                version_attr.to_owned(),
                SetValue::Increment(AttributeValue::N("1".into())),
            ));
        }
        if let Some(schema) = E::SCHEMA {
            // An update writes fields of the current shape into the stored
            // item: only into one stored in a shape that reads as the
            // current type. An upsert that creates the item stamps it.
            let version = |v: u32| crate::expr::Operand::Value(AttributeValue::N(v.to_string()));
            if schema.migrated > 0 {
                let c = Condition::Compare(
                    crate::expr::Operand::Path(schema.attribute.to_owned()),
                    crate::expr::Cmp::Gt,
                    version(schema.migrated),
                );
                let c = if self.upsert {
                    c.or(Condition::NotExists(<E::Table as Table>::PK.to_owned()))
                } else {
                    c
                };
                condition = Some(c.and_maybe(condition));
            }
            if self.upsert {
                actions.push(UpdateAction::Set(
                    schema.attribute.to_owned(),
                    SetValue::IfNotExists(AttributeValue::N(schema.current.to_string())),
                ));
            }
        }
        if !self.upsert {
            let c = Condition::Exists(<E::Table as Table>::PK.to_owned());
            condition = Some(match condition {
                Some(prev) => c.and(prev),
                None => c,
            });
        }
        if actions.is_empty() {
            return Err(Error::InvalidRequest(
                "an update needs at least one action".into(),
            ));
        }
        Ok(UpdateItem {
            table: table.to_owned(),
            key: key_item::<E::Table>(&self.key),
            actions,
            condition,
            return_values: ReturnValues::None,
            return_on_condition_failure: true,
        })
    }

    /// Sends the update (one UpdateItem request).
    pub async fn execute<X: Executor>(self, db: &Db<X>) -> Result<(), Error> {
        self.execute_returning(db, ReturnValues::None)
            .await
            .map(drop)
    }

    /// Sends the update and returns what `returning` asks for.
    pub async fn execute_returning<X: Executor>(
        self,
        db: &Db<X>,
        returning: ReturnValues,
    ) -> Result<Returned<E>, Error> {
        let expected = self.expected_version;
        let mut req = self.into_request(db.table_name())?;
        req.return_values = returning;
        match db.executor().update_item(req).await {
            Ok(attrs) => Ok(match returning {
                ReturnValues::None => Returned::Nothing,
                ReturnValues::AllOld | ReturnValues::AllNew => {
                    Returned::Item(attrs.map(E::from_item).transpose()?)
                }
                ReturnValues::UpdatedOld | ReturnValues::UpdatedNew => {
                    Returned::Attributes(attrs.unwrap_or_default())
                }
            }),
            Err(Error::ConditionFailed { item }) => Err(condition_error::<E>(item, expected)),
            Err(e) => Err(e),
        }
    }
}

/// Refuses an upsert that could create an item its entity cannot read:
/// one without a field that has no default and cannot be absent. Key
/// fields and automatic timestamps are written by the upsert itself.
fn upsert_preconditions<E: Entity>(
    touched: &[&'static str],
    parts: &[(&'static str, String)],
) -> Result<(), Error> {
    if E::VERSION.is_some() {
        return Err(Error::InvalidRequest(format!(
            "`{}` is versioned: create it with `put_versioned`; an upsert cannot both create an item and check its version",
            E::ENTITY_TYPE
        )));
    }
    let missing: Vec<&str> = E::REQUIRED
        .iter()
        .filter(|r| {
            !touched.contains(&r.field)
                && !parts.iter().any(|(f, _)| *f == r.field)
                && !(r.absent_ok)()
        })
        .map(|r| r.field)
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(Error::InvalidRequest(format!(
            "an upsert of `{}` may create the item, which could not be read without `{}`; set {} in the upsert, or create the item with `create` or `put`",
            E::ENTITY_TYPE,
            missing.join("`, `"),
            if missing.len() == 1 { "it" } else { "them" },
        )))
    }
}

/// Tells a missing item and a version conflict from another failed condition.
pub(crate) fn condition_error<E: Entity>(item: Option<Box<Item>>, expected: Option<u64>) -> Error {
    let Some(current) = item else {
        return Error::NotFound {
            entity: E::ENTITY_TYPE,
        };
    };
    if let (Some(attr), Some(expected)) = (E::VERSION, expected) {
        let found = match current.get(attr) {
            Some(AttributeValue::N(n)) => n.parse::<u64>().ok(),
            _ => None,
        };
        if found != Some(expected) {
            return Error::VersionConflict {
                entity: E::ENTITY_TYPE,
                expected,
                found,
            };
        }
    }
    Error::ConditionFailed {
        item: Some(current),
    }
}
