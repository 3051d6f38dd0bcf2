//! Index key declarations shared by the table's global indexes and its
//! vector indexes: typed attributes (`tenantId = S`), and projections.

use darling::FromMeta;
use darling::util::SpannedValue;
use proc_macro2::Span;
use syn::spanned::Spanned;

/// Reports `name` (of a table or an index, `what`) when DynamoDB would
/// refuse it: 3 to 255 characters among `a-z A-Z 0-9 _ - .`.
pub fn check_name(
    what: &str,
    name: &SpannedValue<String>,
    errors: &mut darling::error::Accumulator,
) {
    let len = name.chars().count();
    let bad = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')));
    let problem = match bad {
        Some(' ') => "holds a space".to_owned(),
        Some(c) => format!("holds `{c}`"),
        None if len < 3 => format!("is {len} character{} long", if len == 1 { "" } else { "s" }),
        None if len > 255 => format!("is {len} characters long"),
        None => return,
    };
    errors.push(
        darling::Error::custom(format!(
            "DynamoDB refuses this {what} name: it {problem}; a name has 3 to 255 characters among `a-z A-Z 0-9 _ - .`"
        ))
        .with_span(&name.span()),
    );
}

/// One attribute of a multi-attribute key: `tenantId = S`.
#[derive(Clone)]
pub struct KeyAttrDecl {
    pub name: String,
    pub kind: String,
    pub span: Span,
}

/// A global index's `pk`/`sk`: the synthetic attribute's name
/// (`pk = "GSI1PK"`), or the attributes of a multi-attribute key
/// (`pk(tenantId = S, region = S)`).
pub enum GsiKey {
    Name(SpannedValue<String>),
    Attrs(Vec<KeyAttrDecl>, Span),
}

impl FromMeta for GsiKey {
    fn from_meta(item: &syn::Meta) -> darling::Result<Self> {
        match item {
            syn::Meta::List(list) => {
                let span = list.path.span();
                let expected = "expected `attribute = S`, `= N` or `= B`, e.g. `pk(tenantId = S, region = S)`, or a quoted name for any other attribute name: `pk(\"Customer Id\" = S)`";
                let items = list
                    .parse_args_with(
                        syn::punctuated::Punctuated::<KeyAttrItem, syn::Token![,]>::parse_terminated,
                    )
                    .map_err(|e| darling::Error::custom(expected).with_span(&e.span()))?;
                let mut errors = darling::Error::accumulator();
                let mut attrs = Vec::new();
                for item in items {
                    let (name, span) = item.name;
                    if name.is_empty() || name.len() > 255 {
                        errors.push(
                            darling::Error::custom(
                                "a key attribute name has 1 to 255 bytes in DynamoDB",
                            )
                            .with_span(&span),
                        );
                        continue;
                    }
                    let kind = item.kind.to_string();
                    if !matches!(kind.as_str(), "S" | "N" | "B") {
                        errors.push(
                            darling::Error::custom(format!(
                                "unknown key attribute type; expected `S` (string), `N` (number) or `B` (binary), e.g. `{name} = S`"
                            ))
                            .with_span(&item.kind),
                        );
                        continue;
                    }
                    attrs.push(KeyAttrDecl { name, kind, span });
                }
                errors.finish()?;
                if attrs.is_empty() {
                    return Err(darling::Error::custom(expected).with_span(&list.path));
                }
                Ok(GsiKey::Attrs(attrs, span))
            }
            other => {
                let v: SpannedValue<String> = FromMeta::from_meta(other)?;
                Ok(GsiKey::Name(v))
            }
        }
    }
}

/// `tenantId = S` or `"Customer Id" = S` in a multi-attribute key: the
/// attribute's name (any DynamoDB name when quoted) and its type.
struct KeyAttrItem {
    name: (String, Span),
    kind: syn::Ident,
}

impl syn::parse::Parse for KeyAttrItem {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let name = if input.peek(syn::LitStr) {
            let lit: syn::LitStr = input.parse()?;
            (lit.value(), lit.span())
        } else {
            let ident: syn::Ident = input.parse()?;
            (ident.to_string(), ident.span())
        };
        input.parse::<syn::Token![=]>()?;
        Ok(Self {
            name,
            kind: input.parse()?,
        })
    }
}

impl GsiKey {
    pub fn name(&self) -> Option<&SpannedValue<String>> {
        match self {
            GsiKey::Name(n) => Some(n),
            GsiKey::Attrs(..) => None,
        }
    }
}

/// What an index copies besides the keys.
pub enum Projection {
    All,
    KeysOnly,
    /// `include(a, b)`: these attributes.
    Include(Vec<String>),
}
