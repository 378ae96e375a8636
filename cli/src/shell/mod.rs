//! `cellbase shell`: an HBase-shell-compatible shell over a local database directory
//! (hbase-shell.md §4). Interactive on a terminal (line editing, history, multi-line input),
//! non-interactive with `-e`, `-f` or piped standard input.
//!
//! The input is parsed by a small Ruby-literal evaluator ([`ruby`]), the commands map onto the
//! engine API ([`commands`]) and print HBase's formats ([`mod@format`]).

pub mod commands;
pub mod complete;
pub mod format;
pub mod ruby;

use clap::{Args, ValueEnum};
use commands::{CmdError, Session};
use format::TsFormat;
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Output layout of get and scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Layout {
    /// Aligned layout when stdout is a terminal, pipe layout otherwise.
    Auto,
    /// `ROW  COLUMN+CELL` with unpadded columns (stdout is not a terminal).
    Pipe,
    /// The aligned terminal layout (`--width` or the terminal's width).
    Tty,
}

/// Timestamp style in get/scan output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TimestampFormat {
    /// ISO-8601 local time, as HBase 2.3+ prints (`2020-03-11T10:35:38.593`).
    Iso,
    /// Epoch milliseconds (HBase's `hbase.shell.timestamp.format.epoch=true`).
    Epoch,
}

/// Arguments of `cellbase shell`.
#[derive(Debug, Args)]
pub struct ShellArgs {
    /// Database directory (created if missing).
    #[arg(long, default_value = "cellbase-data")]
    pub db: PathBuf,
    /// Run these commands and exit (repeatable; runs before --file).
    #[arg(short = 'e', long = "execute", value_name = "COMMANDS")]
    pub execute: Vec<String>,
    /// Run the commands of this script file and exit.
    #[arg(short = 'f', long = "file", value_name = "SCRIPT")]
    pub file: Option<PathBuf>,
    /// Stop at the first failing command with a non-zero exit status (HBase's `-n`).
    #[arg(short = 'n', long = "noninteractive")]
    pub noninteractive: bool,
    /// get/scan layout: auto (by whether stdout is a terminal), pipe or tty.
    #[arg(long, value_enum, default_value_t = Layout::Auto)]
    pub layout: Layout,
    /// Width of the tty layout (default: the terminal's width, else 100).
    #[arg(long)]
    pub width: Option<usize>,
    /// Timestamp format in get/scan output.
    #[arg(long, value_enum, default_value_t = TimestampFormat::Iso)]
    pub timestamp_format: TimestampFormat,
    /// HBase configuration overrides, `-D key=value`; understood:
    /// `hbase.shell.timestamp.format.epoch=true|false`.
    #[arg(short = 'D', value_name = "KEY=VALUE")]
    pub define: Vec<String>,
    /// History file of the interactive shell (default: ~/.cellbase_shell_history).
    #[arg(long)]
    pub history: Option<PathBuf>,
    /// Testing: open the database with a manual clock starting at this epoch-ms time,
    /// advanced by 1 ms after every command.
    #[arg(long, hide = true)]
    pub fixed_clock_ms: Option<i64>,
}

