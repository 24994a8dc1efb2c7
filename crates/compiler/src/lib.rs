//! The ClassAd compiler: AST to verified stack bytecode.
//!
//! * Constant folding: an operator, list or pure function whose operands
//!   are all constants becomes one constant (`15 * 60` is `900`).
//! * Names are interned as [`Symbol`]s (case-folded, hash computed once)
//!   and pooled per program.
//! * `MY.x` and `TARGET.x` compile to dedicated loads that go straight to
//!   the right ad; any other name is looked up by symbol at run time.
//! * `&&`, `||`, `?:` and elvis compile to the three-valued short-circuit
//!   instructions of [`Instr`], with forward jumps patched once the
//!   target is known.
//! * Calls resolve to the registry's function at compile time; an unknown
//!   function, or a call with the wrong number of arguments, is ERROR, as
//!   HTCondor evaluates it.

use classad_syntax::{AdExpr, BinaryOp, Expr, ExprKind, Literal, Name};
use classad_vm::ad::SymbolHasher;
use classad_vm::bytecode::{LazyCall, PACKED_MASK};
use classad_vm::ops;
use classad_vm::print::{parse_abs_time, parse_rel_time};
use classad_vm::{
    AdBody, AdLayout, Arguments, Attribute, Builtin, Definition, Function, Instr, LazyArg, Pools,
    Program, Registry, Symbol, Value, VerifyError,
};
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
use std::sync::{LazyLock, Mutex};

mod lines;
pub use lines::LineCompiler;

/// Why an expression could not be compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileError {
    /// `absTime("...")` or `relTime("...")` of a literal string that is
    /// not a time: HTCondor's parser refuses the whole expression.
    InvalidTimeLiteral(String),
    /// A call with more arguments than the bytecode can count (65,535).
    /// HTCondor calls it; we refuse it rather than answer ERROR silently.
    TooManyArguments {
        /// The function called.
        function: String,
        /// How many arguments it was given.
        count: usize,
    },
    /// The verifier refused the program (a compiler bug).
    Verify(VerifyError),
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // Control characters escaped: a message is one line.
            CompileError::InvalidTimeLiteral(text) => write!(
                f,
                "`{}` is not a valid time",
                text.chars()
                    .map(|c| if c.is_control() {
                        c.escape_default().to_string()
                    } else {
                        c.to_string()
                    })
                    .collect::<String>()
            ),
            CompileError::TooManyArguments { function, count } => write!(
                f,
                "`{function}` is called with {count} arguments; at most {} are supported",
                u16::MAX
            ),
            CompileError::Verify(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CompileError {}

impl From<VerifyError> for CompileError {
    fn from(e: VerifyError) -> CompileError {
        CompileError::Verify(e)
    }
}
use std::sync::Arc;

/// Compiles expressions against a function registry.
pub struct Compiler<'r> {
    registry: &'r Registry,
    cache: Option<&'r CompileCache>,
}

/// Definitions already compiled, shared between the ads of a pool (and
/// between the threads compiling them): ads that define a name to the same
/// expression hold one [`Definition`], and ads with the same names in the
/// same order (one startd's slots, one submit's jobs) one [`AdLayout`], so
/// an ad costs a pointer per attribute plus its own values, and a match
/// over thousands of ads runs a few hot programs instead of thousands of
/// cold copies. A definition that reads the ad's own attributes is shared
/// only between ads whose layouts give those attributes the same slots
/// (its program loads them by slot).
/// Bounded: it starts over past its capacity ([`CompileCache::CAPACITY`],
/// or [`CompileCache::POOL_CAPACITY`] when made by [`CompileCache::for_pool`]).
pub struct CompileCache {
    capacity: usize,
    /// Whether literal definitions are kept too: worth it for a pool, whose
    /// ads repeat most of their values, not for a cache that lives on.
    literals: bool,
    /// Layouts by their symbols' addresses.
    layouts: Mutex<HashMap<Vec<usize>, Layout>>,
    /// Definitions that are not literals, by a hash of their name,
    /// expression, layout and registry, split in shards so that threads
    /// seldom wait; each is compared in full before it is shared.
    definitions: [Mutex<HashMap<u64, Shared, BuildHasherDefault<SymbolHasher>>>; SHARDS],
    /// The same definitions by what their programs depend on: name,
    /// expression and registry, and the slot the layout gives each name
    /// the expression reads. Layouts that differ elsewhere (a slot ad with
    /// one more attribute after the ones an expression reads) then share
    /// one program: a pool of 20,000 slot ads in 1,080 layouts has 13,400
    /// definitions by layout and 2,900 by slots.
    by_slots: [Mutex<HashMap<u64, BySlots, BuildHasherDefault<SymbolHasher>>>; SHARDS],
    /// Literal definitions (with `literals`), by their name and value,
    /// which are all a literal's definition depends on. Most of a pool's
    /// definitions are literals, most of those its own to one ad, and the
    /// table is freed after reading: its entries are only the pointer
    /// (the hash is made again from the definition when the table grows),
    /// so that it takes a quarter of what a table of [`Shared`] would.
    literal_definitions: [Mutex<hashbrown::HashTable<Arc<Definition>>>; SHARDS],
}

/// A cached definition with what it was compiled for.
struct Shared {
    /// The address of the layout it was compiled in and of the registry.
    layout: usize,
    registry: usize,
    definition: Arc<Definition>,
}

/// A cached definition with the slots of the names it reads.
struct BySlots {
    registry: usize,
    /// See [`slots_read`].
    slots: Box<[u32]>,
    definition: Arc<Definition>,
}

const SHARDS: usize = 16;

impl Default for CompileCache {
    fn default() -> CompileCache {
        CompileCache {
            capacity: CompileCache::CAPACITY,
            literals: false,
            layouts: Mutex::default(),
            definitions: std::array::from_fn(|_| Mutex::default()),
            by_slots: std::array::from_fn(|_| Mutex::default()),
            literal_definitions: std::array::from_fn(|_| Mutex::default()),
        }
    }
}

impl CompileCache {
    /// Most definitions (and layouts) kept by [`CompileCache::new`].
    pub const CAPACITY: usize = 65_536;

    /// Most definitions (and layouts) kept by [`CompileCache::for_pool`].
    pub const POOL_CAPACITY: usize = 1 << 22;

    /// An empty cache of layouts and of the definitions that are not
    /// literals (literals are cheaper to compile than to look up): for a
    /// cache that lives as long as its thread.
    pub fn new() -> CompileCache {
        CompileCache::default()
    }

    /// An empty cache of every definition, literals too, for reading a
    /// pool and then dropping the cache: most slot and job attributes are
    /// literals that many ads repeat, which this keeps once.
    pub fn for_pool() -> CompileCache {
        CompileCache {
            capacity: CompileCache::POOL_CAPACITY,
            literals: true,
            ..CompileCache::default()
        }
    }

