//! One negotiation cycle: jobs in negotiation order, each taking its best
//! matching candidate; static slots are claimed, partitionable slots
//! carved.
//!
//! Each job autocluster walks its candidates in one fixed order, best
//! first by (rank tuple, slot). Without a policy that order is shared by
//! every cluster of the same Rank instance; with one, each cluster sorts its
//! own. A cursor marks how far a cluster has looked: slots before it did
//! not match (or were taken) when it looked, and only a carving can change
//! that. When neither the job's Rank nor the policy reads what carving
//! changes (`Cpus`, `Memory`, `Disk`), a carved slot keeps its place in the
//! order, so the cluster only puts carved slots behind its cursor back on a
//! heap of positions and checks one when it reaches the top. Otherwise a
//! carved slot's rank has moved: the cluster ranks it when it next looks
//! (the `fresh` heap), and checks that it matches when it comes up.

use crate::engine::{Engine, JOB, SLOT};
use crate::{Assignment, Negotiation, Pool, RankTuple, Stats, cpu_seconds, order, rank_key};
use classad::vm::Vm;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

const ABSENT: u32 = u32::MAX;

/// Candidate slots (positions in the cycle's candidate list), best first,
/// and where each slot is in that order (`ABSENT` when left out).
struct Order {
    slots: Vec<u32>,
    position: Vec<u32>,
}

impl Order {
    fn new(slots: Vec<u32>, n_slots: usize) -> Order {
        let mut position = vec![ABSENT; n_slots];
        for (p, &s) in slots.iter().enumerate() {
            position[s as usize] = p as u32;
        }
        Order { slots, position }
    }
}

struct ClusterState {
    order: usize,
    cursor: usize,
    /// A carved slot keeps its rank tuple, and so its place in the order.
    stable: bool,
    /// Stable: positions behind the cursor to look at again.
    revisit: BinaryHeap<Reverse<u32>>,
    /// Not stable: carved slots that matched when the cluster last looked.
    fresh: BinaryHeap<Fresh>,
    log_pos: usize,
    had_any: bool,
}

/// The order of a rank value as an unsigned integer, as `order` compares
/// it (`rank_key`, then `f64::total_cmp`).
fn rank_bits(x: f64) -> u64 {
    let bits = rank_key(x).to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

fn bit(row: &[u64], i: u32) -> bool {
    row[i as usize / 64] & (1 << (i % 64)) != 0
}

/// What the cycle knows about each candidate slot.
struct Slots {
    /// The engine unit the slot is now.
    unit_of: Vec<u32>,
    claimed: Vec<bool>,
    /// Bumped at each carving.
    version: Vec<u32>,
    /// The slot's autocluster before any carving.
    initial_cluster: Vec<u32>,
}

struct Checker<'a> {
    matrix: &'a [Vec<u64>],
    invariant: &'a [Vec<u64>],
    memo: ahash::AHashMap<(u32, u32), Option<RankTuple>>,
    evaluated: u64,
    trace: bool,
    seconds: f64,
}

impl Checker<'_> {
    /// Whether job cluster `jc` (represented by `key_unit`) matches slot `s`
    /// as it is now, and the rank tuple when it was computed.
    fn matches(
        &mut self,
        engine: &mut Engine,
        vm: &mut Vm,
        slots: &Slots,
        jc: u32,
        key_unit: u32,
        s: u32,
    ) -> bool {
        let si = s as usize;
        if slots.claimed[si] {
            return false;
        }
        let first = slots.initial_cluster[si];
        if slots.version[si] == 0 {
            return bit(&self.matrix[jc as usize], first);
        }
        self.carved(engine, vm, slots, jc, key_unit, s).is_some()
    }

    /// The rank tuple of job cluster `jc` and carved slot `s` as it is now,
    /// if they match.
    fn carved(
        &mut self,
        engine: &mut Engine,
        vm: &mut Vm,
        slots: &Slots,
        jc: u32,
        key_unit: u32,
        s: u32,
    ) -> Option<RankTuple> {
        let si = s as usize;
        // Clauses that carving cannot change rejected the pair before.
        if !bit(&self.invariant[jc as usize], slots.initial_cluster[si]) {
            return None;
        }
        let unit = slots.unit_of[si];
        let sc = engine.info[SLOT][unit as usize].cluster;
        if let Some(r) = self.memo.get(&(jc, sc)) {
            return *r;
        }
        self.evaluated += 1;
        let srep = engine.cluster_reps[SLOT][sc as usize];
        let t = self.trace.then(Instant::now);
        // The invariant clauses passed (checked above).
        let r = engine.pair_checking(vm, key_unit, srep, true);
        if let Some(t) = t {
            self.seconds += t.elapsed().as_secs_f64();
        }
        self.memo.insert((jc, sc), r);
        r
    }
}

