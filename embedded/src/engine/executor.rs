//! The engine as an `Executor`: each request run on the store, under
//! its read or write lock.

use crate::error::Error;
use crate::value::Item;
use crate::{read, search, transact, write};
use singletable_core::entity::Table;
use singletable_core::exec::{BoxFuture, CapacityMeter, Executor};
use singletable_core::reader::{Items, ReaderPage};
use singletable_core::request::{
    BatchGet, BatchGetOutput, BatchOp, BatchWrite, CountPage, DeleteItem, GetItem, Page, PutItem,
    QueryRequest, ScanRequest, TransactGet, TransactWrite, UpdateItem,
};

use super::{Embedded, Writing};

impl Embedded {
    /// A write request's future: `op` under the store's write lock, then,
    /// on a durable backend, the wait for the log to hold it. An in-memory
    /// backend's future has no wait in it, so it stays as small as the
    /// operation (it is allocated per request).
    fn writing<'a, T: Send + 'a>(
        &'a self,
        op: impl FnOnce(&mut Writing<'_>) -> Result<T, Error> + Send + 'a,
    ) -> BoxFuture<'a, Result<T, Error>> {
        if self.log.is_none() {
            return Box::pin(async move { op(&mut self.write()) });
        }
        Box::pin(async move {
            let out = op(&mut self.write());
            self.flushed().await?;
            out
        })
    }
}

impl Executor for Embedded {
    fn capacity(&self) -> Option<&CapacityMeter> {
        Some(&self.meter)
    }

    fn get_item(&self, req: GetItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        Box::pin(
            async move { read::get_item(&self.read(), &req).map_err(|e| e.into_error("GetItem")) },
        )
    }

    fn put_item(&self, req: PutItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        self.writing(move |w| write::put_item(w, req).map_err(|e| e.into_error("PutItem")))
    }

    fn delete_item(&self, req: DeleteItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        self.writing(move |w| write::delete_item(w, &req).map_err(|e| e.into_error("DeleteItem")))
    }

    fn query(&self, req: QueryRequest) -> BoxFuture<'_, Result<Page, Error>> {
        Box::pin(async move { read::query(&self.read(), &req).map_err(|e| e.into_error("Query")) })
    }

    fn scan(&self, req: ScanRequest) -> BoxFuture<'_, Result<Page, Error>> {
        Box::pin(async move { read::scan(&self.read(), &req).map_err(|e| e.into_error("Scan")) })
    }

    fn transact_write(&self, req: TransactWrite) -> BoxFuture<'_, Result<(), Error>> {
        self.writing(move |w| {
            transact::transact_write(w, &req).map_err(|e| e.into_error("TransactWriteItems"))
        })
    }

    fn update_item(&self, req: UpdateItem) -> BoxFuture<'_, Result<Option<Item>, Error>> {
        self.writing(move |w| write::update_item(w, &req).map_err(|e| e.into_error("UpdateItem")))
    }

    fn batch_write(&self, req: BatchWrite) -> BoxFuture<'_, Result<Vec<BatchOp>, Error>> {
        self.writing(move |w| {
            write::batch_write(w, &req).map_err(|e| e.into_error("BatchWriteItem"))
        })
    }

    fn batch_get(&self, req: BatchGet) -> BoxFuture<'_, Result<BatchGetOutput, Error>> {
        Box::pin(async move {
            read::batch_get(&self.read(), &req).map_err(|e| e.into_error("BatchGetItem"))
        })
    }

    fn transact_get(&self, req: TransactGet) -> BoxFuture<'_, Result<Vec<Option<Item>>, Error>> {
        Box::pin(async move {
            read::transact_get(&self.read(), &req).map_err(|e| e.into_error("TransactGetItems"))
        })
    }

    fn estimated_item_count(&self, table: &str) -> BoxFuture<'_, Result<Option<u64>, Error>> {
        let count = self.item_count(table).map(|n| n as u64);
        Box::pin(async move { Ok(count) })
    }

    fn query_count(&self, req: QueryRequest) -> BoxFuture<'_, Result<CountPage, Error>> {
        Box::pin(
            async move { read::query_count(&self.read(), &req).map_err(|e| e.into_error("Query")) },
        )
    }

    fn query_reader(&self, req: QueryRequest) -> BoxFuture<'_, Result<ReaderPage, Error>> {
        Box::pin(async move {
            read::query_reader(&self.read(), &req).map_err(|e| e.into_error("Query"))
        })
    }

    fn search_vectors(
        &self,
        req: singletable_core::vector::SearchVectors,
    ) -> BoxFuture<'_, Result<Vec<singletable_core::vector::ScoredItem>, Error>> {
        Box::pin(async move {
            search::search_vectors(&self.read(), &req).map_err(|e| e.into_error("SearchVectors"))
        })
    }

    fn get_item_reader(&self, req: GetItem) -> BoxFuture<'_, Result<Items, Error>> {
        Box::pin(async move {
            read::get_item_encoded(&self.read(), &req)
                .map(Items::Encoded)
                .map_err(|e| e.into_error("GetItem"))
        })
    }
}

impl singletable_core::HoldsTables for Embedded {
    fn with_table<T: Table>(table: &str) -> Result<Self, Error> {
        let embedded = Embedded::new();
        let definition = singletable_core::definition::TableDefinition::of::<T>(
            table,
            singletable_core::definition::Billing::OnDemand,
        );
        embedded.create_defined(table, &definition)?;
        Ok(embedded)
    }
}