    /// [`CompileCache::for_pool`] for a pool read from a text of `bytes`
    /// bytes, with its table of literals made at once at the size such a
    /// text needs (pools hold one distinct definition per 250 to 400
    /// bytes of text) instead of grown to it. Growing hashes every literal
    /// again each time (a twentieth of reading a pool on one thread); and
    /// a table made first, as one block, is given back to the system when
    /// it is freed, where glibc leaves the steps of a table that grew in
    /// its heap among the ads as holes.
    pub fn for_pool_of(bytes: usize) -> CompileCache {
        let per_shard = (bytes / 256 / SHARDS).min(CompileCache::POOL_CAPACITY / SHARDS);
        CompileCache {
            literal_definitions: std::array::from_fn(|_| {
                Mutex::new(hashbrown::HashTable::with_capacity(per_shard))
            }),
            ..CompileCache::for_pool()
        }
    }

    /// Number of distinct definitions held.
    pub fn definitions(&self) -> usize {
        // Each definition that is not a literal is in `by_slots` once.
        let others: usize = self.by_slots.iter().map(|shard| lock(shard).len()).sum();
        let literals: usize = (self.literal_definitions.iter())
            .map(|shard| lock(shard).len())
            .sum();
        others + literals
    }

    fn layout(&self, symbols: Vec<Symbol>) -> Layout {
        let key: Vec<usize> = symbols
            .iter()
            .map(|s| s.as_bytes().as_ptr() as usize)
            .collect();
        let mut layouts = lock(&self.layouts);
        if let Some(layout) = layouts.get(&key) {
            return layout.clone();
        }
        let layout = Arc::new(AdLayout::new(symbols));
        if layouts.len() >= self.capacity {
            // Definitions are keyed by layout address, which a layout
            // dropped from this table may lend to another: they go together.
            layouts.clear();
            for shard in &self.definitions {
                lock(shard).clear();
            }
            for shard in &self.by_slots {
                lock(shard).clear();
            }
        }
        layouts.insert(key, layout.clone());
        layout
    }

    fn shard(&self, hash: u64) -> &Mutex<HashMap<u64, Shared, BuildHasherDefault<SymbolHasher>>> {
        // Middle bits: the table uses the low ones and the top seven.
        &self.definitions[(hash >> 32) as usize % SHARDS]
    }

    /// The definition of `name` to `expr` (not a literal) in `layout`: the
    /// one in the table for another layout that gives the names `expr`
    /// reads the same slots (so that its program is the one `compile`
    /// would make), or the one `compile` makes, then kept.
    fn by_slots(
        &self,
        name: &Name,
        expr: &Expr,
        layout: &Layout,
        registry: usize,
        compile: impl FnOnce() -> Result<Arc<Definition>, CompileError>,
    ) -> Result<Arc<Definition>, CompileError> {
        let slots = slots_read(expr, layout);
        let mut hasher = DEFINITION_HASHER.build_hasher();
        hasher.write(name.as_bytes());
        hasher.write_usize(registry);
        hash_expr(expr, &mut hasher);
        for &slot in &slots {
            hasher.write_u32(slot);
        }
        let hash = hasher.finish();
        let shard = &self.by_slots[(hash >> 32) as usize % SHARDS];
        let same = |kept: &BySlots| {
            kept.registry == registry
                && kept.slots[..] == slots[..]
                && kept.definition.name().as_bytes() == name.as_bytes()
                && *kept.definition.source == *expr
        };
        if let Some(kept) = lock(shard).get(&hash)
            && same(kept)
        {
            return Ok(kept.definition.clone());
        }
        let definition = compile()?;
        let mut table = lock(shard);
        if table.len() >= self.capacity / SHARDS {
            table.clear();
        }
        match table.entry(hash) {
            // Another thread compiled it meanwhile: share theirs.
            Entry::Occupied(e) if same(e.get()) => Ok(e.get().definition.clone()),
            // Two definitions with one hash: the first keeps the entry.
            Entry::Occupied(_) => Ok(definition),
            Entry::Vacant(e) => {
                e.insert(BySlots {
                    registry,
                    slots: slots.into(),
                    definition: definition.clone(),
                });
                Ok(definition)
            }
        }
    }

    /// The definition of `name` to the literal `lit`: the one in the
    /// table, or the one `compile` makes, then kept.
    fn literal_definition(
        &self,
        name: &Name,
        lit: &Literal,
        compile: impl FnOnce() -> Result<Arc<Definition>, CompileError>,
    ) -> Result<Arc<Definition>, CompileError> {
        let hash = literal_hash(name.as_bytes(), LiteralKey::of_literal(lit));
        let shard = &self.literal_definitions[(hash >> 32) as usize % SHARDS];
        // Compared by value, not by a tree made for the purpose.
        let same = |definition: &Arc<Definition>| {
            definition.name().as_bytes() == name.as_bytes()
                && definition
                    .constant()
                    .is_some_and(|value| literal_is(lit, value))
        };
        // Made under the lock: a literal's definition is quick to make,
        // and the table is searched once.
        let mut table = lock(shard);
        if let Some(definition) = table.find(hash, same) {
            return Ok(definition.clone());
        }
        let definition = compile()?;
        if table.len() >= self.capacity / SHARDS {
            table.clear();
        }
        table.insert_unique(hash, definition.clone(), |kept| {
            literal_hash(kept.name().as_bytes(), LiteralKey::of_definition(kept))
        });
        Ok(definition)
    }
}

/// What compiling `expr` in `layout` asks of the layout: for each name the
/// expression reads (every attribute reference, in a fixed order, those
/// the compiler does not look up too), its slot plus one, or 0 when the
/// layout has no such name. Two layouts that give the same answers get
/// the same program, since the compiler asks a layout nothing else.
fn slots_read(expr: &Expr, layout: &Layout) -> Vec<u32> {
    let mut slots = Vec::new();
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        if let ExprKind::Attribute(name) = &e.kind {
            let slot = layout.slot(&Symbol::new(name.as_bytes()));
            slots.push(slot.map_or(0, |slot| slot.saturating_add(1)));
        }
        e.for_each_child(|child| stack.push(child));
    }
    slots
}

/// What a literal's definition is hashed by, besides its name: the same
/// for a literal and for the value of its definition.
#[derive(Clone, Copy)]
enum LiteralKey<'a> {
    Integer(i64),
    Real(u64),
    String(&'a [u8]),
    Boolean(bool),
    Undefined,
    Error,
    /// Not reached: a literal's definition holds one of the above.
    Other,
}

impl LiteralKey<'_> {
    fn of_literal(lit: &Literal) -> LiteralKey<'_> {
        match lit {
            Literal::Integer(i) => LiteralKey::Integer(*i),
            Literal::Real(r) => LiteralKey::Real(r.to_bits()),
            Literal::String(s) => LiteralKey::String(s),
            Literal::Boolean(b) => LiteralKey::Boolean(*b),
            Literal::Undefined => LiteralKey::Undefined,
            Literal::Error => LiteralKey::Error,
        }
    }

    fn of_definition(definition: &Definition) -> LiteralKey<'_> {
        match definition.constant() {
            Some(Value::Int(i)) => LiteralKey::Integer(*i),
            Some(Value::Real(r)) => LiteralKey::Real(r.to_bits()),
            Some(Value::Str(s)) => LiteralKey::String(s),
            Some(Value::Bool(b)) => LiteralKey::Boolean(*b),
            Some(Value::Undefined) => LiteralKey::Undefined,
            Some(Value::Error) => LiteralKey::Error,
            _ => LiteralKey::Other,
        }
    }
}

