//! Sending an update: the request as it goes out (every dependent key
//! attribute rewritten, the marker moves of the unique values it changes),
//! the send behind `execute` and `execute_returning`, and how a failed
//! condition is told apart (a missing item, a version conflict).

use super::*;

impl<E: Entity, S> Update<E, S> {
    /// The request at `now` (the stamps' time), with every dependent key
    /// attribute rewritten, and the marker moves of the unique values it
    /// changes.
    pub(crate) fn into_write(self, table: &str, now: SystemTime) -> Result<UpdateWrite, Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.upsert && self.held.is_some() {
            return Err(Error::Refused(Refusal::KnowingAndUpsert {
                entity: E::ENTITY_TYPE,
            }));
        }
        let mut actions = self.actions;
        let mut condition = self.condition;
        if self.upsert {
            upsert_preconditions::<E>(&self.touched, &self.parts)?;
            for (attr, value) in self.key_values {
                actions.push(UpdateAction::Set(attr.to_owned(), SetValue::Value(value?)));
            }
            let type_attr = <E::Table as Table>::ENTITY_TYPE;
            // Only a new item or one of this entity: never turn another
            // entity's item into this one. An untyped entity's items carry
            // no type: it writes none and updates only items without one.
            let c = if E::WRITES_TYPE {
                let entity_type = AttributeValue::S(E::ENTITY_TYPE.to_owned());
                actions.push(UpdateAction::Set(
                    type_attr.to_owned(),
                    SetValue::Value(entity_type.clone()),
                ));
                Condition::NotExists(<E::Table as Table>::PK.to_owned())
                    .or(Condition::eq(type_attr, entity_type))
            } else {
                Condition::NotExists(type_attr.to_owned())
            };
            condition = Some(match condition {
                Some(prev) => c.and(prev),
                None => c,
            });
        }
        let mut rewrite = rewrite::Rewrite {
            key: &self.key,
            parts: self.parts,
            touched: self.touched,
            bools: &self.bools,
            held: self.held.as_ref(),
            upsert: self.upsert,
            primary: &self.primary,
            stamped: Vec::new(),
            created_if_new: Vec::new(),
            guards: Vec::new(),
        };
        // Stamps first: the keys built from them follow in this request.
        rewrite.stamp::<E>(now, &mut actions)?;
        rewrite.index_keys::<E>(&mut actions)?;
        let markers = rewrite.unique_moves::<E>(table, &actions)?;
        if let Some(c) = rewrite.condition() {
            condition = Some(match condition {
                Some(prev) => prev.and(c),
                None => c,
            });
        }
        if let Some(version_attr) = E::VERSION {
            let Some(expected) = self.expected_version else {
                return Err(Error::Refused(Refusal::Versioned {
                    entity: E::ENTITY_TYPE,
                    instead: "call `.if_version(v)` with the version that was read",
                }));
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
                    crate::expr::Operand::Path(schema.attribute.into()),
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
            return Err(Error::Refused(Refusal::EmptyUpdate));
        }
        singletable_core::__private::check_attribute_key_actions::<E::Table>(
            E::ENTITY_TYPE,
            &actions,
        )?;
        Ok(UpdateWrite {
            request: UpdateItem {
                table: table.to_owned(),
                key: self.key.to_item::<E::Table>(),
                actions,
                condition,
                return_values: ReturnValues::None,
                return_on_condition_failure: true,
            },
            markers,
        })
    }

    // `execute` and `execute_returning` are plain functions, returning a
    // named type, so that an update that is not ready is one error, at the
    // call (an `async fn` or an `impl Future` repeats it at the expression
    // and its `.await`). They stay in `update.rs`, so that the error names
    // `Update::<E, S>::execute`.
    pub(super) async fn send<X: Executor>(
        self,
        db: &Db<X>,
        returning: ReturnValues,
    ) -> Result<Returned<E>, Error> {
        let expected = self.expected_version;
        let write = self.into_write(db.table_name(), db.clock().now())?;
        let mut req = write.request;
        if !write.markers.is_empty() {
            if returning != ReturnValues::None {
                return Err(Error::Refused(Refusal::NoReturnValues {
                    entity: E::ENTITY_TYPE,
                    operation: "an update returning values",
                }));
            }
            return match db
                .unique_transaction(TransactWriteOp::Update(req), &write.markers)
                .await
            {
                Ok(()) => Ok(Returned::Nothing),
                Err(Error::ConditionFailed { item }) => Err(condition_error::<E>(item, expected)),
                Err(e) => Err(e),
            };
        }
        req.return_values = returning;
        let r = crate::db::entity::<E>();
        let span = crate::trace::span("UpdateItem", db.table_name(), &r);
        let sent = r.sender("UpdateItem");
        match crate::trace::traced(span, sent, db.executor().update_item(req)).await {
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
        return Err(Error::Refused(Refusal::Versioned {
            entity: E::ENTITY_TYPE,
            instead: "create it with `put_versioned`; an upsert cannot both create an item and check its version",
        }));
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
        Err(Error::UpsertIncomplete {
            entity: E::ENTITY_TYPE,
            message: format!(
                "an upsert of `{}` may create the item, which could not be read without `{}`; set {} in the upsert, or create the item with `create` or `put`",
                E::ENTITY_TYPE,
                missing.join("`, `"),
                if missing.len() == 1 { "it" } else { "them" },
            ),
            fields: missing,
        })
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
