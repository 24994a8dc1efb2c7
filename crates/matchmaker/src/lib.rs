//! HTCondor-style matchmaking over whole pools.
//!
//! A [`Pool`] holds job ads and slot ads. [`Pool::negotiate`] runs one
//! negotiation cycle with the negotiator's rules (docs/matchmaking.md):
//! jobs in priority order, each taking its best matching unclaimed slot by
//! the rank tuple (pre-job policy rank, job Rank, post-job policy rank),
//! static slots claimed, partitionable slots carved. [`Pool::all_pairs`]
//! finds every symmetric match; [`Pool::candidates`] lists one job's
//! matches with their ranks; [`Pool::analyze`] explains why a job matches
//! few or no slots.
//!
//! Results are exactly those of plain evaluation (both Requirements, then
//! Rank, for every pair), for any number of threads; the engine gets there
//! by evaluating each Requirements clause once per group of ads that agree
//! on every attribute the clause can read (see `engine`).

mod analyze;
mod cycle;
mod engine;
pub mod generate;
mod read;
mod refs;

pub use read::{
    AdFile, read_ad_file, read_ad_file_with, read_ad_text, read_ad_text_with, read_compiled,
};
#[doc(hidden)]
pub use read::{read_ad_text_by_parser, read_ad_text_in_parts};

pub use analyze::{Analysis, ClauseCount};
pub use engine::{
    LOWEST_POLICY_RANK, PolicyExprs as Policy, RankTuple, better, policy_number, rank_number,
    truthy,
};

use classad::AdRef;
use classad::vm::{Symbol, Value, Vm};
use engine::{Engine, JOB, SLOT};
use std::time::Instant;

/// Process CPU seconds (user + system), for traces on a shared machine.
pub(crate) fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<f64>().ok())
        .sum();
    ticks / 100.0
}

/// A job's identity: `ClusterId.ProcId`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId {
    /// `ClusterId`.
    pub cluster: i64,
    /// `ProcId`.
    pub proc: i64,
}

impl std::fmt::Display for JobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.cluster, self.proc)
    }
}

impl std::str::FromStr for JobId {
    type Err = String;
    fn from_str(s: &str) -> Result<JobId, String> {
        let (c, p) = s.split_once('.').unwrap_or((s, "0"));
        match (c.parse(), p.parse()) {
            (Ok(cluster), Ok(proc)) => Ok(JobId { cluster, proc }),
            _ => Err(format!("`{s}` is not a job id (ClusterId.ProcId)")),
        }
    }
}

/// A job in the pool.
#[derive(Clone)]
pub struct Job {
    /// The ad.
    pub ad: AdRef,
    /// `ClusterId.ProcId`.
    pub id: JobId,
    /// `JobPrio` (0 when missing).
    pub prio: i64,
}

/// A slot in the pool.
#[derive(Clone)]
pub struct Slot {
    /// The ad.
    pub ad: AdRef,
    /// `Name`.
    pub name: String,
    /// `State` is `"Unclaimed"`.
    pub unclaimed: bool,
    /// `PartitionableSlot` is true.
    pub partitionable: bool,
}

fn int_attribute(vm: &mut Vm, ad: &AdRef, name: &str) -> Option<i64> {
    match vm.evaluate_attribute(ad, &Symbol::new(name), None) {
        Value::Int(i) => Some(i),
        _ => None,
    }
}

impl Job {
    /// A job from its ad: `ClusterId` must be an integer; `ProcId` and
    /// `JobPrio` default to 0.
    pub fn new(ad: AdRef) -> Result<Job, String> {
        let mut vm = Vm::default();
        let cluster =
            int_attribute(&mut vm, &ad, "ClusterId").ok_or("job has no integer ClusterId")?;
        let proc = int_attribute(&mut vm, &ad, "ProcId").unwrap_or(0);
        let prio = int_attribute(&mut vm, &ad, "JobPrio").unwrap_or(0);
        Ok(Job {
            ad,
            id: JobId { cluster, proc },
            prio,
        })
    }
}

