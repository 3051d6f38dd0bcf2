//! Random raw JSON requests, the same on the endpoint and on DynamoDB
//! Local: every data-plane operation, every expression kind (key
//! conditions, conditions, filters, updates, projections), ReturnValues,
//! Select, Limit, segments, batches and transactions, over one table with a
//! global index. Responses are compared after normalising what DynamoDB
//! does not define (the order of BatchGetItem's items, of set members) and
//! what is not compared on purpose (consumed capacity figures, which the
//! engine counts by DynamoDB's billing rules; their shape is compared), and
//! the one departure a random Query reaches (16: a LastEvaluatedKey on the
//! `Limit` bound, whose empty last page is checked); everything else, error
//! messages included, must be equal. The places where Local departs from
//! DynamoDB's documentation are not generated here: they are
//! `local_departures_follow_dynamodb`'s cases.

use fastrand::Rng;
use serde_json::{Map, Value, json};
use singletable_server::Endpoint;

use super::http::{call, error_message, error_name, start};
use crate::support;

/// How many requests one run sends to each side.
const REQUESTS: usize = 800;

/// One request's placeholders, numbered as they are made.
#[derive(Default)]
struct Ph {
    values: Map<String, Value>,
    names: Map<String, Value>,
}

impl Ph {
    fn value(&mut self, v: Value) -> String {
        let k = format!(":v{}", self.values.len());
        self.values.insert(k.clone(), v);
        k
    }

    /// An attribute name, through a `#name` placeholder half the time.
    fn name(&mut self, rng: &mut Rng, n: &str) -> String {
        if rng.bool() {
            let k = format!("#n{}", self.names.len());
            self.names.insert(k.clone(), json!(n));
            k
        } else {
            n.to_owned()
        }
    }

    fn into(self, body: &mut Value) {
        if !self.values.is_empty() {
            body["ExpressionAttributeValues"] = Value::Object(self.values);
        }
        if !self.names.is_empty() {
            body["ExpressionAttributeNames"] = Value::Object(self.names);
        }
    }
}

const PKS: [&str; 3] = ["p0", "p1", "p2"];
const SKS: [&str; 5] = ["s0", "s1", "s2", "s3", "s4"];
const WORDS: [&str; 4] = ["x", "xy", "y", "z"];

fn key(rng: &mut Rng) -> Value {
    json!({"PK": {"S": PKS[rng.usize(..PKS.len())]}, "SK": {"S": SKS[rng.usize(..SKS.len())]}})
}

fn num(rng: &mut Rng) -> Value {
    let n = rng.i32(-3..8);
    if rng.u8(..5) == 0 {
        json!({"N": format!("{n}.5")})
    } else {
        json!({"N": n.to_string()})
    }
}

fn word(rng: &mut Rng) -> &'static str {
    WORDS[rng.usize(..WORDS.len())]
}

fn string_set(rng: &mut Rng) -> Value {
    let mut s: Vec<&str> = WORDS.iter().copied().filter(|_| rng.bool()).collect();
    if s.is_empty() {
        s.push(word(rng));
    }
    json!({"SS": s})
}

fn list(rng: &mut Rng) -> Value {
    let l: Vec<Value> = (0..rng.usize(0..3)).map(|_| num(rng)).collect();
    json!({"L": l})
}

/// An item of the key space: `a` (N, the index's sort key), `b` (S, the
/// index's partition key), `c` (SS), `d` (L), `e` (M), `f` (BOOL), each
/// present or not.
fn item(rng: &mut Rng) -> Value {
    let mut it = key(rng);
    let m = it.as_object_mut().unwrap();
    if rng.u8(..4) > 0 {
        m.insert("a".into(), num(rng));
    }
    if rng.u8(..4) > 0 {
        m.insert("b".into(), json!({"S": word(rng)}));
    }
    if rng.bool() {
        m.insert("c".into(), string_set(rng));
    }
    if rng.bool() {
        m.insert("d".into(), list(rng));
    }
    if rng.bool() {
        m.insert(
            "e".into(),
            json!({"M": {"g": num(rng), "h": {"S": word(rng)}}}),
        );
    }
    if rng.bool() {
        m.insert("f".into(), json!({"BOOL": rng.bool()}));
    }
    it
}

