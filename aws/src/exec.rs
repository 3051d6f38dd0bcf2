//! The executor over `aws-sdk-dynamodb`: the one place where request values
//! become SDK calls.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    self as sdk, ConsumedCapacity, ReturnConsumedCapacity, ReturnValue,
    ReturnValuesOnConditionCheckFailure, TransactWriteItem,
};

use crate::local::LocalIdentity;
use singletable_core::error::{CancellationReason, Error, Refusal};
use singletable_core::exec::record_response;
use singletable_core::exec::{BoxFuture, CapacityMeter, Executor};
use singletable_core::expr::{Condition, Rendered};
use singletable_core::request::{
    BatchGet, BatchGetOutput, BatchOp, BatchWrite, ConditionCheck, CountPage, DeleteItem, GetItem,
    Page, PutItem, QueryRequest, ReturnValues, ScanRequest, TransactGet, TransactWrite,
    TransactWriteOp, UpdateItem,
};
use singletable_core::value::Item;

use crate::error::service_error;

/// Sends requests to DynamoDB through an `aws_sdk_dynamodb::Client`: one
/// SDK call per request (GetItem, Query, TransactWriteItems, ...), with
/// `ReturnConsumedCapacity=TOTAL`, the SDK's own retries, and its errors
/// mapped to [`Error`] (throttling to `Error::Throttled`).
///
/// Needs a DynamoDB to talk to, so not run here:
///
/// ```no_run
/// use singletable::{Db, SdkDb, SdkExecutor};
///
/// # async fn run() {
/// let config = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
/// let exec = SdkExecutor::new(aws_sdk_dynamodb::Client::new(&config));
/// let _tables = exec.client().list_tables().send().await; // the client, for anything else
/// let db = Db::with_executor(exec, "AppTable"); // a handle over any SDK client
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct SdkExecutor {
    client: Client,
    meter: std::sync::Arc<CapacityMeter>,
}

impl SdkExecutor {
    /// The Query request `req` describes, for `query` and `query_count`.
    fn query_request(
        &self,
        req: QueryRequest,
    ) -> aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder {
        let mut r = Rendered::default();
        let key = r.key_condition(&req.key);
        let filter = condition_text(&req.filter, &mut r);
        let projection = req.projection.as_ref().map(|p| r.projection(p));
        self.client
            .query()
            .table_name(req.table)
            .set_index_name(req.index)
            .key_condition_expression(key)
            .set_filter_expression(filter)
            .set_projection_expression(projection)
            .set_expression_attribute_names(non_empty(r.names))
            .set_expression_attribute_values(non_empty(r.values))
            .set_limit(req.limit)
            .scan_index_forward(req.forward)
            .consistent_read(req.consistent)
            .set_exclusive_start_key(req.start)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
    }
    /// Wraps an SDK client. Every request asks for its consumed capacity
    /// (`ReturnConsumedCapacity=TOTAL`, free), added up in
    /// [`Executor::capacity`].
    pub fn new(client: Client) -> Self {
        Self {
            client,
            meter: Default::default(),
        }
    }

