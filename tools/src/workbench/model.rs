//! A model read: parsed from its JSON, written back, and its tables'
//! items loaded into a table of either backend.

use singletable_runtime::exec::Executor;
use singletable_runtime::request::PutItem;
use singletable_runtime::value::type_name;
use singletable_runtime::{Db, Item};

use super::error::Error;
use super::format::{DataModel, Facet, Model};

impl Model {
    /// Parses a model from its JSON (a Workbench export, or AWS's sample
    /// models).
    ///
    /// ```
    /// use singletable::workbench::{Error, Model};
    ///
    /// // An item that is not DynamoDB JSON is refused.
    /// let err = Model::from_json(r#"{
    ///   "ModelName": "M",
    ///   "DataModel": [{
    ///     "TableName": "T",
    ///     "KeyAttributes": { "PartitionKey": { "AttributeName": "id", "AttributeType": "S" } },
    ///     "TableData": [ { "id": "plain" } ]
    ///   }]
    /// }"#).unwrap_err();
    /// assert!(matches!(err, Error::Json(_)));
    /// ```
    pub fn from_json(json: &str) -> Result<Self, Error> {
        Ok(serde_json::from_str(json)?)
    }

    /// The model as the pretty-printed JSON Workbench imports.
    ///
    /// ```
    /// use singletable::workbench::Model;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    ///
    /// let json = Model::builder("App").table::<App>().build().to_json();
    /// let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    /// assert_eq!(value["DataModel"][0]["KeyAttributes"]["PartitionKey"]["AttributeName"], "PK");
    /// assert_eq!(value["DataModel"][0]["DataAccess"], serde_json::json!({ "MySql": {} }));
    /// ```
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| unreachable!("plain data serializes"))
    }

    /// The table named `name`.
    ///
    /// ```
    /// use singletable::workbench::Model;
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    ///
    /// let model = Model::builder("App").table::<App>().build();
    /// assert!(model.table("App").is_some() && model.table("Other").is_none());
    /// ```
    pub fn table(&self, name: &str) -> Option<&DataModel> {
        self.data_model.iter().find(|t| t.table_name == name)
    }

    /// Writes the items of the model's table `table` into `db`'s table
    /// (see [`DataModel::load`]); how many were written.
    ///
    /// ```
    /// use singletable::workbench::{Error, Model};
    /// # use singletable::{Db, Embedded, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// let model = Model::builder("App").table::<App>().build();
    /// assert_eq!(model.load("App", &db).await?, 0);
    /// assert!(matches!(model.load("Other", &db).await, Err(Error::NoTable(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub async fn load<E: Executor>(&self, table: &str, db: &Db<E>) -> Result<usize, Error> {
        let model = self
            .table(table)
            .ok_or_else(|| Error::NoTable(table.to_owned()))?;
        model.load(db).await
    }
}

impl DataModel {
    /// The facet named `name` (an entity type, in exports).
    ///
    /// ```
    /// use singletable::workbench::Model;
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App", entities(User))]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    ///
    /// let model = Model::builder("App").table::<App>().build();
    /// assert!(model.data_model[0].facet("User").is_some());
    /// ```
    pub fn facet(&self, name: &str) -> Option<&Facet> {
        self.table_facets.iter().find(|f| f.facet_name == name)
    }

    /// Every item of the table: its `TableData`, then the items of its
    /// facets whose key is not among them (models keep items in either
    /// place, or both).
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
    /// # pub struct User { pub id: String }
    ///
    /// let mut model = Model::builder("App").sample(&User { id: "ana".into() })?.build();
    /// let table = &mut model.data_model[0];
    /// assert_eq!(table.items().len(), 1); // in the table's data and the facet's
    /// table.table_data.clear();
    /// assert_eq!(table.items().len(), 1); // in the facet's only
    /// # Ok::<(), singletable::workbench::Error>(())
    /// ```
    pub fn items(&self) -> Vec<&Item> {
        let pk = self.key_attributes.partition_key.attribute_name.as_str();
        let sk = self
            .key_attributes
            .sort_key
            .as_ref()
            .map(|k| k.attribute_name.as_str());
        let key = |item: &Item| (item.get(pk).cloned(), sk.and_then(|s| item.get(s)).cloned());
        let mut keys: Vec<_> = self.table_data.iter().map(key).collect();
        let mut items: Vec<&Item> = self.table_data.iter().collect();
        for item in self.table_facets.iter().flat_map(|f| &f.table_data) {
            let k = key(item);
            if !keys.contains(&k) {
                keys.push(k);
                items.push(item);
            }
        }
        items
    }

    /// Writes [`Self::items`] into `db`'s table, one PutItem each (an item
    /// of the same key is replaced); how many were written. Every item is
    /// checked for the table's key attributes first: an item without one
    /// is an [`Error::KeyAttribute`] and nothing is written.
    ///
    /// ```
    /// use singletable::workbench::{Error, Model};
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug, PartialEq)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// let mut model = Model::builder("App").sample(&User { id: "ana".into() })?.build();
    /// assert_eq!(model.data_model[0].load(&db).await?, 1);
    ///
    /// model.data_model[0].table_facets.clear();
    /// model.data_model[0].table_data[0].remove("SK");
    /// let err = model.data_model[0].load(&db).await.unwrap_err();
    /// assert!(matches!(&err, Error::KeyAttribute { attribute, found: None, .. } if attribute == "SK"));
    /// assert_eq!(err.to_string(), "item 0 of table `App` has no key attribute `SK` of type S");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub async fn load<E: Executor>(&self, db: &Db<E>) -> Result<usize, Error> {
        let items = self.items();
        for (i, item) in items.iter().enumerate() {
            self.check_key(i, item)?;
        }
        for (i, item) in items.iter().enumerate() {
            db.executor()
                .put_item(PutItem {
                    table: db.table_name().to_owned(),
                    item: (*item).clone(),
                    condition: None,
                    return_old: false,
                    return_on_condition_failure: false,
                })
                .await
                .map_err(|e| Error::Write {
                    table: self.table_name.clone(),
                    item: i,
                    source: Box::new(e),
                })?;
        }
        Ok(items.len())
    }

    fn check_key(&self, i: usize, item: &Item) -> Result<(), Error> {
        let keys = &self.key_attributes;
        for key in std::iter::once(&keys.partition_key).chain(&keys.sort_key) {
            let found = item.get(&key.attribute_name).map(type_name);
            if found != Some(key.attribute_type.as_str()) {
                return Err(Error::KeyAttribute {
                    table: self.table_name.clone(),
                    item: i,
                    attribute: key.attribute_name.clone(),
                    expected: key.attribute_type.clone(),
                    found,
                });
            }
        }
        Ok(())
    }
}
