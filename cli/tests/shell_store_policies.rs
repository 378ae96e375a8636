//! The shell's store and region policies: a family's date-tiered compaction and major
//! compaction period (`CONFIGURATION` keys in create / alter, shown by describe), and the
//! region normalizer (`normalize`, `normalizer_switch`, `normalizer_enabled` and the table
//! attributes `NORMALIZATION_ENABLED`, `NORMALIZER_TARGET_REGION_COUNT`,
//! `NORMALIZER_TARGET_REGION_SIZE_MB`).

use cellbase::{CompactionPolicy, Db, DbOptions, ManualClock};
use cellbase_cli::shell::Shell;
use cellbase_cli::shell::commands::Session;
use cellbase_cli::shell::format::TsFormat;

fn shell(dir: &std::path::Path) -> Shell {
    let clock = ManualClock::new(1_000_000);
    let db = Db::open_with(
        dir,
        DbOptions::default()
            .background_threads(0)
            .clock(clock.clone()),
    )
    .unwrap();
    Shell {
        session: Session {
            db,
            clock: Some(clock),
            ts: TsFormat::Epoch,
            width: 0,
            pending: Default::default(),
        },
        failures: 0,
        stop_on_error: false,
        line_no: 0,
    }
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
