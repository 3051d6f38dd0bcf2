//! `doc_tests_cover_public_items`: every public item of the facade has an
//! example in its docs.
//!
//! The public API is found the way rustdoc finds it, from the sources:
//! from the facade's root, through `pub mod` and `pub use` (globs
//! included), into the workspace crates (members of the root manifest);
//! `#[doc(hidden)]` items and modules, `__private` and `#[cfg(test)]` are
//! left out, and so are re-exports of other crates' items (the SDK's
//! `AttributeValue`) and items behind a feature that is not a default one
//! (`#[cfg(feature = "lambda")]`: not in a default build, where `cargo test
//! --doc` could not run their examples). Every module, struct, enum, union, trait, function,
//! type alias, const, static and derive macro reached needs a Rust code
//! block (run, or `no_run`; not `ignore`, `text` or `compile_fail`) in its
//! own docs, `#[doc = include_str!(..)]` files included. Each `pub` method
//! of an inherent impl of a reached type, wherever the impl is, needs one in
//! its own docs, or a code block in its type's docs that calls it by name
//! (`.name(`, `::name(`, `::name::<`, or `Type::name` passed as a value);
//! a method with a `where` bound its callers cannot meet, which exists only
//! to refuse at compile time with a clear message, needs a `compile_fail`
//! block calling it instead.
//! Whether the examples compile and pass is `cargo test --doc`'s job.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// One module of a workspace crate, as parsed from its source.
struct Module {
    /// Its file, for messages and `include_str!` paths.
    file: PathBuf,
    /// Its docs: outer attributes of the declaration and inner ones.
    attrs: Vec<syn::Attribute>,
    items: Vec<syn::Item>,
}

/// A module path inside the workspace: crate name, then module names.
type ModPath = Vec<String>;

/// What a name resolves to.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Target {
    Module(ModPath),
    /// An item defined in a module, by its index there.
    Item(ModPath, usize),
}

/// An item that needs an example and has none.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Missing {
    /// `struct singletable_runtime::key::PrimaryKey`, `method Db::get`.
    what: String,
    /// The source file that defines it.
    file: String,
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.what, self.file)
    }
}

struct Workspace {
    root: PathBuf,
    modules: BTreeMap<ModPath, Module>,
    /// Each crate's default features: items behind another feature are
    /// not part of the API a default build exposes (their examples run
    /// with that feature), so they are left out.
    defaults: BTreeMap<String, Vec<String>>,
}

impl Workspace {
    /// The workspace at `root` (a directory), every crate's modules
    /// parsed, or why not; fails when it has no crate `facade`.
    fn read(root: &Path, facade: &str) -> Result<Self, String> {
        let mut ws = Workspace {
            root: root.to_owned(),
            modules: BTreeMap::new(),
            defaults: BTreeMap::new(),
        };
        for (name, lib, defaults) in workspace_crates(root)? {
            ws.defaults.insert(name.clone(), defaults);
            ws.load(vec![name], &lib, Vec::new())?;
        }
        if !ws.modules.contains_key(&vec![facade.to_owned()]) {
            return Err(format!(
                "no crate `{facade}` in the workspace at {}",
                root.display()
            ));
        }
        Ok(ws)
    }
}

/// The items of the facade at `root` (a workspace directory) that have no
/// example. `facade` is the facade crate's name (`singletable`).
fn missing_examples(root: &Path, facade: &str) -> Result<Vec<Missing>, String> {
    let ws = Workspace::read(root, facade)?;
    let public = ws.public_api(facade);
    let mut missing = Vec::new();
    for target in &public {
        ws.check(target, &public, &mut missing);
    }
    missing.sort();
    missing.dedup();
    Ok(missing)
}

