//! Table attributes the shell sets by name in `create` and `alter` and shows in `describe`:
//! `COMPACTION_ENABLED` and `DURABILITY` (HBase's `TableDescriptorBuilder` keys; admin.rb
//! `update_tdb_from_arg`).

use super::args::{Opts, bool_of, str_of};
use super::{R, err};
use cellbase::{Durability, TableDescriptor};

/// `COMPACTION_ENABLED` and `DURABILITY` of a table as the arguments so far leave them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TableFlags {
    pub compaction: bool,
    /// `None` is HBase's `USE_DEFAULT`.
    pub durability: Option<Durability>,
}

impl TableFlags {
    pub fn of(d: &TableDescriptor) -> Self {
        TableFlags {
            compaction: d.is_compaction_enabled(),
            durability: d.table_durability(),
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
            _ => None,
        }
    }

    /// The descriptor with these settings.
    pub fn apply(self, mut d: TableDescriptor) -> TableDescriptor {
        d = d.compaction_enabled(self.compaction);
        if let Some(x) = self.durability {
            d = d.durability(x);
        }
        d
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
        out
    }
}
