//! The keys and names of the marker items that unique values keep: the
//! library's layout as associated constants of [`MarkerKey`], and the key
//! of one value's marker, in either layout.

use super::{Entity, MarkerKey, Table, UniqueField};
use crate::error::Error;
use crate::key::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, PrimaryKey, check_len, escape_into};

impl MarkerKey {
    /// The entity type of marker items in the library's layout.
    ///
    /// ```
    /// assert_eq!(singletable::unique::MarkerKey::TYPE, "singletable.unique");
    /// ```
    pub const TYPE: &'static str = "singletable.unique";
    /// The literal first segment of every marker's partition key in the
    /// library's layout.
    ///
    /// ```
    /// assert_eq!(singletable::unique::MarkerKey::PREFIX, "UNIQUE");
    /// ```
    pub const PREFIX: &'static str = "UNIQUE";
    /// The sort key of every marker in the library's layout, in tables
    /// with a sort key.
    ///
    /// ```
    /// assert_eq!(singletable::unique::MarkerKey::SK, "UNIQUE");
    /// ```
    pub const SK: &'static str = "UNIQUE";
    /// The marker attribute holding the owner's partition key (library
    /// layout).
    ///
    /// ```
    /// assert_eq!(singletable::unique::MarkerKey::OWNER_PK, "ownerPk");
    /// ```
    pub const OWNER_PK: &'static str = "ownerPk";
    /// The marker attribute holding the owner's sort key (library layout).
    ///
    /// ```
    /// assert_eq!(singletable::unique::MarkerKey::OWNER_SK, "ownerSk");
    /// ```
    pub const OWNER_SK: &'static str = "ownerSk";

    /// The key of the marker of `part` (a value of `field` of entity `E`):
    /// `UNIQUE#<entity>#<attribute>#<part>` and `UNIQUE` in the library's
    /// layout, the declared template's text (as both keys) for a field
    /// declaring one. Refused, like every key, past DynamoDB's key lengths.
    ///
    /// ```
    /// # use singletable::{Entity, Table};
    /// use singletable::unique::MarkerKey;
    ///
    /// #[derive(Table)]
    /// #[table(name = "App")]
    /// struct App;
    ///
    /// #[derive(Entity)]
    /// #[entity(table = App, rename_all = "camelCase")]
    /// #[pk("USER#<id>")]
    /// #[sk("PROFILE")]
    /// struct User {
    ///     id: String,
    ///     #[attr(unique)]
    ///     email: String,
    /// }
    ///
    /// let email = &<User as Entity>::UNIQUE[0];
    /// let key = MarkerKey::of::<User>(email, "ana@example.com").unwrap();
    /// assert_eq!(key.pk, "UNIQUE#User#email#ana@example.com");
    /// assert_eq!(key.sk.as_deref(), Some("UNIQUE"));
    /// ```
    ///
    /// `part` is the value as the key codec writes it (`a%23b` for the string
    /// `a#b`): this function takes it as it is.
    pub fn of<E: Entity>(field: &UniqueField, part: &str) -> Result<PrimaryKey, Error> {
        let (pk, sk) = match &field.marker {
            // A declared marker: the template's text, as partition and sort key.
            Some(m) => {
                let pk = format!("{}{part}{}", m.before, m.after);
                (pk.clone(), pk)
            }
            None => (library_pk::<E>(field, part)?, Self::SK.to_owned()),
        };
        // DynamoDB's limits on both key attributes, checked as every key
        // builder checks its key: a declared marker's text is its sort key
        // too, so past 1024 bytes it is refused like any other long sort key.
        let (pk_attr, sk_attr) = (<E::Table as Table>::PK, <E::Table as Table>::SK);
        check_len(E::ENTITY_TYPE, pk_attr, &pk, MAX_PARTITION_KEY_BYTES)?;
        if let Some(attr) = sk_attr {
            check_len(E::ENTITY_TYPE, attr, &sk, MAX_SORT_KEY_BYTES)?;
        }
        Ok(PrimaryKey {
            pk,
            sk: sk_attr.map(|_| sk),
        })
    }
}

/// `UNIQUE#<entity>#<attribute>#<part>`, the partition key of a marker in
/// the library's layout.
fn library_pk<E: Entity>(field: &UniqueField, part: &str) -> Result<String, Error> {
    let mut pk = String::with_capacity(MarkerKey::PREFIX.len() + part.len() + 32);
    pk.push_str(MarkerKey::PREFIX);
    pk.push('#');
    let escape = |value: &str, out: &mut String| {
        escape_into(value, out).map_err(|reason| Error::KeyValue {
            entity: E::ENTITY_TYPE,
            field: field.field,
            reason,
        })
    };
    escape(E::ENTITY_TYPE, &mut pk)?;
    pk.push('#');
    escape(field.attribute, &mut pk)?;
    pk.push('#');
    pk.push_str(part);
    Ok(pk)
}