/// The workspace's library crates: the root package and each member, by
/// crate name (`-` as `_`), with their `src/lib.rs` and default features.
fn workspace_crates(root: &Path) -> Result<Vec<(String, PathBuf, Vec<String>)>, String> {
    let manifest = read(&root.join("Cargo.toml"))?;
    let mut dirs = vec![root.to_owned()];
    if let Some(start) = manifest.find("members") {
        let rest = &manifest[start..];
        let list = &rest[rest.find('[').unwrap_or(0)..rest.find(']').unwrap_or(0)];
        dirs.extend(list.split('"').skip(1).step_by(2).map(|m| root.join(m)));
    }
    let mut out = Vec::new();
    for dir in dirs {
        let lib = dir.join("src/lib.rs");
        let Ok(manifest) = fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let Some(package) = manifest.find("[package]") else {
            continue;
        };
        let name = manifest[package..]
            .lines()
            .find_map(|l| {
                let l = l.trim();
                let rest = l.strip_prefix("name")?.trim_start().strip_prefix('=')?;
                Some(rest.trim().trim_matches('"').replace('-', "_"))
            })
            .ok_or_else(|| format!("no package name in {}", dir.display()))?;
        let defaults = manifest
            .lines()
            .find_map(|l| {
                let rest = l
                    .trim()
                    .strip_prefix("default")?
                    .trim_start()
                    .strip_prefix('=')?;
                Some(
                    rest.split('"')
                        .skip(1)
                        .step_by(2)
                        .map(str::to_owned)
                        .collect(),
                )
            })
            .unwrap_or_default();
        if lib.exists() {
            out.push((name, lib, defaults));
        }
    }
    Ok(out)
}

fn read(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn is_ident(a: &syn::Attribute, name: &str) -> bool {
    a.path().is_ident(name)
}

/// `#[cfg(test)]`: not part of any build a user sees.
fn cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| is_ident(a, "cfg") && a.parse_args::<syn::Ident>().is_ok_and(|id| id == "test"))
}

/// `#[cfg(feature = "x")]` for a feature `x` that is not a default one.
fn other_feature(attrs: &[syn::Attribute], defaults: &[String]) -> bool {
    attrs.iter().any(|a| {
        is_ident(a, "cfg") && a.parse_args::<syn::MetaNameValue>().is_ok_and(|nv| {
            nv.path.is_ident("feature")
                && matches!(&nv.value, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. })
                        if !defaults.contains(&s.value()))
        })
    })
}

/// `#[doc(hidden)]`.
fn hidden(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        is_ident(a, "doc")
            && matches!(&a.meta, syn::Meta::List(l) if l.tokens.to_string() == "hidden")
    })
}

fn leave_out(attrs: &[syn::Attribute]) -> bool {
    cfg_test(attrs) || hidden(attrs)
}

