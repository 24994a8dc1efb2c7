//! The abstract syntax tree of ClassAd expressions.
//!
//! The tree keeps everything HTCondor's own tree keeps, so that unparsing
//! reproduces the source faithfully: parentheses are nodes of their own
//! (`(a)` and `a` unparse differently in HTCondor), `=?=` and `is` are one
//! operator (HTCondor prints both as `is`), and a negative number written
//! without a space (`-3`) is a literal while `- 3` is unary minus applied
//! to a literal (spec 003, "Composing Literals"; checked with the oracle).
//!
//! Source spans are kept on every node but take no part in equality: two
//! trees are equal when they have the same shape, operators, names and
//! literals. Reals compare by bit pattern so that NaN equals itself.

use std::fmt;
use std::sync::Arc;

/// A byte range in the source text: `start..end`, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Offset of the first byte.
    pub start: u32,
    /// Offset one past the last byte.
    pub end: u32,
}

impl Span {
    /// A span from `start` to `end` (byte offsets, saturated to `u32`).
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: u32::try_from(start).unwrap_or(u32::MAX),
            end: u32::try_from(end).unwrap_or(u32::MAX),
        }
    }

    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// An attribute or function name, exactly as written.
///
/// ClassAd names are case-insensitive (spec 003, "Attributes"), but the
/// spelling is kept for unparsing; compare with [`Name::eq_ignore_case`].
/// Names are shared: the parser interns each distinct spelling once per
/// document, so a pool of ads that all say `Requirements` holds one copy.
///
/// A name is bytes, not text: a quoted name may hold any byte but NUL
/// (`'\377'` is the one byte 0xFF, as in HTCondor, whose names are C++
/// strings), so two names that differ only in bytes that are not UTF-8
/// stay two names. Case is folded for ASCII letters only, as HTCondor's
/// `strcasecmp` does in the C locale.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(Arc<[u8]>);

impl Name {
    /// A name with this spelling.
    pub fn new(text: &str) -> Name {
        Name(Arc::from(text.as_bytes()))
    }

    /// A name of these bytes (a quoted name's, after escapes).
    pub fn from_bytes(bytes: &[u8]) -> Name {
        Name(Arc::from(bytes))
    }

    /// The name's bytes, as written.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The name as text, when its bytes are UTF-8 (every name but one
    /// written with escapes that make other bytes).
    pub fn to_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    /// The name as text for messages: bytes that are not UTF-8 become
    /// U+FFFD. Never use it to look a name up.
    pub fn to_string_lossy(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.0)
    }

    /// The name as text that keeps every name distinct: the name itself
    /// when it is UTF-8, else a NUL (which no name holds) and the bytes
    /// escaped. For tables of names kept as strings; not for printing.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        name_text(&self.0)
    }

    /// ClassAd name equality: ASCII case-insensitive, every other byte
    /// exact (HTCondor's `strcasecmp`).
    pub fn eq_ignore_case<T: AsRef<[u8]> + ?Sized>(&self, other: &T) -> bool {
        self.0.eq_ignore_ascii_case(other.as_ref())
    }

    /// Whether the name can be written bare, without single quotes: an
    /// identifier that is not one of the reserved words.
    pub fn is_plain_identifier(&self) -> bool {
        is_plain_identifier_bytes(&self.0)
    }
}

/// [`Name::text`] of a name's bytes.
pub fn name_text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.into(),
        Err(_) => format!("\0{}", bytes.escape_ascii()).into(),
    }
}

impl From<Arc<str>> for Name {
    fn from(text: Arc<str>) -> Name {
        Name::new(&text)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_str() {
            Some(text) => write!(f, "{text:?}"),
            None => write!(f, "\"{}\"", self.0.escape_ascii()),
        }
    }
}