/// A path to an attribute that may or may not exist, nested at times.
fn path(rng: &mut Rng, ph: &mut Ph) -> String {
    match rng.u8(..9) {
        0 => format!("{}.g", ph.name(rng, "e")),
        1 => format!("{}[{}]", ph.name(rng, "d"), rng.u8(..3)),
        n => ph.name(
            rng,
            ["a", "b", "c", "d", "e", "f", "zz"][usize::from(n - 2)],
        ),
    }
}

/// A condition or filter, `depth` levels of AND/OR/NOT at most.
fn condition(rng: &mut Rng, ph: &mut Ph, depth: u8) -> String {
    if depth > 0 && rng.u8(..3) == 0 {
        return match rng.u8(..3) {
            0 => format!("NOT ({})", condition(rng, ph, depth - 1)),
            1 => format!(
                "({}) AND ({})",
                condition(rng, ph, depth - 1),
                condition(rng, ph, depth - 1)
            ),
            _ => format!(
                "{} OR {}",
                condition(rng, ph, depth - 1),
                condition(rng, ph, depth - 1)
            ),
        };
    }
    let cmp = ["=", "<>", "<", "<=", ">", ">="][rng.usize(..6)];
    match rng.u8(..13) {
        11 => {
            let (p, q) = (path(rng, ph), path(rng, ph));
            format!("begins_with({p}, {q})")
        }
        12 => {
            let (p, q) = (path(rng, ph), path(rng, ph));
            format!("contains({p}, {q})")
        }
        0 => format!("attribute_exists({})", path(rng, ph)),
        1 => format!("attribute_not_exists({})", path(rng, ph)),
        2 => {
            let a = ph.name(rng, "a");
            let v = num(rng);
            format!("{a} {cmp} {}", ph.value(v))
        }
        3 => {
            let a = ph.name(rng, "a");
            let (lo, hi) = (rng.i32(-3..3), rng.i32(0..8));
            let lo = ph.value(json!({"N": lo.to_string()}));
            let hi = ph.value(json!({"N": hi.to_string()}));
            format!("{a} BETWEEN {lo} AND {hi}")
        }
        4 => {
            let b = ph.name(rng, "b");
            let w = word(rng);
            format!("{b} {cmp} {}", ph.value(json!({"S": w})))
        }
        5 => {
            let p = path(rng, ph);
            let w = word(rng);
            format!("begins_with({p}, {})", ph.value(json!({"S": w})))
        }
        6 => {
            let p = path(rng, ph);
            let v = if rng.bool() {
                json!({"S": word(rng)})
            } else {
                num(rng)
            };
            format!("contains({p}, {})", ph.value(v))
        }
        7 => {
            let p = path(rng, ph);
            let v = num(rng);
            format!("size({p}) {cmp} {}", ph.value(v))
        }
        8 => {
            let p = path(rng, ph);
            let t = ["S", "N", "SS", "L", "M", "BOOL", "NULL"][rng.usize(..7)];
            format!("attribute_type({p}, {})", ph.value(json!({"S": t})))
        }
        9 => {
            let a = ph.name(rng, "a");
            let vs: Vec<String> = (0..rng.usize(1..4))
                .map(|_| {
                    let v = num(rng);
                    ph.value(v)
                })
                .collect();
            format!("{a} IN ({})", vs.join(", "))
        }
        _ => {
            let p = path(rng, ph);
            let q = path(rng, ph);
            format!("{p} {cmp} {q}")
        }
    }
}

