//! Every crate's modules form floors that import only downward: the
//! README's "Layout" table lists each crate's floors, bottom first, and is
//! the one list of them. A module names (through `crate::…` and
//! `super::…` paths in its code) only modules of its own floor or lower
//! ones; modules import each other in no circle; no module names an item
//! that `lib.rs` defines (the crate root only gathers its rooms and
//! re-exports them); every module is on a floor and every floor's module
//! exists. Unit tests (`#[cfg(test)]`) and doc comments are left out.
//! Between crates, Cargo keeps the arrows downward, and
//! `runtime_builds_no_http_client` keeps the driver's HTTP stack out of
//! the runtime.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;

fn cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.meta.to_token_stream().to_string().contains("test"))
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

/// Module -> the modules its code names (`crate::…` and `super::…`
/// paths), over every file under `src`; a module is the first `depth`
/// segments of its path (`a/mod.rs` is `a`, `a/b.rs` at depth 2 is
/// `a::b`), and so is each module it names.
fn edges(src: &Path, depth: usize) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let here = module_of(src, file);
        if here.is_empty() {
            continue;
        }
        let module = here[..depth.min(here.len())].join("::");
        let text = fs::read_to_string(file).expect("read source");
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut paths = Vec::new();
        item_paths(parsed.items, &here, &mut paths);
        let named = out.entry(module.clone()).or_default();
        for path in paths.into_iter().filter(|p| !p.is_empty()) {
            let name = path[..depth.min(path.len())].join("::");
            if name != module {
                named.insert(name);
            }
        }
    }
    out
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

/// The first circle of imports in `graph`, as a fault.
fn any_circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<String> {
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| circle(graph, m, &mut Vec::new(), &mut done))
        .map(|c| format!("modules import each other: {}", c.join(" -> ")))
}

/// One crate's floors, as the README's table gives them: the crate's
/// folder and its floors, bottom first, each a name and its modules.
struct Floors {
    krate: String,
    floors: Vec<(String, Vec<String>)>,
}

/// The README's "Layout" table, between its `floors:begin` and
/// `floors:end` markers: `| `core` | values: `a`, `b` · errors: `c` |`.
fn readme_floors() -> Vec<Floors> {
    let readme = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("read README.md");
    let table = readme
        .split_once("<!-- floors:begin -->")
        .and_then(|(_, rest)| rest.split_once("<!-- floors:end -->"))
        .map(|(table, _)| table)
        .expect("README.md has the floors:begin and floors:end markers");
    let names = |text: &str| -> Vec<String> {
        text.split(',')
            .map(|m| m.trim().trim_matches('`').to_owned())
            .filter(|m| !m.is_empty())
            .collect()
    };
    table
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim().trim_matches('|').split('|').collect();
            let [krate, floors] = cells[..] else {
                return None;
            };
            let krate = krate.trim().trim_matches('`');
            if krate.is_empty() || krate == "crate" || krate.starts_with('-') {
                return None;
            }
            let floors = floors
                .split('·')
                .map(|floor| {
                    let (name, modules) = floor
                        .split_once(':')
                        .unwrap_or_else(|| panic!("floor `{floor}` of `{krate}` has no name"));
                    (name.trim().to_owned(), names(modules))
                })
                .collect();
            Some(Floors {
                krate: krate.to_owned(),
                floors,
            })
        })
        .collect()
}

/// The module path of a source file under `src` (`a/mod.rs` and `a.rs`
/// are `a`, `a/b.rs` is `a::b`; `lib.rs` and `main.rs` are the root).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let mut segments: Vec<String> = file
        .strip_prefix(src)
        .expect("under src")
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        })
        .collect();
    if segments.last().is_some_and(|l| l == "mod") || segments == ["lib"] || segments == ["main"] {
        segments.pop();
    }
    segments
}