    /// Loads the AWS configuration from the environment (region,
    /// credentials, profile) the way `aws_config::load_defaults` does;
    /// requests go to `endpoint` when given (DynamoDB Local, a VPC
    /// endpoint), to the region's default otherwise (what `Db::configured`
    /// and `Db::from_env` use).
    ///
    /// ```no_run
    /// use singletable::SdkExecutor;
    /// # async fn run() {
    /// let exec = SdkExecutor::configured(Some("http://127.0.0.1:8000".into())).await;
    /// let _tables = exec.client().list_tables().send().await;
    /// # }
    /// ```
    pub async fn configured(endpoint: Option<String>) -> Self {
        let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest());
        if let Some(endpoint) = endpoint {
            loader = loader.endpoint_url(endpoint);
        }
        let config = loader.load().await;
        Self::new(Client::new(&config))
    }

    /// An executor on DynamoDB Local at `endpoint`, signing as the other
    /// clients of the same DynamoDB Local on this machine do
    /// ([`LocalIdentity::from_env`]: `AWS_ACCESS_KEY_ID` /
    /// `AWS_SECRET_ACCESS_KEY` and `AWS_REGION` when set, else the
    /// selected profile's, else `test` / `test` in `us-east-1`): DynamoDB
    /// Local keeps one set of tables per access key id and region, so
    /// these decide which tables it sees. What `Db::local` uses.
    ///
    /// ```
    /// let exec = singletable::SdkExecutor::local("http://127.0.0.1:8000");
    /// let id = singletable_aws::LocalIdentity::from_env();
    /// assert_eq!(exec.client().config().region().map(|r| r.as_ref()), Some(id.region.as_str()));
    /// ```
    pub fn local(endpoint: &str) -> Self {
        Self::local_as(endpoint, &LocalIdentity::from_env())
    }

    /// An executor on DynamoDB Local at `endpoint` signing with `identity`
    /// (its access key and region choose the tables it sees).
    ///
    /// ```
    /// use singletable_aws::{LocalIdentity, SdkExecutor};
    ///
    /// let id = LocalIdentity { region: "eu-west-1".into(), ..LocalIdentity::fallback() };
    /// let exec = SdkExecutor::local_as("http://127.0.0.1:8000", &id);
    /// assert_eq!(exec.client().config().region().map(|r| r.as_ref()), Some("eu-west-1"));
    /// ```
    pub fn local_as(endpoint: &str, identity: &LocalIdentity) -> Self {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .region(aws_sdk_dynamodb::config::Region::new(
                identity.region.clone(),
            ))
            .endpoint_url(endpoint)
            .credentials_provider(identity.credentials())
            .build();
        Self::new(Client::from_conf(config))
    }

    fn record(&self, c: Option<&ConsumedCapacity>) {
        if let Some(units) = c.and_then(ConsumedCapacity::capacity_units) {
            self.meter.add(units);
            record_response(None, Some(units));
        }
    }

    fn record_all(&self, c: &[ConsumedCapacity]) {
        let units: Vec<f64> = c
            .iter()
            .filter_map(ConsumedCapacity::capacity_units)
            .collect();
        for u in &units {
            self.meter.add(*u);
        }
        if !units.is_empty() {
            record_response(None, Some(units.iter().sum()));
        }
    }

    /// The SDK client, for requests singletable does not model.
    pub fn client(&self) -> &Client {
        &self.client
    }
}

fn non_empty<K, V>(
    map: std::collections::HashMap<K, V>,
) -> Option<std::collections::HashMap<K, V>> {
    (!map.is_empty()).then_some(map)
}

fn on_failure(flag: bool) -> Option<ReturnValuesOnConditionCheckFailure> {
    flag.then_some(ReturnValuesOnConditionCheckFailure::AllOld)
}

fn condition_text(cond: &Option<Condition>, r: &mut Rendered) -> Option<String> {
    cond.as_ref().map(|c| r.condition(c))
}

fn build_put(req: &PutItem, r: &mut Rendered) -> Option<String> {
    condition_text(&req.condition, r)
}

impl SdkExecutor {
    /// The SDK's SearchVectors request for `req`: the search vector as a
    /// list of numbers, the condition and projection with `#n`/`:v`
    /// placeholders, `ReturnConsumedCapacity=TOTAL`.
    fn search_vectors_request(
        &self,
        req: singletable_core::vector::SearchVectors,
    ) -> Result<
        aws_sdk_dynamodb::operation::search_vectors::builders::SearchVectorsFluentBuilder,
        Error,
    > {
        let Some(singletable_core::value::AttributeValue::L(vector)) =
            singletable_core::vector::to_attribute(&req.vector)
        else {
            return Err(Error::Refused(Refusal::SearchVectorNotFinite));
        };
        let mut r = Rendered::default();
        let condition = condition_text(&req.condition, &mut r);
        let projection = req.projection.map(|names| {
            names
                .iter()
                .map(|n| r.name(n))
                .collect::<Vec<_>>()
                .join(", ")
        });
        let top_k = i32::try_from(req.top_k).unwrap_or(i32::MAX);
        Ok(self
            .client
            .search_vectors()
            .table_name(req.table)
            .index_name(req.index)
            .set_search_vector(Some(vector))
            .set_search_condition_expression(condition)
            .set_projection_expression(projection)
            .set_expression_attribute_names(non_empty(r.names))
            .set_expression_attribute_values(non_empty(r.values))
            .top_k(top_k)
            .return_consumed_capacity(ReturnConsumedCapacity::Total))
    }
}

