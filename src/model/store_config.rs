//! A family's store settings named by HBase configuration keys (a family's `CONFIGURATION`
//! map in HBase): the store engine (`hbase.hstore.engine.class`), the date-tiered compaction
//! settings of HBase's `DateTieredCompactionPolicy` and `ExponentialCompactionWindowFactory`,
//! and the periodic major compaction (`hbase.hregion.majorcompaction` and its jitter). The same
//! key names are the family's attributes in the table descriptor encoding (docs/FORMAT.md).

use crate::base::error::{Error, Result};

/// The key naming a store's engine class (HBase's `StoreEngine.STORE_ENGINE_CLASS_KEY`).
pub const STORE_ENGINE_KEY: &str = "hbase.hstore.engine.class";
/// HBase's date-tiered store engine: the engine that runs `DateTieredCompactionPolicy`.
pub const DATE_TIERED_STORE_ENGINE: &str =
    "org.apache.hadoop.hbase.regionserver.DateTieredStoreEngine";
/// HBase's default store engine (its policy is the one `COMPACTION_POLICY_KEY` names).
pub const DEFAULT_STORE_ENGINE: &str = "org.apache.hadoop.hbase.regionserver.DefaultStoreEngine";
/// `hbase.hregion.majorcompaction`: the period of automatic major compactions in
/// milliseconds (0 disables them).
pub const MAJOR_COMPACTION_PERIOD_KEY: &str = "hbase.hregion.majorcompaction";
/// `hbase.hregion.majorcompaction.jitter`: the fraction of the period by which each store's
/// next major compaction is moved, earlier or later.
pub const MAJOR_COMPACTION_JITTER_KEY: &str = "hbase.hregion.majorcompaction.jitter";

/// `hbase.hstore.compaction.date.tiered.base.window.millis`.
pub const DT_BASE_WINDOW_KEY: &str = "hbase.hstore.compaction.date.tiered.base.window.millis";
/// `hbase.hstore.compaction.date.tiered.windows.per.tier`.
pub const DT_WINDOWS_PER_TIER_KEY: &str = "hbase.hstore.compaction.date.tiered.windows.per.tier";
/// `hbase.hstore.compaction.date.tiered.max.storefile.age.millis`.
pub const DT_MAX_AGE_KEY: &str = "hbase.hstore.compaction.date.tiered.max.storefile.age.millis";
/// `hbase.hstore.compaction.date.tiered.max.tier.age.millis`.
pub const DT_MAX_TIER_AGE_KEY: &str = "hbase.hstore.compaction.date.tiered.max.tier.age.millis";
/// `hbase.hstore.compaction.date.tiered.incoming.window.min`.
pub const DT_INCOMING_WINDOW_MIN_KEY: &str =
    "hbase.hstore.compaction.date.tiered.incoming.window.min";
/// `hbase.hstore.compaction.date.tiered.single.output.for.minor.compaction`.
pub const DT_SINGLE_OUTPUT_KEY: &str =
    "hbase.hstore.compaction.date.tiered.single.output.for.minor.compaction";

/// The date-tiered compaction settings of a family (HBase's `DateTieredCompactionPolicy`
/// with its default `ExponentialCompactionWindowFactory`), HBase's defaults unless set.
///
/// Time is cut into windows: the incoming window is the base window holding now, and going
/// back in time every `windows_per_tier` windows of one size are followed by windows
/// `windows_per_tier` times larger. A minor compaction compacts files of one window (the
/// newest window with enough files); a major compaction writes one file per window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct DateTieredConfig {
    /// The size of the newest windows in milliseconds (default 6 hours).
    pub base_window_millis: i64,
    /// Windows of one size before the next tier's larger windows (default 4).
    pub windows_per_tier: u32,
    /// Files whose newest cell is older than this are never compacted by a minor compaction
    /// (default `i64::MAX`: no limit).
    pub max_storefile_age_millis: i64,
    /// Windows older than this are not promoted to larger tiers (default: the max storefile
    /// age).
    pub max_tier_age_millis: Option<i64>,
    /// Files the incoming window needs before it is compacted (default 6); older windows need
    /// the exploring policy's minimum (3).
    pub incoming_window_min: u32,
    /// A minor compaction writes one file even when its window's files hold older cells
    /// (default true); false splits them off at the window's start, as HBase's
    /// `single.output.for.minor.compaction = false`.
    pub single_output_for_minor: bool,
}

