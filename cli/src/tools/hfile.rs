//! `cellbase hfile`: prints a block file's trailer, file info, Bloom filter summary and block
//! index, and optionally its cells, like HBase's `hbase hfile` (HFilePrettyPrinter).
//!
//! The file is read into memory through the engine's inspection API ([`cellbase::inspect`]:
//! read-only, no lock); nothing is written. docs/TOOLS.md lists the options and the output
//! format.
use super::{error_text, to_string_binary, type_name};
use cellbase::inspect::{BlockFile, BlockHandle, BloomSummary, CellKey, StoredCell};
use cellbase::{BloomType, Compression};
use clap::Args;
use std::cmp::Ordering;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `cellbase hfile` (HBase's HFilePrettyPrinter options where they apply).
///
/// Without any of `-m -b -p -e -s -k -w` it prints the trailer, file info, Bloom summary and
/// block index (`-m -b`). With some of them it prints exactly what they select.
#[derive(Debug, Args, Default)]
pub struct HfileArgs {
    /// Block files to read (`DIR/data/NNNNNNNNNN.sst`).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// A block file to read (HBase's `-f` form; may be combined with positional files).
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Print the trailer, file info and Bloom filter summary.
    #[arg(short = 'm', long = "printmeta")]
    pub meta: bool,
    /// Print the block index (one line per data block).
    #[arg(short = 'b', long = "printblocks")]
    pub blocks: bool,
    /// Print every cell: `K: row/fam:qual/ts/Type/vlen=N/seqid=S V: value`.
    #[arg(short = 'p', long = "printkv")]
    pub printkv: bool,
    /// Print every cell's key only: `K: row/fam:qual/ts/Type/seqid=S`.
    #[arg(short = 'e', long = "printkey")]
    pub printkey: bool,
    /// Check that cells are in strictly increasing key order; report each violation.
    #[arg(short = 'k', long = "checkrow")]
    pub checkrow: bool,
    /// Check that every cell has the file's family (a file belongs to one store).
    #[arg(short = 'a', long = "checkfamily")]
    pub checkfamily: bool,
    /// Print key, value and row size statistics.
    #[arg(short = 's', long = "stats")]
    pub stats: bool,
    /// Print the cells of this row only (`Bytes.toStringBinary` escapes such as `\x00` allowed).
    #[arg(short = 'w', long = "seekToRow", value_name = "ROW")]
    pub seek_to_row: Option<String>,
    /// Print `Scanning -> FILE` before each file.
    #[arg(short = 'v', long = "verbose")]
    pub verbose: bool,
}

/// Runs `cellbase hfile`: exit 0 when every file was read cleanly, 1 when a file could not be
/// read or failed a check, 2 for usage errors.
pub fn run(args: HfileArgs) -> ExitCode {
    let mut files = args.files.clone();
    files.extend(args.file.clone());
    if files.is_empty() {
        crate::stderr_line!(
            "ERROR: cellbase hfile: no file given (cellbase hfile [OPTIONS] FILE...)"
        );
        return ExitCode::from(2);
    }
    // Block-buffered; a closed pipe or a full device ends the run (crate::output).
    let mut out = crate::output::Stdout::new();
    let mut failed = false;
    for f in &files {
        match dump(&args, f, &mut out, files.len() > 1) {
            Ok(true) => {}
            Ok(false) => failed = true,
            Err(_) if out.error().is_some() => break,
            Err(e) => {
                let _ = out.flush();
                crate::stderr_line!("ERROR: {e}");
                failed = true;
            }
        }
    }
    out.finish(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The error of a failed write to standard output; a closed pipe (`hfile -p FILE | head`) ends
/// the run quietly.
const BROKEN_PIPE: &str = "broken pipe";

fn io_err(e: std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        BROKEN_PIPE.to_string()
    } else {
        format!("writing output: {e}")
    }
}

fn bloom_name(b: BloomType) -> String {
    match b.prefix_length() {
        // HBase's HFilePrettyPrinter shows the Bloom type; the prefix length is part of it.
        Some(n) => format!(
            "{} ({} {n})",
            b.hbase_name(),
            cellbase::ROW_PREFIX_LENGTH_KEY
        ),
        None => b.hbase_name().to_string(),
    }
}

fn compression_name(c: Compression) -> &'static str {
    c.hbase_name()
}

fn handle_str(h: BlockHandle) -> String {
    format!(
        "offset={}, size={}, onDisk={}",
        h.offset,
        h.size,
        h.framed_len()
    )
}

fn ts_str(ts: i64) -> String {
    match ts {
        i64::MAX => "(none: i64::MAX)".into(),
        i64::MIN => "(none: i64::MIN)".into(),
        t => t.to_string(),
    }
}

/// How a block's frame says it is stored.
fn frame_compression(c: Option<Compression>) -> &'static str {
    match c {
        Some(Compression::None) => "none",
        Some(Compression::Snappy) => "snappy",
        Some(Compression::Gz) => "gz",
        Some(Compression::Lz4) => "lz4",
        Some(Compression::Zstd) => "zstd",
        None => "?",
    }
}

