//! The executor over `aws-sdk-dynamodb`: the one place where request values
//! become SDK calls.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::{DisplayErrorContext, SdkError};
use aws_sdk_dynamodb::types::{
    self as sdk, ReturnValue, ReturnValuesOnConditionCheckFailure, TransactWriteItem,
};

use super::{BoxFuture, Executor};
use crate::error::{CancellationReason, Error};
use crate::expr::{Condition, Rendered};
use crate::request::{
    ConditionCheck, DeleteItem, GetItem, Page, PutItem, QueryRequest, ScanRequest, TransactWrite,
    TransactWriteOp,
};
use crate::value::Item;

/// Sends requests to DynamoDB through an `aws_sdk_dynamodb::Client`.
#[derive(Debug, Clone)]
pub struct SdkExecutor {
    client: Client,
}

impl SdkExecutor {
    /// Wraps an SDK client.
    pub fn new(client: Client) -> Self {
        Self { client }
    }

    /// The SDK client, for requests singletable does not model.
    pub fn client(&self) -> &Client {
        &self.client
    }
}

fn service_error<E>(operation: &'static str, err: SdkError<E>) -> Error
where
    E: std::error::Error + Send + Sync + 'static,
{
    Error::Service {
        operation,
        message: DisplayErrorContext(&err).to_string(),
        source: Box::new(err),
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

impl Executor for SdkExecutor {
    fn get_item(&self, req: GetItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        Box::pin(async move {
            let out = self
                .client
                .get_item()
                .table_name(req.table)
                .set_key(Some(req.key))
                .consistent_read(req.consistent)
                .send()
                .await
                .map_err(|e| service_error("GetItem", e))?;
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
                .send()
                .await;
            match out {
                Ok(out) => Ok(out.attributes.filter(|a| !a.is_empty())),
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
                .send()
                .await;
            match out {
                Ok(out) => Ok(out.attributes.filter(|a| !a.is_empty())),
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
            let mut r = Rendered::default();
            let key = r.key_condition(&req.key);
            let filter = condition_text(&req.filter, &mut r);
            let projection = req.projection.as_ref().map(|p| r.projection(p));
            let out = self
                .client
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
                .send()
                .await
                .map_err(|e| service_error("Query", e))?;
            Ok(Page {
                items: out.items.unwrap_or_default(),
                last_key: out.last_evaluated_key.filter(|k| !k.is_empty()),
            })
        })
    }

    fn scan(&self, req: ScanRequest) -> BoxFuture<'_, Result<Page, Error>> {
        Box::pin(async move {
            let mut r = Rendered::default();
            let filter = condition_text(&req.filter, &mut r);
            let out = self
                .client
                .scan()
                .table_name(req.table)
                .set_index_name(req.index)
                .set_filter_expression(filter)
                .set_expression_attribute_names(non_empty(r.names))
                .set_expression_attribute_values(non_empty(r.values))
                .set_limit(req.limit)
                .consistent_read(req.consistent)
                .set_exclusive_start_key(req.start)
                .send()
                .await
                .map_err(|e| service_error("Scan", e))?;
            Ok(Page {
                items: out.items.unwrap_or_default(),
                last_key: out.last_evaluated_key.filter(|k| !k.is_empty()),
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
                .send()
                .await;
            match out {
                Ok(_) => Ok(()),
                Err(e) => Err(match e.as_service_error() {
                    Some(aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(c)) => {
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
                    _ => service_error("TransactWriteItems", e),
                }),
            }
        })
    }
}

fn build_error(what: &'static str, e: aws_sdk_dynamodb::error::BuildError) -> Error {
    Error::Limit(format!("cannot build {what}: {e}"))
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
    };
    Ok(item)
}
