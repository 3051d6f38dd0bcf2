//! DynamoDB's PartiQL statements parsed into the runtime's expression
//! values: a `WHERE` clause becomes a [`Condition`], a `SET` a list of
//! [`UpdateAction`]s, literals and `?` parameters [`AttributeValue`]s. The
//! engine then evaluates them as it evaluates every other request.

use std::collections::HashMap;

use singletable_core::expr::{Cmp, Condition, Operand, Path};
use singletable_core::request::{ReturnValues, SetOperand, SetValue, UpdateAction};
use singletable_core::value::AttributeValue;

use crate::error::ApiError;

mod lex;
mod reserved;

use lex::{Tok, lex};

/// Literals nest at most this deep (DynamoDB refuses items nested deeper
/// than 32 levels anyway; this bounds the parser's recursion).
const MAX_DEPTH: usize = 64;

/// One statement, with its parameters substituted.
#[derive(Debug)]
pub(crate) enum Statement {
    Select {
        table: String,
        index: Option<String>,
        /// `None` for `*`.
        projection: Option<Vec<Path>>,
        filter: Option<Condition>,
        /// `ORDER BY attr [ASC|DESC]`: the attribute and whether descending.
        order: Option<(Path, bool)>,
    },
    Insert {
        table: String,
        item: HashMap<String, AttributeValue>,
    },
    Update {
        table: String,
        actions: Vec<UpdateAction>,
        filter: Condition,
        returning: ReturnValues,
    },
    Delete {
        table: String,
        filter: Condition,
        returning: bool,
    },
    /// `EXISTS(SELECT * FROM "t" WHERE <whole key> AND <condition>)`: a
    /// transaction's condition check.
    Exists { table: String, filter: Condition },
}

impl Statement {
    pub(crate) fn table(&self) -> &str {
        match self {
            Statement::Select { table, .. }
            | Statement::Insert { table, .. }
            | Statement::Update { table, .. }
            | Statement::Delete { table, .. }
            | Statement::Exists { table, .. } => table,
        }
    }

    pub(crate) fn is_read(&self) -> bool {
        matches!(self, Statement::Select { .. })
    }
}

/// DynamoDB's refusal of an `EXISTS` that is not one item's read with a
/// condition.
pub(crate) fn not_single_read() -> ApiError {
    ApiError::validation("EXISTS() must contain a single item read with additional condition")
}

/// `Statement wasn't well formed, can't be processed: <what>`, DynamoDB's
/// syntax error.
pub(crate) fn malformed(what: impl std::fmt::Display) -> ApiError {
    ApiError::validation(format!(
        "Statement wasn't well formed, can't be processed: {what}"
    ))
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    params: std::vec::IntoIter<AttributeValue>,
    depth: usize,
}

/// Parses `text` with `params` for its `?`s, in order.
pub(crate) fn statement(text: &str, params: Vec<AttributeValue>) -> Result<Statement, ApiError> {
    if text.trim().is_empty() {
        return Err(malformed("Empty statement"));
    }
    let mut p = Parser {
        toks: lex(text)?,
        pos: 0,
        params: params.into_iter(),
        depth: 0,
    };
    let s = p.statement()?;
    if !matches!(p.peek(), Tok::Eof) && !p.is_sym(";") {
        return Err(p.unexpected());
    }
    // Parameters beyond the statement's `?`s are ignored, as DynamoDB
    // Local ignores them.
    Ok(s)
}