/// Runs `cellbase shell`.
pub fn run(args: ShellArgs) -> ExitCode {
    let mut ts = match args.timestamp_format {
        TimestampFormat::Iso => TsFormat::Iso,
        TimestampFormat::Epoch => TsFormat::Epoch,
    };
    for d in &args.define {
        match d.split_once('=') {
            Some(("hbase.shell.timestamp.format.epoch", v)) => {
                ts = if v.trim().eq_ignore_ascii_case("true") {
                    TsFormat::Epoch
                } else {
                    TsFormat::Iso
                };
            }
            Some(_) => {}
            None => return crate::fail(format!("-D expects key=value, got {d}")),
        }
    }
    let stdout_tty = std::io::stdout().is_terminal();
    let tty_layout = match args.layout {
        Layout::Auto => stdout_tty,
        Layout::Pipe => false,
        Layout::Tty => true,
    };
    let width = if tty_layout {
        args.width
            .or_else(|| terminal_size::terminal_size().map(|(w, _)| w.0 as usize))
            .unwrap_or(100)
            .max(8)
    } else {
        0
    };
    let clock = args.fixed_clock_ms.map(cellbase::ManualClock::new);
    let mut opts = cellbase::DbOptions::default();
    if let Some(c) = &clock {
        opts = opts.clock(c.clone());
    }
    let db = match cellbase::Db::open_with(&args.db, opts) {
        Ok(db) => db,
        Err(e) => {
            return crate::fail(format!("cannot open database {}: {e}", args.db.display()));
        }
    };
    let mut shell = Shell::new(Session::new(db, clock, ts, width), args.noninteractive);
    // Buffered: each statement's output is flushed when the statement ends (see `feed`).
    let mut out = crate::output::Stdout::new();
    let scripted = !args.execute.is_empty() || args.file.is_some();
    let scripted_or_piped = scripted || !std::io::stdin().is_terminal();
    let status = if scripted {
        let mut st = Flow::Continue;
        for e in &args.execute {
            st = shell.feed_all(e.as_bytes(), &mut out);
            if st != Flow::Continue {
                break;
            }
        }
        if st == Flow::Continue
            && let Some(f) = &args.file
        {
            match std::fs::read(f) {
                Ok(bytes) => {
                    shell.feed_all(&bytes, &mut out);
                }
                Err(e) => {
                    let _ = writeln!(out, "ERROR: cannot read {}: {e}", f.display());
                    shell.failures += 1;
                }
            }
        }
        Ok(())
    } else if std::io::stdin().is_terminal() {
        shell.interactive(args.history, &mut out)
    } else {
        let mut bytes = Vec::new();
        match std::io::stdin().read_to_end(&mut bytes) {
            Ok(_) => {
                shell.feed_all(&bytes, &mut out);
                Ok(())
            }
            Err(e) => Err(format!("cannot read standard input: {e}")),
        }
    };
    let _ = out.flush();
    let closed = shell.session.db.close();
    if let Err(e) = status {
        return crate::fail(e);
    }
    if let Err(e) = closed {
        return crate::fail(format!("closing the database: {e}"));
    }
    // A closed pipe ends quietly (141), a full device with a message and exit 1.
    out.finish(if scripted_or_piped && shell.failures > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::{nesting, strip_prompt};

    #[test]
    fn prompts_follow_irb_nesting() {
        assert_eq!(nesting(b""), (0, None));
        assert_eq!(nesting(b"create 't1',\n"), (0, None));
        assert_eq!(nesting(b"create 't1', {NAME => 'f',\n"), (1, None));
        assert_eq!(nesting(b"put 't', 'r', 'f:q', 'a\n"), (0, Some(b'\'')));
        assert_eq!(nesting(b"scan 't', {FILTER => \"(\\\"x\n"), (1, Some(b'"')));
        assert_eq!(nesting(b"get 't', 'r' # { ignored\n"), (0, None));
        assert_eq!(nesting(b"alter 't', {A => ['}']\n"), (1, None));
    }

    #[test]
    fn prompts_are_stripped() {
        assert_eq!(strip_prompt(b"hbase>create 't'"), b"create 't'");
        assert_eq!(strip_prompt(b"hbase(main):001:0> list"), b"list");
        assert_eq!(strip_prompt(b"hbase:012:1* 'f1'"), b"'f1'");
        assert_eq!(strip_prompt(b"  hbase> list\n"), b"list\n");
        assert_eq!(strip_prompt(b"hbasement 'x'"), b"hbasement 'x'");
        assert_eq!(strip_prompt(b"list"), b"list");
    }
}

/// Whether to keep reading input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep going.
    Continue,
    /// `exit` / `quit` was run.
    Exit,
    /// A command failed under `-n`.
    Failed,
}

/// The read-eval-print state: a session plus statement accumulation.
pub struct Shell {
    /// Database and output settings.
    pub session: Session,
    /// Number of failed commands and syntax errors so far.
    pub failures: usize,
    /// Stop at the first failure (`-n`).
    pub stop_on_error: bool,
    /// Lines read so far (for error positions and the prompt).
    pub line_no: usize,
}

impl Shell {
    /// A shell over `session` that has read nothing yet; `stop_on_error` is `-n`.
    pub fn new(session: Session, stop_on_error: bool) -> Self {
        Shell {
            session,
            failures: 0,
            stop_on_error,
            line_no: 0,
        }
    }