/// The results of a SearchVectors response, in its order.
fn search_results(
    out: aws_sdk_dynamodb::operation::search_vectors::SearchVectorsOutput,
) -> Vec<singletable_core::vector::ScoredItem> {
    out.search_results
        .unwrap_or_default()
        .into_iter()
        .map(|r| singletable_core::vector::ScoredItem {
            item: r.item.unwrap_or_default(),
            score: r.score,
        })
        .collect()
}

impl Executor for SdkExecutor {
    fn capacity(&self) -> Option<&CapacityMeter> {
        Some(&self.meter)
    }

    fn get_item(&self, req: GetItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        Box::pin(async move {
            let out = self
                .client
                .get_item()
                .table_name(req.table)
                .set_key(Some(req.key))
                .consistent_read(req.consistent)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await
                .map_err(|e| service_error("GetItem", e))?;
            self.record(out.consumed_capacity());
            Ok(out.item)
        })
    }

    fn put_item(&self, req: PutItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        Box::pin(async move {
            let mut r = Rendered::default();
            let cond = build_put(&req, &mut r);
            let out = self
                .client
                .put_item()
                .table_name(req.table)
                .set_item(Some(req.item))
                .set_condition_expression(cond)
                .set_expression_attribute_names(non_empty(r.names))
                .set_expression_attribute_values(non_empty(r.values))
                .set_return_values(req.return_old.then_some(ReturnValue::AllOld))
                .set_return_values_on_condition_check_failure(on_failure(
                    req.return_on_condition_failure,
                ))
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await;
            match out {
                Ok(out) => {
                    self.record(out.consumed_capacity());
                    Ok(out.attributes.filter(|a| !a.is_empty()))
                }
                Err(e) => Err(match e.as_service_error() {
                    Some(aws_sdk_dynamodb::operation::put_item::PutItemError::ConditionalCheckFailedException(c)) => {
                        Error::ConditionFailed { item: c.item().map(|i| Box::new(i.clone())) }
                    }
                    _ => service_error("PutItem", e),
                }),
            }
        })
    }

    fn delete_item(&self, req: DeleteItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        Box::pin(async move {
            let mut r = Rendered::default();
            let cond = condition_text(&req.condition, &mut r);
            let out = self
                .client
                .delete_item()
                .table_name(req.table)
                .set_key(Some(req.key))
                .set_condition_expression(cond)
                .set_expression_attribute_names(non_empty(r.names))
                .set_expression_attribute_values(non_empty(r.values))
                .set_return_values(req.return_old.then_some(ReturnValue::AllOld))
                .set_return_values_on_condition_check_failure(on_failure(
                    req.return_on_condition_failure,
                ))
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await;
            match out {
                Ok(out) => {
                    self.record(out.consumed_capacity());
                    Ok(out.attributes.filter(|a| !a.is_empty()))
                }
                Err(e) => Err(match e.as_service_error() {
                    Some(aws_sdk_dynamodb::operation::delete_item::DeleteItemError::ConditionalCheckFailedException(c)) => {
                        Error::ConditionFailed { item: c.item().map(|i| Box::new(i.clone())) }
                    }
                    _ => service_error("DeleteItem", e),
                }),
            }
        })
    }

