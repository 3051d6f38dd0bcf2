//! darling's messages in the project's style, and declarations repaired
//! after an unknown option so that the rest of the expansion still runs.
//!
//! darling says `Unknown field: `nmae`. Did you mean `name`?`; we say
//! "unknown option `nmae` in `#[entity(...)]`; did you mean `name`?
//! options are `crate`, `name`, `rename_all`, `table`" (lowercase, and
//! every valid option, which darling itself lists when asked about a name
//! close to none of them).

use syn::spanned::Spanned;

/// The option darling calls unknown in `message`, if that is what it says.
fn unknown(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("Unknown field: `")?;
    rest.split('`').next()
}

/// Every option darling accepts, from its answer to a probe name that is
/// close to none of them (darling lists them when there are fewer than
/// ten).
pub fn probe_options(probe: darling::Error) -> Option<String> {
    probe
        .into_iter()
        .map(|e| e.to_string())
        .find_map(|m| m.split("Available values: ").nth(1).map(str::to_owned))
}

/// Every option `T` reads in `#[attr(...)]`, from darling's answer to a
/// probe (see [`probe_options`]).
pub fn options_of<T: darling::FromDeriveInput>(attr: &str) -> Option<String> {
    let attr = syn::Ident::new(attr, proc_macro2::Span::call_site());
    let probe: syn::DeriveInput = syn::parse_quote!(
        #[#attr(__probe)]
        struct __Probe;
    );
    T::from_derive_input(&probe).err().and_then(probe_options)
}

/// The options of `#[attr(...)]`, which darling does not list (a unit test
/// keeps this in step with `FieldOpts`).
pub const FIELD_OPTIONS: &[&str] = &[
    "created_at",
    "default",
    "from_key",
    "max",
    "max_len",
    "min",
    "min_len",
    "rename",
    "serde",
    "skip",
    "ttl",
    "unique",
    "unpadded",
    "updated_at",
    "validate",
    "verbatim",
    "version",
];

/// The options of `#[table(...)]` besides the indexes (kept in step with
/// `TableOpts` by a unit test).
pub const TABLE_OPTIONS: &[&str] = &[
    "collections",
    "crate",
    "entities",
    "entity_type",
    "name",
    "no_sk",
    "other_items",
    "pk",
    "schema_version",
    "sk",
    "stream",
    "ttl",
];

/// An option list as the messages write it.
pub fn listed(options: &[&str], extra: &str) -> String {
    let mut out: Vec<String> = options.iter().map(|o| format!("`{o}`")).collect();
    if !extra.is_empty() {
        out.push(extra.to_owned());
    }
    out.join(", ")
}

/// `err` with each unknown-option error restyled (see the module docs);
/// `probe` gives the list of valid options (see [`probe_options`]). Other
/// errors get a lowercase first letter.
pub fn restyle(
    err: darling::Error,
    attr: &str,
    probe: impl FnOnce() -> Option<String>,
) -> darling::Error {
    let mut options: Option<Option<String>> = None;
    let mut probe = Some(probe);
    let errors: Vec<darling::Error> = err
        .into_iter()
        .map(|e| {
            let full = e.to_string();
            let span = e.span();
            let (message, place) = split_place(&full);
            let (message, place) = (message.to_owned(), place.map(str::to_owned));
            let text = match unknown(&message) {
                Some(name) if place.is_some() => {
                    let at = place.as_deref().unwrap_or_default();
                    let mut text = format!("unknown option `{name}` in `#[{attr}({at}(...))]`");
                    if let Some(best) = message.split("Did you mean ").nth(1) {
                        text.push_str("; did you mean ");
                        text.push_str(best.trim().trim_end_matches('?'));
                        text.push('?');
                    } else if let Some(list) = message.split("Available values: ").nth(1) {
                        text.push_str("; options are ");
                        text.push_str(list);
                    }
                    text
                }
                Some(name) => {
                    let list = options
                        .get_or_insert_with(|| probe.take().and_then(|p| p()))
                        .clone();
                    let mut text = format!("unknown option `{name}` in `#[{attr}(...)]`");
                    if let Some(best) = message.split("Did you mean ").nth(1) {
                        text.push_str("; did you mean ");
                        text.push_str(best.trim().trim_end_matches('?'));
                        text.push('?');
                    } else {
                        text.push(';');
                    }
                    if let Some(list) = list {
                        text.push_str(" options are ");
                        text.push_str(&list);
                    }
                    text
                }
                // darling's ` at migrate` names the option the span already
                // points at.
                None => match message
                    .strip_prefix("Missing field `")
                    .and_then(|r| r.split('`').next())
                {
                    Some(name) => format!("missing option `{name}` in `#[{attr}(...)]`"),
                    None => lowercase_first(&message),
                },
            };
            darling::Error::custom(text).with_span(&span)
        })
        .collect();
    darling::Error::multiple(errors)
}

