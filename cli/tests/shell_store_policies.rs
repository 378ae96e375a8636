//! The shell's store and region policies: a family's date-tiered compaction and major
//! compaction period (`CONFIGURATION` keys in create / alter, shown by describe), its
//! `DATA_BLOCK_ENCODING`, and the
//! region normalizer (`normalize`, `normalizer_switch`, `normalizer_enabled` and the table
//! attributes `NORMALIZATION_ENABLED`, `NORMALIZER_TARGET_REGION_COUNT`,
//! `NORMALIZER_TARGET_REGION_SIZE_MB`).

use cellbase::{CompactionPolicy, Db, DbOptions, ManualClock, NormalizerConfig};
use cellbase_cli::shell::Shell;
use cellbase_cli::shell::commands::Session;
use cellbase_cli::shell::format::TsFormat;
use std::time::Duration;

fn shell(dir: &std::path::Path) -> Shell {
    let clock = ManualClock::new(1_000_000);
    let db = Db::open_with(
        dir,
        DbOptions::default()
            .background_threads(0)
            .clock(clock.clone())
            // Empty regions may merge (HBase's tests lower merge.min_region_size.mb to 0).
            .normalizer(NormalizerConfig::default().merge_min_region_size_mb(0)),
    )
    .unwrap();
    Shell::new(Session::new(db, Some(clock), TsFormat::Epoch, 0), false)
}

fn feed(sh: &mut Shell, text: &str) -> String {
    let mut out = Vec::new();
    sh.feed_all(text.as_bytes(), &mut out);
    String::from_utf8(out).unwrap()
}

const DT_ENGINE: &str = "org.apache.hadoop.hbase.regionserver.DateTieredStoreEngine";
const DT_POLICY: &str =
    "org.apache.hadoop.hbase.regionserver.compactions.DateTieredCompactionPolicy";

/// HBase book, "Enabling Date Tiered Compaction": the store engine key turns it on, the
/// settings are the family's CONFIGURATION; describe prints them; the policy class alone is
/// refused; DefaultStoreEngine turns it off.
#[test]
fn date_tiered_compaction_in_create_alter_and_describe() {
    let dir = tempfile::tempdir().unwrap();
    let mut sh = shell(dir.path());
    let out = feed(
        &mut sh,
        &format!(
            "create 'ts', {{NAME => 'm', CONFIGURATION => {{'hbase.hstore.engine.class' => \
             '{DT_ENGINE}', 'hbase.hstore.compaction.date.tiered.base.window.millis' => \
             '3600000', 'hbase.hstore.compaction.date.tiered.incoming.window.min' => 3}}}}\n\
             describe 'ts'\n"
        ),
    );
    assert!(out.contains("Created table ts"), "{out}");
    assert!(
        out.contains(&format!(
            "CONFIGURATION => {{'hbase.hstore.engine.class' => '{DT_ENGINE}', \
             'hbase.hstore.compaction.date.tiered.base.window.millis' => '3600000', \
             'hbase.hstore.compaction.date.tiered.incoming.window.min' => '3'}}}}"
        )),
        "{out}"
    );
    // alter changes one setting and keeps the others.
    let out = feed(
        &mut sh,
        "alter 'ts', {NAME => 'm', CONFIGURATION => \
         {'hbase.hstore.compaction.date.tiered.windows.per.tier' => '2'}}\n",
    );
    assert!(out.contains("Done."), "{out}");
    let d = sh.session.db.describe("ts").unwrap();
    match d.families()[0].compaction_policy {
        CompactionPolicy::DateTiered(c) => {
            assert_eq!(
                (
                    c.base_window_millis,
                    c.windows_per_tier,
                    c.incoming_window_min
                ),
                (3_600_000, 2, 3)
            );
        }
        other => panic!("{other:?}"),
    }
    // The policy class alone, settings without the engine, and other engines are refused.
    let out = feed(
        &mut sh,
        &format!(
            "create 'x', {{NAME => 'm', CONFIGURATION => \
             {{'hbase.hstore.defaultengine.compactionpolicy.class' => '{DT_POLICY}'}}}}\n\
             create 'y', {{NAME => 'm', CONFIGURATION => \
             {{'hbase.hstore.compaction.date.tiered.windows.per.tier' => '2'}}}}\n\
             create 'z', {{NAME => 'm', CONFIGURATION => {{'hbase.hstore.engine.class' => \
             'org.apache.hadoop.hbase.regionserver.StripeStoreEngine'}}}}\n"
        ),
    );
    assert_eq!(out.matches("ERROR:").count(), 3, "{out}");
    assert!(out.contains("needs the store engine"), "{out}");
    assert!(
        out.contains("applies to date-tiered compaction only"),
        "{out}"
    );
    assert!(out.contains("StripeStoreEngine is not supported"), "{out}");
    assert!(!sh.session.db.table_names().contains(&"x".to_string()));
    // Back to the default engine: the exploring policy, no CONFIGURATION shown.
    let out = feed(
        &mut sh,
        "alter 'ts', {NAME => 'm', CONFIGURATION => {'hbase.hstore.engine.class' => \
         'org.apache.hadoop.hbase.regionserver.DefaultStoreEngine'}}\ndescribe 'ts'\n",
    );
    assert!(!out.contains("CONFIGURATION"), "{out}");
    assert_eq!(
        sh.session.db.describe("ts").unwrap().families()[0].compaction_policy,
        CompactionPolicy::Exploring
    );
}

