//! Operation-stream generators: a seeded PRNG, db_bench keys and values, and YCSB's
//! CoreWorkload distributions (scrambled zipfian, skewed latest, uniform), ported from YCSB's
//! `site.ycsb.generator` package so every engine sees the same stream for the same seed.

/// SplitMix64: small, fast, seedable; streams are reproducible across runs and engines.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `[0, n)` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
    /// Uniform double in `[0, 1)`.
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// db_bench key for integer `k`: 16 ASCII bytes, sorted in numeric order.
pub fn bench_key(k: u64) -> [u8; 16] {
    let mut out = [b'0'; 16];
    let mut v = k;
    for i in (0..16).rev() {
        out[i] = b'0' + (v % 10) as u8;
        v /= 10;
    }
    out
}

/// A 16-byte key that is never stored: the digits of `k` with the last one replaced by `x`, so
/// it sorts between `bench_key(k / 10 * 10 + 9)` and `bench_key(k / 10 * 10 + 10)` — inside
/// the key range for `k < N`, so Bloom filters (not key-range checks) must reject it.
pub fn missing_key(k: u64) -> [u8; 16] {
    let mut out = bench_key(k / 10);
    out.copy_within(1..16, 0);
    out[15] = b'x';
    out
}

/// db_bench-style value source: a 1 MiB buffer sliced at moving offsets, built as db_bench's
/// `RandomGenerator` builds its own: 100-byte pieces, each `compression_ratio` x 100 random
/// printable ASCII bytes (at least one) repeated to fill the piece (db_bench's
/// `test::CompressibleString`). Ratio 1.0 makes every byte random (what the harness produced
/// before it had the option); 0.5, db_bench's default, makes a 100-byte value half random,
/// half a repeat of that half.
pub struct Values {
    buf: Vec<u8>,
    pos: usize,
}

/// Length of the pieces the value buffer is built of (db_bench's).
const PIECE: usize = 100;

impl Values {
    /// A value source seeded by `seed` whose pieces are `compression_ratio` random.
    pub fn new(seed: u64, compression_ratio: f64) -> Values {
        let mut r = Rng::new(seed);
        let raw = ((PIECE as f64 * compression_ratio) as usize).clamp(1, PIECE);
        let mut buf = Vec::with_capacity(1 << 20);
        let mut random = Vec::with_capacity(raw);
        while buf.len() < 1 << 20 {
            random.clear();
            random.extend((0..raw).map(|_| b' ' + (r.below(95) as u8)));
            buf.extend(random.iter().cycle().take(PIECE));
        }
        buf.truncate(1 << 20);
        Values { buf, pos: 0 }
    }
    /// The next `len` value bytes.
    pub fn next(&mut self, len: usize) -> &[u8] {
        if self.pos + len > self.buf.len() {
            self.pos = 0;
        }
        let s = &self.buf[self.pos..self.pos + len];
        self.pos += len;
        s
    }
}

/// YCSB `Utils.fnvhash64`: FNV-1 over the 8 little-endian bytes, then `Math.abs`.
pub fn fnvhash64(mut val: i64) -> i64 {
    let mut h: i64 = 0xCBF2_9CE4_8422_2325u64 as i64;
    for _ in 0..8 {
        let octet = val & 0xff;
        val >>= 8;
        h ^= octet;
        h = h.wrapping_mul(1_099_511_628_211);
    }
    h.wrapping_abs()
}

/// YCSB `CoreWorkload.buildKeyName` with insertorder=hashed and zeropadding=1.
pub fn ycsb_key(keynum: u64) -> String {
    format!("user{}", fnvhash64(keynum as i64))
}

/// YCSB's `ZipfianGenerator` (Gray et al., "Quickly Generating Billion-Record Synthetic
/// Databases"), with YCSB's incremental zeta when the item count grows.
#[derive(Clone, Debug)]
pub struct Zipfian {
    items: u64,
    base: u64,
    theta: f64,
    zeta2theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
    count_for_zeta: u64,
}

/// YCSB's `ZipfianGenerator.ZIPFIAN_CONSTANT`.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;

fn zeta_range(st: u64, n: u64, theta: f64, initial: f64) -> f64 {
    let mut sum = initial;
    for i in st..n {
        sum += 1.0 / ((i + 1) as f64).powf(theta);
    }
    sum
}