/// One cell as HBase's `-p` prints it.
pub fn cell_line(c: &StoredCell) -> String {
    let k = &c.key;
    let mut s = format!(
        "K: {}/{}:{}/{}/{}/vlen={}/seqid={} V: {}",
        to_string_binary(&k.row),
        to_string_binary(&k.family),
        to_string_binary(&k.qualifier),
        k.timestamp,
        type_name(k.type_code),
        c.value.len(),
        k.seq,
        to_string_binary(&c.value)
    );
    if let Some(ttl) = c.ttl_ms {
        s.push_str(&format!(" TTL={ttl}ms"));
    }
    s
}

#[derive(Default)]
struct Stat {
    n: u64,
    min: u64,
    max: u64,
    sum: u128,
}

impl Stat {
    fn add(&mut self, v: u64) {
        if self.n == 0 || v < self.min {
            self.min = v;
        }
        self.max = self.max.max(v);
        self.n += 1;
        self.sum += u128::from(v);
    }
    fn line(&self, what: &str) -> String {
        let mean = if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        };
        format!(
            "   {what}: count: {}, min: {}, max: {}, mean: {mean:.2}",
            self.n, self.min, self.max
        )
    }
}

/// Prints one file. `Ok(false)`: printed, but a check (`-k`, `-a`) failed.
fn dump(args: &HfileArgs, path: &Path, out: &mut impl Write, many: bool) -> Result<bool, String> {
    let io = io_err;
    let selected = args.meta
        || args.blocks
        || args.printkv
        || args.printkey
        || args.stats
        || args.checkrow
        || args.checkfamily
        || args.seek_to_row.is_some();
    let (show_meta, show_blocks) = if selected {
        (args.meta, args.blocks)
    } else {
        (true, true)
    };
    // A file that cannot be read is not scanned; one that does not decode is, and fails.
    let file = match BlockFile::open(path) {
        Err(cellbase::Error::Io(e)) => return Err(e.to_string()),
        opened => opened.map_err(|e| e.to_string()),
    };
    if args.verbose || many {
        writeln!(out, "Scanning -> {}", path.display()).map_err(io)?;
    }
    let file = file?;
    if show_meta {
        let trailer = file.trailer();
        let meta = file.info();
        writeln!(out, "Trailer:").map_err(io)?;
        writeln!(
            out,
            "    majorVersion={}, magic={}, crc={:#010x}, trailerOffset={}, fileLength={}",
            trailer.format_version,
            String::from_utf8_lossy(&trailer.magic),
            trailer.crc,
            trailer.offset,
            trailer.file_len
        )
        .map_err(io)?;
        match trailer.bloom {
            Some(h) => writeln!(out, "    bloomBlock: {}", handle_str(h)),
            None => writeln!(out, "    bloomBlock: (none)"),
        }
        .map_err(io)?;
        writeln!(out, "    indexBlock: {}", handle_str(trailer.index)).map_err(io)?;
        writeln!(out, "    metaBlock: {}", handle_str(trailer.meta)).map_err(io)?;
        writeln!(out, "    dataRegion: [0, {})", trailer.data_end()).map_err(io)?;
        writeln!(out, "Fileinfo:").map_err(io)?;
        let key = |k: &Option<CellKey>| k.as_ref().map_or("(none)".into(), CellKey::to_string);
        let lines = [
            ("FIRSTKEY", key(&meta.first_key)),
            ("LASTKEY", key(&meta.last_key)),
            ("MIDKEY", key(&meta.mid_key)),
            ("ENTRIES", meta.cells.to_string()),
            ("PUT_COUNT", meta.puts.to_string()),
            ("DELETE_COUNT", meta.deletes.to_string()),
            (
                "TIMERANGE",
                format!(
                    "{}....{}",
                    ts_str(meta.min_timestamp),
                    ts_str(meta.max_timestamp)
                ),
            ),
            ("EARLIEST_PUT_TS", ts_str(meta.earliest_put_timestamp)),
            ("MAX_SEQ_ID_KEY", meta.max_seq.to_string()),
            ("BLOOM_FILTER_TYPE", bloom_name(meta.bloom_type).to_string()),
            (
                "COMPRESSION",
                compression_name(meta.compression).to_string(),
            ),
            (
                "DATA_BLOCK_ENCODING",
                meta.data_block_encoding.hbase_name().to_string(),
            ),
            ("DATA_BLOCKS", meta.data_blocks.to_string()),
            ("RAW_DATA_BYTES", meta.raw_data_bytes.to_string()),
            ("FILE_SIZE", meta.file_size.to_string()),
        ];
        for (k, v) in lines {
            writeln!(out, "    {k} = {v}").map_err(io)?;
        }
        writeln!(out, "Bloom filter:").map_err(io)?;
        match file.bloom() {
            None => writeln!(out, "    Not present").map_err(io)?,
            Some(b) => {
                for l in bloom_summary(b) {
                    writeln!(out, "    {l}").map_err(io)?;
                }
            }
        }
    }
    if show_blocks {
        let index = file.index();
        writeln!(out, "Block Index: {} entries", index.len()).map_err(io)?;
        for (i, e) in index.iter().enumerate() {
            writeln!(
                out,
                "    block {i}: {}, compression={}, firstKey={}",
                handle_str(e.block),
                frame_compression(e.compression),
                e.first_key
            )
            .map_err(io)?;
        }
    }
    if !(args.printkv
        || args.printkey
        || args.stats
        || args.checkrow
        || args.checkfamily
        || args.seek_to_row.is_some())
    {
        return Ok(true);
    }
    walk(args, &file, out)
}

