//! `every_option_mistake_is_one_error`: every option of every derive,
//! misspelt one at a time, gives exactly one error from the derive.
//!
//! Each declaration below is valid and marks its options `⟨name⟩`. The test
//! first expands it as written (no error), then once per marked option
//! with that option misspelt and the others as written, and counts the
//! `compile_error!` invocations in the expansion. That the code around a
//! derive that reported an error sees no second one (its API is still
//! emitted) is what the `tests/ui/after_error` cases check with rustc.

use proc_macro2::{TokenStream, TokenTree};

type Derive = fn(&syn::DeriveInput) -> TokenStream;

/// `(derive, its name, a valid declaration with its options marked)`.
fn declarations() -> Vec<(Derive, &'static str, &'static str)> {
    vec![
        (
            super::table::derive,
            "Table",
            r#"
            #[table(⟨name⟩ = "App", ⟨pk⟩ = "PK", ⟨sk⟩ = "SK", ⟨entity_type⟩ = "entityType",
                    ⟨ttl⟩ = "expiresAt", ⟨entities⟩(User), ⟨collections⟩(Owned),
                    ⟨crate⟩ = ::singletable, ⟨stream⟩ = new_and_old_images,
                    ⟨schema_version⟩ = "schemaVersion", ⟨other_items⟩ = skip,
                    gsi1(⟨name⟩ = "ByEmail", ⟨pk⟩ = "EmailPK", ⟨sk⟩ = "EmailSK"),
                    gsi2(⟨no_sk⟩, ⟨keys_only⟩),
                    gsi3(⟨include⟩(price, title)),
                    gsi4(⟨pk⟩(tenantId = S), ⟨sk⟩(createdAt = N)),
                    lsi1(⟨name⟩ = "ByDate", ⟨sk⟩ = "LSI1SK"))]
            pub struct App;
            "#,
        ),
        (
            super::table::derive,
            "Table",
            r#"
            #[table(name = "Single", ⟨no_sk⟩)]
            pub struct Single;
            "#,
        ),
        (
            super::table::derive,
            "Table",
            r#"
            #[table(name = "Shop",
                    vector1(⟨name⟩ = "Similar", ⟨attribute⟩ = "emb", ⟨dimensions⟩ = 2,
                            ⟨distance⟩ = cosine, ⟨hash⟩(category = S), ⟨filter⟩(price = N),
                            ⟨include⟩(title)),
                    vector2(dimensions = 2, distance = euclidean, ⟨keys_only⟩))]
            pub struct Shop;
            "#,
        ),
        (
            super::entity::derive,
            "Entity",
            r#"
            #[entity(table = Shop)]
            #[pk("PRODUCT#<id>")]
            #[sk("DETAILS")]
            #[vector1(⟨vector⟩ = emb, ⟨hash⟩(category), ⟨filter⟩(price))]
            #[access(similar, ⟨index⟩ = vector1)]
            pub struct Product {
                pub id: String,
                pub category: String,
                pub price: u32,
                pub emb: Vec<f32>,
            }
            "#,
        ),
        (
            super::entity::derive,
            "Entity",
            r#"
            #[entity(⟨table⟩ = App, ⟨name⟩ = "User", ⟨rename_all⟩ = "camelCase", ⟨crate⟩ = ::singletable, ⟨version⟩ = 2, ⟨migrate⟩(v1 = UserV1))]
            #[pk("USER#<id>")]
            #[sk("PROFILE#<handle>")]
            #[gsi1(⟨pk⟩ = "EMAIL#<email>", ⟨sk⟩ = "USER#<id>", ⟨when⟩ = active)]
            #[gsi2(⟨pk⟩ = "DAY#<day>", ⟨sk⟩ = "USER#<id>", ⟨shards⟩ = 4)]
            #[access(by_email, ⟨index⟩ = gsi1)]
            #[access(ids_by_email, index = gsi1, ⟨keys⟩)]
            #[access(listing_by_email, index = gsi1, ⟨select⟩ = Listing)]
            pub struct User {
                #[attr(⟨from_key⟩)]
                pub id: String,
                #[attr(⟨verbatim⟩)]
                pub handle: String,
                pub email: String,
                #[attr(⟨unpadded⟩)]
                pub day: u32,
                pub active: bool,
                #[attr(⟨rename⟩ = "displayName", ⟨min_len⟩ = 1, ⟨max_len⟩ = 64, ⟨validate⟩ = check_name)]
                pub name: String,
                #[attr(⟨skip⟩, ⟨default⟩ = fresh)]
                pub cache: Vec<u8>,
                #[attr(⟨serde⟩)]
                pub prefs: Prefs,
                #[attr(⟨min⟩ = 0, ⟨max⟩ = 150)]
                pub age: u32,
                #[attr(⟨ttl⟩)]
                pub expires_at: i64,
                #[attr(⟨created_at⟩)]
                pub created: Stamp,
                #[attr(⟨updated_at⟩)]
                pub updated: Stamp,
                #[attr(⟨unique⟩ = "USERNAME#<login>")]
                pub login: String,
            }
            "#,
        ),
        (
            super::entity::derive,
            "Entity",
            r#"
            #[entity(table = App, ⟨untyped⟩)]
            #[pk("LOG#<id>")]
            #[sk("LOG")]
            pub struct Log {
                pub id: String,
                #[attr(⟨version⟩)]
                pub version: u64,
            }
            "#,
        ),
        (
            super::entity::derive,
            "Entity",
            r#"
            #[entity(table = App, ⟨adopt⟩ = keys)]
            #[pk("LEGACY#<id>")]
            #[sk("LEGACY")]
            pub struct Legacy {
                pub id: String,
            }
            "#,
        ),
        (
            super::collection::derive,
            "Collection",
            r#"
            #[collection(⟨index⟩ = gsi1, ⟨sk_prefix⟩ = "OWNED#", ⟨partition_from⟩ = Account)]
            pub enum Owned {
                Repo(Repo),
                Issue(Issue),
            }
            "#,
        ),
        (
            super::str_enum::derive,
            "StrEnum",
            r#"
            #[str_enum(⟨rename_all⟩ = "SCREAMING_SNAKE_CASE", ⟨crate⟩ = ::singletable)]
            pub enum Status {
                Open,
                #[str_enum(⟨rename⟩ = "DONE")]
                Closed,
            }
            "#,
        ),
        (
            super::document::derive,
            "Document",
            r#"
            #[document(⟨rename_all⟩ = "camelCase", ⟨crate⟩ = ::singletable)]
            pub struct Address {
                #[attr(⟨rename⟩ = "zip")]
                pub postal_code: String,
                #[attr(⟨skip⟩)]
                pub cached: bool,
                #[attr(⟨default⟩)]
                pub floor: u32,
                #[attr(⟨serde⟩)]
                pub geo: Geo,
            }
            "#,
        ),
    ]
}

