//! [`Db`]: a handle on one table through one executor, with typed
//! operations.

use crate::entity::{Entity, Table};
use crate::error::Error;
use crate::exec::Executor;
use crate::expr::Condition;
use crate::key::PrimaryKey;
use crate::query::OtherTypes;
use crate::reader::{AttrReader, ReadEach};
use crate::request::{DeleteItem, GetItem, PutItem, ScanRequest, TransactWrite};
use crate::transact::Transaction;
use crate::value::{AttributeValue, Item};

/// A handle on a table: the executor that reaches DynamoDB, the table name,
/// and the secret that signs pagination cursors.
///
/// Cheap to share: wrap it in an `Arc` or clone the executor.
#[derive(Debug, Clone)]
pub struct Db<E> {
    exec: E,
    table: String,
    cursor_secret: Vec<u8>,
}

#[cfg(feature = "client")]
impl Db<crate::exec::SdkExecutor> {
    /// A handle over an SDK client configured as usual (`aws_config`).
    pub fn new(client: aws_sdk_dynamodb::Client, table: impl Into<String>) -> Self {
        Self::with_executor(crate::exec::SdkExecutor::new(client), table)
    }

    /// Loads the AWS configuration from the environment (region, credentials,
    /// profile) the way `aws_config::load_defaults` does; when
    /// `DYNAMODB_ENDPOINT` is set, requests go to that endpoint instead
    /// (DynamoDB Local).
    pub async fn from_env(table: impl Into<String>) -> Self {
        let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest());
        if let Ok(endpoint) = std::env::var("DYNAMODB_ENDPOINT") {
            loader = loader.endpoint_url(endpoint);
        }
        let config = loader.load().await;
        Self::new(aws_sdk_dynamodb::Client::new(&config), table)
    }

    /// A handle on DynamoDB Local at `endpoint`, with the static test
    /// credentials it accepts.
    pub fn local(endpoint: &str, table: impl Into<String>) -> Self {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
            .endpoint_url(endpoint)
            .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
                "test", "test", None, None, "static",
            ))
            .build();
        Self::new(aws_sdk_dynamodb::Client::from_conf(config), table)
    }

    /// The SDK client, for requests singletable does not model.
    pub fn sdk(&self) -> &aws_sdk_dynamodb::Client {
        self.exec.client()
    }
}

impl<E: Executor> Db<E> {
    /// A handle over any executor.
    pub fn with_executor(exec: E, table: impl Into<String>) -> Self {
        let table = table.into();
        let cursor_secret = crate::page::process_secret();
        Self {
            exec,
            table,
            cursor_secret,
        }
    }

    /// Seals cursors with `secret`: they are encrypted and authenticated
    /// with keys derived from it (see [`crate::page`]). Without it, a
    /// handle uses a random secret drawn once per process, so cursors are
    /// opaque and unforgeable but valid only in the process that made them:
    /// set the same secret on every process that serves the same clients
    /// (a fleet, a Lambda function), and keep it out of client reach.
    pub fn with_cursor_secret(mut self, secret: impl Into<Vec<u8>>) -> Self {
        self.cursor_secret = secret.into();
        self
    }

    /// The table name requests go to.
    pub fn table_name(&self) -> &str {
        &self.table
    }

    /// Capacity units consumed by this handle's executor since the last
    /// [`Db::take_consumed_capacity`], as DynamoDB reported them (`None` for
    /// executors that do not report capacity). Shared by concurrent callers.
    pub fn consumed_capacity(&self) -> Option<f64> {
        self.exec.capacity().map(crate::exec::CapacityMeter::total)
    }

    /// Returns the consumed capacity and resets the meter: call it before
    /// and after an operation to get what that operation consumed.
    pub fn take_consumed_capacity(&self) -> Option<f64> {
        self.exec.capacity().map(crate::exec::CapacityMeter::take)
    }

    /// The executor.
    pub fn executor(&self) -> &E {
        &self.exec
    }

    pub(crate) fn cursor_secret(&self) -> &[u8] {
        &self.cursor_secret
    }

    /// A PutItem of `item`, refused when it is over 400 KB.
    pub(crate) fn put_request<T: Entity>(
        &self,
        mut item: Item,
        condition: Option<Condition>,
    ) -> Result<PutItem, Error> {
        let creating = matches!(&condition, Some(Condition::NotExists(_)));
        T::stamp(&mut item, creating)?;
        crate::size::check_item(T::ENTITY_TYPE, &item)?;
        Ok(PutItem {
            table: self.table.clone(),
            item,
            condition,
            return_old: false,
            return_on_condition_failure: false,
        })
    }

    /// Refuses plain puts of versioned entities: they would skip the check.
    fn unversioned<T: Entity>() -> Result<(), Error> {
        match T::VERSION {
            None => Ok(()),
            Some(_) => Err(Error::InvalidRequest(format!(
                "`{}` is versioned: write it with `put_versioned` or an update with `if_version`",
                T::ENTITY_TYPE
            ))),
        }
    }