/// The Bloom block summary lines (payload layout: docs/FORMAT.md, section 2), from the
/// engine's own decoder, so every filter version is summarized the same way.
fn bloom_summary(f: &BloomSummary) -> Vec<String> {
    let bits = f.bitmap_bytes as f64 * 8.0;
    vec![
        format!("BloomType: {}", bloom_name(f.bloom_type)),
        format!("Filter version: {} ({})", f.version, f.hash_name()),
        format!("No of Keys in bloom: {}", f.keys),
        format!("BloomSize: {} bytes", f.bitmap_bytes),
        format!("Hash functions: {}", f.hash_count),
        format!(
            "Percentage filled: {:.2}%",
            if bits > 0.0 {
                f.bits_set as f64 * 100.0 / bits
            } else {
                0.0
            }
        ),
        format!(
            "Estimated false positive rate: {:.4}",
            f.estimated_false_positive_rate()
        ),
    ]
}

/// Walks the cells for `-p`, `-e`, `-s`, `-k`, `-a` and `-w`.
fn walk(args: &HfileArgs, file: &BlockFile, out: &mut impl Write) -> Result<bool, String> {
    let io = io_err;
    let path = file.path();
    let (cells, only_row) = match &args.seek_to_row {
        Some(r) => {
            let row =
                super::from_string_binary(r.as_bytes()).map_err(|e| format!("-w {r:?}: {e}"))?;
            (file.cells_from(&row), Some(row))
        }
        None => (file.cells(), None),
    };
    let print_kv = args.printkv || only_row.is_some();
    let mut ok = true;
    let mut prev: Option<CellKey> = None;
    let family: Option<Vec<u8>> = file.info().first_key.as_ref().map(|k| k.family.clone());
    let (mut klen, mut vlen, mut row_bytes, mut row_cols) = (
        Stat::default(),
        Stat::default(),
        Stat::default(),
        Stat::default(),
    );
    let mut cur_row: Option<(Vec<u8>, u64, u64)> = None;
    let mut count = 0u64;
    for cell in cells {
        let cell = cell.map_err(error_text)?;
        let k = &cell.key;
        if let Some(r) = &only_row
            && k.row != *r
        {
            break;
        }
        count += 1;
        if args.checkrow
            && let Some(p) = &prev
            && p.cmp(k) != Ordering::Less
        {
            ok = false;
            writeln!(
                out,
                "WARNING, previous key is not smaller than the current key\n\tfilename -> {}\n\tprevious -> {p}\n\tcurrent  -> {k}",
                path.display(),
            )
            .map_err(io)?;
        }
        if args.checkfamily && family.as_deref() != Some(&k.family[..]) {
            ok = false;
            writeln!(
                out,
                "WARNING, cell family does not match the file's family {}\n\tfilename -> {}\n\tcurrent  -> {k}",
                to_string_binary(family.as_deref().unwrap_or_default()),
                path.display(),
            )
            .map_err(io)?;
        }
        if print_kv {
            writeln!(out, "{}", cell_line(&cell)).map_err(io)?;
        } else if args.printkey {
            writeln!(out, "K: {k}").map_err(io)?;
        }
        if args.stats {
            klen.add(cell.key_len() as u64);
            vlen.add(cell.value.len() as u64);
            let size = (cell.key_len() + cell.payload_len()) as u64;
            match &mut cur_row {
                Some((r, b, n)) if *r == k.row => {
                    *b += size;
                    *n += 1;
                }
                slot => {
                    if let Some((_, b, n)) = slot.take() {
                        row_bytes.add(b);
                        row_cols.add(n);
                    }
                    *slot = Some((k.row.clone(), size, 1));
                }
            }
        }
        prev = Some(cell.key);
    }
    if args.stats {
        if let Some((_, b, n)) = cur_row.take() {
            row_bytes.add(b);
            row_cols.add(n);
        }
        writeln!(out, "Stats:").map_err(io)?;
        for l in [
            klen.line("Key length"),
            vlen.line("Val length"),
            row_bytes.line("Row size (bytes)"),
            row_cols.line("Row size (columns)"),
        ] {
            writeln!(out, "{l}").map_err(io)?;
        }
    }
    if args.printkv || args.printkey || args.checkrow || args.checkfamily {
        writeln!(out, "Scanned kv count -> {count}").map_err(io)?;
    }
    Ok(ok)
}
