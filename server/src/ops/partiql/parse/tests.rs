use super::*;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

#[test]
fn select_with_every_predicate() {
    let st = statement(
        r#"SELECT a, "b".c[1] FROM "T"."I" WHERE pk = ? AND (n BETWEEN 1 AND 2 OR NOT x IN ['a', 'b']) AND begins_with(sk, 'p') AND m IS NOT MISSING"#,
        vec![s("k")],
    )
    .unwrap();
    let Statement::Select {
        table,
        index,
        projection,
        filter,
        ..
    } = st
    else {
        panic!("not a select")
    };
    assert_eq!((table.as_str(), index.as_deref()), ("T", Some("I")));
    assert_eq!(projection.unwrap().len(), 2);
    let f = filter.unwrap();
    let mut r = singletable_core::expr::Rendered::default();
    assert_eq!(
        r.condition(&f),
        "(((#n0 = :v0 AND (#n1 BETWEEN :v1 AND :v2 OR (NOT #n2 IN (:v3, :v4)))) AND begins_with(#n3, :v5)) AND (NOT attribute_not_exists(#n4)))"
    );
}

#[test]
fn literals_of_every_kind() {
    let st = statement(
        "INSERT INTO t VALUE {'pk': 'a''b', 'n': -1.5e2, 'b': true, 'z': null, 'l': [1, 'x'], 'm': {'k': 2}, 'ss': <<'a', 'b'>>, 'ns': <<1, 2>>}",
        vec![],
    )
    .unwrap();
    let Statement::Insert { item, .. } = st else {
        panic!("not an insert")
    };
    assert_eq!(item["pk"], s("a'b"));
    assert_eq!(item["n"], AttributeValue::N("-1.5e2".into()));
    assert_eq!(item["z"], AttributeValue::Null(true));
    assert_eq!(item["ss"], AttributeValue::Ss(vec!["a".into(), "b".into()]));
    assert!(matches!(item["m"], AttributeValue::M(_)));
}

#[test]
fn malformed_statements_are_refused() {
    for bad in [
        "",
        "SELEC * FROM t",
        "SELECT * FROM",
        "SELECT * FROM t WHERE",
        "INSERT INTO t VALUE 'x'",
        "UPDATE t WHERE a = 1",
        "SELECT * FROM t WHERE a = 'x",
        "DELETE FROM t",
    ] {
        let e = statement(bad, vec![]).unwrap_err();
        assert!(e.kind.ends_with("ValidationException"), "{bad}: {e:?}");
    }
    let e = statement("SELECT * FROM t WHERE a = ?", vec![]).unwrap_err();
    assert_eq!(
        e.message,
        "Number of parameters in request and statement don't match."
    );
}

#[test]
fn update_actions() {
    let st = statement(
        "UPDATE t SET a = 1, n = n + 2, l = list_append(l, [3]) SET s = set_add(s, <<'x'>>) REMOVE r WHERE pk = 'k' RETURNING ALL NEW *",
        vec![],
    )
    .unwrap();
    let Statement::Update {
        actions, returning, ..
    } = st
    else {
        panic!("not an update")
    };
    assert_eq!(actions.len(), 5);
    assert_eq!(returning, ReturnValues::AllNew);
}
