//! Oracle: `hbase-semantics.md` [PRESPLIT-2..4], [ENC-2]; HBase `TestRegionSplitter`,
//! `TestBytes`.

use super::*;

fn strs(keys: &[Vec<u8>]) -> Vec<String> {
    keys.iter().map(|k| to_string_binary(k)).collect()
}

fn ascii(keys: &[&str]) -> Vec<Vec<u8>> {
    keys.iter().map(|k| k.as_bytes().to_vec()).collect()
}

/// Uniform keys `b0 00×7`.
fn uniform_lead(leads: &[u8]) -> Vec<Vec<u8>> {
    leads
        .iter()
        .map(|&b| {
            let mut k = vec![0u8; 8];
            k[0] = b;
            k
        })
        .collect()
}

// ---- [PRESPLIT-3] ----------------------------------------------------------------------------

#[test]
fn presplit_hex() {
    use SplitAlgorithm::HexString as H;
    assert_eq!(split_keys(H, 2), ascii(&["80000000"]));
    assert_eq!(split_keys(H, 3), ascii(&["55555555", "aaaaaaaa"]));
    assert_eq!(
        split_keys(H, 4),
        ascii(&["40000000", "80000000", "c0000000"])
    );
    assert_eq!(
        split_keys(H, 10),
        ascii(&[
            "19999999", "33333332", "4ccccccb", "66666664", "7ffffffd", "99999996", "b333332f",
            "ccccccc8", "e6666661",
        ])
    );
    let sixteen: Vec<Vec<u8>> = (1..16u32)
        .map(|i| format!("{i:x}0000000").into_bytes())
        .collect();
    assert_eq!(split_keys(H, 16), sixteen);
    assert_eq!(sixteen[14], b"f0000000");
}

#[test]
fn presplit_decimal() {
    use SplitAlgorithm::DecimalString as D;
    assert_eq!(split_keys(D, 2), ascii(&["50000000"]));
    assert_eq!(split_keys(D, 3), ascii(&["33333333", "66666666"]));
    assert_eq!(
        split_keys(D, 4),
        ascii(&["25000000", "50000000", "75000000"])
    );
    let ten: Vec<Vec<u8>> = (1..10u32)
        .map(|i| format!("{i}0000000").into_bytes())
        .collect();
    assert_eq!(split_keys(D, 10), ten);
}

#[test]
fn presplit_uniform() {
    use SplitAlgorithm::Uniform as U;
    assert_eq!(split_keys(U, 2), uniform_lead(&[0x80]));
    assert_eq!(split_keys(U, 3), vec![vec![0x55; 8], vec![0xAA; 8]]);
    assert_eq!(
        strs(&split_keys(U, 3)),
        ["UUUUUUUU", r"\xAA\xAA\xAA\xAA\xAA\xAA\xAA\xAA"]
    );
    assert_eq!(split_keys(U, 4), uniform_lead(&[0x40, 0x80, 0xC0]));
    assert_eq!(strs(&split_keys(U, 4))[0], r"@\x00\x00\x00\x00\x00\x00\x00");
    let sixteen: Vec<u8> = (1..16u8).map(|i| i << 4).collect();
    assert_eq!(split_keys(U, 16), uniform_lead(&sixteen));
}

#[test]
fn presplit_uniform_ten() {
    let hex = [
        "1999999999999999",
        "3333333333333332",
        "4CCCCCCCCCCCCCCB",
        "6666666666666664",
        "7FFFFFFFFFFFFFFD",
        "9999999999999996",
        "B33333333333332F",
        "CCCCCCCCCCCCCCC8",
        "E666666666666661",
    ];
    let expected: Vec<Vec<u8>> = hex
        .iter()
        .map(|h| u64::from_str_radix(h, 16).unwrap().to_be_bytes().to_vec())
        .collect();
    let keys = split_keys(SplitAlgorithm::Uniform, 10);
    assert_eq!(keys, expected);
    // step 0x1999999999999999 = floor(2^64 / 10)
    assert_eq!(keys[0], 0x1999_9999_9999_9999u64.to_be_bytes());
    assert_eq!(
        strs(&keys),
        [
            r"\x19\x99\x99\x99\x99\x99\x99\x99",
            "33333332",
            r"L\xCC\xCC\xCC\xCC\xCC\xCC\xCB",
            "fffffffd",
            r"\x7F\xFF\xFF\xFF\xFF\xFF\xFF\xFD",
            r"\x99\x99\x99\x99\x99\x99\x99\x96",
            r"\xB3333333/",
            r"\xCC\xCC\xCC\xCC\xCC\xCC\xCC\xC8",
            r"\xE6ffffffa",
        ]
    );
}