/// An update expression: one to three actions on distinct attributes.
fn update(rng: &mut Rng, ph: &mut Ph) -> String {
    let mut attrs = vec!["a", "b", "c", "d", "e", "f", "zz"];
    rng.shuffle(&mut attrs);
    let (mut set, mut remove, mut add, mut delete) = (vec![], vec![], vec![], vec![]);
    for attr in attrs.into_iter().take(rng.usize(1..4)) {
        let target = ph.name(rng, attr);
        match (attr, rng.u8(..6)) {
            ("a", 0) => {
                let v = num(rng);
                set.push(format!("{target} = {target} + {}", ph.value(v)));
            }
            ("a", 1) => {
                let v = num(rng);
                set.push(format!("{target} = {target} - {}", ph.value(v)));
            }
            ("a", 2) => {
                let v = num(rng);
                set.push(format!(
                    "{target} = if_not_exists({target}, {})",
                    ph.value(v)
                ));
            }
            ("a", 3) => {
                let v = num(rng);
                add.push(format!("{target} {}", ph.value(v)));
            }
            ("c", 0 | 1) => {
                let v = string_set(rng);
                add.push(format!("{target} {}", ph.value(v)));
            }
            ("c", 2 | 3) => {
                let v = string_set(rng);
                delete.push(format!("{target} {}", ph.value(v)));
            }
            ("d", 0 | 1) => {
                let v = list(rng);
                set.push(format!("{target} = list_append({target}, {})", ph.value(v)));
            }
            ("d", 2) => {
                let v = list(rng);
                set.push(format!("{target} = list_append({}, {target})", ph.value(v)));
            }
            ("e", 0 | 1) => {
                let v = num(rng);
                set.push(format!("{target}.g = {}", ph.value(v)));
            }
            // Other attributes as operands, arithmetic between them, nested
            // functions.
            ("f", 0) => {
                let other = path(rng, ph);
                set.push(format!("{target} = {other}"));
            }
            ("zz", 0) => {
                let a = ph.name(rng, "a");
                set.push(format!("{target} = {a} + {a}"));
            }
            ("zz", 1) => {
                let (a, v) = (ph.name(rng, "a"), num(rng));
                set.push(format!("{target} = {} - {a}", ph.value(v)));
            }
            ("zz", 2) => {
                let (a, v, w) = (ph.name(rng, "a"), num(rng), num(rng));
                let (v, w) = (ph.value(v), ph.value(w));
                set.push(format!("{target} = if_not_exists({a}, {v}) + {w}"));
            }
            ("d", 3) => {
                let (v, empty) = (list(rng), ph.value(json!({"L": []})));
                let v = ph.value(v);
                set.push(format!(
                    "{target} = list_append({v}, if_not_exists({target}, {empty}))"
                ));
            }
            ("b", 0) => {
                let h = format!("{}.h", ph.name(rng, "e"));
                set.push(format!("{target} = if_not_exists({target}, {h})"));
            }
            (_, 4) => remove.push(target),
            ("b", _) => {
                let w = word(rng);
                set.push(format!("{target} = {}", ph.value(json!({"S": w}))));
            }
            _ => {
                let v = item(rng)
                    .get("a")
                    .cloned()
                    .unwrap_or_else(|| json!({"NULL": true}));
                set.push(format!("{target} = {}", ph.value(v)));
            }
        }
    }
    let mut out = Vec::new();
    for (kw, actions) in [
        ("SET", set),
        ("REMOVE", remove),
        ("ADD", add),
        ("DELETE", delete),
    ] {
        if !actions.is_empty() {
            out.push(format!("{kw} {}", actions.join(", ")));
        }
    }
    out.join(" ")
}

fn projection(rng: &mut Rng, ph: &mut Ph) -> String {
    let n = rng.usize(1..4);
    (0..n).map(|_| path(rng, ph)).collect::<Vec<_>>().join(", ")
}

fn maybe(rng: &mut Rng, body: &mut Value, name: &str, choices: &[&str]) {
    if rng.bool() {
        body[name] = json!(choices[rng.usize(..choices.len())]);
    }
}

/// A condition on half the writes.
fn write_condition(rng: &mut Rng, body: &mut Value, ph: &mut Ph) {
    if rng.bool() {
        body["ConditionExpression"] = json!(condition(rng, ph, 2));
        maybe(
            rng,
            body,
            "ReturnValuesOnConditionCheckFailure",
            &["ALL_OLD", "NONE"],
        );
    }
}

