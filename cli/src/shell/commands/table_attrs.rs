//! Table attributes the shell sets by name in `create` and `alter` and shows in `describe`:
//! `COMPACTION_ENABLED`, `DURABILITY`, `NORMALIZATION_ENABLED`,
//! `NORMALIZER_TARGET_REGION_COUNT` and `NORMALIZER_TARGET_REGION_SIZE_MB` (HBase's
//! `TableDescriptorBuilder` keys; admin.rb `update_tdb_from_arg`).

use super::args::{Opts, bool_of, int_of, str_of};
use super::{CmdError, R, err};
use crate::shell::ruby::Value;
use cellbase::{Durability, TableDescriptor};

/// The table attributes of this module as the arguments so far leave them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TableFlags {
    pub compaction: bool,
    /// `None` is HBase's `USE_DEFAULT`.
    pub durability: Option<Durability>,
    pub normalization: bool,
    pub target_region_count: Option<u32>,
    pub target_region_size_mb: Option<u64>,
}

impl TableFlags {
    pub fn of(d: &TableDescriptor) -> Self {
        TableFlags {
            compaction: d.is_compaction_enabled(),
            durability: d.table_durability(),
            normalization: d.is_normalization_enabled(),
            target_region_count: d.table_normalizer_target_region_count(),
            target_region_size_mb: d.table_normalizer_target_region_size_mb(),
        }
    }

    /// Takes the keys this type knows from a table options hash; true when one was given.
    pub fn take(&mut self, o: &mut Opts) -> R<bool> {
        let mut any = false;
        if let Some(v) = o.take("COMPACTION_ENABLED") {
            self.compaction = bool_of(&v, "COMPACTION_ENABLED")?;
            any = true;
        }
        if let Some(v) = o.take("DURABILITY") {
            let name = str_of(&v, "DURABILITY")?;
            if !Durability::is_hbase_name(&name) {
                // Java's `Durability.valueOf`.
                return err(format!(
                    "java.lang.IllegalArgumentException: No enum constant \
                     org.apache.hadoop.hbase.client.Durability.{name}"
                ));
            }
            self.durability = Durability::from_hbase_name(&name);
            any = true;
        }
        if let Some(v) = o.take("NORMALIZATION_ENABLED") {
            self.normalization = bool_of(&v, "NORMALIZATION_ENABLED")?;
            any = true;
        }
        if let Some(v) = o.take("NORMALIZER_TARGET_REGION_COUNT") {
            self.target_region_count = Some(positive(&v, "NORMALIZER_TARGET_REGION_COUNT")?);
            any = true;
        }
        if let Some(v) = o.take("NORMALIZER_TARGET_REGION_SIZE_MB") {
            self.target_region_size_mb = Some(positive(&v, "NORMALIZER_TARGET_REGION_SIZE_MB")?);
            any = true;
        }
        Ok(any)
    }

    /// `table_att_unset` of `key`: back to the default. `None` when the key is not one of
    /// these; `Some(false)` when it was not set.
    pub fn unset(&mut self, key: &str) -> Option<bool> {
        match key {
            "COMPACTION_ENABLED" => {
                let was = !self.compaction;
                self.compaction = true;
                Some(was)
            }
            "DURABILITY" => Some(self.durability.take().is_some()),
            "NORMALIZATION_ENABLED" => {
                let was = self.normalization;
                self.normalization = false;
                Some(was)
            }
            "NORMALIZER_TARGET_REGION_COUNT" => Some(self.target_region_count.take().is_some()),
            "NORMALIZER_TARGET_REGION_SIZE_MB" => Some(self.target_region_size_mb.take().is_some()),
            _ => None,
        }
    }

    /// The descriptor with these settings.
    pub fn apply(self, mut d: TableDescriptor) -> TableDescriptor {
        d = d.compaction_enabled(self.compaction);
        if let Some(x) = self.durability {
            d = d.durability(x);
        }
        d = d.normalization_enabled(self.normalization);
        if let Some(n) = self.target_region_count {
            d = d.normalizer_target_region_count(n);
        }
        if let Some(n) = self.target_region_size_mb {
            d = d.normalizer_target_region_size_mb(n);
        }
        d
    }

    /// Installs these settings on `table` (alter).
    pub fn install(self, db: &cellbase::Db, table: &str) -> cellbase::Result<()> {
        db.set_table_compaction_enabled(table, self.compaction)?;
        db.set_table_durability(table, self.durability)?;
        db.set_table_normalization_enabled(table, self.normalization)?;
        db.set_table_normalizer_target_region_count(table, self.target_region_count)?;
        db.set_table_normalizer_target_region_size_mb(table, self.target_region_size_mb)
    }

    /// describe's `TABLE_ATTRIBUTES` entries for the settings that are not the default.
    pub fn describe(self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.compaction {
            out.push("COMPACTION_ENABLED => 'false'".to_string());
        }
        if let Some(d) = self.durability {
            out.push(format!("DURABILITY => '{}'", d.hbase_name()));
        }
        if self.normalization {
            out.push("NORMALIZATION_ENABLED => 'true'".to_string());
        }
        if let Some(n) = self.target_region_count {
            out.push(format!("NORMALIZER_TARGET_REGION_COUNT => '{n}'"));
        }
        if let Some(n) = self.target_region_size_mb {
            out.push(format!("NORMALIZER_TARGET_REGION_SIZE_MB => '{n}'"));
        }
        out
    }
}

/// A normalizer target: an integer or numeric string above 0.
fn positive<T: TryFrom<i64>>(v: &Value, what: &str) -> R<T> {
    let n = int_of(v, what)?;
    T::try_from(n)
        .ok()
        .filter(|_| n > 0)
        .ok_or_else(|| CmdError(format!("{what} must be a positive integer, got {n}")))
}