/// The declaration with the `k`-th marked option misspelt (none when
/// `k` is `None`) and the markers removed.
fn variant(source: &str, k: Option<usize>) -> (String, Option<String>) {
    let mut out = String::new();
    let mut rest = source;
    let mut i = 0;
    let mut misspelt = None;
    while let Some(start) = rest.find('⟨') {
        out.push_str(&rest[..start]);
        let after = &rest[start + '⟨'.len_utf8()..];
        let end = after.find('⟩').expect("a marker is closed");
        let name = &after[..end];
        if Some(i) == k {
            let wrong = misspell(name);
            out.push_str(&wrong);
            misspelt = Some(format!("`{name}` as `{wrong}`"));
        } else {
            out.push_str(name);
        }
        rest = &after[end + '⟩'.len_utf8()..];
        i += 1;
    }
    out.push_str(rest);
    (out, misspelt)
}

/// A typo a hand makes: the first two letters swapped (`nmae`), or a
/// letter doubled when they are the same.
fn misspell(name: &str) -> String {
    let mut c: Vec<char> = name.chars().collect();
    if c.len() >= 2 && c[0] != c[1] {
        c.swap(0, 1);
    } else {
        c.insert(0, c[0]);
    }
    c.into_iter().collect()
}

fn markers(source: &str) -> usize {
    source.matches('⟨').count()
}

/// The `compile_error!` invocations in `tokens`.
fn errors(tokens: TokenStream) -> Vec<String> {
    let mut found = Vec::new();
    let mut trees = tokens.into_iter().peekable();
    while let Some(tree) = trees.next() {
        match tree {
            TokenTree::Ident(ident) if ident == "compile_error" => {
                let bang = matches!(trees.next(), Some(TokenTree::Punct(p)) if p.as_char() == '!');
                if let (true, Some(TokenTree::Group(g))) = (bang, trees.next()) {
                    found.push(g.stream().to_string());
                }
            }
            TokenTree::Group(g) => found.extend(errors(g.stream())),
            _ => {}
        }
    }
    found
}

#[test]
fn every_option_mistake_is_one_error() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (derive, name, source) in declarations() {
        let (valid, _) = variant(source, None);
        let input: syn::DeriveInput =
            syn::parse_str(&valid).unwrap_or_else(|e| panic!("{name}: {e}\n{valid}"));
        let clean = errors(derive(&input));
        assert!(
            clean.is_empty(),
            "the valid `{name}` declaration gives errors: {clean:?}\n{valid}"
        );
        for k in 0..markers(source) {
            let (text, misspelt) = variant(source, Some(k));
            let misspelt = misspelt.expect("marker k exists");
            let input: syn::DeriveInput =
                syn::parse_str(&text).unwrap_or_else(|e| panic!("{name}, {misspelt}: {e}"));
            let found = errors(derive(&input));
            checked += 1;
            if found.len() != 1 {
                wrong.push(format!(
                    "{name}, {misspelt}: {} errors {found:#?}",
                    found.len()
                ));
            } else if !found[0].contains("unknown") {
                wrong.push(format!(
                    "{name}, {misspelt}: the error does not name the unknown option: {}",
                    found[0]
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {checked} misspelt options did not give one error:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(checked >= 60, "only {checked} options walked");
}
