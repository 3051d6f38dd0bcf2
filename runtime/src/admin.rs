//! Creating the table a [`Table`] declaration describes (CreateTable), for
//! development, tests and examples.

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    LocalSecondaryIndex, Projection as SdkProjection, ProjectionType, ScalarAttributeType,
};

use crate::db::Db;
use crate::entity::{Projection, Table};
use crate::error::Error;
use crate::exec::SdkExecutor;

fn key(name: &str, kind: KeyType) -> Result<KeySchemaElement, Error> {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(kind)
        .build()
        .map_err(|e| Error::Limit(format!("key schema: {e}")))
}

fn projection(p: Projection) -> SdkProjection {
    match p {
        Projection::All => SdkProjection::builder()
            .projection_type(ProjectionType::All)
            .build(),
        Projection::KeysOnly => SdkProjection::builder()
            .projection_type(ProjectionType::KeysOnly)
            .build(),
        Projection::Include(attrs) => SdkProjection::builder()
            .projection_type(ProjectionType::Include)
            .set_non_key_attributes(Some(attrs.iter().map(|a| (*a).to_owned()).collect()))
            .build(),
    }
}

fn service<E: std::error::Error + Send + Sync + 'static>(
    operation: &'static str,
    e: aws_sdk_dynamodb::error::SdkError<E>,
) -> Error {
    Error::Service {
        operation,
        message: aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string(),
        source: Box::new(e),
    }
}

impl Db<SdkExecutor> {
    /// Creates this handle's table as `T` declares it (key schema, every
    /// global and local index with its projection, on-demand billing) unless
    /// a table of that name exists. Returns whether it created the table.
    pub async fn create_table_if_missing<T: Table>(&self) -> Result<bool, Error> {
        let client = self.sdk();
        let name = self.table_name();
        match client.describe_table().table_name(name).send().await {
            Ok(_) => return Ok(false),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|s| s.is_resource_not_found_exception()) => {}
            Err(e) => return Err(service("DescribeTable", e)),
        }
        let mut attrs: Vec<&str> = vec![T::PK];
        let mut schema = vec![key(T::PK, KeyType::Hash)?];
        if let Some(sk) = T::SK {
            attrs.push(sk);
            schema.push(key(sk, KeyType::Range)?);
        }
        let mut gsis = Vec::new();
        for g in T::GLOBAL_INDEXES {
            attrs.push(g.pk);
            let mut ks = vec![key(g.pk, KeyType::Hash)?];
            if let Some(sk) = g.sk {
                attrs.push(sk);
                ks.push(key(sk, KeyType::Range)?);
            }
            gsis.push(
                GlobalSecondaryIndex::builder()
                    .index_name(g.name)
                    .set_key_schema(Some(ks))
                    .projection(projection(g.projection))
                    .build()
                    .map_err(|e| Error::Limit(format!("global index: {e}")))?,
            );
        }
        let mut lsis = Vec::new();
        for l in T::LOCAL_INDEXES {
            attrs.push(l.sk);
            lsis.push(
                LocalSecondaryIndex::builder()
                    .index_name(l.name)
                    .key_schema(key(T::PK, KeyType::Hash)?)
                    .key_schema(key(l.sk, KeyType::Range)?)
                    .projection(projection(l.projection))
                    .build()
                    .map_err(|e| Error::Limit(format!("local index: {e}")))?,
            );
        }
        attrs.sort_unstable();
        attrs.dedup();
        let defs = attrs
            .into_iter()
            .map(|a| {
                AttributeDefinition::builder()
                    .attribute_name(a)
                    .attribute_type(ScalarAttributeType::S)
                    .build()
                    .map_err(|e| Error::Limit(format!("attribute definition: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        client
            .create_table()
            .table_name(name)
            .set_attribute_definitions(Some(defs))
            .set_key_schema(Some(schema))
            .set_global_secondary_indexes((!gsis.is_empty()).then_some(gsis))
            .set_local_secondary_indexes((!lsis.is_empty()).then_some(lsis))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .await
            .map_err(|e| service("CreateTable", e))?;
        Ok(true)
    }

    /// Deletes this handle's table (DeleteTable). For tests and examples.
    pub async fn delete_table(&self) -> Result<(), Error> {
        self.sdk()
            .delete_table()
            .table_name(self.table_name())
            .send()
            .await
            .map_err(|e| service("DeleteTable", e))?;
        Ok(())
    }
}