impl fmt::Display for Name {
    /// The name as text, bytes that are not UTF-8 shown as U+FFFD: for
    /// messages; unparse with `write_name`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

/// The words that cannot be attribute names unless quoted. `parent` is one
/// (HTCondor unparses an attribute named `parent` as `'parent'`); `self`,
/// `root`, `my`, `target` and `super` are ordinary names that the evaluator
/// treats specially.
pub const RESERVED_WORDS: [&str; 7] = [
    "true",
    "false",
    "undefined",
    "error",
    "is",
    "isnt",
    "parent",
];

/// Whether `text` is an identifier that may be written without quotes.
pub fn is_plain_identifier(text: &str) -> bool {
    is_plain_identifier_bytes(text.as_bytes())
}

/// [`is_plain_identifier`] of a name's bytes.
pub fn is_plain_identifier_bytes(text: &[u8]) -> bool {
    let mut bytes = text.iter().copied();
    match bytes.next() {
        Some(b) if b.is_ascii_alphabetic() || b == b'_' => {}
        _ => return false,
    }
    bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !RESERVED_WORDS
            .iter()
            .any(|w| w.as_bytes().eq_ignore_ascii_case(text))
}

/// A literal value written in the source.
#[derive(Clone, Debug)]
pub enum Literal {
    /// `42`, `-7` (a 64-bit signed integer).
    Integer(i64),
    /// `3.14`, `.5`, `1e10`.
    Real(f64),
    /// `"text"`, after escape processing. Strings are byte strings: an
    /// octal escape such as `\377` can produce bytes that are not UTF-8.
    String(Box<[u8]>),
    /// `true` or `false`, in any case.
    Boolean(bool),
    /// `undefined`, in any case.
    Undefined,
    /// `error`, in any case.
    Error,
}

impl PartialEq for Literal {
    fn eq(&self, other: &Literal) -> bool {
        match (self, other) {
            (Literal::Integer(a), Literal::Integer(b)) => a == b,
            (Literal::Real(a), Literal::Real(b)) => a.to_bits() == b.to_bits(),
            (Literal::String(a), Literal::String(b)) => a == b,
            (Literal::Boolean(a), Literal::Boolean(b)) => a == b,
            (Literal::Undefined, Literal::Undefined) | (Literal::Error, Literal::Error) => true,
            _ => false,
        }
    }
}

/// Prefix operators (spec 003, "Expression Operators").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Minus,
    /// `+x`
    Plus,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
}

impl UnaryOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Minus => "-",
            UnaryOp::Plus => "+",
            UnaryOp::Not => "!",
            UnaryOp::BitNot => "~",
        }
    }
}

/// Infix operators, from the loosest binding to the tightest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&`
    BitAnd,
    /// `==`
    Equal,
    /// `!=`
    NotEqual,
    /// `=?=` or `is`: identical, case-sensitive, never UNDEFINED.
    Is,
    /// `=!=` or `isnt`.
    Isnt,
    /// `<`
    Less,
    /// `<=`
    LessEqual,
    /// `>`
    Greater,
    /// `>=`
    GreaterEqual,
    /// `<<`
    ShiftLeft,
    /// `>>` (arithmetic)
    ShiftRight,
    /// `>>>` (logical)
    ShiftRightUnsigned,
    /// `+`
    Add,
    /// `-`
    Subtract,
    /// `*`
    Multiply,
    /// `/`
    Divide,
    /// `%`
    Modulo,
}

impl BinaryOp {
    /// Every binary operator, for generators and tables.
    pub const ALL: [BinaryOp; 21] = [
        BinaryOp::Or,
        BinaryOp::And,
        BinaryOp::BitOr,
        BinaryOp::BitXor,
        BinaryOp::BitAnd,
        BinaryOp::Equal,
        BinaryOp::NotEqual,
        BinaryOp::Is,
        BinaryOp::Isnt,
        BinaryOp::Less,
        BinaryOp::LessEqual,
        BinaryOp::Greater,
        BinaryOp::GreaterEqual,
        BinaryOp::ShiftLeft,
        BinaryOp::ShiftRight,
        BinaryOp::ShiftRightUnsigned,
        BinaryOp::Add,
        BinaryOp::Subtract,
        BinaryOp::Multiply,
        BinaryOp::Divide,
        BinaryOp::Modulo,
    ];

