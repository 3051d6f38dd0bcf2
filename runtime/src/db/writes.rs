//! The handle's item writes: puts (plain, versioned, conditional,
//! creating, replacing) and deletes.

use super::*;

impl<E: Executor> Db<E> {
    /// A PutItem of `item` as `stamp` stamps it, refused when it is over
    /// 400 KB.
    pub(crate) fn put_request<T: Entity>(
        &self,
        item: &T,
        stamp: &Stamp,
        condition: Option<Condition>,
    ) -> Result<PutItem, Error> {
        put_request(&self.table, item, stamp, condition)
    }

    /// Refuses plain puts of versioned entities: they would skip the check.
    fn unversioned<T: Entity>() -> Result<(), Error> {
        match T::VERSION {
            None => Ok(()),
            Some(_) => Err(Error::Refused(Refusal::Versioned {
                entity: T::ENTITY_TYPE,
                instead: "write it with `put_versioned` or an update with `if_version`",
            })),
        }
    }

    /// Optimistic locking put: when `item`'s version is 0 the item must not
    /// exist yet; otherwise the stored version must equal `item`'s. The item
    /// is stored with the next version, and `item` is updated to it.
    /// A concurrent writer makes this fail with [`Error::VersionConflict`].
    /// Version 0 writes like [`Db::create`], others like [`Db::put_if`].
    ///
    /// ```
    /// use singletable::{Db, Embedded, Entity, Error, Refusal, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(table = App)]
    /// #[pk("DOC#<id>")]
    /// #[sk("DOC")]
    /// pub struct Doc { pub id: String, #[attr(version)] pub version: u64 }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// let mut doc = Doc { id: "d".into(), version: 0 };
    /// let mut twin = doc.clone();
    /// db.put_versioned(&mut doc).await?; // PutItem if absent
    /// assert_eq!(doc.version, 1);
    /// // The twin read version 0 too: its write would lose doc's.
    /// assert!(matches!(db.put_versioned(&mut twin).await, Err(Error::VersionConflict { .. })));
    /// // Plain puts of a versioned entity are refused.
    /// assert!(matches!(db.put(&doc).await, Err(Error::Refused(Refusal::Versioned { .. }))));
    /// # Ok::<(), Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn put_versioned<T: Entity>(&self, item: &mut T) -> Result<(), Error> {
        let Some(attr) = T::VERSION else {
            return Err(Error::NotVersioned {
                entity: T::ENTITY_TYPE,
            });
        };
        let current = item.version().unwrap_or(0);
        let next = current + 1;
        // The item is encoded with the next version; the guard puts the
        // caller's version back unless the write succeeded, also when this
        // future is dropped mid-request, so a retry sends the version read.
        let guard = VersionGuard {
            item,
            keep: current,
        };
        guard.item.set_version(next);
        let result = if current == 0 {
            self.create_item(&*guard.item, true).await
        } else {
            let condition = Condition::eq(attr, AttributeValue::N(current.to_string()));
            self.guarded_put(&*guard.item, Some(condition), false)
                .await
                .map(drop)
        };
        let mut guard = guard;
        if result.is_ok() {
            guard.keep = next;
        }
        drop(guard);
        match result {
            Ok(()) => Ok(()),
            Err(Error::ConditionFailed { item: found }) => {
                let found = found.and_then(|i| match i.get(attr) {
                    Some(AttributeValue::N(n)) => n.parse().ok(),
                    _ => None,
                });
                Err(Error::VersionConflict {
                    entity: T::ENTITY_TYPE,
                    expected: current,
                    found,
                })
            }
            Err(e) => Err(e),
        }
    }

    /// PutItem: writes the item, replacing any item with the same key.
    ///
    /// `updated_at` fields get the write's time, `created_at` fields keep
    /// the struct's value; an empty `created_at` becomes the stored item's
    /// creation time when the item exists (a second PutItem, see
    /// [`crate::clock`]), the write's time otherwise. With unique fields
    /// (see [`crate::unique`]) it reads the stored item first (a strongly
    /// consistent GetItem) and writes the item and the moves of its
    /// markers in one TransactWriteItems, conditioned on the values read:
    /// a value another item holds is [`Error::UniqueViolation`].
    ///
    /// ```
    /// # use singletable::Embedded;
    /// # #[derive(singletable::Table)]
    /// # #[table(name = "App")]
    /// # struct App;
    /// #[derive(singletable::Entity)]
    /// #[entity(table = App, rename_all = "camelCase")]
    /// #[pk("PAGE#<id>")]
    /// #[sk("PAGE")]
    /// struct Page {
    ///     id: String,
    ///     #[attr(created_at)]
    ///     created_at: String,
    /// }
    ///
    /// # futures::executor::block_on(async {
    /// let db = singletable::Db::<Embedded>::in_memory::<App>("App").unwrap();
    /// let page = Page { id: "p".into(), created_at: String::new() };
    /// db.put(&page).await.unwrap(); // new: stamped now
    /// let first = db.get::<Page>(Page::key("p").unwrap()).await.unwrap().unwrap();
    /// db.put(&page).await.unwrap(); // exists: keeps the stored creation time
    /// let again = db.get::<Page>(Page::key("p").unwrap()).await.unwrap().unwrap();
    /// assert_eq!(again.created_at, first.created_at);
    /// # });
    /// ```
    pub async fn put<T: Entity>(&self, item: &T) -> Result<(), Error> {
        Self::unversioned::<T>()?;
        self.guarded_put(item, None, false).await.map(drop)
    }

    /// PutItem that only creates: fails with [`Error::ConditionFailed`] when
    /// an item with the same key exists. Every `created_at` and
    /// `updated_at` field gets the write's time. With unique fields, one
    /// TransactWriteItems of the put and a marker per unique value (see
    /// [`crate::unique`]); a value another item holds is
    /// [`Error::UniqueViolation`].
    pub async fn create<T: Entity>(&self, item: &T) -> Result<(), Error> {
        self.create_item(item, false).await
    }

    /// PutItem that only replaces: fails with [`Error::NotFound`] when no
    /// item with the same key exists. Timestamps and unique values as
    /// [`Db::put`].
    pub async fn replace<T: Entity>(&self, item: &T) -> Result<(), Error> {
        Self::unversioned::<T>()?;
        match self.guarded_put(item, Some(exists::<T>()), false).await {
            Ok(_) => Ok(()),
            Err(Error::ConditionFailed { item: None }) => Err(Error::NotFound {
                entity: T::ENTITY_TYPE,
            }),
            Err(e) => Err(e),
        }
    }

    /// PutItem only if the typed `condition` holds on the stored item (an
    /// absent item has no attributes: `f.x.not_exists()` holds, `f.x.eq(..)`
    /// does not). On failure, [`Error::ConditionFailed`] with the current
    /// item.
    ///
    /// ```
    /// use singletable::{Db, Embedded, Entity, Error, FieldPath, Table};
    ///
    /// #[derive(Table)]
    /// #[table(name = "App")]
    /// pub struct App;
    ///
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(table = App, name = "Account")]
    /// #[pk("ACCOUNT#<id>")]
    /// #[sk("ACCOUNT")]
    /// pub struct Account { pub id: String, pub status: String }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> singletable::Result<()> {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// let f = Account::fields();
    /// let open = Account { id: "a".into(), status: "OPEN".into() };
    /// db.put(&open).await?;
    /// let closed = Account { status: "CLOSED".into(), ..open };
    /// db.put_if(&closed, f.status.eq("OPEN")).await?;
    /// let err = db.put_if(&closed, f.status.eq("OPEN")).await.unwrap_err();
    /// assert!(matches!(err, Error::ConditionFailed { .. }));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn put_if<T: Entity>(&self, item: &T, condition: Cond<T>) -> Result<(), Error> {
        self.put_if_raw(item, condition.into_condition()?).await
    }

    /// [`Db::put_if`] with an untyped [`Condition`], for conditions the
    /// field handles cannot express (on attributes the entity does not
    /// declare).
    pub async fn put_if_raw<T: Entity>(&self, item: &T, condition: Condition) -> Result<(), Error> {
        Self::unversioned::<T>()?;
        self.guarded_put(item, Some(condition), false)
            .await
            .map(drop)
    }

    /// PutItem returning the item it replaced, if any. Timestamps as
    /// [`Db::put`]; refused for entities with unique fields, whose puts are
    /// transactions (which return no item): read the item first instead.
    pub async fn put_returning_old<T: Entity>(&self, item: &T) -> Result<Option<T>, Error> {
        Self::unversioned::<T>()?;
        if !T::UNIQUE.is_empty() {
            return Err(Error::Refused(Refusal::NoReturnValues {
                entity: T::ENTITY_TYPE,
                operation: "`put_returning_old`",
            }));
        }
        self.guarded_put(item, None, true)
            .await?
            .map(T::from_item)
            .transpose()
    }

    /// DeleteItem. Deleting a missing item is not an error. For an entity
    /// with unique fields, a strongly consistent GetItem then one
    /// TransactWriteItems that deletes the item and its markers (see
    /// [`crate::unique`]).
    pub async fn delete<T: Entity>(&self, key: KeyOf<T>) -> Result<(), Error> {
        self.guarded_delete::<T>(key.into_key(), None, false)
            .await
            .map(drop)
    }

    /// DeleteItem returning the deleted item, `None` when there was none.
    /// Unique fields as [`Db::delete`].
    pub async fn delete_returning<T: Entity>(&self, key: KeyOf<T>) -> Result<Option<T>, Error> {
        self.guarded_delete::<T>(key.into_key(), None, true)
            .await?
            .map(T::from_item)
            .transpose()
    }

    /// DeleteItem only if the typed `condition` holds on the stored item;
    /// on failure, [`Error::ConditionFailed`] with the current item. A
    /// condition that needs the item (`f.x.eq(..)`) fails on a missing one.
    pub async fn delete_if<T: Entity>(
        &self,
        key: KeyOf<T>,
        condition: Cond<T>,
    ) -> Result<(), Error> {
        self.delete_if_raw::<T>(key, condition.into_condition()?)
            .await
    }

    /// [`Db::delete_if`] with an untyped [`Condition`].
    pub async fn delete_if_raw<T: Entity>(
        &self,
        key: KeyOf<T>,
        condition: Condition,
    ) -> Result<(), Error> {
        self.guarded_delete::<T>(key.into_key(), Some(condition), false)
            .await
            .map(drop)
    }

    pub(crate) fn delete_request<T: Entity>(
        &self,
        key: PrimaryKey,
        condition: Option<Condition>,
        return_old: bool,
    ) -> DeleteItem {
        delete_request::<T>(&self.table, key, condition, return_old)
    }
}
