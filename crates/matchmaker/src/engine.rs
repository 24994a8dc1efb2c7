//! The match engine: Requirements split into clauses, each clause's value
//! cached per group of ads that agree on every attribute it can read.
//!
//! A clause (a top-level `&&` operand of a `Requirements`, followed through
//! references to the ad's own conjunctions such as `START` and
//! `WithinResourceLimits`) is evaluated in one ad (MY) against the other
//! (TARGET). Walking its references, and the references of every
//! attribute they reach on either side, gives two *projections*: the names
//! it can read in MY's ad and in TARGET's. Ads that agree on a projection
//! (same constant value, same compiled expression, or both missing) form a
//! *group*. A clause *instance* is a clause in one MY-group; its value is
//! computed once per TARGET-group. A slot ad and a job ad match when every
//! instance of both is true, so the engine turns a pool into a few thousand
//! evaluations and bitset operations.
//!
//! Ads that agree on every projection their side is read through, and
//! have the same instances, form an *autocluster*: the match matrix is
//! computed between autoclusters.

use crate::refs::{self, Refs};
use ahash::AHashMap as HashMap;
use classad::syntax::Expr;
use classad::vm::{AdRef, AdValue, Attribute, Definition, Program, Registry, Symbol, Value, Vm};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::AtomicU8;
use std::sync::atomic::Ordering::Relaxed;

/// Job clauses the VM must evaluate over more slot groups than this are
/// evaluated by the match matrix on the slots the other clauses accept.
const DEFER_GROUPS: usize = 256;

/// The job side.
pub(crate) const JOB: usize = 0;
/// The slot side.
pub(crate) const SLOT: usize = 1;

const NONE: u32 = u32::MAX;

/// What an ad holds under one name, compared exactly.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Atom {
    Absent,
    Undefined,
    Error,
    Bool(bool),
    Int(i64),
    Real(u64),
    Str(Arc<[u8]>),
    AbsTime(i64, i32),
    RelTime(u64),
    /// A compiled expression, by identity (shared programs are one object).
    Program(usize),
    Name(Symbol),
}

fn atom(ad: &AdRef, symbol: &Symbol) -> Atom {
    let Some(slot) = ad.body.slot(symbol) else {
        return Atom::Absent;
    };
    match ad.body.constant(slot) {
        Some(Value::Undefined) => Atom::Undefined,
        Some(Value::Error) => Atom::Error,
        Some(Value::Bool(b)) => Atom::Bool(*b),
        Some(Value::Int(i)) => Atom::Int(*i),
        Some(Value::Real(r)) => Atom::Real(r.to_bits()),
        Some(Value::Str(s)) => Atom::Str(s.clone()),
        Some(Value::AbsTime(t)) => Atom::AbsTime(t.secs, t.offset),
        Some(Value::RelTime(r)) => Atom::RelTime(r.to_bits()),
        _ => Atom::Program(Arc::as_ptr(&ad.body.attribute(slot).program) as usize),
    }
}

/// Whether a Requirements value lets a match through: true, or a non-zero
/// number (HTCondor's `&&` reads numbers as booleans).
pub fn truthy(value: &Value) -> bool {
    match *value {
        Value::Bool(b) => b,
        Value::Int(i) => i != 0,
        Value::Real(r) => r != 0.0,
        _ => false,
    }
}

/// A Rank value as HTCondor's `EvalFloat` reads it.
pub fn rank_number(value: &Value) -> f64 {
    match *value {
        Value::Int(i) => i as f64,
        Value::Real(r) => r,
        Value::Bool(b) => f64::from(u8::from(b)),
        _ => 0.0,
    }
}

/// The lowest policy rank, HTCondor's `-FLT_MAX`.
pub const LOWEST_POLICY_RANK: f64 = -(f32::MAX as f64);

/// A policy rank: a number, or lowest when it is not one.
pub fn policy_number(value: &Value) -> f64 {
    match *value {
        Value::Int(i) => i as f64,
        Value::Real(r) => r,
        Value::Bool(b) => f64::from(u8::from(b)),
        _ => LOWEST_POLICY_RANK,
    }
}

/// A set of names on one side, or every name.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Names {
    Some(Vec<String>),
    All,
}

/// One attribute name on one side: an id per ad for what the ad holds
/// under it (equal ids, equal atoms; programs of the same text one atom),
/// shared by every projection that reads the name, so that an ad's atom
/// for a name is made once, not once per projection.
#[derive(Default)]
struct Column {
    /// A program to the first program seen with the same text.
    canon: HashMap<usize, usize>,
    texts: HashMap<String, usize>,
    ids: HashMap<Atom, u32>,
    /// The id of each unit (NONE: not computed yet).
    of_unit: Vec<u32>,
}

impl Column {
    fn compute(&mut self, ad: &AdRef, symbol: &Symbol) -> u32 {
        let mut a = atom(ad, symbol);
        if let Atom::Program(ptr) = a {
            let c = match self.canon.get(&ptr) {
                Some(&c) => c,
                None => {
                    let text = ad
                        .body
                        .slot(symbol)
                        .map(|s| classad::syntax::unparse(&ad.body.attribute(s).source))
                        .unwrap_or_default();
                    let c = *self.texts.entry(text).or_insert(ptr);
                    self.canon.insert(ptr, c);
                    c
                }
            };
            a = Atom::Program(c);
        }
        let next = self.ids.len() as u32;
        *self.ids.entry(a).or_insert(next)
    }

    /// The id of `unit` (whose ad is `ad`), computed now if needed.
    fn id(&mut self, unit: u32, ad: &AdRef, symbol: &Symbol) -> u32 {
        let u = unit as usize;
        if let Some(&id) = self.of_unit.get(u)
            && id != NONE
        {
            return id;
        }
        if self.of_unit.len() <= u {
            self.of_unit.resize(u + 1, NONE);
        }
        let id = self.compute(ad, symbol);
        self.of_unit[u] = id;
        id
    }

    /// A column over every ad of a side.
    fn over(ads: &[AdRef], symbol: &Symbol) -> Column {
        let mut column = Column::default();
        column.of_unit = ads.iter().map(|ad| column.compute(ad, symbol)).collect();
        column
    }
}

struct Projection {
    side: usize,
    /// Whether a slot's `Cpus`, `Memory` or `Disk` is in it.
    reads_carved: bool,
    /// A program to the first program seen with the same text: ads
    /// compiled on different threads hold different copies.
    canon: HashMap<usize, usize>,
    texts: HashMap<String, usize>,
    symbols: Option<Vec<Symbol>>,
    /// Groups of a projection over every name, by the ad's atoms.
    groups: HashMap<Vec<Atom>, u32>,
    /// Groups of a projection over some names, by their columns' ids.
    groups_by_id: HashMap<Vec<u32>, u32>,
    /// The group of each unit of the side (NONE: not computed yet).
    group_of: Vec<u32>,
    /// A unit of each group.
    reps: Vec<u32>,
}

impl Projection {
    fn canonical(&mut self, ad: &AdRef, symbol: &Symbol, atom: Atom) -> Atom {
        let Atom::Program(ptr) = atom else {
            return atom;
        };
        if let Some(&c) = self.canon.get(&ptr) {
            return Atom::Program(c);
        }
        let text = ad
            .body
            .slot(symbol)
            .map(|s| classad::syntax::unparse(&ad.body.attribute(s).source))
            .unwrap_or_default();
        let c = *self.texts.entry(text).or_insert(ptr);
        self.canon.insert(ptr, c);
        Atom::Program(c)
    }

    /// The key of a projection over every name: each attribute's name and
    /// atom, in name order.
    fn key(&mut self, ad: &AdRef) -> Vec<Atom> {
        let mut pairs: Vec<(Symbol, Atom)> = ad
            .body
            .attributes()
            .iter()
            .map(|a| {
                let s = Symbol::new(a.name.as_bytes());
                let v = atom(ad, &s);
                let v = self.canonical(ad, &s, v);
                (s, v)
            })
            .collect();
        pairs.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut key = Vec::with_capacity(pairs.len() * 2 + 1);
        key.push(Atom::Bool(ad.body.shadows_special_names()));
        for (s, v) in pairs {
            key.push(Atom::Name(s));
            key.push(v);
        }
        key
    }