/// The hash of a literal definition of `name`.
fn literal_hash(name: &[u8], key: LiteralKey<'_>) -> u64 {
    let mut hasher = DEFINITION_HASHER.build_hasher();
    hasher.write(name);
    // Its kind first: hashers that widen every integer to one word (ahash
    // does) would otherwise hash `false` as the integer 1.
    match key {
        LiteralKey::Integer(i) => {
            hasher.write_u8(64);
            hasher.write_i64(i);
        }
        LiteralKey::Real(bits) => {
            hasher.write_u8(65);
            hasher.write_u64(bits);
        }
        LiteralKey::String(s) => {
            hasher.write_u8(66);
            hasher.write_usize(s.len());
            hasher.write(s);
        }
        LiteralKey::Boolean(b) => hasher.write_u8(67 + u8::from(b)),
        LiteralKey::Undefined => hasher.write_u8(69),
        LiteralKey::Error => hasher.write_u8(70),
        LiteralKey::Other => hasher.write_u8(71),
    }
    hasher.finish()
}

/// The lock of a cache table; a thread that panicked while holding it left
/// a table that is still consistent (every change is one insert or clear).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

static DEFINITION_HASHER: LazyLock<ahash::RandomState> =
    LazyLock::new(|| ahash::RandomState::with_seeds(0xdef1, 0x417, 0xcac4e, 0x5a7e));

impl<'r> Compiler<'r> {
    /// A compiler resolving calls in `registry`.
    pub fn new(registry: &'r Registry) -> Compiler<'r> {
        Compiler {
            registry,
            cache: None,
        }
    }

    /// A compiler that shares definitions and layouts between ads through
    /// `cache`.
    pub fn with_cache(registry: &'r Registry, cache: &'r CompileCache) -> Compiler<'r> {
        Compiler {
            registry,
            cache: Some(cache),
        }
    }

    /// Compiles one expression into a verified program.
    pub fn compile(&self, expr: &Expr) -> Result<Program, CompileError> {
        self.compile_in(expr, None)
    }

    /// Compiles an expression that will only be evaluated in ads with
    /// `layout` (an attribute of an ad, or an element of a list written in
    /// it): its references to the ad's own attributes load their slots.
    fn compile_in(&self, expr: &Expr, layout: Option<&Layout>) -> Result<Program, CompileError> {
        check_time_literals(expr)?;
        let mut unit = Unit {
            layout: layout.cloned(),
            ..Unit::default()
        };
        self.expr(expr, &mut unit)?;
        unit.emit(Instr::Return);
        let nodes = unit.node_counts();
        Ok(Program::with_levels(&unit.code, &unit.levels, unit.pools)?.with_nodes(&nodes))
    }

    /// Compiles the attributes of an ad literal into a body.
    pub fn compile_ad(&self, ad: &AdExpr) -> Result<AdBody, CompileError> {
        // The slots the body will give each attribute (names in an AdExpr
        // are already unique ignoring case, and AdBody keeps their order).
        let symbols: Vec<Symbol> = ad
            .attributes
            .iter()
            .map(|(name, _)| Symbol::new(name.as_bytes()))
            .collect();
        let layout = match self.cache {
            Some(cache) => cache.layout(symbols),
            None => Arc::new(AdLayout::new(symbols)),
        };
        let mut definitions = Vec::with_capacity(ad.attributes.len());
        for (name, expr) in &ad.attributes {
            definitions.push(self.definition(name, expr, &layout)?);
        }
        // Each definition is named as the slot its name made, unless a
        // name is given twice (then the layout has fewer slots).
        match AdBody::with_layout_of_names(layout, definitions) {
            Ok(body) => Ok(body),
            // A name given twice (an AdExpr changed by hand): the last
            // definition in the first one's place.
            Err(definitions) => {
                let mut body = AdBody::new();
                for definition in definitions {
                    body.insert_definition(definition);
                }
                Ok(body)
            }
        }
    }

    /// The definition of an attribute: from the cache when an ad compiled
    /// with it defined the name to the same expression.
    fn definition(
        &self,
        name: &Name,
        expr: &Expr,
        layout: &Layout,
    ) -> Result<Arc<Definition>, CompileError> {
        self.definition_of(name, expr, None, layout)
    }

    /// [`Compiler::definition`] whose tree, if it is compiled, is `source`
    /// (`expr` itself) rather than a copy: one tree for the definitions of
    /// a line in every layout.
    fn definition_of(
        &self,
        name: &Name,
        expr: &Expr,
        source: Option<&Arc<Expr>>,
        layout: &Layout,
    ) -> Result<Arc<Definition>, CompileError> {
        let compile = || -> Result<Arc<Definition>, CompileError> {
            // A literal keeps only its value: its tree and program are made
            // from it if ever asked for.
            if let ExprKind::Literal(lit) = &expr.kind
                && let Some(definition) = Definition::literal(name.clone(), literal_value(lit))
            {
                return Ok(Arc::new(definition));
            }
            Ok(Arc::new(Definition::new(Attribute {
                name: name.clone(),
                source: source.map_or_else(|| Arc::new(expr.clone()), Arc::clone),
                program: Arc::new(self.compile_in(expr, Some(layout))?),
            })))
        };
        let Some(cache) = self.cache else {
            return compile();
        };
        // A literal means the same in every layout and registry.
        if let ExprKind::Literal(lit) = &expr.kind {
            if !cache.literals {
                return compile();
            }
            return cache.literal_definition(name, lit, compile);
        }
        let layout_key = Arc::as_ptr(layout) as usize;
        let registry_key = std::ptr::from_ref(self.registry) as usize;
        let mut hasher = DEFINITION_HASHER.build_hasher();
        hasher.write(name.as_bytes());
        hasher.write_usize(layout_key);
        hasher.write_usize(registry_key);
        hash_expr(expr, &mut hasher);
        let hash = hasher.finish();
        let same = |shared: &Shared| {
            shared.layout == layout_key
                && shared.registry == registry_key
                && shared.definition.name().as_bytes() == name.as_bytes()
                && *shared.definition.source == *expr
        };
        if let Some(shared) = lock(cache.shard(hash)).get(&hash)
            && same(shared)
        {
            return Ok(shared.definition.clone());
        }
        let definition = cache.by_slots(name, expr, layout, registry_key, compile)?;
        let mut shard = lock(cache.shard(hash));
        if shard.len() >= cache.capacity / SHARDS {
            shard.clear();
        }
        match shard.entry(hash) {
            // Another thread compiled it meanwhile: share theirs.
            Entry::Occupied(e) if same(e.get()) => return Ok(e.get().definition.clone()),
            // Two definitions with one hash: the first keeps the entry.
            Entry::Occupied(_) => {}
            Entry::Vacant(e) => {
                e.insert(Shared {
                    layout: layout_key,
                    registry: registry_key,
                    definition: definition.clone(),
                });
            }
        }
        Ok(definition)
    }