/// The paths `crate::…` and `super::…` in `tokens` name, each made
/// absolute from the crate root (for a file of module `here`), as their
/// segments; a group (`crate::{a::X, b}`) gives one path per member.
fn absolute_paths(tokens: TokenStream, here: &[String], out: &mut Vec<Vec<String>>) {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tts.len() {
        if let TokenTree::Group(g) = &tts[i] {
            absolute_paths(g.stream(), here, out);
        }
        let start = match &tts[i] {
            TokenTree::Ident(id) if id == "crate" && colons(&tts, i + 1) => Some(Vec::new()),
            TokenTree::Ident(id) if id == "super" && colons(&tts, i + 1) => {
                // A module file's `super` is its parent module.
                let mut base = here.to_vec();
                base.pop();
                let mut j = i + 3;
                while matches!(tts.get(j), Some(TokenTree::Ident(s)) if s == "super")
                    && colons(&tts, j + 1)
                {
                    base.pop();
                    j += 3;
                }
                i = j - 3;
                Some(base)
            }
            _ => None,
        };
        if let Some(mut prefix) = start {
            let mut named = BTreeSet::new();
            path_from(&tts[i + 3..], &mut prefix, usize::MAX, &mut named);
            out.extend(
                named
                    .into_iter()
                    .map(|p| p.split("::").map(str::to_owned).collect()),
            );
            i += 3;
            continue;
        }
        i += 1;
    }
}

/// The absolute paths the items of a module named `here` name, tests
/// left out; an inline `mod m { .. }` is read as the module `here::m`, so
/// that its `super` is `here`.
fn item_paths(items: Vec<syn::Item>, here: &[String], out: &mut Vec<Vec<String>>) {
    for item in items {
        let attrs = match &item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Impl(i) => &i.attrs,
            _ => &Vec::new(),
        };
        if cfg_test(attrs) {
            continue;
        }
        match item {
            syn::Item::Mod(syn::ItemMod {
                ident,
                content: Some((_, items)),
                ..
            }) => {
                let mut inner = here.to_vec();
                inner.push(ident.to_string());
                item_paths(items, &inner, out);
            }
            item => absolute_paths(item.into_token_stream(), here, out),
        }
    }
}

/// The names `lib.rs` brings in with `use` (`pub use m::{A, b::C}` and
/// `use other_crate::D`): name -> the first segment of its path.
fn root_uses(lib: &syn::File) -> BTreeMap<String, String> {
    fn walk(tree: &syn::UseTree, first: Option<&str>, out: &mut BTreeMap<String, String>) {
        match tree {
            syn::UseTree::Path(p) => {
                let first = first.map_or_else(|| p.ident.to_string(), str::to_owned);
                walk(&p.tree, Some(&first), out);
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                out.insert(name.clone(), first.map_or(name, str::to_owned));
            }
            syn::UseTree::Rename(r) => {
                let first = first.map_or_else(|| r.ident.to_string(), str::to_owned);
                out.insert(r.rename.to_string(), first);
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| walk(t, first, out)),
            syn::UseTree::Glob(_) => {}
        }
    }
    let mut out = BTreeMap::new();
    for item in &lib.items {
        if let syn::Item::Use(u) = item {
            let first = match &u.tree {
                syn::UseTree::Path(p) if p.ident == "self" || p.ident == "crate" => {
                    walk(&p.tree, None, &mut out);
                    continue;
                }
                _ => None,
            };
            walk(&u.tree, first, &mut out);
        }
    }
    out
}