    fn group(&mut self, unit: u32, ad: &AdRef, columns: &mut HashMap<Symbol, Column>) -> u32 {
        let u = unit as usize;
        if u < self.group_of.len() && self.group_of[u] != NONE {
            return self.group_of[u];
        }
        if self.group_of.len() <= u {
            self.group_of.resize(u + 1, NONE);
        }
        let next = self.reps.len() as u32;
        let g = match &self.symbols {
            Some(symbols) => {
                // An ad that defines `target` or `my` reads even its
                // clauses' constants differently: never in another's group.
                let key: Vec<u32> = std::iter::once(u32::from(ad.body.shadows_special_names()))
                    .chain(
                        symbols
                            .iter()
                            .map(|s| columns.entry(s.clone()).or_default().id(unit, ad, s)),
                    )
                    .collect();
                *self.groups_by_id.entry(key).or_insert(next)
            }
            None => {
                let key = self.key(ad);
                *self.groups.entry(key).or_insert(next)
            }
        };
        if g == next {
            self.reps.push(unit);
        }
        self.group_of[u] = g;
        g
    }

    /// The side of the ads that read through this projection.
    fn side_of_my(&self) -> usize {
        1 - self.side
    }

    /// Groups every ad of the side, from the columns of the projection's
    /// names (all computed) or, over every name, from the ads' atoms.
    fn assign_all(&mut self, ads: &[AdRef], columns: &HashMap<Symbol, Column>) {
        let Some(symbols) = &self.symbols else {
            for (u, ad) in ads.iter().enumerate() {
                self.group(u as u32, ad, &mut HashMap::default());
            }
            return;
        };
        let ids: Vec<&[u32]> = symbols
            .iter()
            .map(|s| columns.get(s).map_or(&[][..], |c| &c.of_unit[..]))
            .collect();
        self.group_of = Vec::with_capacity(ads.len());
        let mut key = Vec::with_capacity(symbols.len() + 1);
        for (u, ad) in ads.iter().enumerate() {
            key.clear();
            key.push(u32::from(ad.body.shadows_special_names()));
            key.extend(ids.iter().map(|list| list[u]));
            let next = self.reps.len() as u32;
            let g = match self.groups_by_id.get(&key) {
                Some(&g) => g,
                None => {
                    self.groups_by_id.insert(key.clone(), next);
                    self.reps.push(u as u32);
                    next
                }
            };
            self.group_of.push(g);
        }
    }
}

#[derive(Clone)]
enum PredKind {
    /// An attribute evaluated as such (its circular-reference guard on).
    Attr(Symbol),
    /// An expression compiled on its own.
    Clause(Arc<Program>),
}

/// A clause `f(MY) op g(TARGET)`, a comparison whose one operand reads
/// only its own ad and whose other reads only the other ad's attributes
/// (`TARGET.Memory >= RequestMemory`, `TARGET.GLIDEIN_ToDie - time() >
/// MY.MaxWallTimeMins * 60`): a column kernel. `f` is computed once per
/// MY group and `g` once per TARGET group, both checked per ad to read
/// nothing else; the comparison then runs in a tight loop over the TARGET
/// groups' values.
struct Split {
    op: classad::syntax::BinaryOp,
    operand: Arc<Expr>,
    program: Arc<Program>,
    target: TargetOperand,
    target_left: bool,
}

/// The TARGET side of a split clause.
enum TargetOperand {
    /// `TARGET.name`: the attribute itself, most often a literal.
    Name(Symbol),
    /// An expression reading only `TARGET.name`s (these names).
    Expr(Arc<Program>, Vec<Symbol>),
}

struct Pred {
    side: usize,
    /// Read as a Rank (EvalFloat), not as a truth value.
    rank: bool,
    kind: PredKind,
    split: Option<Split>,
    own: u32,
    target: u32,
    /// The text, for analysis.
    text: String,
}

/// An instance's values per TARGET group: a byte per group for truth
/// values (most instances), a double for ranks.
enum Values {
    Truth(Vec<u8>),
    Number(Vec<Option<f64>>),
}

impl Values {
    fn len(&self) -> usize {
        match self {
            Values::Truth(v) => v.len(),
            Values::Number(v) => v.len(),
        }
    }
    fn grow(&mut self, n: usize) {
        match self {
            Values::Truth(v) if v.len() < n => v.resize(n, 0),
            Values::Number(v) if v.len() < n => v.resize(n, None),
            _ => {}
        }
    }
    #[inline]
    fn get(&self, g: usize) -> Option<f64> {
        match self {
            Values::Truth(v) => match v.get(g)? {
                0 => None,
                1 => Some(0.0),
                _ => Some(1.0),
            },
            Values::Number(v) => v.get(g).copied().flatten(),
        }
    }
    fn set(&mut self, g: usize, x: f64) {
        self.grow(g + 1);
        match self {
            Values::Truth(v) => v[g] = if x != 0.0 { 2 } else { 1 },
            Values::Number(v) => v[g] = Some(x),
        }
    }
}

/// One predicate in one group of ads: its values per TARGET group.
pub(crate) struct Instance {
    pred: u32,
    rep: u32,
    values: Values,
    /// For a split predicate: the own operand, once known (None inside:
    /// not separable).
    operand: Option<Option<Value>>,
    /// Left to the match matrix, which evaluates it only against the slots
    /// that the other clauses let through.
    deferred: bool,
    /// Evaluations of this instance that ran out of their budget: with
    /// `Options::give_up_after_exhausted`, from that count on the instance
    /// is ERROR against the other groups without being evaluated.
    exhausted: u8,
}

/// Whether a clause that has used up the VM's budget (10 million steps,
/// 0.2 s) `exhausted` times is given up under `Options::give_up_after_exhausted`:
/// one hostile ad (`h1 = h0 + h0 + Memory`, ..., `Requirements = h40 > 0`)
/// otherwise costs the full budget against every slot group (661 groups:
/// 116 s), as it would in HTCondor.
pub(crate) fn given_up(limit: Option<u8>, exhausted: u8) -> bool {
    limit.is_some_and(|limit| exhausted >= limit)
}

#[derive(Clone)]
enum Item {
    Pred(u32),
    /// A reference to an own attribute, flattened into that attribute's
    /// conjuncts in the ads that have it, else evaluated as the fallback.
    Flat(Symbol, u32),
}

/// What a unit is made of.
#[derive(Clone, Default)]
pub(crate) struct UnitInfo {
    /// The instances of the unit's Requirements clauses.
    pub requirements: Vec<u32>,
    /// The instances of value predicates: the job Rank, or the slot's
    /// pre- and post-job policy ranks.
    pub values: Vec<u32>,
    /// The unit's autocluster.
    pub cluster: u32,
}

/// Policy expressions evaluated with MY = slot, TARGET = job.
#[derive(Clone, Debug, Default)]
pub struct PolicyExprs {
    /// `NEGOTIATOR_PRE_JOB_RANK`.
    pub pre: Option<Expr>,
    /// `NEGOTIATOR_POST_JOB_RANK`.
    pub post: Option<Expr>,
}

/// The engine over a fixed set of job ads and a growing set of slot ads.
pub(crate) struct Engine {
    strict: bool,
    /// `Options::give_up_after_exhausted`.
    give_up_after_exhausted: Option<u8>,
    registry: Arc<Registry>,
    pub units: [Vec<AdRef>; 2],
    pub info: [Vec<UnitInfo>; 2],
    /// How many units each side had when the engine was built: the side-wide
    /// reference graph covers them (later slot units are carved copies).
    edges: [HashMap<String, Arc<Refs>>; 2],
    refs_memo: HashMap<usize, Arc<Refs>>,
    projections: Vec<Projection>,
    /// Per side, the column of each name some projection reads.
    columns: [HashMap<Symbol, Column>; 2],
    projection_index: HashMap<(usize, Names), u32>,
    preds: Vec<Pred>,
    pred_index: HashMap<(usize, String), u32>,
    items_memo: HashMap<(usize, usize), Option<Arc<[Item]>>>,
    pub instances: Vec<Instance>,
    instance_index: HashMap<(u32, u32), u32>,
    /// Per side, the projections that the other side reads it through.
    read_through: [BTreeSet<u32>; 2],
    clusters: [HashMap<Vec<u32>, u32>; 2],
    /// A unit of each autocluster.
    pub cluster_reps: [Vec<u32>; 2],
    policy: [Option<u32>; 2],
    rank_pred: Option<u32>,
    /// The whole-`Requirements` predicate of each side.
    root_pred: [Option<u32>; 2],
    /// `TARGET.name` of split predicates per (predicate, TARGET group),
    /// for groups made after the parallel phase.
    target_operands: HashMap<(u32, u32), Option<Value>>,
    /// The predicates some unit used when the engine was built: the
    /// autoclusters account for their projections only.
    used_preds: std::collections::HashSet<u32>,
    /// A unit added later uses another predicate: autoclusters may no
    /// longer stand for their members.
    pub clusters_inexact: bool,
    requirements: Symbol,
}

/// The rank tuple of a match: pre-job, job, post-job.
pub type RankTuple = (f64, f64, f64);

/// Whether `a` is a strictly better rank tuple than `b`.
pub fn better(a: &RankTuple, b: &RankTuple) -> bool {
    if a.0 != b.0 {
        return a.0 > b.0;
    }
    if a.1 != b.1 {
        return a.1 > b.1;
    }
    a.2 > b.2
}