fn is_pub(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

/// The `#[path = "..."]` of a module declaration.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs
        .iter()
        .find(|a| is_ident(a, "path"))
        .and_then(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
}

impl Workspace {
    /// Parses the module at `file` and, recursively, its child modules.
    fn load(
        &mut self,
        path: ModPath,
        file: &Path,
        outer: Vec<syn::Attribute>,
    ) -> Result<(), String> {
        let source = read(file)?;
        let parsed = syn::parse_file(&source).map_err(|e| format!("{}: {e}", file.display()))?;
        let is_root = path.len() == 1;
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let dir = file.parent().unwrap_or(Path::new(".")).to_owned();
        let child_dir = if is_root || stem == "mod" {
            dir
        } else {
            dir.join(stem)
        };
        let mut attrs = outer;
        attrs.extend(parsed.attrs);
        let defaults = self.defaults.get(&path[0]).cloned().unwrap_or_default();
        let items = parsed
            .items
            .into_iter()
            .filter(|item| {
                let attrs: &[syn::Attribute] = match item {
                    syn::Item::Impl(i) => &i.attrs,
                    _ => vis_attrs(item).map_or(&[], |(_, a)| a),
                };
                !other_feature(attrs, &defaults)
            })
            .collect();
        self.add(path, file.to_owned(), child_dir, attrs, items)
    }

    fn add(
        &mut self,
        path: ModPath,
        file: PathBuf,
        child_dir: PathBuf,
        attrs: Vec<syn::Attribute>,
        items: Vec<syn::Item>,
    ) -> Result<(), String> {
        for item in &items {
            let syn::Item::Mod(m) = item else { continue };
            if cfg_test(&m.attrs) {
                continue;
            }
            let mut child = path.clone();
            child.push(m.ident.to_string());
            match &m.content {
                Some((_, inner)) => {
                    let dir = child_dir.join(m.ident.to_string());
                    self.add(child, file.clone(), dir, m.attrs.clone(), inner.clone())?;
                }
                None => {
                    let name = m.ident.to_string();
                    let candidates = match path_attr(&m.attrs) {
                        Some(p) => vec![child_dir.join(p)],
                        None => vec![
                            child_dir.join(format!("{name}.rs")),
                            child_dir.join(&name).join("mod.rs"),
                        ],
                    };
                    let found = candidates.iter().find(|c| c.exists()).ok_or_else(|| {
                        format!("module `{}`: none of {candidates:?}", child.join("::"))
                    })?;
                    self.load(child, &found.clone(), m.attrs.clone())?;
                }
            }
        }
        self.modules.insert(path, Module { file, attrs, items });
        Ok(())
    }

    /// Every target reachable through public paths from `facade`'s root.
    fn public_api(&self, facade: &str) -> BTreeSet<Target> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![Target::Module(vec![facade.to_owned()])];
        while let Some(t) = todo.pop() {
            if !seen.insert(t.clone()) {
                continue;
            }
            if let Target::Module(m) = &t {
                todo.extend(self.exports(m));
            }
        }
        seen
    }

    /// What module `m` exposes publicly: its `pub` items and child
    /// modules, and the targets of its `pub use` declarations.
    fn exports(&self, m: &ModPath) -> Vec<Target> {
        let Some(module) = self.modules.get(m) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in module.items.iter().enumerate() {
            let (vis, attrs) = match vis_attrs(item) {
                Some(v) => v,
                None => continue,
            };
            if !is_pub(vis) || leave_out(attrs) {
                continue;
            }
            match item {
                syn::Item::Mod(md) => {
                    let mut child = m.clone();
                    child.push(md.ident.to_string());
                    if md.ident != "__private" {
                        out.push(Target::Module(child));
                    }
                }
                syn::Item::Use(u) => {
                    for (segments, glob) in use_leaves(&u.tree) {
                        if segments.last().is_some_and(|s| s == "__private") {
                            continue;
                        }
                        for t in self.resolve(m, &segments, 0) {
                            match (&t, glob) {
                                (Target::Module(g), true) => out.extend(self.exports(g)),
                                (_, true) => {}
                                _ => out.push(t),
                            }
                        }
                    }
                }
                _ => out.push(Target::Item(m.clone(), i)),
            }
        }
        out
    }

    /// Resolves a path written in module `m` (for a `use`, relative to the
    /// crate graph of the 2018+ editions). External crates resolve to
    /// nothing.
    fn resolve(&self, m: &ModPath, segments: &[String], depth: usize) -> Vec<Target> {
        if depth > 32 || segments.is_empty() {
            return Vec::new();
        }
        let (mut current, rest) = match segments[0].as_str() {
            "crate" => (vec![m[0].clone()], &segments[1..]),
            "self" => (m.clone(), &segments[1..]),
            "super" => (m[..m.len().saturating_sub(1)].to_vec(), &segments[1..]),
            first
                if self.modules.contains_key(&vec![first.to_owned()])
                    && !self.defines(m, first) =>
            {
                (vec![first.to_owned()], &segments[1..])
            }
            _ => (m.clone(), segments),
        };
        let mut rest = rest.to_vec();
        while rest.first().is_some_and(|s| s == "super") {
            current.pop();
            rest.remove(0);
        }
        if rest.is_empty() {
            return vec![Target::Module(current)];
        }
        let mut targets = vec![Target::Module(current)];
        for (k, name) in rest.iter().enumerate() {
            let last = k + 1 == rest.len();
            let mut next = Vec::new();
            for t in &targets {
                if let Target::Module(mp) = t {
                    next.extend(self.lookup(mp, name, depth));
                }
            }
            if !last {
                next.retain(|t| matches!(t, Target::Module(_)));
            }
            targets = next;
        }
        targets.sort();
        targets.dedup();
        targets
    }

    /// Whether module `m` defines or imports `name` itself.
    fn defines(&self, m: &ModPath, name: &str) -> bool {
        self.modules.get(m).is_some_and(|module| {
            module.items.iter().any(|item| {
                item_name(item).is_some_and(|n| n == name)
                    || matches!(item, syn::Item::Use(u) if use_leaves(&u.tree).iter().any(|(s, g)| !g && s.last().is_some_and(|l| l == name)))
            })
        })
    }

    /// The targets named `name` in module `mp`: its items and child
    /// modules, then its imports.
    fn lookup(&self, mp: &ModPath, name: &str, depth: usize) -> Vec<Target> {
        let Some(module) = self.modules.get(mp) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in module.items.iter().enumerate() {
            if let Some((_, attrs)) = vis_attrs(item)
                && cfg_test(attrs)
            {
                continue;
            }
            match item {
                syn::Item::Mod(md) if md.ident == name => {
                    let mut child = mp.clone();
                    child.push(name.to_owned());
                    out.push(Target::Module(child));
                }
                syn::Item::Use(u) => {
                    for (segments, glob) in use_leaves(&u.tree) {
                        if glob {
                            continue;
                        }
                        let alias = segments.last().map(String::as_str);
                        if alias == Some(name) {
                            let path = strip_alias(&segments);
                            out.extend(self.resolve(mp, &path, depth + 1));
                        }
                    }
                }
                syn::Item::Fn(f) if derive_name(&f.attrs).as_deref() == Some(name) => {
                    out.push(Target::Item(mp.clone(), i));
                }
                _ if item_name(item).as_deref() == Some(name) => {
                    out.push(Target::Item(mp.clone(), i));
                }
                _ => {}
            }
        }
        if out.is_empty() {
            for item in &module.items {
                let syn::Item::Use(u) = item else { continue };
                for (segments, glob) in use_leaves(&u.tree) {
                    if !glob {
                        continue;
                    }
                    for t in self.resolve(mp, &segments, depth + 1) {
                        if let Target::Module(g) = t {
                            out.extend(self.lookup(&g, name, depth + 1));
                        }
                    }
                }
            }
        }
        out
    }

    fn item(&self, m: &ModPath, i: usize) -> (&Module, &syn::Item) {
        let module = &self.modules[m];
        (module, &module.items[i])
    }

    /// Reports `target` if it needs an example and has none, and the
    /// inherent methods of a type without one.
    fn check(&self, target: &Target, public: &BTreeSet<Target>, missing: &mut Vec<Missing>) {
        match target {
            Target::Module(m) => {
                let Some(module) = self.modules.get(m) else {
                    return;
                };
                if !has_example(&self.docs(module, &module.attrs)) {
                    missing.push(Missing {
                        what: format!("module {}", m.join("::")),
                        file: self.rel(&module.file),
                    });
                }
            }
            Target::Item(m, i) => {
                let (module, item) = self.item(m, *i);
                let Some((_, attrs)) = vis_attrs(item) else {
                    return;
                };
                if leave_out(attrs) {
                    return;
                }
                let Some(kind) = kind(item) else { return };
                let name = match item {
                    syn::Item::Fn(f) => {
                        derive_name(&f.attrs).unwrap_or_else(|| f.sig.ident.to_string())
                    }
                    _ => item_name(item).unwrap_or_default(),
                };
                let docs = self.docs(module, attrs);
                if !has_example(&docs) {
                    missing.push(Missing {
                        what: format!("{kind} {}::{name}", m.join("::")),
                        file: self.rel(&module.file),
                    });
                }
                if matches!(
                    item,
                    syn::Item::Struct(_) | syn::Item::Enum(_) | syn::Item::Union(_)
                ) {
                    let type_code = code_blocks(&docs).join("\n");
                    for (impl_module, method) in self.inherent_methods(m, &name, public) {
                        let method_docs = self.docs(impl_module, &method.attrs);
                        let mname = method.sig.ident.to_string();
                        // A method that exists only to refuse at compile
                        // time (a bound its callers cannot meet) is shown
                        // refusing: a `compile_fail` block calling it.
                        let refuses = method.sig.generics.where_clause.is_some()
                            && calls(&blocks(&method_docs, is_compile_fail).join("\n"), &mname);
                        if !has_example(&method_docs) && !calls(&type_code, &mname) && !refuses {
                            missing.push(Missing {
                                what: format!("method {}::{name}::{mname}", m.join("::")),
                                file: self.rel(&impl_module.file),
                            });
                        }
                    }
                }
            }
        }
    }

    /// The `pub` methods of inherent impls, anywhere in the crate, of the
    /// type `name` defined in module `def`.
    fn inherent_methods(
        &self,
        def: &ModPath,
        name: &str,
        _public: &BTreeSet<Target>,
    ) -> Vec<(&Module, &syn::ImplItemFn)> {
        let mut out = Vec::new();
        for (mp, module) in self.modules.range(vec![def[0].clone()]..) {
            if mp[0] != def[0] {
                break;
            }
            for item in &module.items {
                let syn::Item::Impl(imp) = item else { continue };
                if imp.trait_.is_some() || leave_out(&imp.attrs) {
                    continue;
                }
                let syn::Type::Path(tp) = &*imp.self_ty else {
                    continue;
                };
                let Some(last) = tp.path.segments.last() else {
                    continue;
                };
                if last.ident != name {
                    continue;
                }
                let segments: Vec<String> = tp
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                let resolved = self.resolve(mp, &segments, 0);
                let is_this = resolved
                    .iter()
                    .any(|t| matches!(t, Target::Item(d, _) if d == def));
                if !is_this {
                    continue;
                }
                for ii in &imp.items {
                    let syn::ImplItem::Fn(f) = ii else { continue };
                    if is_pub(&f.vis) && !leave_out(&f.attrs) {
                        out.push((module, f));
                    }
                }
            }
        }
        out
    }

    /// The doc text of `attrs` (`///`, `#[doc = "..."]` and
    /// `#[doc = include_str!("...")]`, relative to the module's file).
    fn docs(&self, module: &Module, attrs: &[syn::Attribute]) -> String {
        let mut out = String::new();
        for a in attrs.iter().filter(|a| is_ident(a, "doc")) {
            let syn::Meta::NameValue(nv) = &a.meta else {
                continue;
            };
            match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => out.push_str(&s.value()),
                syn::Expr::Macro(mac) if mac.mac.path.is_ident("include_str") => {
                    if let Ok(lit) = mac.mac.parse_body::<syn::LitStr>() {
                        let dir = module.file.parent().unwrap_or(Path::new("."));
                        out.push_str(
                            &fs::read_to_string(dir.join(lit.value())).unwrap_or_default(),
                        );
                    }
                }
                _ => {}
            }
            out.push('\n');
        }
        out
    }

    fn rel(&self, file: &Path) -> String {
        file.strip_prefix(&self.root)
            .unwrap_or(file)
            .display()
            .to_string()
    }
}