impl Zipfian {
    /// Items `min..=max` with the given constant, zetan computed.
    pub fn new(min: u64, max: u64, theta: f64) -> Zipfian {
        let items = max - min + 1;
        let zetan = zeta_range(0, items, theta, 0.0);
        Self::with_zetan(min, max, theta, zetan)
    }
    /// Items `min..=max` with a precomputed zetan (as ScrambledZipfian does).
    pub fn with_zetan(min: u64, max: u64, theta: f64, zetan: f64) -> Zipfian {
        let items = max - min + 1;
        let zeta2theta = zeta_range(0, 2, theta, 0.0);
        let alpha = 1.0 / (1.0 - theta);
        let eta = (1.0 - (2.0 / items as f64).powf(1.0 - theta)) / (1.0 - zeta2theta / zetan);
        Zipfian {
            items,
            base: min,
            theta,
            zeta2theta,
            alpha,
            zetan,
            eta,
            count_for_zeta: items,
        }
    }
    /// YCSB `nextLong(itemcount)`.
    pub fn next_with(&mut self, rng: &mut Rng, itemcount: u64) -> u64 {
        if itemcount != self.count_for_zeta {
            if itemcount > self.count_for_zeta {
                self.zetan = zeta_range(self.count_for_zeta, itemcount, self.theta, self.zetan);
            } else {
                self.zetan = zeta_range(0, itemcount, self.theta, 0.0);
            }
            self.count_for_zeta = itemcount;
            self.eta = (1.0 - (2.0 / itemcount as f64).powf(1.0 - self.theta))
                / (1.0 - self.zeta2theta / self.zetan);
        }
        let u = rng.f64();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return self.base;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return self.base + 1;
        }
        self.base + (itemcount as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
    }
    /// Next value over the configured item count.
    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        self.next_with(rng, self.items)
    }
}

/// YCSB's `ScrambledZipfianGenerator`: a zipfian over 10^10 items (zetan precomputed for the
/// 0.99 constant), FNV-hashed onto `min..=max`, so popular items are spread over the key space.
#[derive(Clone, Debug)]
pub struct ScrambledZipfian {
    min: u64,
    items: u64,
    zipf: Zipfian,
}

impl ScrambledZipfian {
    /// YCSB's `ITEM_COUNT` and its `ZETAN` for constant 0.99.
    const ITEM_COUNT: u64 = 10_000_000_000;
    const ZETAN: f64 = 26.469_028_201_783_02;
    /// Items `min..=max`.
    pub fn new(min: u64, max: u64) -> ScrambledZipfian {
        ScrambledZipfian {
            min,
            items: max - min + 1,
            zipf: Zipfian::with_zetan(0, Self::ITEM_COUNT - 1, ZIPFIAN_CONSTANT, Self::ZETAN),
        }
    }
    /// Next item.
    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        let v = self.zipf.next(rng);
        self.min + (fnvhash64(v as i64) as u64) % self.items
    }
}

/// How a YCSB workload chooses existing keys.
#[derive(Clone, Debug)]
pub enum KeyChooser {
    /// `requestdistribution=zipfian`.
    Zipfian(ScrambledZipfian),
    /// `requestdistribution=latest`: `SkewedLatestGenerator` over the insert sequence.
    Latest(Zipfian),
}

impl KeyChooser {
    /// The next key number given the last inserted key number (`last`), retrying above it as
    /// YCSB's `CoreWorkload.nextKeynum` does.
    pub fn next(&mut self, rng: &mut Rng, last: u64) -> u64 {
        match self {
            KeyChooser::Zipfian(z) => loop {
                let k = z.next(rng);
                if k <= last {
                    return k;
                }
            },
            KeyChooser::Latest(z) => {
                // SkewedLatestGenerator: max - zipfian.nextLong(max), max = basis.lastValue().
                let max = last.max(1);
                let off = z.next_with(rng, max);
                max - off.min(max)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_ycsb() {
        // Expected values from an independent implementation of YCSB's Utils.fnvhash64
        // (FNV-1 over the 8 low-to-high bytes, 64-bit wrapping, then Math.abs).
        assert_eq!(fnvhash64(0), 6_284_781_860_667_377_211);
        assert_eq!(fnvhash64(1), 8_517_097_267_634_966_620);
        assert_eq!(fnvhash64(12345), 1_792_800_413_050_876_852);
        assert_eq!(ycsb_key(1), "user8517097267634966620");
    }

    #[test]
    fn keys_sort_and_missing_keys_are_between() {
        assert!(bench_key(9) < bench_key(10));
        let m = missing_key(123);
        assert!(m > bench_key(129) && m < bench_key(130));
    }

    #[test]
    fn values_repeat_as_db_bench_compression_ratio_says() {
        // Ratio 1.0: every byte drawn, the buffer the harness built before the option.
        let mut r = Rng::new(7);
        let before: Vec<u8> = (0..1 << 20).map(|_| b' ' + (r.below(95) as u8)).collect();
        assert_eq!(Values::new(7, 1.0).buf, before);
        // Ratio 0.5: each 100-byte value is 50 random bytes twice; 0.25: 25 bytes four times.
        for (ratio, raw) in [(0.5, 50), (0.25, 25), (0.0, 1)] {
            let mut v = Values::new(3, ratio);
            assert_eq!(v.buf.len(), 1 << 20);
            for _ in 0..1000 {
                let x = v.next(100).to_vec();
                assert!(x.iter().all(|b| (b' '..=b'~').contains(b)));
                for i in raw..100 {
                    assert_eq!(x[i], x[i - raw], "ratio {ratio}");
                }
            }
        }
    }

    #[test]
    fn zipfian_is_skewed_and_in_range() {
        let mut r = Rng::new(1);
        let mut z = ScrambledZipfian::new(0, 999);
        let mut counts = vec![0u32; 1000];
        for _ in 0..100_000 {
            counts[z.next(&mut r) as usize] += 1;
        }
        counts.sort_unstable();
        // The hottest item gets far more than the uniform share (100).
        assert!(counts[999] > 1000, "{}", counts[999]);
    }
}