/// One random request: `(operation, body)`, `TABLE` standing for the
/// table's name.
fn request(rng: &mut Rng) -> (&'static str, Value) {
    let mut ph = Ph::default();
    let t = "TABLE";
    let (op, mut body) = match rng.u8(..20) {
        0..=3 => {
            let mut b = json!({"TableName": t, "Item": item(rng)});
            write_condition(rng, &mut b, &mut ph);
            maybe(rng, &mut b, "ReturnValues", &["NONE", "ALL_OLD"]);
            ("PutItem", b)
        }
        4..=7 => {
            let mut b =
                json!({"TableName": t, "Key": key(rng), "UpdateExpression": update(rng, &mut ph)});
            write_condition(rng, &mut b, &mut ph);
            maybe(
                rng,
                &mut b,
                "ReturnValues",
                &["NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"],
            );
            ("UpdateItem", b)
        }
        8 => {
            let mut b = json!({"TableName": t, "Key": key(rng)});
            write_condition(rng, &mut b, &mut ph);
            maybe(rng, &mut b, "ReturnValues", &["NONE", "ALL_OLD"]);
            ("DeleteItem", b)
        }
        9 | 10 => {
            let mut b = json!({"TableName": t, "Key": key(rng), "ConsistentRead": rng.bool()});
            if rng.bool() {
                b["ProjectionExpression"] = json!(projection(rng, &mut ph));
            }
            ("GetItem", b)
        }
        11..=13 => ("Query", query(rng, &mut ph)),
        14 | 15 => {
            let mut b = json!({"TableName": t});
            reads(rng, &mut b, &mut ph);
            if rng.u8(..3) == 0 {
                let total = rng.u32(1..4);
                b["TotalSegments"] = json!(total);
                b["Segment"] = json!(rng.u32(..total));
            }
            ("Scan", b)
        }
        16 => {
            let mut keys: Vec<Value> = (0..rng.usize(1..5)).map(|_| key(rng)).collect();
            dedup(&mut keys);
            let mut each = json!({"Keys": keys});
            if rng.bool() {
                each["ProjectionExpression"] = json!(projection(rng, &mut ph));
                ph.into(&mut each);
                ph = Ph::default();
            }
            ("BatchGetItem", json!({"RequestItems": {t: each}}))
        }
        17 => {
            let mut writes: Vec<Value> = (0..rng.usize(1..5))
                .map(|_| {
                    if rng.u8(..3) == 0 {
                        json!({"DeleteRequest": {"Key": key(rng)}})
                    } else {
                        json!({"PutRequest": {"Item": item(rng)}})
                    }
                })
                .collect();
            dedup(&mut writes);
            (
                "BatchWriteItem",
                json!({"RequestItems": {t: writes}, "ReturnItemCollectionMetrics": "SIZE"}),
            )
        }
        18 => {
            let mut keys: Vec<Value> = (0..rng.usize(1..4)).map(|_| key(rng)).collect();
            dedup(&mut keys);
            let items: Vec<Value> = keys
                .into_iter()
                .map(|k| json!({"Get": {"TableName": t, "Key": k}}))
                .collect();
            ("TransactGetItems", json!({"TransactItems": items}))
        }
        _ => {
            let mut keys: Vec<Value> = (0..rng.usize(1..4)).map(|_| key(rng)).collect();
            dedup(&mut keys);
            let items: Vec<Value> = keys
                .into_iter()
                .map(|k| {
                    let mut one = Ph::default();
                    let (kind, mut op) = match rng.u8(..4) {
                        0 => {
                            let mut it = item(rng);
                            it["PK"] = k["PK"].clone();
                            it["SK"] = k["SK"].clone();
                            ("Put", json!({"TableName": t, "Item": it}))
                        }
                        1 => (
                            "Update",
                            json!({"TableName": t, "Key": k, "UpdateExpression": update(rng, &mut one)}),
                        ),
                        2 => ("Delete", json!({"TableName": t, "Key": k})),
                        _ => (
                            "ConditionCheck",
                            json!({"TableName": t, "Key": k, "ConditionExpression": condition(rng, &mut one, 1)}),
                        ),
                    };
                    if kind != "ConditionCheck" && rng.bool() {
                        op["ConditionExpression"] = json!(condition(rng, &mut one, 1));
                    }
                    one.into(&mut op);
                    json!({kind: op})
                })
                .collect();
            ("TransactWriteItems", json!({"TransactItems": items}))
        }
    };
    ph.into(&mut body);
    if op != "TransactGetItems" && rng.u8(..4) == 0 {
        body["ReturnConsumedCapacity"] = json!(["TOTAL", "INDEXES", "NONE"][rng.usize(..3)]);
    }
    (op, body)
}