    /// Compiles `expr`, counting the HTCondor nodes its code does not
    /// count one an instruction (`Program::with_nodes`): those folded into
    /// a constant, and parentheses.
    fn expr(&self, expr: &Expr, unit: &mut Unit) -> Result<(), CompileError> {
        let start = unit.code.len();
        self.expr_code(expr, unit)?;
        let end = unit.code.len();
        if matches!(expr.kind, ExprKind::Literal(_)) {
            return Ok(());
        }
        if end == start + 1
            && let Some(Instr::Const(i)) = unit.code.last()
        {
            // Folded: a constant for all the nodes HTCondor evaluates.
            let i = *i;
            unit.const_nodes.retain(|&(c, _)| c != i);
            unit.const_nodes
                .push((i, evaluated_nodes(expr).saturating_sub(1)));
            return Ok(());
        }
        // The node of an operation whose instruction comes after its
        // operands (or that has none: parentheses), counted where HTCondor
        // starts it, before them. A call of unevaluated arguments, or of
        // none, counts itself; so does a selection (`EnterBase`).
        let counts_itself = end == start + 1
            && matches!(
                unit.code.last(),
                Some(Instr::CallLazy(_) | Instr::Call { argc: 0, .. })
            );
        let operation = matches!(
            expr.kind,
            ExprKind::Paren(_)
                | ExprKind::Unary { .. }
                | ExprKind::Binary { .. }
                | ExprKind::Conditional { .. }
                | ExprKind::Elvis { .. }
                | ExprKind::Subscript { .. }
                | ExprKind::Call { .. }
        );
        if operation && !counts_itself && end > start {
            unit.nodes.push((start, 1));
        }
        Ok(())
    }