/// A family's `hbase.hregion.majorcompaction` (and jitter) in create, alter and describe.
#[test]
fn major_compaction_period_in_family_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let mut sh = shell(dir.path());
    let out = feed(
        &mut sh,
        "create 'p', {NAME => 'f', CONFIGURATION => {'hbase.hregion.majorcompaction' => 0}}\n\
         alter 'p', {NAME => 'f', CONFIGURATION => {'hbase.hregion.majorcompaction.jitter' => '0.25'}}\n\
         describe 'p'\n\
         alter 'p', {NAME => 'f', CONFIGURATION => {'hbase.hregion.majorcompaction.jitter' => '2'}}\n",
    );
    assert!(
        out.contains(
            "CONFIGURATION => {'hbase.hregion.majorcompaction' => '0', \
             'hbase.hregion.majorcompaction.jitter' => '0.25'}}"
        ),
        "{out}"
    );
    assert!(out.contains("must be between 0.0 and 1.0"), "{out}");
    let f = sh.session.db.describe("p").unwrap().families()[0].clone();
    assert_eq!(f.major_compaction.period_millis, Some(0));
    assert_eq!(f.major_compaction.jitter(), Some(0.25));
}

/// HBase's normalize.rb, normalizer_switch.rb, normalizer_enabled.rb and the normalizer's
/// table attributes in create / alter / describe.
#[test]
fn normalizer_commands_and_table_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let mut sh = shell(dir.path());
    let out = feed(
        &mut sh,
        "create 'n', 'f', {SPLITS => ['b', 'c'], NORMALIZATION_ENABLED => true, \
         NORMALIZER_TARGET_REGION_COUNT => 2, NORMALIZER_TARGET_REGION_SIZE_MB => '64'}\n\
         describe 'n'\n\
         create 'other', 'f', {SPLITS => ['b', 'c']}\n",
    );
    assert!(
        out.contains(
            "n, {TABLE_ATTRIBUTES => {NORMALIZATION_ENABLED => 'true', \
             NORMALIZER_TARGET_REGION_COUNT => '2', NORMALIZER_TARGET_REGION_SIZE_MB => '64'}}"
        ),
        "{out}"
    );
    // The switch: on by default; switching prints the previous state.
    let out = feed(
        &mut sh,
        "normalizer_enabled\nnormalizer_switch false\nnormalizer_enabled\nnormalize\n",
    );
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| *l == "true" || *l == "false" || l.starts_with("=>"))
        .collect();
    assert_eq!(
        lines,
        ["true", "true", "false", "false", "=> false"],
        "{out}"
    );
    // Three empty regions, four days old, a 64 MB target: one merge of all three. The table
    // without NORMALIZATION_ENABLED is left alone.
    feed(&mut sh, "normalizer_switch true\n");
    sh.session
        .clock
        .as_ref()
        .unwrap()
        .advance(Duration::from_secs(4 * 86_400));
    let out = feed(&mut sh, "normalize\n");
    assert!(out.contains("=> true"), "{out}");
    let regions = |sh: &Shell, t: &str| sh.session.db.table(t).unwrap().regions().len();
    assert_eq!(regions(&sh, "n"), 1);
    assert_eq!(regions(&sh, "other"), 3);
    // The filters: named tables, a regex, a namespace that does not exist.
    let out = feed(
        &mut sh,
        "alter 'other', NORMALIZATION_ENABLED => true\n\
         normalize TABLE_NAME => 'n'\n\
         normalize NAMESPACE => 'nope'\n\
         normalize REGEX => 'oth.*'\n",
    );
    assert_eq!(out.matches("ERROR:").count(), 1, "{out}");
    assert_eq!(regions(&sh, "other"), 1, "{out}");
    // alter sets and unsets the targets and the flag.
    let out = feed(
        &mut sh,
        "alter 'n', METHOD => 'table_att_unset', NAME => 'NORMALIZER_TARGET_REGION_SIZE_MB'\n\
         alter 'n', NORMALIZATION_ENABLED => false, NORMALIZER_TARGET_REGION_COUNT => 5\n\
         alter 'n', NORMALIZER_TARGET_REGION_COUNT => 0\n\
         describe 'n'\n",
    );
    assert!(out.contains("must be a positive integer"), "{out}");
    assert!(
        out.contains("n, {TABLE_ATTRIBUTES => {NORMALIZER_TARGET_REGION_COUNT => '5'}}"),
        "{out}"
    );
    let d = sh.session.db.describe("n").unwrap();
    assert!(!d.is_normalization_enabled());
    assert_eq!(d.table_normalizer_target_region_size_mb(), None);
}

