//! The layer rule of docs/ARCHITECTURE.md, checked against the code: every source file under
//! src/ is listed in ARCHITECTURE.md under the layer of its folder, and no `crate::` path in a
//! file's non-test code names a higher layer. The layers and their order are read from
//! ARCHITECTURE.md itself (its `### Layer N: name` headings), so the document and the test
//! cannot drift apart.
//!
//! A path through a root re-export (`crate::Db`, `crate::Result`, ...) counts as the top layer:
//! the crate root re-exports the public API, so only the API layer may use it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The layers in order, bottom first, as ARCHITECTURE.md's headings name them, and the files it
/// lists under each.
fn documented_layers() -> (Vec<String>, BTreeMap<String, String>) {
    let doc = std::fs::read_to_string(Path::new(ROOT).join("docs/ARCHITECTURE.md"))
        .expect("docs/ARCHITECTURE.md");
    let mut layers = Vec::new();
    let mut listed = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        if let Some(rest) = line.strip_prefix("### Layer ") {
            // "### Layer 0: base (src/base/)"
            let name = rest
                .split_once(':')
                .map(|(_, n)| n.trim())
                .and_then(|n| n.split_whitespace().next())
                .expect("a layer heading names its layer");
            layers.push(name.to_string());
            current = Some(name.to_string());
        } else if line.starts_with("## ") || line.starts_with("### ") {
            current = None;
        } else if let Some(layer) = &current
            && let Some(rest) = line.trim_start().strip_prefix("- `src/")
            && let Some((file, _)) = rest.split_once('`')
        {
            let prev = listed.insert(format!("src/{file}"), layer.clone());
            assert!(
                prev.is_none(),
                "src/{file} is listed twice in ARCHITECTURE.md"
            );
        }
    }
    assert!(
        layers.len() >= 6,
        "ARCHITECTURE.md names its layers as `### Layer N: name` headings"
    );
    (layers, listed)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn rel(p: &Path) -> String {
    p.strip_prefix(ROOT)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// The layer a file belongs to: its first folder under src/, or "root" for src/*.rs.
fn layer_of_file(rel: &str) -> String {
    let parts: Vec<&str> = rel.split('/').collect();
    if parts.len() > 2 {
        parts[1].to_string()
    } else {
        "root".to_string()
    }
}

/// Files compiled only for tests: declared under a `#[cfg(...test...)]` attribute in their
/// parent module, and everything below such a file's folder.
fn test_only_files(files: &[PathBuf]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for f in files {
        let src = std::fs::read_to_string(f).unwrap();
        let lines: Vec<&str> = src.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let l = l.trim();
            let decl = l
                .strip_prefix("mod ")
                .or_else(|| l.strip_prefix("pub mod "))
                .or_else(|| l.strip_prefix("pub(crate) mod "));
            let Some(name) = decl.and_then(|d| d.strip_suffix(';')) else {
                continue;
            };
            let attr = lines[..i]
                .iter()
                .rev()
                .take_while(|a| a.trim().starts_with("#["))
                .any(|a| a.contains("cfg(") && a.contains("test") && !a.contains("not(test"));
            if !attr {
                continue;
            }
            // The child lives next to `foo.rs` in foo/ or next to `mod.rs` in its folder.
            let dir = if f.file_name().unwrap() == "mod.rs" || f.file_name().unwrap() == "lib.rs" {
                f.parent().unwrap().to_path_buf()
            } else {
                f.with_extension("")
            };
            out.insert(rel(&dir.join(format!("{name}.rs"))));
            out.insert(format!("{}/", rel(&dir.join(name))));
        }
    }
    out
}

/// The non-test code of a file: comments removed, and a trailing `#[cfg(test)] mod tests { .. }`
/// block cut off.
fn code_of(src: &str) -> String {
    let cut = src.find("#[cfg(test)]\nmod tests {").unwrap_or(src.len());
    src[..cut]
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every first segment after `crate::` in `code`, including those inside `use crate::{a, b}`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            // A grouped import: the first segment of each top-level item.
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(first_segment(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            if !item.trim().is_empty() {
                out.push(first_segment(&item));
            }
        } else {
            out.push(first_segment(after));
        }
        rest = after;
    }
    out.retain(|s| !s.is_empty());
    out
}

fn first_segment(s: &str) -> String {
    s.trim()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

#[test]
fn every_source_file_is_listed_under_its_layer() {
    let (layers, listed) = documented_layers();
    let mut files = Vec::new();
    rust_files(&Path::new(ROOT).join("src"), &mut files);
    let mut problems = Vec::new();
    for f in &files {
        let r = rel(f);
        let want = layer_of_file(&r);
        match listed.get(&r) {
            None => problems.push(format!("{r} is not listed in docs/ARCHITECTURE.md")),
            Some(l) if *l != want => problems.push(format!(
                "{r} is listed under layer {l} but lives in the {want} folder"
            )),
            Some(_) => {}
        }
        if want != "root" && !layers.contains(&want) {
            problems.push(format!("{r}: folder {want} is not a documented layer"));
        }
    }
    for r in listed.keys() {
        if !Path::new(ROOT).join(r).exists() {
            problems.push(format!(
                "docs/ARCHITECTURE.md lists {r}, which does not exist"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_import_points_up_a_layer() {
    let (layers, _) = documented_layers();
    let rank = |layer: &str| -> usize {
        // The root (lib.rs and its re-exports) sits above every layer.
        layers
            .iter()
            .position(|l| l == layer)
            .unwrap_or(layers.len())
    };
    let mut files = Vec::new();
    rust_files(&Path::new(ROOT).join("src"), &mut files);
    let tests = test_only_files(&files);
    let mut problems = Vec::new();
    for f in &files {
        let r = rel(f);
        if tests.contains(&r) || tests.iter().any(|t| t.ends_with('/') && r.starts_with(t)) {
            continue;
        }
        let own = layer_of_file(&r);
        if own == "root" {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(f).unwrap());
        for target in crate_paths(&code) {
            // `crate::base::..`: a layer; anything else is a root re-export of the public API.
            let target_layer = if layers.contains(&target) {
                target.clone()
            } else {
                "root".to_string()
            };
            if rank(&target_layer) > rank(&own) {
                problems.push(format!(
                    "{r} (layer {own}) imports crate::{target} (layer {target_layer})"
                ));
            }
        }
    }
    problems.sort();
    problems.dedup();
    assert!(
        problems.is_empty(),
        "imports pointing up the layer table of docs/ARCHITECTURE.md:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_parser_sees_grouped_and_inline_paths() {
    let code = "use crate::base::error::Result;\nuse crate::{api::Db, model::{key, cell}};\nfn f() { crate::storage::wal::x(); }";
    assert_eq!(
        crate_paths(code),
        ["base", "api", "model", "storage"].map(String::from)
    );
    assert_eq!(
        code_of("use crate::a;\n// crate::b\n#[cfg(test)]\nmod tests {\nuse crate::c;\n}"),
        "use crate::a;\n"
    );
}