fn count_mismatch() -> ApiError {
    ApiError::validation("Number of parameters in request and statement don't match.")
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos]
    }

    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Sym(x) if *x == s)
    }

    fn is_kw(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Word(x) if x.eq_ignore_ascii_case(w))
    }

    fn eat_kw(&mut self, w: &str) -> bool {
        if self.is_kw(w) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect_kw(&mut self, w: &str) -> Result<(), ApiError> {
        if self.eat_kw(w) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn eat_sym(&mut self, s: &str) -> bool {
        if self.is_sym(s) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect_sym(&mut self, s: &str) -> Result<(), ApiError> {
        if self.eat_sym(s) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn unexpected(&self) -> ApiError {
        match self.peek() {
            Tok::Eof => malformed("Unexpected end of statement"),
            Tok::Word(w)
                if KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(w))
                    || reserved::is_reserved(w) =>
            {
                malformed(format!("Unexpected keyword: {w}"))
            }
            Tok::Word(w) | Tok::Quoted(w) => malformed(format!("Unexpected identifier: {w}")),
            Tok::Str(s) => malformed(format!("Unexpected term: '{s}'")),
            Tok::Num(n) => malformed(format!("Unexpected term: {n}")),
            Tok::Sym(s) => malformed(format!("Unexpected token: {s}")),
        }
    }

    fn deeper(&mut self) -> Result<(), ApiError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(malformed("Statement is nested too deeply"));
        }
        Ok(())
    }

    fn param(&mut self) -> Result<AttributeValue, ApiError> {
        self.params.next().ok_or_else(count_mismatch)
    }

    // ------------------------------------------------------ statements ---

    fn statement(&mut self) -> Result<Statement, ApiError> {
        if self.eat_kw("SELECT") {
            self.select()
        } else if self.eat_kw("INSERT") {
            self.insert()
        } else if self.eat_kw("UPDATE") {
            self.update()
        } else if self.eat_kw("DELETE") {
            self.delete()
        } else if self.eat_kw("EXISTS") {
            self.exists()
        } else {
            Err(self.unexpected())
        }
    }

    /// A table name, bare or quoted.
    fn name(&mut self) -> Result<String, ApiError> {
        match self.peek().clone() {
            Tok::Quoted(n) => {
                self.bump();
                Ok(n)
            }
            Tok::Word(w) if is_name(&w) => {
                self.bump();
                Ok(w)
            }
            _ => Err(self.unexpected()),
        }
    }

    /// `EXISTS(SELECT ... WHERE ...)`: the select's table and condition.
    fn exists(&mut self) -> Result<Statement, ApiError> {
        self.expect_sym("(")?;
        self.expect_kw("SELECT")?;
        let Statement::Select {
            table,
            index: None,
            filter: Some(filter),
            order: None,
            ..
        } = self.select()?
        else {
            return Err(not_single_read());
        };
        self.expect_sym(")")?;
        Ok(Statement::Exists { table, filter })
    }

    fn select(&mut self) -> Result<Statement, ApiError> {
        let projection = if self.eat_sym("*") {
            None
        } else {
            let mut paths = vec![self.path()?];
            while self.eat_sym(",") {
                paths.push(self.path()?);
            }
            Some(paths)
        };
        self.expect_kw("FROM")?;
        let table = self.name()?;
        let index = if self.eat_sym(".") {
            Some(self.name()?)
        } else {
            None
        };
        let filter = if self.eat_kw("WHERE") {
            Some(self.or()?)
        } else {
            None
        };
        let order = if self.eat_kw("ORDER") {
            self.expect_kw("BY")?;
            let p = self.path()?;
            let descending = if self.eat_kw("DESC") {
                true
            } else {
                self.eat_kw("ASC");
                false
            };
            Some((p, descending))
        } else {
            None
        };
        Ok(Statement::Select {
            table,
            index,
            projection,
            filter,
            order,
        })
    }

    fn insert(&mut self) -> Result<Statement, ApiError> {
        self.expect_kw("INTO")?;
        let table = self.name()?;
        self.expect_kw("VALUE")?;
        let item = match self.value()? {
            AttributeValue::M(m) => m,
            _ => return Err(malformed("The VALUE of an INSERT must be a map (a tuple)")),
        };
        Ok(Statement::Insert { table, item })
    }

    fn update(&mut self) -> Result<Statement, ApiError> {
        let table = self.name()?;
        let mut actions = Vec::new();
        loop {
            if self.eat_kw("SET") {
                loop {
                    actions.push(self.set_action()?);
                    if !self.eat_sym(",") {
                        break;
                    }
                }
            } else if self.eat_kw("REMOVE") {
                loop {
                    actions.push(UpdateAction::remove(self.path()?));
                    if !self.eat_sym(",") {
                        break;
                    }
                }
            } else {
                break;
            }
        }
        if actions.is_empty() {
            return Err(self.unexpected());
        }
        self.expect_kw("WHERE")?;
        let filter = self.or()?;
        let returning = if self.eat_kw("RETURNING") {
            let modified = if self.eat_kw("ALL") {
                false
            } else if self.eat_kw("MODIFIED") {
                true
            } else {
                return Err(self.unexpected());
            };
            let new = if self.eat_kw("NEW") {
                true
            } else if self.eat_kw("OLD") {
                false
            } else {
                return Err(self.unexpected());
            };
            self.expect_sym("*")?;
            match (modified, new) {
                (false, false) => ReturnValues::AllOld,
                (false, true) => ReturnValues::AllNew,
                (true, false) => ReturnValues::UpdatedOld,
                (true, true) => ReturnValues::UpdatedNew,
            }
        } else {
            ReturnValues::None
        };
        Ok(Statement::Update {
            table,
            actions,
            filter,
            returning,
        })
    }

    fn delete(&mut self) -> Result<Statement, ApiError> {
        self.expect_kw("FROM")?;
        let table = self.name()?;
        self.expect_kw("WHERE")?;
        let filter = self.or()?;
        let returning = if self.eat_kw("RETURNING") {
            self.expect_kw("ALL")?;
            self.expect_kw("OLD")?;
            self.expect_sym("*")?;
            true
        } else {
            false
        };
        Ok(Statement::Delete {
            table,
            filter,
            returning,
        })
    }

    /// `path = value`, `path = path ± operand`, `list_append(…)`,
    /// `set_add(path, set)`, `set_delete(path, set)`.
    fn set_action(&mut self) -> Result<UpdateAction, ApiError> {
        let target = self.path()?;
        self.expect_sym("=")?;
        if let Some(f) = self.call_name()
            && (f.eq_ignore_ascii_case("set_add") || f.eq_ignore_ascii_case("set_delete"))
        {
            self.bump();
            self.bump();
            let p = self.path()?;
            if p != target {
                return Err(malformed(format!("{f} must name the attribute it updates")));
            }
            self.expect_sym(",")?;
            let v = self.value()?;
            self.expect_sym(")")?;
            return Ok(if f.eq_ignore_ascii_case("set_add") {
                UpdateAction::add(target, v)
            } else {
                UpdateAction::delete(target, v)
            });
        }
        let first = self.set_operand()?;
        let rhs = if self.eat_sym("+") {
            SetOperand::Plus(Box::new(first), Box::new(self.set_operand()?))
        } else if self.eat_sym("-") {
            SetOperand::Minus(Box::new(first), Box::new(self.set_operand()?))
        } else {
            first
        };
        let value = match rhs {
            SetOperand::Value(v) => SetValue::Value(v),
            other => SetValue::Expr(other),
        };
        Ok(UpdateAction::set(target, value))
    }

    fn call_name(&self) -> Option<String> {
        match (self.peek(), self.toks.get(self.pos + 1)) {
            (Tok::Word(w), Some(Tok::Sym("("))) => Some(w.clone()),
            _ => None,
        }
    }

    fn set_operand(&mut self) -> Result<SetOperand, ApiError> {
        if let Some(f) = self.call_name() {
            let lower = f.to_ascii_lowercase();
            if lower == "list_append" || lower == "if_not_exists" {
                self.bump();
                self.bump();
                self.deeper()?;
                let out = if lower == "list_append" {
                    let a = self.set_operand()?;
                    self.expect_sym(",")?;
                    let b = self.set_operand()?;
                    SetOperand::ListAppend(Box::new(a), Box::new(b))
                } else {
                    let p = self.path()?;
                    self.expect_sym(",")?;
                    let b = self.set_operand()?;
                    SetOperand::IfNotExists(p, Box::new(b))
                };
                self.expect_sym(")")?;
                self.depth -= 1;
                return Ok(out);
            }
            return Err(malformed(format!("Unsupported function in SET: {f}")));
        }
        match self.peek() {
            Tok::Word(w) if !is_literal_word(w) => Ok(SetOperand::Path(self.path()?)),
            Tok::Quoted(_) => Ok(SetOperand::Path(self.path()?)),
            _ => Ok(SetOperand::Value(self.value()?)),
        }
    }

    // ----------------------------------------------------------- paths ---

    fn path(&mut self) -> Result<Path, ApiError> {
        let mut p = Path::new(self.path_part()?);
        loop {
            if self.eat_sym(".") {
                p = p.key(self.path_part()?);
            } else if self.eat_sym("[") {
                match self.bump() {
                    Tok::Num(n) => {
                        let i: usize = n
                            .parse()
                            .map_err(|_| malformed(format!("Invalid list index: {n}")))?;
                        p = p.index(i);
                    }
                    Tok::Str(k) => p = p.key(k),
                    _ => {
                        self.pos -= 1;
                        return Err(self.unexpected());
                    }
                }
                self.expect_sym("]")?;
            } else {
                return Ok(p);
            }
        }
    }

    fn path_part(&mut self) -> Result<String, ApiError> {
        match self.peek().clone() {
            Tok::Quoted(n) => {
                self.bump();
                Ok(n)
            }
            Tok::Word(w) if is_name(&w) => {
                self.bump();
                Ok(w)
            }
            _ => Err(self.unexpected()),
        }
    }

    // ---------------------------------------------------------- values ---

    fn value(&mut self) -> Result<AttributeValue, ApiError> {
        self.deeper()?;
        let v = self.value_inner()?;
        self.depth -= 1;
        Ok(v)
    }

    fn value_inner(&mut self) -> Result<AttributeValue, ApiError> {
        match self.peek().clone() {
            Tok::Str(s) => {
                self.bump();
                Ok(AttributeValue::S(s))
            }
            Tok::Num(n) => {
                self.bump();
                Ok(AttributeValue::N(n))
            }
            Tok::Sym("-") => {
                self.bump();
                match self.bump() {
                    Tok::Num(n) => Ok(AttributeValue::N(format!("-{n}"))),
                    _ => {
                        self.pos -= 1;
                        Err(self.unexpected())
                    }
                }
            }
            Tok::Sym("?") => {
                self.bump();
                self.param()
            }
            Tok::Word(w) if w.eq_ignore_ascii_case("true") => {
                self.bump();
                Ok(AttributeValue::Bool(true))
            }
            Tok::Word(w) if w.eq_ignore_ascii_case("false") => {
                self.bump();
                Ok(AttributeValue::Bool(false))
            }
            Tok::Word(w) if w.eq_ignore_ascii_case("null") => {
                self.bump();
                Ok(AttributeValue::Null(true))
            }
            Tok::Sym("[") => {
                self.bump();
                let mut out = Vec::new();
                if !self.eat_sym("]") {
                    loop {
                        out.push(self.value()?);
                        if self.eat_sym("]") {
                            break;
                        }
                        self.expect_sym(",")?;
                    }
                }
                Ok(AttributeValue::L(out))
            }
            Tok::Sym("{") => {
                self.bump();
                let mut out = HashMap::new();
                if !self.eat_sym("}") {
                    loop {
                        let k = match self.bump() {
                            Tok::Str(k) => k,
                            _ => {
                                self.pos -= 1;
                                return Err(self.unexpected());
                            }
                        };
                        self.expect_sym(":")?;
                        let v = self.value()?;
                        if out.insert(k.clone(), v).is_some() {
                            return Err(malformed(format!("Duplicate key in a tuple: {k}")));
                        }
                        if self.eat_sym("}") {
                            break;
                        }
                        self.expect_sym(",")?;
                    }
                }
                Ok(AttributeValue::M(out))
            }
            Tok::Sym("<<") => {
                self.bump();
                let mut out = Vec::new();
                if !self.eat_sym(">>") {
                    loop {
                        out.push(self.value()?);
                        if self.eat_sym(">>") {
                            break;
                        }
                        self.expect_sym(",")?;
                    }
                }
                set(out)
            }
            _ => Err(self.unexpected()),
        }
    }

    // ------------------------------------------------------ conditions ---

    fn or(&mut self) -> Result<Condition, ApiError> {
        let mut c = self.and()?;
        while self.eat_kw("OR") {
            c = c.or(self.and()?);
        }
        Ok(c)
    }

    fn and(&mut self) -> Result<Condition, ApiError> {
        let mut c = self.not()?;
        while self.eat_kw("AND") {
            c = c.and(self.not()?);
        }
        Ok(c)
    }

    fn not(&mut self) -> Result<Condition, ApiError> {
        if self.eat_kw("NOT") {
            self.deeper()?;
            let c = self.not()?.not();
            self.depth -= 1;
            return Ok(c);
        }
        self.predicate()
    }

    fn predicate(&mut self) -> Result<Condition, ApiError> {
        if self.eat_sym("(") {
            self.deeper()?;
            let c = self.or()?;
            self.expect_sym(")")?;
            self.depth -= 1;
            return Ok(c);
        }
        if let Some(f) = self.call_name() {
            let lower = f.to_ascii_lowercase();
            if lower != "size" {
                return self.function(&lower);
            }
        }
        let left = self.operand()?;
        if self.eat_kw("IS") {
            let negated = self.eat_kw("NOT");
            let Operand::Path(p) = left else {
                return Err(malformed("IS MISSING applies to an attribute"));
            };
            let c = if self.eat_kw("MISSING") {
                Condition::not_exists(p)
            } else if self.eat_kw("NULL") {
                Condition::AttributeType(p, "NULL")
            } else {
                return Err(self.unexpected());
            };
            return Ok(if negated { c.not() } else { c });
        }
        let negated = self.eat_kw("NOT");
        if self.eat_kw("BETWEEN") {
            let lo = self.operand()?;
            self.expect_kw("AND")?;
            let hi = self.operand()?;
            let c = Condition::Between(left, lo, hi);
            return Ok(if negated { c.not() } else { c });
        }
        if self.eat_kw("IN") {
            let close = if self.eat_sym("[") {
                "]"
            } else {
                self.expect_sym("(")?;
                ")"
            };
            let mut list = vec![self.operand()?];
            while self.eat_sym(",") {
                list.push(self.operand()?);
            }
            self.expect_sym(close)?;
            if list.len() > 100 {
                return Err(ApiError::validation(format!(
                    "The IN operator is provided with too many operands; number of operands: {}",
                    list.len()
                )));
            }
            let c = Condition::In(left, list);
            return Ok(if negated { c.not() } else { c });
        }
        if negated {
            return Err(self.unexpected());
        }
        let op = match self.peek() {
            Tok::Sym("=") => Cmp::Eq,
            Tok::Sym("<>" | "!=") => Cmp::Ne,
            Tok::Sym("<") => Cmp::Lt,
            Tok::Sym("<=") => Cmp::Le,
            Tok::Sym(">") => Cmp::Gt,
            Tok::Sym(">=") => Cmp::Ge,
            _ => return Err(self.unexpected()),
        };
        self.bump();
        let right = self.operand()?;
        Ok(Condition::Compare(left, op, right))
    }

    fn operand(&mut self) -> Result<Operand, ApiError> {
        if let Some(f) = self.call_name() {
            if f.eq_ignore_ascii_case("size") {
                self.bump();
                self.bump();
                let p = self.path()?;
                self.expect_sym(")")?;
                return Ok(Operand::Size(p));
            }
            return Err(malformed(format!(
                "The function {f} is not allowed to be used this way"
            )));
        }
        match self.peek() {
            Tok::Word(w) if !is_literal_word(w) => Ok(Operand::Path(self.path()?)),
            Tok::Quoted(_) => Ok(Operand::Path(self.path()?)),
            _ => Ok(Operand::Value(self.value()?)),
        }
    }

    fn function(&mut self, f: &str) -> Result<Condition, ApiError> {
        if !matches!(f, "begins_with" | "contains" | "attribute_type") {
            return Err(ApiError::validation(format!("Unrecognized function: {f}")));
        }
        self.bump();
        self.bump();
        let p = self.path()?;
        self.expect_sym(",")?;
        let arg = self.operand()?;
        let c = match (f, arg) {
            ("begins_with", Operand::Path(q)) => Condition::BeginsWithPath(p, q),
            ("contains", Operand::Path(q)) => Condition::ContainsPath(p, q),
            ("begins_with", Operand::Value(v)) => Condition::BeginsWith(p, v),
            ("contains", Operand::Value(v)) => Condition::Contains(p, v),
            ("attribute_type", Operand::Value(AttributeValue::S(t))) => {
                match TYPES.iter().find(|x| **x == t) {
                    Some(t) => Condition::AttributeType(p, t),
                    None => {
                        return Err(ApiError::validation(format!(
                            "Invalid attribute type name found; type: {t}, valid types: {{ B,NULL,SS,BOOL,L,BS,N,NS,S,M }}"
                        )));
                    }
                }
            }
            _ => return Err(malformed(format!("Invalid argument to {f}"))),
        };
        self.expect_sym(")")?;
        Ok(c)
    }
}