impl Slot {
    /// A slot from its ad: `Name` must be a string.
    pub fn new(ad: AdRef) -> Result<Slot, String> {
        let mut vm = Vm::default();
        let name = match vm.evaluate_attribute(&ad, &Symbol::new("Name"), None) {
            Value::Str(s) => String::from_utf8_lossy(&s).into_owned(),
            _ => return Err("slot has no string Name".into()),
        };
        let unclaimed = matches!(
            vm.evaluate_attribute(&ad, &Symbol::new("State"), None),
            Value::Str(s) if &*s == b"Unclaimed"
        );
        let partitionable =
            truthy(&vm.evaluate_attribute(&ad, &Symbol::new("PartitionableSlot"), None));
        Ok(Slot {
            ad,
            name,
            unclaimed,
            partitionable,
        })
    }
}

impl Policy {
    /// Reads a policy file: `NAME = expression` lines, `#` comments.
    /// Known names: `NEGOTIATOR_PRE_JOB_RANK`, `NEGOTIATOR_POST_JOB_RANK`.
    pub fn parse(text: &str) -> Result<Policy, String> {
        let mut policy = Policy::default();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((name, expr)) = line.split_once('=') else {
                return Err(format!("line {}: expected `NAME = expression`", n + 1));
            };
            let expr = classad::syntax::parse_expression(expr.trim())
                .map_err(|e| format!("line {}: {}", n + 1, e))?;
            match name.trim().to_ascii_uppercase().as_str() {
                "NEGOTIATOR_PRE_JOB_RANK" => policy.pre = Some(expr),
                "NEGOTIATOR_POST_JOB_RANK" => policy.post = Some(expr),
                other => {
                    return Err(format!(
                        "line {}: unknown name `{other}` (expected NEGOTIATOR_PRE_JOB_RANK or NEGOTIATOR_POST_JOB_RANK)",
                        n + 1
                    ));
                }
            }
        }
        Ok(policy)
    }
}

/// How a pool is matched.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// `STRICT_CLASSAD_EVALUATION`: unscoped names do not fall back to TARGET.
    pub strict: bool,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Opt-in shortcut for hostile ads: once one clause of an ad has used
    /// up the VM's step budget this many times against groups of the other
    /// side, it is taken as ERROR against the rest without being evaluated
    /// (in `analyze` too). `None`, the default, evaluates every pair as
    /// HTCondor does: the shortcut can change a match when the clause's
    /// cost depends on the other ad (`TARGET.Name == "s4" || Costly`).
    pub give_up_after_exhausted: Option<u8>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            strict: false,
            threads: 1,
            give_up_after_exhausted: None,
        }
    }
}

/// Figures about one run.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Job × slot pairs the run answers for.
    pub pairs: u64,
    /// Pairs answered from an autocluster's result rather than evaluated
    /// for that pair.
    pub pairs_pruned: u64,
    /// Matches found (assignments in a cycle, pairs in all-pairs mode).
    pub matches: u64,
    /// Job and slot autoclusters.
    pub job_clusters: usize,
    /// Slot autoclusters.
    pub slot_clusters: usize,
    /// Clause instances evaluated.
    pub instances: usize,
    /// Seconds spent.
    pub seconds: f64,
}

/// One job's outcome in a negotiation cycle.
#[derive(Clone, Debug)]
pub struct Assignment {
    /// The job's index in the pool.
    pub job: usize,
    /// The slot's index, if one was found.
    pub slot: Option<usize>,
    /// The rank tuple of the match.
    pub ranks: Option<RankTuple>,
    /// Why nothing was found.
    pub reason: Option<&'static str>,
}

/// The outcome of a negotiation cycle, in negotiation order.
#[derive(Clone, Debug, Default)]
pub struct Negotiation {
    /// One entry per job, in negotiation order.
    pub assignments: Vec<Assignment>,
    /// Figures.
    pub stats: Stats,
}

/// Every symmetric match, by job.
pub struct AllPairs {
    cluster_of_job: Vec<u32>,
    lists: Vec<Vec<(u32, f64)>>,
    /// Figures.
    pub stats: Stats,
}

impl AllPairs {
    /// The slots matching job `j` in slot order, with the job's Rank.
    pub fn of_job(&self, j: usize) -> &[(u32, f64)] {
        &self.lists[self.cluster_of_job[j] as usize]
    }

