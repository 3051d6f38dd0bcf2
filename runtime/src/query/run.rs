//! Running a query: one page, every page as a stream, counts, the first
//! item.

use super::*;

impl<T, I, P> Query<T, I, P> {
    /// Strongly consistent read: sees every write acknowledged before it, at
    /// twice the read cost. Not available on global indexes: calling it on a
    /// global-index query does not compile.
    pub fn consistent(mut self) -> Self
    where
        I: ConsistentRead,
    {
        self.consistent_read = true;
        self
    }
}

impl<T: Decode, I, P> Query<T, I, P> {
    /// The tracing description of page `page` (from 1) of this query.
    pub(crate) fn traced(&self, req: &QueryRequest, page: u32) -> crate::trace::Request<'_> {
        crate::trace::Request {
            entity: Some(T::cursor_scope()),
            pattern: Some(self.pattern),
            index: self.index,
            consistent: Some(self.consistent_read),
            limit: req.limit.and_then(|l| u32::try_from(l).ok()),
            page: Some(page),
            attempt: None,
        }
    }

    /// Sends one Query page, in its span.
    pub(crate) async fn send<E: Executor>(
        &self,
        db: &Db<E>,
        req: QueryRequest,
        page: u32,
    ) -> Result<crate::reader::ReaderPage, Error> {
        let r = self.traced(&req, page);
        let span = crate::trace::span("Query", db.table_name(), &r);
        let sent = r.sender("Query");
        let raw = crate::trace::traced(span.clone(), sent, db.executor().query_reader(req)).await?;
        crate::trace::count(&span, raw.items.remaining());
        Ok(raw)
    }

    /// Sends one `Select=COUNT` Query page, in its span.
    pub(super) async fn send_count<E: Executor>(
        &self,
        db: &Db<E>,
        req: QueryRequest,
        page: u32,
    ) -> Result<crate::request::CountPage, Error> {
        let r = self.traced(&req, page);
        let span = crate::trace::span("Query", db.table_name(), &r);
        let sent = r.sender("Query");
        let out = crate::trace::traced(span.clone(), sent, db.executor().query_count(req)).await?;
        crate::trace::count(&span, out.count);
        Ok(out)
    }

    pub(crate) fn take_error(&mut self) -> Result<(), Error> {
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Decodes a page's items into `out`, leaving out items of other types
    /// (when skipped) and items whose TTL has passed (unless included).
    pub(crate) fn read_items(&self, items: Items, out: &mut Vec<T>) -> Result<(), Error> {
        out.reserve(items.remaining());
        let ttl = if self.include_expired {
            None
        } else {
            T::ttl_attribute()
        };
        items.read_each(&mut Collect {
            other: self
                .other
                .unwrap_or(<T::Table as crate::entity::Table>::OTHER_ITEMS),
            expiry: crate::ttl::Expiry::new(ttl),
            out,
        })
    }

    /// One Query request: at most 1 MB read (or `limit` items evaluated),
    /// continuing after `cursor`. The returned cursor leads to the next page.
    pub async fn page<E: Executor>(
        mut self,
        db: &Db<E>,
        cursor: Option<&Cursor<P>>,
    ) -> Result<Page<T, P>, Error> {
        self.take_error()?;
        let start = match cursor {
            Some(c) => Some(page::decode(
                db.cursor_secret(),
                &self.scope(0),
                c.as_str(),
            )?),
            None => None,
        };
        let req = self.request(db.table_name(), start, self.limit)?;
        let raw = self.send(db, req, 1).await?;
        let (count, scanned_count) = (raw.items.remaining(), raw.scanned);
        let mut items = Vec::new();
        self.read_items(raw.items, &mut items)?;
        let cursor = Cursor::after(db.cursor_secret(), &self.scope(0), raw.last_key)?;
        Ok(Page {
            items,
            cursor,
            count,
            scanned_count,
        })
    }

    /// Every matching item, following pages until DynamoDB reports the last
    /// one (or `limit` items are collected). One request per page.
    pub async fn all<E: Executor>(mut self, db: &Db<E>) -> Result<Vec<T>, Error> {
        self.take_error()?;
        let mut out = Vec::new();
        let mut start = None;
        let mut page = 0u32;
        loop {
            let collected = u32::try_from(out.len()).unwrap_or(u32::MAX);
            let remaining = self.limit.map(|l| l.saturating_sub(collected));
            if remaining == Some(0) {
                break;
            }
            let req = self.request(db.table_name(), start.take(), remaining)?;
            page += 1;
            let raw = self.send(db, req, page).await?;
            self.read_items(raw.items, &mut out)?;
            match raw.last_key {
                Some(k) => start = Some(k),
                None => break,
            }
        }
        Ok(out)
    }

    /// Counts the matching items instead of reading them: one Query with
    /// `Select=COUNT` per page, following every page (DynamoDB counts at
    /// most 1 MB of items per page), with the same key condition and
    /// filter. It consumes the same read capacity as reading the items but
    /// transfers none. Items whose TTL has passed are not counted (unless
    /// [`Query::include_expired`]), by a filter on the TTL attribute where
    /// the index projects it; `limit` caps the count as it caps
    /// [`Query::all`].
    ///
    /// ```
    /// # use singletable::Embedded;
    /// # use singletable::{Db, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Docs")]
    /// # pub struct Docs;
    /// #[derive(Entity)]
    /// #[entity(table = Docs, name = "Line")]
    /// #[pk("DOC#<doc>")]
    /// #[sk("LINE#<n>")]
    /// #[access(lines)]
    /// pub struct Line {
    ///     pub doc: String,
    ///     pub n: u32,
    /// }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<Docs>("Docs")?;
    /// for n in 0..3 {
    ///     db.put(&Line { doc: "d".into(), n }).await?;
    /// }
    /// assert_eq!(Line::lines("d").count(&db).await?, 3);
    /// assert_eq!(Line::lines("d").sk_ge(1).count(&db).await?, 2);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn count<E: Executor>(mut self, db: &Db<E>) -> Result<u64, Error> {
        self.take_error()?;
        if T::adopts() {
            // Which untyped items are this type's is a matter of their
            // keys, which no filter expresses: they are read (the same
            // read capacity as `Select=COUNT`) and counted as `all` keeps
            // them.
            return self.all(db).await.map(|items| items.len() as u64);
        }
        self.count_unexpired();
        self.count_own_types();
        let mut total = 0u64;
        let mut start = None;
        let mut page = 0u32;
        loop {
            let remaining = self.limit.map(|l| u64::from(l).saturating_sub(total));
            if remaining == Some(0) {
                break;
            }
            let limit = remaining.map(|r| u32::try_from(r).unwrap_or(u32::MAX));
            let req = self.request(db.table_name(), start.take(), limit)?;
            page += 1;
            let out = self.send_count(db, req, page).await?;
            total += out.count as u64;
            match out.last_key {
                Some(k) => start = Some(k),
                None => break,
            }
        }
        Ok(total)
    }

    /// Whether the table or index this query reads holds the non-key
    /// attribute `attr` (an index holds it when it projects every
    /// attribute or includes it), so that a count's filter may name it.
    pub(super) fn reads_attribute(&self, attr: &str) -> bool {
        use crate::entity::Projection;
        match self.index.map(T::index_projection) {
            None | Some(Projection::All) => true,
            Some(Projection::KeysOnly) => false,
            Some(Projection::Include(attrs)) => attrs.contains(&attr),
        }
    }

    /// Adds the filter that leaves items of other types out of a count
    /// (the ones [`Query::all`] skips or fails on), when the index read
    /// projects the entity-type attribute: DynamoDB's `Select=COUNT`
    /// counts every item the key condition reads.
    /// Not on an index keyed on the entity-type attribute (a multi-attribute
    /// index sorted by type first), whose key attributes DynamoDB refuses
    /// in a filter: an entity's query there selects its type by key
    /// condition already.
    pub(crate) fn count_own_types(&mut self) {
        let attr = <T::Table as crate::entity::Table>::ENTITY_TYPE;
        let projected = self.reads_attribute(attr) && !self.key_attrs.contains(&attr);
        if let Some(own) = T::type_condition(attr).filter(|_| projected) {
            self.filter = Some(own.and_maybe(self.filter.take()));
        }
    }

    /// Adds the filter that leaves expired items out of a count, when the
    /// table has a TTL attribute that the index read projects.
    pub(crate) fn count_unexpired(&mut self) {
        let Some(ttl) = T::ttl_attribute().filter(|_| !self.include_expired) else {
            return;
        };
        if self.reads_attribute(ttl) {
            let now = crate::ttl::now_epoch();
            self.filter = Some(
                Condition::Compare(
                    crate::expr::Operand::Path(ttl.into()),
                    crate::expr::Cmp::Le,
                    crate::expr::Operand::Value(AttributeValue::N(now.to_string())),
                )
                .not()
                .and_maybe(self.filter.take()),
            );
        }
    }

    /// The first matching item, if any. Without a filter it asks DynamoDB
    /// for one item (`Limit=1`, the least a read costs), sort-key ranges
    /// and multi-attribute indexes included; when that item is of another
    /// entity type (skipped), the following pages are read whole until one
    /// holds a match. With a filter it cannot: DynamoDB applies `Limit`
    /// before the filter, so one item read could be one filtered out, and
    /// whole pages are read from the start.
    pub async fn first<E: Executor>(mut self, db: &Db<E>) -> Result<Option<T>, Error> {
        self.take_error()?;
        let mut limit = if self.filter.is_none() {
            Some(1)
        } else {
            self.limit
        };
        let mut start = None;
        let mut pages = 0;
        loop {
            let req = self.request(db.table_name(), start.take(), limit)?;
            pages += 1;
            let raw = self.send(db, req, pages).await?;
            let mut items = Vec::new();
            self.read_items(raw.items, &mut items)?;
            if let Some(first) = items.into_iter().next() {
                return Ok(Some(first));
            }
            match raw.last_key {
                Some(k) => start = Some(k),
                None => return Ok(None),
            }
            limit = self.limit;
        }
    }

    /// Items one by one, fetching pages lazily as the stream is polled.
    pub fn stream<'a, E: Executor>(
        mut self,
        db: &'a Db<E>,
    ) -> impl Stream<Item = Result<T, Error>> + 'a
    where
        T: 'a,
        I: 'a,
        P: 'a,
    {
        struct State<T, I, P> {
            query: Query<T, I, P>,
            buffer: std::collections::VecDeque<T>,
            start: Option<Item>,
            done: bool,
            yielded: u32,
            pages: u32,
        }
        let first_error = self.take_error().err();
        let state = State {
            query: self,
            buffer: Default::default(),
            start: None,
            done: first_error.is_some(),
            yielded: 0,
            pages: 0,
        };
        let error_stream = futures_util::stream::iter(first_error.map(Err));
        let pages = futures_util::stream::try_unfold(state, move |mut st| async move {
            loop {
                if st.query.limit.is_some_and(|limit| st.yielded >= limit) {
                    return Ok(None);
                }
                if let Some(item) = st.buffer.pop_front() {
                    st.yielded += 1;
                    return Ok(Some((item, st)));
                }
                if st.done {
                    return Ok(None);
                }
                let remaining = st.query.limit.map(|l| l - st.yielded);
                let req = st
                    .query
                    .request(db.table_name(), st.start.take(), remaining)?;
                st.pages += 1;
                let raw = st.query.send(db, req, st.pages).await?;
                let mut items = Vec::new();
                st.query.read_items(raw.items, &mut items)?;
                st.buffer.extend(items);
                match raw.last_key {
                    Some(k) => st.start = Some(k),
                    None => st.done = true,
                }
            }
        });
        futures_util::StreamExt::chain(error_stream, pages)
    }
}
