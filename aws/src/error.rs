//! The SDK's errors as singletable's: the one mapping every request of
//! the driver goes through.

use aws_sdk_dynamodb::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use singletable_core::Error;
use singletable_core::exec::THROTTLING_CODES;

/// The SDK's error as singletable's, for every operation of both SDKs
/// (DynamoDB's and the Streams API's share `SdkError`): the service's
/// error code is kept ([`Error::code`]); throttling (by that code,
/// whichever operation's error type carries it) becomes
/// [`Error::Throttled`], so that callers such as batches can retry it.
pub(crate) fn service_error<E, R>(operation: &'static str, err: SdkError<E, R>) -> Error
where
    E: std::error::Error + ProvideErrorMetadata + Send + Sync + 'static,
    R: std::fmt::Debug + Send + Sync + 'static,
{
    let message = DisplayErrorContext(&err).to_string();
    match err.code().filter(|c| THROTTLING_CODES.contains(c)) {
        Some(code) => Error::Throttled {
            operation,
            code: code.to_owned(),
            message,
            source: Box::new(err),
        },
        None => Error::Service {
            operation,
            code: err.code().map(str::to_owned),
            message,
            source: Box::new(err),
        },
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::error::{ErrorMetadata, SdkError};
    use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemError;
    use aws_sdk_dynamodb::types::error::ProvisionedThroughputExceededException;

    use super::service_error;
    use singletable_core::Error;
    use singletable_core::exec::THROTTLING_CODES;

    fn meta(code: &str) -> ErrorMetadata {
        ErrorMetadata::builder()
            .code(code)
            .message("slow down")
            .build()
    }

    #[test]
    fn throttling_codes_map_to_throttled() {
        // Unmodelled codes come as generic errors, with their code.
        for code in THROTTLING_CODES {
            let err = SdkError::service_error(BatchWriteItemError::generic(meta(code)), ());
            match service_error("BatchWriteItem", err) {
                Error::Throttled {
                    operation, code: c, ..
                } => {
                    assert_eq!(operation, "BatchWriteItem");
                    assert_eq!(c, *code);
                }
                other => panic!("{code}: expected Throttled, got {other:?}"),
            }
        }
        // A modelled exception carries the code the response named.
        let modelled = BatchWriteItemError::ProvisionedThroughputExceededException(
            ProvisionedThroughputExceededException::builder()
                .message("slow down")
                .meta(meta("ProvisionedThroughputExceededException"))
                .build(),
        );
        let err = service_error("BatchWriteItem", SdkError::service_error(modelled, ()));
        assert!(err.is_throttling(), "{err:?}");
        // Anything else stays a service error.
        let err = SdkError::service_error(
            BatchWriteItemError::generic(meta("ValidationException")),
            (),
        );
        let err = service_error("BatchWriteItem", err);
        assert!(matches!(err, Error::Service { .. }), "{err:?}");
        assert!(!err.is_throttling());
    }
}