    /// The operator as HTCondor's new-syntax unparser writes it (`=?=`
    /// comes out as `is`, `=!=` as `isnt`).
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Or => "||",
            BinaryOp::And => "&&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::BitAnd => "&",
            BinaryOp::Equal => "==",
            BinaryOp::NotEqual => "!=",
            BinaryOp::Is => "is",
            BinaryOp::Isnt => "isnt",
            BinaryOp::Less => "<",
            BinaryOp::LessEqual => "<=",
            BinaryOp::Greater => ">",
            BinaryOp::GreaterEqual => ">=",
            BinaryOp::ShiftLeft => "<<",
            BinaryOp::ShiftRight => ">>",
            BinaryOp::ShiftRightUnsigned => ">>>",
            BinaryOp::Add => "+",
            BinaryOp::Subtract => "-",
            BinaryOp::Multiply => "*",
            BinaryOp::Divide => "/",
            BinaryOp::Modulo => "%",
        }
    }

    /// The operator as the old-syntax unparser writes it (`=?=`, `=!=`).
    pub fn old_symbol(self) -> &'static str {
        match self {
            BinaryOp::Is => "=?=",
            BinaryOp::Isnt => "=!=",
            other => other.symbol(),
        }
    }

    /// Binding strength: larger binds tighter. Every binary operator is
    /// left-associative (spec 003, "Expression Operators").
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::Or => 3,
            BinaryOp::And => 4,
            BinaryOp::BitOr => 5,
            BinaryOp::BitXor => 6,
            BinaryOp::BitAnd => 7,
            BinaryOp::Equal | BinaryOp::NotEqual | BinaryOp::Is | BinaryOp::Isnt => 8,
            BinaryOp::Less | BinaryOp::LessEqual | BinaryOp::Greater | BinaryOp::GreaterEqual => 9,
            BinaryOp::ShiftLeft | BinaryOp::ShiftRight | BinaryOp::ShiftRightUnsigned => 10,
            BinaryOp::Add | BinaryOp::Subtract => 11,
            BinaryOp::Multiply | BinaryOp::Divide | BinaryOp::Modulo => 12,
        }
    }
}

/// Precedence of the conditional `c ? a : b` and elvis `a ?: b` forms,
/// looser than every binary operator; both associate to the right.
pub const CONDITIONAL_PRECEDENCE: u8 = 1;
/// Precedence of prefix operators, tighter than every binary operator.
pub const UNARY_PRECEDENCE: u8 = 13;

/// An expression node with its source span.
///
/// `Clone`, `PartialEq` and `Drop` walk a selection chain in a loop (see
/// [`Expr::selection_chain`]).
#[derive(Debug)]
pub struct Expr {
    /// What the node is.
    pub kind: ExprKind,
    /// Where it was written (zero for built trees).
    pub span: Span,
}

/// A selection chain (`x.y.y.y...`) is as long as its text: HTCondor's
/// parser reads it in a loop, so it may be far deeper than any other tree.
/// Dropping it link by link keeps the stack flat; every other kind of
/// node is bounded in depth by the parser and dropped as usual.
impl Drop for Expr {
    // Inlined into the drop glue: a test of the kind for every node, the
    // walk only for a chain.
    #[inline]
    fn drop(&mut self) {
        if let ExprKind::Select { base, .. } = &self.kind
            && matches!(base.kind, ExprKind::Select { .. })
        {
            self.drop_chain();
        }
    }
}

impl Expr {
    /// Takes a selection chain apart link by link, each link's kind taken
    /// out whole and a leaf left in its place to drop.
    #[cold]
    #[inline(never)]
    fn drop_chain(&mut self) {
        let leaf = || ExprKind::Literal(Literal::Undefined);
        let mut kind = std::mem::replace(&mut self.kind, leaf());
        while let ExprKind::Select { mut base, .. } = kind {
            kind = std::mem::replace(&mut base.kind, leaf());
        }
    }
}

impl Clone for Expr {
    fn clone(&self) -> Expr {
        let mut links = Vec::new();
        let mut base = self;
        while let ExprKind::Select { base: inner, name } = &base.kind {
            links.push((name, base.span));
            base = inner;
        }
        let mut copy = Expr {
            kind: base.kind.clone(),
            span: base.span,
        };
        for (name, span) in links.into_iter().rev() {
            copy = Expr {
                kind: ExprKind::Select {
                    base: Box::new(copy),
                    name: name.clone(),
                },
                span,
            };
        }
        copy
    }
}

