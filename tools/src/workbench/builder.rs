//! The declared design exported as a model: tables as declared, a facet
//! per entity, sample items.

use std::any::TypeId;

use singletable_runtime::design::EntityShape;
use singletable_runtime::value::type_name;
use singletable_runtime::{Entity, GlobalIndex, Item, LocalIndex, Table};

use crate::definition::{Billing, IndexDef, TableDefinition};

use super::error::Error;
use super::format::{
    Attribute, DataAccess, DataModel, Facet, Index, KeyAttributeAlias, KeyAttributes, Model,
    ModelMetadata,
};

impl Model {
    /// A builder of the model of the declared design: tables, facets,
    /// sample items.
    ///
    /// ```
    /// use singletable::workbench::Model;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    ///
    /// let model = Model::builder("Shop").table::<App>().build();
    /// assert_eq!((model.model_name.as_str(), model.data_model.len()), ("Shop", 1));
    /// ```
    pub fn builder(name: impl Into<String>) -> ModelBuilder {
        let now = workbench_date(&<String as singletable_runtime::clock::Timestamp>::now());
        ModelBuilder {
            name: name.into(),
            metadata: ModelMetadata {
                author: String::new(),
                date_created: now.clone(),
                date_last_modified: now,
                description: String::new(),
                aws_service: "Amazon DynamoDB".into(),
                version: "3.0".into(),
            },
            tables: Vec::new(),
        }
    }
}

/// Builds a [`Model`] of declared tables: [`Model::builder`], then
/// [`table`](Self::table) for each table, [`sample`](Self::sample) for each
/// sample item (which adds its entity's table and facet when missing), and
/// [`build`](Self::build).
///
/// ```
/// use singletable::workbench::Model;
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String, pub age: u8 }
///
/// let model = Model::builder("App")
///     .description("Users and their profiles")
///     .sample(&User { id: "ana".into(), age: 41 })?
///     .build();
/// let table = &model.data_model[0];
/// assert_eq!(model.model_metadata.description, "Users and their profiles");
/// assert_eq!(table.table_facets[0].table_data, table.table_data);
/// // Types come from the samples: `age` is a number.
/// assert!(table.non_key_attributes.iter().any(|a| a.attribute_name == "age" && a.attribute_type == "N"));
/// # Ok::<(), singletable::workbench::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ModelBuilder {
    name: String,
    metadata: ModelMetadata,
    tables: Vec<Draft>,
}

/// A table as declared, with the facets and samples given so far.
#[derive(Debug, Clone)]
struct Draft {
    id: TypeId,
    definition: TableDefinition,
    entity_type: &'static str,
    ttl: Option<&'static str>,
    globals: &'static [GlobalIndex],
    locals: &'static [LocalIndex],
    entities: Vec<EntityShape>,
    /// (facet, item).
    samples: Vec<(&'static str, Item)>,
}

impl ModelBuilder {
    /// Sets the author.
    ///
    /// ```
    /// # use singletable::workbench::Model;
    /// assert_eq!(Model::builder("App").author("Ana").build().model_metadata.author, "Ana");
    /// ```
    pub fn author(mut self, author: impl Into<String>) -> Self {
        self.metadata.author = author.into();
        self
    }

    /// Sets the description.
    ///
    /// ```
    /// # use singletable::workbench::Model;
    /// let model = Model::builder("App").description("The shop").build();
    /// assert_eq!(model.model_metadata.description, "The shop");
    /// ```
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.metadata.description = description.into();
        self
    }

    /// Sets the dates created and last modified (now, by default), for an
    /// export that does not change from one run to the next.
    ///
    /// ```
    /// # use singletable::workbench::Model;
    /// let model = Model::builder("App").dated("Jan 02, 2025, 09:30 AM").build();
    /// assert_eq!(model.model_metadata.date_last_modified, "Jan 02, 2025, 09:30 AM");
    /// ```
    pub fn dated(mut self, date: impl Into<String>) -> Self {
        self.metadata.date_created = date.into();
        self.metadata.date_last_modified = self.metadata.date_created.clone();
        self
    }

    /// Adds table `T` as declared (under its declared name), with a facet
    /// for each entity of `#[table(entities(...))]`; a second call for the
    /// same table changes nothing.
    ///
    /// ```
    /// # use singletable::workbench::Model;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// let model = Model::builder("App").table::<App>().table::<App>().build();
    /// assert_eq!(model.data_model.len(), 1);
    /// ```
    pub fn table<T: Table>(mut self) -> Self {
        self.draft::<T>();
        self
    }

