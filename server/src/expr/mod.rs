//! Expression strings (key condition, condition, filter, update,
//! projection) parsed into the runtime's expression values
//! ([`Condition`], [`UpdateAction`], [`Path`], [`AttrKeyCondition`]), so the
//! engine evaluates them with the evaluator it uses for every other
//! request: the runtime renders these values into text, this module reads
//! text back into them.
//!
//! DynamoDB's rules checked here: reserved words, placeholders that are
//! missing or unused, syntax (with the text around the offending token),
//! the 4 KB size limit, and the forms each expression kind allows.

mod lex;
mod parse;
pub(crate) mod reserved;

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;
use singletable_core::expr::{AttrKeyCondition, Condition, Path};
use singletable_core::request::UpdateAction;
use singletable_core::value::AttributeValue;

use crate::error::ApiError;
use crate::wire;

/// Every expression is at most 4 KB.
const MAX_LEN: usize = 4096;

/// The `ExpressionAttributeNames` and `ExpressionAttributeValues` of one
/// request, shared by its expressions, with what they used.
#[derive(Debug, Default)]
pub(crate) struct Placeholders {
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
    used_names: BTreeSet<String>,
    used_values: BTreeSet<String>,
    /// Whether the request sent the maps at all (an empty one is refused).
    had_names: bool,
    had_values: bool,
}

impl Placeholders {
    /// Reads the two maps of a request (or of a transaction's operation).
    pub(crate) fn from_request(body: &serde_json::Map<String, Value>) -> Result<Self, ApiError> {
        let mut out = Self::default();
        if let Some(v) = body
            .get("ExpressionAttributeNames")
            .filter(|v| !v.is_null())
        {
            let m = v
                .as_object()
                .ok_or_else(|| ApiError::serialization("ExpressionAttributeNames must be a map"))?;
            if m.is_empty() {
                return Err(ApiError::validation(
                    "ExpressionAttributeNames can only be specified when using expressions",
                ));
            }
            out.had_names = true;
            for (k, v) in m {
                let name = v.as_str().ok_or_else(|| {
                    ApiError::serialization("ExpressionAttributeNames values must be strings")
                })?;
                out.names.insert(k.clone(), name.to_owned());
            }
        }
        if let Some(v) = body
            .get("ExpressionAttributeValues")
            .filter(|v| !v.is_null())
        {
            let m = v.as_object().ok_or_else(|| {
                ApiError::serialization("ExpressionAttributeValues must be a map")
            })?;
            if m.is_empty() {
                return Err(ApiError::validation(
                    "ExpressionAttributeValues must not be empty",
                ));
            }
            out.had_values = true;
            for (k, v) in m {
                let value = wire::value(v).map_err(|e| {
                    if e.kind.ends_with("ValidationException") {
                        ApiError::validation(format!(
                            "ExpressionAttributeValues contains invalid value: {} for key {k}",
                            e.message
                        ))
                    } else {
                        e
                    }
                })?;
                out.values.insert(k.clone(), value);
            }
        }
        Ok(out)
    }

    fn name(&mut self, kind: &str, ph: &str) -> Result<String, ApiError> {
        match self.names.get(ph) {
            Some(n) => {
                self.used_names.insert(ph.to_owned());
                Ok(n.clone())
            }
            None => Err(ApiError::validation(format!(
                "Invalid {kind}: An expression attribute name used in the document path is not defined; attribute name: {ph}"
            ))),
        }
    }

    fn value(&mut self, kind: &str, ph: &str) -> Result<AttributeValue, ApiError> {
        match self.values.get(ph) {
            Some(v) => {
                self.used_values.insert(ph.to_owned());
                Ok(v.clone())
            }
            None => Err(ApiError::validation(format!(
                "Invalid {kind}: An expression attribute value used in expression is not defined; attribute value: {ph}"
            ))),
        }
    }

    /// After every expression of the request: each placeholder sent was
    /// used (DynamoDB refuses unused ones).
    pub(crate) fn finish(&self) -> Result<(), ApiError> {
        fn unused<V>(all: &HashMap<String, V>, used: &BTreeSet<String>) -> Vec<String> {
            let mut v: Vec<&String> = all.keys().filter(|k| !used.contains(*k)).collect();
            v.sort();
            v.into_iter().cloned().collect::<Vec<_>>()
        }
        let names = unused(&self.names, &self.used_names);
        if !names.is_empty() {
            return Err(ApiError::validation(format!(
                "Value provided in ExpressionAttributeNames unused in expressions: keys: {{{}}}",
                names.join(", ")
            )));
        }
        let values = unused(&self.values, &self.used_values);
        if !values.is_empty() {
            return Err(ApiError::validation(format!(
                "Value provided in ExpressionAttributeValues unused in expressions: keys: {{{}}}",
                values.join(", ")
            )));
        }
        Ok(())
    }

    /// Whether any placeholder map was sent (a request without any
    /// expression may not send them).
    /// Whether the request sent `ExpressionAttributeNames`.
    pub(crate) fn had_names(&self) -> bool {
        self.had_names
    }

    pub(crate) fn any(&self) -> bool {
        self.had_names || self.had_values
    }
}

fn check_text(kind: &str, text: &str) -> Result<(), ApiError> {
    if text.len() > MAX_LEN {
        return Err(ApiError::validation(format!(
            "Invalid {kind}: Expression size has exceeded the maximum allowed size; expression size: {}",
            text.len()
        )));
    }
    if text.trim().is_empty() {
        return Err(ApiError::validation(format!(
            "Invalid {kind}: The expression can not be empty;"
        )));
    }
    Ok(())
}

/// A `ConditionExpression` or `FilterExpression` (`kind` names which).
pub(crate) fn condition(
    kind: &str,
    text: &str,
    ph: &mut Placeholders,
) -> Result<Condition, ApiError> {
    check_text(kind, text)?;
    parse::Parser::new(kind, text, ph)?.condition_expression()
}

/// An `UpdateExpression`.
pub(crate) fn update(text: &str, ph: &mut Placeholders) -> Result<Vec<UpdateAction>, ApiError> {
    check_text("UpdateExpression", text)?;
    parse::Parser::new("UpdateExpression", text, ph)?.update_expression()
}

/// A `ProjectionExpression`.
pub(crate) fn projection(text: &str, ph: &mut Placeholders) -> Result<Vec<Path>, ApiError> {
    check_text("ProjectionExpression", text)?;
    parse::Parser::new("ProjectionExpression", text, ph)?.projection_expression()
}

/// A `KeyConditionExpression`: equalities and at most one range condition
/// on top-level attributes (the engine checks them against the key schema).
pub(crate) fn key_condition(
    text: &str,
    ph: &mut Placeholders,
) -> Result<AttrKeyCondition, ApiError> {
    check_text("KeyConditionExpression", text)?;
    parse::Parser::new("KeyConditionExpression", text, ph)?.key_condition_expression()
}

#[cfg(test)]
mod tests;