    /// Optimistic locking put: when `item`'s version is 0 the item must not
    /// exist yet; otherwise the stored version must equal `item`'s. The item
    /// is stored with the next version, and `item` is updated to it.
    /// A concurrent writer makes this fail with [`Error::VersionConflict`].
    pub async fn put_versioned<T: Entity>(&self, item: &mut T) -> Result<(), Error> {
        let Some(attr) = T::VERSION else {
            return Err(Error::InvalidRequest(format!(
                "`{}` has no `#[attr(version)]` field",
                T::ENTITY_TYPE
            )));
        };
        let current = item.version().unwrap_or(0);
        let condition = if current == 0 {
            not_exists::<T>()
        } else {
            Condition::eq(attr, AttributeValue::N(current.to_string()))
        };
        let next = current + 1;
        item.set_version(next);
        let encoded = item.to_item();
        item.set_version(current);
        let mut req = self.put_request::<T>(encoded?, Some(condition))?;
        req.return_on_condition_failure = true;
        match self.exec.put_item(req).await {
            Ok(_) => {
                item.set_version(next);
                Ok(())
            }
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
    pub async fn put<T: Entity>(&self, item: &T) -> Result<(), Error> {
        Self::unversioned::<T>()?;
        let req = self.put_request::<T>(item.to_item()?, None)?;
        self.exec.put_item(req).await.map(drop)
    }

    /// PutItem that only creates: fails with [`Error::ConditionFailed`] when
    /// an item with the same key exists.
    pub async fn create<T: Entity>(&self, item: &T) -> Result<(), Error> {
        let req = self.put_request::<T>(item.to_item()?, Some(not_exists::<T>()))?;
        self.exec.put_item(req).await.map(drop)
    }

    /// PutItem that only replaces: fails with [`Error::NotFound`] when no
    /// item with the same key exists.
    pub async fn replace<T: Entity>(&self, item: &T) -> Result<(), Error> {
        Self::unversioned::<T>()?;
        let req = self.put_request::<T>(item.to_item()?, Some(exists::<T>()))?;
        match self.exec.put_item(req).await {
            Ok(_) => Ok(()),
            Err(Error::ConditionFailed { .. }) => Err(Error::NotFound {
                entity: T::ENTITY_TYPE,
            }),
            Err(e) => Err(e),
        }
    }

    /// PutItem with a condition; on failure the current item comes back in
    /// the error.
    pub async fn put_if<T: Entity>(&self, item: &T, condition: Condition) -> Result<(), Error> {
        Self::unversioned::<T>()?;
        let mut req = self.put_request::<T>(item.to_item()?, Some(condition))?;
        req.return_on_condition_failure = true;
        self.exec.put_item(req).await.map(drop)
    }

    /// PutItem returning the item it replaced, if any.
    pub async fn put_returning_old<T: Entity>(&self, item: &T) -> Result<Option<T>, Error> {
        Self::unversioned::<T>()?;
        let mut req = self.put_request::<T>(item.to_item()?, None)?;
        req.return_old = true;
        self.exec.put_item(req).await?.map(T::from_item).transpose()
    }

    /// GetItem, eventually consistent (half the cost of a consistent read).
    pub async fn get<T: Entity>(&self, key: impl Into<PrimaryKey>) -> Result<Option<T>, Error> {
        self.get_with::<T>(key.into(), false, false).await
    }

    /// GetItem, strongly consistent: sees every acknowledged write.
    pub async fn get_consistent<T: Entity>(
        &self,
        key: impl Into<PrimaryKey>,
    ) -> Result<Option<T>, Error> {
        self.get_with::<T>(key.into(), true, false).await
    }

    async fn get_with<T: Entity>(
        &self,
        key: PrimaryKey,
        consistent: bool,
        include_expired: bool,
    ) -> Result<Option<T>, Error> {
        let req = GetItem {
            table: self.table.clone(),
            key: key_item::<T::Table>(&key),
            consistent,
        };
        let items = self.exec.get_item_reader(req).await?;
        let ttl = <T::Table as Table>::TTL.filter(|_| !include_expired);
        let mut one = GetOne::<T> {
            expiry: crate::ttl::Expiry::new(ttl),
            found: None,
        };
        items.read_each(&mut one)?;
        Ok(one.found)
    }

    /// GetItem that also returns an item whose TTL has passed but that
    /// DynamoDB has not deleted yet.
    pub async fn get_including_expired<T: Entity>(
        &self,
        key: impl Into<PrimaryKey>,
    ) -> Result<Option<T>, Error> {
        self.get_with::<T>(key.into(), false, true).await
    }

    /// DeleteItem. Deleting a missing item is not an error.
    pub async fn delete<T: Entity>(&self, key: impl Into<PrimaryKey>) -> Result<(), Error> {
        let req = self.delete_request::<T>(key.into(), None, false);
        self.exec.delete_item(req).await.map(drop)
    }

    /// DeleteItem returning the deleted item, `None` when there was none.
    pub async fn delete_returning<T: Entity>(
        &self,
        key: impl Into<PrimaryKey>,
    ) -> Result<Option<T>, Error> {
        let req = self.delete_request::<T>(key.into(), None, true);
        self.exec
            .delete_item(req)
            .await?
            .map(T::from_item)
            .transpose()
    }

    /// DeleteItem with a condition.
    pub async fn delete_if<T: Entity>(
        &self,
        key: impl Into<PrimaryKey>,
        condition: Condition,
    ) -> Result<(), Error> {
        let mut req = self.delete_request::<T>(key.into(), Some(condition), false);
        req.return_on_condition_failure = true;
        self.exec.delete_item(req).await.map(drop)
    }

    pub(crate) fn delete_request<T: Entity>(
        &self,
        key: PrimaryKey,
        condition: Option<Condition>,
        return_old: bool,
    ) -> DeleteItem {
        DeleteItem {
            table: self.table.clone(),
            key: key_item::<T::Table>(&key),
            condition,
            return_old,
            return_on_condition_failure: false,
        }
    }

    /// Scan for every item of entity type `T`: reads **the whole table**, page
    /// by page, and pays read capacity for every item read, of every type.
    /// Meant for maintenance jobs and small tables, never request paths.
    pub async fn scan_all<T: Entity>(&self) -> Result<Vec<T>, Error> {
        let mut out = Vec::new();
        let mut start = None;
        let ty = Condition::eq(
            <T::Table as Table>::ENTITY_TYPE,
            AttributeValue::S(T::ENTITY_TYPE.to_owned()),
        );
        loop {
            let req = ScanRequest {
                table: self.table.clone(),
                index: None,
                filter: Some(ty.clone()),
                limit: None,
                consistent: false,
                start: start.take(),
                segment: None,
            };
            let page = self.exec.scan(req).await?;
            for item in page.items {
                out.push(T::from_item(item)?);
            }
            match page.last_key {
                Some(k) => start = Some(k),
                None => return Ok(out),
            }
        }
    }

    /// Starts a TransactGetItems request.
    pub fn read_transaction(&self) -> crate::transact::ReadTransaction<'_, E> {
        crate::transact::ReadTransaction::new(self)
    }

    /// Starts a TransactWriteItems request.
    pub fn transaction(&self) -> Transaction<'_, E> {
        Transaction::new(self)
    }