    /// The checksums of `../shared/workloads/README.md`: matches, rank_sum,
    /// best_hash.
    pub fn checksums(&self) -> (u64, f64, u64) {
        let (mut matches, mut rank_sum, mut hash) = (0u64, 0f64, 14_695_981_039_346_656_037u64);
        for j in 0..self.cluster_of_job.len() {
            let list = self.of_job(j);
            matches += list.len() as u64;
            let mut best = -1i64;
            let mut best_rank = f64::NEG_INFINITY;
            for &(s, r) in list {
                rank_sum += r;
                if best < 0 || r > best_rank {
                    best = i64::from(s);
                    best_rank = r;
                }
            }
            for value in [j as i64, best] {
                for byte in value.to_le_bytes() {
                    hash ^= u64::from(byte);
                    hash = hash.wrapping_mul(1_099_511_628_211);
                }
            }
        }
        (matches, rank_sum, hash)
    }
}

/// A matching slot of one job.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The slot's index.
    pub slot: usize,
    /// The rank tuple.
    pub ranks: RankTuple,
}

/// Jobs and slots, and how to match them.
#[derive(Clone, Default)]
pub struct Pool {
    jobs: Vec<Job>,
    slots: Vec<Slot>,
    policy: Policy,
    options: Options,
}

impl Pool {
    /// An empty pool.
    pub fn new(options: Options) -> Pool {
        Pool {
            options,
            ..Pool::default()
        }
    }

    /// Sets the negotiator's policy expressions.
    pub fn set_policy(&mut self, policy: Policy) {
        self.policy = policy;
    }

    /// Adds a job ad.
    pub fn add_job(&mut self, ad: AdRef) -> Result<JobId, String> {
        let job = Job::new(ad)?;
        let id = job.id;
        self.jobs.push(job);
        Ok(id)
    }

    /// Adds a slot ad.
    pub fn add_slot(&mut self, ad: AdRef) -> Result<(), String> {
        self.slots.push(Slot::new(ad)?);
        Ok(())
    }

    /// Removes the jobs with this id; whether there was one.
    pub fn remove_job(&mut self, id: JobId) -> bool {
        let before = self.jobs.len();
        self.jobs.retain(|j| j.id != id);
        before != self.jobs.len()
    }

    /// Removes the slots with this name; whether there was one.
    pub fn remove_slot(&mut self, name: &str) -> bool {
        let before = self.slots.len();
        self.slots.retain(|s| s.name != name);
        before != self.slots.len()
    }

    /// The jobs, in the order added.
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    /// The slots, in the order added.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// The index of the job with this id.
    pub fn job_index(&self, id: JobId) -> Option<usize> {
        self.jobs.iter().position(|j| j.id == id)
    }

    fn threads(&self) -> usize {
        self.options.threads.max(1)
    }

    fn engine(&self, slots: &[usize]) -> Result<Engine, String> {
        Engine::new(
            self.jobs.iter().map(|j| j.ad.clone()).collect(),
            slots.iter().map(|&s| self.slots[s].ad.clone()).collect(),
            &self.policy,
            self.options.strict,
            self.threads(),
            self.options.give_up_after_exhausted,
        )
    }