    fn expr_code(&self, expr: &Expr, unit: &mut Unit) -> Result<(), CompileError> {
        match &expr.kind {
            ExprKind::Literal(lit) => unit.push_const(literal_value(lit)),
            ExprKind::Paren(inner) => {
                unit.nested(|unit| self.expr(inner, unit))?;
                if let Some(v) = unit.pop_const() {
                    unit.push_folded(v);
                }
            }
            ExprKind::Attribute(name) => {
                let i = unit.name(name.as_bytes());
                let slot = unit
                    .layout
                    .as_ref()
                    .and_then(|layout| layout.slot(&unit.pools.names[i as usize]))
                    .and_then(|slot| u16::try_from(slot).ok())
                    // The level of a slot load has 8 bits, its name 24.
                    .filter(|_| unit.nesting <= 255 && i <= PACKED_MASK);
                unit.emit(match slot {
                    Some(slot) => Instr::LoadOwn { name: i, slot },
                    None => Instr::LoadAttr(i),
                });
            }
            ExprKind::RootAttribute(name) => {
                let i = unit.name(name.as_bytes());
                unit.emit(Instr::LoadRoot(i));
            }
            ExprKind::Select { .. } => self.selection_chain(expr, unit)?,
            // Every operation (parentheses and subscripts too) is a level of
            // depth for its operands in HTCondor's evaluation.
            ExprKind::Subscript { base, index } => {
                unit.nested(|unit| {
                    self.expr(base, unit)?;
                    self.expr(index, unit)
                })?;
                unit.emit(Instr::Subscript);
            }
            ExprKind::Unary { op, operand } => {
                unit.nested(|unit| self.expr(operand, unit))?;
                match unit.pop_const() {
                    Some(v) => unit.push_folded(ops::unary(*op, v)),
                    None => unit.emit(Instr::Unary(*op)),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => match op {
                BinaryOp::And | BinaryOp::Or => self.logical(*op, lhs, rhs, unit)?,
                _ => {
                    unit.nested(|unit| {
                        self.expr(lhs, unit)?;
                        self.expr(rhs, unit)
                    })?;
                    match unit.pop_two_consts() {
                        Some((l, r)) => unit.push_folded(ops::binary(*op, l, r)),
                        None => unit.emit(Instr::Binary(*op)),
                    }
                }
            },
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => self.conditional(cond, then, otherwise, unit, true)?,
            ExprKind::Elvis { value, fallback } => {
                // Each operand is compiled once: a compiler that compiled an
                // operand to see whether it is constant, then again, would
                // take exponential time on nested operators.
                unit.nesting += 1;
                let result = self.elvis(value, fallback, unit);
                unit.nesting -= 1;
                result?;
            }
            ExprKind::List(items) => {
                // A list of literals is a constant; any other list is lazy:
                // each element a program run where the list was written,
                // when the element is used (as HTCondor does). Computed
                // constants are not folded in, because HTCondor prints a
                // list's elements as written (`string({1 + 2})`).
                fn literal(item: &Expr) -> Option<&Literal> {
                    match &item.kind {
                        ExprKind::Literal(lit) => Some(lit),
                        _ => None,
                    }
                }
                if items.iter().all(|item| literal(item).is_some()) {
                    // Collected in place (the iterator's length is known):
                    // no second copy of a long list while it is made.
                    let constants: Arc<[Value]> = items
                        .iter()
                        .map(|item| literal(item).map_or(Value::Undefined, literal_value))
                        .collect();
                    unit.push_const(Value::List(constants));
                } else {
                    let mut elements = Vec::with_capacity(items.len());
                    for item in items {
                        elements.push(LazyArg {
                            program: Arc::new(self.compile_in(item, unit.layout.as_ref())?),
                            source: Arc::new(item.clone()),
                        });
                    }
                    let i = u32::try_from(unit.pools.lists.len()).unwrap_or(u32::MAX);
                    unit.pools.lists.push(elements.into());
                    unit.emit(Instr::MakeList(i));
                }
            }
            ExprKind::Ad(ad) => {
                let body = self.compile_ad(ad)?;
                let i = u32::try_from(unit.pools.ads.len()).unwrap_or(u32::MAX);
                unit.pools.ads.push(Arc::new(body));
                unit.emit(Instr::MakeAd(i));
            }
            ExprKind::Call { name, args } => self.call(&name.to_string_lossy(), args, unit)?,
        }
        Ok(())
    }

    fn elvis(&self, value: &Expr, fallback: &Expr, unit: &mut Unit) -> Result<(), CompileError> {
        self.expr(value, unit)?;
        let value_need = unit.const_need();
        if let Some(v) = unit.pop_const() {
            // The operation's own level is one above its operands'.
            let level = unit.nesting - 1;
            if v.is_undefined() {
                if value_need == 0 {
                    self.expr(fallback, unit)?;
                    if let Some(v) = unit.pop_const() {
                        unit.push_folded_at(v, level);
                    }
                    return Ok(());
                }
                // The folded value still fails where its operations would
                // (`((undefined)) ?: A.A` with the parentheses at the
                // limit): it is loaded and dropped before the fallback (a
                // jump to the next instruction pops it).
                let start = unit.code.len();
                let label = unit.label;
                unit.push_with_need(v, value_need);
                let drop = unit.placeholder();
                unit.patch(drop, Instr::JumpIfFalse);
                self.expr(fallback, unit)?;
                // A constant fallback folds with it: `((undefined)) ?: 1`
                // is one constant failing where the parentheses would.
                if unit.code.len() == start + 3
                    && unit.label == start + 2
                    && let Some(v) = unit.pop_const()
                {
                    let need = unit.popped_need.max(value_need);
                    unit.truncate(start);
                    unit.label = label;
                    unit.popped_need = need;
                    unit.push_folded_at(v, level);
                }
            } else {
                unit.push_folded_at(v, level);
            }
            return Ok(());
        }
        let test = unit.placeholder();
        self.expr(fallback, unit)?;
        unit.patch(test, Instr::ElvisTest);
        Ok(())
    }

    fn logical(
        &self,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        unit: &mut Unit,
    ) -> Result<(), CompileError> {
        unit.nesting += 1;
        let result = self.logical_operands(op, lhs, rhs, unit);
        unit.nesting -= 1;
        result
    }

    /// `&&` and `||`, their operands one level deeper (`logical`).
    fn logical_operands(
        &self,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        unit: &mut Unit,
    ) -> Result<(), CompileError> {
        let (short, combine): (ShortCircuit, Combine) = if op == BinaryOp::And {
            (ops::and_short_circuit, ops::logical_and)
        } else {
            (ops::or_short_circuit, ops::logical_or)
        };
        self.expr(lhs, unit)?;
        let left = unit.peek_const();
        if let Some(result) = left.as_ref().and_then(short) {
            unit.pop_const();
            unit.push_folded_at(result, unit.nesting - 1);
            return Ok(());
        }
        let test = unit.placeholder();
        self.expr(rhs, unit)?;
        // Both sides constant: [const l, test, const r] becomes one constant.
        if let Some(left) = left
            && unit.code.len() == test + 2
            && let Some(right) = unit.pop_const()
        {
            // [const l, test] go too.
            unit.pop_placeholder();
            unit.code.pop();
            let need = unit.levels.pop().unwrap_or(0);
            unit.popped_need = unit.popped_need.max(need);
            unit.push_folded_at(combine(left, right), unit.nesting - 1);
            return Ok(());
        }
        unit.emit(if op == BinaryOp::And {
            Instr::AndCombine
        } else {
            Instr::OrCombine
        });
        unit.patch(
            test,
            if op == BinaryOp::And {
                Instr::AndTest
            } else {
                Instr::OrTest
            },
        );
        Ok(())
    }

    /// `cond ? then : otherwise`, or `ifThenElse` (`operation` false): a
    /// function call is no level of depth in HTCondor, an operation is one.
    fn conditional(
        &self,
        cond: &Expr,
        then: &Expr,
        otherwise: &Expr,
        unit: &mut Unit,
        operation: bool,
    ) -> Result<(), CompileError> {
        let level = u16::from(operation);
        unit.nesting += level;
        let result = self.conditional_operands(cond, then, otherwise, unit, operation);
        unit.nesting -= level;
        result
    }

    fn conditional_operands(
        &self,
        cond: &Expr,
        then: &Expr,
        otherwise: &Expr,
        unit: &mut Unit,
        operation: bool,
    ) -> Result<(), CompileError> {
        self.expr(cond, unit)?;
        // The level at which the operations folded into a constant
        // condition fail (0: never).
        let cond_need = unit.const_need();
        if let Some(c) = unit.pop_const() {
            let kept = c.clone();
            let result = match c {
                Value::Undefined => Some(Value::Undefined),
                other => match ops::truth(&other) {
                    Some(true) => {
                        self.expr(then, unit)?;
                        unit.pop_const()
                    }
                    Some(false) => {
                        self.expr(otherwise, unit)?;
                        unit.pop_const()
                    }
                    None => Some(Value::Error),
                },
            };
            // Folded: it fails where the operation (one level above its
            // operands) or what was folded into it would have; a call of
            // ifThenElse is no level.
            if let Some(v) = result {
                // Compiling the branch forgot the need of the folded
                // condition: `((true)) ? 1 : 2` fails where its parentheses
                // would.
                unit.popped_need = unit.popped_need.max(cond_need);
                if operation {
                    unit.push_folded_at(v, unit.nesting - 1);
                } else {
                    let need = unit.popped_need;
                    unit.push_with_need(v, need);
                }
            } else if cond_need > 0 {
                // The branch is code: the folded condition still fails
                // where its operations would (`(1 + 2 > 0 ? A.A : 1)` with
                // the selection at the limit), so it is loaded and dropped
                // after the branch (a jump to the next instruction pops it).
                unit.push_with_need(kept, cond_need);
                let drop = unit.placeholder();
                unit.patch(drop, Instr::JumpIfFalse);
            }
            return Ok(());
        }
        let test = unit.placeholder();
        let branch = unit.placeholder();
        self.expr(then, unit)?;
        let jump = unit.placeholder();
        unit.patch(branch, Instr::JumpIfFalse);
        self.expr(otherwise, unit)?;
        unit.patch(jump, Instr::Jump);
        unit.patch(test, Instr::CondTest);
        Ok(())
    }

    fn call(&self, name: &str, args: &[Expr], unit: &mut Unit) -> Result<(), CompileError> {
        // ifThenElse is lazy in its branches: compile it as a conditional.
        if name.eq_ignore_ascii_case("ifThenElse") && args.len() == 3 {
            return self.conditional(&args[0], &args[1], &args[2], unit, false);
        }
        // HTCondor's parser turns absTime/relTime of a literal string into a
        // constant (relTime into a *real*, as the oracle shows) and refuses
        // the expression when the string is not a time.
        if let [arg] = args
            && let ExprKind::Literal(Literal::String(bytes)) = &arg.kind
        {
            let text = || String::from_utf8_lossy(bytes).into_owned();
            if name.eq_ignore_ascii_case("relTime") {
                let secs = parse_rel_time(bytes)
                    .ok_or_else(|| CompileError::InvalidTimeLiteral(text()))?;
                unit.push_const(Value::Real(secs));
                return Ok(());
            }
            if name.eq_ignore_ascii_case("absTime") {
                let time = parse_abs_time(bytes)
                    .ok_or_else(|| CompileError::InvalidTimeLiteral(text()))?;
                unit.push_const(Value::AbsTime(time));
                return Ok(());
            }
        }
        let Some(function) = self.registry.get(name) else {
            unit.push_const(Value::Error);
            return Ok(());
        };
        let argc = args.len();
        // u16::MAX as the maximum means any number, more included (HTCondor
        // calls `strcat` with 70,000 arguments).
        let variadic = function.max_args == u16::MAX;
        if argc < usize::from(function.min_args)
            || (!variadic && argc > usize::from(function.max_args))
        {
            unit.push_const(Value::Error);
            return Ok(());
        }
        // HTCondor's `join` of one or two arguments evaluates its last
        // argument twice unless it is a list (`Arguments::probes_last`):
        // run as a function of unevaluated arguments, unless the last is a
        // literal, whose evaluation costs nothing and cannot fail.
        let probes_last = function
            .arguments
            .probes_last
            .filter(|_| matches!(argc, 1 | 2))
            .filter(|_| {
                !args.last().is_some_and(|last| {
                    matches!(last.kind, ExprKind::Literal(_) | ExprKind::List(_))
                })
            });
        let lazy_function = match (probes_last, function.function) {
            (Some(probe), _) => Some(Arc::new(Builtin {
                function: Function::Lazy(probe),
                arguments: Arguments::EAGER,
                ..*function.as_ref()
            })),
            (None, Function::Lazy(_)) => Some(function.clone()),
            _ => None,
        };
        if let Some(function) = lazy_function {
            let mut lazy_args = Vec::with_capacity(args.len());
            for arg in args {
                lazy_args.push(LazyArg {
                    program: Arc::new(self.compile(arg)?),
                    source: Arc::new(arg.clone()),
                });
            }
            let i = u32::try_from(unit.pools.lazy_calls.len()).unwrap_or(u32::MAX);
            unit.pools.lazy_calls.push(LazyCall {
                function: function.clone(),
                args: lazy_args.into(),
            });
            unit.emit(Instr::CallLazy(i));
            return Ok(());
        }
        let start = unit.code.len();
        // How the function evaluates its arguments, as the registry
        // describes it (`Arguments`): one level deeper (as an operation
        // does) or at the call's own; noting their failures
        // (`Instr::NoteArgs`) for a function that reads them, forgets them
        // or stops before the later arguments.
        let arguments = function.arguments;
        let deeper = u16::from(arguments.one_level_deeper);
        unit.nesting += deeper;
        let mut pending_need = 0;
        let noted = arguments.noted();
        // The notes, their call patched in below.
        let mut notes = Vec::new();
        // Whether the boundary before the next argument needs a note (the
        // first does), and the test that may stop the call there.
        let mut note_next = true;
        let mut stop = None;
        for (i, arg) in args.iter().enumerate() {
            if noted && note_next {
                notes.push(unit.code.len());
                // Patched below; no level: a note never fails.
                unit.code.push(Instr::NoteArgs {
                    stop,
                    remaining: u16::try_from(argc - i).unwrap_or(u16::MAX),
                    call: 0,
                });
                unit.levels.push(0);
            }
            let arg_start = unit.code.len();
            if let Err(e) = self.expr(arg, unit) {
                unit.nesting -= deeper;
                return Err(e);
            }
            // A constant that cannot fail decides now (`"@"` in a strcat
            // never stops it): no test at run time, and no note after it
            // (the one before stands for both boundaries).
            let constant = match (&unit.code[arg_start..], &unit.levels[arg_start..]) {
                ([Instr::Const(c)], [0]) => unit.pools.constants.get(*c as usize),
                _ => None,
            };
            stop = arguments
                .stops
                .after(i, argc)
                .filter(|test| constant.is_none_or(|value| test.stops_at(value, false)));
            note_next = constant.is_none() || stop.is_some();
        }
        unit.nesting -= deeper;
        if deeper > 0 {
            pending_need = unit.nesting + 1;
        }
        let all_const = unit.code[start..]
            .iter()
            .filter(|i| matches!(i, Instr::Const(_)))
            .count()
            == argc
            && unit.code[start..]
                .iter()
                .all(|i| matches!(i, Instr::Const(_) | Instr::NoteArgs { .. }));
        if function.pure && all_const {
            let need = unit.levels[start..]
                .iter()
                .copied()
                .fold(pending_need, u16::max);
            let values: Vec<Value> = unit.code[start..]
                .iter()
                .filter(|i| matches!(i, Instr::Const(_)))
                .map(|i| match i {
                    Instr::Const(c) => unit.pools.constants[*c as usize].clone(),
                    _ => Value::Error,
                })
                // A function gets a list a function made as any list, as
                // the VM forces it at run time.
                .map(|v| match (v, function.function) {
                    (Value::SharedList(items), Function::Strict(_)) => Value::List(items),
                    (v, _) => v,
                })
                .collect();
            let mut vm = classad_vm::Vm::default();
            let scope = classad_vm::AdValue::top_level(Arc::new(AdBody::new()));
            let mut context = classad_vm::CallContext {
                vm: &mut vm,
                env: classad_vm::Env::default(),
                scope: &scope,
            };
            if let Function::Strict(f) | Function::StrictKeepingLists(f) = function.function {
                let value = f(&mut context, &values);
                // A call past the default budgets is left to run time,
                // where the evaluation's own budgets (`--max-steps`) decide.
                if !vm.exhausted() {
                    unit.truncate(start);
                    unit.push_with_need(value, need);
                    return Ok(());
                }
            }
        }
        // Folded above whatever their number, constant arguments are fine;
        // the bytecode counts the others in 16 bits.
        let Ok(argc) = u16::try_from(argc) else {
            return Err(CompileError::TooManyArguments {
                function: name.to_string(),
                count: argc,
            });
        };
        let call = u32::try_from(unit.code.len()).unwrap_or(u32::MAX);
        for at in notes {
            if let Instr::NoteArgs { call: target, .. } = &mut unit.code[at] {
                *target = call;
            }
        }
        // The call is a jump target: nothing folds across it.
        unit.label = unit.label.max(unit.code.len());
        // One entry a function (a few hundred at most): its index leaves
        // the top byte of the operand to count nodes (`Program::with_nodes`).
        let func = match unit
            .pools
            .functions
            .iter()
            .position(|f| Arc::ptr_eq(f, function))
        {
            Some(i) => i as u32,
            None => {
                unit.pools.functions.push(function.clone());
                (unit.pools.functions.len() - 1) as u32
            }
        };
        unit.emit(Instr::Call { func, argc, noted });
        Ok(())
    }

    /// A selection chain `base.n1.n2...`, compiled in a loop (a chain is as
    /// long as its text). HTCondor evaluates each selection's base one
    /// level deeper than the selection, and a selection reached at the
    /// depth limit is ERROR without its base: each link is an `EnterBase`
    /// that jumps past its `Select` then. `MY.x` and `TARGET.x` as the
    /// innermost link are loads of their own.
    fn selection_chain(&self, expr: &Expr, unit: &mut Unit) -> Result<(), CompileError> {
        let Some((base, names)) = expr.selection_chain() else {
            return self.expr(expr, unit);
        };
        let scope = match &base.kind {
            ExprKind::Attribute(b) if b.eq_ignore_case("my") => Some(true),
            ExprKind::Attribute(b) if b.eq_ignore_case("target") => Some(false),
            _ => None,
        };
        let selected = if scope.is_some() {
            &names[1..]
        } else {
            &names[..]
        };
        // Outermost link first: its `EnterBase` comes first, at the
        // chain's level, each inner one a level deeper.
        let saved = unit.nesting;
        let mut links = Vec::with_capacity(selected.len());
        for name in selected.iter().rev() {
            let i = unit.name(name.as_bytes());
            links.push((unit.placeholder(), unit.nesting, i));
            unit.nesting = unit.nesting.saturating_add(1);
        }
        let compiled = match scope {
            Some(my) => {
                let i = unit.name(names[0].as_bytes());
                unit.emit(if my {
                    Instr::LoadMy(i)
                } else {
                    Instr::LoadTarget(i)
                });
                Ok(())
            }
            None => self.expr(base, unit),
        };
        for (enter, level, i) in links.into_iter().rev() {
            unit.nesting = level;
            unit.emit(Instr::Select(i));
            unit.patch(enter, Instr::EnterBase);
        }
        unit.nesting = saved;
        compiled
    }
}

/// Refuses `absTime("...")`/`relTime("...")` of a literal string that is not
/// a time anywhere in `expr`, even in a branch that folding will drop: HTCondor
/// reads these literals while parsing, so one bad literal refuses the whole
/// expression.
pub fn check_time_literals(expr: &Expr) -> Result<(), CompileError> {
    match classad_syntax::time::invalid_time_literal(expr) {
        Some(bytes) => Err(CompileError::InvalidTimeLiteral(
            String::from_utf8_lossy(bytes).into_owned(),
        )),
        None => Ok(()),
    }
}

/// Attribute slots of an ad by name.
type Layout = Arc<AdLayout>;

/// Whether a left operand alone decides `&&` / `||`.
type ShortCircuit = fn(&Value) -> Option<Value>;
/// The value of `&&` / `||` from both operands.
type Combine = fn(Value, Value) -> Value;

/// A hash of what [`Expr`]'s equality compares (shape, operators, names,
/// literals; not spans): equal trees hash alike, in every process.
pub fn expression_hash(expr: &Expr) -> u64 {
    let mut hasher = DEFINITION_HASHER.build_hasher();
    hash_expr(expr, &mut hasher);
    hasher.finish()
}

/// Feeds what [`Expr`]'s equality compares (shape, operators, names,
/// literals; not spans) to `hasher`.
fn hash_expr(expr: &Expr, hasher: &mut impl Hasher) {
    // Most definitions of a pool are literals: no stack for them.
    if let ExprKind::Literal(lit) = &expr.kind {
        return hash_literal(lit, hasher);
    }
    // Iterative: trees are deep-bounded by the parser, but a hash must not
    // be what overflows the stack.
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        match &e.kind {
            ExprKind::Literal(lit) => hash_literal(lit, hasher),
            ExprKind::Attribute(name) => {
                hasher.write_u8(1);
                hasher.write(name.as_bytes());
            }
            ExprKind::RootAttribute(name) => {
                hasher.write_u8(2);
                hasher.write(name.as_bytes());
            }
            ExprKind::Select { name, .. } => {
                hasher.write_u8(3);
                hasher.write(name.as_bytes());
            }
            ExprKind::Subscript { .. } => hasher.write_u8(4),
            ExprKind::Call { name, args } => {
                hasher.write_u8(5);
                hasher.write(name.as_bytes());
                hasher.write_usize(args.len());
            }
            ExprKind::Unary { op, .. } => hasher.write_u8(16 + *op as u8),
            ExprKind::Binary { op, .. } => hasher.write_u8(32 + *op as u8),
            ExprKind::Conditional { .. } => hasher.write_u8(6),
            ExprKind::Elvis { .. } => hasher.write_u8(7),
            ExprKind::Paren(_) => hasher.write_u8(8),
            ExprKind::List(items) => {
                hasher.write_u8(9);
                hasher.write_usize(items.len());
            }
            ExprKind::Ad(ad) => {
                hasher.write_u8(10);
                hasher.write_usize(ad.attributes.len());
                for (name, _) in &ad.attributes {
                    hasher.write(name.as_bytes());
                }
            }
        }
        e.for_each_child(|child| stack.push(child));
    }
}

/// Feeds a literal to `hasher`, its kind first: hashers that widen every
/// integer to one word (ahash does) would otherwise hash `false` as the
/// integer 1, and the two definitions would take turns in one entry of
/// the [`CompileCache`].
fn hash_literal(lit: &Literal, hasher: &mut impl Hasher) {
    match lit {
        Literal::Integer(i) => {
            hasher.write_u8(64);
            hasher.write_i64(*i);
        }
        Literal::Real(r) => {
            hasher.write_u8(65);
            hasher.write_u64(r.to_bits());
        }
        Literal::String(s) => {
            hasher.write_u8(66);
            hasher.write_usize(s.len());
            hasher.write(s);
        }
        Literal::Boolean(b) => hasher.write_u8(67 + u8::from(*b)),
        Literal::Undefined => hasher.write_u8(69),
        Literal::Error => hasher.write_u8(70),
    }
}

/// Whether `value` is the value of `lit`, as literals compare (reals by
/// their bits, strings byte for byte).
fn literal_is(lit: &Literal, value: &Value) -> bool {
    match (lit, value) {
        (Literal::Integer(a), Value::Int(b)) => a == b,
        (Literal::Real(a), Value::Real(b)) => a.to_bits() == b.to_bits(),
        (Literal::String(a), Value::Str(b)) => a[..] == b[..],
        (Literal::Boolean(a), Value::Bool(b)) => a == b,
        (Literal::Undefined, Value::Undefined) | (Literal::Error, Value::Error) => true,
        _ => false,
    }
}

/// The nodes HTCondor's evaluation of a constant expression counts, one
/// a node of its tree (a list's elements are not evaluated; `absTime` and
/// `relTime` of a literal are one literal). Every operand of `&&`, `||`,
/// `?:` and calls is counted, whether or not it would be evaluated.
fn evaluated_nodes(expr: &Expr) -> u32 {
    match &expr.kind {
        ExprKind::Paren(inner) => 1 + evaluated_nodes(inner),
        ExprKind::Unary { operand, .. } => 1 + evaluated_nodes(operand),
        ExprKind::Binary { lhs, rhs, .. } => {
            1 + evaluated_nodes(lhs).saturating_add(evaluated_nodes(rhs))
        }
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => {
            1 + evaluated_nodes(cond)
                .saturating_add(evaluated_nodes(then))
                .saturating_add(evaluated_nodes(otherwise))
        }
        ExprKind::Elvis { value, fallback } => {
            1 + evaluated_nodes(value).saturating_add(evaluated_nodes(fallback))
        }
        // The element read from a list is evaluated: one node more.
        ExprKind::Subscript { base, index } => {
            let element = u32::from(matches!(base.kind, ExprKind::List(_)));
            (1 + element)
                .saturating_add(evaluated_nodes(base))
                .saturating_add(evaluated_nodes(index))
        }
        ExprKind::Call { name, args } => {
            let literal_time = ["absTime", "relTime"]
                .iter()
                .any(|f| name.to_string_lossy().eq_ignore_ascii_case(f))
                && matches!(args.as_slice(), [arg] if matches!(arg.kind, ExprKind::Literal(_)));
            if literal_time {
                return 1;
            }
            // A function reads the elements of a list argument, a node
            // each (`sum({1, 2})` counts 4), except those that look at
            // the list only.
            let reads_elements = !name
                .to_string_lossy()
                .to_ascii_lowercase()
                .starts_with("is")
                && !name.to_string_lossy().eq_ignore_ascii_case("size");
            args.iter().fold(1u32, |n, arg| {
                let elements = match &arg.kind {
                    ExprKind::List(items) if reads_elements => items.len() as u32,
                    _ => 0,
                };
                n.saturating_add(evaluated_nodes(arg))
                    .saturating_add(elements)
            })
        }
        _ => 1,
    }
}

/// The value of a literal.
pub fn literal_value(lit: &Literal) -> Value {
    match lit {
        Literal::Integer(i) => Value::Int(*i),
        Literal::Real(r) => Value::Real(*r),
        Literal::String(s) => Value::Str(Arc::from(&s[..])),
        Literal::Boolean(b) => Value::Bool(*b),
        Literal::Undefined => Value::Undefined,
        Literal::Error => Value::Error,
    }
}

/// Code and pools of the program being compiled.
#[derive(Default)]
struct Unit {
    code: Vec<Instr>,
    /// The level of each instruction (see `Program::with_levels`).
    levels: Vec<u16>,
    /// How many operations enclose the expression being compiled.
    nesting: u16,
    pools: Pools,
    /// The slots of the ad the program runs in, when known.
    layout: Option<Layout>,
    /// The highest position a jump lands on. Instructions before it may be
    /// reached by a jump that skips what follows them, so constant folding
    /// must never merge an instruction before it with one after it.
    label: usize,
    /// The highest need of the constants popped since the last push.
    popped_need: u16,
    /// HTCondor nodes beyond one an instruction (`Program::with_nodes`):
    /// at an instruction, and at the load of a constant (by its index in
    /// the pool, as folding moves constants).
    nodes: Vec<(usize, u32)>,
    const_nodes: Vec<(u32, u32)>,
}

impl Unit {
    /// The extra nodes of each instruction, for `Program::with_nodes`.
    fn node_counts(&self) -> Vec<(usize, u32)> {
        let mut counts: Vec<(usize, u32)> = self
            .nodes
            .iter()
            .copied()
            .filter(|&(pc, _)| pc < self.code.len())
            .collect();
        if !self.const_nodes.is_empty() {
            for (pc, instr) in self.code.iter().enumerate() {
                if let Instr::Const(i) = instr {
                    counts.extend(
                        self.const_nodes
                            .iter()
                            .filter(|(c, _)| c == i)
                            .map(|&(_, n)| (pc, n)),
                    );
                }
            }
        }
        counts
    }

