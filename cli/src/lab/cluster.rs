//! A simulated HBase cluster for the lab: N RegionServers and where each region lives.
//!
//! Pure and deterministic (no I/O, no clock, no randomness). The runner tells it about the
//! regions it sees between windows; it assigns them as HBase's master does:
//!
//! - a new table's regions are spread round-robin over the servers
//!   (`AssignmentManager` / `LoadBalancer.roundRobinAssignment`);
//! - the daughters of a split open on the parent's server (`SplitTableRegionProcedure`);
//! - a merged region opens on the first parent's server (`MergeTableRegionsProcedure`);
//! - every `balance_every` windows the balancer evens region counts with the rule of HBase's
//!   `org.apache.hadoop.hbase.master.balancer.SimpleLoadBalancer`: nothing moves while every
//!   server is within the slop (`hbase.regions.slop`, 0.2) of the average; otherwise servers
//!   above `ceil(avg)` shed regions down to `ceil(avg)`, servers below `floor(avg)` are filled up
//!   to `floor(avg)`, and what is still left over goes to servers below `ceil(avg)`. Which
//!   regions move: SimpleLoadBalancer takes them from the overloaded server's region list
//!   alternately from its head and its tail (`fetchFromTail`); the lab's list is ordered by
//!   start key, so the lab moves the lowest, then the highest, then the next lowest... region.
//!   Destinations are chosen from the least loaded server first, ties by server index.

use std::collections::BTreeMap;

/// A region's place in the key space of the cluster: its table, then its start key.
type Key = (String, Vec<u8>);

/// Default number of RegionServers: a small cluster (see docs/LAB.md).
pub const DEFAULT_SERVERS: usize = 5;
/// Default balancer period in windows (see docs/LAB.md).
pub const DEFAULT_BALANCE_EVERY: u64 = 5;
/// HBase's `hbase.regions.slop` default.
pub const SLOP: f64 = 0.2;
/// Default network round trip of one RPC in the projection, in ms (see docs/LAB.md).
pub const DEFAULT_RPC_MS: f64 = 0.5;
/// Largest cluster the lab simulates.
pub const MAX_SERVERS: usize = 1000;

/// A region as the cluster sees it: its name and its start key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionRef {
    /// The region's table (daughters and merges pair with regions of the same table only).
    pub table: String,
    /// The region's name (unique).
    pub name: String,
    /// The region's start key (empty for the first region).
    pub start: Vec<u8>,
}

/// The simulated cluster.
#[derive(Debug, Clone)]
pub struct Cluster {
    servers: usize,
    balance_every: u64,
    next_rr: usize,
    /// region name -> ((table, start key), server index).
    assignment: BTreeMap<String, (Key, usize)>,
    moves: u64,
}

impl Cluster {
    /// A cluster of `servers` RegionServers (at least 1) balancing every `balance_every`
    /// windows (0: never).
    pub fn new(servers: usize, balance_every: u64) -> Cluster {
        Cluster {
            servers: servers.max(1),
            balance_every,
            next_rr: 0,
            assignment: BTreeMap::new(),
            moves: 0,
        }
    }

    /// Number of servers.
    pub fn servers(&self) -> usize {
        self.servers
    }

    /// Regions moved by the balancer so far.
    pub fn moves(&self) -> u64 {
        self.moves
    }

    /// The server hosting `region`, if known.
    pub fn server_of(&self, region: &str) -> Option<usize> {
        self.assignment.get(region).map(|(_, s)| *s)
    }