    pub(crate) async fn run_transaction(&self, req: TransactWrite) -> Result<(), Error> {
        self.exec.transact_write(req).await
    }
}

/// The key attributes of `key` in table `T`.
pub fn key_item<T: Table>(key: &PrimaryKey) -> Item {
    let mut item = Item::with_capacity(2);
    item.insert(T::PK.to_owned(), AttributeValue::S(key.pk.clone()));
    if let (Some(attr), Some(sk)) = (T::SK, &key.sk) {
        item.insert(attr.to_owned(), AttributeValue::S(sk.clone()));
    }
    item
}

/// `attribute_not_exists(PK)`: the item does not exist yet.
pub fn not_exists<T: Entity>() -> Condition {
    Condition::NotExists(<T::Table as Table>::PK.to_owned())
}

/// `attribute_exists(PK)`: the item exists.
pub fn exists<T: Entity>() -> Condition {
    Condition::Exists(<T::Table as Table>::PK.to_owned())
}

/// Decodes the item of a GetItem (see [`Db::get`]).
struct GetOne<T> {
    expiry: crate::ttl::Expiry,
    found: Option<T>,
}

impl<T: Entity> ReadEach for GetOne<T> {
    fn read_map(&mut self, item: Item) -> Result<(), Error> {
        if !self.expiry.hides(&item) {
            self.found = Some(T::from_item(item)?);
        }
        Ok(())
    }

    fn read<R: AttrReader + ?Sized>(&mut self, item: &mut R) -> Result<(), Error> {
        // The watch costs a comparison per attribute: only when needed.
        let read = if self.expiry.hides_nothing() {
            T::read_item(item, OtherTypes::Error)
        } else {
            match self
                .expiry
                .read(item, |r| T::read_item(r, OtherTypes::Error))
            {
                Some(read) => read,
                None => return Ok(()),
            }
        };
        // Other entity types are errors here, so a decoded item is never
        // `None`; the error names the type expected.
        let entity = read?.ok_or_else(|| Error::Decode {
            entity: T::ENTITY_TYPE,
            source: crate::error::DecodeError::new(crate::error::DecodeErrorKind::EntityType {
                expected: T::ENTITY_TYPE,
                found: String::new(),
            })
            .at(<T::Table as Table>::ENTITY_TYPE),
        })?;
        self.found = Some(entity);
        Ok(())
    }
}