impl PartialEq for Expr {
    fn eq(&self, other: &Expr) -> bool {
        let (mut left, mut right) = (self, other);
        while let (ExprKind::Select { base: l, name: m }, ExprKind::Select { base: r, name: n }) =
            (&left.kind, &right.kind)
        {
            if m != n {
                return false;
            }
            (left, right) = (l, r);
        }
        left.kind == right.kind
    }
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A literal value.
    Literal(Literal),
    /// An attribute reference by name: `Memory`, `'my attr'`, and also the
    /// special names `self`, `root`, `MY`, `TARGET` when they stand alone.
    Attribute(Name),
    /// `.name`: an attribute of the root ad (spec 004, "absolute reference").
    RootAttribute(Name),
    /// `base.name`: selection, including `MY.x`, `TARGET.x`, `parent.x`.
    Select {
        /// The expression selected from.
        base: Box<Expr>,
        /// The attribute selected.
        name: Name,
    },
    /// `base[index]`: list subscript or ad lookup by string.
    Subscript {
        /// The list or ad.
        base: Box<Expr>,
        /// The index.
        index: Box<Expr>,
    },
    /// `name(args)`: a function call.
    Call {
        /// The function name, as written.
        name: Name,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// A prefix operator.
    Unary {
        /// Which operator.
        op: UnaryOp,
        /// Its operand.
        operand: Box<Expr>,
    },
    /// An infix operator.
    Binary {
        /// Which operator.
        op: BinaryOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `cond ? then : otherwise`.
    Conditional {
        /// The condition.
        cond: Box<Expr>,
        /// Value when the condition is true.
        then: Box<Expr>,
        /// Value when the condition is false.
        otherwise: Box<Expr>,
    },
    /// `value ?: fallback`: `value` unless it is UNDEFINED (or ERROR),
    /// then `fallback`.
    Elvis {
        /// The value tried first.
        value: Box<Expr>,
        /// The fallback.
        fallback: Box<Expr>,
    },
    /// `(inner)`: kept so unparsing reproduces the source.
    Paren(Box<Expr>),
    /// `{a, b, c}`.
    List(Vec<Expr>),
    /// `[a = 1; b = 2]`.
    Ad(Box<AdExpr>),
}

/// An ad literal: attribute definitions in order of appearance.
///
/// A name defined twice keeps the last definition, at the position and with
/// the spelling of the first, as HTCondor does (`[a = 1; A = 2]` is `[a = 2]`).
/// Add definitions with [`AdExpr::insert`], which keeps a name index so that
/// building an ad of n attributes costs O(n).
#[derive(Clone, Debug, Default)]
pub struct AdExpr {
    /// `(name, expression)` pairs; names are unique ignoring case.
    pub attributes: Vec<(Name, Expr)>,
    /// Name (ignoring case) to position; rebuilt when `attributes` was
    /// changed directly.
    index: ahash::AHashMap<Folded, usize>,
}

/// A name that hashes and compares ignoring ASCII case: the key of an
/// ad's index, sharing the name rather than allocating a folded copy.
#[derive(Clone, Debug)]
struct Folded(Name);

impl PartialEq for Folded {
    fn eq(&self, other: &Folded) -> bool {
        self.0.as_bytes().eq_ignore_ascii_case(other.0.as_bytes())
    }
}

impl Eq for Folded {}

impl std::hash::Hash for Folded {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // Eight bytes at a time, with bit 5 of every byte set: both cases
        // of a letter become one byte (and some other bytes too, which
        // only costs a rare collision), so names equal ignoring case hash
        // alike, without a lower-cased copy.
        const FOLD: u64 = 0x2020_2020_2020_2020;
        let bytes = self.0.as_bytes();
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            state.write_u64(u64::from_le_bytes(word) | FOLD);
        }
        let mut word = [0u8; 8];
        word[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        state.write_u64(u64::from_le_bytes(word) | FOLD);
        state.write_usize(bytes.len());
    }
}

impl FromIterator<(Name, Expr)> for AdExpr {
    /// An ad of these definitions, by [`AdExpr::insert`].
    fn from_iter<I: IntoIterator<Item = (Name, Expr)>>(definitions: I) -> AdExpr {
        let mut ad = AdExpr::new();
        for (name, expr) in definitions {
            ad.insert(name, expr);
        }
        ad
    }
}

impl PartialEq for AdExpr {
    fn eq(&self, other: &AdExpr) -> bool {
        self.attributes == other.attributes
    }
}

impl AdExpr {
    /// An empty ad.
    pub fn new() -> AdExpr {
        AdExpr::default()
    }

    /// Defines `name`; an earlier definition of the same name (ignoring
    /// case) gets the new expression and keeps its place and spelling.
    /// Returns the expression so replaced.
    pub fn insert(&mut self, name: Name, expr: Expr) -> Option<Expr> {
        use std::collections::hash_map::Entry;
        if self.index.len() != self.attributes.len() {
            self.index = self
                .attributes
                .iter()
                .enumerate()
                .map(|(i, (n, _))| (Folded(n.clone()), i))
                .collect();
        }
        let len = self.attributes.len();
        match self.index.entry(Folded(name.clone())) {
            Entry::Occupied(e) if *e.get() < len => {
                return Some(std::mem::replace(&mut self.attributes[*e.get()].1, expr));
            }
            Entry::Occupied(mut e) => {
                *e.get_mut() = len;
                self.attributes.push((name, expr));
            }
            Entry::Vacant(e) => {
                e.insert(len);
                self.attributes.push((name, expr));
            }
        }
        None
    }

