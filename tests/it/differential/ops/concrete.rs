//! The generated operations made concrete: the items and the requests one
//! case sends, with every partition value prefixed.

use super::*;

pub fn item(key: &Key, attrs: &[(&'static str, Val)], prefix: &str) -> Item {
    let mut item = key.make(prefix);
    for (a, v) in attrs {
        item.insert((*a).to_owned(), v.make(prefix));
    }
    item
}

fn put(
    table: &str,
    prefix: &str,
    key: &Key,
    attrs: &[(&'static str, Val)],
    cond: &Option<Condition>,
    fail_item: bool,
) -> PutItem {
    PutItem {
        table: table.to_owned(),
        item: item(key, attrs, prefix),
        condition: cond.clone(),
        return_old: false,
        return_on_condition_failure: fail_item,
    }
}

fn update(
    table: &str,
    prefix: &str,
    key: &Key,
    actions: &[Act],
    cond: &Option<Condition>,
    fail_item: bool,
) -> UpdateItem {
    UpdateItem {
        table: table.to_owned(),
        key: key.make(prefix),
        actions: actions.iter().map(|a| a.make(prefix)).collect(),
        condition: cond.clone(),
        return_values: ReturnValues::None,
        return_on_condition_failure: fail_item,
    }
}

fn delete(
    table: &str,
    prefix: &str,
    key: &Key,
    cond: &Option<Condition>,
    fail_item: bool,
) -> DeleteItem {
    DeleteItem {
        table: table.to_owned(),
        key: key.make(prefix),
        condition: cond.clone(),
        return_old: false,
        return_on_condition_failure: fail_item,
    }
}

/// A request of the trait, made concrete.
pub enum Request {
    Put(PutItem),
    Update(UpdateItem),
    Delete(DeleteItem),
    Get(GetItem),
    Query(Q),
    Scan(ScanRequest),
    Transact(TransactWrite),
    BatchWrite(BatchWrite),
    BatchGet(BatchGet),
    TransactGet(TransactGet),
}

pub fn request(op: &Op, table: &str, prefix: &str) -> Request {
    let t = table;
    match op {
        Op::Put {
            key,
            attrs,
            cond,
            return_old,
            fail_item,
        } => {
            let mut p = put(t, prefix, key, attrs, cond, *fail_item);
            p.return_old = *return_old;
            Request::Put(p)
        }
        Op::Update {
            key,
            actions,
            cond,
            rv,
            fail_item,
        } => {
            let mut u = update(t, prefix, key, actions, cond, *fail_item);
            u.return_values = *rv;
            Request::Update(u)
        }
        Op::Delete {
            key,
            cond,
            return_old,
            fail_item,
        } => {
            let mut d = delete(t, prefix, key, cond, *fail_item);
            d.return_old = *return_old;
            Request::Delete(d)
        }
        Op::Get(key, consistent) => Request::Get(GetItem {
            table: t.to_owned(),
            key: key.make(prefix),
            consistent: *consistent,
        }),
        Op::Query(q) => Request::Query(q.clone()),
        Op::Scan {
            index,
            limit,
            start,
            filter,
            segment,
        } => {
            let mine = Condition::BeginsWith("PK".into(), AttributeValue::S(prefix.to_owned()));
            Request::Scan(ScanRequest {
                table: t.to_owned(),
                index: index.map(|i| ["GSI1", "GSI2"][(i as usize - 1) % 2].to_owned()),
                filter: Some(match filter {
                    Some(f) => mine.and(f.clone()),
                    None => mine,
                }),
                limit: *limit,
                consistent: false,
                start: start.as_ref().map(|k| k.make(prefix)),
                segment: segment.map(|(segment, total_segments)| ScanSegment {
                    segment,
                    total_segments,
                }),
                projection: None,
            })
        }
        Op::Transact(ops, token) => Request::Transact(TransactWrite {
            ops: ops
                .iter()
                .map(|o| match o {
                    TxOp::Put(k, a, c, f) => TransactWriteOp::Put(put(t, prefix, k, a, c, *f)),
                    TxOp::Update(k, a, c, f) => {
                        TransactWriteOp::Update(update(t, prefix, k, a, c, *f))
                    }
                    TxOp::Delete(k, c, f) => TransactWriteOp::Delete(delete(t, prefix, k, c, *f)),
                    TxOp::Check(k, c, f) => TransactWriteOp::ConditionCheck(ConditionCheck {
                        table: t.to_owned(),
                        key: k.make(prefix),
                        condition: c.clone(),
                        return_on_condition_failure: *f,
                    }),
                })
                .collect(),
            token: token.map(|n| format!("{prefix}tok{n}")),
        }),
        Op::BatchWrite(ops) => Request::BatchWrite(BatchWrite {
            table: t.to_owned(),
            ops: ops
                .iter()
                .map(|(k, attrs)| match attrs {
                    Some(a) => BatchOp::Put(item(k, a, prefix)),
                    None => BatchOp::Delete(k.make(prefix)),
                })
                .collect(),
        }),
        Op::BatchGet(keys) => Request::BatchGet(BatchGet {
            table: t.to_owned(),
            keys: keys.iter().map(|k| k.make(prefix)).collect(),
            consistent: false,
        }),
        Op::TransactGet(keys) => Request::TransactGet(TransactGet {
            gets: keys
                .iter()
                .map(|k| (t.to_owned(), k.make(prefix)))
                .collect(),
        }),
    }
}