fn lowercase_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// A darling message and where the option it is about sits: darling
/// appends the path of a nested option, ` at gsi1` or ` at gsi1/pk`.
fn split_place(full: &str) -> (&str, Option<&str>) {
    match full.rsplit_once(" at ") {
        Some((m, at)) if !at.is_empty() && !at.contains(' ') => (m, Some(at)),
        _ => (full, None),
    }
}

/// An unknown option: the path of the options it sits in, its name, and
/// the valid option it is a misspelling of, when one is close.
type Unknown = (Vec<String>, String, Option<String>);

/// The valid option darling's message says `name` is closest to: its
/// "Did you mean `x`?", or the closest of its "Available values".
fn replacement(message: &str, name: &str) -> Option<String> {
    if let Some(best) = message.split("Did you mean `").nth(1) {
        return best.split('`').next().map(str::to_owned);
    }
    let list = message.split("Available values: ").nth(1)?;
    let options: Vec<String> = list
        .split(',')
        .map(|o| o.trim().trim_matches('`').to_owned())
        .filter(|o| !o.is_empty())
        .collect();
    crate::internals::hint::closest(name, &options).map(str::to_owned)
}

/// The valid options of `T` where `meta` is, from darling's answer to a
/// probe name close to none of them.
fn meta_options<T: darling::FromMeta>(meta: &syn::Meta) -> Option<Vec<String>> {
    let path = meta.path();
    let probe: syn::Meta = syn::parse_quote!(#path(__probe));
    let list = T::from_meta(&probe).err().and_then(probe_options)?;
    Some(
        list.split(',')
            .map(|o| o.trim().trim_matches('`').to_owned())
            .filter(|o| !o.is_empty())
            .collect(),
    )
}

fn listed_names(options: &[String]) -> String {
    options
        .iter()
        .map(|o| format!("`{o}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The unknown options `err` reports, each with its path and replacement
/// (among `options` when darling's message lists none).
fn unknowns(err: &darling::Error, options: Option<&[String]>) -> Vec<Unknown> {
    err.clone()
        .into_iter()
        .filter_map(|e| {
            let full = e.to_string();
            let (message, place) = split_place(&full);
            let name = unknown(message)?.to_owned();
            let path = place.map_or_else(Vec::new, |p| p.split('/').map(str::to_owned).collect());
            let fix = replacement(message, &name).or_else(|| {
                options.and_then(|o| crate::internals::hint::closest(&name, o).map(str::to_owned))
            });
            Some((path, name, fix))
        })
        .collect()
}

/// A copy of `attrs` with the options of `#[attr(...)]` that `err` calls
/// unknown repaired, at any depth (`bogus` in `#[table(gsi1(bogus))]`): a
/// misspelling of a valid option that is not given too is read as that
/// option (so `nmae = "App"` does not also report a missing `name`), any
/// other unknown option is left out. `None` when `err` calls none unknown.
pub fn without_unknown(
    attrs: &[syn::Attribute],
    attr: &str,
    err: &darling::Error,
) -> Option<Vec<syn::Attribute>> {
    let unknowns = unknowns(err, None);
    if unknowns.is_empty() {
        return None;
    }
    let mut out = attrs.to_vec();
    for a in out.iter_mut().filter(|a| a.path().is_ident(attr)) {
        let Ok(metas) = a.parse_args_with(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        ) else {
            continue;
        };
        let kept = without(metas, &unknowns);
        let path = a.path().clone();
        *a = syn::parse_quote!(#[#path(#(#kept),*)]);
    }
    Some(out)
}

/// `meta` (`#[gsi1(kp = "...")]`) repaired as [`without_unknown`] repairs
/// an attribute, for the options `err` calls unknown inside it.
pub fn repaired_meta(
    meta: &syn::Meta,
    err: &darling::Error,
    options: Option<&[String]>,
) -> Option<syn::Meta> {
    let unknowns = unknowns(err, options);
    let syn::Meta::List(list) = meta else {
        return None;
    };
    if unknowns.is_empty() {
        return None;
    }
    let metas = list
        .parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
        .ok()?;
    let kept = without(metas, &unknowns);
    let path = &list.path;
    Some(syn::parse_quote!(#path(#(#kept),*)))
}

/// Parses `meta` as `T`; after an unknown option, reports it (restyled, in
/// `#[attr(...)]`) into `errors` and parses the repaired meta, so that
/// one misspelt option is one error and the declaration is still read.
pub fn from_meta_repaired<T: darling::FromMeta>(
    meta: &syn::Meta,
    attr: &str,
    errors: &mut darling::error::Accumulator,
) -> Option<T> {
    let e = match T::from_meta(meta) {
        Ok(t) => return Some(t),
        Err(e) => e,
    };
    // The valid options, from darling's answer to a probe name.
    let options = meta_options::<T>(meta);
    let repaired = repaired_meta(meta, &e, options.as_deref()).and_then(|m| T::from_meta(&m).ok());
    let e = match &repaired {
        // The repair read it: only the unknown options were mistakes
        // (a `pk` reported missing was the misspelt one).
        Some(_) => darling::Error::multiple(
            e.into_iter()
                .filter(|e| unknown(split_place(&e.to_string()).0).is_some())
                .collect(),
        ),
        None => e,
    };
    errors.push(restyle(e, attr, || options.map(|o| listed_names(&o))));
    repaired
}

fn renamed(m: syn::Meta, to: &str) -> syn::Meta {
    let ident = syn::Ident::new(to, m.path().span());
    match m {
        syn::Meta::Path(_) => syn::Meta::Path(ident.into()),
        syn::Meta::List(mut l) => {
            l.path = ident.into();
            syn::Meta::List(l)
        }
        syn::Meta::NameValue(mut nv) => {
            nv.path = ident.into();
            syn::Meta::NameValue(nv)
        }
    }
}

/// `metas` with the unknown options repaired, each looked for along its
/// path.
fn without(
    metas: syn::punctuated::Punctuated<syn::Meta, syn::Token![,]>,
    unknowns: &[Unknown],
) -> Vec<syn::Meta> {
    let given: Vec<String> = metas
        .iter()
        .filter_map(|m| m.path().get_ident().map(ToString::to_string))
        .collect();
    metas
        .into_iter()
        .filter_map(|m| {
            let name = m.path().get_ident().map(ToString::to_string);
            if let Some((_, _, fix)) = unknowns
                .iter()
                .find(|(path, n, _)| path.is_empty() && Some(n) == name.as_ref())
            {
                return match fix {
                    Some(to) if !given.contains(to) => Some(renamed(m, to)),
                    _ => None,
                };
            }
            let inner: Vec<Unknown> = unknowns
                .iter()
                .filter(|(path, _, _)| path.first() == name.as_ref())
                .map(|(path, n, fix)| (path[1..].to_vec(), n.clone(), fix.clone()))
                .collect();
            let syn::Meta::List(list) = &m else {
                return Some(m);
            };
            if inner.is_empty() {
                return Some(m);
            }
            let Ok(nested) = list.parse_args_with(
                syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            ) else {
                return Some(m);
            };
            let kept = without(nested, &inner);
            let path = &list.path;
            Some(syn::parse_quote!(#path(#(#kept),*)))
        })
        .collect()
}

/// Parses `input` with `parse`; after an unknown option in `#[attr(...)]`,
/// parses it again without that option, and gives the (restyled) error
/// beside the result, so the derive reports it and still has a model.
/// `probe` lists the valid options, as for [`restyle`].
pub fn parse_repaired<T>(
    input: &syn::DeriveInput,
    attr: &str,
    parse: impl Fn(&syn::DeriveInput) -> darling::Result<T>,
    probe: impl FnOnce() -> Option<String>,
) -> Result<(T, Option<darling::Error>), darling::Error> {
    let e = match parse(input) {
        Ok(t) => return Ok((t, None)),
        Err(e) => e,
    };
    // The options of the type, and those of its variants (`StrEnum`).
    let repaired = without_unknown(&input.attrs, attr, &e).and_then(|attrs| {
        let mut input = input.clone();
        input.attrs = attrs;
        if let syn::Data::Enum(data) = &mut input.data {
            for v in &mut data.variants {
                if let Some(attrs) = without_unknown(&v.attrs, attr, &e) {
                    v.attrs = attrs;
                }
            }
        }
        parse(&input).ok()
    });
    // When the repair reads it, only the unknown options were mistakes (a
    // field reported missing was the misspelt one).
    let e = match &repaired {
        Some(_) => darling::Error::multiple(
            e.into_iter()
                .filter(|e| unknown(split_place(&e.to_string()).0).is_some())
                .collect(),
        ),
        None => e,
    };
    let e = restyle(e, attr, probe);
    match repaired {
        Some(t) => Ok((t, Some(e))),
        None => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option names a darling receiver declares, read from its source.
    fn declared(source: &str, receiver: &str) -> Vec<String> {
        let file = syn::parse_file(source).unwrap();
        let item = file
            .items
            .iter()
            .find_map(|i| match i {
                syn::Item::Struct(s) if s.ident == receiver => Some(s),
                _ => None,
            })
            .unwrap();
        let mut out = Vec::new();
        for f in &item.fields {
            let name = f.ident.as_ref().unwrap().to_string();
            if ["ident", "ty", "attrs"].contains(&name.as_str())
                || name.starts_with("gsi")
                || name.starts_with("lsi")
                || name.starts_with("vector")
            {
                continue;
            }
            let mut renamed = None;
            for a in &f.attrs {
                if a.path().is_ident("darling") {
                    let _ = a.parse_nested_meta(|m| {
                        if m.path.is_ident("rename") {
                            let v: syn::LitStr = m.value()?.parse()?;
                            renamed = Some(v.value());
                        } else if m.input.peek(syn::Token![=]) {
                            let _: syn::Expr = m.value()?.parse()?;
                        }
                        Ok(())
                    });
                }
            }
            out.push(renamed.unwrap_or(name));
        }
        out.sort();
        out
    }

    #[test]
    fn option_lists_match_the_receivers() {
        let mut field: Vec<String> = FIELD_OPTIONS.iter().map(|s| (*s).to_owned()).collect();
        field.sort();
        assert_eq!(declared(include_str!("attr.rs"), "FieldOpts"), field);
        let mut table: Vec<String> = TABLE_OPTIONS.iter().map(|s| (*s).to_owned()).collect();
        table.sort();
        assert_eq!(declared(include_str!("table.rs"), "TableOpts"), table);
    }
}
