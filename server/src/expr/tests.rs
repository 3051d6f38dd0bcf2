use serde_json::json;
use singletable_core::expr::{AttrRange, Cmp, Condition, Operand, Path};
use singletable_core::request::{SetValue, UpdateAction};
use singletable_core::value::AttributeValue;

use super::*;

fn ph(names: serde_json::Value, values: serde_json::Value) -> Placeholders {
    let mut body = serde_json::Map::new();
    if !names.is_null() {
        body.insert("ExpressionAttributeNames".into(), names);
    }
    if !values.is_null() {
        body.insert("ExpressionAttributeValues".into(), values);
    }
    Placeholders::from_request(&body).unwrap()
}

fn n(s: &str) -> AttributeValue {
    AttributeValue::N(s.into())
}

#[test]
fn conditions_follow_precedence() {
    let mut p = ph(
        json!({"#s": "status"}),
        json!({":a": {"N": "1"}, ":b": {"S": "x"}}),
    );
    let c = condition(
        "ConditionExpression",
        "a = :a OR NOT #s = :b AND attribute_exists(c.d[2])",
        &mut p,
    )
    .unwrap();
    let Condition::Or(left, right) = c else {
        panic!("{c:?}")
    };
    assert_eq!(
        *left,
        Condition::Compare(Operand::Path("a".into()), Cmp::Eq, Operand::Value(n("1")))
    );
    let Condition::And(not, exists) = *right else {
        panic!()
    };
    assert!(matches!(*not, Condition::Not(_)));
    assert_eq!(
        *exists,
        Condition::ExistsAt(Path::new("c").key("d").index(2))
    );
    p.finish().unwrap();
}

#[test]
fn updates_map_onto_the_engine_actions() {
    let mut p = ph(json!(null), json!({":one": {"N": "1"}, ":l": {"L": []}}));
    let a = update("SET a = a + :one, b = if_not_exists(b, :one), c = list_append(:l, c), d = d - :one REMOVE e ADD f :one", &mut p).unwrap();
    assert_eq!(
        a[0],
        UpdateAction::Set("a".into(), SetValue::Increment(n("1")))
    );
    assert_eq!(
        a[1],
        UpdateAction::Set("b".into(), SetValue::IfNotExists(n("1")))
    );
    assert!(matches!(a[2], UpdateAction::Set(_, SetValue::Prepend(_))));
    assert_eq!(
        a[3],
        UpdateAction::Set("d".into(), SetValue::Increment(n("-1")))
    );
    assert_eq!(a[4], UpdateAction::Remove("e".into()));
    assert_eq!(a.len(), 6);
}

#[test]
fn key_conditions_split_equalities_and_range() {
    let mut p = ph(json!(null), json!({":p": {"S": "u"}, ":s": {"S": "O#"}}));
    let k = key_condition("PK = :p AND begins_with(SK, :s)", &mut p).unwrap();
    assert_eq!(
        k.equal,
        vec![("PK".to_string(), AttributeValue::S("u".into()))]
    );
    assert_eq!(
        k.range,
        Some((
            "SK".to_string(),
            AttrRange::BeginsWith(AttributeValue::S("O#".into()))
        ))
    );
}

#[test]
fn the_rules_are_enforced() {
    let msg = |r: Result<Condition, crate::error::ApiError>| r.unwrap_err().message;
    let mut p = ph(json!(null), json!({":a": {"N": "1"}}));
    assert_eq!(
        msg(condition("ConditionExpression", "status = :a", &mut p)),
        "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"
    );
    assert_eq!(
        msg(condition("ConditionExpression", "a = :b", &mut p)),
        "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :b"
    );
    assert_eq!(
        msg(condition("ConditionExpression", "a = ", &mut p)),
        "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"=\""
    );
    assert!(msg(condition("ConditionExpression", &"(".repeat(100), &mut p)).contains("nesting"));
    assert!(
        msg(condition(
            "ConditionExpression",
            &"a = :a AND ".repeat(400),
            &mut p
        ))
        .contains("maximum allowed size")
    );
    let mut p = ph(json!({"#x": "x"}), json!({":a": {"N": "1"}}));
    condition("ConditionExpression", "a = :a", &mut p).unwrap();
    assert_eq!(
        p.finish().unwrap_err().message,
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}"
    );
}

#[test]
fn general_set_forms_and_path_arguments_parse() {
    use singletable_core::request::SetOperand;
    let mut p = ph(json!(null), json!({":v": {"N": "2"}, ":e": {"L": []}}));
    let a = update(
        "SET a = b, c = b + d, e = :v - b, l = list_append(:e, if_not_exists(l, :e))",
        &mut p,
    )
    .unwrap();
    let path = |s: &str| Box::new(SetOperand::Path(s.into()));
    assert_eq!(
        a[0],
        UpdateAction::Set("a".into(), SetValue::Expr(SetOperand::Path("b".into())))
    );
    assert_eq!(
        a[1],
        UpdateAction::Set(
            "c".into(),
            SetValue::Expr(SetOperand::Plus(path("b"), path("d")))
        )
    );
    assert_eq!(
        a[2],
        UpdateAction::Set(
            "e".into(),
            SetValue::Expr(SetOperand::Minus(
                Box::new(SetOperand::Value(n("2"))),
                path("b")
            ))
        )
    );
    assert!(matches!(
        &a[3],
        UpdateAction::Set(_, SetValue::Expr(SetOperand::ListAppend(_, _)))
    ));
    p.finish().unwrap();
    let mut p = ph(json!(null), json!(null));
    let c = condition("ConditionExpression", "begins_with(a, b.c)", &mut p).unwrap();
    assert_eq!(
        c,
        Condition::BeginsWithPath("a".into(), Path::new("b").key("c"))
    );
}