    /// Feeds a whole input (script, `-e` text or piped stdin) line by line.
    pub fn feed_all(&mut self, input: &[u8], out: &mut dyn Write) -> Flow {
        let mut buf: Vec<u8> = Vec::new();
        let mut start_line = self.line_no + 1;
        self.session.pending = input
            .split_inclusive(|&b| b == b'\n')
            .map(<[u8]>::to_vec)
            .collect();
        while let Some(line) = self.session.pending.pop_front() {
            let line = line.as_slice();
            self.line_no += 1;
            if buf.is_empty() {
                start_line = self.line_no;
            }
            buf.extend_from_slice(strip_prompt(line));
            if !buf.ends_with(b"\n") {
                buf.push(b'\n');
            }
            match self.feed(&buf, start_line, out) {
                None => continue, // incomplete: read on
                Some(flow) => {
                    buf.clear();
                    if flow != Flow::Continue {
                        let _ = out.flush();
                        return flow;
                    }
                }
            }
        }
        if !buf.is_empty() {
            let _ = writeln!(
                out,
                "SyntaxError: (hbase):{}: syntax error, unexpected end-of-input",
                self.line_no
            );
            self.failures += 1;
            if self.stop_on_error {
                return Flow::Failed;
            }
        }
        let _ = out.flush();
        Flow::Continue
    }

    /// Parses and runs a complete chunk; `None` when the chunk is incomplete.
    pub fn feed(&mut self, chunk: &[u8], start_line: usize, out: &mut dyn Write) -> Option<Flow> {
        match ruby::parse(chunk) {
            Err(e) if e.is_incomplete() => None,
            Err(e) => {
                let before = &chunk[..e.pos.min(chunk.len())];
                let line = start_line + before.iter().filter(|&&b| b == b'\n').count();
                let column = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
                let _ = match &e.kind {
                    ruby::ParseErrorKind::UndefinedName(_) => {
                        writeln!(out, "NameError: {}", e.message())
                    }
                    _ => writeln!(
                        out,
                        "SyntaxError: (hbase):{line}: {} (column {column})",
                        e.message()
                    ),
                };
                let _ = out.flush();
                self.failures += 1;
                Some(if self.stop_on_error {
                    Flow::Failed
                } else {
                    Flow::Continue
                })
            }
            Ok(stmts) => {
                for st in stmts {
                    let flow = self.execute(&st.command, &st.args, out);
                    if out.flush().is_err() {
                        // Standard output is gone (closed pipe, full device): running more
                        // commands would only lose their output; the caller reports it.
                        return Some(Flow::Exit);
                    }
                    if flow != Flow::Continue {
                        return Some(flow);
                    }
                }
                Some(Flow::Continue)
            }
        }
    }

    /// Runs one statement and prints its output, `Took` line, `=>` echo or error.
    pub fn execute(&mut self, cmd: &str, args: &[ruby::Value], out: &mut dyn Write) -> Flow {
        match cmd {
            "exit" | "quit" => return Flow::Exit,
            "help" => {
                print_help(args, out);
                return Flow::Continue;
            }
            _ => {}
        }
        if commands::usage(cmd).is_none() {
            let _ = writeln!(
                out,
                "NameError: undefined local variable or method `{cmd}' for main:Object"
            );
            self.failures += 1;
            return if self.stop_on_error {
                Flow::Failed
            } else {
                Flow::Continue
            };
        }
        let started = Instant::now();
        let result = self.session.run(cmd, args, out);
        self.session.tick();
        let took = started.elapsed().as_secs_f64();
        match result {
            Ok(echo) => {
                let _ = format::took_line(out, took, self.session.width);
                if let Some(e) = echo {
                    let _ = writeln!(out, "=> {e}");
                }
                Flow::Continue
            }
            Err(CmdError(msg)) => {
                let _ = writeln!(out);
                let _ = writeln!(out, "ERROR: {msg}");
                let _ = writeln!(out);
                // HBase 2.0+ (HBASE-20270): a pointer to the help, not the help itself.
                let _ = writeln!(out, "For usage try 'help \"{cmd}\"'");
                let _ = writeln!(out);
                let _ = format::took_line(out, took, self.session.width);
                self.failures += 1;
                if self.stop_on_error {
                    Flow::Failed
                } else {
                    Flow::Continue
                }
            }
        }
    }

    /// HBase's irb prompts (`PROMPT_I '%N:%03n:%i> '`, `PROMPT_S '%N:%03n:%i%l '`,
    /// `PROMPT_C '%N:%03n:%i* '`): the line number, the bracket nesting of the statement typed
    /// so far, and `>` for a new statement, the open quote inside a string, `*` otherwise.
    fn prompt(&self, pending: &[u8]) -> String {
        let (depth, quote) = nesting(pending);
        let mark = match quote {
            Some(q) => char::from(q),
            None if pending.is_empty() => '>',
            None => '*',
        };
        format!("hbase:{:03}:{depth}{mark} ", self.line_no + 1)
    }

