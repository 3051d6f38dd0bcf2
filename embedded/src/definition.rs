//! A [`TableDefinition`] (what CreateTable, DescribeTable and UpdateTable
//! speak, and what the `Admin` trait takes) turned into the engine's
//! [`TableSchema`] and back.

use singletable_core::definition::{
    self, IndexDef, KeyElement, ProjectionDef, SearchSchemaElementDef, TableDefinition,
    VectorAttributeDef, VectorIndexDef,
};
use singletable_core::vector::Distance;

use super::error::{Fail, Res};
use super::schema::VectorIndexSchema;
use super::schema::{IndexProjection, IndexSchema, KeyAttr, KeyType, TableSchema};
use crate::error::Error;

fn projection_of(p: &ProjectionDef) -> Res<IndexProjection> {
    match p.projection_type.as_str() {
        "ALL" => Ok(IndexProjection::All),
        "KEYS_ONLY" => Ok(IndexProjection::KeysOnly),
        "INCLUDE" => Ok(IndexProjection::Include(
            p.non_key_attributes.clone().unwrap_or_default(),
        )),
        other => Err(Fail::validation(format!(
            "Unknown projection type: {other}"
        ))),
    }
}

fn projection_def(p: &IndexProjection) -> ProjectionDef {
    let (kind, attrs) = match p {
        IndexProjection::All => ("ALL", None),
        IndexProjection::KeysOnly => ("KEYS_ONLY", None),
        IndexProjection::Include(a) => ("INCLUDE", Some(a.clone())),
    };
    ProjectionDef {
        projection_type: kind.to_owned(),
        non_key_attributes: attrs,
    }
}

/// The attribute's declared type in `def`'s `AttributeDefinitions`.
fn attr(def: &TableDefinition, name: &str) -> Res<KeyAttr> {
    let a = def
        .attribute_definitions
        .iter()
        .find(|a| a.attribute_name == name)
        .ok_or_else(|| {
            Fail::validation(format!(
                "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [{name}]"
            ))
        })?;
    let kind = KeyType::from_name(&a.attribute_type).ok_or_else(|| {
        Fail::validation(format!(
            "Member must satisfy enum value set: [B, N, S] (attribute {name}: {})",
            a.attribute_type
        ))
    })?;
    Ok(KeyAttr {
        name: name.to_owned(),
        kind,
    })
}

/// A key schema's HASH attributes and RANGE attributes, in order.
fn split_keys(def: &TableDefinition, keys: &[KeyElement]) -> Res<(Vec<KeyAttr>, Vec<KeyAttr>)> {
    let (mut hash, mut range) = (Vec::new(), Vec::new());
    for k in keys {
        let a = attr(def, &k.attribute_name)?;
        match k.key_type.as_str() {
            "HASH" => hash.push(a),
            "RANGE" => range.push(a),
            other => {
                return Err(Fail::validation(format!(
                    "Member must satisfy enum value set: [HASH, RANGE] (key type {other})"
                )));
            }
        }
    }
    Ok((hash, range))
}

fn index_of(def: &TableDefinition, ix: &IndexDef, global: bool) -> Res<IndexSchema> {
    let (mut hash, mut range) = split_keys(def, &ix.key_schema)?;
    if hash.is_empty() {
        return Err(Fail::validation(format!(
            "Index {} has no partition (HASH) key",
            ix.index_name
        )));
    }
    let pk = hash.remove(0);
    let sk = (!range.is_empty()).then(|| range.remove(0));
    Ok(IndexSchema {
        name: ix.index_name.clone(),
        global,
        pk,
        sk,
        pk_rest: hash,
        sk_rest: range,
        projection: projection_of(&ix.projection)?,
    })
}

fn vector_of(def: &TableDefinition, v: &VectorIndexDef) -> Res<VectorIndexSchema> {
    let (mut hash, mut filter) = (Vec::new(), Vec::new());
    for e in &v.search_schema {
        let a = attr(def, &e.attribute_name)?;
        match e.search_schema_element_type.as_str() {
            "HASH" => hash.push(a),
            "INLINE_FILTER" => filter.push(a),
            other => {
                return Err(Fail::validation(format!(
                    "Member must satisfy enum value set: [HASH, INLINE_FILTER] (search schema element type {other})"
                )));
            }
        }
    }
    let distance = Distance::from_name(&v.distance_function).ok_or_else(|| {
        Fail::validation(format!(
            "Member must satisfy enum value set: [COSINE, EUCLIDEAN, DOT_PRODUCT] (distance function {})",
            v.distance_function
        ))
    })?;
    Ok(VectorIndexSchema {
        name: v.index_name.clone(),
        attribute: v.vector_attribute.attribute_name.clone(),
        dimensions: v.dimensions,
        distance,
        hash,
        filter,
        projection: projection_of(&v.projection)?,
    })
}

