//! Runtime ClassAds: attribute programs looked up by case-folded name, and
//! the lexical scope an ad was written in.

use crate::bytecode::Program;
use crate::value::Value;
use ahash::RandomState;
use classad_syntax::{Expr, ExprKind, Literal, Name};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::{Arc, LazyLock, OnceLock};

/// A case-folded attribute name with its hash computed once, so that
/// lookups hash nothing at run time. Symbols are interned process-wide when
/// made (at compile time, never during evaluation), so two equal symbols
/// share one allocation and compare by hash and pointer; the text is
/// compared only on a hash collision.
///
/// The interner keeps every distinct name it has seen: memory grows with
/// the number of distinct attribute names a process compiles, not with the
/// number of ads.
#[derive(Clone)]
pub struct Symbol {
    hash: u64,
    text: Arc<[u8]>,
}

static SYMBOL_HASHER: LazyLock<RandomState> =
    LazyLock::new(|| RandomState::with_seeds(0x5eed, 0xc1a5, 0x5ad, 0xf00d));

/// Every symbol's text, once.
static INTERNED: LazyLock<std::sync::Mutex<ahash::AHashSet<Arc<[u8]>>>> =
    LazyLock::new(Default::default);

/// Names kept per thread before it clears its table of recent symbols:
/// enough for every name of a pool's ads, bounded for hostile input that
/// makes millions of distinct names.
const RECENT_SYMBOLS: usize = 4096;

thread_local! {
    /// The symbols this thread made, by the name as written: compiling a
    /// pool makes the same few hundred names in every ad, and this spares
    /// each of them the case folding, two hashes and the interner's lock
    /// (together a fifth of reading and compiling a file of job ads).
    static RECENT: std::cell::RefCell<ahash::AHashMap<Box<[u8]>, Symbol>> =
        std::cell::RefCell::new(ahash::AHashMap::new());
}

impl Symbol {
    /// The symbol for `name`, ignoring case (ClassAd names are
    /// case-insensitive, spec 003 "Attributes"). A name is bytes (a
    /// quoted name may hold any byte but NUL); only ASCII letters fold, as
    /// HTCondor's `strcasecmp` folds them.
    pub fn new<T: AsRef<[u8]> + ?Sized>(name: &T) -> Symbol {
        let name = name.as_ref();
        RECENT.with(|recent| {
            if let Some(symbol) = recent.borrow().get(name) {
                return symbol.clone();
            }
            let symbol = Symbol::interned(name);
            let mut recent = recent.borrow_mut();
            if recent.len() >= RECENT_SYMBOLS {
                recent.clear();
            }
            recent.insert(name.into(), symbol.clone());
            symbol
        })
    }

    /// [`Symbol::new`] through the process-wide interner.
    fn interned(name: &[u8]) -> Symbol {
        let folded: std::borrow::Cow<'_, [u8]> = if name.iter().any(|b| b.is_ascii_uppercase()) {
            name.to_ascii_lowercase().into()
        } else {
            name.into()
        };
        let hash = SYMBOL_HASHER.hash_one(&*folded);
        let mut interned = INTERNED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let text = match interned.get(&*folded) {
            Some(text) => text.clone(),
            None => {
                let text: Arc<[u8]> = Arc::from(&*folded);
                interned.insert(text.clone());
                text
            }
        };
        Symbol { hash, text }
    }

    /// A symbol for looking `name` up, not interned: for names that come
    /// from values at run time (`ad["name"]`), which must neither take the
    /// interner's lock nor grow it. Equal to the interned symbol of the same
    /// name (by hash and text).
    pub fn transient<T: AsRef<[u8]> + ?Sized>(name: &T) -> Symbol {
        let text: Arc<[u8]> = Arc::from(name.as_ref().to_ascii_lowercase());
        let hash = SYMBOL_HASHER.hash_one(&*text);
        Symbol { hash, text }
    }

    /// The case-folded name as text that keeps every name distinct (see
    /// `Name::text`): for tables of names kept as strings.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        classad_syntax::ast::name_text(&self.text)
    }

    /// The case-folded name's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.text
    }
}

impl PartialEq for Symbol {
    fn eq(&self, other: &Symbol) -> bool {
        self.hash == other.hash && (Arc::ptr_eq(&self.text, &other.text) || self.text == other.text)
    }
}

impl Eq for Symbol {}