    /// Frees the name index, which only [`AdExpr::insert`] uses (and
    /// rebuilds when it is needed again): a reader holding many ads holds
    /// them in about half the memory.
    pub fn drop_index(&mut self) {
        self.index = ahash::AHashMap::new();
    }

    /// An ad of definitions whose names are known to be distinct
    /// (ignoring case), without a name index (as after
    /// [`AdExpr::drop_index`]).
    pub(crate) fn from_distinct(attributes: Vec<(Name, Expr)>) -> AdExpr {
        AdExpr {
            attributes,
            index: ahash::AHashMap::new(),
        }
    }

    /// An empty ad with room for `n` attributes.
    pub fn with_capacity(n: usize) -> AdExpr {
        AdExpr {
            attributes: Vec::with_capacity(n),
            index: ahash::AHashMap::with_capacity(n),
        }
    }

    /// The definition of `name`, ignoring case.
    pub fn get<T: AsRef<[u8]> + ?Sized>(&self, name: &T) -> Option<&Expr> {
        self.attributes
            .iter()
            .find(|(n, _)| n.eq_ignore_case(name))
            .map(|(_, e)| e)
    }

    /// Number of attributes.
    pub fn len(&self) -> usize {
        self.attributes.len()
    }

    /// Whether the ad has no attributes.
    pub fn is_empty(&self) -> bool {
        self.attributes.is_empty()
    }
}

impl Expr {
    /// A node with an empty span, for trees built by programs.
    pub fn new(kind: ExprKind) -> Expr {
        Expr {
            kind,
            span: Span::default(),
        }
    }

    /// The node's kind, taken out of it (an `Expr` cannot be destructured
    /// by value: it has a `Drop` for long selection chains).
    pub fn into_kind(mut self) -> ExprKind {
        std::mem::replace(&mut self.kind, ExprKind::Literal(Literal::Undefined))
    }

    /// A literal node.
    pub fn literal(lit: Literal) -> Expr {
        Expr::new(ExprKind::Literal(lit))
    }

    /// Depth of the tree: 1 for a leaf.
    ///
    /// Iterative, so that it is safe on trees of any depth.
    pub fn depth(&self) -> usize {
        let mut max = 0;
        let mut stack = vec![(self, 1usize)];
        while let Some((e, d)) = stack.pop() {
            max = max.max(d);
            e.for_each_child(|c| stack.push((c, d + 1)));
        }
        max
    }

    /// A selection chain `base.n1.n2...nk` taken apart: the innermost base
    /// that is not a selection, and the names in source order (`n1`
    /// first). `None` for any other node. Passes over the tree walk a
    /// chain with this, in a loop: a chain is as long as its text.
    pub fn selection_chain(&self) -> Option<(&Expr, Vec<&Name>)> {
        let mut names = Vec::new();
        let mut base = self;
        while let ExprKind::Select { base: inner, name } = &base.kind {
            names.push(name);
            base = inner;
        }
        if names.is_empty() {
            return None;
        }
        names.reverse();
        Some((base, names))
    }

    /// Calls `f` on each direct child, in source order.
    pub fn for_each_child<'a>(&'a self, mut f: impl FnMut(&'a Expr)) {
        match &self.kind {
            ExprKind::Literal(_) | ExprKind::Attribute(_) | ExprKind::RootAttribute(_) => {}
            ExprKind::Select { base, .. } => f(base),
            ExprKind::Subscript { base, index } => {
                f(base);
                f(index);
            }
            ExprKind::Call { args, .. } | ExprKind::List(args) => args.iter().for_each(f),
            ExprKind::Unary { operand, .. } => f(operand),
            ExprKind::Binary { lhs, rhs, .. } => {
                f(lhs);
                f(rhs);
            }
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => {
                f(cond);
                f(then);
                f(otherwise);
            }
            ExprKind::Elvis { value, fallback } => {
                f(value);
                f(fallback);
            }
            ExprKind::Paren(inner) => f(inner),
            ExprKind::Ad(ad) => ad.attributes.iter().for_each(|(_, e)| f(e)),
        }
    }
}