/// Keeps the first of equal entries (DynamoDB refuses duplicate keys; that
/// refusal is compared elsewhere).
fn dedup(v: &mut Vec<Value>) {
    let key_of = |x: &Value| {
        let it = x
            .pointer("/PutRequest/Item")
            .or_else(|| x.pointer("/DeleteRequest/Key"))
            .unwrap_or(x);
        format!("{}{}", it["PK"], it["SK"])
    };
    let mut seen = std::collections::HashSet::new();
    v.retain(|x| seen.insert(key_of(x)));
}

/// Filter, projection or Select, Limit: what Query and Scan share.
fn reads(rng: &mut Rng, b: &mut Value, ph: &mut Ph) {
    if rng.bool() {
        b["FilterExpression"] = json!(condition(rng, ph, 1));
    }
    match rng.u8(..4) {
        0 => b["ProjectionExpression"] = json!(projection(rng, ph)),
        1 => b["Select"] = json!("COUNT"),
        _ => {}
    }
    if rng.bool() {
        b["Limit"] = json!(rng.u32(1..6));
    }
}

fn query(rng: &mut Rng, ph: &mut Ph) -> Value {
    let mut b = json!({"TableName": "TABLE", "ScanIndexForward": rng.bool()});
    let cmp = ["=", "<", "<=", ">", ">="][rng.usize(..5)];
    let key = if rng.u8(..3) == 0 {
        b["IndexName"] = json!("byB");
        let hash = ph.name(rng, "b");
        let w = word(rng);
        let mut k = format!("{hash} = {}", ph.value(json!({"S": w})));
        if rng.bool() {
            let v = num(rng);
            k += &format!(" AND a {cmp} {}", ph.value(v));
        }
        k
    } else {
        let p = PKS[rng.usize(..PKS.len())];
        let mut k = format!("PK = {}", ph.value(json!({"S": p})));
        match rng.u8(..4) {
            0 => {
                let s = SKS[rng.usize(..SKS.len())];
                k += &format!(" AND SK {cmp} {}", ph.value(json!({"S": s})));
            }
            1 => {
                let lo = ph.value(json!({"S": "s1"}));
                let hi = ph.value(json!({"S": SKS[rng.usize(1..SKS.len())]}));
                k += &format!(" AND SK BETWEEN {lo} AND {hi}");
            }
            2 => k += &format!(" AND begins_with(SK, {})", ph.value(json!({"S": "s"}))),
            _ => {}
        }
        if rng.bool() {
            b["ConsistentRead"] = json!(true);
        }
        k
    };
    b["KeyConditionExpression"] = json!(key);
    reads(rng, &mut b, ph);
    b
}

