//! A recursive-descent parser over the tokens of one expression, producing
//! the runtime's expression values. Precedence as DynamoDB documents it:
//! comparisons, `BETWEEN` and `IN` bind tightest, then `NOT`, `AND`, `OR`.

use singletable_core::expr::{AttrKeyCondition, AttrRange, Cmp, Condition, Operand, Path};
use singletable_core::request::{SetOperand, SetValue, UpdateAction};
use singletable_core::value::AttributeValue;

use super::Placeholders;
use super::lex::{Tok, Token, lex, syntax};
use super::reserved::is_reserved;
use crate::error::ApiError;

/// Parentheses and functions nest at most this deep (the 4 KB limit
/// bounds the rest).
const MAX_DEPTH: usize = 64;

pub(crate) struct Parser<'a> {
    kind: &'a str,
    text: &'a str,
    toks: Vec<Token>,
    pos: usize,
    ph: &'a mut Placeholders,
    depth: usize,
}

/// An operand before it is placed in a condition.
enum Opd {
    Path(Path),
    Value(AttributeValue),
    Size(Path),
}

impl Opd {
    fn operand(self) -> Operand {
        match self {
            Opd::Path(p) => Operand::Path(p),
            Opd::Value(v) => Operand::Value(v),
            Opd::Size(p) => Operand::Size(p),
        }
    }
}

/// The right-hand side of a `SET` action, before it is matched to one of
/// the forms the engine applies.
enum Rhs {
    Path(Path),
    Value(AttributeValue),
    IfNotExists(Path, Box<Rhs>),
    ListAppend(Box<Rhs>, Box<Rhs>),
    Arith(Box<Rhs>, bool, Box<Rhs>),
}

const TYPES: [&str; 10] = ["S", "SS", "N", "NS", "B", "BS", "BOOL", "NULL", "L", "M"];