impl Hash for Symbol {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl std::fmt::Debug for Symbol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.text))
    }
}

/// A hasher that passes a [`Symbol`]'s precomputed hash through.
#[derive(Default)]
pub struct SymbolHasher(u64);

impl Hasher for SymbolHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A map keyed by symbols.
pub type SymbolMap<V> = HashMap<Symbol, V, BuildHasherDefault<SymbolHasher>>;

/// One attribute of an ad: its name as written, its source tree (for
/// printing and `unparse`), and its compiled program.
#[derive(Clone)]
pub struct Attribute {
    /// The name as written.
    pub name: Name,
    /// The expression as parsed.
    pub source: Arc<Expr>,
    /// The compiled program.
    pub program: Arc<Program>,
}

/// An attribute as ads hold it, with its value when the program is a single
/// constant (nine in ten attributes of a typical pool, read without running
/// the program). Ads of a pool that define a name to the same expression
/// share one `Definition` (see the compiler's `CompileCache`), so an ad
/// costs a pointer per attribute plus what is its own.
///
/// A literal's definition holds only its name and value: the tree and the
/// program (a single constant) are made the first time they are asked for
/// (printing, introspection), which evaluation never does. A pool's
/// values that no other ad repeats (times, counters, names) then cost
/// little more than their text.
pub struct Definition {
    name: Name,
    constant: Option<Value>,
    /// Boxed: a literal's definition is then 56 bytes, not 88.
    attribute: OnceLock<Box<Attribute>>,
}

impl Definition {
    /// The definition of `attribute`.
    pub fn new(attribute: Attribute) -> Definition {
        Definition {
            name: attribute.name.clone(),
            // A constant folded from operations counts their nodes
            // (`Program::with_nodes`): its program runs.
            constant: attribute
                .program
                .as_constant()
                .filter(|_| attribute.program.code[0].aux == 0)
                .cloned(),
            attribute: OnceLock::from(Box::new(attribute)),
        }
    }

    /// The definition of `name` to the literal that has `value`; `None`
    /// when no literal has it (a list, an ad, a time).
    pub fn literal(name: Name, value: Value) -> Option<Definition> {
        literal_of(&value)?;
        Some(Definition {
            name,
            constant: Some(value),
            attribute: OnceLock::new(),
        })
    }

    /// The name as written, without making the tree of a literal.
    #[inline]
    pub fn name(&self) -> &Name {
        &self.name
    }

    /// The attribute's value if its program is a single constant.
    #[inline]
    pub fn constant(&self) -> Option<&Value> {
        self.constant.as_ref()
    }

    /// The attribute of a literal's definition, made from its value.
    fn materialize(&self) -> Box<Attribute> {
        let value = self.constant.clone().unwrap_or_default();
        let literal = literal_of(&value).unwrap_or(Literal::Undefined);
        Box::new(Attribute {
            name: self.name.clone(),
            source: Arc::new(Expr::new(ExprKind::Literal(literal))),
            program: Arc::new(Program::constant(value)),
        })
    }
}

/// The literal whose value is `value`, if one is.
fn literal_of(value: &Value) -> Option<Literal> {
    Some(match value {
        Value::Undefined => Literal::Undefined,
        Value::Error => Literal::Error,
        Value::Bool(b) => Literal::Boolean(*b),
        Value::Int(i) => Literal::Integer(*i),
        Value::Real(r) => Literal::Real(*r),
        Value::Str(s) => Literal::String(s.as_ref().into()),
        _ => return None,
    })
}

impl std::ops::Deref for Definition {
    type Target = Attribute;
    #[inline]
    fn deref(&self) -> &Attribute {
        self.attribute.get_or_init(|| self.materialize())
    }
}

/// The attribute names of an ad, in slot order, with their index. Ads with
/// the same names in the same order (one startd's slots, one submit's jobs)
/// share one layout, so the index costs nothing per ad.
#[derive(Clone, Default)]
pub struct AdLayout {
    /// The symbol of each attribute, by slot.
    keys: Vec<Symbol>,
    /// The index: open addressing, probed linearly from a symbol's hash,
    /// at most half full. Each bucket holds the slot plus one (0: empty)
    /// and the hash's high half, compared before the key. Eight bytes a
    /// bucket where a map of symbols takes thirty-two: the index of a
    /// 150-attribute slot ad is 2 KB.
    table: Box<[(u32, u32)]>,
    /// Whether some attribute is named `my`, `target`, `self`, `parent`,
    /// `root` or `toplevel`, which then shadow their special meaning.
    shadows_special_names: bool,
}