    /// The negotiation order: `JobPrio` descending, then `ClusterId`, then
    /// `ProcId` ascending (stable for equal ids).
    pub fn negotiation_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.jobs.len()).collect();
        order.sort_by_key(|&j| {
            let job = &self.jobs[j];
            (std::cmp::Reverse(job.prio), job.id.cluster, job.id.proc)
        });
        order
    }

    /// The engine over `slots` with every predicate evaluated: the first
    /// steps of both `all_pairs` and `negotiate`, traced on stderr when
    /// `CLASSAD_MATCH_TRACE` is set.
    pub(crate) fn evaluated_engine(
        &self,
        slots: &[usize],
        trace: bool,
        started: Instant,
    ) -> Result<Engine, String> {
        if trace {
            eprintln!("start (cpu {:.2} s)", cpu_seconds());
        }
        let mut engine = self.engine(slots)?;
        if trace {
            eprintln!(
                "built {:.3} s {:?}",
                started.elapsed().as_secs_f64(),
                engine.stats()
            );
        }
        engine.evaluate_all(self.threads())?;
        if trace {
            eprintln!("evaluated {:.3} s", started.elapsed().as_secs_f64());
        }
        Ok(engine)
    }

    /// Every symmetric match (every slot, whatever its State), with the
    /// job Rank of each.
    pub fn all_pairs(&self) -> Result<AllPairs, String> {
        let started = Instant::now();
        let slots: Vec<usize> = (0..self.slots.len()).collect();
        let trace = std::env::var_os("CLASSAD_MATCH_TRACE").is_some();
        let engine = self.evaluated_engine(&slots, trace, started)?;
        let (matrix, _) = engine.matrices(self.threads(), false)?;
        if trace {
            eprintln!(
                "matrix {:.3} s (cpu {:.2} s)",
                started.elapsed().as_secs_f64(),
                cpu_seconds()
            );
        }
        let slot_cluster: Vec<u32> = engine.info[SLOT].iter().map(|i| i.cluster).collect();
        let mut lists: Vec<Vec<(u32, f64)>> = Vec::new();
        let engine_ref = &engine;
        engine::run_pool(self.threads(), || {
            use rayon::prelude::*;
            lists = (0..matrix.len())
                .into_par_iter()
                .map(|c| {
                    let row = &matrix[c];
                    let j = engine_ref.cluster_reps[JOB][c];
                    let mut list = Vec::new();
                    let mut rank_of: ahash::AHashMap<u32, f64> = Default::default();
                    for (s, &sc) in slot_cluster.iter().enumerate() {
                        if row[sc as usize / 64] & (1 << (sc % 64)) != 0 {
                            let rank = *rank_of.entry(sc).or_insert_with(|| {
                                let rep = engine_ref.cluster_reps[SLOT][sc as usize];
                                engine_ref.cached_ranks(j, rep).map_or(0.0, |t| t.1)
                            });
                            list.push((s as u32, rank));
                        }
                    }
                    list
                })
                .collect();
        })?;
        let cluster_of_job: Vec<u32> = engine.info[JOB].iter().map(|i| i.cluster).collect();
        let (preds, instances, _) = engine.stats();
        let _ = preds;
        let mut result = AllPairs {
            cluster_of_job,
            lists,
            stats: Stats {
                pairs: self.jobs.len() as u64 * self.slots.len() as u64,
                job_clusters: engine.cluster_reps[JOB].len(),
                slot_clusters: engine.cluster_reps[SLOT].len(),
                instances,
                ..Stats::default()
            },
        };
        let cluster_pairs = result.stats.job_clusters as u64 * result.stats.slot_clusters as u64;
        result.stats.pairs_pruned = result.stats.pairs.saturating_sub(cluster_pairs);
        result.stats.matches = (0..self.jobs.len())
            .map(|j| result.of_job(j).len() as u64)
            .sum();
        result.stats.seconds = started.elapsed().as_secs_f64();
        if trace {
            eprintln!(
                "pairs {:.3} s (cpu {:.2} s)",
                result.stats.seconds,
                cpu_seconds()
            );
        }
        Ok(result)
    }

    /// One negotiation cycle over the unclaimed slots.
    pub fn negotiate(&self) -> Result<Negotiation, String> {
        cycle::negotiate(self)
    }

    /// The unclaimed slots matching job `j` (an index), best first.
    pub fn candidates(&self, j: usize) -> Result<Vec<Candidate>, String> {
        let slots: Vec<usize> = (0..self.slots.len())
            .filter(|&s| self.slots[s].unclaimed)
            .collect();
        let mut engine = self.engine(&slots)?;
        let mut vm = engine.vm();
        let mut out = Vec::new();
        for (unit, &s) in slots.iter().enumerate() {
            if let Some(ranks) = engine.pair(&mut vm, j as u32, unit as u32) {
                out.push(Candidate { slot: s, ranks });
            }
        }
        out.sort_by(|a, b| order(&a.ranks, a.slot as u32, &b.ranks, b.slot as u32));
        Ok(out)
    }

    /// Why job `j` (an index) matches what it matches.
    pub fn analyze(&self, j: usize) -> Analysis {
        analyze::analyze(self, j)
    }

    pub(crate) fn options(&self) -> Options {
        self.options
    }
}

/// A rank for ordering: -0.0 equals 0.0 (as `==` has it), NaN ranks lowest.
pub(crate) fn rank_key(x: f64) -> f64 {
    if x.is_nan() {
        f64::NEG_INFINITY
    } else {
        x + 0.0
    }
}

/// Best first: larger rank tuple, then earlier slot. A total order.
pub(crate) fn order(a: &RankTuple, sa: u32, b: &RankTuple, sb: u32) -> std::cmp::Ordering {
    let key = |t: &RankTuple| [rank_key(t.0), rank_key(t.1), rank_key(t.2)];
    let (ka, kb) = (key(a), key(b));
    for i in 0..3 {
        match kb[i].total_cmp(&ka[i]) {
            std::cmp::Ordering::Equal => {}
            other => return other,
        }
    }
    sa.cmp(&sb)
}