    fn draft<T: Table>(&mut self) -> &mut Draft {
        let id = TypeId::of::<T>();
        let at = match self.tables.iter().position(|t| t.id == id) {
            Some(at) => at,
            None => {
                self.tables.push(Draft {
                    id,
                    definition: TableDefinition::of::<T>(T::NAME, Billing::OnDemand),
                    entity_type: T::ENTITY_TYPE,
                    ttl: T::TTL,
                    globals: T::GLOBAL_INDEXES,
                    locals: T::LOCAL_INDEXES,
                    entities: T::ENTITIES.to_vec(),
                    samples: Vec::new(),
                });
                self.tables.len() - 1
            }
        };
        &mut self.tables[at]
    }

    /// Adds `item` as a sample: encoded as the table stores it, in its
    /// entity's facet and in the table's data. The entity's table and
    /// facet are added when missing.
    ///
    /// ```
    /// use singletable::workbench::{Error, Model};
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String, #[attr(min_len = 1)] pub name: String }
    ///
    /// let model = Model::builder("App").sample(&User { id: "ana".into(), name: "Ana".into() })?.build();
    /// assert_eq!(model.data_model[0].table_data[0]["PK"].as_s().unwrap(), "USER#ana");
    /// // A sample the entity refuses to store is refused here too.
    /// let empty = User { id: "bo".into(), name: String::new() };
    /// assert!(matches!(Model::builder("App").sample(&empty), Err(Error::Encode { entity: "User", .. })));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn sample<E: Entity>(mut self, item: &E) -> Result<Self, Error> {
        let encoded = item
            .validate()
            .and_then(|()| item.to_item())
            .map_err(|e| Error::Encode {
                entity: E::ENTITY_TYPE,
                source: Box::new(e),
            })?;
        let draft = self.draft::<E::Table>();
        if !draft.entities.iter().any(|e| e.name == E::SHAPE.name) {
            draft.entities.push(E::SHAPE);
        }
        draft.samples.push((E::SHAPE.name, encoded));
        Ok(self)
    }

    /// The model.
    ///
    /// ```
    /// # use singletable::workbench::Model;
    /// let model = Model::builder("Empty").build();
    /// assert!(model.data_model.is_empty());
    /// ```
    pub fn build(self) -> Model {
        Model {
            model_name: self.name,
            model_metadata: self.metadata,
            data_model: self.tables.iter().map(Draft::build).collect(),
        }
    }
}

fn attribute(name: &str, kind: &str) -> Attribute {
    Attribute {
        attribute_name: name.to_owned(),
        attribute_type: kind.to_owned(),
    }
}

fn push_new(names: &mut Vec<String>, name: &str) {
    if !names.iter().any(|n| n == name) {
        names.push(name.to_owned());
    }
}

impl Draft {
    fn is_key(&self, name: &str) -> bool {
        self.definition
            .key_schema
            .iter()
            .any(|k| k.attribute_name == name)
    }

    /// Whether the table's items store its entity-type attribute: some
    /// entity writes it (or none is declared yet, so nothing says they
    /// do not). An `#[entity(untyped)]` entity's items have none.
    fn stores_type(&self) -> bool {
        self.entities.is_empty() || self.entities.iter().any(|e| e.writes_type)
    }

    /// The declared type of an attribute: `N` for the TTL attribute, `S`
    /// for the entity type, a key attribute's as the table defines it,
    /// else as an entity's field type declares it
    /// (`EntityShape::attribute_types`: a `#[derive(Document)]` field is
    /// `M`, a list `L`, a set `SS` or `NS`).
    fn declared_type(&self, name: &str) -> Option<&str> {
        if Some(name) == self.ttl {
            return Some("N");
        }
        if name == self.entity_type && self.stores_type() {
            return Some("S");
        }
        self.definition
            .attribute_definitions
            .iter()
            .find(|a| a.attribute_name == name)
            .map(|a| a.attribute_type.as_str())
            .or_else(|| {
                self.entities.iter().find_map(|e| {
                    let at = e.attributes.iter().position(|a| *a == name)?;
                    e.attribute_types.get(at).copied().flatten()
                })
            })
    }

    fn facet(&self, shape: &EntityShape) -> Facet {
        let mut names = Vec::new();
        if shape.writes_type {
            names.push(self.entity_type.to_owned());
        }
        for g in self.globals {
            if let Some(ix) = shape.index(&format!("gsi{}", g.number)) {
                if ix.pk.is_some() {
                    push_new(&mut names, g.pk);
                }
                if let (Some(_), Some(sk)) = (ix.sk, g.sk) {
                    push_new(&mut names, sk);
                }
            }
        }
        for l in self.locals {
            if shape.index(&format!("lsi{}", l.number)).is_some() {
                push_new(&mut names, l.sk);
            }
        }
        for a in shape.attributes {
            push_new(&mut names, a);
        }
        let samples: Vec<Item> = self
            .samples
            .iter()
            .filter(|(facet, _)| *facet == shape.name)
            .map(|(_, item)| item.clone())
            .collect();
        // What the samples hold beyond the declaration (schema versions,
        // timestamps), in name order.
        for item in &samples {
            let mut extra: Vec<&String> = item.keys().filter(|k| !self.is_key(k)).collect();
            extra.sort();
            for a in extra {
                push_new(&mut names, a);
            }
        }
        names.retain(|n| !self.is_key(n));
        Facet {
            facet_name: shape.name.to_owned(),
            key_attribute_alias: KeyAttributeAlias {
                partition_key_alias: shape.pk.template.to_owned(),
                sort_key_alias: shape
                    .sk
                    .filter(|_| self.definition.key_schema.len() > 1)
                    .map(|k| k.template.to_owned()),
            },
            table_data: samples,
            non_key_attributes: names,
            data_access: DataAccess::default(),
        }
    }