impl AdLayout {
    /// The layout of attributes with these symbols, in this order; a symbol
    /// given twice keeps its first slot.
    pub fn new(symbols: impl IntoIterator<Item = Symbol>) -> AdLayout {
        let symbols = symbols.into_iter();
        let mut layout = AdLayout {
            keys: Vec::with_capacity(symbols.size_hint().0),
            ..AdLayout::default()
        };
        for symbol in symbols {
            layout.push(symbol);
        }
        layout.keys.shrink_to_fit();
        layout
    }

    /// Adds `symbol` in a new slot unless it has one; its slot.
    fn push(&mut self, symbol: Symbol) -> u32 {
        if let Some(slot) = self.slot(&symbol) {
            return slot;
        }
        // Slots are numbered in u32 with room for the empty mark; an ad of
        // four billion attributes cannot be read anyway.
        let Ok(slot) = u32::try_from(self.keys.len()) else {
            return u32::MAX;
        };
        if slot == u32::MAX {
            return u32::MAX;
        }
        if SPECIAL_NAMES
            .iter()
            .any(|n| n.as_bytes() == symbol.as_bytes())
        {
            self.shadows_special_names = true;
        }
        self.keys.push(symbol);
        if self.keys.len() * 2 > self.table.len() {
            let size = (self.keys.len() * 2).next_power_of_two().max(8);
            self.table = vec![(0, 0); size].into_boxed_slice();
            for slot in 0..self.keys.len() {
                self.place(slot as u32);
            }
        } else {
            self.place(slot);
        }
        slot
    }

    /// Puts `slot` in the table, which has room.
    fn place(&mut self, slot: u32) {
        let hash = self.keys[slot as usize].hash;
        let mask = self.table.len() - 1;
        let mut i = hash as usize & mask;
        while self.table[i].0 != 0 {
            i = (i + 1) & mask;
        }
        self.table[i] = (slot + 1, (hash >> 32) as u32);
    }

