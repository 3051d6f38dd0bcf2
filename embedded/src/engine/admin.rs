//! Table administration on the engine: `Admin` for `Embedded`, and the
//! inherent methods that take a declaration, over the conversions of
//! `definition.rs`.

use singletable_core::admin::{Admin, ExtraIndexes, TableUpdate};
use singletable_core::definition::{self, TableDefinition};
use singletable_core::exec::BoxFuture;

use super::Embedded;
use crate::error::{Error, Fail};
use crate::schema::TableSchema;

impl Embedded {
    /// Creates table `table` as `T` declares it unless it exists; whether
    /// it created it. The method `HoldsTables` had.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use singletable::Embedded;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// let embedded = Embedded::new();
    /// assert!(embedded.create_table_if_missing::<App>("App")?);
    /// assert!(!embedded.create_table_if_missing::<App>("App")?);
    /// # Ok::<(), singletable::Error>(())
    /// ```
    #[deprecated(
        note = "use `Db::create_table_if_missing::<T>()`, or `Admin::create_table(&embedded, table, &TableDefinition::of::<T>(table, Billing::OnDemand))`"
    )]
    pub fn create_table_if_missing<T: singletable_core::entity::Table>(
        &self,
        table: &str,
    ) -> Result<bool, Error> {
        self.create_defined(
            table,
            &TableDefinition::of::<T>(table, definition::Billing::OnDemand),
        )
    }

    /// Brings the global and vector indexes of table `table` to what `T`
    /// declares (with `apply` false, only the plan). The method
    /// `HoldsTables` had.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use singletable::backend::ExtraIndexes;
    /// use singletable::Embedded;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App", gsi1)]
    /// # pub struct App;
    /// let embedded = Embedded::new();
    /// embedded.create_table_with("App", singletable::embedded::TableSchema { indexes: vec![], ..singletable::embedded::TableSchema::of::<App>() })?;
    /// assert_eq!(embedded.update_table::<App>("App", ExtraIndexes::Keep, true)?.created, ["GSI1"]);
    /// # Ok::<(), singletable::Error>(())
    /// ```
    #[deprecated(
        note = "use `Db::update_table::<T>(extra)` / `Db::plan_table_update::<T>(extra)`, or `Admin::update_table(&embedded, table, &TableDefinition::of::<T>(table, Billing::OnDemand), extra, apply)`"
    )]
    pub fn update_table<T: singletable_core::entity::Table>(
        &self,
        table: &str,
        extra: ExtraIndexes,
        apply: bool,
    ) -> Result<TableUpdate, Error> {
        let declared = TableDefinition::of::<T>(table, definition::Billing::OnDemand);
        self.update_defined(table, &declared, extra, apply)
    }

    /// CreateTable (and UpdateTimeToLive) from a definition, unless the
    /// table exists: whether it created it.
    pub(crate) fn create_defined(&self, table: &str, def: &TableDefinition) -> Result<bool, Error> {
        if let Some(problem) = def.problem() {
            return Err(Error::Refused(singletable_core::Refusal::TableDefinition {
                problem,
            }));
        }
        let schema = TableSchema::from_definition(def)?;
        let created = self
            .create(table, schema)
            .map_err(|e| e.into_error("CreateTable"))?;
        if created && def.ttl_attribute.is_some() {
            self.set_time_to_live(table, def.ttl_attribute.as_deref())?;
        }
        Ok(created)
    }

    fn describe_defined(&self, table: &str) -> Result<TableDefinition, Error> {
        let schema = self
            .schema(table)
            .ok_or_else(|| Fail::no_table().into_error("DescribeTable"))?;
        let mut def = schema.definition(table);
        def.ttl_attribute = self.time_to_live(table);
        Ok(def)
    }

    fn update_defined(
        &self,
        table: &str,
        declared: &TableDefinition,
        extra: ExtraIndexes,
        apply: bool,
    ) -> Result<TableUpdate, Error> {
        let schema = TableSchema::from_def(declared).map_err(|e| e.into_error("UpdateTable"))?;
        let mut store = self.write();
        let data = store
            .table_mut(table)
            .map_err(|e| e.into_error("UpdateTable"))?;
        let existing = data.schema.indexes.iter().filter(|ix| ix.global);
        let existing = existing
            .map(|ix| ix.name.as_str())
            .chain(data.schema.vectors.iter().map(|v| v.name.as_str()));
        let plan = TableUpdate::between(declared, existing, extra);
        if apply {
            for ix in schema.indexes {
                if ix.global && plan.created.contains(&ix.name) {
                    data.add_index(ix, crate::check::fits_index)
                        .map_err(|e| e.into_error("UpdateTable"))?;
                }
            }
            for v in schema.vectors {
                if plan.created.contains(&v.name) {
                    data.add_vector_index(v)
                        .map_err(|e| e.into_error("UpdateTable"))?;
                }
            }
            for name in &plan.deleted {
                if !data.remove_index(name) {
                    data.remove_vector_index(name);
                }
            }
        }
        Ok(plan)
    }

    fn stream_arn_of(&self, table: &str) -> Result<Option<String>, Error> {
        let schema = self
            .schema(table)
            .ok_or_else(|| Fail::no_table().into_error("DescribeTable"))?;
        // The account and label are the backend's own: one stream per
        // table, which `Embedded::stream` reads.
        Ok(schema.stream.map(|_| {
            format!("arn:aws:dynamodb:embedded:000000000000:table/{table}/stream/embedded")
        }))
    }
}

/// The embedded backend's tables change at once: CreateTable,
/// UpdateTable (each new index built from the items stored) and
/// DeleteTable complete before their future does.
impl Admin for Embedded {
    fn create_table<'a>(
        &'a self,
        table: &'a str,
        definition: &'a TableDefinition,
    ) -> BoxFuture<'a, Result<bool, Error>> {
        let out = self.create_defined(table, definition);
        Box::pin(async move { out })
    }

    fn describe_table<'a>(
        &'a self,
        table: &'a str,
    ) -> BoxFuture<'a, Result<TableDefinition, Error>> {
        let out = self.describe_defined(table);
        Box::pin(async move { out })
    }

    fn update_table<'a>(
        &'a self,
        table: &'a str,
        declared: &'a TableDefinition,
        extra: ExtraIndexes,
        apply: bool,
    ) -> BoxFuture<'a, Result<TableUpdate, Error>> {
        let out = self.update_defined(table, declared, extra, apply);
        Box::pin(async move { out })
    }

    fn delete_table<'a>(&'a self, table: &'a str) -> BoxFuture<'a, Result<(), Error>> {
        let out = Embedded::delete_table(self, table);
        Box::pin(async move { out })
    }

    fn stream_arn<'a>(&'a self, table: &'a str) -> BoxFuture<'a, Result<Option<String>, Error>> {
        let out = self.stream_arn_of(table);
        Box::pin(async move { out })
    }
}