    fn index(&self, def: &IndexDef) -> Index {
        let key = |kind: &str| {
            def.key_schema.iter().find(|k| k.key_type == kind).map(|k| {
                let t = self.declared_type(&k.attribute_name).unwrap_or("S");
                attribute(&k.attribute_name, t)
            })
        };
        Index {
            index_name: def.index_name.clone(),
            key_attributes: KeyAttributes {
                partition_key: key("HASH")
                    .unwrap_or_else(|| unreachable!("an index has a partition key")),
                sort_key: key("RANGE"),
            },
            projection: def.projection.clone(),
        }
    }

    fn build(&self) -> DataModel {
        let def = &self.definition;
        let facets: Vec<Facet> = self.entities.iter().map(|e| self.facet(e)).collect();
        // Index keys, the entity type (when items store it) and TTL
        // attributes, then what the facets list; typed as declared (the
        // table's definitions, the entities' field types), else as the
        // first sample holding the attribute stores it, else as a string.
        let mut names: Vec<String> = Vec::new();
        for a in &def.attribute_definitions {
            push_new(&mut names, &a.attribute_name);
        }
        if self.stores_type() {
            push_new(&mut names, self.entity_type);
        }
        if let Some(ttl) = self.ttl {
            push_new(&mut names, ttl);
        }
        for f in &facets {
            for n in &f.non_key_attributes {
                push_new(&mut names, n);
            }
        }
        let non_key_attributes = names
            .iter()
            .filter(|n| !self.is_key(n))
            .map(|n| {
                let sampled = || {
                    self.samples
                        .iter()
                        .find_map(|(_, item)| item.get(n.as_str()).map(type_name))
                };
                attribute(n, self.declared_type(n).or_else(sampled).unwrap_or("S"))
            })
            .collect();
        let key = |k: &str| attribute(k, self.declared_type(k).unwrap_or("S"));
        DataModel {
            table_name: def.table_name.clone(),
            key_attributes: KeyAttributes {
                partition_key: key(&def.key_schema[0].attribute_name),
                sort_key: def.key_schema.get(1).map(|k| key(&k.attribute_name)),
            },
            non_key_attributes,
            table_facets: facets,
            global_secondary_indexes: def
                .global_secondary_indexes
                .iter()
                .map(|i| self.index(i))
                .collect(),
            local_secondary_indexes: def
                .local_secondary_indexes
                .iter()
                .map(|i| self.index(i))
                .collect(),
            table_data: self.samples.iter().map(|(_, item)| item.clone()).collect(),
            data_access: DataAccess::default(),
            billing_mode: Some(def.billing_mode.clone()),
            provisioned_capacity_settings: None,
        }
    }
}

/// `2024-05-01T13:05:00Z` as Workbench writes dates: `May 01, 2024, 01:05 PM`.
fn workbench_date(rfc3339: &str) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let part = |from: usize, to: usize| rfc3339.get(from..to).and_then(|s| s.parse::<usize>().ok());
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute)) = (
        part(0, 4),
        part(5, 7),
        part(8, 10),
        part(11, 13),
        part(14, 16),
    ) else {
        return rfc3339.to_owned();
    };
    let month = MONTHS.get(month.wrapping_sub(1)).copied().unwrap_or("Jan");
    let (hour, half) = match hour {
        0 => (12, "AM"),
        1..=11 => (hour, "AM"),
        12 => (12, "PM"),
        _ => (hour - 12, "PM"),
    };
    format!("{month} {day:02}, {year}, {hour:02}:{minute:02} {half}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_written_as_workbench_writes_them() {
        assert_eq!(
            workbench_date("2020-06-22T23:55:00Z"),
            "Jun 22, 2020, 11:55 PM"
        );
        assert_eq!(
            workbench_date("2024-01-02T00:05:09Z"),
            "Jan 02, 2024, 12:05 AM"
        );
        assert_eq!(
            workbench_date("2024-12-31T12:00:00Z"),
            "Dec 31, 2024, 12:00 PM"
        );
        assert_eq!(workbench_date("garbage"), "garbage");
    }
}