impl Engine {
    /// Builds the engine and its unit descriptions (not yet evaluated).
    pub fn new(
        jobs: Vec<AdRef>,
        slots: Vec<AdRef>,
        policy: &PolicyExprs,
        strict: bool,
        threads: usize,
        give_up_after_exhausted: Option<u8>,
    ) -> Result<Engine, String> {
        let mut engine = Engine {
            strict,
            give_up_after_exhausted,
            registry: classad::stdlib::shared_registry(),
            units: [jobs, slots],
            info: [Vec::new(), Vec::new()],
            edges: [HashMap::default(), HashMap::default()],
            refs_memo: HashMap::default(),
            projections: Vec::new(),
            columns: [HashMap::default(), HashMap::default()],
            projection_index: HashMap::default(),
            preds: Vec::new(),
            pred_index: HashMap::default(),
            items_memo: HashMap::default(),
            instances: Vec::new(),
            instance_index: HashMap::default(),
            read_through: [BTreeSet::new(), BTreeSet::new()],
            clusters: [HashMap::default(), HashMap::default()],
            cluster_reps: [Vec::new(), Vec::new()],
            policy: [None, None],
            rank_pred: None,
            root_pred: [None, None],
            used_preds: Default::default(),
            target_operands: HashMap::default(),
            clusters_inexact: false,
            requirements: Symbol::new("requirements"),
        };

        if let Some(pre) = &policy.pre {
            engine.policy[0] = Some(
                engine
                    .clause_pred_keyed(SLOT, pre, "\u{0}policy")
                    .ok_or("NEGOTIATOR_PRE_JOB_RANK does not compile")?,
            );
        }
        if let Some(post) = &policy.post {
            engine.policy[1] = Some(
                engine
                    .clause_pred_keyed(SLOT, post, "\u{0}policy")
                    .ok_or("NEGOTIATOR_POST_JOB_RANK does not compile")?,
            );
        }
        // Predicates first (they create the projections), then every
        // projection's groups in parallel, then instances and clusters.
        let mut preds_of: [Vec<(Vec<u32>, Vec<u32>)>; 2] = [Vec::new(), Vec::new()];
        for side in [JOB, SLOT] {
            for u in 0..engine.units[side].len() {
                let reqs = engine.requirement_preds(side, u);
                let values = engine.value_preds(side, u);
                preds_of[side].push((reqs, values));
            }
        }
        let trace = std::env::var_os("CLASSAD_MATCH_TRACE").is_some();
        let t0 = std::time::Instant::now();
        if trace {
            eprintln!("  preds made; {} projections", engine.projections.len());
            for p in &engine.preds {
                let own = &engine.projections[p.own as usize].symbols;
                let tg = &engine.projections[p.target as usize].symbols;
                eprintln!(
                    "    side {} own {:?} target {:?}: {}",
                    p.side,
                    own.as_ref().map(|v| v.len()),
                    tg.as_ref().map(|v| v.len()),
                    p.text
                );
            }
        }
        let mut used = vec![false; engine.projections.len()];
        for list in preds_of.iter().flatten() {
            for &p in list.0.iter().chain(&list.1) {
                engine.used_preds.insert(p);
                let pred = &engine.preds[p as usize];
                used[pred.own as usize] = true;
                used[pred.target as usize] = true;
                engine.read_through[1 - pred.side].insert(pred.target);
            }
        }
        // The columns of every name a used projection reads, then the
        // projections' groups from them, in parallel.
        let mut names: ahash::AHashSet<(usize, Symbol)> = Default::default();
        for (p, &used) in engine.projections.iter().zip(&used) {
            if used && let Some(symbols) = &p.symbols {
                names.extend(symbols.iter().map(|s| (p.side, s.clone())));
            }
        }
        let names: Vec<(usize, Symbol)> = names.into_iter().collect();
        let units = &engine.units;
        let mut columns: Vec<Column> = Vec::new();
        run_pool(threads, || {
            columns = names
                .par_iter()
                .map(|(side, symbol)| Column::over(&units[*side], symbol))
                .collect();
        })?;
        for ((side, symbol), column) in names.into_iter().zip(columns) {
            engine.columns[side].insert(symbol, column);
        }
        let columns = &engine.columns;
        let projections = &mut engine.projections;
        run_pool(threads, || {
            projections
                .par_iter_mut()
                .zip(used)
                .filter(|(_, used)| *used)
                .for_each(|(p, _)| {
                    let t = std::time::Instant::now();
                    p.assign_all(&units[p.side], &columns[p.side]);
                    if trace && t.elapsed().as_millis() > 5 {
                        eprintln!(
                            "    projection side {} {:?}: {} groups, {:.3} s",
                            p.side,
                            p.symbols.as_ref().map(|v| v
                                .iter()
                                .map(|s| s.text().into_owned())
                                .collect::<Vec<_>>()),
                            p.reps.len(),
                            t.elapsed().as_secs_f64()
                        );
                    }
                });
        })?;
        if trace {
            eprintln!("  groups {:.3} s", t0.elapsed().as_secs_f64());
        }
        for side in [JOB, SLOT] {
            let preds = std::mem::take(&mut preds_of[side]);
            for (u, (reqs, values)) in preds.into_iter().enumerate() {
                let info = engine.unit_info(side, u as u32, &reqs, &values);
                engine.info[side].push(info);
            }
        }
        if trace {
            eprintln!("  instances {:.3} s", t0.elapsed().as_secs_f64());
            let mut cost: HashMap<u32, (usize, usize)> = HashMap::default();
            for inst in &engine.instances {
                let p = &engine.preds[inst.pred as usize];
                let e = cost.entry(inst.pred).or_default();
                e.0 += 1;
                e.1 += engine.projections[p.target as usize].reps.len();
            }
            let mut list: Vec<_> = cost.into_iter().collect();
            list.sort_by_key(|x| std::cmp::Reverse(x.1.1));
            for (p, (n, total)) in list.iter().take(8) {
                eprintln!(
                    "    cost {total} ({n} instances): {}",
                    engine.preds[*p as usize].text
                );
            }
        }
        Ok(engine)
    }

    fn value_preds(&mut self, side: usize, unit: usize) -> Vec<u32> {
        if side == SLOT {
            return self.policy.iter().flatten().copied().collect();
        }
        let ad = self.units[side][unit].clone();
        if ad.body.shadows_special_names() {
            return vec![self.rank_fallback()];
        }
        static RANK: std::sync::LazyLock<Symbol> = std::sync::LazyLock::new(|| Symbol::new("rank"));
        let Some(attribute) = ad.body.slot(&RANK).map(|k| ad.body.attribute(k)) else {
            return vec![self.rank_fallback()];
        };
        // The job's own Rank expression, so that its groups are over the
        // names it reads, not over every job's Rank.
        let key = (usize::MAX, Arc::as_ptr(&attribute.program) as usize);
        let items = match self.items_memo.get(&key) {
            Some(items) => items.clone(),
            None => {
                let source = attribute.source.clone();
                let text = format!("{}\u{0}rank", classad::syntax::unparse(&source));
                let p = match self.pred_index.get(&(side, text.clone())) {
                    Some(&p) => Some(p),
                    None => classad::compile(&source).ok().map(|program| {
                        let mut start = Refs::default();
                        refs::collect(&source, &self.registry, self.strict, &mut start);
                        let p =
                            self.make_pred(side, text, PredKind::Clause(Arc::new(program)), &start);
                        self.preds[p as usize].rank = true;
                        self.preds[p as usize].text = classad::syntax::unparse(&source);
                        p
                    }),
                };
                let items: Option<Arc<[Item]>> = p
                    .filter(|&p| !self.reads_own(p, "rank"))
                    .map(|p| vec![Item::Pred(p)].into());
                self.items_memo.insert(key, items.clone());
                items
            }
        };
        match items.as_deref() {
            Some([Item::Pred(p)]) => vec![*p],
            _ => vec![self.rank_fallback()],
        }
    }