    fn query(&self, req: QueryRequest) -> BoxFuture<'_, Result<Page, Error>> {
        Box::pin(async move {
            let out = self
                .query_request(req)
                .send()
                .await
                .map_err(|e| service_error("Query", e))?;
            self.record(out.consumed_capacity());
            record_response(Some(i64::from(out.scanned_count)), None);
            Ok(Page {
                items: out.items.unwrap_or_default(),
                last_key: out.last_evaluated_key.filter(|k| !k.is_empty()),
                scanned: usize::try_from(out.scanned_count).ok(),
            })
        })
    }

    fn query_count(&self, req: QueryRequest) -> BoxFuture<'_, Result<CountPage, Error>> {
        Box::pin(async move {
            let out = self
                .query_request(req)
                .select(aws_sdk_dynamodb::types::Select::Count)
                .send()
                .await
                .map_err(|e| service_error("Query", e))?;
            self.record(out.consumed_capacity());
            record_response(Some(i64::from(out.scanned_count)), None);
            Ok(CountPage {
                count: usize::try_from(out.count).unwrap_or(0),
                scanned: usize::try_from(out.scanned_count).ok(),
                last_key: out.last_evaluated_key.filter(|k| !k.is_empty()),
            })
        })
    }

    fn scan(&self, req: ScanRequest) -> BoxFuture<'_, Result<Page, Error>> {
        Box::pin(async move {
            let mut r = Rendered::default();
            let filter = condition_text(&req.filter, &mut r);
            let projection = req.projection.as_ref().map(|p| r.projection(p));
            let out = self
                .client
                .scan()
                .table_name(req.table)
                .set_index_name(req.index)
                .set_filter_expression(filter)
                .set_projection_expression(projection)
                .set_expression_attribute_names(non_empty(r.names))
                .set_expression_attribute_values(non_empty(r.values))
                .set_limit(req.limit)
                .consistent_read(req.consistent)
                .set_exclusive_start_key(req.start)
                .set_segment(
                    req.segment
                        .map(|s| i32::try_from(s.segment).unwrap_or(i32::MAX)),
                )
                .set_total_segments(
                    req.segment
                        .map(|s| i32::try_from(s.total_segments).unwrap_or(i32::MAX)),
                )
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await
                .map_err(|e| service_error("Scan", e))?;
            self.record(out.consumed_capacity());
            record_response(Some(i64::from(out.scanned_count)), None);
            Ok(Page {
                items: out.items.unwrap_or_default(),
                last_key: out.last_evaluated_key.filter(|k| !k.is_empty()),
                scanned: usize::try_from(out.scanned_count).ok(),
            })
        })
    }

    fn transact_write(&self, req: TransactWrite) -> BoxFuture<'_, Result<(), Error>> {
        Box::pin(async move {
            let items = req
                .ops
                .into_iter()
                .map(transact_item)
                .collect::<Result<Vec<_>, Error>>()?;
            let out = self
                .client
                .transact_write_items()
                .set_transact_items(Some(items))
                .set_client_request_token(req.token)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await;
            match out {
                Ok(out) => {
                    self.record_all(out.consumed_capacity());
                    Ok(())
                }
                Err(e) => Err(match e.as_service_error() {
                    Some(aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(c)) => {
                        cancelled(c)
                    }
                    _ => service_error("TransactWriteItems", e),
                }),
            }
        })
    }

    fn update_item(&self, req: UpdateItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        Box::pin(async move {
            let mut r = Rendered::default();
            let update = r.update(&req.actions);
            let cond = condition_text(&req.condition, &mut r);
            let out = self
                .client
                .update_item()
                .table_name(req.table)
                .set_key(Some(req.key))
                // No action: no expression, which DynamoDB takes as a
                // key-only upsert (an empty one it refuses).
                .set_update_expression((!update.is_empty()).then_some(update))
                .set_condition_expression(cond)
                .set_expression_attribute_names(non_empty(r.names))
                .set_expression_attribute_values(non_empty(r.values))
                .set_return_values(return_value(req.return_values))
                .set_return_values_on_condition_check_failure(on_failure(
                    req.return_on_condition_failure,
                ))
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await;
            match out {
                Ok(out) => {
                    self.record(out.consumed_capacity());
                    Ok(out.attributes.filter(|a| !a.is_empty()))
                }
                Err(e) => Err(match e.as_service_error() {
                    Some(aws_sdk_dynamodb::operation::update_item::UpdateItemError::ConditionalCheckFailedException(c)) => {
                        Error::ConditionFailed { item: c.item().map(|i| Box::new(i.clone())) }
                    }
                    _ => service_error("UpdateItem", e),
                }),
            }
        })
    }

    fn batch_write(&self, req: BatchWrite) -> BoxFuture<'_, Result<Vec<BatchOp>, Error>> {
        Box::pin(async move {
            let writes = req
                .ops
                .into_iter()
                .map(|op| -> Result<sdk::WriteRequest, Error> {
                    Ok(match op {
                        BatchOp::Put(item) => sdk::WriteRequest::builder()
                            .put_request(
                                sdk::PutRequest::builder()
                                    .set_item(Some(item))
                                    .build()
                                    .map_err(|e| build_error("PutRequest", e))?,
                            )
                            .build(),
                        BatchOp::Delete(key) => sdk::WriteRequest::builder()
                            .delete_request(
                                sdk::DeleteRequest::builder()
                                    .set_key(Some(key))
                                    .build()
                                    .map_err(|e| build_error("DeleteRequest", e))?,
                            )
                            .build(),
                    })
                })
                .collect::<Result<Vec<_>, Error>>()?;
            let table = req.table;
            let out = self
                .client
                .batch_write_item()
                .request_items(table.clone(), writes)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await
                .map_err(|e| service_error("BatchWriteItem", e))?;
            self.record_all(out.consumed_capacity());
            let mut unprocessed = Vec::new();
            if let Some(mut map) = out.unprocessed_items {
                for w in map.remove(&table).unwrap_or_default() {
                    if let Some(p) = w.put_request {
                        unprocessed.push(BatchOp::Put(p.item));
                    } else if let Some(d) = w.delete_request {
                        unprocessed.push(BatchOp::Delete(d.key));
                    }
                }
            }
            Ok(unprocessed)
        })
    }

    fn batch_get(&self, req: BatchGet) -> BoxFuture<'_, Result<BatchGetOutput, Error>> {
        Box::pin(async move {
            let table = req.table;
            let keys = sdk::KeysAndAttributes::builder()
                .set_keys(Some(req.keys))
                .consistent_read(req.consistent)
                .build()
                .map_err(|e| build_error("KeysAndAttributes", e))?;
            let out = self
                .client
                .batch_get_item()
                .request_items(table.clone(), keys)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await
                .map_err(|e| service_error("BatchGetItem", e))?;
            self.record_all(out.consumed_capacity());
            let items = out
                .responses
                .and_then(|mut r| r.remove(&table))
                .unwrap_or_default();
            let unprocessed = out
                .unprocessed_keys
                .and_then(|mut u| u.remove(&table))
                .map(|k| k.keys)
                .unwrap_or_default();
            Ok(BatchGetOutput { items, unprocessed })
        })
    }

    fn search_vectors(
        &self,
        req: singletable_core::vector::SearchVectors,
    ) -> BoxFuture<'_, Result<Vec<singletable_core::vector::ScoredItem>, Error>> {
        Box::pin(async move {
            let out = self
                .search_vectors_request(req)?
                .send()
                .await
                .map_err(|e| service_error("SearchVectors", e))?;
            Ok(search_results(out))
        })
    }

    fn estimated_item_count(&self, table: &str) -> BoxFuture<'_, Result<Option<u64>, Error>> {
        let table = table.to_owned();
        Box::pin(async move {
            let out = self
                .client
                .describe_table()
                .table_name(table)
                .send()
                .await
                .map_err(|e| service_error("DescribeTable", e))?;
            Ok(out
                .table
                .and_then(|t| t.item_count)
                .and_then(|n| u64::try_from(n).ok()))
        })
    }

    fn transact_get(&self, req: TransactGet) -> BoxFuture<'_, Result<Vec<Option<Item>>, Error>> {
        Box::pin(async move {
            let gets = req
                .gets
                .into_iter()
                .map(|(table, key)| -> Result<sdk::TransactGetItem, Error> {
                    Ok(sdk::TransactGetItem::builder()
                        .get(
                            sdk::Get::builder()
                                .table_name(table)
                                .set_key(Some(key))
                                .build()
                                .map_err(|e| build_error("Get", e))?,
                        )
                        .build())
                })
                .collect::<Result<Vec<_>, Error>>()?;
            let out = self
                .client
                .transact_get_items()
                .set_transact_items(Some(gets))
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await;
            match out {
                Ok(out) => Ok({
                    self.record_all(out.consumed_capacity());
                    out
                }
                    .responses
                    .unwrap_or_default()
                    .into_iter()
                    .map(|r| r.item.filter(|i| !i.is_empty()))
                    .collect()),
                Err(e) => Err(match e.as_service_error() {
                    Some(aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsError::TransactionCanceledException(c)) => {
                        cancelled(c)
                    }
                    _ => service_error("TransactGetItems", e),
                }),
            }
        })
    }
}