#[test]
fn presplit_keys_sorted_and_counted() {
    for alg in [
        SplitAlgorithm::HexString,
        SplitAlgorithm::DecimalString,
        SplitAlgorithm::Uniform,
    ] {
        for n in [2u32, 3, 5, 7, 31, 100, 255, 1000] {
            let keys = split_keys(alg, n);
            assert_eq!(keys.len(), n as usize - 1, "{alg} {n}");
            assert!(keys.windows(2).all(|w| w[0] < w[1]), "{alg} {n}");
            assert!(keys.iter().all(|k| k.len() == 8), "{alg} {n}");
        }
    }
}

#[test]
fn presplit_errors() {
    for alg in [
        SplitAlgorithm::HexString,
        SplitAlgorithm::DecimalString,
        SplitAlgorithm::Uniform,
    ] {
        for n in [0, 1] {
            assert!(split_keys(alg, n).is_empty());
            match split_keys_checked(alg, n) {
                Err(Error::InvalidArgument(m)) => {
                    assert_eq!(m, "Number of regions must be greater than 1")
                }
                other => panic!("{alg} {n}: {other:?}"),
            }
        }
    }
    match split_keys_checked(SplitAlgorithm::DecimalString, 100_000_001) {
        Err(Error::InvalidArgument(m)) => assert_eq!(
            m,
            "split granularity (100000001) is greater than the range (100000000)"
        ),
        other => panic!("{other:?}"),
    }
    assert!(split_keys(SplitAlgorithm::DecimalString, 100_000_001).is_empty());
    // The largest u32 still fits the hex range (2^32); don't materialize it, check the last key
    // arithmetic on a smaller but odd count instead.
    let keys = split_keys(SplitAlgorithm::HexString, 65_537);
    assert_eq!(keys.last().unwrap(), b"ffff0000");
}

#[test]
fn algorithm_names() {
    for alg in [
        SplitAlgorithm::HexString,
        SplitAlgorithm::DecimalString,
        SplitAlgorithm::Uniform,
    ] {
        assert_eq!(SplitAlgorithm::from_name(alg.name()).unwrap(), alg);
        let fq = format!("org.apache.hadoop.hbase.util.RegionSplitter${}", alg.name());
        assert_eq!(SplitAlgorithm::from_name(&fq).unwrap(), alg);
        assert_eq!(alg.to_string(), alg.name());
    }
    match SplitAlgorithm::from_name("hexstringsplit") {
        Err(Error::InvalidArgument(m)) => {
            assert_eq!(m, "Couldn't load split class hexstringsplit")
        }
        other => panic!("{other:?}"),
    }
}

// ---- midpoint --------------------------------------------------------------------------------

#[test]
fn midpoint_number_strings() {
    use SplitAlgorithm::{DecimalString as D, HexString as H};
    // The last row is inclusive: ffffffff counts as 100000000.
    assert_eq!(midpoint(H, b"dfffffff", b"ffffffff"), b"efffffff");
    assert_eq!(midpoint(H, b"", b""), b"80000000");
    assert_eq!(midpoint(H, b"", b"80000000"), b"40000000");
    assert_eq!(midpoint(H, b"80000000", b""), b"c0000000");
    assert_eq!(midpoint(H, b"00000000", b"00000003"), b"00000001");
    // Either case parses; output is lower-case and padded to 8.
    assert_eq!(midpoint(H, b"A0", b"C0"), b"000000b0");
    // Longer rows keep their length (BigInteger arithmetic).
    assert_eq!(midpoint(H, b"0000000000", b"fffffffffe"), b"7fffffffff");
    assert_eq!(midpoint(D, b"", b""), b"50000000");
    assert_eq!(midpoint(D, b"50000000", b"99999999"), b"75000000");
    assert_eq!(midpoint(D, b"10", b"21"), b"00000015");
    // Signs are accepted as BigInteger does; the result is |s + e| / 2.
    assert_eq!(midpoint(D, b"-30", b"10"), b"00000010");
}

