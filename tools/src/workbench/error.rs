//! What a model could not be read, built or loaded for.

/// What a model could not be read, built or loaded for.
///
/// ```
/// use singletable::workbench::{Error, Model};
///
/// let err = Model::from_json(r#"{"ModelName": "App"}"#).unwrap_err();
/// assert!(matches!(err, Error::Json(_)));
/// assert!(err.to_string().starts_with("not a NoSQL Workbench model"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The JSON is not a Workbench model (or an item not DynamoDB JSON).
    #[error("not a NoSQL Workbench model: {0}")]
    Json(#[from] serde_json::Error),
    /// The model has no table of that name.
    #[error("the model has no table `{0}`")]
    NoTable(String),
    /// An item of the model lacks one of the table's key attributes, or
    /// holds it with another type than the table declares. Nothing of the
    /// table was written.
    #[error("item {item} of table `{table}` {}", key_problem(attribute, expected, *found))]
    KeyAttribute {
        /// The model's table.
        table: String,
        /// The item's position in [`DataModel::items`](super::DataModel::items).
        item: usize,
        /// The key attribute.
        attribute: String,
        /// Its type in the model's `KeyAttributes`.
        expected: String,
        /// The type the item holds, `None` when it has none.
        found: Option<&'static str>,
    },
    /// A sample entity could not be encoded (`Entity::to_item` failed).
    #[error("sample of `{entity}` does not encode: {source}")]
    Encode {
        /// The entity type.
        entity: &'static str,
        /// Why.
        source: Box<singletable_runtime::Error>,
    },
    /// DynamoDB (or the embedded backend) refused an item; the items before
    /// it were written.
    #[error("writing item {item} of table `{table}`: {source}")]
    Write {
        /// The model's table.
        table: String,
        /// The item's position in [`DataModel::items`](super::DataModel::items).
        item: usize,
        /// What the backend answered.
        source: Box<singletable_runtime::Error>,
    },
}

fn key_problem(attribute: &str, expected: &str, found: Option<&str>) -> String {
    match found {
        None => format!("has no key attribute `{attribute}` of type {expected}"),
        Some(t) => format!("holds key attribute `{attribute}` as {t}, not {expected}"),
    }
}
