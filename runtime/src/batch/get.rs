//! BatchGetItem: typed keys in, items out, unprocessed keys retried.

use super::*;

/// A BatchGetItem of any number of keys being built ([`BatchGetter::new`], run with [`BatchGetter::execute`]).
///
/// ```
/// use singletable::{BatchPolicy, Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<n>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub n: u32 }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// for n in 0..150 {
///     db.put(&User { n }).await?;
/// }
/// let keys: Vec<_> = (0..150).map(User::key).collect::<Result<_, _>>()?;
/// let got = singletable::BatchGetter::<User>::new(&keys) // two BatchGetItem requests: 100 + 50 keys
///     .consistent()
///     .policy(BatchPolicy { concurrency: 2, ..BatchPolicy::default() })
///     .execute(&db)
///     .await?;
/// assert!(got.is_complete());
/// let users = got.into_result()?;
/// assert_eq!(users[149], Some(User { n: 149 })); // in the keys' order
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[must_use = "a batch get does nothing until `execute` is awaited"]
pub struct BatchGetter<'a, T> {
    keys: Vec<&'a PrimaryKey>,
    policy: BatchPolicy,
    consistent: bool,
    entity: PhantomData<fn() -> T>,
}

/// What a batch get read, and what it could not read.
///
/// A key's item is in exactly one place: `items` when it was read and
/// decoded, `unprocessed` when it was not read, `undecodable` when it was
/// read but is not a valid `T`; a key with no item is `None` in `items` and
/// nowhere else.
///
/// ```
/// use singletable::{AttributeValue};
/// use singletable_runtime::{exec::Executor, request::PutItem};
/// use singletable::{BatchPolicy, Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<n>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub n: u32 }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { n: 1 }).await?;
/// // An item another client wrote badly:
/// let mut bad = User { n: 2 }.to_item()?;
/// bad.insert("n".into(), AttributeValue::S("two".into()));
/// let raw = PutItem { table: "App".into(), item: bad, condition: None, return_old: false, return_on_condition_failure: false };
/// db.executor().put_item(raw).await?;
///
/// let keys = [User::key(1)?, User::key(2)?, User::key(3)?];
/// let got = singletable::BatchGetter::<User>::new(&keys).execute(&db).await?;
/// assert_eq!(got.items, vec![Some(User { n: 1 }), None, None]);
/// assert_eq!(got.undecodable.len(), 1); // key 2, with its decode error
/// assert!(got.unprocessed.is_empty() && got.cause.is_none());
/// assert!(!got.is_complete());
/// assert!(got.into_result().is_err());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct BatchGetOutcome<T> {
    /// One entry per key, in the keys' order: the item, or `None` when the
    /// table has no item with the key or the item is in `unprocessed` or
    /// `undecodable`.
    pub items: Vec<Option<T>>,
    /// The keys not read when the attempts ran out (DynamoDB's
    /// `UnprocessedKeys`, and every key of a request that failed), in the
    /// keys' order: pass them to another batch get later.
    pub unprocessed: Vec<KeyOf<T>>,
    /// The items read that do not decode as `T` (a malformed attribute,
    /// another entity type, key attributes contradicting the fields), in the
    /// keys' order, each with its error.
    pub undecodable: Vec<(KeyOf<T>, Error)>,
    /// Attempts made for the requests that left keys unprocessed (the most,
    /// if several did); when none did, the most any request needed.
    pub attempts: u32,
    /// The error of the last attempt of a request that failed, if any
    /// ([`Error::Throttled`] when DynamoDB was still throttling); an error
    /// other than throttling is preferred, since retrying does not cure it.
    pub cause: Option<Error>,
}

impl<T: Entity> BatchGetOutcome<T> {
    /// Whether every key was read and every item found decoded.
    pub fn is_complete(&self) -> bool {
        self.unprocessed.is_empty() && self.undecodable.is_empty()
    }

    /// The items when the outcome is complete; otherwise
    /// [`Error::Unprocessed`] for keys not read (before any decode error),
    /// or the first decode error. The items read are dropped then: read
    /// the fields to keep them.
    pub fn into_result(self) -> Result<Vec<Option<T>>, Error> {
        if !self.unprocessed.is_empty() {
            return Err(Error::Unprocessed {
                writes: Vec::new(),
                keys: self
                    .unprocessed
                    .iter()
                    .map(|k| k.to_item::<T::Table>())
                    .collect(),
                attempts: self.attempts,
                cause: self.cause.map(Box::new),
            });
        }
        match self.undecodable.into_iter().next() {
            Some((_, e)) => Err(e),
            None => Ok(self.items),
        }
    }
}

impl<T> BatchGetter<'_, T> {
    /// DynamoDB's limit of keys per BatchGetItem: a batch sends one
    /// request per this many keys.
    ///
    /// ```
    /// # use singletable::{BatchGetter, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    /// assert_eq!(BatchGetter::<User>::PER_REQUEST, 100);
    /// ```
    pub const PER_REQUEST: usize = 100;
}