    /// Regions per server.
    pub fn region_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.servers];
        for (_, s) in self.assignment.values() {
            counts[*s] += 1;
        }
        counts
    }

    /// Creates a table: its regions (in start-key order) are spread round-robin.
    pub fn create_table(&mut self, regions: &[RegionRef]) {
        for r in regions {
            let s = self.next_rr % self.servers;
            self.next_rr += 1;
            self.assignment
                .insert(r.name.clone(), ((r.table.clone(), r.start.clone()), s));
        }
    }

    /// Updates the assignment to the regions now present (in start-key order): regions gone
    /// and regions new are paired by key range. A new region whose start key lies in a
    /// vanished region's range (a split daughter, or a merged region starting at its first
    /// parent) opens on that region's server; any other new region is assigned round-robin.
    pub fn observe(&mut self, now: &[RegionRef]) {
        let mut gone: Vec<(Key, usize)> = Vec::new();
        let present: std::collections::BTreeSet<&str> =
            now.iter().map(|r| r.name.as_str()).collect();
        let names: Vec<String> = self.assignment.keys().cloned().collect();
        for n in names {
            if present.contains(n.as_str()) {
                continue;
            }
            if let Some(v) = self.assignment.remove(&n) {
                gone.push(v);
            }
        }
        gone.sort();
        for r in now {
            if self.assignment.contains_key(&r.name) {
                continue;
            }
            // The vanished region of the same table with the greatest start key <= r.start
            // held r's start.
            let parent = gone
                .iter()
                .rev()
                .find(|((t, start), _)| *t == r.table && start.as_slice() <= r.start.as_slice());
            let s = match parent {
                Some((_, s)) => *s,
                None => {
                    let s = self.next_rr % self.servers;
                    self.next_rr += 1;
                    s
                }
            };
            self.assignment
                .insert(r.name.clone(), ((r.table.clone(), r.start.clone()), s));
        }
    }

    /// Called at the end of window `window` (1-based): runs the balancer when due. Returns
    /// the number of regions moved.
    pub fn end_window(&mut self, window: u64) -> usize {
        if self.balance_every == 0 || window == 0 || !window.is_multiple_of(self.balance_every) {
            return 0;
        }
        self.balance()
    }

    /// One SimpleLoadBalancer run; returns the number of regions moved.
    pub fn balance(&mut self) -> usize {
        let n = self.servers;
        let total = self.assignment.len();
        if n < 2 || total == 0 {
            return 0;
        }
        let avg = total as f64 / n as f64;
        let floor = avg.floor() as usize;
        let ceil = avg.ceil() as usize;
        let counts = self.region_counts();
        // needsBalance: within slop of the average, nothing to do.
        let slop_max = (avg * (1.0 + SLOP)).ceil() as usize;
        let slop_min = (avg * (1.0 - SLOP)).floor() as usize;
        let max = *counts.iter().max().unwrap_or(&0);
        let min = *counts.iter().min().unwrap_or(&0);
        if max <= slop_max && min >= slop_min {
            return 0;
        }
        // Regions per server, ordered by start key.
        let mut per: Vec<Vec<(Key, String)>> = vec![Vec::new(); n];
        for (name, (start, s)) in &self.assignment {
            per[*s].push((start.clone(), name.clone()));
        }
        for list in &mut per {
            list.sort();
        }
        // Shed from servers above ceil, alternately head and tail.
        let mut pool: Vec<String> = Vec::new();
        let mut from_tail = false;
        for list in per.iter_mut() {
            while list.len() > ceil {
                let (_, name) = if from_tail {
                    list.pop().unwrap_or_default()
                } else {
                    list.remove(0)
                };
                from_tail = !from_tail;
                pool.push(name);
            }
        }
        let mut load: Vec<usize> = per.iter().map(Vec::len).collect();
        let mut moved = 0;
        let mut place = |limit: usize,
                         pool: &mut Vec<String>,
                         load: &mut Vec<usize>,
                         a: &mut BTreeMap<String, (Key, usize)>| {
            while !pool.is_empty() {
                let Some(dest) = (0..n)
                    .filter(|&i| load[i] < limit)
                    .min_by_key(|&i| (load[i], i))
                else {
                    break;
                };
                let name = pool.remove(0);
                if let Some(v) = a.get_mut(&name) {
                    v.1 = dest;
                }
                load[dest] += 1;
                moved += 1;
            }
        };
        place(floor, &mut pool, &mut load, &mut self.assignment);
        place(ceil, &mut pool, &mut load, &mut self.assignment);
        // If servers are still below floor (all excess placed), take from servers at ceil.
        while let Some(low) = (0..n)
            .filter(|&i| load[i] < floor)
            .min_by_key(|&i| (load[i], i))
        {
            let Some(high) = (0..n)
                .filter(|&i| load[i] > floor)
                .max_by_key(|&i| (load[i], usize::MAX - i))
            else {
                break;
            };
            let victim = self
                .assignment
                .iter()
                .filter(|(_, (_, s))| *s == high)
                .map(|(name, (start, _))| (start.clone(), name.clone()))
                .min();
            let Some((_, name)) = victim else { break };
            if let Some(v) = self.assignment.get_mut(&name) {
                v.1 = low;
            }
            load[high] -= 1;
            load[low] += 1;
            moved += 1;
        }
        self.moves += moved as u64;
        moved
    }

    /// Sums per-region values (by region name) into per-server totals.
    pub fn per_server(&self, per_region: &[(String, u64)]) -> Vec<u64> {
        let mut totals = vec![0u64; self.servers];
        for (name, v) in per_region {
            if let Some(s) = self.server_of(name) {
                totals[s] += v;
            }
        }
        totals
    }
}

/// The hottest server's share of `totals` (0 when nothing happened).
pub fn hottest_share(totals: &[u64]) -> f64 {
    let sum: u64 = totals.iter().sum();
    if sum == 0 {
        return 0.0;
    }
    *totals.iter().max().unwrap_or(&0) as f64 / sum as f64
}

