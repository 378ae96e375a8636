//! `cellbase hfile`: prints a block file's trailer, file info, Bloom filter summary and block
//! index, and optionally its cells, like HBase's `hbase hfile` (HFilePrettyPrinter).
//!
//! The file is read into memory (read-only, no lock); nothing is written. docs/TOOLS.md lists
//! the options and the output format.
use super::{key_to_string, read_file, to_string_binary, type_name};
use cellbase::model::cursor::CellCursor;
use cellbase::model::key::{KeyRef, compare_encoded, first_on_row};
use cellbase::model::payload::PayloadRef;
use cellbase::sst::bloom::BloomFilter;
use cellbase::sst::frame::{self, BlockHandle, COMPRESSION_NONE, COMPRESSION_SNAPPY};
use cellbase::sst::trailer::Trailer;
use cellbase::sst::{CachePolicy, SstReader, TRAILER_LEN};
use cellbase::{BloomType, Compression};
use clap::Args;
use std::cmp::Ordering;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

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

fn bloom_name(b: BloomType) -> &'static str {
    match b {
        BloomType::None => "NONE",
        BloomType::Row => "ROW",
        BloomType::RowCol => "ROWCOL",
    }
}

fn compression_name(c: Compression) -> &'static str {
    match c {
        Compression::None => "NONE",
        Compression::Snappy => "SNAPPY",
    }
}

fn handle_str(h: BlockHandle) -> String {
    format!(
        "offset={}, size={}, onDisk={}",
        h.offset,
        h.size,
        u64::from(h.size) + frame::FRAME_TRAILER_LEN as u64
    )
}

fn ts_str(ts: i64) -> String {
    match ts {
        i64::MAX => "(none: i64::MAX)".into(),
        i64::MIN => "(none: i64::MIN)".into(),
        t => t.to_string(),
    }
}

/// The stored compression byte of a block's frame.
fn frame_compression(bytes: &[u8], h: BlockHandle) -> &'static str {
    let at = usize::try_from(h.offset + u64::from(h.size)).ok();
    match at.and_then(|i| bytes.get(i)) {
        Some(&COMPRESSION_NONE) => "none",
        Some(&COMPRESSION_SNAPPY) => "snappy",
        _ => "?",
    }
}