impl<'a, T: Entity> BatchGetter<'a, T> {
    /// A BatchGetItem of any number of `keys`: 100 per request,
    /// eventually consistent unless [`BatchGetter::consistent`], retried
    /// under a [`BatchPolicy`]; `execute` gives a [`BatchGetOutcome`] with
    /// one entry per key, in the keys' order.
    ///
    /// ```
    /// # use singletable_runtime as singletable;
    /// use singletable::{BatchGetter, BatchPolicy, Db, Entity, Executor, KeyOf};
    ///
    /// async fn read_all<T: Entity, E: Executor>(db: &Db<E>, keys: &[KeyOf<T>]) -> singletable::Result<Vec<T>> {
    ///     let policy = BatchPolicy { max_attempts: 5, ..BatchPolicy::default() };
    ///     let got = BatchGetter::new(keys).policy(policy).execute(db).await?;
    ///     // `got.items` holds what was read even when `got.unprocessed`
    ///     // (keys to read again later) or `got.undecodable` are not empty.
    ///     Ok(got.items.into_iter().flatten().collect())
    /// }
    /// ```
    pub fn new(keys: &'a [KeyOf<T>]) -> Self {
        Self {
            keys: keys.iter().map(KeyOf::key).collect(),
            policy: BatchPolicy::default(),
            consistent: false,
            entity: PhantomData,
        }
    }

    /// Sets how requests are sent and retried.
    pub fn policy(mut self, policy: BatchPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Strongly consistent reads (`ConsistentRead`): twice the read cost of
    /// the default eventually consistent ones.
    pub fn consistent(mut self) -> Self {
        self.consistent = true;
        self
    }

    /// Sends one BatchGetItem per 100 keys, retried under the policy
    /// (unprocessed keys and throttled requests), and decodes every item
    /// read. A request that fails or runs out of attempts does not lose the
    /// others' items: see [`BatchGetOutcome`].
    ///
    /// The only error is a batch refused before sending, which DynamoDB
    /// would reject whole: two keys that are the same item, a key without
    /// the sort key the table has.
    pub async fn execute<E: Executor>(self, db: &Db<E>) -> Result<BatchGetOutcome<T>, Error> {
        let policy = self.policy;
        let consistent = self.consistent;
        let exec = db.executor();
        let table = db.table_name();
        // Keys as DynamoDB sees them: a sort key means nothing on a table
        // without one, and must not make an item unrecognisable.
        let normal = |k: &PrimaryKey| PrimaryKey {
            pk: k.pk.clone(),
            sk: <T::Table as Table>::SK.and(k.sk.clone()),
        };
        let mut index: HashMap<PrimaryKey, usize> = HashMap::with_capacity(self.keys.len());
        for (i, k) in self.keys.iter().enumerate() {
            if <T::Table as Table>::SK.is_some() && k.sk.is_none() {
                return Err(Error::Refused(Refusal::MissingSortKey {
                    index: i,
                    pk: k.pk.clone(),
                    table: table.to_owned(),
                }));
            }
            if let Some(first) = index.insert(normal(k), i) {
                return Err(Error::Refused(Refusal::DuplicateBatchKey {
                    first,
                    second: i,
                    pk: k.pk.clone(),
                    sk: k.sk.clone(),
                }));
            }
        }
        let chunks: Vec<Vec<Item>> = self
            .keys
            .chunks(Self::PER_REQUEST)
            .map(|c| c.iter().map(|k| k.to_item::<T::Table>()).collect())
            .collect();
        let runs: Vec<Run<Item, Item>> = futures_util::stream::iter(chunks)
            .map(|chunk| {
                run(&policy, chunk, move |keys, attempt| async move {
                    let req = BatchGet {
                        table: table.to_owned(),
                        keys,
                        consistent,
                    };
                    let r = crate::trace::Request {
                        entity: Some(T::ENTITY_TYPE),
                        consistent: Some(consistent),
                        attempt: Some(attempt),
                        ..Default::default()
                    };
                    let span = crate::trace::span("BatchGetItem", table, &r);
                    let out = crate::trace::traced(
                        span.clone(),
                        r.sender("BatchGetItem"),
                        exec.batch_get(req),
                    )
                    .await?;
                    crate::trace::count(&span, out.items.len());
                    Ok((out.items, out.unprocessed))
                })
            })
            .buffer_unordered(policy.concurrency())
            .collect()
            .await;
        let t = totals(runs);
        // Where a key or item returned goes among the keys asked for;
        // DynamoDB returns no others, and one that is not asked for is
        // no answer to the caller's question.
        let position = |item: &Item| key_of::<T::Table>(item).and_then(|k| index.get(&k).copied());
        let mut items: Vec<Option<T>> = self.keys.iter().map(|_| None).collect();
        let mut undecodable = Vec::new();
        for item in t.done {
            let Some(i) = position(&item) else { continue };
            match T::from_item(item) {
                Ok(v) => items[i] = Some(v),
                Err(e) => undecodable.push((i, e)),
            }
        }
        let mut unprocessed: Vec<usize> = t.left.iter().filter_map(position).collect();
        unprocessed.sort_unstable();
        unprocessed.dedup();
        undecodable.sort_by_key(|(i, _)| *i);
        Ok(BatchGetOutcome {
            items,
            unprocessed: unprocessed
                .into_iter()
                .map(|i| KeyOf::new(self.keys[i].clone()))
                .collect(),
            undecodable: undecodable
                .into_iter()
                .map(|(i, e)| (KeyOf::new(self.keys[i].clone()), e))
                .collect(),
            attempts: t.attempts,
            cause: t.cause,
        })
    }
}

pub(super) fn key_of<T: Table>(item: &Item) -> Option<PrimaryKey> {
    let s = |a: &str| match item.get(a) {
        Some(AttributeValue::S(s)) => Some(s.clone()),
        _ => None,
    };
    Some(PrimaryKey {
        pk: s(T::PK)?,
        sk: match T::SK {
            Some(a) => Some(s(a)?),
            None => None,
        },
    })
}