fn keys_def(
    hash: impl Iterator<Item = String>,
    range: impl Iterator<Item = String>,
) -> Vec<KeyElement> {
    let element = |attribute_name: String, key_type: &str| KeyElement {
        attribute_name,
        key_type: key_type.to_owned(),
    };
    hash.map(|a| element(a, "HASH"))
        .chain(range.map(|a| element(a, "RANGE")))
        .collect()
}

impl TableSchema {
    /// The layout CreateTable's input `definition` describes: its key
    /// schema with the types its `AttributeDefinitions` give, every global
    /// and local index with its projection, the vector indexes, the
    /// stream. Billing and TTL are not part of a layout (see
    /// [`Embedded::set_time_to_live`](crate::Embedded::set_time_to_live)). A definition DynamoDB would refuse
    /// (a key attribute without a definition, an unknown projection type,
    /// key type or distance function) is a `ValidationException`.
    ///
    /// ```
    /// use singletable::definition::{Billing, TableDefinition};
    /// use singletable::embedded::TableSchema;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App", gsi1(keys_only), lsi1)]
    /// # pub struct App;
    ///
    /// let def = TableDefinition::of::<App>("App", Billing::OnDemand);
    /// let schema = TableSchema::from_definition(&def)?;
    /// assert_eq!(schema, TableSchema::of::<App>());
    /// assert_eq!(schema.definition("App"), def);
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn from_definition(definition: &TableDefinition) -> Result<Self, Error> {
        Self::from_def(definition).map_err(|e| e.into_error("CreateTable"))
    }

    pub(crate) fn from_def(def: &TableDefinition) -> Res<Self> {
        let (mut hash, mut range) = split_keys(def, &def.key_schema)?;
        if hash.len() != 1 || range.len() > 1 {
            return Err(Fail::validation(
                "Invalid KeySchema: the table's key schema is one HASH key and at most one RANGE key",
            ));
        }
        let mut indexes = Vec::new();
        for g in &def.global_secondary_indexes {
            indexes.push(index_of(def, g, true)?);
        }
        for l in &def.local_secondary_indexes {
            indexes.push(index_of(def, l, false)?);
        }
        Ok(Self {
            pk: hash.remove(0),
            sk: range.pop(),
            indexes,
            stream: def.stream_view(),
            vectors: def
                .vector_indexes
                .iter()
                .map(|v| vector_of(def, v))
                .collect::<Res<_>>()?,
        })
    }