/// A response made comparable: set members sorted, BatchGetItem's items
/// sorted, consumed capacity reduced to its presence, the error message
/// under one name.
pub(super) fn normal(op: &str, status: u16, mut v: Value) -> Value {
    fn sets(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if matches!(k.as_str(), "SS" | "NS" | "BS")
                        && let Value::Array(a) = x
                    {
                        a.sort_by_key(Value::to_string);
                    } else {
                        sets(x);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(sets),
            _ => {}
        }
    }
    sets(&mut v);
    numbers(&mut v);
    if status != 200 {
        let mut message = error_message(&v);
        // Departure 11: Local names other paths of a projection.
        if message.starts_with("Invalid ProjectionExpression: Two document paths overlap")
            && let Some(i) = message.find("path one: ")
        {
            message.truncate(i);
        }
        return json!({"status": status, "type": error_name(&v), "message": message,
            "Item": v.get("Item"), "CancellationReasons": v.get("CancellationReasons")});
    }
    // Capacity: its figures are not compared (the engine bills by
    // DynamoDB's rules), its shape is: for reads which of table and indexes
    // it names (with INDEXES, a read of an index is on that index), for
    // writes the table's entry. A write's index entries are compared in
    // `write_capacity_is_reported_per_index`: Local bills an index for an
    // item with only some of its key attributes (departure 18), which the
    // generator makes often.
    if let Some(m) = v.as_object_mut()
        && let Some(mut c) = m.remove("ConsumedCapacity")
    {
        if !matches!(op, "GetItem" | "Query" | "Scan") {
            let entries: Vec<&mut Value> = match &mut c {
                Value::Array(l) => l.iter_mut().collect(),
                one => vec![one],
            };
            for e in entries.into_iter().filter_map(Value::as_object_mut) {
                e.remove("GlobalSecondaryIndexes");
            }
        }
        m.insert("ConsumedCapacity".into(), shape(&c));
    }
    if op == "BatchGetItem"
        && let Some(Value::Object(r)) = v.get_mut("Responses")
    {
        for items in r.values_mut() {
            if let Value::Array(a) = items {
                a.sort_by_key(Value::to_string);
            }
        }
    }
    v
}

/// A JSON value with every number replaced by `0`: its shape.
fn shape(v: &Value) -> Value {
    match v {
        Value::Number(_) => json!(0),
        Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), shape(x))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(shape).collect()),
        other => other.clone(),
    }
}

/// `v` with the table name `from` (a whole JSON string) written `to`.
pub(super) fn with_name(v: &Value, from: &str, to: &str) -> Value {
    let text = v
        .to_string()
        .replace(&format!("\"{from}\""), &format!("\"{to}\""));
    serde_json::from_str(&text).unwrap()
}

/// Numbers in canonical text, which DynamoDB returns (departure 4: Local
/// returns what UpdateItem's arithmetic wrote as it wrote it, `11.0`).
/// Enough for the generator's numbers (no exponents, few digits).
fn numbers(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                match (k.as_str(), x) {
                    ("N", Value::String(n)) if n.contains('.') => {
                        let t = n.trim_end_matches('0').trim_end_matches('.');
                        *n = if t == "-0" { "0".into() } else { t.to_owned() };
                    }
                    ("NS", Value::Array(a)) => {
                        for n in a.iter_mut() {
                            let mut wrapped = json!({"N": n.clone()});
                            numbers(&mut wrapped);
                            *n = wrapped["N"].take();
                        }
                    }
                    (_, x) => numbers(x),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(numbers),
        _ => {}
    }
}

pub(super) fn with_table(body: &Value, table: &str) -> Value {
    with_name(body, "TABLE", table)
}

/// Departure 16: a Query that stopped at its `Limit` on the last item of
/// its key condition returns a LastEvaluatedKey on the endpoint (as on
/// DynamoDB), none on DynamoDB Local. Exactly that difference is dropped:
/// the endpoint's key (`ours`, the response to `body`) goes when Local's
/// response (`local`) has none, the page stopped at the limit, and the page
/// the key starts is empty and last.
async fn limit_bound(url: &str, body: &Value, ours: &mut Value, local: &Value) {
    let Some(key) = ours.get("LastEvaluatedKey").cloned() else {
        return;
    };
    if local.get("LastEvaluatedKey").is_some() || body.get("Limit") != ours.get("ScannedCount") {
        return;
    }
    let mut next = body.clone();
    next["ExclusiveStartKey"] = key;
    let (status, page) = call(url, "Query", &next).await;
    if status == 200
        && page["Count"] == 0
        && page["ScannedCount"] == 0
        && page.get("LastEvaluatedKey").is_none()
        && let Some(m) = ours.as_object_mut()
    {
        m.remove("LastEvaluatedKey");
    }
}