/// Whether one server took more than twice its fair share (1/N) of `totals`.
pub fn over_2x_fair_share(totals: &[u64]) -> bool {
    !totals.is_empty() && hottest_share(totals) > 2.0 / totals.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regions(starts: &[&str]) -> Vec<RegionRef> {
        starts
            .iter()
            .map(|s| RegionRef {
                table: "t".into(),
                name: format!("r-{s}"),
                start: s.as_bytes().to_vec(),
            })
            .collect()
    }

    #[test]
    fn new_table_is_round_robin() {
        let mut c = Cluster::new(5, 5);
        c.create_table(&regions(&["", "b", "c", "d", "e", "f", "g"]));
        assert_eq!(c.server_of("r-"), Some(0));
        assert_eq!(c.server_of("r-e"), Some(4));
        assert_eq!(c.server_of("r-f"), Some(0));
        assert_eq!(c.region_counts(), vec![2, 2, 1, 1, 1]);
    }

    #[test]
    fn daughters_stay_on_parent_server_and_merge_on_first_parent() {
        let mut c = Cluster::new(5, 0);
        c.create_table(&regions(&["", "m"]));
        assert_eq!(c.server_of("r-m"), Some(1));
        // r-m splits into m and t.
        c.observe(
            &regions(&["", "m2", "t"])
                .into_iter()
                .map(|mut r| {
                    if r.name == "r-m2" {
                        r.start = b"m".to_vec();
                    }
                    r
                })
                .collect::<Vec<_>>(),
        );
        assert_eq!(c.server_of("r-m2"), Some(1));
        assert_eq!(c.server_of("r-t"), Some(1));
        assert_eq!(c.server_of("r-"), Some(0));
        // r- and r-m2 merge into one region starting at "" (first parent on server 0).
        let merged = vec![
            RegionRef {
                table: "t".into(),
                name: "merged".into(),
                start: Vec::new(),
            },
            RegionRef {
                table: "t".into(),
                name: "r-t".into(),
                start: b"t".to_vec(),
            },
        ];
        c.observe(&merged);
        assert_eq!(c.server_of("merged"), Some(0));
        assert_eq!(c.region_counts(), vec![1, 1, 0, 0, 0]);
    }

    #[test]
    fn simple_load_balancer_evens_counts() {
        // All 12 regions on one of 5 servers (as after splits of a hot region): avg 2.4,
        // floor 2, ceil 3. SimpleLoadBalancer leaves 3/3/2/2/2.
        let mut c = Cluster::new(5, 5);
        c.create_table(&regions(&["a"]));
        let mut starts: Vec<String> = vec!["a".into()];
        for i in 0..11 {
            starts.push(format!("b{i:02}"));
        }
        let now: Vec<RegionRef> = starts
            .iter()
            .map(|s| RegionRef {
                table: "t".into(),
                name: format!("n-{s}"),
                start: s.as_bytes().to_vec(),
            })
            .collect();
        c.observe(&now);
        assert_eq!(c.region_counts(), vec![12, 0, 0, 0, 0]);
        assert_eq!(c.end_window(4), 0, "not due yet");
        let moved = c.end_window(5);
        assert_eq!(moved, 9);
        let mut counts = c.region_counts();
        counts.sort();
        assert_eq!(counts, vec![2, 2, 2, 3, 3]);
        // Balanced: the next run moves nothing (within slop).
        assert_eq!(c.balance(), 0);
    }

    #[test]
    fn within_slop_nothing_moves() {
        // 10 regions round-robin over 5 servers: 2 each, already even.
        let mut c = Cluster::new(5, 1);
        c.create_table(&regions(&["", "a", "b", "c", "d", "e", "f", "g", "h", "i"]));
        assert_eq!(c.region_counts(), vec![2, 2, 2, 2, 2]);
        assert_eq!(c.balance(), 0);
    }

    #[test]
    fn deterministic() {
        let run = || {
            let mut c = Cluster::new(5, 2);
            c.create_table(&regions(&["", "k"]));
            let more: Vec<RegionRef> = ["", "c", "e", "k", "p", "q", "z"]
                .iter()
                .map(|s| RegionRef {
                    table: "t".into(),
                    name: format!("n{s}"),
                    start: s.as_bytes().to_vec(),
                })
                .collect();
            c.observe(&more);
            c.end_window(2);
            more.iter()
                .map(|r| c.server_of(&r.name))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn daughters_pair_within_their_own_table() {
        // Two tables, both one region starting at "": a split in the index table must not
        // inherit the main table's server.
        let mut c = Cluster::new(5, 0);
        let r = |t: &str, name: &str, start: &str| RegionRef {
            table: t.into(),
            name: name.into(),
            start: start.as_bytes().to_vec(),
        };
        c.create_table(&[r("main", "m0", "")]);
        c.create_table(&[r("idx", "i0", "")]);
        assert_eq!((c.server_of("m0"), c.server_of("i0")), (Some(0), Some(1)));
        c.observe(&[r("main", "m0", ""), r("idx", "i1", ""), r("idx", "i2", "k")]);
        assert_eq!(c.server_of("i1"), Some(1));
        assert_eq!(c.server_of("i2"), Some(1));
        assert_eq!(c.server_of("m0"), Some(0));
    }

    #[test]
    fn shares() {
        assert_eq!(hottest_share(&[0, 0]), 0.0);
        assert!((hottest_share(&[9, 1, 0, 0, 0]) - 0.9).abs() < 1e-9);
        assert!(over_2x_fair_share(&[9, 1, 0, 0, 0]));
        assert!(!over_2x_fair_share(&[3, 2, 2, 2, 1]));
    }
}