#[test]
fn midpoint_errors() {
    use SplitAlgorithm::{DecimalString as D, HexString as H, Uniform as U};
    for (alg, s, e) in [
        (H, &b"zz"[..], &b"ff"[..]),
        (H, b"00", b"00000000"),
        (D, b"1a", b"99"),
        (D, b"-", b"99"),
        (U, b"b", b"a"),
        (U, b"a", b"a\x00"),
    ] {
        assert!(
            matches!(midpoint_checked(alg, s, e), Err(Error::InvalidArgument(_))),
            "{alg} {s:?} {e:?}"
        );
        assert!(midpoint(alg, s, e).is_empty());
    }
}

#[test]
fn midpoint_uniform() {
    use SplitAlgorithm::Uniform as U;
    assert_eq!(midpoint(U, b"aaa", b"aab"), b"aaa\x80");
    assert_eq!(to_string_binary(&midpoint(U, b"aaa", b"aab")), r"aaa\x80");
    // Empty ends stand for 00×8 .. FF×8 (exclusive end here, unlike split_keys).
    assert_eq!(
        midpoint(U, b"", b""),
        [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    );
    assert_eq!(midpoint(U, b"", b"\x80"), b"\x40");
    assert_eq!(midpoint(U, b"a", b"c"), b"b");
    // Padding: "a" vs "a\x10" → 61 00 .. 61 10.
    assert_eq!(midpoint(U, b"a", b"a\x10"), b"a\x08");
}

// ---- [PRESPLIT-4] Bytes.split ------------------------------------------------------------------

#[test]
fn bytes_split_examples() {
    // Admin.createTable(desc, "a", "z", 5) → Bytes.split(a, z, 5 - 3)
    assert_eq!(
        bytes_split(b"a", b"z", 5 - 3).unwrap(),
        ascii(&["a", "i", "q", "z"])
    );
    let keys = bytes_split(b"aaaaa", b"zzzzz", 10 - 3).unwrap();
    let expected = [
        "aaaaa",
        r"d\x84\x84\x84\x84",
        r"g\xA7\xA7\xA7\xA7",
        r"j\xCA\xCA\xCA\xCA",
        r"m\xED\xED\xED\xED",
        r"q\x11\x11\x11\x10",
        "t4443",
        "wWWWV",
        "zzzzz",
    ];
    assert_eq!(strs(&keys), expected);
    let parsed: Vec<Vec<u8>> = expected.iter().map(|s| to_bytes_binary(s)).collect();
    assert_eq!(keys, parsed);
}

#[test]
fn bytes_split_pads_and_retries() {
    // Shorter key right-padded with zeros: "a" = 61 00, "a\x10" = 61 10, step 0x10 / 2.
    assert_eq!(
        bytes_split(b"a", b"a\x10", 1).unwrap(),
        vec![b"a".to_vec(), b"a\x08".to_vec(), b"a\x10".to_vec()]
    );
    // b - a = 1 < 3 parts: append 00 to both and retry; the end points are the extended keys.
    assert_eq!(
        bytes_split(b"a", b"b", 2).unwrap(),
        vec![
            b"a\x00".to_vec(),
            b"aU".to_vec(),
            b"a\xAA".to_vec(),
            b"b\x00".to_vec()
        ]
    );
    // Two retries: diff 1 → 256 → 65536 ≥ 300.
    let keys = bytes_split(b"\x01", b"\x02", 299).unwrap();
    assert_eq!(keys.len(), 301);
    assert_eq!(keys[0], b"\x01\x00\x00");
    assert_eq!(keys[300], b"\x02\x00\x00");
    assert!(keys.windows(2).all(|w| w[0] < w[1]));
    // The interior keys of a non-retried split are as long as the longer end point.
    let keys = bytes_split(b"", b"\xFF\xFF", 3).unwrap();
    assert_eq!(keys[0], b"");
    assert!(keys[1..4].iter().all(|k| k.len() == 2));
}

#[test]
fn bytes_split_rejects() {
    assert_eq!(bytes_split(b"a", b"z", 0), None);
    assert_eq!(bytes_split(b"z", b"a", 1), None);
    assert_eq!(bytes_split(b"a", b"a", 1), None);
    // Equal after padding: "a" and "a\x00".
    assert_eq!(bytes_split(b"a", b"a\x00", 1), None);
    assert_eq!(bytes_split(b"", b"", 1), None);
}

// ---- salting, hashing, reversing ------------------------------------------------------------

#[test]
fn salt_width_and_prefix() {
    assert_eq!(salted_prefixes(0), ascii(&["0"]));
    assert_eq!(salted_prefixes(1), ascii(&["0"]));
    assert_eq!(salted_prefixes(4), ascii(&["0", "1", "2", "3"]));
    assert_eq!(salted_prefixes(10).len(), 10);
    assert_eq!(salted_prefixes(10)[9], b"9");
    assert_eq!(salted_prefixes(11)[0], b"00");
    assert_eq!(salted_prefixes(11)[10], b"10");
    assert_eq!(salted_prefixes(100)[99], b"99");
    assert_eq!(salted_prefixes(101)[0], b"000");
    assert_eq!(salted_prefixes(1000)[999], b"999");
    assert_eq!(salted_prefixes(u16::MAX)[0], b"00000");
    for buckets in [0u16, 1, 2, 8, 10, 11, 16, 100, 101, 1000, 65535] {
        let prefixes = salted_prefixes(buckets);
        assert_eq!(prefixes.len(), usize::from(buckets.max(1)));
        assert!(prefixes.windows(2).all(|w| w[0] < w[1]), "{buckets}");
        let width = prefixes[0].len();
        assert!(prefixes.iter().all(|p| p.len() == width));
        for i in 0..200u32 {
            let key = format!("key-{i}").into_bytes();
            let salted = salt(&key, buckets);
            assert!(salted.ends_with(&key));
            let prefix = &salted[..salted.len() - key.len()];
            assert!(prefixes.iter().any(|p| p == prefix), "{buckets} {prefix:?}");
            // Deterministic, and the prefix is crc32 % buckets.
            assert_eq!(salt(&key, buckets), salted);
            let bucket: u32 = std::str::from_utf8(prefix).unwrap().parse().unwrap();
            assert_eq!(bucket, crc32fast::hash(&key) % u32::from(buckets.max(1)));
        }
    }
    assert_eq!(salt(b"", 0), b"0");
    // java.util.zip.CRC32 of "123456789" is 0xCBF43926 = 3421780262: % 16 = 6, % 1000 = 262.
    assert_eq!(salt(b"123456789", 16), b"06123456789");
    assert_eq!(salt(b"123456789", 1000), b"262123456789");
}

#[test]
fn salt_distribution_is_roughly_even() {
    for buckets in [8u16, 16] {
        let mut counts = vec![0u32; usize::from(buckets)];
        let prefixes = salted_prefixes(buckets);
        for i in 0..10_000u32 {
            let key = format!("row{i:08}").into_bytes();
            let salted = salt(&key, buckets);
            let idx = prefixes.iter().position(|p| salted.starts_with(p)).unwrap();
            counts[idx] += 1;
        }
        let mean = 10_000 / u32::from(buckets);
        for (b, &c) in counts.iter().enumerate() {
            assert!(
                c > mean * 8 / 10 && c < mean * 12 / 10,
                "{buckets} buckets: bucket {b} has {c} (mean {mean}): {counts:?}"
            );
        }
    }
}

#[test]
fn md5_prefix_and_reverse() {
    let k = md5_prefix(b"");
    assert_eq!(
        crate::base::util::to_string_binary(&k[..4]),
        r"\xD4\x1D\x8C\xD9" // md5("") = d41d8cd98f00b204e9800998ecf8427e
    );
    assert_eq!(k.len(), 16);
    let k = md5_prefix(b"abc"); // md5("abc") = 900150983cd24fb0d6963f7d28e17f72
    assert_eq!(k.len(), 19);
    assert_eq!(&k[..2], b"\x90\x01");
    assert_eq!(&k[14..], b"\x7f\x72abc");
    assert_eq!(reverse(b"20240101"), b"10104202");
    assert_eq!(reverse(b""), b"");
    assert_eq!(reverse(&reverse(b"\x00\x01\xFF")), b"\x00\x01\xFF");
}

#[test]
fn reverse_timestamp_puts_newest_first() {
    assert_eq!(reverse_timestamp(0), i64::MAX.to_be_bytes());
    assert_eq!(reverse_timestamp(i64::MAX), [0; 8]);
    assert_eq!(reverse_timestamp(1), (i64::MAX - 1).to_be_bytes());
    let times = [
        0i64,
        1,
        1_000,
        1_700_000_000_000,
        1_700_000_000_001,
        i64::MAX,
    ];
    for w in times.windows(2) {
        // Newer (larger) timestamps sort first.
        assert!(reverse_timestamp(w[1]) < reverse_timestamp(w[0]), "{w:?}");
    }
    // Java long wrap-around for negative timestamps, no panic.
    assert_eq!(reverse_timestamp(-1), i64::MIN.to_be_bytes());
    let mut keys: Vec<Vec<u8>> = times
        .iter()
        .map(|&t| [b"user1".as_slice(), &reverse_timestamp(t)].concat())
        .collect();
    keys.sort();
    assert_eq!(keys[0], [b"user1".as_slice(), &[0; 8]].concat());
}

// ---- [ENC-2] ---------------------------------------------------------------------------------

#[test]
fn encode_i64_preserves_order() {
    let values = [i64::MIN, -1, 0, 1, i64::MAX];
    let encoded: Vec<[u8; 8]> = values.iter().map(|&v| encode_i64(v)).collect();
    assert_eq!(encoded[0], [0, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(encoded[1], [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);
    assert_eq!(encoded[2], [0x80, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(encoded[3], [0x80, 0, 0, 0, 0, 0, 0, 1]);
    assert_eq!(encoded[4], [0xFF; 8]);
    assert!(encoded.windows(2).all(|w| w[0] < w[1]));
    for &v in &values {
        assert_eq!(decode_i64(&encode_i64(v)), v);
    }
    // Plain big-endian does not sort: byte order of {MIN,-1,0,1,MAX} is 0, 1, MAX, MIN, -1.
    let mut plain: Vec<[u8; 8]> = values.iter().map(|v| v.to_be_bytes()).collect();
    plain.sort();
    let order: Vec<i64> = plain.iter().map(|b| i64::from_be_bytes(*b)).collect();
    assert_eq!(order, [0, 1, i64::MAX, i64::MIN, -1]);
    // A spread of values round-trips and sorts numerically.
    let mut spread: Vec<i64> = (-50..50).map(|i: i64| i.pow(9) / 7 + i).collect();
    spread.sort();
    let enc: Vec<[u8; 8]> = spread.iter().map(|&v| encode_i64(v)).collect();
    assert!(enc.windows(2).all(|w| w[0] <= w[1]));
    assert!(spread.iter().all(|&v| decode_i64(&encode_i64(v)) == v));
}

#[test]
fn decode_i64_other_lengths() {
    assert_eq!(decode_i64(&[]), i64::MIN);
    assert_eq!(decode_i64(&[0x80]), 0);
    assert_eq!(decode_i64(&[0x7F]), -(1 << 56));
    let mut long = encode_i64(-42).to_vec();
    long.extend_from_slice(b"tail");
    assert_eq!(decode_i64(&long), -42);
}

// ---- toBytesBinary / toStringBinary --------------------------------------------------------

#[test]
fn string_binary() {
    assert_eq!(to_string_binary(b"a\x00\xff~"), r"a\x00\xFF~");
    assert_eq!(to_string_binary(b"\\"), r"\x5C");
    let passthrough = " `~!@#$%^&*()-_=+[]{}|;:'\",.<>/?0123456789AZaz";
    assert_eq!(to_string_binary(passthrough.as_bytes()), passthrough);
    assert_eq!(to_string_binary(b"\x7F\x1F\n"), r"\x7F\x1F\x0A");

    assert_eq!(to_bytes_binary(r"\x10\x00"), b"\x10\x00");
    assert_eq!(to_bytes_binary(r"\xAB\xcd"), b"\xABxcd"); // lower-case hex is malformed
    assert_eq!(to_bytes_binary(r"\xzz1"), b"xzz1");
    assert_eq!(to_bytes_binary(r"\xG0"), b"xG0");
    assert_eq!(to_bytes_binary(r"a\"), b"a\\"); // lone trailing backslash stays
    assert_eq!(to_bytes_binary(r"\x4"), b"\\x4"); // too short to be an escape
    assert_eq!(to_bytes_binary(r"\y41"), b"\\y41");
    assert_eq!(to_bytes_binary(r"\x41"), b"A");
    assert_eq!(to_bytes_binary(r"\\x41"), b"\\A");
    assert_eq!(to_bytes_binary("é"), b"\xE9"); // Java (byte) char
    assert_eq!(to_bytes_binary("中"), b"\x2D"); // U+4E2D, low byte only
    assert_eq!(to_bytes_binary(""), b"");
}

#[test]
fn string_binary_round_trips() {
    let all: Vec<u8> = (0..=255u8).collect();
    assert_eq!(to_bytes_binary(&to_string_binary(&all)), all);
    for key in split_keys(SplitAlgorithm::Uniform, 37) {
        assert_eq!(to_bytes_binary(&to_string_binary(&key)), key);
    }
    for s in ["row1", "a b,c", r"\x00\xFF", "user|2024"] {
        assert_eq!(to_string_binary(&to_bytes_binary(s)), s);
    }
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for len in 0..64usize {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        assert_eq!(to_bytes_binary(&to_string_binary(&bytes)), bytes);
    }
}

// ---- differential: the big-integer arithmetic against u128 -------------------------------------

/// `Bytes.iterateOnSplits` for keys of at most 12 bytes, in u128 arithmetic.
fn reference_split(a: &[u8], b: &[u8], inclusive: bool, num: u32) -> Option<Vec<Vec<u8>>> {
    let to_u128 = |k: &[u8]| k.iter().fold(0u128, |acc, &x| (acc << 8) | u128::from(x));
    let mut len = a.len().max(b.len());
    let (mut ap, mut bp) = (a.to_vec(), b.to_vec());
    ap.resize(len, 0);
    bp.resize(len, 0);
    if num == 0 || ap >= bp {
        return None;
    }
    let (mut first, mut last) = (a.to_vec(), b.to_vec());
    loop {
        let (s, e) = (to_u128(&ap), to_u128(&bp));
        let diff = e - s + u128::from(inclusive);
        let parts = u128::from(num) + 1;
        if diff < parts {
            ap.push(0);
            bp.push(0);
            len += 1;
            first.clone_from(&ap);
            last.clone_from(&bp);
            continue;
        }
        let step = diff / parts;
        let mut out = vec![first];
        for i in 1..=u128::from(num) {
            let v = s + i * step;
            out.push(v.to_be_bytes()[16 - len..].to_vec());
        }
        out.push(last);
        return Some(out);
    }
}

#[test]
fn bytes_split_matches_u128_reference() {
    let mut x = 0xD1B5_4A32_D192_ED03u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..2000 {
        let la = (next() % 7) as usize;
        let lb = (next() % 7) as usize;
        let mut a: Vec<u8> = (0..la).map(|_| next() as u8).collect();
        let mut b: Vec<u8> = (0..lb).map(|_| next() as u8).collect();
        if next() % 4 == 0 && !a.is_empty() {
            // Close neighbours exercise the append-a-zero retry.
            b = a.clone();
            let last = b.len() - 1;
            b[last] = b[last].saturating_add(1);
        }
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        let num = [1u32, 2, 3, 7, 100, 1000][(next() % 6) as usize];
        for inclusive in [false, true] {
            assert_eq!(
                iterate_on_splits(&a, &b, inclusive, num),
                reference_split(&a, &b, inclusive, num),
                "{a:?} {b:?} {num} {inclusive}"
            );
        }
    }
}

#[test]
fn hex_midpoint_matches_u128_reference() {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..2000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let s = u128::from(x >> 3);
        let e = u128::from(x.rotate_left(17) >> (x % 40)) * 3 + 1;
        for (radix, last) in [(16u32, 0xFFFF_FFFFu128), (10, 99_999_999)] {
            let fmt = |v: u128| {
                if radix == 16 {
                    format!("{v:x}")
                } else {
                    v.to_string()
                }
            };
            let alg = if radix == 16 {
                SplitAlgorithm::HexString
            } else {
                SplitAlgorithm::DecimalString
            };
            let e_adj = if e == last { e + 1 } else { e };
            let want = format!("{:0>8}", fmt((s + e_adj) / 2));
            let got = midpoint(alg, fmt(s).as_bytes(), fmt(e).as_bytes());
            assert_eq!(String::from_utf8(got).unwrap(), want, "{radix} {s} {e}");
        }
    }
}