/// `DATA_BLOCK_ENCODING` in create and alter, any case (HBase's admin.rb upcases the name for
/// `DataBlockEncoding.valueOf`): stored in the family, shown by describe, and the files a
/// flush writes use it (docs/SEMANTICS.md).
#[test]
fn data_block_encoding_in_create_alter_and_describe() {
    use cellbase::DataBlockEncoding;
    let dir = tempfile::tempdir().unwrap();
    let mut sh = shell(dir.path());
    let out = feed(
        &mut sh,
        "create 'e', {NAME => 'f', DATA_BLOCK_ENCODING => 'fast_diff'}, {NAME => 'g'}\n\
         put 'e', 'r', 'f:q', 'v'\nflush 'e'\ndescribe 'e'\n",
    );
    assert!(out.contains("Created table e"), "{out}");
    assert!(
        out.contains(
            "{NAME => 'f', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', \
             KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'FAST_DIFF',"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "{NAME => 'g', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', \
             KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE',"
        ),
        "{out}"
    );
    let fams = |sh: &Shell| {
        sh.session
            .db
            .describe("e")
            .unwrap()
            .families()
            .iter()
            .map(|f| f.data_block_encoding)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        fams(&sh),
        [DataBlockEncoding::FastDiff, DataBlockEncoding::None]
    );
    let out = feed(
        &mut sh,
        "alter 'e', {NAME => 'f', DATA_BLOCK_ENCODING => 'Row_Index_V1'}, {NAME => 'g', \
         DATA_BLOCK_ENCODING => 'PREFIX'}\nget 'e', 'r'\n",
    );
    assert!(out.contains("Done.") && out.contains("value=v"), "{out}");
    assert_eq!(
        fams(&sh),
        [DataBlockEncoding::RowIndexV1, DataBlockEncoding::Prefix]
    );
    // An unknown name changes nothing.
    let out = feed(
        &mut sh,
        "alter 'e', {NAME => 'f', DATA_BLOCK_ENCODING => 'LZ4'}\n",
    );
    assert!(
        out.contains("ERROR: DATA_BLOCK_ENCODING LZ4 is not supported"),
        "{out}"
    );
    assert_eq!(
        fams(&sh),
        [DataBlockEncoding::RowIndexV1, DataBlockEncoding::Prefix]
    );
}
