//! Tab completion in the interactive shell (issue 23): command names at the start of a
//! statement, table names in the first argument of the commands that take one, and command
//! names in `help '...'`.
//!
//! [`complete_line`] is the whole logic, a pure function of the line, the cursor and the
//! known tables; [`ShellHelper`] plugs it into rustyline. The shell refreshes the helper's
//! table list after every statement, so tables created or dropped in the session complete.
use super::commands::COMMANDS;
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

/// Commands whose first argument is not a table name (or that take none).
const NO_TABLE_ARGUMENT: &[&str] = &[
    "list",
    "help",
    "version",
    "exit",
    "quit",
    "show_filters",
    "merge_region",
    "normalize",
    "normalizer_switch",
    "normalizer_enabled",
    "create_namespace",
    "drop_namespace",
    "alter_namespace",
    "describe_namespace",
    "list_namespace",
    "list_namespace_tables",
];

/// Every command name, sorted, with `quit` (which the shell accepts beside `exit`).
fn command_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = COMMANDS.iter().map(|c| c.0).chain(["quit"]).collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// Completions of `line` with the cursor at byte `pos`: the byte offset where the replaced
/// word starts, and `(display, replacement)` pairs, sorted.
///
/// * The first word of a statement (after leading blanks or a `;`) completes to command
///   names.
/// * The first argument of a command that takes a table (`get 'us` or `scan "` or
///   `describe(`), completes to the `tables` starting with what is typed, written back
///   quoted with the quote typed (`'` when none was) and closed.
/// * `help 'sc` completes to quoted command names.
///
/// Anything else (later arguments, hashes, closed strings) completes to nothing.
pub fn complete_line(line: &str, pos: usize, tables: &[String]) -> (usize, Vec<(String, String)>) {
    let none = (pos, Vec::new());
    let Some(before) = line.get(..pos) else {
        return none;
    };
    let stmt_start = before.rfind(';').map_or(0, |i| i + 1);
    let stmt = &before[stmt_start..];
    let word_start = stmt_start + (stmt.len() - stmt.trim_start().len());
    let rest = &before[word_start..];
    let cmd_len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    if cmd_len == rest.len() {
        let found = command_names()
            .into_iter()
            .filter(|n| n.starts_with(rest))
            .map(|n| (n.to_string(), n.to_string()))
            .collect();
        return (word_start, found);
    }
    let cmd = &rest[..cmd_len];
    let args = &rest[cmd_len..];
    if cmd.is_empty() || !args.starts_with([' ', '\t', '(']) {
        return none;
    }
    let a = args.trim_start();
    let a = a.strip_prefix('(').unwrap_or(a).trim_start();
    let arg_start = pos - a.len();
    let (quote, typed) = match a.chars().next() {
        None => ('\'', ""),
        Some(q @ ('\'' | '"')) => (q, &a[1..]),
        Some(_) => return none,
    };
    if typed.contains(quote) || typed.contains('\\') {
        return none;
    }
    let choices: Vec<String> = if cmd == "help" {
        command_names().into_iter().map(str::to_string).collect()
    } else if NO_TABLE_ARGUMENT.contains(&cmd) || !COMMANDS.iter().any(|c| c.0 == cmd) {
        return none;
    } else {
        let mut t = tables.to_vec();
        t.sort();
        t
    };
    let found = choices
        .into_iter()
        .filter(|c| c.starts_with(typed))
        .map(|c| {
            let quoted = format!("{quote}{c}{quote}");
            (c, quoted)
        })
        .collect();
    (arg_start, found)
}

/// The rustyline helper of the interactive shell: completion only.
#[derive(Debug, Default)]
pub struct ShellHelper {
    /// The database's table names, refreshed by the shell after every statement.
    pub tables: Vec<String>,
    /// The line being read continues a statement (its first word is not a command): no
    /// completion.
    pub continuing: bool,
}

impl Completer for ShellHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        if self.continuing {
            return Ok((pos, Vec::new()));
        }
        let (start, found) = complete_line(line, pos, &self.tables);
        Ok((
            start,
            found
                .into_iter()
                .map(|(display, replacement)| Pair {
                    display,
                    replacement,
                })
                .collect(),
        ))
    }
}

