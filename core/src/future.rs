//! The boxed future every executor and administration method returns:
//! object-safe, so `Arc<dyn Executor>` can hold any backend.

use std::future::Future;
use std::pin::Pin;

/// A boxed future returned by executors.
///
/// ```
/// use singletable_core::exec::BoxFuture;
///
/// fn ready(n: u32) -> BoxFuture<'static, u32> {
///     Box::pin(async move { n })
/// }
/// assert_eq!(futures::executor::block_on(ready(7)), 7);
/// ```
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