pub(super) async fn create(url: &str, table: &str) {
    let (status, body) = call(
        url,
        "CreateTable",
        &json!({"TableName": table, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                {"AttributeName": "a", "AttributeType": "N"}, {"AttributeName": "b", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
            "GlobalSecondaryIndexes": [{"IndexName": "byB", "KeySchema": [{"AttributeName": "b", "KeyType": "HASH"}, {"AttributeName": "a", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn endpoint_matches_dynamodb_local_on_raw_requests() {
    let seed = std::env::var("SINGLETABLE_RAW_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_2212_u64);
    let mut rng = Rng::with_seed(seed);
    let ours = start(Endpoint::new()).await;
    let local = support::endpoint();
    let (a, b) = ("RawDiff".to_owned(), support::unique_table("RawDiff"));
    create(&ours, &a).await;
    create(&local, &b).await;
    let mut report = Vec::new();
    let mut ops = std::collections::BTreeMap::<&str, (usize, usize)>::new();
    for n in 0..REQUESTS {
        let (op, body) = request(&mut rng);
        let (s1, r1) = call(&ours, op, &with_table(&body, &a)).await;
        let (s2, r2) = call(&local, op, &with_table(&body, &b)).await;
        let tally = ops.entry(op).or_default();
        tally.0 += 1;
        tally.1 += usize::from(s1 == 200);
        let named = |r: Value, t: &str| with_name(&r, t, "TABLE");
        let mut r2 = named(r2, &b);
        if op == "DeleteItem"
            && body
                .get("ReturnConsumedCapacity")
                .is_none_or(|c| c == "NONE")
            && let Some(m) = r2.as_object_mut()
        {
            // Departure 10: Local reports capacity unasked when the item
            // to delete is missing.
            m.remove("ConsumedCapacity");
        }
        let mut r1 = named(r1, &a);
        if op == "Query" && (s1, s2) == (200, 200) {
            limit_bound(&ours, &with_table(&body, &a), &mut r1, &r2).await;
        }
        let (x, y) = (normal(op, s1, r1), normal(op, s2, r2));
        if x != y {
            report.push(format!("#{n} {op} {body}\n  endpoint {x}\n  local    {y}"));
        }
    }
    // What DescribeTable reports of the contents after them: item counts
    // and sizes of the table, the index's count (its size is departure 12:
    // Local counts items with only some of the index's key attributes).
    let described = |url: String, table: String| async move {
        let (status, d) = call(&url, "DescribeTable", &json!({"TableName": table})).await;
        assert_eq!(status, 200, "{d}");
        let t = &d["Table"];
        let ix = &t["GlobalSecondaryIndexes"][0];
        json!([t["ItemCount"], t["TableSizeBytes"], ix["ItemCount"]])
    };
    let (x, y) = (
        described(ours.clone(), a.clone()).await,
        described(local.clone(), b.clone()).await,
    );
    if x != y {
        report.push(format!(
            "DescribeTable counts and sizes\n  endpoint {x}\n  local    {y}"
        ));
    }
    // The generator reaches every operation, each succeeds at times, and
    // most requests succeed (the refusals are compared too, but a
    // generator that only made refusals would test little).
    assert_eq!(ops.len(), 10, "{ops:?}");
    let ok: usize = ops.values().map(|(_, ok)| ok).sum();
    assert!(
        ops.values().all(|(_, ok)| *ok > 0) && ok * 2 >= REQUESTS,
        "too many refusals: {ops:?}"
    );
    assert!(
        report.is_empty(),
        "seed {seed:#x}: {} of {REQUESTS} differ; the first:\n{}",
        report.len(),
        report[..report.len().min(12)].join("\n")
    );
}