/// Runs the cycle (see `Pool::negotiate`).
pub(crate) fn negotiate(pool: &Pool) -> Result<Negotiation, String> {
    let started = Instant::now();
    let candidates: Vec<usize> = (0..pool.slots().len())
        .filter(|&s| pool.slots()[s].unclaimed)
        .collect();
    let trace = std::env::var_os("CLASSAD_MATCH_TRACE").is_some();
    let threads = pool.options().threads.max(1);
    let mut engine = pool.evaluated_engine(&candidates, trace, started)?;
    // Pairs rejected by clauses that carving cannot change (the second
    // matrix) are never looked at again when a slot is carved.
    let (matrix, invariant) = engine.matrices(threads, true)?;
    let invariant = invariant.unwrap_or_default();
    if trace {
        eprintln!(
            "matrix {:.3} s (cpu {:.2} s)",
            started.elapsed().as_secs_f64(),
            cpu_seconds()
        );
    }
    let n_slots = candidates.len();
    let nj = engine.cluster_reps[JOB].len();
    let mut vm = engine.vm();
    let has_policy = engine.has_policy();
    let policy_moves = engine.policy_reads_carved();

    // Without a policy, one order per Rank instance, shared by the
    // clusters that have it.
    let mut orders: Vec<Order> = Vec::new();
    let mut order_of_rank: ahash::AHashMap<Option<u32>, usize> = Default::default();
    if !has_policy {
        let mut ranks: Vec<Option<u32>> = (0..nj)
            .map(|c| engine.rank_instance(engine.cluster_reps[JOB][c]))
            .collect();
        ranks.sort_unstable();
        ranks.dedup();
        // Rank values per slot, computed now where the parallel phase left
        // one out.
        let mut keyed: Vec<Vec<(Reverse<u64>, u32)>> = Vec::with_capacity(ranks.len());
        for &ri in &ranks {
            let list = (0..n_slots as u32)
                .map(|s| {
                    let x = match ri {
                        None => 0.0,
                        Some(i) => match engine.cached_value(i, s) {
                            Some(x) => x,
                            None => engine.value(&mut vm, i, s),
                        },
                    };
                    (Reverse(rank_bits(x)), s)
                })
                .collect();
            keyed.push(list);
        }
        crate::engine::run_pool(threads, || {
            use rayon::prelude::*;
            keyed.par_iter_mut().for_each(|l| l.sort_unstable());
        })?;
        for (ri, list) in ranks.into_iter().zip(keyed) {
            order_of_rank.insert(ri, orders.len());
            orders.push(Order::new(
                list.into_iter().map(|(_, s)| s).collect(),
                n_slots,
            ));
        }
    }
    if trace {
        eprintln!(
            "orders {:.3} s: {} shared (cpu {:.2} s)",
            started.elapsed().as_secs_f64(),
            orders.len(),
            cpu_seconds()
        );
    }

    let mut slots = Slots {
        unit_of: (0..n_slots as u32).collect(),
        claimed: vec![false; n_slots],
        version: vec![0; n_slots],
        initial_cluster: engine.info[SLOT].iter().map(|i| i.cluster).collect(),
    };
    let mut checker = Checker {
        matrix: &matrix,
        invariant: &invariant,
        memo: Default::default(),
        evaluated: 0,
        trace,
        seconds: 0.0,
    };
    let mut record = Record {
        pool,
        candidates: &candidates,
        out: Negotiation::default(),
        carve_log: Vec::new(),
        carved_slots: Vec::new(),
        carve_time: 0.0,
        add_time: 0.0,
    };
    // Per slot, the last visit that put it on a revisit heap.
    let mut stamp = vec![0u32; n_slots];
    let mut visit = 0u32;
    let mut states: Vec<Option<ClusterState>> = (0..nj).map(|_| None).collect();
    let mut list_time = 0f64;
    for j in pool.negotiation_order() {
        if engine.clusters_inexact {
            // A carved slot needed a predicate the autoclusters were not
            // built on: from here on, each job looks at every slot itself.
            let best = best_by_hand(&mut engine, &mut vm, &slots, j as u32);
            let reason = "no unclaimed slot matches";
            record.assign(&mut engine, &mut vm, &mut slots, j, best, reason);
            continue;
        }
        visit += 1;
        let jc = engine.info[JOB][j].cluster;
        let key_unit = engine.cluster_reps[JOB][jc as usize];
        let new_state = states[jc as usize].is_none();
        if new_state {
            let t = Instant::now();
            let rank = engine.rank_instance(key_unit);
            let stable = !policy_moves && rank.is_none_or(|i| !engine.reads_carved(i));
            let order = if has_policy {
                // Every slot the invariant clauses let through, by its exact
                // rank tuple with this cluster.
                let row = &invariant[jc as usize];
                let mut list: Vec<(RankTuple, u32)> = Vec::new();
                for s in 0..n_slots as u32 {
                    if bit(row, slots.initial_cluster[s as usize]) {
                        list.push((engine.ranks(&mut vm, key_unit, s), s));
                    }
                }
                list.sort_by(|a, b| order(&a.0, a.1, &b.0, b.1));
                orders.push(Order::new(
                    list.into_iter().map(|(_, s)| s).collect(),
                    n_slots,
                ));
                orders.len() - 1
            } else {
                order_of_rank[&rank]
            };
            states[jc as usize] = Some(ClusterState {
                order,
                cursor: 0,
                stable,
                revisit: BinaryHeap::new(),
                fresh: BinaryHeap::new(),
                log_pos: record.carve_log.len(),
                had_any: matrix[jc as usize].iter().any(|&w| w != 0),
            });
            list_time += t.elapsed().as_secs_f64();
        }
        let Some(state) = states[jc as usize].as_mut() else {
            continue;
        };
        let order_ref = &orders[state.order];
        let best: Option<u32> = if state.stable {
            // Carved slots behind the cursor may match now.
            for &s in &record.carve_log[state.log_pos..] {
                let p = order_ref.position[s as usize];
                if p != ABSENT && (p as usize) < state.cursor && stamp[s as usize] != visit {
                    stamp[s as usize] = visit;
                    state.revisit.push(Reverse(p));
                }
            }
            state.log_pos = record.carve_log.len();
            // Positions on the heap are all before the cursor.
            loop {
                if let Some(&Reverse(p)) = state.revisit.peek() {
                    let s = order_ref.slots[p as usize];
                    state.revisit.pop();
                    if checker.matches(&mut engine, &mut vm, &slots, jc, key_unit, s) {
                        break Some(s);
                    }
                } else if state.cursor < order_ref.slots.len() {
                    let s = order_ref.slots[state.cursor];
                    // The cursor stays on a slot it takes: taken, the slot
                    // is claimed or carved, and looked at again next time.
                    if checker.matches(&mut engine, &mut vm, &slots, jc, key_unit, s) {
                        break Some(s);
                    }
                    state.cursor += 1;
                } else {
                    break None;
                }
            }
        } else {
            // Slots carved since this cluster last looked: rank them now,
            // check them when they come up.
            let pending: Vec<u32> = if new_state {
                record.carved_slots.clone()
            } else {
                let mut seen = ahash::AHashSet::new();
                record.carve_log[state.log_pos..]
                    .iter()
                    .rev()
                    .copied()
                    .filter(|s| seen.insert(*s))
                    .collect()
            };
            state.log_pos = record.carve_log.len();
            for s in pending {
                let si = s as usize;
                if slots.claimed[si] || !bit(&invariant[jc as usize], slots.initial_cluster[si]) {
                    continue;
                }
                state.fresh.push(Fresh {
                    ranks: engine.ranks(&mut vm, key_unit, slots.unit_of[si]),
                    slot: s,
                    version: slots.version[si],
                    checked: false,
                });
            }
            // The first slot of the order not carved and still matching,
            // against the best entry of the fresh heap that still matches.
            let row = &matrix[jc as usize];
            while state.cursor < order_ref.slots.len() {
                let s = order_ref.slots[state.cursor] as usize;
                if slots.claimed[s] || slots.version[s] != 0 || !bit(row, slots.initial_cluster[s])
                {
                    state.cursor += 1;
                } else {
                    break;
                }
            }
            let from_order = order_ref.slots.get(state.cursor).map(|&s| {
                let t = engine.ranks(&mut vm, key_unit, s);
                (t, s)
            });
            let mut from_heap = None;
            while let Some(mut top) = state.fresh.peek_mut() {
                if from_order.is_some_and(|(t, s)| order(&t, s, &top.ranks, top.slot).is_lt()) {
                    break;
                }
                let s = top.slot;
                if slots.claimed[s as usize] || slots.version[s as usize] != top.version {
                    std::collections::binary_heap::PeekMut::pop(top);
                    continue;
                }
                if !top.checked {
                    if checker
                        .carved(&mut engine, &mut vm, &slots, jc, key_unit, s)
                        .is_none()
                    {
                        std::collections::binary_heap::PeekMut::pop(top);
                        continue;
                    }
                    top.checked = true;
                    state.had_any = true;
                }
                from_heap = Some(s);
                break;
            }
            from_heap.or(from_order.map(|(_, s)| s))
        };
        if best.is_some_and(|s| slots.version[s as usize] != 0) {
            state.had_any = true;
        }
        let reason = if state.had_any {
            "every matching slot was taken by a job earlier in the cycle"
        } else {
            "no unclaimed slot matches"
        };
        let best = best.map(|s| {
            let t = engine.ranks(&mut vm, key_unit, slots.unit_of[s as usize]);
            (t, s)
        });
        record.assign(&mut engine, &mut vm, &mut slots, j, best, reason);
    }
    if trace {
        eprintln!(
            "cycle {:.3} s (cpu {:.2} s): {} carvings, {} pairs evaluated after carving, inexact clusters: {}",
            started.elapsed().as_secs_f64(),
            cpu_seconds(),
            record.carve_log.len(),
            checker.evaluated,
            engine.clusters_inexact
        );
        eprintln!(
            "  carve {:.3} s, add_slot {:.3} s, pairs {:.3} s, lists {list_time:.3} s",
            record.carve_time, record.add_time, checker.seconds
        );
    }
    let (_, instances, _) = engine.stats();
    let mut out = record.out;
    let pairs = pool.jobs().len() as u64 * n_slots as u64;
    let cluster_pairs = nj as u64 * engine.cluster_reps[SLOT].len() as u64;
    out.stats = Stats {
        pairs,
        pairs_pruned: pairs.saturating_sub(cluster_pairs + checker.evaluated),
        matches: out.assignments.iter().filter(|a| a.slot.is_some()).count() as u64,
        job_clusters: nj,
        slot_clusters: engine.cluster_reps[SLOT].len(),
        instances,
        seconds: started.elapsed().as_secs_f64(),
    };
    Ok(out)
}

