//! Table administration over the SDK: the table a [`TableDefinition`]
//! describes created, described, brought up to date and deleted
//! (CreateTable, UpdateTimeToLive, DescribeTable, DescribeTimeToLive,
//! UpdateTable, DeleteTable), for deployment checks, development, tests
//! and examples: [`SdkExecutor`]'s [`Admin`] implementation, which the
//! handle's administration methods (`Db::create_table_if_missing`,
//! `Db::verify`, …) call.

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, CreateGlobalSecondaryIndexAction, CreateVectorIndexAction,
    DeleteGlobalSecondaryIndexAction, DeleteVectorIndexAction, GlobalSecondaryIndex,
    GlobalSecondaryIndexUpdate, IndexStatus, KeySchemaElement, KeyType, LocalSecondaryIndex,
    Projection as SdkProjection, ProjectionType, ProvisionedThroughput, ScalarAttributeType,
    SearchSchemaElement, SearchSchemaElementType, StreamSpecification, StreamViewType,
    TableDescription, TableStatus, TimeToLiveSpecification, TimeToLiveStatus,
    VectorAttributeDefinition, VectorDistanceFunction, VectorIndex as SdkVectorIndex,
    VectorIndexDescription, VectorIndexUpdate,
};

use aws_sdk_dynamodb::Client;
use singletable_core::admin::{Admin, ExtraIndexes, TableUpdate};
use singletable_core::definition::{
    self, IndexDef, KeyElement, ProjectionDef, SearchSchemaElementDef, TableDefinition, Throughput,
    VectorAttributeDef, VectorIndexDef,
};
use singletable_core::exec::BoxFuture;
use singletable_core::{Error, Refusal};

use crate::SdkExecutor;
use crate::error::service_error as service;

fn sdk_attributes<'a>(
    attributes: impl Iterator<Item = &'a definition::AttributeDefinition>,
) -> Result<Vec<AttributeDefinition>, Error> {
    attributes
        .map(|a| {
            AttributeDefinition::builder()
                .attribute_name(&a.attribute_name)
                .attribute_type(ScalarAttributeType::from(a.attribute_type.as_str()))
                .build()
                .map_err(|e| crate::exec::build_error("attribute definition", e))
        })
        .collect()
}

fn sdk_keys(keys: &[KeyElement]) -> Result<Vec<KeySchemaElement>, Error> {
    keys.iter()
        .map(|k| {
            KeySchemaElement::builder()
                .attribute_name(&k.attribute_name)
                .key_type(KeyType::from(k.key_type.as_str()))
                .build()
                .map_err(|e| crate::exec::build_error("key schema", e))
        })
        .collect()
}

fn sdk_projection(p: &ProjectionDef) -> SdkProjection {
    SdkProjection::builder()
        .projection_type(ProjectionType::from(p.projection_type.as_str()))
        .set_non_key_attributes(p.non_key_attributes.clone())
        .build()
}

fn sdk_throughput(t: &Option<Throughput>) -> Result<Option<ProvisionedThroughput>, Error> {
    t.as_ref()
        .map(|t| {
            ProvisionedThroughput::builder()
                .read_capacity_units(t.read_capacity_units)
                .write_capacity_units(t.write_capacity_units)
                .build()
                .map_err(|e| crate::exec::build_error("throughput", e))
        })
        .transpose()
}

fn from_sdk_keys(keys: &[KeySchemaElement]) -> Vec<KeyElement> {
    keys.iter()
        .map(|k| KeyElement {
            attribute_name: k.attribute_name().to_owned(),
            key_type: k.key_type().as_str().to_owned(),
        })
        .collect()
}

fn from_sdk_projection(p: Option<&SdkProjection>) -> ProjectionDef {
    ProjectionDef {
        projection_type: p
            .and_then(|p| p.projection_type())
            .map_or("ALL", ProjectionType::as_str)
            .to_owned(),
        non_key_attributes: p
            .map(|p| p.non_key_attributes().to_vec())
            .filter(|v| !v.is_empty()),
    }
}

/// The parts of a vector index CreateTable's `VectorIndex` and
/// UpdateTable's `CreateVectorIndexAction` share.
struct SdkVector {
    attribute: VectorAttributeDefinition,
    schema: Option<Vec<SearchSchemaElement>>,
    projection: SdkProjection,
    dimensions: i64,
    distance: VectorDistanceFunction,
}

