//! Compile-time check of the semantics part of shared/API.md (time ranges, TTL, raw/reversed
//! scans, filters, counters, conditional writes, admin). Copy into tests/ with the semantics work.
#![allow(dead_code, unused_variables, clippy::all)]
use cellbase::*;
use std::time::Duration;

fn semantics(db: &Db, t: &Table) -> Result<()> {
    t.put(
        Put::new("r")
            .add("f", "q", "v")
            .ttl(Duration::from_millis(500)),
    )?;
    let g = Get::new("r")
        .time_range(0, 10)
        .timestamp(5)
        .filter(Filter::KeyOnly);
    let s = Scan::new()
        .time_range(0, 10)
        .timestamp(5)
        .reversed(true)
        .raw(true)
        .batch(3)
        .filter(Filter::FirstKeyOnly);
    let f: Filter = Filter::parse("PrefixFilter('a') AND ValueFilter(=, 'binary:x')")?;
    let all = Filter::All(vec![
        Filter::Prefix(b"a".to_vec()),
        Filter::Row(CompareOp::Less, Comparator::Binary(b"x".to_vec())),
        Filter::Family(
            CompareOp::LessOrEqual,
            Comparator::BinaryPrefix(b"f".to_vec()),
        ),
        Filter::Qualifier(CompareOp::Equal, Comparator::Substring("q".into())),
        Filter::Value(CompareOp::NotEqual, Comparator::Regex("v.*".into())),
        Filter::SingleColumnValue {
            family: b"f".to_vec(),
            qualifier: b"q".to_vec(),
            op: CompareOp::GreaterOrEqual,
            comparator: Comparator::Binary(vec![]),
            filter_if_missing: true,
            latest_version_only: true,
        },
        Filter::ColumnPrefix(b"c".to_vec()),
        Filter::ColumnRange {
            min: None,
            min_inclusive: true,
            max: Some(b"z".to_vec()),
            max_inclusive: false,
        },
        Filter::Page(10),
        Filter::Timestamps(vec![1, 2]),
    ]);
    let any = Filter::Any(vec![all.clone(), f.clone()]);
    let _ = any == f;
    let _ = CompareOp::Greater;
    let inc: RowResult = t.increment(Increment::new("c").add("f", "n", 1))?;
    let app: RowResult = t.append(Append::new("c").add("f", "s", "x"))?;
    let ok: bool = t.check_and_mutate(
        CheckAndMutate::new("r")
            .if_equals("f", "q", "v")
            .if_absent("f", "z")
            .if_compare("f", "q", CompareOp::Less, "w")
            .then_put(Put::new("r").add("f", "q", "w"))
            .then_delete(Delete::new("r").all_versions("f", "z")),
    )?;
    t.mutate_row(
        "r",
        vec![
            Mutation::Put(Put::new("r").add("f", "q", "x")),
            Mutation::Delete(Delete::new("r").family("g")),
        ],
    )?;
    t.delete(Delete::new("r").up_to(5))?;
    db.disable_table("t")?;
    let en: bool = db.is_table_enabled("t")?;
    db.enable_table("t")?;
    match t.get(Get::new("r")) {
        Err(Error::TableDisabled(name)) => {}
        Err(Error::NotACounter {
            row,
            family,
            qualifier,
        }) => {}
        Err(Error::Closed) => {}
        _ => {}
    }
    Ok(())
}

#[test]
fn api_surface_semantics_compiles() {}