/// The best slot for job `j` by evaluating it against every open slot.
fn best_by_hand(
    engine: &mut Engine,
    vm: &mut Vm,
    slots: &Slots,
    j: u32,
) -> Option<(RankTuple, u32)> {
    let mut best: Option<(RankTuple, u32)> = None;
    for s in 0..slots.unit_of.len() as u32 {
        if slots.claimed[s as usize] {
            continue;
        }
        if let Some(t) = engine.pair(vm, j, slots.unit_of[s as usize])
            && best.is_none_or(|(b, bs)| order(&t, s, &b, bs).is_lt())
        {
            best = Some((t, s));
        }
    }
    best
}

/// What the cycle records as jobs take slots.
struct Record<'a> {
    pool: &'a Pool,
    /// The pool's slot of each candidate.
    candidates: &'a [usize],
    out: Negotiation,
    /// The slot of each carving, in order.
    carve_log: Vec<u32>,
    /// Each slot carved so far, once: what an unstable cluster seen for the
    /// first time must rank beyond its order.
    carved_slots: Vec<u32>,
    /// Seconds carving, and adding carved slots to the engine.
    carve_time: f64,
    add_time: f64,
}

impl Record<'_> {
    /// Records job `j`'s outcome, and claims or carves its slot.
    fn assign(
        &mut self,
        engine: &mut Engine,
        vm: &mut Vm,
        slots: &mut Slots,
        j: usize,
        best: Option<(RankTuple, u32)>,
        reason: &'static str,
    ) {
        let Some((t, s)) = best else {
            self.out.assignments.push(Assignment {
                job: j,
                slot: None,
                ranks: None,
                reason: Some(reason),
            });
            return;
        };
        let si = s as usize;
        let slot = self.candidates[si];
        self.out.assignments.push(Assignment {
            job: j,
            slot: Some(slot),
            ranks: Some(t),
            reason: None,
        });
        if self.pool.slots()[slot].partitionable {
            let current = engine.units[SLOT][slots.unit_of[si] as usize].clone();
            let t = Instant::now();
            let carved = Engine::carve(vm, &current, &self.pool.jobs()[j].ad);
            self.carve_time += t.elapsed().as_secs_f64();
            let t = Instant::now();
            slots.unit_of[si] = engine.add_slot(carved, slots.unit_of[si]);
            self.add_time += t.elapsed().as_secs_f64();
            slots.version[si] += 1;
            if slots.version[si] == 1 {
                self.carved_slots.push(s);
            }
            self.carve_log.push(s);
        } else {
            slots.claimed[si] = true;
        }
    }
}

/// A carved slot ranked for a cluster, valid while the slot keeps its
/// version.
struct Fresh {
    ranks: RankTuple,
    slot: u32,
    version: u32,
    /// Whether the slot, at this version, is known to match.
    checked: bool,
}

impl PartialEq for Fresh {
    fn eq(&self, other: &Fresh) -> bool {
        order(&self.ranks, self.slot, &other.ranks, other.slot).is_eq()
    }
}
impl Eq for Fresh {}
impl PartialOrd for Fresh {
    fn partial_cmp(&self, other: &Fresh) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Fresh {
    fn cmp(&self, other: &Fresh) -> std::cmp::Ordering {
        // The heap pops its greatest: the best entry is the greatest.
        order(&other.ranks, other.slot, &self.ranks, self.slot)
    }
}