fn sdk_vector(v: &VectorIndexDef) -> Result<SdkVector, Error> {
    let schema = v
        .search_schema
        .iter()
        .map(|e| {
            SearchSchemaElement::builder()
                .attribute_name(&e.attribute_name)
                .search_schema_element_type(SearchSchemaElementType::from(
                    e.search_schema_element_type.as_str(),
                ))
                .build()
                .map_err(|e| crate::exec::build_error("search schema", e))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SdkVector {
        attribute: VectorAttributeDefinition::builder()
            .attribute_name(&v.vector_attribute.attribute_name)
            .build()
            .map_err(|e| crate::exec::build_error("vector attribute", e))?,
        schema: (!schema.is_empty()).then_some(schema),
        projection: sdk_projection(&v.projection),
        dimensions: i64::from(v.dimensions),
        distance: VectorDistanceFunction::from(v.distance_function.as_str()),
    })
}

fn sdk_vector_index(v: &VectorIndexDef) -> Result<SdkVectorIndex, Error> {
    let p = sdk_vector(v)?;
    SdkVectorIndex::builder()
        .index_name(&v.index_name)
        .vector_attribute(p.attribute)
        .set_search_schema(p.schema)
        .projection(p.projection)
        .dimensions(p.dimensions)
        .distance_function(p.distance)
        .build()
        .map_err(|e| crate::exec::build_error("vector index", e))
}

fn from_sdk_vector(v: &VectorIndexDescription) -> VectorIndexDef {
    VectorIndexDef {
        index_name: v.index_name().unwrap_or_default().to_owned(),
        vector_attribute: VectorAttributeDef {
            attribute_name: v
                .vector_attribute()
                .map(|a| a.attribute_name().to_owned())
                .unwrap_or_default(),
        },
        dimensions: v
            .dimensions()
            .and_then(|d| u32::try_from(d).ok())
            .unwrap_or(0),
        distance_function: v
            .distance_function()
            .map_or("", VectorDistanceFunction::as_str)
            .to_owned(),
        search_schema: v
            .search_schema()
            .iter()
            .map(|e| SearchSchemaElementDef {
                attribute_name: e.attribute_name().to_owned(),
                search_schema_element_type: e.search_schema_element_type().as_str().to_owned(),
            })
            .collect(),
        projection: from_sdk_projection(v.projection()),
    }
}

/// Creates table `name` as `def` describes it (key schema, every global
/// and local index with its projection, the vector indexes, the billing
/// mode, the stream, TTL) unless a table of that name exists. Returns
/// whether it created it. A definition DynamoDB would refuse (vector
/// indexes on a provisioned table: [`TableDefinition::problem`]) is an
/// [`Refusal::TableDefinition`] before anything is sent.
async fn create_table(client: &Client, name: &str, def: &TableDefinition) -> Result<bool, Error> {
    if let Some(problem) = def.problem() {
        return Err(Error::Refused(Refusal::TableDefinition { problem }));
    }
    match client.describe_table().table_name(name).send().await {
        Ok(_) => return Ok(false),
        Err(e)
            if e.as_service_error()
                .is_some_and(|s| s.is_resource_not_found_exception()) => {}
        Err(e) => return Err(service("DescribeTable", e)),
    }
    let defs = sdk_attributes(def.attribute_definitions.iter())?;
    let vectors = def
        .vector_indexes
        .iter()
        .map(sdk_vector_index)
        .collect::<Result<Vec<_>, _>>()?;
    let gsis = def
        .global_secondary_indexes
        .iter()
        .map(|g| {
            GlobalSecondaryIndex::builder()
                .index_name(&g.index_name)
                .set_key_schema(Some(sdk_keys(&g.key_schema)?))
                .projection(sdk_projection(&g.projection))
                .set_provisioned_throughput(sdk_throughput(&g.provisioned_throughput)?)
                .build()
                .map_err(|e| crate::exec::build_error("global index", e))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let lsis = def
        .local_secondary_indexes
        .iter()
        .map(|l| {
            LocalSecondaryIndex::builder()
                .index_name(&l.index_name)
                .set_key_schema(Some(sdk_keys(&l.key_schema)?))
                .projection(sdk_projection(&l.projection))
                .build()
                .map_err(|e| crate::exec::build_error("local index", e))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let stream = def
        .stream_specification
        .as_ref()
        .map(|s| {
            StreamSpecification::builder()
                .stream_enabled(s.stream_enabled)
                .stream_view_type(StreamViewType::from(s.stream_view_type.as_str()))
                .build()
                .map_err(|e| crate::exec::build_error("stream", e))
        })
        .transpose()?;
    client
        .create_table()
        .table_name(name)
        .set_stream_specification(stream)
        .set_attribute_definitions(Some(defs))
        .set_key_schema(Some(sdk_keys(&def.key_schema)?))
        .set_global_secondary_indexes((!gsis.is_empty()).then_some(gsis))
        .set_local_secondary_indexes((!lsis.is_empty()).then_some(lsis))
        .set_vector_indexes((!vectors.is_empty()).then_some(vectors))
        .billing_mode(BillingMode::from(def.billing_mode.as_str()))
        .set_provisioned_throughput(sdk_throughput(&def.provisioned_throughput)?)
        .send()
        .await
        .map_err(|e| service("CreateTable", e))?;
    if let Some(ttl) = &def.ttl_attribute {
        client
            .update_time_to_live()
            .table_name(name)
            .time_to_live_specification(
                TimeToLiveSpecification::builder()
                    .attribute_name(ttl)
                    .enabled(true)
                    .build()
                    .map_err(|e| crate::exec::build_error("TTL", e))?,
            )
            .send()
            .await
            .map_err(|e| service("UpdateTimeToLive", e))?;
    }
    Ok(true)
}

/// The table as DynamoDB describes it (DescribeTable and
/// DescribeTimeToLive), in the shape of a [`TableDefinition`].
async fn describe(client: &Client, name: &str) -> Result<TableDefinition, Error> {
    let t = describe_raw(client, name).await?;
    let ttl = client
        .describe_time_to_live()
        .table_name(name)
        .send()
        .await
        .map_err(|e| service("DescribeTimeToLive", e))?;
    let ttl_attribute = ttl.time_to_live_description.and_then(|d| {
        matches!(
            d.time_to_live_status(),
            Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling)
        )
        .then(|| d.attribute_name().map(str::to_owned))
        .flatten()
    });
    let (on_demand, throughput) = billing(&t);
    let mut attribute_definitions: Vec<definition::AttributeDefinition> = t
        .attribute_definitions()
        .iter()
        .map(|a| definition::AttributeDefinition {
            attribute_name: a.attribute_name().to_owned(),
            attribute_type: a.attribute_type().as_str().to_owned(),
        })
        .collect();
    attribute_definitions.sort_by(|a, b| a.attribute_name.cmp(&b.attribute_name));
    Ok(TableDefinition {
        table_name: t.table_name().unwrap_or_default().to_owned(),
        attribute_definitions,
        key_schema: from_sdk_keys(t.key_schema()),
        global_secondary_indexes: t
            .global_secondary_indexes()
            .iter()
            .map(|g| IndexDef {
                index_name: g.index_name().unwrap_or_default().to_owned(),
                key_schema: from_sdk_keys(g.key_schema()),
                projection: from_sdk_projection(g.projection()),
                provisioned_throughput: None,
            })
            .collect(),
        local_secondary_indexes: t
            .local_secondary_indexes()
            .iter()
            .map(|l| IndexDef {
                index_name: l.index_name().unwrap_or_default().to_owned(),
                key_schema: from_sdk_keys(l.key_schema()),
                projection: from_sdk_projection(l.projection()),
                provisioned_throughput: None,
            })
            .collect(),
        vector_indexes: t.vector_indexes().iter().map(from_sdk_vector).collect(),
        billing_mode: if on_demand {
            "PAY_PER_REQUEST"
        } else {
            "PROVISIONED"
        }
        .into(),
        provisioned_throughput: if on_demand { None } else { throughput },
        stream_specification: t
            .stream_specification()
            .filter(|s| s.stream_enabled())
            .map(|s| definition::StreamSpecification {
                stream_enabled: true,
                stream_view_type: s
                    .stream_view_type()
                    .map_or("", StreamViewType::as_str)
                    .to_owned(),
            }),
        ttl_attribute,
    })
}

/// The ARN of the table's current stream (DescribeTable's
/// `LatestStreamArn`), `None` when the table has no stream.
async fn stream_arn(client: &Client, name: &str) -> Result<Option<String>, Error> {
    let t = describe_raw(client, name).await?;
    Ok(t.stream_specification()
        .is_some_and(|s| s.stream_enabled())
        .then_some(t.latest_stream_arn)
        .flatten())
}

/// Deletes table `name` (DeleteTable).
async fn delete_table(client: &Client, name: &str) -> Result<(), Error> {
    client
        .delete_table()
        .table_name(name)
        .send()
        .await
        .map_err(|e| service("DeleteTable", e))?;
    Ok(())
}

/// Brings the global and vector indexes of table `name` to `declared`,
/// one UpdateTable per index (DynamoDB takes one index creation or
/// deletion per request: `GlobalSecondaryIndexUpdates` or
/// `VectorIndexUpdates`), waiting after each until the index is ACTIVE and
/// backfilled, or gone. With `apply` false, only the plan.
async fn update_table(
    client: &Client,
    name: &str,
    declared: &TableDefinition,
    extra: ExtraIndexes,
    apply: bool,
) -> Result<TableUpdate, Error> {
    let table = describe_raw(client, name).await?;
    let existing = table
        .global_secondary_indexes()
        .iter()
        .filter_map(|g| g.index_name())
        .chain(table.vector_indexes().iter().filter_map(|v| v.index_name()));
    let plan = TableUpdate::between(declared, existing, extra);
    if !apply {
        return Ok(plan);
    }
    // A provisioned table's new index gets the table's throughput.
    let (on_demand, throughput) = billing(&table);
    let throughput = throughput.filter(|_| !on_demand).map(|t| Throughput {
        read_capacity_units: t.read_capacity_units.max(1),
        write_capacity_units: t.write_capacity_units.max(1),
    });
    // The attribute definitions an index's new attributes need.
    let attributes_of = |names: &[&str]| {
        sdk_attributes(
            declared
                .attribute_definitions
                .iter()
                .filter(|a| names.contains(&a.attribute_name.as_str())),
        )
    };
    for g in declared
        .global_secondary_indexes
        .iter()
        .filter(|g| plan.created.contains(&g.index_name))
    {
        let keys: Vec<&str> = g
            .key_schema
            .iter()
            .map(|k| k.attribute_name.as_str())
            .collect();
        let create = CreateGlobalSecondaryIndexAction::builder()
            .index_name(&g.index_name)
            .set_key_schema(Some(sdk_keys(&g.key_schema)?))
            .projection(sdk_projection(&g.projection))
            .set_provisioned_throughput(sdk_throughput(&throughput)?)
            .build()
            .map_err(|e| crate::exec::build_error("global index", e))?;
        let create =
            IndexChange::Global(GlobalSecondaryIndexUpdate::builder().create(create).build());
        change_index(
            client,
            name,
            &g.index_name,
            create,
            Some(attributes_of(&keys)?),
        )
        .await?;
    }
    for v in declared
        .vector_indexes
        .iter()
        .filter(|v| plan.created.contains(&v.index_name))
    {
        let schema: Vec<&str> = v
            .search_schema
            .iter()
            .map(|e| e.attribute_name.as_str())
            .collect();
        let p = sdk_vector(v)?;
        let create = CreateVectorIndexAction::builder()
            .index_name(&v.index_name)
            .vector_attribute(p.attribute)
            .set_search_schema(p.schema)
            .projection(p.projection)
            .dimensions(p.dimensions)
            .distance_function(p.distance)
            .build()
            .map_err(|e| crate::exec::build_error("vector index", e))?;
        let create = IndexChange::Vector(VectorIndexUpdate::builder().create(create).build());
        let attributes = (!schema.is_empty())
            .then(|| attributes_of(&schema))
            .transpose()?;
        change_index(client, name, &v.index_name, create, attributes).await?;
    }
    for ix in &plan.deleted {
        let vector = table
            .vector_indexes()
            .iter()
            .any(|v| v.index_name() == Some(ix.as_str()));
        let delete = if vector {
            let delete = DeleteVectorIndexAction::builder()
                .index_name(ix)
                .build()
                .map_err(|e| crate::exec::build_error("vector index", e))?;
            IndexChange::Vector(VectorIndexUpdate::builder().delete(delete).build())
        } else {
            let delete = DeleteGlobalSecondaryIndexAction::builder()
                .index_name(ix)
                .build()
                .map_err(|e| crate::exec::build_error("global index", e))?;
            IndexChange::Global(GlobalSecondaryIndexUpdate::builder().delete(delete).build())
        };
        change_index(client, name, ix, delete, None).await?;
    }
    Ok(plan)
}

/// One index creation or deletion of an UpdateTable.
enum IndexChange {
    Global(GlobalSecondaryIndexUpdate),
    Vector(VectorIndexUpdate),
}

/// Sends one UpdateTable with one index change (DynamoDB takes one per
/// request) and waits until index `index` is built, or gone.
async fn change_index(
    client: &Client,
    name: &str,
    index: &str,
    update: IndexChange,
    attributes: Option<Vec<AttributeDefinition>>,
) -> Result<(), Error> {
    let request = client
        .update_table()
        .table_name(name)
        .set_attribute_definitions(attributes);
    let (request, created) = match update {
        IndexChange::Global(u) => {
            let created = u.create().is_some();
            (request.global_secondary_index_updates(u), created)
        }
        IndexChange::Vector(u) => {
            let created = u.create().is_some();
            (request.vector_index_updates(u), created)
        }
    };
    request
        .send()
        .await
        .map_err(|e| service("UpdateTable", e))?;
    wait_for_index(client, name, index, created).await
}

/// Whether the table DynamoDB describes is billed on demand, and its
/// provisioned throughput when it reports one.
fn billing(t: &TableDescription) -> (bool, Option<Throughput>) {
    let on_demand = t
        .billing_mode_summary()
        .and_then(|b| b.billing_mode())
        .is_some_and(|m| *m == BillingMode::PayPerRequest);
    let throughput = t.provisioned_throughput().and_then(|p| {
        Some(Throughput {
            read_capacity_units: p.read_capacity_units()?,
            write_capacity_units: p.write_capacity_units()?,
        })
    });
    (on_demand, throughput)
}

async fn describe_raw(client: &Client, name: &str) -> Result<TableDescription, Error> {
    client
        .describe_table()
        .table_name(name)
        .send()
        .await
        .map_err(|e| service("DescribeTable", e))?
        .table
        .ok_or_else(|| {
            Error::Refused(Refusal::UnexpectedResponse {
                operation: "DescribeTable",
                problem: "no table".to_owned(),
            })
        })
}

/// Polls DescribeTable until global or vector index `index` of table
/// `name` is ACTIVE and no longer backfilling (`present`), or is gone, and
/// the table is ACTIVE again; each poll is a `tracing` event with the
/// index's status and the items it holds so far. Waits as long as DynamoDB takes (a large table's
/// backfill takes hours): bound it with a timeout around the call if need
/// be.
async fn wait_for_index(
    client: &Client,
    name: &str,
    index: &str,
    present: bool,
) -> Result<(), Error> {
    let mut pause = std::time::Duration::from_millis(50);
    loop {
        let table = describe_raw(client, name).await?;
        // `(status, backfilling, items)` of the global or vector index.
        let found = table
            .global_secondary_indexes()
            .iter()
            .find(|g| g.index_name() == Some(index))
            .map(|g| (g.index_status(), g.backfilling(), g.item_count()))
            .or_else(|| {
                table
                    .vector_indexes()
                    .iter()
                    .find(|v| v.index_name() == Some(index))
                    .map(|v| (v.index_status(), v.backfilling(), v.item_count()))
            });
        let status = found
            .and_then(|(s, ..)| s)
            .map_or("DELETED", IndexStatus::as_str);
        let settled = match found {
            Some((status, backfilling, _)) => {
                present && status == Some(&IndexStatus::Active) && backfilling != Some(true)
            }
            None => !present,
        };
        let done = settled && table.table_status() == Some(&TableStatus::Active);
        tracing::info!(
            table = name,
            index,
            status,
            items = found.and_then(|(.., items)| items),
            done,
            "UpdateTable: waiting for the index"
        );
        if done {
            return Ok(());
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(std::time::Duration::from_secs(10));
    }
}

/// Against DynamoDB (or DynamoDB Local): DescribeTable before CreateTable
/// (an existing table is left as it is), UpdateTimeToLive after it;
/// DescribeTable and DescribeTimeToLive for a description; one
/// UpdateTable per index change, each followed by DescribeTable polls
/// until the index is ACTIVE and backfilled, or gone.
impl Admin for SdkExecutor {
    fn create_table<'a>(
        &'a self,
        table: &'a str,
        definition: &'a TableDefinition,
    ) -> BoxFuture<'a, Result<bool, Error>> {
        Box::pin(create_table(self.client(), table, definition))
    }

    fn describe_table<'a>(
        &'a self,
        table: &'a str,
    ) -> BoxFuture<'a, Result<TableDefinition, Error>> {
        Box::pin(describe(self.client(), table))
    }

    fn update_table<'a>(
        &'a self,
        table: &'a str,
        declared: &'a TableDefinition,
        extra: ExtraIndexes,
        apply: bool,
    ) -> BoxFuture<'a, Result<TableUpdate, Error>> {
        Box::pin(update_table(self.client(), table, declared, extra, apply))
    }

    fn delete_table<'a>(&'a self, table: &'a str) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(delete_table(self.client(), table))
    }

    fn stream_arn<'a>(&'a self, table: &'a str) -> BoxFuture<'a, Result<Option<String>, Error>> {
        Box::pin(stream_arn(self.client(), table))
    }
}
