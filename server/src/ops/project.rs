//! A projection the engine's requests do not carry (GetItem, Scan, batch
//! and transaction reads): checked here, then applied to each item by the
//! engine's one projection, [`Embedded::project`], the one Query applies.

use singletable_core::expr::Path;
use singletable_embedded::Embedded;

/// Checks a projection the engine never sees (it checks a Query's
/// itself), after the engine has checked the rest of the request, in the
/// order DynamoDB Local reports errors.
pub(crate) fn checked(paths: Option<&[Path]>) -> Result<(), crate::error::ApiError> {
    match paths {
        Some(p) => Embedded::check_projection(p).map_err(super::engine),
        None => Ok(()),
    }
}
