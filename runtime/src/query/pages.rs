//! Pages of results and the cursors that continue them.

use super::*;

/// One page of typed results and the cursor to the next page.
///
/// ```
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1, lsi1)]
/// # pub struct App;
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<user>")]
/// # #[sk("ORDER#<n>")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<n>")]
/// # #[lsi1(sk = "TOTAL#<total>")]
/// # #[access(orders)]
/// # #[access(by_status, index = gsi1)]
/// # #[access(by_total, index = lsi1)]
/// # pub struct Order { pub user: String, pub n: u32, pub status: String, pub total: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// for n in 0..3 {
///     db.put(&Order { user: "ana".into(), n, status: "NEW".into(), total: n }).await?;
/// }
/// let mut cursor = None;
/// let mut seen = 0;
/// loop {
///     // One Query per page; the cursor is opaque and sealed.
///     let page = Order::orders("ana").limit(2).page(&db, cursor.as_ref()).await?;
///     seen += page.items.len();
///     match page.cursor {
///         Some(c) => cursor = Some(c),
///         None => break,
///     }
/// }
/// assert_eq!(seen, 3);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
pub struct Page<T, P = ()> {
    /// Items of this page.
    pub items: Vec<T>,
    /// Opaque, URL-safe cursor to pass to the next `page()` call of the
    /// same access pattern (its type says which); `None` on the last page.
    pub cursor: Option<Cursor<P>>,
    /// DynamoDB's `Count`: the items the response held, after the filter.
    /// More than `items.len()` when some were of other entity types
    /// (skipped) or expired (hidden).
    pub count: usize,
    /// DynamoDB's `ScannedCount`: the items the key condition read before
    /// the filter, what the page's read capacity paid for; `None` when the
    /// executor does not report it (and on a sharded query's merged page,
    /// which several Queries make).
    pub scanned_count: Option<usize>,
}

// By hand: derived impls would ask the pattern `P` for them too.
impl<T: std::fmt::Debug, P> std::fmt::Debug for Page<T, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page")
            .field("items", &self.items)
            .field("cursor", &self.cursor)
            .field("count", &self.count)
            .field("scanned_count", &self.scanned_count)
            .finish()
    }
}

impl<T: Clone, P> Clone for Page<T, P> {
    fn clone(&self) -> Self {
        Self {
            items: self.items.clone(),
            cursor: self.cursor.clone(),
            count: self.count,
            scanned_count: self.scanned_count,
        }
    }
}

impl<T: PartialEq, P> PartialEq for Page<T, P> {
    fn eq(&self, other: &Self) -> bool {
        self.items == other.items
            && self.cursor == other.cursor
            && self.count == other.count
            && self.scanned_count == other.scanned_count
    }
}

/// Where a query of access pattern `P` continues: the sealed, URL-safe
/// text a page hands out (see [`crate::page`]), typed by the pattern that
/// wrote it, so that a cursor of one pattern passed to another does not
/// compile. A cursor that comes back from a client is a string: wrap it
/// with [`Cursor::from_client`] (or `parse`) for the pattern it is given
/// to; the page then checks, when it opens it, that it was sealed for that
/// query, and refuses any other with [`Error::Cursor`].
///
/// ```
/// use singletable::query::Cursor;
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<user>")]
/// # #[sk("ORDER#<n>")]
/// # #[access(orders)]
/// # pub struct Order { pub user: String, pub n: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// for n in 0..3 {
///     db.put(&Order { user: "ana".into(), n }).await?;
/// }
/// let first = Order::orders("ana").limit(2).page(&db, None).await?;
/// // To a client and back, as text.
/// let text: String = first.cursor.unwrap().into_string();
/// let cursor = Cursor::from_client(text);
/// let next = Order::orders("ana").limit(2).page(&db, Some(&cursor)).await?;
/// assert_eq!(next.items.len(), 1);
/// assert!(next.cursor.is_none());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
pub struct Cursor<P = ()> {
    text: String,
    _pattern: PhantomData<fn() -> P>,
}

impl<P> Cursor<P> {
    /// A cursor a page of this pattern wrote.
    pub(crate) fn sealed(text: String) -> Self {
        Self {
            text,
            _pattern: PhantomData,
        }
    }

    /// The cursor to the page after DynamoDB's `LastEvaluatedKey` `last`,
    /// sealed for `scope`; `None` on the last page.
    pub(crate) fn after(
        secret: &[u8],
        scope: &CursorScope<'_>,
        last: Option<Item>,
    ) -> Result<Option<Self>, Error> {
        let Some(k) = last else { return Ok(None) };
        page::encode(secret, scope, &k)
            .map(|text| Some(Self::sealed(text)))
            .ok_or(Error::Refused(Refusal::CursorKeyNotString {
                what: "LastEvaluatedKey",
            }))
    }

    /// A cursor as a client sent it back, for the pattern it is given to;
    /// checked when a page opens it.
    ///
    /// ```
    /// let c = singletable::query::Cursor::<()>::from_client("abc");
    /// assert_eq!(c.as_str(), "abc");
    /// ```
    pub fn from_client(text: impl Into<String>) -> Self {
        Self::sealed(text.into())
    }

    /// The cursor's text, to hand to a client.
    ///
    /// ```
    /// let c = singletable::query::Cursor::<()>::from_client("abc");
    /// assert_eq!(c.as_str(), "abc");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The cursor's text, owned.
    ///
    /// ```
    /// let c = singletable::query::Cursor::<()>::from_client("abc");
    /// assert_eq!(c.into_string(), "abc");
    /// ```
    pub fn into_string(self) -> String {
        self.text
    }
}

impl<P> Clone for Cursor<P> {
    fn clone(&self) -> Self {
        Self::sealed(self.text.clone())
    }
}

impl<P> PartialEq for Cursor<P> {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl<P> Eq for Cursor<P> {}

impl<P> std::hash::Hash for Cursor<P> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl<P> std::fmt::Debug for Cursor<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Cursor").field(&self.text).finish()
    }
}

/// The cursor's text, as it goes to a client.
impl<P> std::fmt::Display for Cursor<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl<P> std::ops::Deref for Cursor<P> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl<P> AsRef<str> for Cursor<P> {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl<P> From<Cursor<P>> for String {
    fn from(c: Cursor<P>) -> Self {
        c.text
    }
}

/// A cursor a client sent back ([`Cursor::from_client`]).
impl<P> std::str::FromStr for Cursor<P> {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self::from_client(s))
    }
}

/// What a `Query` is about: what it returns, where it reads, its pattern.
pub(super) type Marker<T, I, P> = fn() -> (T, I, P);