fn vis_attrs(item: &syn::Item) -> Option<(&syn::Visibility, &[syn::Attribute])> {
    Some(match item {
        syn::Item::Const(i) => (&i.vis, &i.attrs),
        syn::Item::Enum(i) => (&i.vis, &i.attrs),
        syn::Item::Fn(i) => (&i.vis, &i.attrs),
        syn::Item::Mod(i) => (&i.vis, &i.attrs),
        syn::Item::Static(i) => (&i.vis, &i.attrs),
        syn::Item::Struct(i) => (&i.vis, &i.attrs),
        syn::Item::Trait(i) => (&i.vis, &i.attrs),
        syn::Item::Type(i) => (&i.vis, &i.attrs),
        syn::Item::Union(i) => (&i.vis, &i.attrs),
        syn::Item::Use(i) => (&i.vis, &i.attrs),
        syn::Item::TraitAlias(i) => (&i.vis, &i.attrs),
        _ => return None,
    })
}

fn item_name(item: &syn::Item) -> Option<String> {
    Some(match item {
        syn::Item::Const(i) => i.ident.to_string(),
        syn::Item::Enum(i) => i.ident.to_string(),
        syn::Item::Fn(i) => i.sig.ident.to_string(),
        syn::Item::Mod(i) => i.ident.to_string(),
        syn::Item::Static(i) => i.ident.to_string(),
        syn::Item::Struct(i) => i.ident.to_string(),
        syn::Item::Trait(i) => i.ident.to_string(),
        syn::Item::Type(i) => i.ident.to_string(),
        syn::Item::Union(i) => i.ident.to_string(),
        syn::Item::TraitAlias(i) => i.ident.to_string(),
        _ => return None,
    })
}

