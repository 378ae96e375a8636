//! CLI conventions (issue 23): `--version` on every subcommand, `cellbase completions SHELL`,
//! the shell's `show_filters`, and tab completion in the interactive shell.
mod tools_common;

use clap::CommandFactory;
use tools_common::cellbase;

/// Every subcommand path, e.g. `["lab", "run"]`, found in the parser's own definition.
fn subcommand_paths(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
    for sub in cmd.get_subcommands() {
        let mut path = prefix.to_vec();
        path.push(sub.get_name().to_string());
        out.push(path.clone());
        subcommand_paths(sub, &path, out);
    }
}

#[test]
fn version_works_on_every_subcommand() {
    let version = env!("CARGO_PKG_VERSION");
    let o = cellbase(&["--version"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, &*format!("cellbase {version}\n"))
    );
    let mut paths = Vec::new();
    subcommand_paths(&cellbase_cli::Cli::command(), &[], &mut paths);
    assert!(paths.len() >= 10, "{paths:?}");
    for path in paths {
        for flag in ["--version", "-V"] {
            let mut args = path.clone();
            args.push(flag.to_string());
            let o = cellbase(&args);
            assert_eq!(o.code, 0, "{args:?}: {o:?}");
            assert_eq!(
                o.stdout,
                format!("cellbase-{} {version}\n", path.join("-")),
                "{args:?}"
            );
            assert_eq!(o.stderr, "", "{args:?}");
        }
    }
    // The example from the issue.
    let o = cellbase(&["verify", "--version"]);
    assert_eq!(o.stdout, format!("cellbase-verify {version}\n"));
}

#[test]
fn completions_print_a_script_naming_every_subcommand() {
    let subcommands = [
        "shell",
        "hfile",
        "verify",
        "export-tsv",
        "import-tsv",
        "thrift",
        "thrift2",
        "rest",
        "lab",
        "completions",
    ];
    for (shell, marker) in [
        ("bash", "complete -F _cellbase"),
        ("zsh", "#compdef cellbase"),
        ("fish", "complete -c cellbase"),
    ] {
        let o = cellbase(&["completions", shell]);
        assert_eq!(o.code, 0, "{shell}: {o:?}");
        assert_eq!(o.stderr, "", "{shell}");
        assert!(o.stdout.contains(marker), "{shell}: no {marker:?}");
        for sub in subcommands {
            assert!(o.stdout.contains(sub), "{shell}: {sub} missing");
        }
        // Options of subcommands are there too.
        assert!(
            o.stdout.contains("strict"),
            "{shell}: verify --strict missing"
        );
        // The same bytes as the library writes (nothing else on stdout).
        let mut lib = Vec::new();
        let which = match shell {
            "bash" => cellbase_cli::completions::CompletionShell::Bash,
            "zsh" => cellbase_cli::completions::CompletionShell::Zsh,
            _ => cellbase_cli::completions::CompletionShell::Fish,
        };
        cellbase_cli::completions::write(which, &mut lib);
        assert_eq!(o.stdout.as_bytes(), &lib[..], "{shell}");
    }
    let o = cellbase(&["completions", "tcsh"]);
    assert_eq!(o.code, 2, "{o:?}");
    assert_eq!(o.stdout, "");
    let o = cellbase(&["completions"]);
    assert_eq!(o.code, 2, "{o:?}");
}

#[test]
fn show_filters_prints_one_supported_filter_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    let o = cellbase(&["shell", "--db", &db, "-e", "show_filters"]);
    assert_eq!(o.code, 0, "{o:?}");
    let lines: Vec<&str> = o.stdout.lines().collect();
    let names = cellbase_cli::shell::commands::SUPPORTED_FILTERS;
    assert_eq!(&lines[..names.len()], names, "{o:?}");
    assert_eq!(lines.len(), names.len() + 1, "{o:?}");
    assert!(lines[names.len()].starts_with("Took "), "{o:?}");
    for expected in ["PrefixFilter", "SingleColumnValueFilter", "ValueFilter"] {
        assert!(lines.contains(&expected));
    }
    // Listed in help, refused with arguments like any zero-argument command.
    let o = cellbase(&["shell", "--db", &db, "-e", "help 'show_filters'"]);
    assert!(o.stdout.contains("show_filters"), "{o:?}");
    let o = cellbase(&["shell", "--db", &db, "-e", "show_filters 'x'"]);
    assert_eq!(o.code, 1, "{o:?}");
    assert!(o.stdout.contains("wrong number of arguments"), "{o:?}");
}

/// Tab in the interactive shell (through a pty) completes a command name and a table name
/// created earlier in the same session.
#[cfg(unix)]
#[test]
fn tab_completes_commands_and_tables_in_the_interactive_shell() {
    use expectrl::{Eof, Session};
    use std::process::Command;
    use std::time::Duration;

    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cellbase"));
    cmd.arg("shell")
        .arg("--db")
        .arg(dir.path().join("db"))
        .arg("--history")
        .arg(dir.path().join("history"))
        .env("TERM", "xterm");
    let mut s = Session::spawn(cmd).expect("spawn the shell on a pty");
    s.set_expect_timeout(Some(Duration::from_secs(30)));
    s.expect("hbase:001:0> ").expect("first prompt");
    s.send_line("create 'users_table', 'f'").unwrap();
    s.expect("hbase:002:0> ").unwrap();
    s.send_line("put 'users_table', 'r1', 'f:q', 'v'").unwrap();
    s.expect("hbase:003:0> ").unwrap();
    // "cou<TAB>" has one completion, "count"; "'users_<TAB>" one table.
    s.send("cou\t").unwrap();
    s.send(" 'users_\t").unwrap();
    s.send("\r").unwrap();
    s.expect("1 row(s)").expect("count 'users_table' ran");
    s.expect("hbase:004:0> ").unwrap();
    s.send_line("exit").unwrap();
    s.expect(Eof).expect("the shell exits");
}