    /// The slot of `symbol`.
    #[inline]
    pub fn slot(&self, symbol: &Symbol) -> Option<u32> {
        if self.table.is_empty() {
            return None;
        }
        let mask = self.table.len() - 1;
        let high = (symbol.hash >> 32) as u32;
        let mut i = symbol.hash as usize & mask;
        // Ends: the table is at most half full.
        loop {
            let (entry, h) = self.table[i];
            if entry == 0 {
                return None;
            }
            if h == high && self.keys[entry as usize - 1] == *symbol {
                return Some(entry - 1);
            }
            i = (i + 1) & mask;
        }
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// The body of an ad: attributes in order, indexed by symbol. Shared by
/// every value made from the same ad literal. Cloning copies references
/// only (definitions and the layout are shared), so a matchmaker can derive
/// a changed ad (a carved partitionable slot) without recompiling it.
#[derive(Clone, Default)]
pub struct AdBody {
    layout: Arc<AdLayout>,
    /// The definition in each slot of the layout.
    definitions: Vec<Arc<Definition>>,
}

/// Names with a special meaning when no attribute of that name is in scope.
pub const SPECIAL_NAMES: [&str; 6] = ["my", "target", "self", "parent", "root", "toplevel"];

impl AdBody {
    /// An empty body.
    pub fn new() -> AdBody {
        AdBody::default()
    }

    /// A body of `definitions` in the slots of `layout`; the definitions
    /// back unless there is one per slot, named as the slot is.
    pub fn with_layout(
        layout: Arc<AdLayout>,
        definitions: Vec<Arc<Definition>>,
    ) -> Result<AdBody, Vec<Arc<Definition>>> {
        let fits = layout.keys.len() == definitions.len()
            && layout
                .keys
                .iter()
                .zip(&definitions)
                .all(|(key, d)| d.name().eq_ignore_case(key.as_bytes()));
        if !fits {
            return Err(definitions);
        }
        Ok(AdBody {
            layout,
            definitions,
        })
    }

    /// [`AdBody::with_layout`] for definitions made for `layout`'s slots,
    /// in order, by a caller that built the layout from their names (a
    /// compiler): their names are not compared again, which costs more
    /// than the rest of making the body. Only their number is checked.
    pub fn with_layout_of_names(
        layout: Arc<AdLayout>,
        definitions: Vec<Arc<Definition>>,
    ) -> Result<AdBody, Vec<Arc<Definition>>> {
        if layout.keys.len() != definitions.len() {
            return Err(definitions);
        }
        debug_assert!(
            layout
                .keys
                .iter()
                .zip(&definitions)
                .all(|(key, d)| d.name().eq_ignore_case(key.as_bytes()))
        );
        Ok(AdBody {
            layout,
            definitions,
        })
    }

    /// Adds or replaces an attribute (a replaced one keeps its place).
    pub fn insert(&mut self, attribute: Attribute) {
        self.insert_definition(Arc::new(Definition::new(attribute)));
    }

    /// Adds or replaces a shared definition (a replaced one keeps its
    /// place).
    pub fn insert_definition(&mut self, definition: Arc<Definition>) {
        let symbol = Symbol::new(definition.name().as_bytes());
        match self.layout.slot(&symbol) {
            Some(slot) => self.definitions[slot as usize] = definition,
            None => {
                // A new name: this body's layout is no longer the shared one.
                Arc::make_mut(&mut self.layout).push(symbol);
                self.definitions.push(definition);
            }
        }
    }

    /// The layout of the attributes.
    pub fn layout(&self) -> &Arc<AdLayout> {
        &self.layout
    }

    /// The slot of an attribute.
    #[inline]
    pub fn slot(&self, symbol: &Symbol) -> Option<u32> {
        self.layout.slot(symbol)
    }

    /// Whether the attribute in `slot` is `symbol` (a pointer comparison
    /// for interned symbols): the check behind a slot resolved at compile
    /// time.
    #[inline]
    pub fn slot_is(&self, slot: u32, symbol: &Symbol) -> bool {
        self.layout
            .keys
            .get(slot as usize)
            .is_some_and(|key| key == symbol)
    }

    /// The value of the attribute in `slot` if it is a constant.
    #[inline]
    pub fn constant(&self, slot: u32) -> Option<&Value> {
        self.definitions.get(slot as usize)?.constant()
    }

    /// The attribute in a slot.
    #[inline]
    pub fn attribute(&self, slot: u32) -> &Attribute {
        &self.definitions[slot as usize]
    }

    /// The attribute named `name`, ignoring case.
    pub fn get<T: AsRef<[u8]> + ?Sized>(&self, name: &T) -> Option<&Attribute> {
        self.slot(&Symbol::transient(name))
            .map(|s| self.attribute(s))
    }

    /// All attributes in order (each dereferences to an [`Attribute`]).
    pub fn attributes(&self) -> &[Arc<Definition>] {
        &self.definitions
    }

    /// Number of attributes.
    pub fn len(&self) -> usize {
        self.definitions.len()
    }

    /// Whether there are no attributes.
    pub fn is_empty(&self) -> bool {
        self.definitions.is_empty()
    }

    /// Whether an attribute shadows a special name.
    pub fn shadows_special_names(&self) -> bool {
        self.layout.shadows_special_names
    }
}

/// An ad in its scope: a body and the ad it was written in (none for a
/// top-level ad).
pub struct AdValue {
    /// The attributes.
    pub body: Arc<AdBody>,
    /// The lexically enclosing ad.
    pub parent: Option<AdRef>,
    /// Whether this is the value of `ad["name"]`, which in HTCondor has lost
    /// its scope: selecting from it is UNDEFINED (docs/differences.md).
    pub detached: bool,
    /// Which copy of the written ad this is (0: the ad as written, or an ad
    /// written inside it). HTCondor copies an ad a selection over a list
    /// collects, and the copy's attributes are new expression trees: being
    /// evaluated in the original does not make them circular
    /// (`Vm::attribute_value` keys attributes being evaluated by it).
    pub copy: u64,
}

/// A shared reference to an ad in scope.
pub type AdRef = Arc<AdValue>;

impl AdValue {
    /// A top-level ad.
    pub fn top_level(body: Arc<AdBody>) -> AdRef {
        Arc::new(AdValue {
            body,
            parent: None,
            detached: false,
            copy: 0,
        })
    }

    /// An ad written inside `parent` (inside the same copy of it).
    pub fn nested(body: Arc<AdBody>, parent: AdRef) -> AdRef {
        let copy = parent.copy;
        Arc::new(AdValue {
            body,
            parent: Some(parent),
            detached: false,
            copy,
        })
    }

    /// A new copy of an ad, as HTCondor's `ClassAd::Copy` makes one: its
    /// attributes (and the ads written in them) are other trees than the
    /// original's.
    pub fn copied(body: Arc<AdBody>, parent: Option<AdRef>) -> AdRef {
        static COPIES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Arc::new(AdValue {
            body,
            parent,
            detached: false,
            copy: COPIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }

    /// The ad as `ad["name"]` gives it in HTCondor: without the ads around
    /// it, and marked so that selecting from it is UNDEFINED.
    pub fn detached(body: Arc<AdBody>) -> AdRef {
        Arc::new(AdValue {
            body,
            parent: None,
            detached: true,
            copy: 0,
        })
    }

    /// The outermost ad of the scope chain.
    pub fn root(self: &AdRef) -> AdRef {
        self.root_ref().clone()
    }

    /// The outermost ad of the scope chain, borrowed.
    #[inline]
    // Elision does not apply to a `self: &Arc<Self>` receiver in 1.95,
    // whatever clippy suggests.
    #[allow(clippy::needless_lifetimes)]
    pub fn root_ref<'a>(self: &'a AdRef) -> &'a AdRef {
        let mut ad = self;
        while let Some(parent) = &ad.parent {
            ad = parent;
        }
        ad
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Class 5 of tests/gen/known_bugs.txt: a symbol is the name's bytes,
    /// folded for ASCII letters only (HTCondor's `strcasecmp`), so names
    /// that differ in bytes that are not UTF-8, or in the case of a letter
    /// outside ASCII, are different symbols.
    #[test]
    fn symbols_are_bytes_folded_for_ascii_only() {
        assert_ne!(Symbol::new(b"\xfe"), Symbol::new(b"\xff"));
        assert_eq!(Symbol::new(b"A\xff"), Symbol::new(b"a\xff"));
        assert_eq!(Symbol::transient(b"X\xffY"), Symbol::new(b"x\xffy"));
        assert_ne!(Symbol::new("É"), Symbol::new("é"));
        let layout = AdLayout::new([&b"\xfe"[..], b"\xff", b"A\x80"].map(Symbol::new));
        assert_eq!(layout.slot(&Symbol::transient(b"\xff")), Some(1));
        assert_eq!(layout.slot(&Symbol::transient(b"a\x80")), Some(2));
        assert_eq!(layout.slot(&Symbol::transient("\u{FFFD}")), None);
        assert_ne!(Symbol::new(b"\xfe").text(), Symbol::new(b"\xff").text());
    }

    #[test]
    fn layout_index_finds_every_name_and_nothing_else() {
        for n in [0usize, 1, 2, 7, 8, 9, 150, 1000] {
            let names: Vec<String> = (0..n).map(|i| format!("Attr{i}")).collect();
            let layout = AdLayout::new(names.iter().map(Symbol::new));
            assert_eq!(layout.len(), n);
            for (slot, name) in names.iter().enumerate() {
                // Found by the interned symbol and by a transient one.
                assert_eq!(layout.slot(&Symbol::new(name)), Some(slot as u32));
                let upper = name.to_ascii_uppercase();
                assert_eq!(layout.slot(&Symbol::transient(&upper)), Some(slot as u32));
            }
            assert_eq!(layout.slot(&Symbol::new("absent")), None);
            assert!(layout.table.iter().filter(|b| b.0 != 0).count() == n);
            assert!(n == 0 || layout.table.len() >= 2 * n);
        }
    }

    #[test]
    fn a_literal_definition_stays_small() {
        // What a pool's values that no other ad repeats cost (with the
        // reference counts of its Arc).
        assert!(std::mem::size_of::<Definition>() <= 56);
    }

    #[test]
    fn layout_keeps_the_first_slot_of_a_name_given_twice() {
        let layout = AdLayout::new(["a", "B", "A", "c"].map(Symbol::new));
        assert_eq!(layout.len(), 3);
        assert_eq!(layout.slot(&Symbol::new("a")), Some(0));
        assert_eq!(layout.slot(&Symbol::new("c")), Some(2));
    }

    #[test]
    fn layout_notes_names_that_shadow_special_ones() {
        assert!(!AdLayout::new(["a"].map(Symbol::new)).shadows_special_names);
        assert!(AdLayout::new(["a", "Target"].map(Symbol::new)).shadows_special_names);
    }
}