const TYPES: [&str; 10] = ["S", "SS", "N", "NS", "B", "BS", "BOOL", "NULL", "L", "M"];

/// The words that begin a literal rather than a path.
fn is_literal_word(w: &str) -> bool {
    ["true", "false", "null"]
        .iter()
        .any(|k| k.eq_ignore_ascii_case(w))
}

/// Whether a bare word may name an attribute or a table: neither a word
/// of the grammar nor a reserved word (either may be `"quoted"`).
fn is_name(w: &str) -> bool {
    !KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(w)) && !reserved::is_reserved(w)
}

/// Words of the grammar: not attribute or table names unless quoted.
const KEYWORDS: [&str; 25] = [
    "SELECT",
    "FROM",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "IN",
    "IS",
    "BETWEEN",
    "INSERT",
    "INTO",
    "VALUE",
    "UPDATE",
    "SET",
    "REMOVE",
    "DELETE",
    "RETURNING",
    "MISSING",
    "NULL",
    "TRUE",
    "FALSE",
    "VALUES",
    "ORDER",
    "BY",
    "LIMIT",
];

/// A `<<…>>` literal: a string, number or binary set.
fn set(values: Vec<AttributeValue>) -> Result<AttributeValue, ApiError> {
    let mixed = || malformed("A set must hold values of one type: strings, numbers or binaries");
    match values.first() {
        None => Err(ApiError::validation(
            "One or more parameter values were invalid: An number set  may not be empty",
        )),
        Some(AttributeValue::S(_)) => values
            .into_iter()
            .map(|v| match v {
                AttributeValue::S(s) => Ok(s),
                _ => Err(mixed()),
            })
            .collect::<Result<_, _>>()
            .map(AttributeValue::Ss),
        Some(AttributeValue::N(_)) => values
            .into_iter()
            .map(|v| match v {
                AttributeValue::N(s) => Ok(s),
                _ => Err(mixed()),
            })
            .collect::<Result<_, _>>()
            .map(AttributeValue::Ns),
        Some(AttributeValue::B(_)) => values
            .into_iter()
            .map(|v| match v {
                AttributeValue::B(b) => Ok(b),
                _ => Err(mixed()),
            })
            .collect::<Result<_, _>>()
            .map(AttributeValue::Bs),
        Some(_) => Err(mixed()),
    }
}

#[cfg(test)]
mod tests;