    fn unit_info(&mut self, side: usize, unit: u32, reqs: &[u32], values: &[u32]) -> UnitInfo {
        let mut info = UnitInfo::default();
        for (list, preds) in [(&mut info.requirements, reqs), (&mut info.values, values)] {
            for &p in preds {
                let own = self.preds[p as usize].own;
                let g = self.projections[own as usize].group(
                    unit,
                    &self.units[side][unit as usize],
                    &mut self.columns[side],
                );
                let next = self.instances.len() as u32;
                let i = *self.instance_index.entry((p, g)).or_insert(next);
                if i == next {
                    let target = self.preds[p as usize].target as usize;
                    let groups = self.projections[target].reps.len();
                    self.instances.push(Instance {
                        pred: p,
                        rep: unit,
                        values: if self.preds[p as usize].rank || self.policy.contains(&Some(p)) {
                            Values::Number(vec![None; groups])
                        } else {
                            Values::Truth(vec![0; groups])
                        },
                        operand: None,
                        deferred: false,
                        exhausted: 0,
                    });
                }
                list.push(i);
            }
        }
        // The autocluster: the instances, and the groups of every
        // projection the other side reads this one through.
        let mut key: Vec<u32> = Vec::with_capacity(
            info.requirements.len() + info.values.len() + 2 + self.read_through[side].len(),
        );
        key.extend(&info.requirements);
        key.push(NONE);
        key.extend(&info.values);
        key.push(NONE);
        let through: Vec<u32> = self.read_through[side].iter().copied().collect();
        for p in through {
            key.push(self.projections[p as usize].group(
                unit,
                &self.units[side][unit as usize],
                &mut self.columns[side],
            ));
        }
        let next = self.cluster_reps[side].len() as u32;
        let c = *self.clusters[side].entry(key).or_insert(next);
        if c == next {
            self.cluster_reps[side].push(unit);
        }
        info.cluster = c;
        info
    }

    /// A VM with the engine's scoping rule.
    pub fn vm(&self) -> Vm {
        Vm::new(classad::Options {
            strict: self.strict,
            ..Default::default()
        })
    }

    /// Adds a slot ad carved from unit `parent` and describes it.
    pub fn add_slot(&mut self, ad: AdRef, parent: u32) -> u32 {
        let unit = self.units[SLOT].len() as u32;
        self.units[SLOT].push(ad);
        // Carving changes `Cpus`, `Memory` and `Disk` only: in projections
        // without them the carved slot is in its parent's group.
        for p in &mut self.projections {
            if p.side == SLOT && !p.reads_carved {
                let g = p.group_of.get(parent as usize).copied().unwrap_or(NONE);
                if g != NONE {
                    if p.group_of.len() <= unit as usize {
                        p.group_of.resize(unit as usize + 1, NONE);
                    }
                    p.group_of[unit as usize] = g;
                }
            }
        }
        let reqs = self.requirement_preds(SLOT, unit as usize);
        let values = self.value_preds(SLOT, unit as usize);
        if reqs
            .iter()
            .chain(&values)
            .any(|p| !self.used_preds.contains(p))
        {
            self.clusters_inexact = true;
        }
        let info = self.unit_info(SLOT, unit, &reqs, &values);
        self.info[SLOT].push(info);
        unit
    }

    // ----- references -----

    fn refs_of_attribute(&mut self, attribute: &Attribute) -> Arc<Refs> {
        if attribute
            .program
            .as_constant()
            .is_some_and(|v| !matches!(v, Value::List(_) | Value::LazyList(_) | Value::Ad(_)))
        {
            return Arc::new(Refs::default());
        }
        let key = Arc::as_ptr(&attribute.program) as usize;
        if let Some(r) = self.refs_memo.get(&key) {
            return r.clone();
        }
        let mut r = Refs::default();
        refs::collect(&attribute.source, &self.registry, self.strict, &mut r);
        let r = Arc::new(r);
        self.refs_memo.insert(key, r.clone());
        r
    }

    /// What the attribute `name` can read, over every ad of `side`.
    fn edges(&mut self, side: usize, name: &str) -> Arc<Refs> {
        if let Some(e) = self.edges[side].get(name) {
            return e.clone();
        }
        let symbol = Symbol::new(name);
        let mut own = BTreeSet::new();
        let mut target = BTreeSet::new();
        let mut opaque = false;
        let mut symmetric = false;
        let mut seen = ahash::AHashSet::new();
        for u in 0..self.units[side].len() {
            let ad = self.units[side][u].clone();
            if ad.body.shadows_special_names() {
                opaque = true;
                break;
            }
            let Some(slot) = ad.body.slot(&symbol) else {
                continue;
            };
            let attribute = ad.body.attribute(slot);
            // Most attributes are scalar constants with a program each:
            // they read nothing, and skipping them early keeps this walk
            // (one per name, over every ad) cheap.
            if attribute
                .program
                .as_constant()
                .is_some_and(|v| !matches!(v, Value::List(_) | Value::LazyList(_) | Value::Ad(_)))
            {
                continue;
            }
            if !seen.insert(Arc::as_ptr(&attribute.program) as usize) {
                continue;
            }
            let r = self.refs_of_attribute(attribute);
            opaque |= r.opaque;
            symmetric |= r.symmetric;
            own.extend(r.own.iter().cloned());
            target.extend(r.target.iter().cloned());
            if opaque {
                break;
            }
        }
        let e = Arc::new(Refs {
            own: own.into_iter().collect(),
            target: target.into_iter().collect(),
            opaque,
            symmetric,
        });
        self.edges[side].insert(name.to_string(), e.clone());
        e
    }

    /// The projections (own side, other side) of an expression evaluated on
    /// `side`, closed over every attribute reachable on either side.
    fn closure(&mut self, side: usize, start: &Refs) -> [Names; 2] {
        let mut sets: [BTreeSet<String>; 2] = [BTreeSet::new(), BTreeSet::new()];
        let mut all = [false, false];
        let mut queue: Vec<(usize, String)> = Vec::new();
        // Symmetric (a `countMatches` on the way): every name on both sides.
        let mut symmetric = start.symmetric;
        let add = |s: usize,
                   n: &str,
                   symmetric: bool,
                   sets: &mut [BTreeSet<String>; 2],
                   q: &mut Vec<(usize, String)>| {
            for s in [s, 1 - s].into_iter().take(1 + usize::from(symmetric)) {
                if sets[s].insert(n.to_string()) {
                    q.push((s, n.to_string()));
                }
            }
        };
        if start.opaque {
            all = [true, true];
        }
        for n in &start.own {
            add(side, n, symmetric, &mut sets, &mut queue);
        }
        for n in &start.target {
            add(1 - side, n, symmetric, &mut sets, &mut queue);
        }
        while let Some((s, n)) = queue.pop() {
            if all[0] && all[1] {
                break;
            }
            let e = self.edges(s, &n);
            if e.opaque {
                all = [true, true];
            }
            if e.symmetric && !symmetric {
                symmetric = true;
                // The names found so far, mirrored.
                for s in [0, 1] {
                    let names: Vec<String> = sets[s].iter().cloned().collect();
                    for m in names {
                        add(1 - s, &m, false, &mut sets, &mut queue);
                    }
                }
            }
            for m in &e.own {
                add(s, m, symmetric, &mut sets, &mut queue);
            }
            for m in &e.target {
                add(1 - s, m, symmetric, &mut sets, &mut queue);
            }
        }
        let names = |i: usize, sets: &mut [BTreeSet<String>; 2]| {
            if all[i] {
                Names::All
            } else {
                Names::Some(std::mem::take(&mut sets[i]).into_iter().collect())
            }
        };
        let own = names(side, &mut sets);
        let other = names(1 - side, &mut sets);
        [own, other]
    }

    fn projection(&mut self, side: usize, names: Names) -> u32 {
        if let Some(&p) = self.projection_index.get(&(side, names.clone())) {
            return p;
        }
        let id = self.projections.len() as u32;
        let symbols = match &names {
            Names::Some(list) => Some(list.iter().map(Symbol::new).collect()),
            Names::All => None,
        };
        let reads_carved = symbols.as_ref().is_none_or(|list: &Vec<Symbol>| {
            list.iter()
                .any(|s| matches!(&*s.text(), "cpus" | "memory" | "disk"))
        });
        self.projections.push(Projection {
            side,
            reads_carved,
            canon: HashMap::default(),
            texts: HashMap::default(),
            symbols,
            groups: HashMap::default(),
            groups_by_id: HashMap::default(),
            group_of: Vec::new(),
            reps: Vec::new(),
        });
        self.projection_index.insert((side, names), id);
        id
    }

    fn make_pred(&mut self, side: usize, key: String, kind: PredKind, start: &Refs) -> u32 {
        let [own, other] = self.closure(side, start);
        let own = self.projection(side, own);
        let target = self.projection(1 - side, other);
        let id = self.preds.len() as u32;
        self.preds.push(Pred {
            side,
            rank: false,
            kind,
            split: None,
            own,
            target,
            text: key.clone(),
        });
        self.pred_index.insert((side, key), id);
        id
    }

    fn attr_pred(&mut self, side: usize, name: &str) -> u32 {
        let key = format!("{name}\u{0}attr");
        if let Some(&p) = self.pred_index.get(&(side, key.clone())) {
            return p;
        }
        let start = Refs {
            own: vec![name.to_ascii_lowercase()],
            ..Refs::default()
        };
        let id = self.make_pred(side, key, PredKind::Attr(Symbol::new(name)), &start);
        self.preds[id as usize].text = name.to_string();
        id
    }