impl Default for DateTieredConfig {
    fn default() -> Self {
        DateTieredConfig {
            base_window_millis: 6 * 3600 * 1000,
            windows_per_tier: 4,
            max_storefile_age_millis: i64::MAX,
            max_tier_age_millis: None,
            incoming_window_min: 6,
            single_output_for_minor: true,
        }
    }
}

impl DateTieredConfig {
    /// The configuration keys of these settings.
    pub const KEYS: [&'static str; 6] = [
        DT_BASE_WINDOW_KEY,
        DT_WINDOWS_PER_TIER_KEY,
        DT_MAX_AGE_KEY,
        DT_MAX_TIER_AGE_KEY,
        DT_INCOMING_WINDOW_MIN_KEY,
        DT_SINGLE_OUTPUT_KEY,
    ];

    /// The base window size (builder).
    pub fn base_window_millis(mut self, ms: i64) -> Self {
        self.base_window_millis = ms;
        self
    }
    /// Windows per tier (builder).
    pub fn windows_per_tier(mut self, n: u32) -> Self {
        self.windows_per_tier = n;
        self
    }
    /// The max storefile age (builder).
    pub fn max_storefile_age_millis(mut self, ms: i64) -> Self {
        self.max_storefile_age_millis = ms;
        self
    }
    /// The max tier age (builder).
    pub fn max_tier_age_millis(mut self, ms: i64) -> Self {
        self.max_tier_age_millis = Some(ms);
        self
    }
    /// The incoming window's minimum file count (builder).
    pub fn incoming_window_min(mut self, n: u32) -> Self {
        self.incoming_window_min = n;
        self
    }
    /// Single output for minor compactions (builder).
    pub fn single_output_for_minor(mut self, yes: bool) -> Self {
        self.single_output_for_minor = yes;
        self
    }

    /// The max tier age in effect: set, or the max storefile age.
    pub fn effective_max_tier_age_millis(&self) -> i64 {
        self.max_tier_age_millis
            .unwrap_or(self.max_storefile_age_millis)
    }