fn kind(item: &syn::Item) -> Option<&'static str> {
    Some(match item {
        syn::Item::Const(_) => "const",
        syn::Item::Enum(_) => "enum",
        syn::Item::Fn(f) if derive_name(&f.attrs).is_some() => "derive",
        syn::Item::Fn(_) => "fn",
        syn::Item::Static(_) => "static",
        syn::Item::Struct(_) => "struct",
        syn::Item::Trait(_) => "trait",
        syn::Item::Type(_) => "type",
        syn::Item::Union(_) => "union",
        syn::Item::TraitAlias(_) => "trait alias",
        _ => return None,
    })
}

/// The name a `#[proc_macro_derive(Name, ...)]` function exports.
fn derive_name(attrs: &[syn::Attribute]) -> Option<String> {
    let a = attrs.iter().find(|a| is_ident(a, "proc_macro_derive"))?;
    let metas = a
        .parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
        .ok()?;
    metas.first()?.path().get_ident().map(ToString::to_string)
}

/// The leaves of a use tree: the full path (ending with the alias for a
/// rename: `a::b::{B as C}` gives `[a, b, B, as, C]`) and whether it is a
/// glob.
fn use_leaves(tree: &syn::UseTree) -> Vec<(Vec<String>, bool)> {
    fn walk(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, bool)>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                walk(&p.tree, prefix, out);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut path = prefix.clone();
                let name = n.ident.to_string();
                if name == "self" {
                    if let Some(last) = path.last().cloned() {
                        path.push("as".into());
                        path.push(last);
                    }
                } else {
                    path.push(name);
                }
                out.push((path, false));
            }
            syn::UseTree::Rename(r) => {
                let mut path = prefix.clone();
                path.push(r.ident.to_string());
                path.push("as".into());
                path.push(r.rename.to_string());
                out.push((path, false));
            }
            syn::UseTree::Glob(_) => out.push((prefix.clone(), true)),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    walk(t, prefix, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(tree, &mut Vec::new(), &mut out);
    out
}