    /// Appends an instruction at the current level.
    fn emit(&mut self, instr: Instr) {
        self.code.push(instr);
        self.levels.push(self.nesting);
    }

    /// Compiles with one more level of nesting.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Unit) -> T) -> T {
        self.nesting = self.nesting.saturating_add(1);
        let result = f(self);
        self.nesting -= 1;
        result
    }

    fn truncate(&mut self, len: usize) {
        self.code.truncate(len);
        self.levels.truncate(len);
        self.popped_need = 0;
    }

    /// A literal constant: it never fails.
    fn push_const(&mut self, value: Value) {
        self.push_with_need(value, 0);
    }

    fn push_with_need(&mut self, value: Value, need: u16) {
        let i = u32::try_from(self.pools.constants.len()).unwrap_or(u32::MAX);
        self.pools.constants.push(value);
        self.code.push(Instr::Const(i));
        self.levels.push(need);
        self.popped_need = 0;
    }

    /// A constant folded from an operation at the current level (its
    /// operands one deeper): HTCondor's evaluation of the operation fails
    /// where the operation or any folded into it reaches the depth limit.
    fn push_folded(&mut self, value: Value) {
        self.push_folded_at(value, self.nesting);
    }

    /// A constant folded from an operation at `level`, and from the
    /// constants popped for it.
    fn push_folded_at(&mut self, value: Value, level: u16) {
        let need = self.popped_need.max(level.saturating_add(1));
        self.push_with_need(value, need);
    }