/// One cell as HBase's `-p` prints it.
pub fn cell_line(key: &[u8], payload: &[u8]) -> String {
    let (Some(k), Some(p)) = (KeyRef::parse(key), PayloadRef::parse(payload)) else {
        return format!(
            "K: (malformed cell {}) V: {}",
            to_string_binary(key),
            to_string_binary(payload)
        );
    };
    let mut s = format!(
        "K: {}/{}:{}/{}/{}/vlen={}/seqid={} V: {}",
        to_string_binary(k.row),
        to_string_binary(k.family),
        to_string_binary(k.qualifier),
        k.ts,
        type_name(k.type_code),
        p.value.len(),
        k.seq,
        to_string_binary(p.value)
    );
    if let Some(ttl) = p.ttl_ms {
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
    let file = read_file(path)?;
    let bytes = &file.0;
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
    if args.verbose || many {
        writeln!(out, "Scanning -> {}", path.display()).map_err(io)?;
    }
    let trailer = Trailer::decode(bytes, path).map_err(|e| e.to_string())?;
    let reader =
        Arc::new(SstReader::from_file(file.clone(), path, 0, None).map_err(|e| e.to_string())?);
    let meta = reader.meta();
    if show_meta {
        let base = bytes.len() - TRAILER_LEN;
        let raw_crc = bytes
            .get(base + 48..base + 52)
            .map_or(0, |c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]));
        writeln!(out, "Trailer:").map_err(io)?;
        writeln!(
            out,
            "    majorVersion={}, magic={}, crc={raw_crc:#010x}, trailerOffset={base}, fileLength={}",
            cellbase::sst::FORMAT_VERSION,
            String::from_utf8_lossy(cellbase::sst::MAGIC),
            bytes.len()
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
        let key = |k: &[u8]| {
            if k.is_empty() {
                "(none)".to_string()
            } else {
                key_to_string(k)
            }
        };
        let lines = [
            ("FIRSTKEY", key(&meta.first_key)),
            ("LASTKEY", key(&meta.last_key)),
            (
                "MIDKEY",
                reader.mid_key().map_or("(none)".into(), |k| key(&k)),
            ),
            ("ENTRIES", meta.cell_count.to_string()),
            ("PUT_COUNT", meta.put_count.to_string()),
            ("DELETE_COUNT", meta.delete_count.to_string()),
            (
                "TIMERANGE",
                format!("{}....{}", ts_str(meta.min_ts), ts_str(meta.max_ts)),
            ),
            ("EARLIEST_PUT_TS", ts_str(meta.earliest_put_ts)),
            ("MAX_SEQ_ID_KEY", meta.max_seq.to_string()),
            ("BLOOM_FILTER_TYPE", bloom_name(meta.bloom).to_string()),
            (
                "COMPRESSION",
                compression_name(meta.compression).to_string(),
            ),
            ("DATA_BLOCKS", meta.data_blocks.to_string()),
            ("RAW_DATA_BYTES", meta.raw_data_bytes.to_string()),
            ("FILE_SIZE", meta.file_size.to_string()),
        ];
        for (k, v) in lines {
            writeln!(out, "    {k} = {v}").map_err(io)?;
        }
        writeln!(out, "Bloom filter:").map_err(io)?;
        match trailer.bloom {
            None => writeln!(out, "    Not present").map_err(io)?,
            Some(h) => {
                let raw = frame::read_frame(bytes, h, h.end(), path, "bloom block")
                    .map_err(|e| e.to_string())?;
                for l in bloom_summary(&raw) {
                    writeln!(out, "    {l}").map_err(io)?;
                }
            }
        }
    }
    if show_blocks {
        let index = reader.index();
        writeln!(out, "Block Index: {} entries", index.len()).map_err(io)?;
        for i in 0..index.len() {
            let (Some(h), Some(k)) = (index.handle(i), index.first_key(i)) else {
                break;
            };
            writeln!(
                out,
                "    block {i}: {}, compression={}, firstKey={}",
                handle_str(h),
                frame_compression(bytes, h),
                key_to_string(&k)
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
    walk(args, &reader, out)
}

/// The Bloom block summary lines (payload layout: docs/FORMAT.md, section 2), from the
/// engine's own decoder, so every filter version is summarized the same way.
fn bloom_summary(raw: &[u8]) -> Vec<String> {
    let f = match BloomFilter::decode(raw) {
        Ok(f) => f,
        Err(e) => {
            return vec![format!(
                "malformed bloom block: {} at byte {}",
                e.what, e.offset
            )];
        }
    };
    let kind = bloom_name(f.kind());
    let keys = f.keys();
    let k = f.hash_count();
    let bitmap = f.bitmap();
    let bits = bitmap.len() as f64 * 8.0;
    let set: u64 = bitmap.iter().map(|b| u64::from(b.count_ones())).sum();
    let fp = if bits > 0.0 {
        (1.0 - (-(f64::from(k)) * keys as f64 / bits).exp()).powi(k as i32)
    } else {
        1.0
    };
    vec![
        format!("BloomType: {kind}"),
        format!(
            "Filter version: {} ({})",
            f.version(),
            if f.version() == 1 {
                "SipHash-1-3"
            } else {
                "XXH64"
            }
        ),
        format!("No of Keys in bloom: {keys}"),
        format!("BloomSize: {} bytes", bitmap.len()),
        format!("Hash functions: {k}"),
        format!(
            "Percentage filled: {:.2}%",
            if bits > 0.0 {
                set as f64 * 100.0 / bits
            } else {
                0.0
            }
        ),
        format!("Estimated false positive rate: {fp:.4}"),
    ]
}

/// Walks the cells for `-p`, `-e`, `-s`, `-k`, `-a` and `-w`.
fn walk(args: &HfileArgs, reader: &Arc<SstReader>, out: &mut impl Write) -> Result<bool, String> {
    let io = io_err;
    let err = |e: cellbase::Error| e.to_string();
    let path = reader.path().to_path_buf();
    let mut c = reader.cursor(CachePolicy {
        fill: false,
        in_memory: false,
    });
    let only_row = match &args.seek_to_row {
        Some(r) => {
            let row =
                super::from_string_binary(r.as_bytes()).map_err(|e| format!("-w {r:?}: {e}"))?;
            c.seek(&first_on_row(&row)).map_err(err)?;
            Some(row)
        }
        None => {
            c.seek_to_first().map_err(err)?;
            None
        }
    };
    let print_kv = args.printkv || only_row.is_some();
    let mut ok = true;
    let mut prev: Vec<u8> = Vec::new();
    let family: Option<Vec<u8>> =
        KeyRef::parse(&reader.meta().first_key).map(|k| k.family.to_vec());
    let (mut klen, mut vlen, mut row_bytes, mut row_cols) = (
        Stat::default(),
        Stat::default(),
        Stat::default(),
        Stat::default(),
    );
    let mut cur_row: Option<(Vec<u8>, u64, u64)> = None;
    let mut count = 0u64;
    while c.valid() {
        let key = c.key();
        let payload = c.payload();
        let k = KeyRef::parse(key).ok_or_else(|| format!("{}: malformed key", path.display()))?;
        if let Some(r) = &only_row
            && k.row != r.as_slice()
        {
            break;
        }
        count += 1;
        if args.checkrow && count > 1 && compare_encoded(&prev, key) != Ordering::Less {
            ok = false;
            writeln!(
                out,
                "WARNING, previous key is not smaller than the current key\n\tfilename -> {}\n\tprevious -> {}\n\tcurrent  -> {}",
                path.display(),
                key_to_string(&prev),
                key_to_string(key)
            )
            .map_err(io)?;
        }
        if args.checkfamily && family.as_deref() != Some(k.family) {
            ok = false;
            writeln!(
                out,
                "WARNING, cell family does not match the file's family {}\n\tfilename -> {}\n\tcurrent  -> {}",
                to_string_binary(family.as_deref().unwrap_or_default()),
                path.display(),
                key_to_string(key)
            )
            .map_err(io)?;
        }
        if print_kv {
            writeln!(out, "{}", cell_line(key, payload)).map_err(io)?;
        } else if args.printkey {
            writeln!(out, "K: {}", key_to_string(key)).map_err(io)?;
        }
        if args.stats {
            let v = PayloadRef::parse(payload).map_or(0, |p| p.value.len()) as u64;
            klen.add(key.len() as u64);
            vlen.add(v);
            let size = (key.len() + payload.len()) as u64;
            match &mut cur_row {
                Some((r, b, n)) if r.as_slice() == k.row => {
                    *b += size;
                    *n += 1;
                }
                slot => {
                    if let Some((_, b, n)) = slot.take() {
                        row_bytes.add(b);
                        row_cols.add(n);
                    }
                    *slot = Some((k.row.to_vec(), size, 1));
                }
            }
        }
        prev.clear();
        prev.extend_from_slice(key);
        c.next().map_err(err)?;
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