impl Hinter for ShellHelper {
    type Hint = String;
}

impl Highlighter for ShellHelper {}

impl Validator for ShellHelper {}

impl Helper for ShellHelper {}

#[cfg(test)]
mod tests {
    use super::{ShellHelper, complete_line};
    use rustyline::completion::Completer;

    #[test]
    fn the_helper_completes_through_rustyline_except_in_a_continued_statement() {
        let history = rustyline::history::DefaultHistory::new();
        let ctx = rustyline::Context::new(&history);
        let mut h = ShellHelper {
            tables: vec!["t1".to_string()],
            continuing: false,
        };
        let (start, found) = h.complete("scan 't", 7, &ctx).unwrap();
        assert_eq!(start, 5);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].display.as_str(), found[0].replacement.as_str()),
            ("t1", "'t1'")
        );
        h.continuing = true;
        assert!(h.complete("scan 't", 7, &ctx).unwrap().1.is_empty());
    }

    fn replacements(line: &str, tables: &[&str]) -> (usize, Vec<String>) {
        let tables: Vec<String> = tables.iter().map(|t| t.to_string()).collect();
        let (start, found) = complete_line(line, line.len(), &tables);
        (start, found.into_iter().map(|(_, r)| r).collect())
    }

    #[test]
    fn command_names_complete_at_the_start_of_a_statement() {
        assert_eq!(replacements("sc", &[]), (0, vec!["scan".to_string()]));
        assert_eq!(
            replacements("  des", &[]),
            (
                2,
                vec![
                    "desc".to_string(),
                    "describe".to_string(),
                    "describe_namespace".to_string()
                ]
            )
        );
        assert_eq!(
            replacements("is_", &[]),
            (0, vec!["is_disabled".to_string(), "is_enabled".to_string()])
        );
        assert_eq!(
            replacements("show", &[]),
            (0, vec!["show_filters".to_string()])
        );
        assert_eq!(replacements("qu", &[]), (0, vec!["quit".to_string()]));
        assert_eq!(
            replacements("list; dro", &[]),
            (
                6,
                vec![
                    "drop".to_string(),
                    "drop_all".to_string(),
                    "drop_namespace".to_string()
                ]
            )
        );
        let (_, all) = replacements("", &[]);
        assert!(all.contains(&"create".to_string()) && all.contains(&"exit".to_string()));
        assert_eq!(replacements("zzz", &[]).1, Vec::<String>::new());
    }

    #[test]
    fn table_names_complete_in_the_first_argument() {
        let tables = ["users2", "t1", "users"];
        assert_eq!(
            replacements("get 'us", &tables),
            (4, vec!["'users'".to_string(), "'users2'".to_string()])
        );
        assert_eq!(
            replacements("scan \"t", &tables),
            (5, vec!["\"t1\"".to_string()])
        );
        assert_eq!(
            replacements("describe(", &tables),
            (
                9,
                vec![
                    "'t1'".to_string(),
                    "'users'".to_string(),
                    "'users2'".to_string()
                ]
            )
        );
        assert_eq!(replacements("count ", &tables).1.len(), 3);
        // Not the first argument, a closed string, a command without a table argument, an
        // unknown command, or no blank after the command: nothing.
        for line in [
            "get 't1', 'r",
            "get 't1'",
            "list 'u",
            "show_filters '",
            "nosuch 'u",
            "get'u",
        ] {
            assert_eq!(
                replacements(line, &tables).1,
                Vec::<String>::new(),
                "{line}"
            );
        }
    }

    #[test]
    fn help_completes_command_names_and_the_cursor_is_respected() {
        assert_eq!(
            replacements("help 'sca", &[]),
            (5, vec!["'scan'".to_string()])
        );
        // Completion looks only at the text before the cursor.
        let tables = vec!["t1".to_string()];
        let (start, found) = complete_line("get 't', 'row'", 6, &tables);
        assert_eq!(start, 4);
        assert_eq!(found, vec![("t1".to_string(), "'t1'".to_string())]);
        // A cursor inside a multi-byte character completes nothing rather than panicking.
        assert_eq!(complete_line("get 'é", 6, &tables).1, Vec::new());
    }
}
