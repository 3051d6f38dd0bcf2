//! Reading pages into typed items: projections (`Projected`) and the
//! collector every page read goes through.

use super::*;

/// An item of entity `E` as an index with an `INCLUDE` projection holds
/// it: its primary key and the projected attributes, decoded as the
/// `#[derive(Document)]` type `D` (`#[access(name, index = gsiN, select =
/// D)]`). The derive checks at compile time that the index projects every
/// attribute `D` reads ([`Document::ATTRIBUTES`](crate::nested::Document::ATTRIBUTES)).
///
/// ```
/// use singletable::{Db, Document, Embedded, Entity, Projected, Table};
///
/// #[derive(Table)]
/// #[table(name = "Shop", gsi1(include(title, price)))]
/// pub struct Shop;
///
/// #[derive(Entity)]
/// #[entity(table = Shop)]
/// #[pk("PRODUCT#<id>")]
/// #[sk("PRODUCT")]
/// #[gsi1(pk = "CATEGORY#<category>", sk = "PRODUCT#<id>")]
/// #[access(listing, index = gsi1, select = Listing)]
/// pub struct Product { pub id: String, pub category: String, pub title: String, pub price: u32, pub description: String }
///
/// /// What the category index shows of a product.
/// #[derive(Document, Debug, PartialEq)]
/// pub struct Listing { pub title: String, pub price: u32 }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// db.put(&Product { id: "p1".into(), category: "tea".into(), title: "Sencha".into(), price: 12, description: "…".into() }).await?;
/// let listed: Vec<Projected<Product, Listing>> = Product::listing("tea").all(&db).await?;
/// assert_eq!(listed[0].item, Listing { title: "Sencha".into(), price: 12 });
/// assert_eq!(listed[0].key, Product::key("p1")?);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
pub struct Projected<E, D> {
    /// The item's primary key, checked against `E`'s key templates.
    pub key: crate::key::PrimaryKey,
    /// The projected attributes.
    pub item: D,
    entity: PhantomData<fn() -> E>,
}

impl<E, D: Clone> Clone for Projected<E, D> {
    fn clone(&self) -> Self {
        Self {
            key: self.key.clone(),
            item: self.item.clone(),
            entity: PhantomData,
        }
    }
}

impl<E, D: PartialEq> PartialEq for Projected<E, D> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && self.item == other.item
    }
}

impl<E: Entity, D: std::fmt::Debug> std::fmt::Debug for Projected<E, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Projected")
            .field("entity", &E::ENTITY_TYPE)
            .field("key", &self.key)
            .field("item", &self.item)
            .finish()
    }
}

impl<E: Entity, D: crate::nested::Document> Decode for Projected<E, D> {
    type Table = E::Table;

    fn decode(item: Item, other: OtherTypes) -> Result<Option<Self>, Error> {
        let Some(key) = singletable_core::__private::own_key::<E>(&item, other)? else {
            return Ok(None);
        };
        let item = D::from_attr(AttributeValue::M(item)).map_err(|source| Error::Decode {
            entity: E::ENTITY_TYPE,
            source,
        })?;
        Ok(Some(Self {
            key,
            item,
            entity: PhantomData,
        }))
    }

    // What `E`'s keys say: the same as a read of the keys alone.
    fn key_matches(pk: &str, sk: Option<&str>) -> bool {
        KeyOf::<E>::key_matches(pk, sk)
    }

    fn ttl_attribute() -> Option<&'static str> {
        KeyOf::<E>::ttl_attribute()
    }

    fn cursor_scope() -> &'static str {
        KeyOf::<E>::cursor_scope()
    }

    fn index_projection(index: &str) -> crate::entity::Projection {
        KeyOf::<E>::index_projection(index)
    }

    fn adopts() -> bool {
        KeyOf::<E>::adopts()
    }
}

/// Decodes items into a vector (see [`Query::read_items`]).
pub(super) struct Collect<'o, T> {
    pub(super) other: OtherTypes,
    pub(super) expiry: crate::ttl::Expiry,
    pub(super) out: &'o mut Vec<T>,
}

impl<T: Decode> ReadEach for Collect<'_, T> {
    fn read_map(&mut self, item: Item) -> Result<(), Error> {
        if self.expiry.hides(&item) {
            return Ok(());
        }
        if let Some(v) = T::decode(item, self.other)? {
            self.out.push(v);
        }
        Ok(())
    }

    #[inline]
    fn read<R: AttrReader + ?Sized>(&mut self, item: &mut R) -> Result<(), Error> {
        let other = self.other;
        // The watch costs a comparison per attribute: only when needed.
        let read = if self.expiry.hides_nothing() {
            T::read(item, other)
        } else {
            match self.expiry.read(item, |r| T::read(r, other)) {
                Some(read) => read,
                None => return Ok(()),
            }
        };
        if let Some(v) = read? {
            self.out.push(v);
        }
        Ok(())
    }
}

/// The error for an item no variant of a collection reads.
pub fn unknown_type(collection: &'static str, item: &Item, attribute: &str) -> Error {
    let found = entity_type_of(item, attribute).unwrap_or("").to_owned();
    Error::Decode {
        entity: collection,
        source: DecodeError::new(DecodeErrorKind::EntityType {
            expected: collection,
            found,
        })
        .at(attribute),
    }
}
