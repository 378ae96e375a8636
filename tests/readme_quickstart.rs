//! examples/remote.rs runs the README's quick start unchanged against a Thrift2 server: below
//! the open call, its lines are the README's, line for line (issue 28's acceptance; the example
//! itself runs against `cellbase thrift2` in `.ci/remote_example.sh`).

fn after_open(text: &str, open: &str) -> Vec<String> {
    let start = text
        .lines()
        .position(|l| l.trim_start().starts_with(open))
        .unwrap_or_else(|| panic!("no line starting with {open:?}"));
    text.lines()
        .skip(start + 1)
        .take_while(|l| *l != "}")
        .map(str::to_string)
        .collect()
}

#[test]
fn the_remote_example_is_the_readme_quick_start_with_another_open_call() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let section = readme
        .split("## Quick start (the library)")
        .nth(1)
        .expect("the README's quick start section");
    let code = section
        .split("```rust\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("the quick start's code block");
    let example = std::fs::read_to_string(format!("{root}/examples/remote.rs")).unwrap();
    let readme_lines = after_open(code, "let db = Db::temporary()?;");
    let example_lines = after_open(&example, "let db = Db::connect(&addr)?;");
    assert!(readme_lines.len() > 5);
    assert_eq!(example_lines, readme_lines);
    // And the imports are the same.
    let uses = |t: &str| {
        t.lines()
            .find(|l| l.starts_with("use cellbase::"))
            .map(str::to_string)
    };
    assert_eq!(uses(&example), uses(code));
}