    /// Removes the placeholder at the end.
    fn pop_placeholder(&mut self) {
        self.code.pop();
        self.levels.pop();
    }

    /// The value of a trailing constant load that could be folded (no jump
    /// lands after it), leaving it in place.
    fn peek_const(&self) -> Option<Value> {
        if self.code.len() <= self.label {
            return None;
        }
        match self.code.last() {
            Some(Instr::Const(i)) => Some(self.pools.constants[*i as usize].clone()),
            _ => None,
        }
    }

    /// The need of a trailing constant load that could be folded (0: none,
    /// or a constant that never fails).
    fn const_need(&self) -> u16 {
        match self.code.last() {
            Some(Instr::Const(_)) if self.code.len() > self.label => {
                self.levels.last().copied().unwrap_or(0)
            }
            _ => 0,
        }
    }

    /// Removes a trailing constant load and returns its value (unless a
    /// jump lands after it).
    fn pop_const(&mut self) -> Option<Value> {
        if self.code.len() <= self.label {
            return None;
        }
        match self.code.last() {
            Some(Instr::Const(i)) => {
                let value = self.pools.constants[*i as usize].clone();
                self.code.pop();
                let need = self.levels.pop().unwrap_or(0);
                self.popped_need = self.popped_need.max(need);
                Some(value)
            }
            _ => None,
        }
    }