fn return_value(r: ReturnValues) -> Option<ReturnValue> {
    match r {
        ReturnValues::None => None,
        ReturnValues::AllOld => Some(ReturnValue::AllOld),
        ReturnValues::AllNew => Some(ReturnValue::AllNew),
        ReturnValues::UpdatedOld => Some(ReturnValue::UpdatedOld),
        ReturnValues::UpdatedNew => Some(ReturnValue::UpdatedNew),
    }
}

fn cancelled(c: &aws_sdk_dynamodb::types::error::TransactionCanceledException) -> Error {
    Error::TransactionCanceled {
        reasons: c
            .cancellation_reasons()
            .iter()
            .enumerate()
            .map(|(index, r)| CancellationReason {
                index,
                code: r.code().unwrap_or("None").to_owned(),
                message: r.message().map(str::to_owned),
                item: r.item().cloned(),
            })
            .collect(),
    }
}

/// A request the SDK's builders refuse to build, as the one refusal every
/// builder of the driver reports.
pub(crate) fn build_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Refused(Refusal::SdkBuild {
        what: what.to_owned(),
        message: e.to_string(),
    })
}

fn transact_item(op: TransactWriteOp) -> Result<TransactWriteItem, Error> {
    let mut r = Rendered::default();
    let item = match op {
        TransactWriteOp::Put(p) => {
            let cond = condition_text(&p.condition, &mut r);
            let put = sdk::Put::builder()
                .table_name(p.table)
                .set_item(Some(p.item))
                .set_condition_expression(cond)
                .set_expression_attribute_names(non_empty(r.names))
                .set_expression_attribute_values(non_empty(r.values))
                .set_return_values_on_condition_check_failure(on_failure(
                    p.return_on_condition_failure,
                ))
                .build()
                .map_err(|e| build_error("Put", e))?;
            TransactWriteItem::builder().put(put).build()
        }
        TransactWriteOp::Delete(d) => {
            let cond = condition_text(&d.condition, &mut r);
            let del = sdk::Delete::builder()
                .table_name(d.table)
                .set_key(Some(d.key))
                .set_condition_expression(cond)
                .set_expression_attribute_names(non_empty(r.names))
                .set_expression_attribute_values(non_empty(r.values))
                .set_return_values_on_condition_check_failure(on_failure(
                    d.return_on_condition_failure,
                ))
                .build()
                .map_err(|e| build_error("Delete", e))?;
            TransactWriteItem::builder().delete(del).build()
        }
        TransactWriteOp::ConditionCheck(ConditionCheck {
            table,
            key,
            condition,
            return_on_condition_failure,
        }) => {
            let cond = r.condition(&condition);
            let check = sdk::ConditionCheck::builder()
                .table_name(table)
                .set_key(Some(key))
                .condition_expression(cond)
                .set_expression_attribute_names(non_empty(r.names))
                .set_expression_attribute_values(non_empty(r.values))
                .set_return_values_on_condition_check_failure(on_failure(
                    return_on_condition_failure,
                ))
                .build()
                .map_err(|e| build_error("ConditionCheck", e))?;
            TransactWriteItem::builder().condition_check(check).build()
        }
        TransactWriteOp::Update(u) => {
            let update = r.update(&u.actions);
            let cond = condition_text(&u.condition, &mut r);
            let up = sdk::Update::builder()
                .table_name(u.table)
                .set_key(Some(u.key))
                .update_expression(update)
                .set_condition_expression(cond)
                .set_expression_attribute_names(non_empty(r.names))
                .set_expression_attribute_values(non_empty(r.values))
                .set_return_values_on_condition_check_failure(on_failure(
                    u.return_on_condition_failure,
                ))
                .build()
                .map_err(|e| build_error("Update", e))?;
            TransactWriteItem::builder().update(up).build()
        }
    };
    Ok(item)
}
