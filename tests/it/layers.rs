//! The runtime's modules form floors that import only downward (the
//! README's "Code layout"): each module of `runtime/src` may name, through
//! `crate::…` paths in its code, modules of its own floor or lower ones,
//! and the modules import each other in no circle. Unit tests
//! (`#[cfg(test)]`) and doc comments are left out; `lib.rs` gathers every
//! floor and is exempt. The embedded backend (`embedded/`), the AWS
//! driver (`aws/`) and the tooling (`tools/`) are crates of their own, on
//! top of the runtime: Cargo keeps the runtime from naming them, and
//! `runtime_builds_no_http_client` keeps the driver's HTTP stack out of it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;

/// The floors, bottom first: a module's file or folder under `runtime/src`.
const FLOORS: &[(&str, &[&str])] = &[
    (
        "values",
        &[
            "codec_error",
            "value",
            "field_codec",
            "capacity",
            "distance",
        ],
    ),
    ("expressions and requests", &["expr", "request"]),
    ("errors", &["error"]),
    (
        "codecs and readers",
        &[
            "key",
            "timestamp",
            "serde_bridge",
            "clock",
            "size",
            "trace",
            "page",
            "reader",
            "ttl",
        ],
    ),
    ("executors", &["exec", "admin"]),
    (
        "declarations",
        &[
            "shape",
            "entity",
            "fields",
            "unique",
            "collection",
            "definition",
            "nested",
        ],
    ),
    (
        "typed operations",
        &[
            "db", "query", "sort", "batch", "guarded", "update", "transact", "shard", "backend",
            "stream", "backfill", "vector",
        ],
    ),
    ("design checks", &["design"]),
    ("support for generated code", &["__private"]),
];

fn cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.meta.to_token_stream().to_string().contains("test"))
}

/// The modules named by `crate::m` and `crate::{m::…, n}` in `tokens`, each
/// as its first `depth` segments (`crate::a::b::C` at depth 2 is `a::b`).
fn crate_paths(tokens: TokenStream, depth: usize, out: &mut BTreeSet<String>) {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in tts.iter().enumerate() {
        if let TokenTree::Group(g) = tt {
            crate_paths(g.stream(), depth, out);
        }
        let is_crate = matches!(tt, TokenTree::Ident(id) if id == "crate");
        if is_crate && colons(&tts, i + 1) {
            path_from(&tts[i + 3..], &mut Vec::new(), depth, out);
        }
    }
}

/// Whether `tts[at..]` starts with `::`.
fn colons(tts: &[TokenTree], at: usize) -> bool {
    matches!(
        (tts.get(at), tts.get(at + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':'
    )
}

/// Reads the rest of a path after `crate::` (or after `prefix::`), naming
/// each module it reaches at `depth` segments or where it ends.
fn path_from(
    tts: &[TokenTree],
    prefix: &mut Vec<String>,
    depth: usize,
    out: &mut BTreeSet<String>,
) {
    match tts.first() {
        Some(TokenTree::Ident(m)) if m == "self" => {
            out.insert(prefix.join("::"));
        }
        Some(TokenTree::Ident(m)) => {
            prefix.push(m.to_string());
            if prefix.len() >= depth || !colons(tts, 1) {
                out.insert(prefix.join("::"));
            } else {
                path_from(&tts[3..], prefix, depth, out);
            }
            prefix.pop();
        }
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            for piece in inner.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ',')) {
                path_from(piece, prefix, depth, out);
            }
        }
        _ => {}
    }
}

/// Module -> the modules its code names, over every file under `dir`; a
/// module is the first `depth` segments of its file's path (`a/mod.rs` is
/// `a`, `a/b.rs` at depth 2 is `a::b`).
fn edges(src: &Path, dir: &Path, depth: usize, out: &mut BTreeMap<String, BTreeSet<String>>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            edges(src, &path, depth, out);
            continue;
        }
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let rel = path.strip_prefix(src).expect("under src");
        let mut segments: Vec<String> = rel
            .components()
            .take(depth)
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_owned()
            })
            .collect();
        if segments.len() > 1 && segments.last().is_some_and(|l| l == "mod") {
            segments.pop();
        }
        let module = segments.join("::");
        if module == "lib" {
            continue;
        }
        let text = fs::read_to_string(&path).expect("read source");
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut named = BTreeSet::new();
        for item in file.items {
            let attrs = match &item {
                syn::Item::Mod(m) => &m.attrs,
                syn::Item::Fn(f) => &f.attrs,
                syn::Item::Use(u) => &u.attrs,
                syn::Item::Impl(i) => &i.attrs,
                _ => &Vec::new(),
            };
            if !cfg_test(attrs) {
                crate_paths(item.into_token_stream(), depth, &mut named);
            }
        }
        named.remove(&module);
        named.remove("__private");
        out.entry(module).or_default().extend(named);
    }
}

/// A circle through `from`, if any, as the path walked.
fn circle(
    graph: &BTreeMap<String, BTreeSet<String>>,
    at: &str,
    path: &mut Vec<String>,
    done: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    if let Some(i) = path.iter().position(|p| p == at) {
        let mut c = path[i..].to_vec();
        c.push(at.to_owned());
        return Some(c);
    }
    if !done.insert(at.to_owned()) {
        return None;
    }
    path.push(at.to_owned());
    for next in graph.get(at).into_iter().flatten() {
        if let Some(c) = circle(graph, next, path, done) {
            return Some(c);
        }
    }
    path.pop();
    None
}

