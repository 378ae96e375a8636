//! §1.7 Flush / compaction retention.

use super::*;

/// [CMP-1] [CMP-2] a flush applies the minor rules to the snapshot: cell-TTL-expired,
/// family-expired, masked and excess versions are dropped; markers kept.
#[test]
fn flush_applies_the_common_retention_steps() {
    let env = Env::new(100_000);
    let t = env.table(vec![
        FamilyDescriptor::new("f").max_versions(2).ttl(secs(10)),
    ]);
    t.put(
        Put::new("a")
            .add_at("f", "q", 99_000, "cell-expired")
            .ttl(ms(1)),
    )
    .unwrap();
    t.put(Put::new("b").add_at("f", "q", 80_000, "family-expired"))
        .unwrap();
    t.put(Put::new("c").add_at("f", "q", 99_000, "masked"))
        .unwrap();
    t.delete(Delete::new("c").version("f", "q", 99_000))
        .unwrap();
    for ts in 99_001..=99_003 {
        t.put(Put::new("d").add_at("f", "q", ts, "v")).unwrap();
    }
    assert_eq!(raw(&t).len(), 7);
    t.flush().unwrap();
    assert_eq!(
        raw(&t),
        ["c/f:q@99000 D=", "d/f:q@99003 Put=v", "d/f:q@99002 Put=v"]
    );
}

/// [CMP-3] which markers mask in flush/compaction: FALSE all, TTL only expired ones, TRUE none.
#[test]
fn tracked_markers_depend_on_keep_deleted_cells() {
    for (k, masked) in [
        (KeepDeletedCells::False, true),
        (KeepDeletedCells::Ttl, false),
        (KeepDeletedCells::True, false),
    ] {
        let env = Env::new(100_000);
        let t = env.table(vec![
            FamilyDescriptor::new("f")
                .max_versions(3)
                .ttl(secs(1000))
                .keep_deleted_cells(k),
        ]);
        t.put(Put::new("r").add_at("f", "q", 99_000, "v")).unwrap();
        t.delete(Delete::new("r").version("f", "q", 99_000))
            .unwrap();
        t.flush().unwrap();
        t.major_compact().unwrap();
        let got = raw(&t);
        assert_eq!(
            got.contains(&"r/f:q@99000 Put=v".into()),
            !masked,
            "{k:?}: {got:?}"
        );
    }
}

/// [CMP-4] flush/minor drop markers made redundant by a newer tracked marker of the row+family.
#[test]
fn redundant_markers_are_dropped_at_flush() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    let d = Delete::new("r")
        .version("f", "q", 3)
        .versions_up_to("f", "p", 5);
    t.delete(d).unwrap();
    t.delete(Delete::new("r").family_version("f", 7)).unwrap();
    t.delete(Delete::new("r").versions_up_to("f", "q", 8))
        .unwrap();
    t.delete(Delete::new("r").family_up_to("f", 6)).unwrap();
    t.delete(Delete::new("r").versions_up_to("f", "z", 9))
        .unwrap();
    t.flush().unwrap();
    assert_eq!(
        raw(&t),
        ["r/f:@7 DFV=", "r/f:@6 DF=", "r/f:q@8 DC=", "r/f:z@9 DC="]
    );
}

/// [CMP-5] major compaction: KDC=FALSE drops every marker; KDC=TRUE keeps a marker at or after
/// earliestPutTs that precedes the (V+1)-th Put of its column.
#[test]
fn major_compaction_marker_rules() {
    let env = Env::new(1_000);
    let t = env.table(vec![
        FamilyDescriptor::new("f").max_versions(1),
        FamilyDescriptor::new("g")
            .max_versions(2)
            .keep_deleted_cells(KeepDeletedCells::True),
    ]);
    for fam in ["f", "g"] {
        t.put(Put::new("r").add_at(fam, "q", 10, "a")).unwrap();
        t.delete(Delete::new("r").version(fam, "q", 20)).unwrap();
        t.delete(Delete::new("r").version(fam, "q", 5)).unwrap();
        t.put(Put::new("r").add_at(fam, "q", 30, "b")).unwrap();
    }
    t.flush().unwrap();
    t.major_compact().unwrap();
    // g (V=2): D@20 is >= earliestPutTs (10) and precedes the 3rd Put: kept; D@5 is below
    // earliestPutTs: dropped.
    assert_eq!(
        raw(&t),
        [
            "r/f:q@30 Put=b",
            "r/g:q@30 Put=b",
            "r/g:q@20 D=",
            "r/g:q@10 Put=a"
        ]
    );
    // A third newer Put pushes @10 out; D@20 now sorts after the (V+1)-th Put... once the
    // earliest Put is 30 it is dropped.
    t.put(Put::new("r").add_at("g", "q", 40, "c")).unwrap();
    t.flush().unwrap();
    t.major_compact().unwrap();
    t.major_compact().unwrap();
    assert_eq!(
        raw(&t),
        ["r/f:q@30 Put=b", "r/g:q@40 Put=c", "r/g:q@30 Put=b"]
    );
}

/// [CMP-6] a major compaction leaves one store file per family.
#[test]
fn major_compaction_writes_one_file_per_store() {
    let env = Env::new(1_000);
    let t = env.table(fg(3));
    for i in 0..3 {
        t.put(
            Put::new(format!("r{i}"))
                .add("f", "q", "v")
                .add("g", "q", "w"),
        )
        .unwrap();
        t.flush().unwrap();
    }
    assert_eq!(t.regions()[0].store_files, 6);
    t.major_compact().unwrap();
    assert_eq!(t.regions()[0].store_files, 2);
    assert_eq!(scan_cells(&t, Scan::new()).len(), 6);
}