    /// Sets the setting `key` names from its text.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a key that is none of [`DateTieredConfig::KEYS`] or a
    /// value that does not parse.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let v = value.trim();
        match key {
            DT_BASE_WINDOW_KEY => self.base_window_millis = parse(key, v)?,
            DT_WINDOWS_PER_TIER_KEY => self.windows_per_tier = parse(key, v)?,
            DT_MAX_AGE_KEY => self.max_storefile_age_millis = parse(key, v)?,
            DT_MAX_TIER_AGE_KEY => self.max_tier_age_millis = Some(parse(key, v)?),
            DT_INCOMING_WINDOW_MIN_KEY => self.incoming_window_min = parse(key, v)?,
            DT_SINGLE_OUTPUT_KEY => {
                self.single_output_for_minor = match v.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(bad_value(key, v)),
                }
            }
            _ => {
                return Err(Error::invalid(format!(
                    "{key} is not a date-tiered compaction setting"
                )));
            }
        }
        Ok(())
    }

    /// The settings that differ from HBase's defaults, as (key, value text), in
    /// [`DateTieredConfig::KEYS`] order.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        let d = DateTieredConfig::default();
        let mut out = Vec::new();
        if self.base_window_millis != d.base_window_millis {
            out.push((DT_BASE_WINDOW_KEY, self.base_window_millis.to_string()));
        }
        if self.windows_per_tier != d.windows_per_tier {
            out.push((DT_WINDOWS_PER_TIER_KEY, self.windows_per_tier.to_string()));
        }
        if self.max_storefile_age_millis != d.max_storefile_age_millis {
            out.push((DT_MAX_AGE_KEY, self.max_storefile_age_millis.to_string()));
        }
        if let Some(a) = self.max_tier_age_millis {
            out.push((DT_MAX_TIER_AGE_KEY, a.to_string()));
        }
        if self.incoming_window_min != d.incoming_window_min {
            out.push((
                DT_INCOMING_WINDOW_MIN_KEY,
                self.incoming_window_min.to_string(),
            ));
        }
        if self.single_output_for_minor != d.single_output_for_minor {
            out.push((
                DT_SINGLE_OUTPUT_KEY,
                self.single_output_for_minor.to_string(),
            ));
        }
        out
    }

    /// Checks the settings: a base window of at least 1 ms, at least one window per tier and
    /// one incoming file, ages not negative.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the key.
    pub fn validate(&self) -> Result<()> {
        let fail = |key: &str, why: &str| Err(Error::invalid(format!("{key} {why}")));
        if self.base_window_millis < 1 {
            return fail(DT_BASE_WINDOW_KEY, "must be at least 1 (milliseconds)");
        }
        if self.windows_per_tier < 1 {
            return fail(DT_WINDOWS_PER_TIER_KEY, "must be at least 1");
        }
        if self.incoming_window_min < 1 {
            return fail(DT_INCOMING_WINDOW_MIN_KEY, "must be at least 1");
        }
        if self.max_storefile_age_millis < 0 {
            return fail(DT_MAX_AGE_KEY, "must not be negative");
        }
        if self.max_tier_age_millis.is_some_and(|a| a < 0) {
            return fail(DT_MAX_TIER_AGE_KEY, "must not be negative");
        }
        Ok(())
    }
}

/// A family's own periodic major compaction settings, overriding the database's
/// ([`crate::DbOptions::major_compaction_period`]) when set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MajorCompactionSettings {
    /// `hbase.hregion.majorcompaction` in milliseconds (0 disables periodic major
    /// compactions of the family).
    pub period_millis: Option<u64>,
    /// `hbase.hregion.majorcompaction.jitter`, in millionths (500 000 = 0.5).
    pub jitter_millionths: Option<u32>,
}

impl MajorCompactionSettings {
    /// The jitter as a fraction, if set.
    pub fn jitter(&self) -> Option<f64> {
        self.jitter_millionths.map(|m| f64::from(m) / 1e6)
    }

    /// Sets `hbase.hregion.majorcompaction` or its jitter from text.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another key, a period that is not a whole number of
    /// milliseconds, or a jitter outside `0.0..=1.0`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let v = value.trim();
        match key {
            MAJOR_COMPACTION_PERIOD_KEY => self.period_millis = Some(parse(key, v)?),
            MAJOR_COMPACTION_JITTER_KEY => {
                let f: f64 = v.parse().map_err(|_| bad_value(key, v))?;
                self.jitter_millionths = Some(jitter_to_millionths(f).ok_or_else(|| {
                    Error::invalid(format!("{key} must be between 0.0 and 1.0, got {v}"))
                })?);
            }
            _ => {
                return Err(Error::invalid(format!(
                    "{key} is not a major compaction setting"
                )));
            }
        }
        Ok(())
    }

    /// The settings that are set, as (key, value text).
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(p) = self.period_millis {
            out.push((MAJOR_COMPACTION_PERIOD_KEY, p.to_string()));
        }
        if let Some(j) = self.jitter() {
            out.push((MAJOR_COMPACTION_JITTER_KEY, j.to_string()));
        }
        out
    }
}

/// A jitter fraction in millionths; `None` outside `0.0..=1.0` (or NaN).
pub fn jitter_to_millionths(f: f64) -> Option<u32> {
    (0.0..=1.0).contains(&f).then(|| (f * 1e6).round() as u32)
}