    /// The interactive loop: rustyline editing, history, multi-line statements.
    fn interactive(&mut self, history: Option<PathBuf>, out: &mut dyn Write) -> Result<(), String> {
        use rustyline::error::ReadlineError;
        let mut rl: rustyline::Editor<complete::ShellHelper, rustyline::history::DefaultHistory> =
            rustyline::Editor::new().map_err(|e| format!("cannot start the line editor: {e}"))?;
        rl.set_helper(Some(complete::ShellHelper {
            tables: self.session.db.table_names(),
            continuing: false,
        }));
        let history = history.or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cellbase_shell_history"))
        });
        if let Some(h) = &history {
            let _ = rl.load_history(h);
        }
        let _ = writeln!(
            out,
            "cellbase shell {}: HBase shell syntax. Type \"help\" for the commands, \"exit\" to leave.",
            env!("CARGO_PKG_VERSION")
        );
        let _ = out.flush();
        let mut buf: Vec<u8> = Vec::new();
        let mut start_line = 1;
        loop {
            if let Some(h) = rl.helper_mut() {
                h.continuing = !buf.is_empty();
            }
            let line = match rl.readline(&self.prompt(&buf)) {
                Ok(l) => l,
                Err(ReadlineError::Interrupted) => {
                    buf.clear();
                    continue;
                }
                Err(ReadlineError::Eof) => break,
                Err(e) => return Err(format!("reading input: {e}")),
            };
            self.line_no += 1;
            if buf.is_empty() {
                start_line = self.line_no;
            }
            if !line.trim().is_empty() {
                let _ = rl.add_history_entry(line.as_str());
            }
            buf.extend_from_slice(strip_prompt(line.as_bytes()));
            buf.push(b'\n');
            match self.feed(&buf, start_line, out) {
                None => continue,
                Some(Flow::Continue) => buf.clear(),
                Some(_) => break,
            }
            // Tables created or dropped by the statement complete from now on.
            if let Some(h) = rl.helper_mut() {
                h.tables = self.session.db.table_names();
            }
        }
        if let Some(h) = &history {
            let _ = rl.save_history(h);
        }
        Ok(())
    }
}

/// The bracket nesting (`(`, `[`, `{`) at the end of `text` and the quote of a string left
/// open there, skipping string contents (with `\\` escapes) and `#` comments.
pub fn nesting(text: &[u8]) -> (usize, Option<u8>) {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        match quote {
            Some(q) => {
                if b == b'\\' {
                    i += 1;
                } else if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                b'#' => {
                    while i < text.len() && text[i] != b'\n' {
                        i += 1;
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    (depth, quote)
}

/// Drops a pasted HBase prompt at the start of a line (`hbase>`, `hbase(main):001:0>`,
/// `hbase:002:0*`), so commands copied from articles and terminal logs run as written.
pub fn strip_prompt(line: &[u8]) -> &[u8] {
    let start = line
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    let Some(rest) = line[start..].strip_prefix(b"hbase") else {
        return line;
    };
    let mut i = 0;
    if rest.starts_with(b"(main)") {
        i += 6;
    }
    // Optional `:NNN:N` (line number and nesting level).
    for _ in 0..2 {
        if rest.get(i) == Some(&b':') && rest.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i += 1;
            while rest.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
    }
    match rest.get(i) {
        Some(b'>' | b'*') => {
            i += 1;
            if rest.get(i) == Some(&b' ') {
                i += 1;
            }
            &rest[i..]
        }
        _ => line,
    }
}

fn print_help(args: &[ruby::Value], out: &mut dyn Write) {
    if let Some(ruby::Value::Str(name)) = args.first() {
        let name = String::from_utf8_lossy(name);
        match commands::usage(&name) {
            Some(u) => {
                let _ = writeln!(out, "  {u}");
            }
            None => {
                let _ = writeln!(out, "ERROR: no help for unknown command '{name}'");
            }
        }
        return;
    }
    let _ = writeln!(
        out,
        "cellbase shell: the HBase shell's commands over a local database.\n\
         Type 'help \"COMMAND\"' for help on one command.\n"
    );
    for group in ["general", "ddl", "namespace", "dml", "tools"] {
        let names: Vec<&str> = commands::COMMANDS
            .iter()
            .filter(|c| c.1 == group)
            .map(|c| c.0)
            .collect();
        let _ = writeln!(out, "  Group name: {group}");
        let _ = writeln!(out, "  Commands: {}\n", names.join(", "));
    }
}