    fn clause_pred(&mut self, side: usize, expr: &Expr) -> Option<u32> {
        self.clause_pred_keyed(side, expr, "")
    }

    /// A clause predicate; `reading` keeps predicates of the same text
    /// apart when their values are read differently (policy ranks).
    fn clause_pred_keyed(&mut self, side: usize, expr: &Expr, reading: &str) -> Option<u32> {
        let key = format!("{}{reading}", classad::syntax::unparse(expr));
        if let Some(&p) = self.pred_index.get(&(side, key.clone())) {
            return Some(p);
        }
        let program = classad::compile(expr).ok()?;
        let mut start = Refs::default();
        refs::collect(expr, &self.registry, self.strict, &mut start);
        let split = refs::target_comparison(expr, &self.registry, self.strict).and_then(
            |(op, operand, target_expr, names, target_left)| {
                let target = match refs::plain_target_name(target_expr) {
                    Some(name) => TargetOperand::Name(Symbol::new(&name)),
                    None => TargetOperand::Expr(
                        Arc::new(classad::compile(target_expr).ok()?),
                        names.iter().map(Symbol::new).collect(),
                    ),
                };
                Some(Split {
                    op,
                    program: Arc::new(classad::compile(operand).ok()?),
                    operand: Arc::new(operand.clone()),
                    target,
                    target_left,
                })
            },
        );
        let id = self.make_pred(side, key, PredKind::Clause(Arc::new(program)), &start);
        self.preds[id as usize].split = split;
        Some(id)
    }

    /// Whether predicate `p` can read the attribute `name` of its own ad.
    fn reads_own(&self, p: u32, name: &str) -> bool {
        let pred = &self.preds[p as usize];
        match &self.projections[pred.own as usize].symbols {
            None => true,
            Some(symbols) => symbols.iter().any(|s| s.text() == name),
        }
    }

    /// The conjuncts of attribute `name` whose compiled program is
    /// `attribute`, or None when it should be evaluated whole (a single
    /// clause, or one that can reach the attribute itself again, where the
    /// circular-reference rule would see a difference).
    fn items(&mut self, side: usize, name: &Symbol, attribute: &Attribute) -> Option<Arc<[Item]>> {
        let key = (side, Arc::as_ptr(&attribute.program) as usize);
        if let Some(items) = self.items_memo.get(&key) {
            return items.clone();
        }
        let source = attribute.source.clone();
        let parts = refs::conjuncts(&source);
        let mut items = Vec::with_capacity(parts.len());
        let mut ok = true;
        for part in &parts {
            if !ok {
                break;
            }
            let Some(p) = self.clause_pred(side, part) else {
                ok = false;
                break;
            };
            if self.reads_own(p, &name.text()) {
                ok = false;
                break;
            }
            match refs::own_reference(part) {
                Some((n, _)) => items.push(Item::Flat(Symbol::new(&n), p)),
                None => items.push(Item::Pred(p)),
            }
        }
        let result: Option<Arc<[Item]>> = ok.then(|| items.into());
        self.items_memo.insert(key, result.clone());
        result
    }