/// Whether `class` names `simple` (fully qualified or the simple name).
pub(crate) fn names_class(class: &str, simple: &str) -> bool {
    class.rsplit('.').next().unwrap_or(class) == simple
}

fn parse<T: std::str::FromStr>(key: &str, v: &str) -> Result<T> {
    v.parse().map_err(|_| bad_value(key, v))
}

fn bad_value(key: &str, v: &str) -> Error {
    Error::invalid(format!("invalid value for {key}: {v:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_tiered_settings_round_trip_by_key() {
        let mut c = DateTieredConfig::default();
        assert!(c.settings().is_empty());
        c.set(DT_BASE_WINDOW_KEY, "60000").unwrap();
        c.set(DT_WINDOWS_PER_TIER_KEY, " 2").unwrap();
        c.set(DT_SINGLE_OUTPUT_KEY, "FALSE").unwrap();
        c.set(DT_MAX_TIER_AGE_KEY, "100").unwrap();
        let mut back = DateTieredConfig::default();
        for (k, v) in c.settings() {
            back.set(k, &v).unwrap();
        }
        assert_eq!(back, c);
        assert_eq!(c.effective_max_tier_age_millis(), 100);
        assert!(c.set(DT_BASE_WINDOW_KEY, "six hours").is_err());
        assert!(
            c.set("hbase.hstore.compaction.date.tiered.nope", "1")
                .is_err()
        );
        c.base_window_millis = 0;
        assert!(c.validate().is_err());
    }

    /// A date-tiered family with its settings and major compaction period, and the
    /// normalizer's table targets, survive the descriptor encoding (version 4 attributes).
    #[test]
    fn attributes_round_trip_in_the_descriptor() {
        use crate::base::codec::Reader;
        use crate::model::schema::{CompactionPolicy, FamilyDescriptor, TableDescriptor};
        let d = TableDescriptor::new("t")
            .family(
                FamilyDescriptor::new("f")
                    .compaction_policy(CompactionPolicy::DateTiered(
                        DateTieredConfig::default()
                            .base_window_millis(60_000)
                            .single_output_for_minor(false),
                    ))
                    .major_compaction_period(std::time::Duration::from_secs(3600))
                    .major_compaction_jitter(0.25),
            )
            .family(FamilyDescriptor::new("g"))
            .normalization_enabled(true)
            .normalizer_target_region_count(8)
            .normalizer_target_region_size_mb(256);
        d.validate().unwrap();
        let mut b = Vec::new();
        d.encode_into(&mut b);
        assert_eq!(b[0], 4);
        let back = TableDescriptor::decode(&mut Reader::new(&b)).unwrap();
        assert_eq!(back, d);
        assert_eq!(back.table_normalizer_target_region_count(), Some(8));
        assert_eq!(back.table_normalizer_target_region_size_mb(), Some(256));
        assert!(
            TableDescriptor::new("t")
                .family(FamilyDescriptor::new("f"))
                .normalizer_target_region_count(0)
                .validate()
                .is_err()
        );
    }

    #[test]
    fn major_compaction_settings_parse() {
        let mut m = MajorCompactionSettings::default();
        m.set(MAJOR_COMPACTION_PERIOD_KEY, "0").unwrap();
        m.set(MAJOR_COMPACTION_JITTER_KEY, "0.25").unwrap();
        assert_eq!(m.period_millis, Some(0));
        assert_eq!(m.jitter(), Some(0.25));
        assert_eq!(
            m.settings(),
            vec![
                (MAJOR_COMPACTION_PERIOD_KEY, "0".to_string()),
                (MAJOR_COMPACTION_JITTER_KEY, "0.25".to_string())
            ]
        );
        assert!(m.set(MAJOR_COMPACTION_JITTER_KEY, "1.5").is_err());
        assert!(m.set(MAJOR_COMPACTION_PERIOD_KEY, "-1").is_err());
        assert!(names_class(
            DATE_TIERED_STORE_ENGINE,
            "DateTieredStoreEngine"
        ));
    }
}
