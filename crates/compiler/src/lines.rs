//! Compiling old-syntax ads from the bytes of their lines.
//!
//! The ads of a pool repeat most of their lines exactly: the same
//! `Requirements` in every job of a submit, the same `Arch = "X86_64"` in
//! every slot. A [`LineCompiler`] remembers what each line it has read
//! means (its name, and its definition or its tree) by the line's bytes,
//! so a line met again is neither parsed nor compiled: it costs a hash of
//! its bytes. Only new lines are read, plain literals (`Memory = 2048`,
//! `Name = "slot1@host"`) by a few comparisons, the rest by the parser,
//! and their definitions come from the [`CompileCache`] as the parser's
//! path gets them, so the ads are those of
//! [`Compiler::compile_ad`] over the parsed ad: the same layouts, the same
//! definitions shared between the same ads.
//!
//! Whatever it is not sure of (a line that does not parse, a name given
//! twice, a definition that does not compile) it declines, for the
//! caller to read the whole ad by the parser, which gives the error.

use crate::{CompileCache, Compiler, Layout};
use classad_syntax::{
    Dialect, Expr, ExprKind, Literal, Name, ParseOptions, Parser, ast::is_plain_identifier,
};
use classad_vm::{AdBody, AdLayout, Definition, Registry, Symbol};
use std::collections::HashMap;
use std::sync::Arc;

type Table<K, V> = HashMap<K, V, ahash::RandomState>;

/// The hash of lines: a folded multiply per eight bytes, from a seed
/// drawn once per process (so that input cannot be made to collide
/// without knowing it). Cheaper than ahash on 30-byte lines, and hashing
/// is most of what a line met before costs.
#[derive(Clone, Copy)]
struct LineHash(u64);

impl Default for LineHash {
    fn default() -> LineHash {
        static SEED: std::sync::LazyLock<u64> = std::sync::LazyLock::new(|| {
            use std::hash::BuildHasher;
            std::collections::hash_map::RandomState::new().hash_one(0x11e5_u64)
        });
        LineHash(*SEED)
    }
}

impl std::hash::BuildHasher for LineHash {
    type Hasher = LineHasher;
    fn build_hasher(&self) -> LineHasher {
        LineHasher(self.0)
    }
}

struct LineHasher(u64);

const MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

/// The high and low halves of a full product, folded together.
fn fold(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

impl std::hash::Hasher for LineHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            h = fold(
                h ^ u64::from_le_bytes(word.try_into().expect("eight")),
                MULTIPLIER,
            );
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            h = fold(h ^ u64::from_le_bytes(word), MULTIPLIER);
        }
        self.0 = h;
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = fold(self.0 ^ n as u64, MULTIPLIER);
    }

    fn finish(&self) -> u64 {
        fold(self.0, MULTIPLIER ^ 0x2d35_8dcc_aa6c_78a5)
    }
}

/// A line with its hash, which the table of lines keeps so that growing
/// it does not hash every line again.
#[derive(Clone, Copy)]
struct LineKey<'t> {
    /// Half of the line's hash: the table's entries stay as small as
    /// without it.
    hash: u32,
    /// The line's index in `LineCompiler::known` (not compared).
    index: u32,
    line: &'t [u8],
}

impl std::hash::Hash for LineKey<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // The table takes its buckets from the low bits and a tag from
        // the top seven: both from the half kept.
        state.write_u64(u64::from(self.hash) * 0x1_0000_0001);
    }
}

impl PartialEq for LineKey<'_> {
    fn eq(&self, other: &LineKey<'_>) -> bool {
        self.hash == other.hash && self.line == other.line
    }
}

impl Eq for LineKey<'_> {}

/// Passes on the hash a [`LineKey`] holds.
#[derive(Default)]
struct StoredHash(u64);