/// The path of a use leaf without its `as alias`.
fn strip_alias(segments: &[String]) -> Vec<String> {
    let n = segments.len();
    if n >= 3 && segments[n - 2] == "as" {
        segments[..n - 2].to_vec()
    } else {
        segments.to_vec()
    }
}

/// The Rust code blocks of a doc text: fenced blocks whose info string
/// is empty or only Rust attributes that run or compile the code
/// (`ignore`, `text`, `compile_fail` and other languages are not examples).
fn code_blocks(docs: &str) -> Vec<String> {
    blocks(docs, is_rust)
}

/// The fenced blocks of a doc text whose info string `keep` accepts.
fn blocks(docs: &str, keep: fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in docs.lines() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            match current.take() {
                Some((fence_info, code)) => {
                    if keep(&fence_info) {
                        out.push(code);
                    }
                }
                None => current = Some((info.trim().to_owned(), String::new())),
            }
            continue;
        }
        if let Some((_, code)) = &mut current {
            let line = trimmed.strip_prefix("# ").unwrap_or(trimmed);
            code.push_str(line);
            code.push('\n');
        }
    }
    out
}

fn is_rust(info: &str) -> bool {
    info.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .all(|t| matches!(t, "rust" | "no_run" | "should_panic") || t.starts_with("edition"))
}

fn is_compile_fail(info: &str) -> bool {
    info.split(|c: char| c == ',' || c.is_whitespace())
        .any(|t| t == "compile_fail")
}

fn has_example(docs: &str) -> bool {
    !code_blocks(docs).is_empty()
}

/// Whether `code` calls or names `method`: `.method(`, `::method(`,
/// `.method::<`, `::method::<`, or `::method` passed as a value.
fn calls(code: &str, method: &str) -> bool {
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(pos) = code[from..].find(method) {
        let start = from + pos;
        let end = start + method.len();
        from = end;
        let before = &code[..start];
        let by_dot = before.ends_with('.');
        let by_path = before.ends_with("::");
        if !by_dot && !by_path {
            continue;
        }
        let after = code[end..].trim_start();
        let next = bytes.get(end).copied();
        if next.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
            continue;
        }
        if after.starts_with('(') || after.starts_with("::<") {
            return true;
        }
        if by_path && (after.starts_with(')') || after.starts_with(',')) {
            return true;
        }
    }
    false
}

/// Fails, listing them, when a public item of the facade has no example.
#[test]
fn doc_tests_cover_public_items() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let missing = missing_examples(root, "singletable").expect("the workspace's sources parse");
    let list: Vec<String> = missing.iter().map(ToString::to_string).collect();
    assert!(
        missing.is_empty(),
        "{} public items of `singletable` have no example in their docs (add a code block to the \
         item's doc comment; for a method, to its own doc or to its type's, calling it):\n  {}",
        missing.len(),
        list.join("\n  ")
    );
}