    /// Removes two trailing constant loads and returns their values.
    fn pop_two_consts(&mut self) -> Option<(Value, Value)> {
        let n = self.code.len();
        if n < 2 || n - 2 < self.label {
            return None;
        }
        match (self.code[n - 2], self.code[n - 1]) {
            (Instr::Const(a), Instr::Const(b)) => {
                let need = self.levels[n - 2].max(self.levels[n - 1]);
                self.code.truncate(n - 2);
                self.levels.truncate(n - 2);
                self.popped_need = self.popped_need.max(need);
                Some((
                    self.pools.constants[a as usize].clone(),
                    self.pools.constants[b as usize].clone(),
                ))
            }
            _ => None,
        }
    }

    fn name(&mut self, name: &[u8]) -> u32 {
        let symbol = Symbol::new(name);
        match self.pools.names.iter().position(|s| *s == symbol) {
            Some(i) => i as u32,
            None => {
                self.pools.names.push(symbol);
                (self.pools.names.len() - 1) as u32
            }
        }
    }

    /// Reserves an instruction to patch with a jump to a later position.
    fn placeholder(&mut self) -> usize {
        self.emit(Instr::Return);
        self.code.len() - 1
    }

    /// Makes the placeholder at `at` a jump to the current end.
    fn patch(&mut self, at: usize, make: fn(u32) -> Instr) {
        let target = u32::try_from(self.code.len()).unwrap_or(u32::MAX);
        self.code[at] = make(target);
        self.label = self.label.max(self.code.len());
    }
}