/// What `lib.rs` re-exports at the root (`pub use m::{A, b::C}`): name ->
/// module, so that `crate::A` counts as naming `m`.
fn root_exports(src: &Path) -> BTreeMap<String, String> {
    fn walk(tree: &syn::UseTree, first: Option<&str>, out: &mut BTreeMap<String, String>) {
        match tree {
            syn::UseTree::Path(p) => {
                let first = first.map_or_else(|| p.ident.to_string(), str::to_owned);
                walk(&p.tree, Some(&first), out);
            }
            syn::UseTree::Name(n) => {
                if let Some(m) = first {
                    out.insert(n.ident.to_string(), m.to_owned());
                }
            }
            syn::UseTree::Rename(r) => {
                if let Some(m) = first {
                    out.insert(r.rename.to_string(), m.to_owned());
                }
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| walk(t, first, out)),
            syn::UseTree::Glob(_) => {}
        }
    }
    let text = fs::read_to_string(src.join("lib.rs")).expect("read lib.rs");
    let file = syn::parse_file(&text).expect("parse lib.rs");
    let mut out = BTreeMap::new();
    for item in &file.items {
        if let syn::Item::Use(u) = item {
            walk(&u.tree, None, &mut out);
        }
    }
    out
}

/// The first circle of imports in `graph`, as a fault.
fn any_circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<String> {
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| circle(graph, m, &mut Vec::new(), &mut done))
        .map(|c| format!("modules import each other: {}", c.join(" -> ")))
}

#[test]
fn runtime_modules_import_only_downward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/src");
    let mut graph = BTreeMap::new();
    edges(&src, &src, 1, &mut graph);
    let exports = root_exports(&src);
    for (module, names) in &mut graph {
        *names = std::mem::take(names)
            .into_iter()
            .map(|n| exports.get(&n).cloned().unwrap_or(n))
            .filter(|n| n != module)
            .collect();
    }
    let floor: BTreeMap<&str, usize> = FLOORS
        .iter()
        .enumerate()
        .flat_map(|(i, (_, ms))| ms.iter().map(move |m| (*m, i)))
        .collect();
    let mut faults = Vec::new();
    for (module, names) in &graph {
        let Some(&own) = floor.get(module.as_str()) else {
            faults.push(format!(
                "`{module}` is on no floor: add it to FLOORS (and the README)"
            ));
            continue;
        };
        for n in names {
            match floor.get(n.as_str()) {
                Some(&f) if f > own => faults.push(format!(
                    "`{module}` ({}) names `{n}`, a floor up ({})",
                    FLOORS[own].0, FLOORS[f].0
                )),
                Some(_) => {}
                None => faults.push(format!("`{module}` names `{n}`, which is on no floor")),
            }
        }
    }
    faults.extend(any_circle(&graph));
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// The derive macros are a pipeline (serde_derive's `internals/` under
/// `ser`/`de`): the model in `macros/src/internals` (attributes, templates,
/// checks, the context) never names a generator in `macros/src/expand`,
/// and no two modules import each other, directly or around a circle.
#[test]
fn macros_modules_import_only_downward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("macros/src");
    let mut graph = BTreeMap::new();
    edges(&src, &src, 2, &mut graph);
    assert!(
        graph.keys().any(|m| m.starts_with("internals::"))
            && graph.keys().any(|m| m.starts_with("expand::")),
        "macros/src has no internals/ and expand/ modules: {:?}",
        graph.keys().collect::<Vec<_>>()
    );
    let layer = |m: &str| m.split("::").next().unwrap_or_default().to_owned();
    let mut faults = Vec::new();
    for (module, names) in &graph {
        match layer(module).as_str() {
            "internals" => faults.extend(
                names
                    .iter()
                    .filter(|n| layer(n) == "expand")
                    .map(|n| format!("`{module}` (the model) names the generator `{n}`")),
            ),
            "expand" => {}
            _ => faults.push(format!(
                "`{module}` is neither model (internals/) nor generator (expand/)"
            )),
        }
    }
    faults.extend(any_circle(&graph));
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// The request path builds without the AWS driver's HTTP stack: no
/// `aws-config`, no hyper, no rustls in the runtime's dependencies with
/// every feature on (the driver, `singletable-aws`, brings them), and the
/// runtime depends on neither the driver nor the tooling.
#[test]
fn runtime_builds_no_http_client() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let tree = |package: &str| {
        let out = std::process::Command::new(&cargo)
            .args([
                "tree",
                "--offline",
                "-e",
                "normal",
                "--prefix",
                "none",
                "--all-features",
                "-p",
            ])
            .arg(package)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("cargo tree runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
            .collect::<BTreeSet<String>>()
    };
    let runtime = tree("singletable-runtime");
    let forbidden = [
        "aws-config",
        "hyper",
        "hyper-rustls",
        "rustls",
        "singletable-aws",
        "singletable-tools",
        "singletable-embedded",
    ];
    let found: Vec<&str> = forbidden
        .iter()
        .copied()
        .filter(|c| runtime.contains(*c))
        .collect();
    assert!(found.is_empty(), "the runtime depends on {found:?}");
    // The check can fail: the driver does bring the HTTP stack.
    let driver = tree("singletable-aws");
    assert!(
        driver.contains("aws-config") && driver.contains("hyper"),
        "{driver:?}"
    );
}