    fn requirement_preds(&mut self, side: usize, unit: usize) -> Vec<u32> {
        let ad = self.units[side][unit].clone();
        let mut out = Vec::new();
        if ad.body.shadows_special_names() {
            out.push(self.root(side));
            return out;
        }
        let requirements = self.requirements.clone();
        // NONE stands for the whole-Requirements predicate, made only when
        // some ad needs it (its closure reaches every name).
        self.flatten(side, &ad, &requirements, NONE, 0, &mut out);
        if out.contains(&NONE) {
            let root = self.root(side);
            for p in &mut out {
                if *p == NONE {
                    *p = root;
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The predicate of a side's whole `Requirements`, evaluated as an
    /// attribute.
    fn root(&mut self, side: usize) -> u32 {
        match self.root_pred[side] {
            Some(p) => p,
            None => {
                let p = self.attr_pred(side, "requirements");
                self.root_pred[side] = Some(p);
                p
            }
        }
    }

    /// The predicate of a job's whole `Rank`, evaluated as an attribute.
    fn rank_fallback(&mut self) -> u32 {
        match self.rank_pred {
            Some(p) => p,
            None => {
                let p = self.attr_pred(JOB, "rank");
                self.preds[p as usize].rank = true;
                self.rank_pred = Some(p);
                p
            }
        }
    }

    fn flatten(
        &mut self,
        side: usize,
        ad: &AdRef,
        name: &Symbol,
        fallback: u32,
        depth: u32,
        out: &mut Vec<u32>,
    ) {
        let Some(slot) = ad.body.slot(name) else {
            out.push(fallback);
            return;
        };
        if depth > 8 {
            out.push(fallback);
            return;
        }
        let attribute = ad.body.attribute(slot).clone();
        match self.items(side, name, &attribute) {
            None => out.push(fallback),
            Some(items) => {
                for item in items.iter() {
                    match item {
                        Item::Pred(p) => out.push(*p),
                        Item::Flat(n, p) => self.flatten(side, ad, n, *p, depth + 1, out),
                    }
                }
            }
        }
    }

    // ----- evaluation -----

    fn evaluate_pred(&self, vm: &mut Vm, p: u32, my: &AdRef, target: &AdRef) -> Value {
        match &self.preds[p as usize].kind {
            PredKind::Attr(symbol) => vm.evaluate_attribute(my, symbol, Some(target)),
            PredKind::Clause(program) => vm.evaluate_in_match(program, my, target),
        }
    }

    fn number(&self, p: u32, value: &Value) -> f64 {
        if self.preds[p as usize].rank {
            rank_number(value)
        } else if self.policy.contains(&Some(p)) {
            policy_number(value)
        } else {
            f64::from(u8::from(truthy(value)))
        }
    }

    /// Computes every instance's value for every group known now, in
    /// parallel.
    pub fn evaluate_all(&mut self, threads: usize) -> Result<(), String> {
        let mut instances = std::mem::take(&mut self.instances);
        let result = {
            let this = &*self;
            run_pool(threads, || {
                // `TARGET.name` of each split predicate, per TARGET group,
                // where it reads nothing but its own ad.
                let sides: Vec<(u32, Vec<Option<Value>>)> = (0..this.preds.len() as u32)
                    .into_par_iter()
                    .filter(|&p| this.preds[p as usize].split.is_some())
                    .map_init(|| this.vm(), |vm, p| (p, this.target_operands(vm, p)))
                    .collect();
                let sides: HashMap<u32, Vec<Option<Value>>> = sides.into_iter().collect();
                let numbers: HashMap<u32, Vec<Num>> = sides
                    .iter()
                    .map(|(&p, list)| (p, list.iter().map(Num::of_option).collect()))
                    .collect();
                instances.par_iter_mut().for_each_init(
                    || this.vm(),
                    |vm, inst| {
                        let pred = &this.preds[inst.pred as usize];
                        let my = &this.units[pred.side][inst.rep as usize];
                        let target = &this.projections[pred.target as usize];
                        inst.values.grow(target.reps.len());
                        // A job clause that only the VM can answer, over many
                        // slot groups (`!stringListMember(TARGET.Machine, ..)`):
                        // most slots are rejected by cheaper clauses first.
                        if pred.side == JOB
                            && pred.split.is_none()
                            && matches!(inst.values, Values::Truth(_))
                            && !target.reads_carved
                            && target.reps.len() > DEFER_GROUPS
                        {
                            inst.deferred = true;
                            return;
                        }
                        let split = pred.split.as_ref().and_then(|split| {
                            let operand = this.own_operand(vm, split, my, target)?;
                            Some((split, operand, sides.get(&inst.pred)?))
                        });
                        // A comparison of numbers, the most common clause
                        // (`TARGET.Memory >= RequestMemory`): one tight loop
                        // over the other side's values.
                        if let Some((split, operand, _)) = &split
                            && let Values::Truth(values) = &mut inst.values
                            && let Some(numbers) = numbers.get(&inst.pred)
                        {
                            let own = Num::of(operand);
                            for (value, &other) in values.iter_mut().zip(numbers) {
                                let (left, right) = if split.target_left {
                                    (other, own)
                                } else {
                                    (own, other)
                                };
                                if *value == 0
                                    && let Some(b) = compare_numbers(split.op, left, right)
                                {
                                    *value = 1 + u8::from(b);
                                }
                            }
                        }
                        if let Values::Truth(values) = &inst.values
                            && !values.contains(&0)
                        {
                            return;
                        }
                        for g in 0..inst.values.len() {
                            if inst.values.get(g).is_some() {
                                continue;
                            }
                            if let Some((split, operand, sides)) = &split
                                && let Some(Some(other)) = sides.get(g)
                            {
                                let v = if split.target_left {
                                    apply(split.op, other, operand)
                                } else {
                                    apply(split.op, operand, other)
                                };
                                inst.values.set(g, this.number(inst.pred, &v));
                                continue;
                            }
                            if given_up(this.give_up_after_exhausted, inst.exhausted) {
                                inst.values.set(g, this.number(inst.pred, &Value::Error));
                                continue;
                            }
                            let other = &this.units[1 - pred.side][target.reps[g] as usize];
                            let v = this.evaluate_pred(vm, inst.pred, my, other);
                            inst.exhausted =
                                inst.exhausted.saturating_add(u8::from(vm.exhausted()));
                            inst.values.set(g, this.number(inst.pred, &v));
                        }
                    },
                );
            })
        };
        self.instances = instances;
        result
    }

    /// The operand of a split predicate in `my`, if it reads only `my` and
    /// is a scalar.
    fn own_operand(
        &self,
        vm: &mut Vm,
        split: &Split,
        my: &AdRef,
        target: &Projection,
    ) -> Option<Value> {
        // In an ad that defines `target`, `TARGET.x` is not the other ad's.
        if my.body.shadows_special_names() {
            return None;
        }
        if !refs::self_contained(
            my,
            &split.operand,
            &self.registry,
            self.strict,
            &mut Vec::new(),
        ) {
            return None;
        }
        let any = &self.units[1 - target.side_of_my()][*target.reps.first()? as usize];
        scalar(vm.evaluate_in_match(&split.program, my, any))
    }

    /// `TARGET.name` of split predicate `p` per TARGET group (None where it
    /// reads more than its own ad, or is not a scalar).
    fn target_operands(&self, vm: &mut Vm, p: u32) -> Vec<Option<Value>> {
        let pred = &self.preds[p as usize];
        let Some(split) = &pred.split else {
            return Vec::new();
        };
        let target = &self.projections[pred.target as usize];
        let my_side = &self.units[pred.side];
        let Some(any_my) = my_side.iter().find(|a| !a.body.shadows_special_names()) else {
            return vec![None; target.reps.len()];
        };
        target
            .reps
            .iter()
            .map(|&u| self.target_value(vm, split, &self.units[1 - pred.side][u as usize], any_my))
            .collect()
    }

    /// The TARGET operand of a split clause in `ad` (the other side's ad
    /// of a match with `my`, which does not redefine `target`), when it
    /// reads nothing but `ad` and is a scalar.
    fn target_value(&self, vm: &mut Vm, split: &Split, ad: &AdRef, my: &AdRef) -> Option<Value> {
        // The attribute reads only its own ad (a literal reads nothing:
        // most of these, `Memory`); absent, `TARGET.name` is UNDEFINED.
        let contained = |name: &Symbol| match ad.body.slot(name) {
            None => true,
            Some(slot) if scalar_constant(ad, slot).is_some() => true,
            Some(slot) => {
                let source = ad.body.attribute(slot).source.clone();
                refs::self_contained(
                    ad,
                    &source,
                    &self.registry,
                    self.strict,
                    &mut vec![name.text().to_string()],
                )
            }
        };
        match &split.target {
            TargetOperand::Name(name) => match ad.body.slot(name) {
                None => Some(Value::Undefined),
                Some(slot) if let Some(value) = scalar_constant(ad, slot) => Some(value),
                Some(_) if contained(name) => scalar(vm.evaluate_attribute(ad, name, Some(my))),
                Some(_) => None,
            },
            TargetOperand::Expr(program, names) => {
                if names.iter().all(contained) {
                    scalar(vm.evaluate_in_match(program, my, ad))
                } else {
                    None
                }
            }
        }
    }

    /// The value of instance `i` against unit `unit` of the other side,
    /// computed now if needed.
    pub fn value(&mut self, vm: &mut Vm, i: u32, unit: u32) -> f64 {
        let inst = &self.instances[i as usize];
        let pred = inst.pred;
        let (side, target) = {
            let p = &self.preds[pred as usize];
            (p.side, p.target)
        };
        let g = self.projections[target as usize].group(
            unit,
            &self.units[1 - side][unit as usize],
            &mut self.columns[1 - side],
        ) as usize;
        let inst = &mut self.instances[i as usize];
        if let Some(v) = inst.values.get(g) {
            return v;
        }
        let rep = inst.rep;
        let target_rep = self.projections[target as usize].reps[g];
        let my = self.units[side][rep as usize].clone();
        let other = self.units[1 - side][target_rep as usize].clone();
        if let Some(v) = self.split_value(vm, i, g as u32, &my, &other) {
            let n = self.number(pred, &v);
            self.instances[i as usize].values.set(g, n);
            return n;
        }
        let v = if given_up(
            self.give_up_after_exhausted,
            self.instances[i as usize].exhausted,
        ) {
            Value::Error
        } else {
            let v = self.evaluate_pred(vm, pred, &my, &other);
            let inst = &mut self.instances[i as usize];
            inst.exhausted = inst.exhausted.saturating_add(u8::from(vm.exhausted()));
            v
        };
        let n = self.number(pred, &v);
        self.instances[i as usize].values.set(g, n);
        n
    }

    /// A split predicate's value for instance `i` and TARGET group `g`
    /// (whose representative is `other`), by the operator alone.
    fn split_value(
        &mut self,
        vm: &mut Vm,
        i: u32,
        g: u32,
        my: &AdRef,
        other: &AdRef,
    ) -> Option<Value> {
        let p = self.instances[i as usize].pred;
        let pred = &self.preds[p as usize];
        let split = pred.split.as_ref()?;
        if my.body.shadows_special_names() {
            return None;
        }
        let operand = match &self.instances[i as usize].operand {
            Some(o) => o.clone(),
            None => {
                let o = refs::self_contained(
                    my,
                    &split.operand,
                    &self.registry,
                    self.strict,
                    &mut Vec::new(),
                )
                .then(|| scalar(vm.evaluate_in_match(&split.program, my, other)))
                .flatten();
                self.instances[i as usize].operand = Some(o.clone());
                o
            }
        }?;
        let theirs = match self.target_operands.get(&(p, g)) {
            Some(t) => t.clone(),
            None => {
                let t = self.target_value(vm, split, other, my);
                self.target_operands.insert((p, g), t.clone());
                t
            }
        }?;
        let split = self.preds[p as usize].split.as_ref()?;
        Some(if split.target_left {
            apply(split.op, &theirs, &operand)
        } else {
            apply(split.op, &operand, &theirs)
        })
    }

    /// The value of instance `i` against the other side's unit, from the
    /// values computed so far (for the parallel phase; None if missing).
    pub fn cached_value(&self, i: u32, unit: u32) -> Option<f64> {
        let inst = &self.instances[i as usize];
        let p = &self.preds[inst.pred as usize];
        let g = *self.projections[p.target as usize]
            .group_of
            .get(unit as usize)?;
        if g == NONE {
            return None;
        }
        inst.values.get(g as usize)
    }

    /// Whether job unit `j` and slot unit `s` match, and their rank tuple.
    pub fn pair(&mut self, vm: &mut Vm, j: u32, s: u32) -> Option<RankTuple> {
        self.pair_checking(vm, j, s, false)
    }

    /// As [`Engine::pair`]; with `carved_only`, the instances carving
    /// cannot change are taken as true (the caller knows they are).
    pub fn pair_checking(
        &mut self,
        vm: &mut Vm,
        j: u32,
        s: u32,
        carved_only: bool,
    ) -> Option<RankTuple> {
        for k in 0..self.info[JOB][j as usize].requirements.len() {
            let i = self.info[JOB][j as usize].requirements[k];
            if carved_only && !self.reads_carved(i) {
                continue;
            }
            if self.value(vm, i, s) == 0.0 {
                return None;
            }
        }
        for k in 0..self.info[SLOT][s as usize].requirements.len() {
            let i = self.info[SLOT][s as usize].requirements[k];
            if carved_only && !self.reads_carved(i) {
                continue;
            }
            if self.value(vm, i, j) == 0.0 {
                return None;
            }
        }
        Some(self.ranks(vm, j, s))
    }

    /// Whether a negotiator policy rank is set.
    pub fn has_policy(&self) -> bool {
        self.policy.iter().any(Option::is_some)
    }

    /// Whether a policy rank can read what carving changes.
    pub fn policy_reads_carved(&self) -> bool {
        self.policy.iter().flatten().any(|&p| {
            let pred = &self.preds[p as usize];
            self.projections[pred.own as usize].reads_carved
        })
    }

    /// The instance of job unit `j`'s Rank (None: no Rank, which ranks 0).
    pub fn rank_instance(&self, j: u32) -> Option<u32> {
        self.info[JOB][j as usize].values.first().copied()
    }

    /// Whether instance `i` can read a slot's `Cpus`, `Memory` or `Disk`,
    /// the attributes carving changes.
    pub fn reads_carved(&self, i: u32) -> bool {
        let pred = &self.preds[self.instances[i as usize].pred as usize];
        let projection = if pred.side == SLOT {
            pred.own
        } else {
            pred.target
        };
        self.projections[projection as usize].reads_carved
    }

    /// The rank tuple of a job unit and a slot unit.
    pub fn ranks(&mut self, vm: &mut Vm, j: u32, s: u32) -> RankTuple {
        let rank = match self.info[JOB][j as usize].values.first() {
            Some(&i) => self.value(vm, i, s),
            None => 0.0,
        };
        let mut policy = [LOWEST_POLICY_RANK; 2];
        let mut k = 0;
        let present = self.policy.map(|p| p.is_some());
        for (which, p) in present.into_iter().enumerate() {
            if p {
                let i = self.info[SLOT][s as usize].values[k];
                policy[which] = self.value(vm, i, j);
                k += 1;
            }
        }
        (policy[0], rank, policy[1])
    }

    /// The rank tuple from cached values (parallel phase).
    pub fn cached_ranks(&self, j: u32, s: u32) -> Option<RankTuple> {
        let job_values = &self.info[JOB][j as usize].values;
        let slot_values = &self.info[SLOT][s as usize].values;
        let rank = match job_values.first() {
            Some(&i) => self.cached_value(i, s)?,
            None => 0.0,
        };
        let mut policy = [LOWEST_POLICY_RANK; 2];
        let mut k = 0;
        for (which, p) in self.policy.iter().enumerate() {
            if p.is_some() {
                policy[which] = self.cached_value(slot_values[k], j)?;
                k += 1;
            }
        }
        Some((policy[0], rank, policy[1]))
    }

    /// The match matrix between job autoclusters and slot autoclusters:
    /// per job cluster, a bitset over slot clusters.
    ///
    /// With `invariant`, also the matrix of the instances that carving
    /// cannot change: a pair it rejects stays rejected after any carving.
    /// Both come from one bitset per instance over the other side's
    /// clusters.
    #[allow(clippy::type_complexity)]
    pub fn matrices(
        &self,
        threads: usize,
        invariant: bool,
    ) -> Result<(Vec<Vec<u64>>, Option<Vec<Vec<u64>>>), String> {
        let nj = self.cluster_reps[JOB].len();
        let ns = self.cluster_reps[SLOT].len();
        let mut out = (Vec::new(), None);
        run_pool(threads, || {
            let mut used: [BTreeSet<u32>; 2] = [BTreeSet::new(), BTreeSet::new()];
            for side in [JOB, SLOT] {
                for &u in &self.cluster_reps[side] {
                    used[side].extend(&self.info[side][u as usize].requirements);
                }
            }
            // The group of each cluster of the other side, per projection an
            // instance is read through: a bitset is then one lookup per
            // cluster.
            let mut targets: BTreeSet<(usize, u32)> = BTreeSet::new();
            for side in [JOB, SLOT] {
                for &i in &used[side] {
                    let pred = &self.preds[self.instances[i as usize].pred as usize];
                    targets.insert((1 - side, pred.target));
                }
            }
            let targets: Vec<(usize, u32)> = targets.into_iter().collect();
            let group_lists: Vec<Vec<u32>> = targets
                .par_iter()
                .map(|&(other, t)| {
                    let group_of = &self.projections[t as usize].group_of;
                    self.cluster_reps[other]
                        .iter()
                        .map(|&u| group_of.get(u as usize).copied().unwrap_or(NONE))
                        .collect()
                })
                .collect();
            let group_lists: HashMap<u32, &Vec<u32>> =
                targets.iter().map(|&(_, t)| t).zip(&group_lists).collect();
            let bits = |i: u32| -> Vec<u64> {
                let inst = &self.instances[i as usize];
                let groups = group_lists[&self.preds[inst.pred as usize].target];
                let mut b = vec![0u64; groups.len().div_ceil(64)];
                match &inst.values {
                    Values::Truth(v) => {
                        for (c, &g) in groups.iter().enumerate() {
                            if v.get(g as usize) == Some(&2) {
                                b[c / 64] |= 1 << (c % 64);
                            }
                        }
                    }
                    values => {
                        for (c, &g) in groups.iter().enumerate() {
                            if g != NONE && values.get(g as usize).unwrap_or(0.0) != 0.0 {
                                b[c / 64] |= 1 << (c % 64);
                            }
                        }
                    }
                }
                b
            };
            let deferred = |i: &u32| self.instances[*i as usize].deferred;
            // What deferred instances gave so far, shared by the job clusters
            // that have them (0 not yet known, 1 false, 2 true).
            let answers: HashMap<u32, Vec<AtomicU8>> = used[JOB]
                .iter()
                .filter(|i| deferred(i))
                .map(|&i| {
                    let pred = &self.preds[self.instances[i as usize].pred as usize];
                    let n = self.projections[pred.target as usize].reps.len();
                    (i, (0..n).map(|_| AtomicU8::new(0)).collect())
                })
                .collect();
            let tables: [HashMap<u32, Vec<u64>>; 2] = [JOB, SLOT].map(|side| {
                let list: Vec<u32> = used[side]
                    .iter()
                    .copied()
                    .filter(|i| !deferred(i))
                    .collect();
                let pairs: Vec<(u32, Vec<u64>)> = list.par_iter().map(|&i| (i, bits(i))).collect();
                pairs.into_iter().collect()
            });
            // `known`: the rows of the invariant matrix, whose deferred
            // clauses were evaluated on a superset of this one's survivors.
            let build = |invariant: bool, known: Option<&Vec<Vec<u64>>>| -> Vec<Vec<u64>> {
                let counts = |i: &&u32| !deferred(i) && (!invariant || !self.reads_carved(**i));
                // The other side's clusters that every counted clause of
                // `side`'s cluster `c` accepts, `others` bits.
                let accepted = |side: usize, c: usize, others: usize| {
                    let u = self.cluster_reps[side][c];
                    let mut acc = vec![!0u64; others.div_ceil(64)];
                    for i in self.info[side][u as usize]
                        .requirements
                        .iter()
                        .filter(counts)
                    {
                        for (a, b) in acc.iter_mut().zip(&tables[side][i]) {
                            *a &= b;
                        }
                    }
                    acc
                };
                // Slot side, transposed: per slot cluster, the job clusters
                // it accepts.
                let slot_accepts: Vec<Vec<u64>> = (0..ns)
                    .into_par_iter()
                    .map(|c| accepted(SLOT, c, nj))
                    .collect();
                (0..nj)
                    .into_par_iter()
                    .map_init(
                        || self.vm(),
                        |vm, c| {
                            let u = self.cluster_reps[JOB][c];
                            let mut acc = accepted(JOB, c, ns);
                            for (w, word) in acc.iter_mut().enumerate() {
                                let mut bits = *word;
                                while bits != 0 {
                                    let k = bits.trailing_zeros() as usize;
                                    bits &= bits - 1;
                                    let s = w * 64 + k;
                                    if s >= ns || slot_accepts[s][c / 64] & (1 << (c % 64)) == 0 {
                                        *word &= !(1 << k);
                                    }
                                }
                            }
                            if let Some(known) = known {
                                for (a, b) in acc.iter_mut().zip(&known[c]) {
                                    *a &= b;
                                }
                            } else {
                                for &i in self.info[JOB][u as usize].requirements.iter() {
                                    if deferred(&i) {
                                        let target = self.preds
                                            [self.instances[i as usize].pred as usize]
                                            .target;
                                        self.filter_deferred(
                                            vm,
                                            i,
                                            &mut acc,
                                            group_lists[&target],
                                            &answers[&i],
                                        );
                                    }
                                }
                            }
                            acc
                        },
                    )
                    .collect()
            };
            out = if invariant {
                let rows = build(true, None);
                (build(false, Some(&rows)), Some(rows))
            } else {
                (build(false, None), None)
            };
        })?;
        Ok(out)
    }

    /// Clears the bits of `row` (over slot clusters, whose groups in the
    /// instance's TARGET projection are `groups`) where deferred job
    /// instance `i` is not true.
    fn filter_deferred(
        &self,
        vm: &mut Vm,
        i: u32,
        row: &mut [u64],
        groups: &[u32],
        known: &[AtomicU8],
    ) {
        let inst = &self.instances[i as usize];
        let pred = &self.preds[inst.pred as usize];
        let target = &self.projections[pred.target as usize];
        let my = &self.units[JOB][inst.rep as usize];
        for (w, word) in row.iter_mut().enumerate() {
            let mut bits = *word;
            while bits != 0 {
                let k = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let g = groups[w * 64 + k];
                let ok = match known.get(g as usize).map(|a| a.load(Relaxed)) {
                    None => false,
                    Some(v) if v != 0 => v == 2,
                    Some(_) => {
                        let other = &self.units[SLOT][target.reps[g as usize] as usize];
                        let v = self.evaluate_pred(vm, inst.pred, my, other);
                        let ok = self.number(inst.pred, &v) != 0.0;
                        known[g as usize].store(1 + u8::from(ok), Relaxed);
                        ok
                    }
                };
                if !ok {
                    *word &= !(1 << k);
                }
            }
        }
    }

    /// Number of predicates and instances, and groups over all projections.
    pub fn stats(&self) -> (usize, usize, usize) {
        (
            self.preds.len(),
            self.instances.len(),
            self.projections.iter().map(|p| p.reps.len()).sum(),
        )
    }

    /// A copy of slot `ad` with `Cpus`, `Memory` and `Disk` reduced by the
    /// job's requests (evaluated MY = job, TARGET = slot).
    pub fn carve(vm: &mut Vm, slot: &AdRef, job: &AdRef) -> AdRef {
        static NAMES: std::sync::LazyLock<[(Symbol, Symbol); 3]> = std::sync::LazyLock::new(|| {
            [
                ("Cpus", "RequestCpus"),
                ("Memory", "RequestMemory"),
                ("Disk", "RequestDisk"),
            ]
            .map(|(a, b)| (Symbol::new(a), Symbol::new(b)))
        });
        let mut body = (*slot.body).clone();
        for ((have_sym, want_sym), have) in NAMES.iter().zip(["Cpus", "Memory", "Disk"]) {
            let current = vm.evaluate_attribute(slot, have_sym, Some(job));
            let request = vm.evaluate_attribute(job, want_sym, Some(slot));
            let left = match (current, request) {
                (Value::Int(a), Value::Int(b)) => Value::Int(a.wrapping_sub(b)),
                (Value::Int(a), Value::Bool(b)) => Value::Int(a.wrapping_sub(i64::from(b))),
                (a, b) => match (a.as_number(), b.as_number()) {
                    (Some(x), Some(y)) if !matches!(a, Value::Bool(_)) => Value::Real(x - y),
                    _ => continue,
                },
            };
            let name = match body.slot(have_sym) {
                Some(k) => body.attributes()[k as usize].name().clone(),
                None => classad::syntax::Name::new(have),
            };
            // A literal's definition: no tree or program is made (carving
            // happens once per claim, on the sequential path).
            let Some(definition) = Definition::literal(name, left) else {
                continue;
            };
            body.insert_definition(Arc::new(definition));
        }
        AdValue::top_level(Arc::new(body))
    }
}

/// `left op right` for a comparison, by the operator's rules; numbers
/// compared directly (integers as integers, otherwise as doubles, as
/// HTCondor does), everything else through the VM's operator.
fn apply(op: classad::syntax::BinaryOp, left: &Value, right: &Value) -> Value {
    use classad::syntax::BinaryOp as B;
    use std::cmp::Ordering;
    let ordering = match (left, right) {
        (Value::Int(a), Value::Int(b)) => Some(a.cmp(b)),
        (Value::Int(_) | Value::Real(_), Value::Int(_) | Value::Real(_)) => {
            let (a, b) = (
                left.as_number().unwrap_or(0.0),
                right.as_number().unwrap_or(0.0),
            );
            match op {
                B::Less => return Value::Bool(a < b),
                B::LessEqual => return Value::Bool(a <= b),
                B::Greater => return Value::Bool(a > b),
                B::GreaterEqual => return Value::Bool(a >= b),
                B::Equal => return Value::Bool(a == b),
                B::NotEqual => return Value::Bool(a != b),
                _ => None,
            }
        }
        _ => None,
    };
    match (ordering, op) {
        (Some(o), B::Less) => Value::Bool(o == Ordering::Less),
        (Some(o), B::LessEqual) => Value::Bool(o != Ordering::Greater),
        (Some(o), B::Greater) => Value::Bool(o == Ordering::Greater),
        (Some(o), B::GreaterEqual) => Value::Bool(o != Ordering::Less),
        (Some(o), B::Equal) => Value::Bool(o == Ordering::Equal),
        (Some(o), B::NotEqual) => Value::Bool(o != Ordering::Equal),
        _ => classad::vm::ops::binary(op, left.clone(), right.clone()),
    }
}

/// A number as a comparison reads it.
#[derive(Clone, Copy, Debug)]
enum Num {
    Int(i64),
    Real(f64),
    Other,
}

impl Num {
    fn of(value: &Value) -> Num {
        match *value {
            Value::Int(i) => Num::Int(i),
            Value::Real(r) => Num::Real(r),
            _ => Num::Other,
        }
    }

    fn of_option(value: &Option<Value>) -> Num {
        value.as_ref().map_or(Num::Other, Num::of)
    }

    fn real(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Real(r) => r,
            Num::Other => f64::NAN,
        }
    }
}

/// `left op right` for two numbers and a comparison operator, as [`apply`]
/// has it; None for anything else.
fn compare_numbers(op: classad::syntax::BinaryOp, left: Num, right: Num) -> Option<bool> {
    match (left, right) {
        (Num::Other, _) | (_, Num::Other) => None,
        (Num::Int(a), Num::Int(b)) => compare(op, a, b),
        _ => compare(op, left.real(), right.real()),
    }
}

/// `a op b` for a comparison operator (IEEE rules for reals: NaN is
/// unordered and unequal); None for any other operator.
fn compare<T: PartialOrd>(op: classad::syntax::BinaryOp, a: T, b: T) -> Option<bool> {
    use classad::syntax::BinaryOp as B;
    Some(match op {
        B::Less => a < b,
        B::LessEqual => a <= b,
        B::Greater => a > b,
        B::GreaterEqual => a >= b,
        B::Equal => a == b,
        B::NotEqual => a != b,
        _ => return None,
    })
}

/// The value of the attribute in `slot` of `ad` when it is a literal that
/// is not a list or an ad.
fn scalar_constant(ad: &AdRef, slot: u32) -> Option<Value> {
    match ad.body.constant(slot)? {
        Value::List(_) | Value::LazyList(_) | Value::Ad(_) => None,
        v => Some(v.clone()),
    }
}

fn scalar(value: Value) -> Option<Value> {
    match value {
        Value::List(_) | Value::LazyList(_) | Value::Ad(_) => None,
        v => Some(v),
    }
}

/// Runs `f` on a rayon pool of `threads` threads (the global pool when
/// `threads` is 0), reporting a worker's panic as an error.
pub(crate) fn run_pool<F: FnOnce() + Send>(threads: usize, f: F) -> Result<(), String> {
    // One pool per thread count, kept: a cycle runs several parallel
    // phases, and starting threads for each costs more than small phases.
    static POOLS: std::sync::LazyLock<
        std::sync::Mutex<std::collections::HashMap<usize, Arc<rayon::ThreadPool>>>,
    > = std::sync::LazyLock::new(Default::default);
    let pool = {
        let mut pools = POOLS.lock().unwrap_or_else(|p| p.into_inner());
        match pools.get(&threads) {
            Some(pool) => pool.clone(),
            None => {
                let pool = Arc::new(
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .map_err(|e| format!("cannot start {threads} threads: {e}"))?,
                );
                pools.insert(threads, pool.clone());
                pool
            }
        }
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pool.install(f)))
        .map_err(|_| "a match worker failed".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use classad::syntax::BinaryOp as B;

    #[test]
    fn fast_comparison_equals_the_vm_operator() {
        let values = [
            Value::Int(3),
            Value::Int(-2),
            Value::Int(i64::MAX),
            Value::Int(i64::MIN),
            Value::Real(3.0),
            Value::Real(-0.0),
            Value::Real(0.0),
            Value::Real(f64::NAN),
            Value::Real(9.223372036854776e18),
            Value::Bool(true),
            Value::Undefined,
            Value::string("a"),
        ];
        for op in [
            B::Less,
            B::LessEqual,
            B::Greater,
            B::GreaterEqual,
            B::Equal,
            B::NotEqual,
            B::Is,
            B::Isnt,
        ] {
            for a in &values {
                for b in &values {
                    let fast = apply(op, a, b);
                    let vm = classad::vm::ops::binary(op, a.clone(), b.clone());
                    assert_eq!(format!("{fast:?}"), format!("{vm:?}"), "{a:?} {op:?} {b:?}");
                    if let Some(x) = compare_numbers(op, Num::of(a), Num::of(b)) {
                        assert_eq!(format!("{:?}", Value::Bool(x)), format!("{vm:?}"));
                    }
                }
            }
        }
    }
}