/// Every `.rs` file under `dir`, sorted.
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// What is wrong with a crate's imports against its floors.
fn crate_faults(floors: &Floors) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = if floors.krate == "src" {
        root.join("src")
    } else {
        root.join(&floors.krate).join("src")
    };
    let krate = &floors.krate;
    let mut files = Vec::new();
    sources(&src, &mut files);
    let lib_text = fs::read_to_string(src.join("lib.rs")).expect("read lib.rs");
    let lib = syn::parse_file(&lib_text).expect("parse lib.rs");
    let uses = root_uses(&lib);
    // The crate's rooms: its top-level modules (a binary's `main.rs` is a
    // crate of its own).
    let rooms: BTreeSet<String> = files
        .iter()
        .map(|f| module_of(&src, f))
        .filter(|m| !m.is_empty() && m[0] != "bin")
        .map(|m| m[0].clone())
        .collect();
    let resolve = |first: &str| -> Option<String> {
        if rooms.contains(first) {
            return Some(first.to_owned());
        }
        match uses.get(first) {
            Some(m) if rooms.contains(m) => Some(m.clone()),
            // Another crate's item, re-exported or aliased by lib.rs.
            Some(_) => None,
            None => Some(format!("lib.rs::{first}")),
        }
    };
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let here = module_of(&src, file);
        let Some(room) = here.first().filter(|r| rooms.contains(*r)) else {
            continue;
        };
        let text = fs::read_to_string(file).expect("read source");
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut paths = Vec::new();
        item_paths(parsed.items, &here, &mut paths);
        let named = graph.entry(room.clone()).or_default();
        for path in paths {
            // `crate::self` and the like name the root itself.
            let Some(first) = path.first() else { continue };
            if let Some(target) = resolve(first)
                && target != *room
            {
                named.insert(target);
            }
        }
    }
    let floor: BTreeMap<&str, usize> = floors
        .floors
        .iter()
        .enumerate()
        .flat_map(|(i, (_, ms))| ms.iter().map(move |m| (m.as_str(), i)))
        .collect();
    let mut faults = Vec::new();
    for listed in floor.keys() {
        if !rooms.contains(*listed) {
            faults.push(format!(
                "{krate}: the README lists `{listed}`, which is no module of the crate"
            ));
        }
    }
    for (module, names) in &graph {
        let Some(&own) = floor.get(module.as_str()) else {
            faults.push(format!(
                "{krate}: `{module}` is on no floor: add it to the README's Layout table"
            ));
            continue;
        };
        for n in names {
            match floor.get(n.as_str()) {
                Some(&f) if f > own => faults.push(format!(
                    "{krate}: `{module}` ({}) names `{n}`, a floor up ({})",
                    floors.floors[own].0, floors.floors[f].0
                )),
                Some(_) => {}
                None if n.starts_with("lib.rs::") => faults.push(format!(
                    "{krate}: `{module}` names `{}`, which lib.rs defines: move it into a module",
                    &n["lib.rs::".len()..]
                )),
                None => faults.push(format!("{krate}: `{module}` names `{n}`, on no floor")),
            }
        }
    }
    faults.extend(any_circle(&graph).map(|c| format!("{krate}: {c}")));
    faults
}

/// Every crate of the workspace is in the README's table, and every
/// crate's modules import only downward, in no circle, with no exemption.
#[test]
fn crates_import_only_downward() {
    let floors = readme_floors();
    let listed: BTreeSet<&str> = floors.iter().map(|f| f.krate.as_str()).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = fs::read_to_string(root.join("Cargo.toml")).expect("read Cargo.toml");
    let members = manifest
        .split_once("members = [")
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(list, _)| list)
        .expect("Cargo.toml lists its members");
    let mut faults: Vec<String> = members
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty() && !m.starts_with("benches/"))
        .chain(["src"])
        .filter(|m| !listed.contains(m))
        .map(|m| format!("crate `{m}` is not in the README's Layout table"))
        .collect();
    for f in &floors {
        faults.extend(crate_faults(f));
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
    // The check can fail: an arrow up a floor is found.
    let mut upside_down = floors
        .into_iter()
        .find(|f| f.krate == "core")
        .expect("core is in the table");
    upside_down.floors.reverse();
    assert!(
        !crate_faults(&upside_down).is_empty(),
        "core's floors reversed still pass"
    );
}

/// The runtime's floors, from the same table: the typed API above core.
#[test]
fn runtime_modules_import_only_downward() {
    let floors = readme_floors()
        .into_iter()
        .find(|f| f.krate == "runtime")
        .expect("runtime is in the README's Layout table");
    let faults = crate_faults(&floors);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// The derive macros are a pipeline (serde_derive's `internals/` under
/// `ser`/`de`): the model in `macros/src/internals` (attributes, templates,
/// checks, the context) never names a generator in `macros/src/expand`,
/// and no two modules import each other, directly or around a circle.
#[test]
fn macros_modules_import_only_downward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("macros/src");
    let graph = edges(&src, 2);
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