    /// This layout as DescribeTable would describe table `table`, in
    /// CreateTable's shape: on-demand billing, no TTL (the table's own
    /// setting, which `Admin::describe_table` adds). The inverse of
    /// [`TableSchema::from_definition`].
    ///
    /// ```
    /// use singletable::embedded::{KeyAttr, KeyType, TableSchema};
    ///
    /// let numeric = TableSchema { pk: KeyAttr { name: "id".into(), kind: KeyType::N }, sk: None, indexes: vec![], stream: None, vectors: vec![] };
    /// let def = numeric.definition("Numbers");
    /// assert_eq!(def.attribute_definitions[0].attribute_type, "N");
    /// assert_eq!(def.billing_mode, "PAY_PER_REQUEST");
    /// ```
    pub fn definition(&self, table: &str) -> TableDefinition {
        let mut attrs: Vec<&KeyAttr> = self.table_keys().collect();
        for ix in &self.indexes {
            attrs.extend(ix.keys());
        }
        for v in &self.vectors {
            attrs.extend(v.hash.iter().chain(&v.filter));
        }
        attrs.sort_by(|a, b| a.name.cmp(&b.name));
        attrs.dedup_by(|a, b| a.name == b.name);
        let index = |ix: &IndexSchema| IndexDef {
            index_name: ix.name.clone(),
            key_schema: keys_def(
                ix.hash_keys().map(|k| k.name.clone()),
                ix.range_keys().map(|k| k.name.clone()),
            ),
            projection: projection_def(&ix.projection),
            provisioned_throughput: None,
        };
        let schema_element = |a: &KeyAttr, kind: &str| SearchSchemaElementDef {
            attribute_name: a.name.clone(),
            search_schema_element_type: kind.to_owned(),
        };
        TableDefinition {
            table_name: table.to_owned(),
            attribute_definitions: attrs
                .into_iter()
                .map(|a| definition::AttributeDefinition {
                    attribute_name: a.name.clone(),
                    attribute_type: a.kind.as_str().to_owned(),
                })
                .collect(),
            key_schema: keys_def(
                std::iter::once(self.pk.name.clone()),
                self.sk.iter().map(|k| k.name.clone()),
            ),
            global_secondary_indexes: self
                .indexes
                .iter()
                .filter(|ix| ix.global)
                .map(index)
                .collect(),
            local_secondary_indexes: self
                .indexes
                .iter()
                .filter(|ix| !ix.global)
                .map(index)
                .collect(),
            vector_indexes: self
                .vectors
                .iter()
                .map(|v| VectorIndexDef {
                    index_name: v.name.clone(),
                    vector_attribute: VectorAttributeDef {
                        attribute_name: v.attribute.clone(),
                    },
                    dimensions: v.dimensions,
                    distance_function: v.distance.name().to_owned(),
                    search_schema: v
                        .hash
                        .iter()
                        .map(|a| schema_element(a, "HASH"))
                        .chain(v.filter.iter().map(|a| schema_element(a, "INLINE_FILTER")))
                        .collect(),
                    projection: projection_def(&v.projection),
                })
                .collect(),
            billing_mode: "PAY_PER_REQUEST".to_owned(),
            provisioned_throughput: None,
            stream_specification: self.stream.map(definition::StreamSpecification::enabled),
            ttl_attribute: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use singletable::Table;
    use singletable_core::definition::{Billing, TableDefinition};

    use crate::TableSchema;

    #[derive(Table)]
    #[table(
        name = "Everything",
        gsi1(keys_only),
        gsi2(include(title, size)),
        gsi3(pk(tenant = S, region = S), sk(size = N, title = S)),
        lsi1,
        lsi2(keys_only),
        vector1(name = "Similar", dimensions = 3, distance = euclidean, hash(tenant = S), filter(size = N)),
        stream = keys_only,
        ttl = "expiresAt"
    )]
    pub struct Everything;

    #[derive(Table)]
    #[table(name = "Plain")]
    pub struct Plain;

    #[derive(Table)]
    #[table(name = "NoSortKey", no_sk, gsi1(pk(email = S)))]
    pub struct NoSortKey;

    /// `TableSchema::of::<T>()` and the definition converted agree, and
    /// the way back gives the definition again (but TTL, which is not
    /// part of a layout).
    fn agree<T: singletable_core::entity::Table>() {
        let def = TableDefinition::of::<T>(T::NAME, Billing::OnDemand);
        let schema = TableSchema::from_definition(&def).unwrap();
        assert_eq!(schema, TableSchema::of::<T>(), "{}", T::NAME);
        let back = TableDefinition {
            ttl_attribute: def.ttl_attribute.clone(),
            ..schema.definition(T::NAME)
        };
        assert_eq!(back, def, "{}", T::NAME);
    }

    #[test]
    fn table_schema_of_a_declaration_is_its_definition_converted() {
        agree::<Everything>();
        agree::<Plain>();
        agree::<NoSortKey>();
    }

    #[test]
    fn definitions_dynamodb_would_refuse_are_validation_errors() {
        let mut def = TableDefinition::of::<Everything>("Everything", Billing::OnDemand);
        def.attribute_definitions
            .retain(|a| a.attribute_name != "tenant");
        let err = TableSchema::from_definition(&def).unwrap_err();
        assert_eq!(err.code(), Some("ValidationException"));
        assert!(err.to_string().contains("tenant"), "{err}");

        let mut def = TableDefinition::of::<Plain>("Plain", Billing::OnDemand);
        def.key_schema[0].key_type = "SORT".into();
        let err = TableSchema::from_definition(&def).unwrap_err();
        assert_eq!(err.code(), Some("ValidationException"));
    }
}