impl<'a> Parser<'a> {
    pub(crate) fn new(
        kind: &'a str,
        text: &'a str,
        ph: &'a mut Placeholders,
    ) -> Result<Self, ApiError> {
        Ok(Self {
            kind,
            text,
            toks: lex(text, kind)?,
            pos: 0,
            ph,
            depth: 0,
        })
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    fn peek_at(&self, n: usize) -> &Tok {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)].tok
    }

    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].tok.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    /// A syntax error at the current token.
    fn error(&self) -> ApiError {
        let i = self.pos;
        let t = &self.toks[i];
        let from = if i > 0 {
            self.toks[i - 1].start
        } else {
            t.start
        };
        let to = self.toks.get(i + 1).map_or(t.end, |n| n.end);
        syntax(self.kind, self.text, t.text(self.text).to_owned(), from, to)
    }

    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Sym(x) if *x == s)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Word(x) if x.eq_ignore_ascii_case(w))
    }

    fn expect_sym(&mut self, s: &str) -> Result<(), ApiError> {
        if self.is_sym(s) {
            self.bump();
            Ok(())
        } else {
            Err(self.error())
        }
    }

    fn expect_end(&self) -> Result<(), ApiError> {
        if *self.peek() == Tok::Eof {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    fn deeper(&mut self) -> Result<(), ApiError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ApiError::validation(format!(
                "Invalid {}: The expression has too many levels of nesting; maximum depth: {MAX_DEPTH}",
                self.kind
            )));
        }
        Ok(())
    }

    fn invalid(&self, what: impl std::fmt::Display) -> ApiError {
        ApiError::validation(format!("Invalid {}: {what}", self.kind))
    }

    // ---------------------------------------------------------- paths ---

    fn name_part(&mut self) -> Result<String, ApiError> {
        match self.peek().clone() {
            Tok::Word(w) => {
                if is_reserved(&w) {
                    return Err(self.invalid(format!(
                        "Attribute name is a reserved keyword; reserved keyword: {w}"
                    )));
                }
                self.bump();
                Ok(w)
            }
            Tok::Name(n) => {
                let kind = self.kind.to_owned();
                let name = self.ph.name(&kind, &n)?;
                self.bump();
                Ok(name)
            }
            _ => Err(self.error()),
        }
    }

    fn path(&mut self) -> Result<Path, ApiError> {
        let mut p = Path::new(self.name_part()?);
        loop {
            if self.is_sym(".") {
                self.bump();
                p = p.key(self.name_part()?);
            } else if self.is_sym("[") {
                self.bump();
                let Tok::Int(i) = self.peek().clone() else {
                    return Err(self.error());
                };
                let index: usize = i.parse().map_err(|_| {
                    self.invalid(format!(
                        "List index is not within the allowable range; index: [{i}]"
                    ))
                })?;
                self.bump();
                self.expect_sym("]")?;
                p = p.index(index);
            } else {
                return Ok(p);
            }
        }
    }

    fn value(&mut self) -> Result<AttributeValue, ApiError> {
        let Tok::Value(v) = self.peek().clone() else {
            return Err(self.error());
        };
        let kind = self.kind.to_owned();
        let value = self.ph.value(&kind, &v)?;
        self.bump();
        Ok(value)
    }

    fn is_call(&self, f: &str) -> bool {
        matches!(self.peek(), Tok::Word(w) if w == f) && matches!(self.peek_at(1), Tok::Sym("("))
    }

    // ----------------------------------------------------- conditions ---

    pub(crate) fn condition_expression(mut self) -> Result<Condition, ApiError> {
        let c = self.or()?;
        self.expect_end()?;
        Ok(c)
    }

    fn or(&mut self) -> Result<Condition, ApiError> {
        let mut c = self.and()?;
        while self.is_word("OR") {
            self.bump();
            c = c.or(self.and()?);
        }
        Ok(c)
    }

    fn and(&mut self) -> Result<Condition, ApiError> {
        let mut c = self.not()?;
        while self.is_word("AND") {
            self.bump();
            c = c.and(self.not()?);
        }
        Ok(c)
    }

    fn not(&mut self) -> Result<Condition, ApiError> {
        if self.is_word("NOT") {
            self.bump();
            self.deeper()?;
            let c = self.not()?.not();
            self.depth -= 1;
            return Ok(c);
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Condition, ApiError> {
        if self.is_sym("(") {
            self.bump();
            self.deeper()?;
            let c = self.or()?;
            self.expect_sym(")")?;
            self.depth -= 1;
            return Ok(c);
        }
        if let Tok::Word(f) = self.peek().clone()
            && matches!(self.peek_at(1), Tok::Sym("("))
            && f != "size"
        {
            return self.function(&f);
        }
        let left = self.operand()?;
        if self.is_word("BETWEEN") {
            self.bump();
            let lo = self.operand()?;
            if !self.is_word("AND") {
                return Err(self.error());
            }
            self.bump();
            let hi = self.operand()?;
            return Ok(Condition::Between(
                left.operand(),
                lo.operand(),
                hi.operand(),
            ));
        }
        if self.is_word("IN") {
            self.bump();
            self.expect_sym("(")?;
            let mut list = vec![self.operand()?.operand()];
            while self.is_sym(",") {
                self.bump();
                list.push(self.operand()?.operand());
            }
            self.expect_sym(")")?;
            if list.len() > 100 {
                return Err(self.invalid(
                    "The IN operator is provided with too many operands; number of operands: "
                        .to_owned()
                        + &list.len().to_string(),
                ));
            }
            return Ok(Condition::In(left.operand(), list));
        }
        let op = match self.peek() {
            Tok::Sym("=") => Cmp::Eq,
            Tok::Sym("<>") => Cmp::Ne,
            Tok::Sym("<") => Cmp::Lt,
            Tok::Sym("<=") => Cmp::Le,
            Tok::Sym(">") => Cmp::Gt,
            Tok::Sym(">=") => Cmp::Ge,
            _ => return Err(self.error()),
        };
        self.bump();
        let right = self.operand()?;
        Ok(Condition::Compare(left.operand(), op, right.operand()))
    }

    fn operand(&mut self) -> Result<Opd, ApiError> {
        match self.peek() {
            Tok::Value(_) => Ok(Opd::Value(self.value()?)),
            Tok::Word(w) if w == "size" && matches!(self.peek_at(1), Tok::Sym("(")) => {
                self.bump();
                self.bump();
                let p = self.path()?;
                self.expect_sym(")")?;
                Ok(Opd::Size(p))
            }
            Tok::Word(w) if matches!(self.peek_at(1), Tok::Sym("(")) => {
                let w = w.clone();
                Err(self.misplaced_function(&w))
            }
            Tok::Word(_) | Tok::Name(_) => Ok(Opd::Path(self.path()?)),
            _ => Err(self.error()),
        }
    }

    fn misplaced_function(&self, f: &str) -> ApiError {
        if FUNCTIONS.contains(&f) {
            self.invalid(format!(
                "The function is not allowed to be used this way in an expression; function: {f}"
            ))
        } else {
            self.invalid(format!("Invalid function name; function: {f}"))
        }
    }

    fn function(&mut self, f: &str) -> Result<Condition, ApiError> {
        if !matches!(
            f,
            "attribute_exists"
                | "attribute_not_exists"
                | "attribute_type"
                | "begins_with"
                | "contains"
        ) {
            return Err(self.misplaced_function(f));
        }
        self.bump();
        self.bump();
        let p = self.path()?;
        let c = match f {
            "attribute_exists" => Condition::exists(p),
            "attribute_not_exists" => Condition::not_exists(p),
            _ => {
                self.expect_sym(",")?;
                let arg = self.operand()?;
                let arg = match (f, arg) {
                    ("begins_with", Opd::Path(q)) => {
                        self.expect_sym(")")?;
                        return Ok(Condition::BeginsWithPath(p, q));
                    }
                    ("contains", Opd::Path(q)) => {
                        self.expect_sym(")")?;
                        return Ok(Condition::ContainsPath(p, q));
                    }
                    (_, arg) => arg,
                };
                let Opd::Value(v) = arg else {
                    return Err(self.invalid(format!(
                        "this endpoint supports only a value placeholder as the second argument of {f}"
                    )));
                };
                match f {
                    "attribute_type" => {
                        let t = match &v {
                            AttributeValue::S(s) => TYPES.iter().find(|t| **t == s.as_str()),
                            _ => None,
                        };
                        let Some(t) = t else {
                            return Err(self.invalid(format!(
                                "Invalid attribute type name found; type: {}, valid types: {{ B,NULL,SS,BOOL,L,BS,N,NS,S,M }}",
                                match &v { AttributeValue::S(s) => s.clone(), _ => "?".into() }
                            )));
                        };
                        Condition::AttributeType(p, t)
                    }
                    "begins_with" => Condition::BeginsWith(p, v),
                    _ => Condition::Contains(p, v),
                }
            }
        };
        self.expect_sym(")")?;
        Ok(c)
    }

    // ------------------------------------------------- key conditions ---

    pub(crate) fn key_condition_expression(self) -> Result<AttrKeyCondition, ApiError> {
        let kind = self.kind.to_owned();
        let c = self.condition_expression()?;
        let mut parts = Vec::new();
        flatten_and(c, &mut parts);
        let invalid = |what: &str| ApiError::validation(format!("Invalid {kind}: {what}"));
        let top = |p: Path| -> Result<String, ApiError> {
            p.into_attribute().map_err(|_| {
                invalid("KeyConditionExpressions cannot have conditions on nested attributes")
            })
        };
        let mut out = AttrKeyCondition::default();
        let mut seen: Vec<String> = Vec::new();
        for part in parts {
            let (attr, range) = match part {
                Condition::Compare(Operand::Path(p), op, Operand::Value(v)) => (top(p)?, (op, v)),
                Condition::Compare(Operand::Value(v), op, Operand::Path(p)) => {
                    let flipped = match op {
                        Cmp::Lt => Cmp::Gt,
                        Cmp::Le => Cmp::Ge,
                        Cmp::Gt => Cmp::Lt,
                        Cmp::Ge => Cmp::Le,
                        o => o,
                    };
                    (top(p)?, (flipped, v))
                }
                Condition::Between(Operand::Path(p), Operand::Value(lo), Operand::Value(hi)) => {
                    let a = top(p)?;
                    if seen.contains(&a) {
                        return Err(invalid(
                            "KeyConditionExpressions must only contain one condition per key",
                        ));
                    }
                    seen.push(a.clone());
                    if out.range.is_some() {
                        return Err(invalid(
                            "KeyConditionExpressions must only contain one condition per key",
                        ));
                    }
                    out.range = Some((a, AttrRange::Between(lo, hi)));
                    continue;
                }
                Condition::BeginsWith(p, v) => {
                    let a = top(p)?;
                    let prefix = match v {
                        AttributeValue::S(_) | AttributeValue::B(_) => v,
                        other => {
                            return Err(invalid(&format!(
                                "Incorrect operand type for operator or function; operator or function: begins_with, operand type: {}",
                                singletable_core::value::type_name(&other)
                            )));
                        }
                    };
                    if seen.contains(&a) || out.range.is_some() {
                        return Err(invalid(
                            "KeyConditionExpressions must only contain one condition per key",
                        ));
                    }
                    seen.push(a.clone());
                    out.range = Some((a, AttrRange::BeginsWith(prefix)));
                    continue;
                }
                Condition::Or(..) => {
                    return Err(invalid(
                        "Invalid operator used in KeyConditionExpression: OR",
                    ));
                }
                Condition::Not(..) => {
                    return Err(invalid(
                        "Invalid operator used in KeyConditionExpression: NOT",
                    ));
                }
                Condition::In(..) => {
                    return Err(invalid(
                        "Invalid operator used in KeyConditionExpression: IN",
                    ));
                }
                Condition::Contains(..) => {
                    return Err(invalid(
                        "Invalid operator used in KeyConditionExpression: contains",
                    ));
                }
                Condition::Exists(_) | Condition::ExistsAt(_) => {
                    return Err(invalid(
                        "Invalid operator used in KeyConditionExpression: attribute_exists",
                    ));
                }
                Condition::NotExists(_) | Condition::NotExistsAt(_) => {
                    return Err(invalid(
                        "Invalid operator used in KeyConditionExpression: attribute_not_exists",
                    ));
                }
                Condition::AttributeType(..) => {
                    return Err(invalid(
                        "Invalid operator used in KeyConditionExpression: attribute_type",
                    ));
                }
                _ => {
                    return Err(invalid(
                        "Invalid condition in KeyConditionExpression: the condition must compare a key attribute with a value",
                    ));
                }
            };
            let (op, v) = range;
            if op == Cmp::Ne {
                return Err(invalid(
                    "Unsupported operator in KeyConditionExpression: <>",
                ));
            }
            if seen.contains(&attr) {
                return Err(invalid(
                    "KeyConditionExpressions must only contain one condition per key",
                ));
            }
            seen.push(attr.clone());
            if op == Cmp::Eq {
                out.equal.push((attr, v));
            } else {
                if out.range.is_some() {
                    return Err(invalid(
                        "KeyConditionExpressions must only contain one condition per key",
                    ));
                }
                out.range = Some((attr, AttrRange::Compare(op, v)));
            }
        }
        Ok(out)
    }

    // ------------------------------------------------------ projection ---

    pub(crate) fn projection_expression(mut self) -> Result<Vec<Path>, ApiError> {
        let mut out = vec![self.path()?];
        while self.is_sym(",") {
            self.bump();
            out.push(self.path()?);
        }
        self.expect_end()?;
        Ok(out)
    }

    // --------------------------------------------------------- updates ---

    pub(crate) fn update_expression(mut self) -> Result<Vec<UpdateAction>, ApiError> {
        let mut actions = Vec::new();
        let mut seen: Vec<&'static str> = Vec::new();
        loop {
            let clause = match self.peek() {
                Tok::Word(w) if w.eq_ignore_ascii_case("SET") => "SET",
                Tok::Word(w) if w.eq_ignore_ascii_case("REMOVE") => "REMOVE",
                Tok::Word(w) if w.eq_ignore_ascii_case("ADD") => "ADD",
                Tok::Word(w) if w.eq_ignore_ascii_case("DELETE") => "DELETE",
                Tok::Eof if !seen.is_empty() => break,
                _ => return Err(self.error()),
            };
            if seen.contains(&clause) {
                return Err(self.invalid(format!(
                    "The \"{clause}\" section can only be used once in an update expression;"
                )));
            }
            seen.push(clause);
            self.bump();
            loop {
                let action = match clause {
                    "SET" => self.set_action()?,
                    "REMOVE" => UpdateAction::remove(self.path()?),
                    _ => {
                        let p = self.path()?;
                        let v = self.value()?;
                        if clause == "ADD" {
                            UpdateAction::add(p, v)
                        } else {
                            UpdateAction::delete(p, v)
                        }
                    }
                };
                actions.push(action);
                if self.is_sym(",") {
                    self.bump();
                } else {
                    break;
                }
            }
        }
        Ok(actions)
    }

    fn set_action(&mut self) -> Result<UpdateAction, ApiError> {
        let target = self.path()?;
        self.expect_sym("=")?;
        let first = self.rhs_term()?;
        let rhs = if self.is_sym("+") || self.is_sym("-") {
            let plus = self.is_sym("+");
            self.bump();
            let second = self.rhs_term()?;
            Rhs::Arith(Box::new(first), plus, Box::new(second))
        } else {
            first
        };
        let value = self.set_value(&target, rhs)?;
        Ok(UpdateAction::set(target, value))
    }

    fn rhs_term(&mut self) -> Result<Rhs, ApiError> {
        if self.is_call("if_not_exists") {
            self.bump();
            self.bump();
            self.deeper()?;
            let p = self.path()?;
            self.expect_sym(",")?;
            let v = self.rhs_term()?;
            self.expect_sym(")")?;
            self.depth -= 1;
            return Ok(Rhs::IfNotExists(p, Box::new(v)));
        }
        if self.is_call("list_append") {
            self.bump();
            self.bump();
            self.deeper()?;
            let a = self.rhs_term()?;
            self.expect_sym(",")?;
            let b = self.rhs_term()?;
            self.expect_sym(")")?;
            self.depth -= 1;
            return Ok(Rhs::ListAppend(Box::new(a), Box::new(b)));
        }
        match self.peek() {
            Tok::Value(_) => Ok(Rhs::Value(self.value()?)),
            Tok::Word(w) if matches!(self.peek_at(1), Tok::Sym("(")) => {
                let w = w.clone();
                Err(self.misplaced_function(&w))
            }
            Tok::Word(_) | Tok::Name(_) => Ok(Rhs::Path(self.path()?)),
            _ => Err(self.error()),
        }
    }

    /// A `SET` right-hand side as the runtime's value: the forms on the
    /// target alone (`:v`, `if_not_exists(target, :v)`, `list_append` of
    /// the target and a value, `target ± :v`) as their own variants, every
    /// other one (other attributes, arithmetic between paths, nested
    /// functions) as [`SetValue::Expr`].
    fn set_value(&self, target: &Path, rhs: Rhs) -> Result<SetValue, ApiError> {
        let is_target = |r: &Rhs| matches!(r, Rhs::Path(p) if p == target);
        Ok(match rhs {
            Rhs::Value(v) => SetValue::Value(v),
            Rhs::IfNotExists(p, v) if &p == target => match *v {
                Rhs::Value(v) => SetValue::IfNotExists(v),
                v => SetValue::Expr(SetOperand::IfNotExists(p, Box::new(operand(v)))),
            },
            Rhs::ListAppend(a, b) => match (*a, *b) {
                (a, Rhs::Value(v)) if is_target(&a) => SetValue::Append(v),
                (Rhs::Value(v), b) if is_target(&b) => SetValue::Prepend(v),
                (a, b) => SetValue::Expr(SetOperand::ListAppend(
                    Box::new(operand(a)),
                    Box::new(operand(b)),
                )),
            },
            Rhs::Arith(a, plus, b) => {
                if let (Rhs::Value(v), _) | (_, Rhs::Value(v)) = (&*a, &*b)
                    && !matches!(v, AttributeValue::N(_))
                {
                    return Err(self.invalid(format!(
                        "Incorrect operand type for operator or function; operator: {}, operand type: {}",
                        if plus { "+" } else { "-" },
                        singletable_core::value::type_name(v)
                    )));
                }
                match (*a, plus, *b) {
                    (a, true, Rhs::Value(v)) if is_target(&a) => SetValue::Increment(v),
                    (Rhs::Value(v), true, b) if is_target(&b) => SetValue::Increment(v),
                    (a, false, Rhs::Value(AttributeValue::N(n))) if is_target(&a) => {
                        SetValue::Increment(AttributeValue::N(negate(&n)))
                    }
                    (a, plus, b) => {
                        SetValue::Expr(operand(Rhs::Arith(Box::new(a), plus, Box::new(b))))
                    }
                }
            }
            other => SetValue::Expr(operand(other)),
        })
    }
}

/// A right-hand side in the runtime's general form.
fn operand(r: Rhs) -> SetOperand {
    let boxed = |r: Box<Rhs>| Box::new(operand(*r));
    match r {
        Rhs::Value(v) => SetOperand::Value(v),
        Rhs::Path(p) => SetOperand::Path(p),
        Rhs::IfNotExists(p, x) => SetOperand::IfNotExists(p, boxed(x)),
        Rhs::ListAppend(a, b) => SetOperand::ListAppend(boxed(a), boxed(b)),
        Rhs::Arith(a, true, b) => SetOperand::Plus(boxed(a), boxed(b)),
        Rhs::Arith(a, false, b) => SetOperand::Minus(boxed(a), boxed(b)),
    }
}

const FUNCTIONS: [&str; 8] = [
    "attribute_exists",
    "attribute_not_exists",
    "attribute_type",
    "begins_with",
    "contains",
    "size",
    "if_not_exists",
    "list_append",
];

fn flatten_and(c: Condition, out: &mut Vec<Condition>) {
    match c {
        Condition::And(a, b) => {
            flatten_and(*a, out);
            flatten_and(*b, out);
        }
        other => out.push(other),
    }
}

/// `-n` of a number's text (the engine validates and normalises it).
fn negate(n: &str) -> String {
    let n = n.trim();
    match n.strip_prefix('-') {
        Some(rest) => rest.to_owned(),
        None => format!("-{}", n.strip_prefix('+').unwrap_or(n)),
    }
}