/// The checker itself, on a small workspace written for the test: it
/// reports exactly the items without an example, follows re-exports and
/// globs, counts a type's example that calls a method, and skips hidden
/// and private items.
#[test]
fn doc_coverage_reports_items_without_examples() {
    let dir = std::env::temp_dir().join(format!("singletable-doc-coverage-{}", std::process::id()));
    let write = |path: &str, text: &str| {
        let path = dir.join(path);
        fs::create_dir_all(path.parent().expect("a file in a folder")).expect("temp dir");
        fs::write(path, text).expect("temp file");
    };
    write(
        "Cargo.toml",
        "[workspace]\nmembers = [\"inner\"]\n\n[package]\nname = \"facade\"\n",
    );
    write(
        "src/lib.rs",
        "//! The facade.\n//! ```\n//! let _ = 1;\n//! ```\n\npub use inner_crate::*;\n",
    );
    write("inner/Cargo.toml", "[package]\nname = \"inner-crate\"\n");
    write(
        "inner/src/lib.rs",
        r#"
mod private;
pub mod shown;
#[doc(hidden)]
pub mod hidden;
pub use private::Reexported;

/// ```
/// let v = inner_crate::Typed::new().called();
/// ```
pub struct Typed;
impl Typed {
    pub fn new() -> Self { Typed }
    pub fn called(&self) {}
    /// No example, and the type's example does not call it.
    pub fn forgotten(&self) {}
    #[doc(hidden)]
    pub fn hidden(&self) {}
    fn private(&self) {}
}

/// No example.
pub fn bare() {}

/// ```text
/// not an example
/// ```
pub const TEXT_ONLY: u8 = 0;

/// ```no_run
/// let _ = inner_crate::NO_RUN;
/// ```
pub const NO_RUN: u8 = 0;

#[cfg(test)]
pub fn only_in_tests() {}
"#,
    );
    write(
        "inner/src/private.rs",
        "/// Reached through `pub use`, no example.\npub struct Reexported;\npub struct Unreachable;\n",
    );
    write(
        "inner/src/shown.rs",
        "//! A module without example.\n\n/// ```\n/// let _ = 2;\n/// ```\npub enum Documented { A }\n",
    );
    write("inner/src/hidden.rs", "pub fn anything() {}\n");

    let missing = missing_examples(&dir, "facade").expect("the fixture parses");
    let found: Vec<&str> = missing.iter().map(|m| m.what.as_str()).collect();
    assert_eq!(
        found,
        [
            "const inner_crate::TEXT_ONLY",
            "fn inner_crate::bare",
            "method inner_crate::Typed::forgotten",
            "module inner_crate::shown",
            "struct inner_crate::private::Reexported",
        ]
    );
    fs::remove_dir_all(&dir).ok();
}

/// The facade's public items (modules, types, traits, functions, consts,
/// statics, type aliases and derives; methods not counted), each counted
/// once however many paths reach it: the API `singletable` promises.
fn public_items(root: &Path, facade: &str) -> Result<Vec<String>, String> {
    let ws = Workspace::read(root, facade)?;
    let mut names = Vec::new();
    for target in ws.public_api(facade) {
        match target {
            Target::Module(m) => names.push(format!("mod {}", m.join("::"))),
            Target::Item(m, i) => {
                let (_, item) = ws.item(&m, i);
                if let (Some(kind), Some(name)) = (kind(item), item_name(item)) {
                    names.push(format!("{kind} {}::{name}", m.join("::")));
                }
            }
        }
    }
    names.sort();
    Ok(names)
}

/// The facade's public API stays within its budget: a new public item
/// is a promise kept across releases, so raising the ceiling is a decision
/// made in this file, not a side effect. Executor-facing items belong to
/// `singletable-core`, generated-code helpers to `__private`.
#[test]
fn public_api_stays_within_budget() {
    // 239: 224 items, then `cost` (the module, the workload, its prices and
    // its report with its rows: 14 items) and `entity::AccessPattern` (the
    // markers' trait a workload names patterns by); 240: `query::Scan`, the
    // typed scan (its cursors and pages are `Cursor<Scan<..>>` and
    // `Page<_, Scan<..>>`, its refusals variants of `Refusal`).
    const CEILING: usize = 240;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let items = public_items(root, "singletable").expect("the workspace's sources parse");
    assert!(
        items.len() > 150,
        "the walk found only {} public items: it no longer follows the facade's re-exports",
        items.len()
    );
    assert!(
        items.len() <= CEILING,
        "`singletable` exposes {} public items, over its budget of {CEILING}:\n  {}",
        items.len(),
        items.join("\n  ")
    );
}