impl std::hash::Hasher for StoredHash {
    fn write(&mut self, bytes: &[u8]) {
        // Not reached: a `LineKey` writes one `u64`.
        for &b in bytes {
            self.0 = fold(self.0 ^ u64::from(b), MULTIPLIER);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Distinct lines remembered before the tables start over: a pool has
/// far fewer, and input made of distinct lines costs bounded memory.
const CAPACITY: usize = 1 << 20;

/// Compiles old-syntax ads from their lines, remembering the lines of the
/// ads it compiled (see the module's documentation). One per thread: the
/// definitions it hands out are shared through the [`CompileCache`].
pub struct LineCompiler<'t, 'c> {
    compiler: Compiler<'c>,
    cache: &'c CompileCache,
    parser: Parser,
    /// Whether plain literals may be read without the parser (the
    /// options are the defaults, under which the parser reads them as
    /// this module does).
    literals: bool,
    /// Each line read, by its bytes, to its index in `known`.
    lines: std::collections::HashSet<LineKey<'t>, std::hash::BuildHasherDefault<StoredHash>>,
    seed: LineHash,
    known: Vec<Known>,
    /// Each name spelling, to its index in `symbols`.
    names: Table<Box<[u8]>, u32>,
    symbols: Vec<Symbol>,
    /// The definitions of lines that are not literals, by the address of
    /// the layout they were compiled in and the line's index.
    compiled: Table<(usize, u32), Arc<Definition>>,
    /// Layouts by the indices of their names, in order.
    layouts: Table<Box<[u32]>, Layout>,
    /// The lines (with their indices in `known`) and the names of the ad
    /// being compiled.
    order: Vec<(&'t [u8], u32)>,
    /// The lines of the ad compiled before: most ads repeat the previous
    /// one's line at the same place, which a compare of its bytes finds
    /// without hashing the line.
    previous: Vec<(&'t [u8], u32)>,
    key: Vec<u32>,
    /// A layout for literals, which need none.
    no_layout: Layout,
}

/// What a line means.
struct Known {
    name: Name,
    /// Index of the name in `LineCompiler::symbols`.
    name_id: u32,
    meaning: Meaning,
    /// Where the value starts in a line read as a plain literal (after
    /// `Name = `); 0 for other lines.
    value_at: u32,
}

enum Meaning {
    /// A literal: one definition in every layout.
    Literal(Arc<Definition>),
    /// Anything else, compiled in each layout it is met in.
    Tree(Arc<Expr>),
}

impl<'t, 'c> LineCompiler<'t, 'c> {
    /// A compiler of lines resolving calls in `registry`, sharing through
    /// `cache` (made by [`CompileCache::for_pool`]), parsing with
    /// `options`. `None` for a cache that does not keep literals, whose
    /// ads do not share them.
    pub fn new(
        registry: &'c Registry,
        cache: &'c CompileCache,
        options: ParseOptions,
    ) -> Option<LineCompiler<'t, 'c>> {
        if !cache.literals {
            return None;
        }
        let defaults = ParseOptions::default();
        let literals = options.dialect == Dialect::HTCondor
            && !options.strict
            && options.max_depth >= 1
            && options.work_per_byte == defaults.work_per_byte;
        Some(LineCompiler {
            compiler: Compiler::with_cache(registry, cache),
            cache,
            parser: Parser::new(options),
            literals,
            lines: std::collections::HashSet::with_capacity_and_hasher(4096, Default::default()),
            seed: LineHash::default(),
            known: Vec::new(),
            names: Table::default(),
            symbols: Vec::new(),
            compiled: Table::default(),
            layouts: Table::default(),
            order: Vec::new(),
            previous: Vec::new(),
            key: Vec::new(),
            no_layout: Arc::new(AdLayout::default()),
        })
    }

    /// The body of the ad of these lines (without line ends or comment
    /// lines), as [`Compiler::compile_ad`] makes it from the parsed ad, or
    /// `None` to leave the ad to the parser.
    pub fn compile_ad(&mut self, lines: &[&'t [u8]]) -> Option<AdBody> {
        if self.known.len() >= CAPACITY {
            self.forget();
        }
        self.order.clear();
        self.key.clear();
        for (k, &line) in lines.iter().enumerate() {
            let same_as_previous = self
                .previous
                .get(k)
                .filter(|&&(previous, _)| previous == line);
            let i = match same_as_previous {
                Some(&(_, i)) => i,
                None => {
                    use std::hash::BuildHasher;
                    let key = LineKey {
                        hash: self.seed.hash_one(line) as u32,
                        index: 0,
                        line,
                    };
                    match self.lines.get(&key) {
                        Some(known) => known.index,
                        None => self.learn(key, self.previous.get(k).copied())?,
                    }
                }
            };
            self.order.push((line, i));
            self.key.push(self.known[i as usize].name_id);
        }
        let layout = match self.layouts.get(&self.key[..]) {
            Some(layout) => layout.clone(),
            None => self.new_layout()?,
        };
        let address = Arc::as_ptr(&layout) as usize;
        let mut definitions = Vec::with_capacity(self.order.len());
        for &(_, i) in &self.order {
            let known = &self.known[i as usize];
            let definition = match &known.meaning {
                Meaning::Literal(definition) => definition.clone(),
                Meaning::Tree(expr) => match self.compiled.get(&(address, i)) {
                    Some(definition) => definition.clone(),
                    None => {
                        let definition = self
                            .compiler
                            .definition_of(&known.name, expr, Some(expr), &layout)
                            .ok()?;
                        self.compiled.insert((address, i), definition.clone());
                        definition
                    }
                },
            };
            definitions.push(definition);
        }
        std::mem::swap(&mut self.order, &mut self.previous);
        // Each definition is named as its line, whose name made the slot.
        AdBody::with_layout_of_names(layout, definitions).ok()
    }

    /// Reads a line not met before; its index in `known`.
    fn learn(&mut self, key: LineKey<'t>, hint: Option<(&'t [u8], u32)>) -> Option<u32> {
        let line = key.line;
        if let Some(i) = hint.and_then(|(like, i)| self.learn_like(key, like, i)) {
            return Some(i);
        }
        let text = std::str::from_utf8(line).ok()?;
        let (name, expr, value_at) = match self.literals.then(|| plain_literal(text)).flatten() {
            Some((name, literal, value_at)) => (
                self.parser.intern(name),
                Expr::literal(literal),
                u32::try_from(value_at).unwrap_or(0),
            ),
            None => {
                let (name, expr) = self.parser.parse_old_line(text).ok()?;
                (name, expr, 0)
            }
        };
        let meaning = match expr.kind {
            ExprKind::Literal(_) => Meaning::Literal(
                self.compiler
                    .definition(&name, &expr, &self.no_layout)
                    .ok()?,
            ),
            _ => Meaning::Tree(Arc::new(expr)),
        };
        let name_id = match self.names.get(name.as_bytes()) {
            Some(&id) => id,
            None => {
                let id = u32::try_from(self.symbols.len()).ok()?;
                self.symbols.push(Symbol::new(name.as_bytes()));
                self.names.insert(name.as_bytes().into(), id);
                id
            }
        };
        self.remember(key, name, name_id, meaning, value_at)
    }

    /// Reads a new line that starts as the plain literal line `like`
    /// does, up to its value (`Name = "slot1@a"` after `Name = "slot2@a"`),
    /// as [`plain_literal`] would, but taking the name from `like`: no
    /// interning, no looking up its spelling. `None` to read it in full.
    fn learn_like(&mut self, key: LineKey<'t>, like_line: &[u8], like: u32) -> Option<u32> {
        let like = &self.known[like as usize];
        let value_at = like.value_at as usize;
        if value_at == 0 || key.line.get(..value_at)? != like_line.get(..value_at)? {
            return None;
        }
        let mut value = &key.line[value_at..];
        while let [rest @ .., b' ' | b'\t'] = value {
            value = rest;
        }
        // The name and `=` are ASCII: the line is UTF-8 if its value is.
        let literal = literal(std::str::from_utf8(value).ok()?)?;
        let (name, name_id) = (like.name.clone(), like.name_id);
        let definition = self
            .compiler
            .definition(&name, &Expr::literal(literal), &self.no_layout)
            .ok()?;
        self.remember(
            key,
            name,
            name_id,
            Meaning::Literal(definition),
            value_at as u32,
        )
    }

    /// Records a line's meaning; its index in `known`.
    fn remember(
        &mut self,
        key: LineKey<'t>,
        name: Name,
        name_id: u32,
        meaning: Meaning,
        value_at: u32,
    ) -> Option<u32> {
        let i = u32::try_from(self.known.len()).ok()?;
        self.known.push(Known {
            name,
            name_id,
            meaning,
            value_at,
        });
        self.lines.insert(LineKey { index: i, ..key });
        Some(i)
    }

    /// The layout of the names in `key`, from the cache as the parser's
    /// path gets it; `None` when a name is given twice (the parser keeps
    /// the last definition in the first one's place).
    fn new_layout(&mut self) -> Option<Layout> {
        // One index per spelling: a name given twice is an index twice.
        let mut sorted = self.key.clone();
        sorted.sort_unstable();
        if sorted.windows(2).any(|pair| pair[0] == pair[1]) {
            return None;
        }
        let symbols: Vec<Symbol> = self
            .key
            .iter()
            .map(|&id| self.symbols[id as usize].clone())
            .collect();
        let layout = self.cache.layout(symbols);
        self.layouts.insert(self.key[..].into(), layout.clone());
        Some(layout)
    }

    /// Starts over with empty tables.
    fn forget(&mut self) {
        self.lines.clear();
        self.previous.clear();
        self.known.clear();
        self.names.clear();
        self.symbols.clear();
        self.compiled.clear();
        self.layouts.clear();
    }
}

/// `Name = literal` read as the parser reads it, for a plain name and a
/// literal the parser reads without question: a decimal integer of at
/// most 18 characters, a decimal real without exponent, a string without
/// backslashes, `true`, `false`, `undefined` or `error`. `None` for
/// anything else, which the parser reads. With the name, the literal and
/// where the value starts.
fn plain_literal(line: &str) -> Option<(&str, Literal, usize)> {
    let bytes = line.as_bytes();
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut i = 0;
    while i < bytes.len() && blank(bytes[i]) {
        i += 1;
    }
    let start = i;
    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
        i += 1;
    }
    let name = &line[start..i];
    // A plain identifier: it starts with a letter or `_` and is no
    // reserved word.
    if !is_plain_identifier(name) {
        return None;
    }
    while i < bytes.len() && blank(bytes[i]) {
        i += 1;
    }
    if bytes.get(i) != Some(&b'=') {
        return None;
    }
    i += 1;
    while i < bytes.len() && blank(bytes[i]) {
        i += 1;
    }
    let mut end = bytes.len();
    while end > i && blank(bytes[end - 1]) {
        end -= 1;
    }
    Some((name, literal(&line[i..end])?, i))
}

/// The literal that is all of `text`, for the forms [`plain_literal`]
/// reads.
fn literal(text: &str) -> Option<Literal> {
    let bytes = text.as_bytes();
    match *bytes.first()? {
        b'"' => {
            let body = bytes.get(1..bytes.len().checked_sub(1)?)?;
            let plain = bytes.len() >= 2
                && bytes[bytes.len() - 1] == b'"'
                && !body.iter().any(|&b| matches!(b, b'"' | b'\\' | 0));
            plain.then(|| Literal::String(body.into()))
        }
        b'-' | b'0'..=b'9' => number(text),
        _ => {
            let word = |w: &str| text.eq_ignore_ascii_case(w);
            if word("true") {
                Some(Literal::Boolean(true))
            } else if word("false") {
                Some(Literal::Boolean(false))
            } else if word("undefined") {
                Some(Literal::Undefined)
            } else if word("error") {
                Some(Literal::Error)
            } else {
                None
            }
        }
    }
}

/// A decimal integer (`-12`, at most 18 characters so that it fits) or
/// real (`0.25`), with no leading zero, exponent or suffix.
fn number(text: &str) -> Option<Literal> {
    let negative = text.starts_with('-');
    let unsigned = &text[usize::from(negative)..];
    let (whole, fraction) = match unsigned.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (unsigned, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || (whole.len() > 1 && whole.starts_with('0')) {
        return None;
    }
    match fraction {
        Some(fraction) => {
            if !digits(fraction) {
                return None;
            }
            let value: f64 = unsigned.parse().ok()?;
            Some(Literal::Real(if negative { -value } else { value }))
        }
        None if text.len() <= 18 => {
            let value = whole
                .bytes()
                .fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
            Some(Literal::Integer(if negative { -value } else { value }))
        }
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every form `plain_literal` reads, read by the parser to the same
    /// name and literal; every form it declines is declined.
    #[test]
    fn plain_literals_read_as_the_parser_reads_them() {
        let parser = Parser::new(ParseOptions::default());
        let read = [
            "A = 1",
            "A = -1",
            "A = 0",
            "A = -0",
            "\t A\t=\t12 \t",
            "A = 123456789012345678",
            "A = -12345678901234567",
            "A = 0.5",
            "A = -0.0",
            "A = 12.25",
            "A = 1.000000000000000000000001",
            "A = \"\"",
            "A = \"x y\"",
            "A = \"caf\u{e9} \u{1}\"",
            "A = true",
            "A = FALSE",
            "A = Undefined",
            "A = error",
            "_a1 = 1",
        ];
        for line in read {
            let (name, lit, _) = plain_literal(line).unwrap_or_else(|| panic!("{line:?}"));
            let (parsed_name, expr) = parser.parse_old_line(line).expect(line);
            assert_eq!(name.as_bytes(), parsed_name.as_bytes(), "{line:?}");
            assert_eq!(Expr::literal(lit), expr, "{line:?}");
        }
        let declined = [
            "A = 01",
            "A = 1234567890123456789",
            "A = 1e5",
            "A = 1.",
            "A = .5",
            "A = 1.5e3",
            "A = - 1",
            "A = +1",
            "A = 1K",
            "A = 0x10",
            "A = \"a\\\"b\"",
            "A = \"a\" \"b\"",
            "A = \"a",
            "A = \"",
            "A = \"\0\"",
            "A = truex",
            "A = x",
            "A = 1 + 1",
            "1A = 1",
            "true = 1",
            "parent = 1",
            "'A' = 1",
            "A == 1",
            "A = ",
            "A",
            "A\u{b} = 1",
            "A = 1\r",
        ];
        for line in declined {
            assert!(plain_literal(line).is_none(), "{line:?}");
        }
    }
}
