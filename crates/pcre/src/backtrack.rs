//! A small backtracking matcher with PCRE2 10.32's semantics, for the
//! patterns `fancy-regex` cannot run or runs differently: subroutine calls
//! and recursion (`(?1)`, `(?R)`, `(?&name)`, `\g<1>`), branch reset
//! `(?|...)`, duplicate names `(?J)`, conditional groups, `\K`, callouts
//! (ignored, as HTCondor sets no callout function), backtracking verbs
//! (`(*FAIL)`, `(*ACCEPT)`, `(*COMMIT)`, `(*PRUNE)`, `(*SKIP)`, `(*THEN)`,
//! `(*MARK)`), the options at the start of a pattern (`(*UTF)`, `(*UCP)`,
//! newline conventions, `(*NOTEMPTY)`, ...), references to a group that is
//! not closed yet (`(\2two|(one))+`; a group that refers to itself is
//! atomic in PCRE2 10.32, `(a\1?){4}`) and repeated groups that can match
//! nothing (PCRE2 stops repeating a group after an empty iteration, and
//! keeps what that iteration captured). It also runs PCRE2's
//! `NOTEMPTY_ATSTART | ANCHORED` retry of HTCondor's global substitution.
//!
//! The pattern is parsed into a tree, compiled to a small program and run
//! by an explicit stack (no recursion of the host: a hostile pattern costs
//! steps and memory, both bounded). Each backtracking point counts as one
//! of PCRE2's frames; one start position that needs more than PCRE2's
//! match limit is an error, as in HTCondor.

use crate::limits::{MATCH_LIMIT, MAX_REPEAT, MAX_STUDY_LENGTH, REQUIRED_SCAN_MAX};

/// Most entries on the backtracking stack (32 bytes each).
const MAX_STACK: usize = 1 << 20;
/// Most nested subroutine calls (PCRE2 keeps its frames on the heap).
const MAX_CALL_DEPTH: usize = 1 << 20;
/// Most frames looked through for a recursion that did not move.
const MAX_LOOP_CHECK: usize = 1000;
/// Most call frames kept (each holds a copy of the captures).
const MAX_FRAMES: usize = 1 << 20;
/// Most instructions of a compiled program (counted repeats of groups
/// are copied).
const MAX_PROGRAM: usize = 200_000;
/// Deepest nesting of groups the parser follows.
const MAX_NESTING: usize = 250;
/// Most nodes visited measuring the lengths of lookbehinds.
const MAX_LENGTH_WORK: u32 = 100_000;
/// Most registers saved by all call frames together (8 bytes each).
const MAX_SAVED_REGISTERS: usize = 4 << 20;
/// Steps between two calls of the budget callback.
const CHARGE_EVERY: u64 = 4096;
const UNSET: usize = usize::MAX;

/// Why a pattern is not compiled here.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum CompileError {
    /// PCRE2 refuses it.
    Invalid,
    /// PCRE2 refuses it, and it uses what only this matcher runs.
    InvalidSpecial,
    /// Valid, perhaps, but outside what this matcher implements.
    Unsupported,
}

/// Why a match failed with an error (HTCondor's answer is then ERROR).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum MatchError {
    /// PCRE2's match limit, or this matcher's memory bounds.
    Limit,
    /// A recursion that did not move (PCRE2_ERROR_RECURSELOOP).
    RecursionLoop,
    /// The subject is not UTF-8 in UTF mode.
    BadUtf,
    /// The budget callback said stop.
    Budget,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Newline {
    Lf,
    Cr,
    CrLf,
    Any,
    AnyCrLf,
    Nul,
}

#[derive(Clone, Copy, Default)]
struct Flags {
    caseless: bool,
    multiline: bool,
    dotall: bool,
    extended: bool,
    extended_more: bool,
    no_auto_capture: bool,
    ungreedy: bool,
    dupnames: bool,
}

/// A set of code units: bytes in a bitmap, anything above in ranges.
#[derive(Clone, Debug, Default)]
struct Class {
    bits: [u64; 4],
    ranges: Vec<(u32, u32)>,
    /// Unicode classes (UCP): (kind, negated).
    unicode: Vec<(Kind, bool)>,
    /// Members by a Unicode property in UTF mode (outside it they are in
    /// `bits`): never compared in the other case, as in PCRE2.
    props: Vec<(u32, u32)>,
    negated: bool,
    /// Compare also the other case (UTF mode, above ASCII).
    fold: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Digit,
    Space,
    Word,
}

impl Class {
    fn add(&mut self, c: u32) {
        if c < 256 {
            self.bits[(c >> 6) as usize] |= 1 << (c & 63);
        } else {
            self.ranges.push((c, c));
        }
    }

    fn add_range(&mut self, low: u32, high: u32) {
        for c in low..=high.min(255) {
            self.add(c);
        }
        if high > 255 {
            self.ranges.push((low.max(256), high));
        }
    }

    fn has_plain(&self, c: u32) -> bool {
        if c < 256 {
            self.bits[(c >> 6) as usize] >> (c & 63) & 1 == 1
        } else {
            self.ranges.iter().any(|&(l, h)| l <= c && c <= h)
        }
    }

    fn has(&self, c: u32) -> bool {
        let mut found = self.has_plain(c)
            || self.props.iter().any(|&(l, h)| l <= c && c <= h)
            || self
                .unicode
                .iter()
                .any(|&(kind, negated)| unicode_is(kind, c) != negated);
        if !found && self.fold {
            found = other_cases(c).any(|o| self.has_plain(o));
        }
        found != self.negated
    }

    /// Every code unit this (plain) class does not hold, as plain members,
    /// so that a union with it (`[\\H]`) takes them.
    fn complement(&mut self) {
        for bits in &mut self.bits {
            *bits = !*bits;
        }
        self.ranges.sort_unstable();
        let mut out = Vec::new();
        let mut next = 256u32;
        for &(low, high) in &self.ranges {
            if low > next {
                out.push((next, low - 1));
            }
            next = next.max(high.saturating_add(1));
        }
        if next < u32::MAX {
            out.push((next, u32::MAX));
        }
        self.ranges = out;
    }

    fn union(&mut self, other: &Class) {
        for (a, b) in self.bits.iter_mut().zip(other.bits) {
            *a |= b;
        }
        self.ranges.extend_from_slice(&other.ranges);
        self.unicode.extend_from_slice(&other.unicode);
        self.props.extend_from_slice(&other.props);
    }
}

fn unicode_is(kind: Kind, c: u32) -> bool {
    let Some(ch) = char::from_u32(c) else {
        return false;
    };
    match kind {
        Kind::Digit => {
            ch.is_numeric() && !matches!(ch, '\u{b2}' | '\u{b3}' | '\u{b9}' | '\u{bc}'..='\u{be}')
        }
        Kind::Space => ch.is_whitespace(),
        Kind::Word => ch.is_alphanumeric() || ch == '_',
    }
}

/// The other cases of a character (Unicode simple folding, approximately).
fn other_cases(c: u32) -> impl Iterator<Item = u32> {
    let ch = char::from_u32(c);
    let mut out = [None, None];
    if let Some(ch) = ch {
        let mut lower = ch.to_lowercase();
        let mut upper = ch.to_uppercase();
        if let (Some(l), None) = (lower.next(), lower.next())
            && l != ch
        {
            out[0] = Some(u32::from(l));
        }
        if let (Some(u), None) = (upper.next(), upper.next())
            && u != ch
        {
            out[1] = Some(u32::from(u));
        }
    }
    out.into_iter().flatten()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Greed {
    Greedy,
    Lazy,
    Possessive,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Anchor {
    /// `^`: with the multiline flag.
    Circ(bool),
    /// `$`: with the multiline flag.
    Dollar(bool),
    StartSubject,
    EndSubject,
    EndOrNewline,
    WordBoundary(bool),
    NotWordBoundary(bool),
    StartOffset,
}

/// A group reference before names are resolved.
#[derive(Clone, Debug)]
enum Ref {
    Number(usize),
    Name(String),
}

#[derive(Clone, Debug)]
enum Condition {
    Group(Ref),
    /// `(?(R)`, `(?(Rn)`, `(?(R&name)`.
    Recursion(Option<Ref>),
    Define,
    Version(bool),
    Assert {
        behind: bool,
        negated: bool,
        body: Box<Node>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verb {
    Fail,
    Commit,
    Prune,
    Skip,
    Then,
}

#[derive(Clone, Debug)]
enum Node {
    Empty,
    /// A single unit: one unit or a class index.
    Unit(u32),
    Set(Box<Class>),
    /// `.`, with the dotall flag.
    Any(bool),
    /// `\N`: not a newline.
    NotNewline,
    /// `\R`.
    LineBreak,
    /// `\X`.
    Grapheme,
    Seq(Vec<Node>),
    Alt(Vec<Node>),
    Capture(usize, Box<Node>),
    Atomic(Box<Node>),
    Look {
        behind: bool,
        negated: bool,
        body: Box<Node>,
    },
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
        greed: Greed,
    },
    Anchor(Anchor),
    BackRef(Ref, bool),
    Call(Ref),
    Cond {
        condition: Condition,
        yes: Box<Node>,
        no: Box<Node>,
    },
    Verb(Verb),
    /// `(*SKIP:name)`.
    SkipTo(String),
    Mark(String),
    Accept,
    Keep,
    /// A branch reset group: alternatives numbered from the same group.
    BranchReset(Vec<Node>),
}

struct Parser {
    units: Vec<u32>,
    at: usize,
    flags: Flags,
    utf: bool,
    ucp: bool,
    groups: usize,
    names: Vec<(String, usize)>,
    /// Groups closed so far (a reference to another is "forward").
    closed: Vec<bool>,
    /// The capturing groups open where the parser is, innermost last.
    open: Vec<usize>,
    /// Open groups a back reference names: PCRE2 10.32 makes each such
    /// group atomic (as PCRE1 did, and PCRE2 up to 10.34).
    self_referenced: Vec<usize>,
    /// Whether the pattern needs this matcher.
    special: bool,
    depth: usize,
    total_groups_hint: usize,
}

type Parsed<T> = Result<T, CompileError>;

fn invalid<T>() -> Parsed<T> {
    Err(CompileError::Invalid)
}

fn is_name_char(c: u32) -> bool {
    c < 128 && (c as u8).is_ascii_alphanumeric() || c == u32::from(b'_')
}

impl Parser {
    fn peek(&self) -> Option<u32> {
        self.units.get(self.at).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<u32> {
        self.units.get(self.at + offset).copied()
    }

    fn is(&self, offset: usize, c: u8) -> bool {
        self.peek_at(offset) == Some(u32::from(c))
    }

    fn starts(&self, text: &str) -> bool {
        text.bytes().enumerate().all(|(i, b)| self.is(i, b))
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.is(0, c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn skip_extended(&mut self) {
        if !self.flags.extended {
            return;
        }
        loop {
            match self.peek() {
                // PCRE2's white space: NEL too, and in UTF mode the marks
                // LRM and RLM and the line and paragraph separators.
                Some(9..=13 | 32 | 0x85 | 0x200E | 0x200F | 0x2028 | 0x2029) => self.at += 1,
                Some(35) => {
                    while let Some(c) = self.peek() {
                        self.at += 1;
                        if c == 10 {
                            break;
                        }
                    }
                }
                _ => break,
            }
        }
    }

    fn literal(&self, c: u32) -> Node {
        if self.flags.caseless {
            let others: Vec<u32> = if self.utf || c < 128 {
                other_cases(c).filter(|&o| self.utf || o < 128).collect()
            } else {
                Vec::new()
            };
            if !others.is_empty() {
                let mut class = Class::default();
                class.add(c);
                others.into_iter().for_each(|o| class.add(o));
                return Node::Set(Box::new(class));
            }
        }
        Node::Unit(c)
    }

    fn name(&mut self, close: u8) -> Parsed<String> {
        let start = self.at;
        while self.peek().is_some_and(is_name_char) {
            self.at += 1;
        }
        let name: String = self.units[start..self.at]
            .iter()
            .map(|&c| char::from_u32(c).unwrap_or('?'))
            .collect();
        if name.is_empty()
            || name.len() > 32
            || name.as_bytes()[0].is_ascii_digit()
            || !self.eat(close)
        {
            // A name PCRE2 refuses (the engine may read it).
            self.special = true;
            return invalid();
        }
        Ok(name)
    }

    fn number(&mut self) -> Option<usize> {
        let start = self.at;
        let mut n: usize = 0;
        while let Some(d) = self.peek().filter(|c| (48..58).contains(c)) {
            n = n.saturating_mul(10).saturating_add((d - 48) as usize);
            self.at += 1;
        }
        (self.at > start).then_some(n)
    }

    /// A signed group number: `n`, `+n` (relative forward), `-n`.
    fn group_number(&mut self) -> Parsed<Option<usize>> {
        let sign = if self.eat(b'+') {
            1
        } else if self.eat(b'-') {
            -1
        } else {
            0
        };
        let Some(n) = self.number() else {
            return if sign == 0 { Ok(None) } else { invalid() };
        };
        match sign {
            0 => Ok(Some(n)),
            1 if n > 0 => Ok(Some(self.groups + n)),
            -1 if n > 0 && n <= self.groups => Ok(Some(self.groups + 1 - n)),
            _ => invalid(),
        }
    }

    fn parse(&mut self) -> Parsed<Node> {
        let node = self.alternation()?;
        if self.at < self.units.len() {
            // A `)` with no `(`.
            return invalid();
        }
        Ok(node)
    }

    fn alternation(&mut self) -> Parsed<Node> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(CompileError::Unsupported);
        }
        let saved = self.flags;
        let mut alts = vec![self.sequence()?];
        while self.eat(b'|') {
            alts.push(self.sequence()?);
        }
        self.flags = saved;
        self.depth -= 1;
        Ok(if alts.len() == 1 {
            alts.pop().unwrap_or(Node::Empty)
        } else {
            Node::Alt(alts)
        })
    }

    fn sequence(&mut self) -> Parsed<Node> {
        let mut items = Vec::new();
        loop {
            self.skip_extended();
            match self.peek() {
                None | Some(124) | Some(41) => break,
                _ => {}
            }
            let atom = if let Some(behind) = self.word_edge() {
                // PCRE2 reads `[[:<:]]` as `\b(?=\w)` and `[[:>:]]` as
                // `\b(?<=\w)`: a quantifier after one repeats its
                // assertion only (`x[[:<:]]*-` matches `x-`).
                items.push(Node::Anchor(Anchor::WordBoundary(self.ucp)));
                Node::Look {
                    behind,
                    negated: false,
                    body: Box::new(Node::Set(Box::new(self.class_escape(Kind::Word, false)))),
                }
            } else {
                let Some(atom) = self.atom()? else {
                    continue;
                };
                atom
            };
            self.skip_extended();
            let node = self.quantified(atom)?;
            items.push(node);
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap_or(Node::Empty),
            _ => Node::Seq(items),
        })
    }

    fn quantifier(&mut self) -> Parsed<Option<(u32, Option<u32>)>> {
        let Some(c) = self.peek() else {
            return Ok(None);
        };
        let bounds = match c {
            42 => (0, None),
            43 => (1, None),
            63 => (0, Some(1)),
            123 => {
                let start = self.at;
                self.at += 1;
                let Some(low) = self.number() else {
                    self.at = start;
                    return Ok(None);
                };
                let high = if self.eat(b',') {
                    self.number()
                } else {
                    Some(low)
                };
                if !self.eat(b'}') {
                    self.at = start;
                    return Ok(None);
                }
                let max = MAX_REPEAT as usize;
                if low > max || high.is_some_and(|h| h > max || h < low) {
                    return invalid();
                }
                return Ok(Some((low as u32, high.map(|h| h as u32))));
            }
            _ => return Ok(None),
        };
        self.at += 1;
        Ok(Some(bounds))
    }

    fn quantified(&mut self, atom: Node) -> Parsed<Node> {
        let Some((min, max)) = self.quantifier()? else {
            return Ok(atom);
        };
        let mut greed = if self.flags.ungreedy {
            Greed::Lazy
        } else {
            Greed::Greedy
        };
        if self.eat(b'?') {
            greed = if self.flags.ungreedy {
                Greed::Greedy
            } else {
                Greed::Lazy
            };
        } else if self.eat(b'+') {
            greed = Greed::Possessive;
        }
        self.skip_extended();
        if self.quantifier()?.is_some() {
            return invalid();
        }
        match &atom {
            Node::Anchor(_)
            | Node::Keep
            | Node::Verb(_)
            | Node::Accept
            | Node::Mark(_)
            | Node::SkipTo(_) => {
                return invalid();
            }
            // A quantified assertion repeats at most once (the engine
            // refuses it).
            Node::Look { .. } => {
                self.special = true;
                return Ok(if min == 0 {
                    Node::Repeat {
                        node: Box::new(atom),
                        min: 0,
                        max: Some(1),
                        greed,
                    }
                } else {
                    atom
                });
            }
            _ => {}
        }
        if matches!(
            atom,
            Node::Capture(..)
                | Node::Seq(_)
                | Node::Alt(_)
                | Node::Atomic(_)
                | Node::Cond { .. }
                | Node::BranchReset(_)
        ) && max != Some(1)
            && nullable(&atom)
        {
            // PCRE2 stops repeating a group after an empty iteration.
            self.special = true;
        }
        Ok(Node::Repeat {
            node: Box::new(atom),
            min,
            max,
            greed,
        })
    }

    fn class_escape(&self, kind: Kind, negated: bool) -> Class {
        let mut class = Class::default();
        if self.ucp {
            class.unicode.push((kind, negated));
            return class;
        }
        let mut set = Class::default();
        match kind {
            Kind::Digit => set.add_range(48, 57),
            Kind::Space => [9, 10, 11, 12, 13, 32].into_iter().for_each(|c| set.add(c)),
            Kind::Word => {
                set.add_range(48, 57);
                set.add_range(65, 90);
                set.add_range(97, 122);
                set.add(95);
            }
        }
        if negated {
            // Everything else: bytes in the map, the rest as a range.
            for (a, b) in class.bits.iter_mut().zip(set.bits) {
                *a = !b;
            }
            class.ranges.push((256, u32::MAX));
        } else {
            class = set;
        }
        class
    }

    /// A Unicode property, at the `p` or `P` of `\p{..}`, `\P{..}`, `\pL`.
    fn property(&mut self) -> Parsed<Class> {
        let upper = self.units[self.at] == u32::from(b'P');
        let Some((ranges, used)) =
            crate::unicode_property::parse(&self.units[self.at + 1..], upper)
        else {
            return invalid();
        };
        self.at += 1 + used;
        let mut class = Class::default();
        for (low, high) in ranges {
            if self.utf {
                class.props.push((low, high));
            } else {
                (low..=high.min(255)).for_each(|c| class.add(c));
            }
        }
        Ok(class)
    }

    fn horizontal(&self, negated: bool) -> Class {
        let mut class = Class::default();
        [9, 32, 0xa0].into_iter().for_each(|c| class.add(c));
        if self.utf {
            [0x1680, 0x180e, 0x202f, 0x205f, 0x3000]
                .into_iter()
                .for_each(|c| class.add(c));
            class.add_range(0x2000, 0x200a);
        }
        if negated {
            class.complement();
        }
        class
    }

    fn vertical(&self, negated: bool) -> Class {
        let mut class = Class::default();
        [10, 11, 12, 13, 0x85]
            .into_iter()
            .for_each(|c| class.add(c));
        if self.utf {
            class.add_range(0x2028, 0x2029);
        }
        if negated {
            class.complement();
        }
        class
    }

    /// A character escape's value (after `\`, at the letter), or `None` if
    /// the escape is not a single character.
    fn char_escape(&mut self, in_class: bool) -> Parsed<Option<u32>> {
        let Some(c) = self.peek() else {
            return invalid();
        };
        let byte = if c < 128 { c as u8 } else { 0 };
        let value = match byte {
            b'a' => 7,
            b'e' => 27,
            b'f' => 12,
            b'n' => 10,
            b'r' => 13,
            b't' => 9,
            b'b' if in_class => 8,
            b'c' => {
                self.at += 1;
                let Some(x) = self.peek().filter(|&x| (32..127).contains(&x)) else {
                    return invalid();
                };
                self.at += 1;
                return Ok(Some(u32::from((x as u8).to_ascii_uppercase()) ^ 0x40));
            }
            b'x' => {
                self.at += 1;
                let mut value: u32 = 0;
                if self.eat(b'{') {
                    let start = self.at;
                    while let Some(d) = self.peek().and_then(|d| char::from_u32(d)?.to_digit(16)) {
                        value = value.saturating_mul(16).saturating_add(d);
                        self.at += 1;
                    }
                    if self.at == start || !self.eat(b'}') {
                        return invalid();
                    }
                } else {
                    for _ in 0..2 {
                        match self.peek().and_then(|d| char::from_u32(d)?.to_digit(16)) {
                            Some(d) => {
                                value = value * 16 + d;
                                self.at += 1;
                            }
                            None => break,
                        }
                    }
                }
                return self.code_point(value);
            }
            b'o' => {
                self.at += 1;
                if !self.eat(b'{') {
                    return invalid();
                }
                let mut value: u32 = 0;
                let start = self.at;
                while let Some(d) = self.peek().filter(|d| (48..56).contains(d)) {
                    value = value.saturating_mul(8).saturating_add(d - 48);
                    self.at += 1;
                }
                if self.at == start || !self.eat(b'}') {
                    return invalid();
                }
                return self.code_point(value);
            }
            b'0' => {
                self.at += 1;
                let mut value = 0;
                for _ in 0..2 {
                    match self.peek().filter(|d| (48..56).contains(d)) {
                        Some(d) => {
                            value = value * 8 + (d - 48);
                            self.at += 1;
                        }
                        None => break,
                    }
                }
                return Ok(Some(value));
            }
            b'1'..=b'9' => {
                // Only reached for an octal escape (`\ddd` that is no
                // back reference) or `\8`, `\9` (literal digits).
                if byte >= b'8' {
                    self.at += 1;
                    return Ok(Some(c));
                }
                let mut value = 0;
                for _ in 0..3 {
                    match self.peek().filter(|d| (48..56).contains(d)) {
                        Some(d) => {
                            value = value * 8 + (d - 48);
                            self.at += 1;
                        }
                        None => break,
                    }
                }
                return self.code_point(value);
            }
            b'A'..=b'Z' | b'a'..=b'z' => return Ok(None),
            _ => c,
        };
        self.at += 1;
        Ok(Some(value))
    }

    fn code_point(&self, value: u32) -> Parsed<Option<u32>> {
        let max = if self.utf { 0x10ffff } else { 0xff };
        if value > max || (self.utf && (0xd800..0xe000).contains(&value)) {
            return invalid();
        }
        Ok(Some(value))
    }

    fn class(&mut self) -> Parsed<Node> {
        // At the `[`.
        self.at += 1;
        let mut class = Class::default();
        let mut negated = false;
        loop {
            if self.starts("\\E") {
                self.at += 2;
            } else if self.starts("\\Q\\E") {
                self.at += 4;
            } else if self.flags.extended_more && matches!(self.peek(), Some(32 | 9)) {
                // Blanks before the first member are skipped too, so a
                // `]` after them is that member (`(?xx)[ ]a]`).
                self.at += 1;
            } else if !negated && self.eat(b'^') {
                negated = true;
            } else {
                break;
            }
        }
        let mut first = true;
        let mut pending: Option<u32> = None;
        let mut range_from: Option<u32> = None;
        let mut in_quote = false;
        loop {
            let Some(c) = self.peek() else {
                return invalid();
            };
            if in_quote {
                if self.starts("\\E") {
                    self.at += 2;
                    in_quote = false;
                    continue;
                }
                self.at += 1;
                self.class_char(&mut class, &mut pending, &mut range_from, c)?;
                first = false;
                continue;
            }
            if c == 93 && !first {
                self.at += 1;
                break;
            }
            first = false;
            if self.flags.extended_more && (c == 32 || c == 9) {
                self.at += 1;
                continue;
            }
            if c == 91 && matches!(self.peek_at(1), Some(58 | 46 | 61)) {
                // A POSIX item (validated before): `[:name:]`, `[:^name:]`.
                let start = self.at + 2;
                let Some(end) = self.units[start..]
                    .iter()
                    .position(|&u| u == 58)
                    .map(|p| start + p)
                else {
                    return invalid();
                };
                let mut name: String = self.units[start..end]
                    .iter()
                    .map(|&u| char::from_u32(u).unwrap_or('?'))
                    .collect();
                let negate = name.starts_with('^');
                if negate {
                    name.remove(0);
                }
                let Some(set) = posix(&name) else {
                    return invalid();
                };
                if negate {
                    let mut all = Class::default();
                    for (a, b) in all.bits.iter_mut().zip(set.bits) {
                        *a = !b;
                    }
                    all.ranges.push((256, u32::MAX));
                    class.union(&all);
                } else {
                    class.union(&set);
                }
                self.flush(&mut class, &mut pending);
                self.at = end + 2;
                continue;
            }
            if c == 92 {
                self.at += 1;
                let Some(e) = self.peek() else {
                    return invalid();
                };
                let letter = if e < 128 { e as u8 } else { 0 };
                let escape_class = match letter {
                    b'd' => Some(self.class_escape(Kind::Digit, false)),
                    b'D' => Some(self.class_escape(Kind::Digit, true)),
                    b's' => Some(self.class_escape(Kind::Space, false)),
                    b'S' => Some(self.class_escape(Kind::Space, true)),
                    b'w' => Some(self.class_escape(Kind::Word, false)),
                    b'W' => Some(self.class_escape(Kind::Word, true)),
                    b'h' => Some(self.horizontal(false)),
                    b'H' => Some(self.horizontal(true)),
                    b'v' => Some(self.vertical(false)),
                    b'V' => Some(self.vertical(true)),
                    b'p' | b'P' => {
                        let set = self.property()?;
                        self.flush(&mut class, &mut pending);
                        class.union(&set);
                        continue;
                    }
                    b'Q' => {
                        self.at += 1;
                        in_quote = true;
                        continue;
                    }
                    b'E' => {
                        self.at += 1;
                        continue;
                    }
                    _ => None,
                };
                if let Some(escape) = escape_class {
                    self.at += 1;
                    self.flush(&mut class, &mut pending);
                    class.union(&escape);
                    continue;
                }
                let Some(value) = self.char_escape(true)? else {
                    return invalid();
                };
                self.class_char(&mut class, &mut pending, &mut range_from, value)?;
                continue;
            }
            if c == 45 && pending.is_some() && range_from.is_none() && !self.is(1, b']') {
                self.at += 1;
                range_from = pending.take();
                continue;
            }
            self.at += 1;
            self.class_char(&mut class, &mut pending, &mut range_from, c)?;
        }
        if let Some(from) = range_from {
            // `[a-]`: both literal.
            self.add_char(&mut class, from);
            self.add_char(&mut class, 45);
        }
        self.flush(&mut class, &mut pending);
        class.negated = negated;
        if self.flags.caseless && self.utf {
            class.fold = true;
        }
        Ok(Node::Set(Box::new(class)))
    }

    fn class_char(
        &mut self,
        class: &mut Class,
        pending: &mut Option<u32>,
        range_from: &mut Option<u32>,
        c: u32,
    ) -> Parsed<()> {
        if let Some(from) = range_from.take() {
            if c < from {
                return invalid();
            }
            class.add_range(from, c);
            if self.flags.caseless {
                for x in from..=c
                    .min(if self.utf { 0x10ffff } else { 255 })
                    .min(from + 0x10000)
                {
                    for o in other_cases(x).filter(|&o| self.utf || (x < 128 && o < 128)) {
                        class.add(o);
                    }
                }
            }
            return Ok(());
        }
        self.flush(class, pending);
        *pending = Some(c);
        Ok(())
    }

    fn flush(&self, class: &mut Class, pending: &mut Option<u32>) {
        if let Some(c) = pending.take() {
            self.add_char(class, c);
        }
    }

    fn add_char(&self, class: &mut Class, c: u32) {
        class.add(c);
        if self.flags.caseless {
            for o in other_cases(c).filter(|&o| self.utf || (c < 128 && o < 128)) {
                class.add(o);
            }
        }
    }

    /// At `[[:<:]]` (start of a word: `Some(false)`, its assertion looks
    /// ahead) or `[[:>:]]` (end: `Some(true)`, it looks behind), consumed.
    fn word_edge(&mut self) -> Option<bool> {
        let behind = if self.starts("[[:<:]]") {
            false
        } else if self.starts("[[:>:]]") {
            true
        } else {
            return None;
        };
        self.at += 7;
        Some(behind)
    }

    /// One item, or `None` for something that is no item (an option
    /// setting, a comment, a callout).
    fn atom(&mut self) -> Parsed<Option<Node>> {
        let Some(c) = self.peek() else {
            return invalid();
        };
        let byte = if c < 128 { c as u8 } else { 0 };
        match byte {
            b'(' => self.group(),
            b'[' => Ok(Some(self.class()?)),
            b'.' => {
                self.at += 1;
                Ok(Some(Node::Any(self.flags.dotall)))
            }
            b'^' => {
                self.at += 1;
                Ok(Some(Node::Anchor(Anchor::Circ(self.flags.multiline))))
            }
            b'$' => {
                self.at += 1;
                Ok(Some(Node::Anchor(Anchor::Dollar(self.flags.multiline))))
            }
            b'*' | b'+' | b'?' => invalid(),
            b'{' => {
                if self.quantifier()?.is_some() {
                    return invalid();
                }
                self.at += 1;
                Ok(Some(self.literal(c)))
            }
            b'\\' => self.escape(),
            _ => {
                self.at += 1;
                Ok(Some(self.literal(c)))
            }
        }
    }

    fn escape(&mut self) -> Parsed<Option<Node>> {
        self.at += 1;
        let Some(c) = self.peek() else {
            return invalid();
        };
        let byte = if c < 128 { c as u8 } else { 0 };
        let simple = |parser: &mut Parser, node: Node| {
            parser.at += 1;
            Ok(Some(node))
        };
        match byte {
            b'd' | b'D' | b's' | b'S' | b'w' | b'W' => {
                let kind = match byte.to_ascii_lowercase() {
                    b'd' => Kind::Digit,
                    b's' => Kind::Space,
                    _ => Kind::Word,
                };
                // The upper-case escape is the complement of its class.
                let negated = byte.is_ascii_uppercase();
                simple(self, Node::Set(Box::new(self.class_escape(kind, negated))))
            }
            b'h' => simple(self, Node::Set(Box::new(self.horizontal(false)))),
            b'H' => simple(self, Node::Set(Box::new(self.horizontal(true)))),
            b'v' => simple(self, Node::Set(Box::new(self.vertical(false)))),
            b'V' => simple(self, Node::Set(Box::new(self.vertical(true)))),
            b'N' => {
                // A brace after it that starts no quantifier is a
                // character name, which PCRE2 refuses; one that does
                // repeats it (`\N{5000}`).
                if self.is(1, b'{') {
                    let start = self.at;
                    self.at += 1;
                    let counted = self.quantifier()?.is_some();
                    self.at = start;
                    if !counted {
                        return invalid();
                    }
                }
                simple(self, Node::NotNewline)
            }
            b'R' => simple(self, Node::LineBreak),
            b'X' => simple(self, Node::Grapheme),
            b'C' => simple(self, Node::Any(true)),
            b'b' => simple(self, Node::Anchor(Anchor::WordBoundary(self.ucp))),
            b'B' => simple(self, Node::Anchor(Anchor::NotWordBoundary(self.ucp))),
            b'A' => simple(self, Node::Anchor(Anchor::StartSubject)),
            b'z' => simple(self, Node::Anchor(Anchor::EndSubject)),
            b'Z' => simple(self, Node::Anchor(Anchor::EndOrNewline)),
            b'G' => simple(self, Node::Anchor(Anchor::StartOffset)),
            b'K' => {
                self.special = true;
                simple(self, Node::Keep)
            }
            b'Q' => {
                self.at += 1;
                let mut items = Vec::new();
                while self.peek().is_some() {
                    if self.starts("\\E") {
                        self.at += 2;
                        break;
                    }
                    let u = self.units[self.at];
                    self.at += 1;
                    items.push(self.literal(u));
                }
                // The quantifier that follows applies to the last one.
                Ok(match items.len() {
                    0 => None,
                    1 => items.pop(),
                    _ => {
                        let last = items.pop().unwrap_or(Node::Empty);
                        self.skip_extended();
                        let last = self.quantified(last)?;
                        items.push(last);
                        Some(Node::Seq(items))
                    }
                })
            }
            b'E' => {
                self.at += 1;
                Ok(None)
            }
            b'p' | b'P' => {
                let class = self.property()?;
                Ok(Some(Node::Set(Box::new(class))))
            }
            b'g' => {
                self.at += 1;
                self.special = true;
                let caseless = self.flags.caseless;
                if self.eat(b'<') {
                    return Ok(Some(Node::Call(self.call_target(b'>')?)));
                }
                if self.eat(b'\'') {
                    return Ok(Some(Node::Call(self.call_target(b'\'')?)));
                }
                if self.eat(b'{') {
                    if let Some(n) = self.group_number()? {
                        if !self.eat(b'}') {
                            return invalid();
                        }
                        return Ok(Some(self.back_reference(Ref::Number(n), caseless)));
                    }
                    let name = self.name(b'}')?;
                    return Ok(Some(self.back_reference(Ref::Name(name), caseless)));
                }
                match self.group_number()? {
                    Some(n) => Ok(Some(self.back_reference(Ref::Number(n), caseless))),
                    None => invalid(),
                }
            }
            b'k' => {
                self.at += 1;
                let close = if self.eat(b'<') {
                    b'>'
                } else if self.eat(b'\'') {
                    b'\''
                } else if self.eat(b'{') {
                    self.special = true;
                    b'}'
                } else {
                    return invalid();
                };
                let name = self.name(close)?;
                Ok(Some(
                    self.back_reference(Ref::Name(name), self.flags.caseless),
                ))
            }
            b'1'..=b'9' => {
                let start = self.at;
                let n = self.number().unwrap_or(0);
                if n < 10 || n <= self.total_groups_hint {
                    return Ok(Some(
                        self.back_reference(Ref::Number(n), self.flags.caseless),
                    ));
                }
                self.at = start;
                match self.char_escape(false)? {
                    Some(value) => Ok(Some(self.literal(value))),
                    None => invalid(),
                }
            }
            b'u' | b'U' | b'l' | b'L' | b'F' => invalid(),
            _ => match self.char_escape(false)? {
                Some(value) => Ok(Some(self.literal(value))),
                None => invalid(),
            },
        }
    }

    fn back_reference(&mut self, reference: Ref, caseless: bool) -> Node {
        // The engine compares a back reference's text case-sensitively.
        if caseless {
            self.special = true;
        }
        let closed = |n: usize| self.closed.get(n).copied().unwrap_or(false);
        let forward = match &reference {
            Ref::Number(n) => !closed(*n),
            Ref::Name(name) => !self.names.iter().any(|(m, n)| m == name && closed(*n)),
        };
        if forward {
            self.special = true;
        }
        for &n in &self.open {
            let named = match &reference {
                Ref::Number(m) => *m == n,
                Ref::Name(name) => self.names.iter().any(|(m, k)| m == name && *k == n),
            };
            if named && !self.self_referenced.contains(&n) {
                self.self_referenced.push(n);
            }
        }
        Node::BackRef(reference, caseless)
    }

    /// The target of `\g<...>`, `(?&...)`: a number (signed) or a name.
    fn call_target(&mut self, close: u8) -> Parsed<Ref> {
        if let Some(n) = self.group_number()? {
            if !self.eat(close) {
                return invalid();
            }
            return Ok(Ref::Number(n));
        }
        Ok(Ref::Name(self.name(close)?))
    }

    fn new_group(&mut self) -> usize {
        self.groups += 1;
        if self.closed.len() <= self.groups {
            self.closed.resize(self.groups + 1, false);
        }
        self.groups
    }

    fn close_group(&mut self, n: usize) {
        if let Some(slot) = self.closed.get_mut(n) {
            *slot = true;
        }
    }

    fn body(&mut self) -> Parsed<Node> {
        let body = self.alternation()?;
        if !self.eat(b')') {
            return invalid();
        }
        Ok(body)
    }

    fn capture(&mut self, name: Option<String>) -> Parsed<Option<Node>> {
        let n = self.new_group();
        if let Some(name) = name {
            // One number has one name (branch reset groups).
            if self.names.iter().any(|(m, k)| *k == n && *m != name) {
                return invalid();
            }
            if let Some(&(_, other)) = self.names.iter().find(|(m, _)| *m == name) {
                if other != n && !self.flags.dupnames {
                    return invalid();
                }
                if other != n {
                    self.special = true;
                }
            }
            self.names.push((name, n));
        }
        self.open.push(n);
        let body = self.body()?;
        self.open.pop();
        self.close_group(n);
        let capture = Node::Capture(n, Box::new(body));
        // PCRE2 10.32 wraps a group that refers to itself in an atomic
        // group (`(a\1?){4}` takes each iteration's first match for good).
        if let Some(at) = self.self_referenced.iter().position(|&k| k == n) {
            self.self_referenced.swap_remove(at);
            return Ok(Some(Node::Atomic(Box::new(capture))));
        }
        Ok(Some(capture))
    }

    fn options(&mut self) -> Parsed<Flags> {
        let mut flags = self.flags;
        let mut on = true;
        // PCRE2 allows no `-` after `^` (`(?^-i)` is an error).
        let mut hyphen_ok = true;
        // Whether this setting turns `x` on, and `xx`: an `x` set without
        // `xx` ends extended-more mode (`(?xx)(?x)[ ]` is a class of a
        // space), as does `x` unset.
        let mut set_x = false;
        let mut set_xx = false;
        if self.eat(b'^') {
            // `^` unsets `imnsx` (and `xx`), not `U` or `J`.
            self.special = true;
            flags.caseless = false;
            flags.multiline = false;
            flags.no_auto_capture = false;
            flags.dotall = false;
            flags.extended = false;
            flags.extended_more = false;
            hyphen_ok = false;
        }
        loop {
            let Some(c) = self.peek() else {
                return invalid();
            };
            match c as u8 {
                b'-' if hyphen_ok => {
                    on = false;
                    hyphen_ok = false;
                }
                b'-' => return invalid(),
                b'i' => flags.caseless = on,
                b'm' => flags.multiline = on,
                b's' => flags.dotall = on,
                b'n' => {
                    flags.no_auto_capture = on;
                    self.special = true;
                }
                b'U' => flags.ungreedy = on,
                b'J' => {
                    flags.dupnames = on;
                    self.special = true;
                }
                b'x' => {
                    if on {
                        set_x = true;
                        if self.is(1, b'x') {
                            self.at += 1;
                            set_xx = true;
                            flags.extended_more = true;
                            self.special = true;
                        }
                    } else {
                        flags.extended_more = false;
                    }
                    flags.extended = on;
                }
                b')' | b':' => {
                    if set_x && !set_xx {
                        flags.extended_more = false;
                    }
                    return Ok(flags);
                }
                _ => return invalid(),
            }
            self.at += 1;
        }
    }

    fn group(&mut self) -> Parsed<Option<Node>> {
        self.at += 1;
        if self.eat(b'*') {
            return self.verb();
        }
        if !self.eat(b'?') {
            if self.flags.no_auto_capture {
                return Ok(Some(Node::Seq(vec![self.body()?])));
            }
            return self.capture(None);
        }
        let Some(c) = self.peek() else {
            return invalid();
        };
        match c as u8 {
            b'#' => {
                while let Some(c) = self.peek() {
                    self.at += 1;
                    if c == 41 {
                        return Ok(None);
                    }
                }
                invalid()
            }
            b':' => {
                self.at += 1;
                // Kept a group: `(?:\b)*` repeats a group, not `\b`.
                Ok(Some(Node::Seq(vec![self.body()?])))
            }
            b'|' => {
                self.at += 1;
                self.special = true;
                self.branch_reset()
            }
            b'>' => {
                self.at += 1;
                Ok(Some(Node::Atomic(Box::new(self.body()?))))
            }
            b'=' | b'!' => {
                self.at += 1;
                let body = self.body()?;
                Ok(Some(Node::Look {
                    behind: false,
                    negated: c == 33,
                    body: Box::new(body),
                }))
            }
            b'<' if self.is(1, b'=') || self.is(1, b'!') => {
                let negated = self.is(1, b'!');
                self.at += 2;
                let body = self.body()?;
                Ok(Some(Node::Look {
                    behind: true,
                    negated,
                    body: Box::new(body),
                }))
            }
            b'<' => {
                self.at += 1;
                let name = self.name(b'>')?;
                self.capture(Some(name))
            }
            b'\'' => {
                self.at += 1;
                let name = self.name(b'\'')?;
                self.capture(Some(name))
            }
            b'P' => {
                self.at += 1;
                if self.eat(b'<') {
                    let name = self.name(b'>')?;
                    return self.capture(Some(name));
                }
                if self.eat(b'=') {
                    let name = self.name(b')')?;
                    return Ok(Some(
                        self.back_reference(Ref::Name(name), self.flags.caseless),
                    ));
                }
                if self.eat(b'>') {
                    self.special = true;
                    let name = self.name(b')')?;
                    return Ok(Some(Node::Call(Ref::Name(name))));
                }
                invalid()
            }
            b'&' => {
                self.at += 1;
                self.special = true;
                let name = self.name(b')')?;
                Ok(Some(Node::Call(Ref::Name(name))))
            }
            b'R' if self.is(1, b')') => {
                self.at += 2;
                self.special = true;
                Ok(Some(Node::Call(Ref::Number(0))))
            }
            b'0'..=b'9' | b'+' | b'-'
                if c != 45 || self.peek_at(1).is_some_and(|d| (48..58).contains(&d)) =>
            {
                self.special = true;
                let Some(n) = self.group_number()? else {
                    return invalid();
                };
                if !self.eat(b')') {
                    return invalid();
                }
                Ok(Some(Node::Call(Ref::Number(n))))
            }
            b'C' => {
                self.at += 1;
                self.special = true;
                self.callout()?;
                Ok(None)
            }
            b'(' => {
                self.at += 1;
                self.special = true;
                self.conditional()
            }
            _ => {
                let flags = self.options()?;
                if self.eat(b')') {
                    // For the rest of the enclosing group.
                    self.flags = flags;
                    return Ok(None);
                }
                // `(?i:...)`.
                self.at += 1;
                let saved = self.flags;
                self.flags = flags;
                let body = self.body();
                self.flags = saved;
                Ok(Some(Node::Seq(vec![body?])))
            }
        }
    }

    fn callout(&mut self) -> Parsed<()> {
        // After `(?C`: a number up to 255, or a delimited string.
        if let Some(n) = self.number() {
            if n > 255 || !self.eat(b')') {
                return invalid();
            }
            return Ok(());
        }
        if self.eat(b')') {
            return Ok(());
        }
        let Some(open) = self.peek() else {
            return invalid();
        };
        let close = match open as u8 {
            b'`' | b'\'' | b'"' | b'^' | b'%' | b'#' | b'$' => open,
            b'{' => 125,
            _ => return invalid(),
        };
        self.at += 1;
        loop {
            let Some(c) = self.peek() else {
                return invalid();
            };
            self.at += 1;
            if c == close {
                if self.peek() == Some(close) {
                    self.at += 1;
                    continue;
                }
                break;
            }
        }
        if !self.eat(b')') {
            return invalid();
        }
        Ok(())
    }

    fn branch_reset(&mut self) -> Parsed<Option<Node>> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(CompileError::Unsupported);
        }
        let start = self.groups;
        let mut most = start;
        let saved = self.flags;
        let mut alts = Vec::new();
        loop {
            self.groups = start;
            alts.push(self.sequence()?);
            most = most.max(self.groups);
            if !self.eat(b'|') {
                break;
            }
        }
        self.flags = saved;
        self.depth -= 1;
        self.groups = most;
        if !self.eat(b')') {
            return invalid();
        }
        Ok(Some(Node::BranchReset(alts)))
    }

    fn conditional(&mut self) -> Parsed<Option<Node>> {
        // After `(?(`.
        let condition =
            if self.starts("?=") || self.starts("?!") || self.starts("?<=") || self.starts("?<!") {
                let behind = self.is(1, b'<');
                let negated = self.is(if behind { 2 } else { 1 }, b'!');
                self.at += if behind { 3 } else { 2 };
                let body = self.body()?;
                Condition::Assert {
                    behind,
                    negated,
                    body: Box::new(body),
                }
            } else if self.starts("?C") {
                // A callout before an assertion condition.
                self.at += 2;
                self.callout()?;
                if !self.eat(b'?') {
                    return invalid();
                }
                self.at -= 1;
                return self.conditional();
            } else if self.starts("R&") {
                self.at += 2;
                let name = self.name(b')')?;
                Condition::Recursion(Some(Ref::Name(name)))
            } else if self.starts("R)") {
                self.at += 2;
                Condition::Recursion(None)
            } else if self.is(0, b'R') && self.peek_at(1).is_some_and(|d| (48..58).contains(&d)) {
                self.at += 1;
                let n = self.number().unwrap_or(0);
                if !self.eat(b')') {
                    return invalid();
                }
                Condition::Recursion(Some(Ref::Number(n)))
            } else if self.starts("DEFINE)") {
                self.at += 7;
                Condition::Define
            } else if self.starts("VERSION") {
                self.at += 7;
                let greater = self.eat(b'>');
                if !self.eat(b'=') {
                    return invalid();
                }
                let major = self.number().ok_or(CompileError::Invalid)?;
                // PCRE2 reads a major version up to 1000.
                if major > 1000 {
                    return invalid();
                }
                let minor = if self.eat(b'.') {
                    let start = self.at;
                    let m = self.number().ok_or(CompileError::Invalid)?;
                    if self.at - start > 2 {
                        return invalid();
                    }
                    if self.at - start == 1 { m * 10 } else { m }
                } else {
                    0
                };
                if !self.eat(b')') {
                    return invalid();
                }
                let ours = (10, 32);
                Condition::Version(if greater {
                    ours >= (major, minor)
                } else {
                    ours == (major, minor)
                })
            } else if self.eat(b'<') {
                let name = self.name(b'>')?;
                if !self.eat(b')') {
                    return invalid();
                }
                Condition::Group(Ref::Name(name))
            } else if self.eat(b'\'') {
                let name = self.name(b'\'')?;
                if !self.eat(b')') {
                    return invalid();
                }
                Condition::Group(Ref::Name(name))
            } else if let Some(n) = self.group_number()? {
                if !self.eat(b')') {
                    return invalid();
                }
                if n == 0 {
                    return invalid();
                }
                Condition::Group(Ref::Number(n))
            } else {
                Condition::Group(Ref::Name(self.name(b')')?))
            };
        let body = self.alternation()?;
        if !self.eat(b')') {
            return invalid();
        }
        let (yes, no) = match body {
            Node::Alt(mut alts) => {
                if alts.len() > 2 {
                    return invalid();
                }
                let no = alts.pop().unwrap_or(Node::Empty);
                (alts.pop().unwrap_or(Node::Empty), no)
            }
            other => (other, Node::Empty),
        };
        if matches!(condition, Condition::Define) && !matches!(no, Node::Empty) {
            // `(?(DEFINE)a|b)`: a DEFINE group has one branch. (An empty
            // second branch is also refused by PCRE2; not told apart.)
            return invalid();
        }
        Ok(Some(Node::Cond {
            condition,
            yes: Box::new(yes),
            no: Box::new(no),
        }))
    }

    fn verb(&mut self) -> Parsed<Option<Node>> {
        // After `(*`.
        self.special = true;
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| c < 128 && (c as u8).is_ascii_uppercase())
        {
            self.at += 1;
        }
        let word: String = self.units[start..self.at]
            .iter()
            .map(|&c| c as u8 as char)
            .collect();
        let name = if self.eat(b':') {
            let from = self.at;
            while self.peek().is_some_and(|c| c != 41) {
                self.at += 1;
            }
            Some(
                self.units[from..self.at]
                    .iter()
                    .map(|&c| char::from_u32(c).unwrap_or('?'))
                    .collect::<String>(),
            )
        } else {
            None
        };
        if !self.eat(b')') {
            return invalid();
        }
        let node = match (word.as_str(), name) {
            ("FAIL" | "F", _) => Node::Verb(Verb::Fail),
            ("ACCEPT", _) => Node::Accept,
            ("COMMIT", _) => Node::Verb(Verb::Commit),
            ("PRUNE", _) => Node::Verb(Verb::Prune),
            ("SKIP", None) => Node::Verb(Verb::Skip),
            ("SKIP", Some(name)) if name.is_empty() => Node::Verb(Verb::Skip),
            ("SKIP", Some(name)) if !name.is_empty() => Node::SkipTo(name),
            ("THEN", _) => Node::Verb(Verb::Then),
            ("MARK" | "", Some(name)) if !name.is_empty() => Node::Mark(name),
            _ => return invalid(),
        };
        Ok(Some(node))
    }
}

fn posix(name: &str) -> Option<Class> {
    let mut class = Class::default();
    let ranges: &[(u32, u32)] = match name {
        "alpha" => &[(65, 90), (97, 122)],
        "lower" => &[(97, 122)],
        "upper" => &[(65, 90)],
        "alnum" => &[(48, 57), (65, 90), (97, 122)],
        "ascii" => &[(0, 127)],
        "blank" => &[(9, 9), (32, 32)],
        "cntrl" => &[(0, 31), (127, 127)],
        "digit" => &[(48, 57)],
        "graph" => &[(33, 126)],
        "print" => &[(32, 126)],
        "punct" => &[(33, 47), (58, 64), (91, 96), (123, 126)],
        "space" => &[(9, 13), (32, 32)],
        "word" => &[(48, 57), (65, 90), (97, 122), (95, 95)],
        "xdigit" => &[(48, 57), (65, 70), (97, 102)],
        _ => return None,
    };
    for &(l, h) in ranges {
        class.add_range(l, h);
    }
    Some(class)
}

fn has_accept(node: &Node) -> bool {
    match node {
        Node::Accept => true,
        Node::Seq(items) | Node::Alt(items) | Node::BranchReset(items) => {
            items.iter().any(has_accept)
        }
        Node::Capture(_, body) | Node::Atomic(body) | Node::Look { body, .. } => has_accept(body),
        Node::Repeat { node, .. } => has_accept(node),
        Node::Cond { condition, yes, no } => {
            matches!(condition, Condition::Assert { body, .. } if has_accept(body))
                || has_accept(yes)
                || has_accept(no)
        }
        _ => false,
    }
}

/// Whether a node can match the empty string (calls and back references
/// are taken to be able to).
fn nullable(node: &Node) -> bool {
    match node {
        Node::Empty
        | Node::Anchor(_)
        | Node::Look { .. }
        | Node::BackRef(..)
        | Node::Call(_)
        | Node::Verb(_)
        | Node::SkipTo(_)
        | Node::Mark(_)
        | Node::Accept
        | Node::Keep => true,
        Node::Unit(_)
        | Node::Set(_)
        | Node::Any(_)
        | Node::NotNewline
        | Node::LineBreak
        | Node::Grapheme => false,
        Node::Seq(items) => items.iter().all(nullable),
        Node::Alt(alts) | Node::BranchReset(alts) => alts.iter().any(nullable),
        Node::Capture(_, body) | Node::Atomic(body) => nullable(body),
        Node::Repeat { node, min, .. } => *min == 0 || nullable(node),
        Node::Cond { yes, no, .. } => nullable(yes) || nullable(no),
    }
}

/// Where a lookaround or atomic marker sends the match.
const PROPAGATE: u32 = u32::MAX;
const FAIL: u32 = u32::MAX - 1;

#[derive(Clone, Copy, Debug)]
enum Item {
    Unit(u32),
    Set(u32),
    Any,
    AnyAll,
}

#[derive(Clone, Debug)]
enum Inst {
    Item(Item),
    Repeat {
        item: Item,
        min: u32,
        max: u32,
        lazy: bool,
    },
    NotNewline,
    LineBreak,
    Grapheme,
    Split {
        first: u32,
        second: u32,
        alt: u32,
    },
    Jmp(u32),
    /// Where group n starts (kept aside until it closes).
    Open(u32),
    /// Group n closes: its start and end are set together, so a back
    /// reference inside a repeated group sees the last iteration's text.
    Close(u32),
    Anchor(Anchor),
    BackRef {
        groups: Box<[usize]>,
        caseless: bool,
    },
    LoopStart(u32),
    LoopEnd {
        reg: u32,
        again: u32,
    },
    /// Pushes a marker; `LookEnd` cuts back to it.
    LookStart {
        restore: bool,
        on_success: u32,
        on_fail: u32,
    },
    LookEnd,
    StepBack(u32),
    Call {
        target: u32,
        group: usize,
    },
    GroupEnd(usize),
    CondGroups {
        groups: Box<[usize]>,
        no: u32,
    },
    CondRecursion {
        group: Option<usize>,
        no: u32,
    },
    Verb(Verb, u32),
    SkipTo(u32),
    Mark(u32),
    Accept {
        closes: Box<[u32]>,
        look_end: Option<u32>,
    },
    Keep,
    Match,
}

struct Compiler<'n> {
    insts: Vec<Inst>,
    classes: Vec<Class>,
    names: &'n [(String, usize)],
    groups: usize,
    group_start: Vec<u32>,
    group_nodes: Vec<Option<&'n Node>>,
    calls: Vec<(usize, usize)>,
    /// Registers: the capture slots, then one per loop, then `\K`'s.
    registers: u32,
    alt_ids: u32,
    enclosing_alt: Vec<u32>,
    open_captures: Vec<usize>,
    /// Groups whose bodies enclose the node being compiled, lookarounds
    /// between them or not.
    enclosing_groups: Vec<usize>,
    /// The groups enclosing the lookbehind being compiled: a call to one
    /// of them from inside it recurses, so the lookbehind has no fixed
    /// length (PCRE2 refuses `(?<=(?0))a` and `(a|(?<=(?1))b)`).
    behind_enclosing: Vec<usize>,
    /// Lookarounds being compiled: their `Accept`s to patch.
    looks: Vec<Vec<usize>>,
    marks: Vec<String>,
    /// Nodes visited measuring lookbehinds (calls can make it exponential).
    length_work: std::cell::Cell<u32>,
}

impl<'n> Compiler<'n> {
    fn emit(&mut self, inst: Inst) -> Parsed<u32> {
        if self.insts.len() >= MAX_PROGRAM {
            return Err(CompileError::Unsupported);
        }
        self.insts.push(inst);
        Ok((self.insts.len() - 1) as u32)
    }

    fn here(&self) -> u32 {
        self.insts.len() as u32
    }

    fn patch_second(&mut self, at: u32, target: u32) {
        if let Some(Inst::Split { second, .. }) = self.insts.get_mut(at as usize) {
            *second = target;
        }
    }

    fn resolve(&self, reference: &Ref) -> Parsed<Vec<usize>> {
        match reference {
            Ref::Number(n) if *n <= self.groups => Ok(vec![*n]),
            Ref::Number(_) => invalid(),
            Ref::Name(name) => {
                let found: Vec<usize> = self
                    .names
                    .iter()
                    .filter(|(m, _)| m == name)
                    .map(|&(_, n)| n)
                    .collect();
                if found.is_empty() {
                    return invalid();
                }
                let mut found = found;
                found.sort_unstable();
                found.dedup();
                Ok(found)
            }
        }
    }

    fn class(&mut self, class: &Class) -> u32 {
        self.classes.push(class.clone());
        (self.classes.len() - 1) as u32
    }

    fn single(&mut self, node: &Node) -> Option<Item> {
        match node {
            Node::Unit(u) => Some(Item::Unit(*u)),
            Node::Set(class) => Some(Item::Set(self.class(class))),
            Node::Any(true) => Some(Item::AnyAll),
            Node::Any(false) => Some(Item::Any),
            _ => None,
        }
    }

    fn node(&mut self, node: &'n Node) -> Parsed<()> {
        match node {
            Node::Empty => {}
            Node::Unit(_) | Node::Set(_) | Node::Any(_) => {
                let item = self.single(node).ok_or(CompileError::Unsupported)?;
                self.emit(Inst::Item(item))?;
            }
            Node::NotNewline => {
                self.emit(Inst::NotNewline)?;
            }
            Node::LineBreak => {
                self.emit(Inst::LineBreak)?;
            }
            Node::Grapheme => {
                self.emit(Inst::Grapheme)?;
            }
            Node::Seq(items) => {
                for item in items {
                    self.node(item)?;
                }
            }
            Node::Alt(alts) | Node::BranchReset(alts) => self.alternatives(alts)?,
            Node::Capture(n, body) => {
                if self.group_start.len() <= *n {
                    self.group_start.resize(n + 1, u32::MAX);
                }
                if self.group_start[*n] == u32::MAX {
                    self.group_start[*n] = self.here();
                }
                self.emit(Inst::Open(*n as u32))?;
                self.open_captures.push(*n);
                self.enclosing_groups.push(*n);
                self.node(body)?;
                self.enclosing_groups.pop();
                self.open_captures.pop();
                self.emit(Inst::Close(*n as u32))?;
                self.emit(Inst::GroupEnd(*n))?;
            }
            Node::Atomic(body) => self.atomic(body)?,
            Node::Look {
                behind,
                negated,
                body,
            } => {
                let (start, end) = self.look(*behind, body)?;
                if *negated {
                    self.set_look_exits(start, FAIL, end + 1);
                } else {
                    self.set_look_exits(start, end + 1, PROPAGATE);
                }
            }
            Node::Repeat {
                node,
                min,
                max,
                greed,
            } => self.repeat(node, *min, *max, *greed)?,
            Node::Anchor(anchor) => {
                self.emit(Inst::Anchor(*anchor))?;
            }
            Node::BackRef(reference, caseless) => {
                let groups = self.resolve(reference)?;
                if groups.contains(&0) {
                    return invalid();
                }
                self.emit(Inst::BackRef {
                    groups: groups.into_boxed_slice(),
                    caseless: *caseless,
                })?;
            }
            Node::Call(reference) => {
                let groups = self.resolve(reference)?;
                let group = groups[0];
                let at = self.emit(Inst::Call { target: 0, group })?;
                self.calls.push((at as usize, group));
            }
            Node::Cond { condition, yes, no } => self.conditional(condition, yes, no)?,
            Node::Verb(verb) => {
                let alt = self.enclosing_alt.last().copied().unwrap_or(0);
                self.emit(Inst::Verb(*verb, alt))?;
            }
            Node::SkipTo(name) => {
                let id = self.mark_id(name);
                self.emit(Inst::SkipTo(id))?;
            }
            Node::Mark(name) => {
                let id = self.mark_id(name);
                self.emit(Inst::Mark(id))?;
            }
            Node::Accept => {
                let closes: Box<[u32]> = self.open_captures.iter().map(|&n| n as u32).collect();
                let at = self.emit(Inst::Accept {
                    closes,
                    look_end: None,
                })?;
                if let Some(pending) = self.looks.last_mut() {
                    pending.push(at as usize);
                }
            }
            Node::Keep => {
                self.emit(Inst::Keep)?;
            }
        }
        Ok(())
    }

    fn mark_id(&mut self, name: &str) -> u32 {
        match self.marks.iter().position(|m| m == name) {
            Some(i) => i as u32,
            None => {
                self.marks.push(name.to_string());
                (self.marks.len() - 1) as u32
            }
        }
    }

    fn alternatives(&mut self, alts: &'n [Node]) -> Parsed<()> {
        self.alt_ids += 1;
        let id = self.alt_ids;
        self.enclosing_alt.push(id);
        let mut jumps = Vec::new();
        for (i, alt) in alts.iter().enumerate() {
            if i + 1 < alts.len() {
                let split = self.emit(Inst::Split {
                    first: self.here() + 1,
                    second: 0,
                    alt: id,
                })?;
                self.node(alt)?;
                jumps.push(self.emit(Inst::Jmp(0))?);
                let next = self.here();
                self.patch_second(split, next);
            } else {
                self.node(alt)?;
            }
        }
        let end = self.here();
        for jump in jumps {
            self.insts[jump as usize] = Inst::Jmp(end);
        }
        self.enclosing_alt.pop();
        Ok(())
    }

    fn atomic(&mut self, body: &'n Node) -> Parsed<()> {
        let start = self.emit(Inst::LookStart {
            restore: false,
            on_success: PROPAGATE,
            on_fail: PROPAGATE,
        })?;
        self.node(body)?;
        let end = self.emit(Inst::LookEnd)?;
        if let Some(Inst::LookStart { on_success, .. }) = self.insts.get_mut(start as usize) {
            *on_success = end + 1;
        }
        Ok(())
    }

    /// A lookaround's body; behind, each alternative steps back its length.
    fn look_body(&mut self, behind: bool, body: &'n Node) -> Parsed<()> {
        self.looks.push(Vec::new());
        let saved_captures = std::mem::take(&mut self.open_captures);
        let saved_behind = if behind {
            let mut enclosing = self.enclosing_groups.clone();
            enclosing.push(0);
            Some(std::mem::replace(&mut self.behind_enclosing, enclosing))
        } else {
            None
        };
        let result = if behind {
            let alts: Vec<&'n Node> = match body {
                Node::Alt(alts) => alts.iter().collect(),
                other => vec![other],
            };
            self.alt_ids += 1;
            let id = self.alt_ids;
            let mut jumps = Vec::new();
            for (i, alt) in alts.iter().enumerate() {
                let length = self.fixed_length(alt, 0)?.ok_or(CompileError::Invalid)?;
                let split = if i + 1 < alts.len() {
                    Some(self.emit(Inst::Split {
                        first: self.here() + 1,
                        second: 0,
                        alt: id,
                    })?)
                } else {
                    None
                };
                self.emit(Inst::StepBack(length as u32))?;
                self.node(alt)?;
                if let Some(split) = split {
                    jumps.push(self.emit(Inst::Jmp(0))?);
                    let next = self.here();
                    self.patch_second(split, next);
                }
            }
            let end = self.here();
            for jump in jumps {
                self.insts[jump as usize] = Inst::Jmp(end);
            }
            Ok(())
        } else {
            self.node(body)
        };
        self.open_captures = saved_captures;
        if let Some(saved) = saved_behind {
            self.behind_enclosing = saved;
        }
        let accepts = self.looks.pop().unwrap_or_default();
        let end = self.here();
        for at in accepts {
            if let Some(Inst::Accept { look_end, .. }) = self.insts.get_mut(at) {
                *look_end = Some(end);
            }
        }
        result
    }

    /// The length every match of `node` has, `None` if it varies.
    fn fixed_length(&self, node: &Node, depth: usize) -> Parsed<Option<usize>> {
        self.length_work
            .set(self.length_work.get().saturating_add(1));
        if depth > 50 || self.length_work.get() > MAX_LENGTH_WORK {
            return Err(CompileError::Unsupported);
        }
        Ok(match node {
            Node::Empty
            | Node::Anchor(_)
            | Node::Look { .. }
            | Node::Verb(_)
            | Node::SkipTo(_)
            | Node::Mark(_)
            | Node::Accept
            | Node::Keep => Some(0),
            Node::Unit(_) | Node::Set(_) | Node::Any(_) | Node::NotNewline => Some(1),
            Node::LineBreak | Node::Grapheme => None,
            Node::Seq(items) => {
                let mut total = 0usize;
                for item in items {
                    match self.fixed_length(item, depth)? {
                        Some(l) => total += l,
                        None => return Ok(None),
                    }
                }
                Some(total)
            }
            Node::Alt(alts) | Node::BranchReset(alts) => {
                let mut length = None;
                for alt in alts {
                    let l = self.fixed_length(alt, depth)?;
                    if l.is_none() || (length.is_some() && length != l) {
                        return Ok(None);
                    }
                    length = l;
                }
                length
            }
            Node::Capture(_, body) | Node::Atomic(body) => self.fixed_length(body, depth)?,
            Node::Repeat { node, min, max, .. } => {
                if Some(*min) != *max {
                    return Ok(None);
                }
                self.fixed_length(node, depth)?.map(|l| l * *min as usize)
            }
            Node::BackRef(reference, _) | Node::Call(reference) => {
                let groups = self.resolve(reference)?;
                if groups.len() != 1
                    || (matches!(node, Node::Call(_)) && self.behind_enclosing.contains(&groups[0]))
                {
                    return Ok(None);
                }
                match self.group_nodes.get(groups[0]).copied().flatten() {
                    Some(group) => self.fixed_length(group, depth + 1)?,
                    None => None,
                }
            }
            Node::Cond { yes, no, .. } => {
                let (a, b) = (
                    self.fixed_length(yes, depth)?,
                    self.fixed_length(no, depth)?,
                );
                if a == b { a } else { None }
            }
        })
    }

    fn repeat(&mut self, node: &'n Node, min: u32, max: Option<u32>, greed: Greed) -> Parsed<()> {
        if greed == Greed::Possessive {
            let start = self.emit(Inst::LookStart {
                restore: false,
                on_success: PROPAGATE,
                on_fail: PROPAGATE,
            })?;
            self.repeat(node, min, max, Greed::Greedy)?;
            let end = self.emit(Inst::LookEnd)?;
            if let Some(Inst::LookStart { on_success, .. }) = self.insts.get_mut(start as usize) {
                *on_success = end + 1;
            }
            return Ok(());
        }
        let lazy = greed == Greed::Lazy;
        if let Some(item) = self.single(node) {
            self.emit(Inst::Repeat {
                item,
                min,
                max: max.unwrap_or(u32::MAX),
                lazy,
            })?;
            return Ok(());
        }
        if max == Some(0) {
            return Ok(());
        }
        let copies = if max.is_none() {
            min.saturating_sub(1)
        } else {
            min
        };
        for _ in 0..copies {
            self.node(node)?;
        }
        match max {
            None => {
                let reg = self.registers;
                self.registers += 1;
                let jump = if min >= 1 {
                    Some(self.emit(Inst::Jmp(0))?)
                } else {
                    None
                };
                let split = self.split(lazy)?;
                let body = self.emit(Inst::LoopStart(reg))?;
                if let Some(jump) = jump {
                    self.insts[jump as usize] = Inst::Jmp(body);
                }
                self.node(node)?;
                self.emit(Inst::LoopEnd { reg, again: split })?;
                let exit = self.here();
                self.set_exit(split, exit, lazy);
            }
            Some(max) => {
                let mut splits = Vec::new();
                for _ in min..max {
                    splits.push(self.split(lazy)?);
                    self.node(node)?;
                }
                let exit = self.here();
                for split in splits {
                    self.set_exit(split, exit, lazy);
                }
            }
        }
        Ok(())
    }

    /// A split whose body follows it; the exit is patched by `set_exit`.
    fn split(&mut self, lazy: bool) -> Parsed<u32> {
        let next = self.here() + 1;
        self.emit(if lazy {
            Inst::Split {
                first: 0,
                second: next,
                alt: 0,
            }
        } else {
            Inst::Split {
                first: next,
                second: 0,
                alt: 0,
            }
        })
    }

    fn set_exit(&mut self, split: u32, exit: u32, lazy: bool) {
        if let Some(Inst::Split { first, second, .. }) = self.insts.get_mut(split as usize) {
            if lazy {
                *first = exit;
            } else {
                *second = exit;
            }
        }
    }

    /// A lookaround: its `LookStart`, body and `LookEnd`, whose offsets
    /// are returned for [`Compiler::set_look_exits`].
    fn look(&mut self, behind: bool, body: &'n Node) -> Parsed<(u32, u32)> {
        let start = self.emit(Inst::LookStart {
            restore: true,
            on_success: PROPAGATE,
            on_fail: PROPAGATE,
        })?;
        self.look_body(behind, body)?;
        let end = self.emit(Inst::LookEnd)?;
        Ok((start, end))
    }

    /// Where the lookaround starting at `start` goes when its body matches
    /// and when it does not.
    fn set_look_exits(&mut self, start: u32, success: u32, fail: u32) {
        if let Some(Inst::LookStart {
            on_success,
            on_fail,
            ..
        }) = self.insts.get_mut(start as usize)
        {
            *on_success = success;
            *on_fail = fail;
        }
    }

    fn conditional(&mut self, condition: &'n Condition, yes: &'n Node, no: &'n Node) -> Parsed<()> {
        /// What decides between the branches, to point at the `no` branch
        /// once it is compiled.
        enum Test {
            /// A `CondGroups` or `CondRecursion` instruction.
            Inst(u32),
            /// An assertion: its `LookStart` and `LookEnd`.
            Look { start: u32, end: u32, negated: bool },
        }
        let test = match condition {
            Condition::Define => {
                let jump = self.emit(Inst::Jmp(0))?;
                self.node(yes)?;
                let end = self.here();
                self.insts[jump as usize] = Inst::Jmp(end);
                return Ok(());
            }
            Condition::Version(true) => return self.node(yes),
            Condition::Version(false) => return self.node(no),
            Condition::Group(reference) => {
                let groups = self.resolve(reference)?;
                Test::Inst(self.emit(Inst::CondGroups {
                    groups: groups.into_boxed_slice(),
                    no: 0,
                })?)
            }
            Condition::Recursion(reference) => {
                let group = match reference {
                    None => None,
                    Some(reference) => Some(self.resolve(reference)?[0]),
                };
                Test::Inst(self.emit(Inst::CondRecursion { group, no: 0 })?)
            }
            Condition::Assert {
                behind,
                negated,
                body,
            } => {
                let (start, end) = self.look(*behind, body)?;
                Test::Look {
                    start,
                    end,
                    negated: *negated,
                }
            }
        };
        self.node(yes)?;
        let jump = self.emit(Inst::Jmp(0))?;
        let no_start = self.here();
        self.node(no)?;
        self.insts[jump as usize] = Inst::Jmp(self.here());
        match test {
            Test::Inst(at) => {
                if let Some(Inst::CondGroups { no, .. } | Inst::CondRecursion { no, .. }) =
                    self.insts.get_mut(at as usize)
                {
                    *no = no_start;
                }
            }
            Test::Look {
                start,
                end,
                negated: true,
            } => self.set_look_exits(start, no_start, end + 1),
            Test::Look { start, end, .. } => self.set_look_exits(start, end + 1, no_start),
        }
        Ok(())
    }
}

fn collect_groups<'n>(node: &'n Node, out: &mut Vec<Option<&'n Node>>) {
    match node {
        Node::Capture(n, body) => {
            if out.len() <= *n {
                out.resize(n + 1, None);
            }
            if out[*n].is_none() {
                out[*n] = Some(node);
            }
            collect_groups(body, out);
        }
        Node::Seq(items) | Node::Alt(items) | Node::BranchReset(items) => {
            items.iter().for_each(|item| collect_groups(item, out))
        }
        Node::Atomic(body) | Node::Look { body, .. } => collect_groups(body, out),
        Node::Repeat { node, .. } => collect_groups(node, out),
        Node::Cond {
            condition, yes, no, ..
        } => {
            if let Condition::Assert { body, .. } = condition {
                collect_groups(body, out);
            }
            collect_groups(yes, out);
            collect_groups(no, out);
        }
        _ => {}
    }
}

/// The units a match can start with (none known: `None`).
fn first_units(node: &Node) -> Option<([u64; 4], bool)> {
    // (set, nullable)
    match node {
        Node::Unit(u) if *u < 256 => {
            let mut set = [0; 4];
            set[(*u >> 6) as usize] |= 1 << (*u & 63);
            Some((set, false))
        }
        Node::Set(class)
            if class.ranges.is_empty()
                && class.unicode.is_empty()
                && class.props.is_empty()
                && !class.fold =>
        {
            let bits = if class.negated {
                class.bits.map(|b| !b)
            } else {
                class.bits
            };
            Some((bits, false))
        }
        Node::Empty
        | Node::Verb(Verb::Commit | Verb::Prune | Verb::Skip | Verb::Then)
        | Node::Mark(_)
        | Node::Look { .. } => Some(([0; 4], true)),
        Node::Seq(items) => {
            let mut set = [0u64; 4];
            for item in items {
                let (s, nullable) = first_units(item)?;
                for (a, b) in set.iter_mut().zip(s) {
                    *a |= b;
                }
                if !nullable {
                    return Some((set, false));
                }
            }
            Some((set, true))
        }
        Node::Alt(alts) | Node::BranchReset(alts) => {
            let mut set = [0u64; 4];
            let mut any_nullable = false;
            for alt in alts {
                let (s, nullable) = first_units(alt)?;
                for (a, b) in set.iter_mut().zip(s) {
                    *a |= b;
                }
                any_nullable |= nullable;
            }
            Some((set, any_nullable))
        }
        Node::Capture(_, body) | Node::Atomic(body) => first_units(body),
        Node::Repeat { node, min, .. } => {
            let (set, nullable) = first_units(node)?;
            Some((set, nullable || *min == 0))
        }
        _ => None,
    }
}

/// The shortest match of the pattern `tree` as PCRE2 10.32's study finds
/// it (`find_minlength`; a subject shorter than this is not tried), or 0
/// where PCRE2 gives up (a back reference when a branch reset duplicates
/// group numbers, more than 1,000 groups visited, a back reference to a
/// group above 128). The walk follows PCRE2's compiled code: a group
/// repeated `{n}` is `n` copies, each visited (a capturing group's next
/// copies take the first's length), the last copy of an unlimited repeat
/// of a group that could match nothing counts nothing, an optional group
/// is skipped. Each group's branches are measured one by one; a branch
/// that calls or refers back to a group it is inside (or one whose length
/// is being found) counts that as nothing and is ignored unless it is the
/// group's first branch (`(?R)x` is 1, `a|(?R)bb` 1, `(bc(?1)|a)` 1). A
/// call measures the group it calls; a back reference too, remembered by
/// group number as PCRE2 caches it. A branch that reaches 65,535 ends the
/// walk with that length (`b|a{65535}` is 65,535).
fn min_length(
    tree: &Node,
    groups: &[Option<&Node>],
    resolve: &dyn Fn(&Ref) -> Vec<usize>,
) -> usize {
    if nullable(tree) || highest_reference(tree, resolve) > MAX_CACHE_BACKREF {
        return 0;
    }
    let mut ancestors = vec![None; groups.len()];
    group_ancestors(tree, &mut vec![0], &mut ancestors);
    let ancestors = ancestors
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect();
    let mut study = Study {
        groups,
        resolve,
        ancestors,
        dupcapused: has_branch_reset(tree),
        visits: 0,
        backrefs: vec![None; groups.len()],
        backref_top: 0,
    };
    study
        .bracket(&Study::branches(tree), &mut vec![0], &mut Vec::new())
        .map_or(0, |n| n.min(MAX_LENGTH))
}

/// PCRE2 studies the minimum length only if no back reference names a
/// group above this (`MAX_CACHE_BACKREF`).
const MAX_CACHE_BACKREF: usize = 128;

/// A branch that reaches this length ends the study's walk.
const MAX_LENGTH: usize = MAX_STUDY_LENGTH;

/// The highest group a back reference names.
fn highest_reference(node: &Node, resolve: &dyn Fn(&Ref) -> Vec<usize>) -> usize {
    let walk = |node| highest_reference(node, resolve);
    match node {
        Node::BackRef(reference, _) => resolve(reference).into_iter().max().unwrap_or(0),
        Node::Seq(items) | Node::Alt(items) | Node::BranchReset(items) => {
            items.iter().map(walk).max().unwrap_or(0)
        }
        Node::Capture(_, body) | Node::Atomic(body) | Node::Look { body, .. } => walk(body),
        Node::Repeat { node, .. } => walk(node),
        Node::Cond { condition, yes, no } => {
            let asserted = match condition {
                Condition::Assert { body, .. } => walk(body),
                _ => 0,
            };
            asserted.max(walk(yes)).max(walk(no))
        }
        _ => 0,
    }
}

/// The groups enclosing each group (itself not included).
fn group_ancestors(node: &Node, open: &mut Vec<usize>, out: &mut [Option<Vec<usize>>]) {
    match node {
        Node::Capture(n, body) => {
            if let Some(slot @ None) = out.get_mut(*n) {
                *slot = Some(open.clone());
            }
            open.push(*n);
            group_ancestors(body, open, out);
            open.pop();
        }
        Node::Seq(items) | Node::Alt(items) | Node::BranchReset(items) => items
            .iter()
            .for_each(|item| group_ancestors(item, open, out)),
        Node::Atomic(body) | Node::Look { body, .. } => group_ancestors(body, open, out),
        Node::Repeat { node, .. } => group_ancestors(node, open, out),
        Node::Cond { condition, yes, no } => {
            if let Condition::Assert { body, .. } = condition {
                group_ancestors(body, open, out);
            }
            group_ancestors(yes, open, out);
            group_ancestors(no, open, out);
        }
        _ => {}
    }
}

fn has_branch_reset(node: &Node) -> bool {
    match node {
        Node::BranchReset(_) => true,
        Node::Seq(items) | Node::Alt(items) => items.iter().any(has_branch_reset),
        Node::Capture(_, body) | Node::Atomic(body) | Node::Look { body, .. } => {
            has_branch_reset(body)
        }
        Node::Repeat { node, .. } => has_branch_reset(node),
        Node::Cond { yes, no, .. } => has_branch_reset(yes) || has_branch_reset(no),
        _ => false,
    }
}

/// Whether `node` is compiled as a group of its own (a bracket PCRE2's
/// study visits).
fn is_group(node: &Node) -> bool {
    matches!(node, Node::Seq(items) if items.len() == 1 && !matches!(items[0], Node::Call(_)))
        || matches!(
            node,
            Node::Capture(..) | Node::Atomic(_) | Node::Cond { .. } | Node::BranchReset(_)
        )
}

/// Whether `node` is a call, or a group of just a call (compiled alike).
fn is_call(node: &Node) -> bool {
    match node {
        Node::Call(_) => true,
        Node::Seq(items) => matches!(items[..], [Node::Call(_)]),
        _ => false,
    }
}

/// The state of [`min_length`]: `None` from a method is PCRE2 giving up.
struct Study<'a, 'n> {
    groups: &'a [Option<&'n Node>],
    resolve: &'a dyn Fn(&Ref) -> Vec<usize>,
    ancestors: Vec<Vec<usize>>,
    dupcapused: bool,
    visits: usize,
    /// The length of each group a back reference measured (PCRE2's
    /// `backref_cache`, kept for the whole study); only those up to
    /// `backref_top`, the last stored, are looked at.
    backrefs: Vec<Option<usize>>,
    backref_top: usize,
}

/// One branch being measured: its length so far, whether it recursed,
/// and the last capturing group and call measured in the group (PCRE2
/// takes their lengths again for the next copy of the same group).
#[derive(Default)]
struct Branch {
    length: usize,
    had_recurse: bool,
    last_capture: Option<(usize, usize)>,
    last_call: Option<(usize, usize)>,
}

impl Branch {
    fn add(&mut self, length: usize) {
        self.length = self.length.saturating_add(length);
    }

    fn full(&self) -> bool {
        self.length >= MAX_LENGTH
    }
}

impl Study<'_, '_> {
    /// A group of the given branches; `enclosing` holds the groups whose
    /// text contains it, `recurses` those whose length is being found.
    fn bracket(
        &mut self,
        branches: &[&Node],
        enclosing: &mut Vec<usize>,
        recurses: &mut Vec<usize>,
    ) -> Option<usize> {
        self.visits += 1;
        if self.visits > 1001 {
            return None;
        }
        let mut length: Option<usize> = None;
        // What the group remembers of its last capture and call outlives
        // each branch.
        let mut last = (None, None);
        for branch in branches {
            let mut state = Branch {
                last_capture: last.0,
                last_call: last.1,
                ..Branch::default()
            };
            let items: &[Node] = match branch {
                Node::Seq(items) if items.len() > 1 => items,
                other => std::slice::from_ref(*other),
            };
            for item in items {
                self.item(item, enclosing, recurses, &mut state)?;
                if state.full() {
                    return Some(MAX_LENGTH);
                }
            }
            last = (state.last_capture, state.last_call);
            length = match length {
                None => Some(state.length),
                Some(l) if !state.had_recurse && state.length < l => Some(state.length),
                keep => keep,
            };
        }
        Some(length.unwrap_or(0))
    }

    /// The branches of a group's body.
    fn branches(body: &Node) -> Vec<&Node> {
        match body {
            Node::Alt(alts) | Node::BranchReset(alts) => alts.iter().collect(),
            other => vec![other],
        }
    }

    /// Adds the length of `node`, an item of the branch `state`.
    fn item(
        &mut self,
        node: &Node,
        enclosing: &mut Vec<usize>,
        recurses: &mut Vec<usize>,
        state: &mut Branch,
    ) -> Option<()> {
        match node {
            Node::Unit(_)
            | Node::Set(_)
            | Node::Any(_)
            | Node::NotNewline
            | Node::LineBreak
            | Node::Grapheme => state.add(1),
            // A run of literals (`\Q...\E` before a quantifier).
            Node::Seq(items) if items.len() > 1 => {
                for item in items {
                    self.item(item, enclosing, recurses, state)?;
                    if state.full() {
                        break;
                    }
                }
            }
            Node::Seq(items) if is_call(node) => {
                self.item(&items[0], enclosing, recurses, state)?;
            }
            Node::Seq(items) => {
                if let Some(body) = items.first() {
                    let d = self.bracket(&Self::branches(body), enclosing, recurses)?;
                    state.add(d);
                }
            }
            Node::Alt(_) | Node::BranchReset(_) => {
                let d = self.bracket(&Self::branches(node), enclosing, recurses)?;
                state.add(d);
            }
            Node::Capture(n, body) => {
                // A copy of the capturing group just measured takes its
                // length (not with duplicate numbers).
                let d = match state.last_capture {
                    Some((last, d)) if last == *n && !self.dupcapused => d,
                    _ => {
                        enclosing.push(*n);
                        let d = self.bracket(&Self::branches(body), enclosing, recurses);
                        enclosing.pop();
                        let d = d?;
                        state.last_capture = Some((*n, d));
                        d
                    }
                };
                state.add(d);
            }
            Node::Atomic(body) => {
                let d = self.bracket(&Self::branches(body), enclosing, recurses)?;
                state.add(d);
            }
            // A back reference is measured whatever its repeat (PCRE2 gives
            // up on one when group numbers are duplicated).
            Node::Repeat { node, min, .. } if matches!(**node, Node::BackRef(..)) => {
                let d = self.reference(node, enclosing, recurses, state)?;
                state.add(d.saturating_mul(*min as usize));
            }
            Node::Repeat { min: 0, .. } => {}
            // `(?1)+` counts nothing; `(?1){2,}` each copy.
            Node::Repeat {
                node,
                min: 1,
                max: None,
                ..
            } if is_call(node) => {}
            Node::Repeat {
                node,
                min,
                max,
                greed,
            } if is_group(node) => {
                // A group repeated possessively a bounded number of times
                // is wrapped in an atomic group.
                if *greed == Greed::Possessive && max.is_some() {
                    self.visits += 1;
                    if self.visits > 1001 {
                        return None;
                    }
                }
                // The copies of the group, the last one of an unlimited
                // repeat marked "could be empty" (OP_SBRA: 0, not visited,
                // unless it is a copy of the capturing group just measured)
                // if the group could match nothing.
                let mut copies = *min as usize;
                // (An atomic group repeated possessively is compiled as a
                // plain one.)
                let could_be_empty = max.is_none()
                    && (*greed == Greed::Possessive || !matches!(**node, Node::Atomic(_)))
                    && nullable(node);
                if could_be_empty {
                    copies -= 1;
                }
                for _ in 0..copies {
                    self.item(node, enclosing, recurses, state)?;
                    if state.full() {
                        return Some(());
                    }
                }
                if could_be_empty
                    && let Node::Capture(n, _) = **node
                    && let Some((last, d)) = state.last_capture
                    && last == n
                    && !self.dupcapused
                {
                    state.add(d);
                }
            }
            Node::Repeat { node, min, .. } => {
                // A single item repeated, or a call (measured once).
                let mut inner = Branch {
                    last_call: state.last_call,
                    ..Branch::default()
                };
                self.item(node, enclosing, recurses, &mut inner)?;
                state.had_recurse |= inner.had_recurse;
                state.last_call = inner.last_call;
                state.add(inner.length.saturating_mul(*min as usize));
            }
            // With one branch (or `DEFINE`), the implied other is empty.
            Node::Cond { condition, yes, no }
                if !matches!(condition, Condition::Define) && !matches!(**no, Node::Empty) =>
            {
                let d = self.bracket(&[yes, no], enclosing, recurses)?;
                state.add(d);
            }
            Node::Call(reference) => {
                let Some(&n) = (self.resolve)(reference).first() else {
                    return Some(());
                };
                let d = match state.last_call {
                    Some((last, d)) if last == n => d,
                    _ if enclosing.contains(&n) || recurses.contains(&n) => {
                        state.had_recurse = true;
                        0
                    }
                    _ => {
                        let d = self.group(n, recurses)?;
                        state.last_call = Some((n, d));
                        d
                    }
                };
                state.add(d);
            }
            Node::BackRef(..) => {
                let d = self.reference(node, enclosing, recurses, state)?;
                state.add(d);
            }
            // PCRE2 gives up where it meets one (not one skipped as
            // optional, nor one in an assertion).
            Node::Accept => return None,
            _ => {}
        }
        Some(())
    }

    /// The length of the back reference `node` (or a repeat of one).
    fn reference(
        &mut self,
        node: &Node,
        enclosing: &mut Vec<usize>,
        recurses: &mut Vec<usize>,
        state: &mut Branch,
    ) -> Option<usize> {
        let reference = match node {
            Node::BackRef(reference, _) => reference,
            Node::Repeat { node, .. } => return self.reference(node, enclosing, recurses, state),
            _ => return Some(0),
        };
        // PCRE2 gives up on a back reference when group numbers are
        // duplicated.
        if self.dupcapused {
            return None;
        }
        let numbers = (self.resolve)(reference);
        let mut d = usize::MAX;
        for n in numbers {
            let dd = match self.cached(n) {
                Some(dd) => dd,
                None => {
                    let dd = if enclosing.contains(&n) || recurses.contains(&n) {
                        state.had_recurse = true;
                        0
                    } else {
                        self.group(n, recurses)?
                    };
                    self.remember(n, dd);
                    dd
                }
            };
            d = d.min(dd);
            if d == 0 {
                break;
            }
        }
        Some(if d == usize::MAX { 0 } else { d })
    }

    fn cached(&self, n: usize) -> Option<usize> {
        if n <= self.backref_top {
            self.backrefs.get(n).copied().flatten()
        } else {
            None
        }
    }

    /// Stores a group's length as PCRE2 does: the entries between the
    /// last stored and this one are forgotten, and this is the last.
    fn remember(&mut self, n: usize, length: usize) {
        if self.backrefs.len() <= n {
            self.backrefs.resize(n + 1, None);
        }
        for forgotten in self.backref_top + 1..n {
            self.backrefs[forgotten] = None;
        }
        self.backrefs[n] = Some(length);
        self.backref_top = n;
    }

    /// The length of group `n`, measured where it is written.
    fn group(&mut self, n: usize, recurses: &mut Vec<usize>) -> Option<usize> {
        let Some(group) = self.groups.get(n).copied().flatten() else {
            return Some(0);
        };
        let mut enclosing = self.ancestors.get(n).cloned().unwrap_or_default();
        enclosing.push(n);
        recurses.push(n);
        let body = match group {
            Node::Capture(_, body) => body,
            whole => whole,
        };
        let d = self.bracket(&Self::branches(body), &mut enclosing, recurses);
        recurses.pop();
        d
    }
}

/// The last literal every match contains, and its other case (PCRE2's
/// required code unit, looked for before matching a short subject).
fn required_last(node: &Node) -> Option<(u32, Option<u32>)> {
    match node {
        Node::Unit(u) => Some((*u, None)),
        Node::Set(class)
            if !class.negated
                && class.ranges.is_empty()
                && class.unicode.is_empty()
                && class.props.is_empty()
                && !class.fold =>
        {
            let members: Vec<u32> = (0..256u32)
                .filter(|&c| class.has_plain(c))
                .take(3)
                .collect();
            match members[..] {
                [one] => Some((one, None)),
                [upper, lower]
                    if upper < 128
                        && (upper as u8).is_ascii_uppercase()
                        && lower == upper ^ 0x20 =>
                {
                    Some((upper, Some(lower)))
                }
                _ => None,
            }
        }
        Node::Seq(items) => required_in(items),
        Node::Alt(alts) | Node::BranchReset(alts) => {
            let first = required_last(alts.first()?)?;
            alts.iter()
                .skip(1)
                .all(|alt| required_last(alt) == Some(first))
                .then_some(first)
        }
        Node::Capture(_, body) | Node::Atomic(body) => required_last(body),
        Node::Repeat { node, min, .. } if *min > 0 => required_last(node),
        _ => None,
    }
}

/// The required code unit of a sequence: its last item that has one.
fn required_in(items: &[Node]) -> Option<(u32, Option<u32>)> {
    items.iter().rev().find_map(|item| match item {
        Node::Look {
            behind: false,
            negated: false,
            body,
        } => asserted_required(body),
        other => required_last(other),
    })
}

/// What a lookahead gives as required code unit: PCRE2 takes the
/// assertion's own, which it has only when the assertion starts with a
/// literal and a literal follows it (`(?=ab)` gives `b`, `(?=b)` and
/// `(?=.b)` nothing: measured with HTCondor 25.14, `(a+)+(?=b)` backtracks
/// through a subject without `b`).
fn asserted_required(body: &Node) -> Option<(u32, Option<u32>)> {
    match body {
        Node::Capture(_, body) | Node::Atomic(body) => asserted_required(body),
        Node::Seq(items) => {
            let (head, rest) = items.split_first()?;
            first_literal(head)?;
            required_in(rest).or_else(|| asserted_required(head))
        }
        // `x{2,}`: the repeated literal is required as well as first.
        Node::Repeat { node, min, .. } if *min > 1 => first_literal(node),
        _ => None,
    }
}

/// The literal every match starts with (PCRE2's first code unit).
fn first_literal(node: &Node) -> Option<(u32, Option<u32>)> {
    match node {
        Node::Unit(_) | Node::Set(_) => required_last(node),
        Node::Seq(items) => first_literal(items.first()?),
        Node::Alt(alts) | Node::BranchReset(alts) => {
            let first = first_literal(alts.first()?)?;
            alts.iter()
                .skip(1)
                .all(|alt| first_literal(alt) == Some(first))
                .then_some(first)
        }
        Node::Capture(_, body) | Node::Atomic(body) => first_literal(body),
        Node::Repeat { node, min, .. } if *min > 0 => first_literal(node),
        _ => None,
    }
}

/// Whether PCRE2's compiler sets a first code unit from the branches
/// (`compile_branch`): the first item that is not an assertion, a word
/// boundary, an anchor or empty is a literal, a literal repeated at least
/// once, or a group whose branches all start with the same one. Errs
/// toward "it does" (only its absence is used).
fn branch_first(node: &Node) -> Option<(u32, Option<u32>)> {
    match node {
        Node::Unit(_) | Node::Set(_) => required_last(node),
        Node::Seq(items) => {
            let item = items
                .iter()
                .find(|item| !matches!(item, Node::Empty | Node::Look { .. } | Node::Anchor(_)))?;
            branch_first(item)
        }
        Node::Alt(alts) | Node::BranchReset(alts) => {
            let first = branch_first(alts.first()?)?;
            alts.iter()
                .skip(1)
                .all(|alt| branch_first(alt) == Some(first))
                .then_some(first)
        }
        Node::Capture(_, body) | Node::Atomic(body) => branch_first(body),
        Node::Repeat { node, min, .. } if *min > 0 => branch_first(node),
        // A conditional group, a verb...: perhaps.
        Node::Cond { .. } | Node::Verb(_) | Node::Mark(_) | Node::SkipTo(_) | Node::Keep => {
            Some((u32::MAX, None))
        }
        _ => None,
    }
}

/// The first code unit a lookahead asserts, where the branches have none
/// of their own (PCRE2's `find_firstassertedcu`: `(?=b)(?R)b` starts with
/// `b`): the first significant item of every branch (negative assertions,
/// lookbehinds and word boundaries skipped) is a group whose branches do
/// the same, or a positive lookahead, inside which a literal (perhaps
/// repeated at least once) is the unit; all branches give the same.
fn first_asserted(node: &Node, in_assert: bool) -> Option<(u32, Option<u32>)> {
    let branches: &[Node] = match node {
        Node::Alt(alts) | Node::BranchReset(alts) => alts,
        other => std::slice::from_ref(other),
    };
    let mut found = None;
    for branch in branches {
        let item = match branch {
            Node::Seq(items) => items.iter().find(|item| {
                !matches!(
                    item,
                    Node::Empty
                        | Node::Look { negated: true, .. }
                        | Node::Look { behind: true, .. }
                        | Node::Anchor(Anchor::WordBoundary(_) | Anchor::NotWordBoundary(_))
                )
            })?,
            other => other,
        };
        let unit = match item {
            Node::Capture(_, body) | Node::Atomic(body) => first_asserted(body, in_assert)?,
            Node::Alt(_) | Node::BranchReset(_) | Node::Seq(_) => first_asserted(item, in_assert)?,
            Node::Look {
                behind: false,
                negated: false,
                body,
            } => first_asserted(body, true)?,
            Node::Unit(_) | Node::Set(_) if in_assert => required_last(item)?,
            Node::Repeat { node, min, .. } if in_assert && *min > 0 => match &**node {
                Node::Unit(_) | Node::Set(_) => required_last(node)?,
                _ => return None,
            },
            _ => return None,
        };
        if found.is_some_and(|f| f != unit) {
            return None;
        }
        found = Some(unit);
    }
    found
}

/// Whether every match must start at the start of the subject.
fn anchored(node: &Node) -> bool {
    match node {
        Node::Anchor(Anchor::StartSubject | Anchor::Circ(false)) => true,
        Node::Seq(items) => items.first().is_some_and(anchored),
        Node::Alt(alts) | Node::BranchReset(alts) => alts.iter().all(anchored),
        Node::Capture(_, body) | Node::Atomic(body) => anchored(body),
        _ => false,
    }
}

/// A compiled pattern.
pub(crate) struct Program {
    insts: Vec<Inst>,
    classes: Vec<Class>,
    /// Capture groups, without group 0.
    groups: usize,
    registers: usize,
    /// The registers where open groups keep their start.
    open_base: u32,
    keep_register: usize,
    utf: bool,
    newline: Newline,
    bsr_anycrlf: bool,
    anchored: bool,
    first: Option<[u64; 4]>,
    /// PCRE2's first code unit when a lookahead asserts it and the
    /// branches set none (`first` holds it).
    asserted_first: Option<(u32, Option<u32>)>,
    /// The shortest match, and a literal every match ends with or after.
    min_length: usize,
    required: Option<(u32, Option<u32>)>,
    notempty: bool,
    notempty_atstart: bool,
    limit: u64,
    /// Whether the pattern uses what only this matcher runs as PCRE2 does.
    pub(crate) needed: bool,
}

/// A subject prepared for matching: its code units, and each unit's
/// offset in the caller's text.
pub(crate) struct Subject {
    units: Vec<u32>,
    offsets: Vec<usize>,
}

impl Subject {
    /// `text` holds one character per byte (as `engine.rs` maps bytes);
    /// in UTF mode the bytes are decoded as UTF-8.
    pub(crate) fn new(text: &str, utf: bool) -> Result<Subject, MatchError> {
        let mut units = Vec::with_capacity(text.len());
        let mut offsets = Vec::with_capacity(text.len() + 1);
        if !utf {
            for (at, c) in text.char_indices() {
                units.push(u32::from(c));
                offsets.push(at);
            }
            offsets.push(text.len());
            return Ok(Subject { units, offsets });
        }
        let bytes: Vec<(usize, u8)> = text
            .char_indices()
            .map(|(at, c)| (at, u8::try_from(u32::from(c)).unwrap_or(0xff)))
            .collect();
        let raw: Vec<u8> = bytes.iter().map(|&(_, b)| b).collect();
        let decoded = std::str::from_utf8(&raw).map_err(|_| MatchError::BadUtf)?;
        for (at, c) in decoded.char_indices() {
            units.push(u32::from(c));
            offsets.push(bytes[at].0);
        }
        offsets.push(text.len());
        Ok(Subject { units, offsets })
    }

    /// The unit at (or after) a text offset.
    pub(crate) fn unit_at(&self, offset: usize) -> usize {
        self.offsets.partition_point(|&o| o < offset)
    }

    pub(crate) fn len(&self) -> usize {
        self.units.len()
    }
}

/// Start-of-pattern settings: `(*UTF)`, `(*CR)`, ...
struct Settings {
    utf: bool,
    ucp: bool,
    newline: Newline,
    bsr_anycrlf: bool,
    notempty: bool,
    notempty_atstart: bool,
    no_start_opt: bool,
    limit: u64,
    special: bool,
}

fn settings(pattern: &[u8]) -> Parsed<(Settings, usize)> {
    let mut s = Settings {
        utf: false,
        ucp: false,
        newline: Newline::Lf,
        bsr_anycrlf: false,
        notempty: false,
        notempty_atstart: false,
        no_start_opt: false,
        limit: MATCH_LIMIT,
        special: false,
    };
    let mut at = 0;
    while pattern[at..].starts_with(b"(*") {
        let Some(close) = pattern[at..].iter().position(|&b| b == b')') else {
            break;
        };
        let word = &pattern[at + 2..at + close];
        let limit = |prefix: &[u8]| -> Option<Option<u64>> {
            let digits = word.strip_prefix(prefix)?;
            if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                return Some(None);
            }
            Some(std::str::from_utf8(digits).ok()?.parse().ok())
        };
        match word {
            b"UTF" | b"UTF8" => s.utf = true,
            b"UCP" => s.ucp = true,
            b"CR" => s.newline = Newline::Cr,
            b"LF" => s.newline = Newline::Lf,
            b"CRLF" => s.newline = Newline::CrLf,
            b"ANY" => s.newline = Newline::Any,
            b"ANYCRLF" => s.newline = Newline::AnyCrLf,
            b"NUL" => s.newline = Newline::Nul,
            b"BSR_ANYCRLF" => s.bsr_anycrlf = true,
            b"BSR_UNICODE" => s.bsr_anycrlf = false,
            b"NOTEMPTY" => s.notempty = true,
            b"NOTEMPTY_ATSTART" => s.notempty_atstart = true,
            b"NO_START_OPT" => s.no_start_opt = true,
            b"NO_AUTO_POSSESS" | b"NO_DOTSTAR_ANCHOR" | b"NO_JIT" => {}
            _ => {
                if let Some(value) = limit(b"LIMIT_MATCH=") {
                    s.limit = s.limit.min(value.ok_or(CompileError::Invalid)?);
                } else if let Some(value) = limit(b"LIMIT_DEPTH=")
                    .or_else(|| limit(b"LIMIT_RECURSION="))
                    .or_else(|| limit(b"LIMIT_HEAP="))
                {
                    value.ok_or(CompileError::Invalid)?;
                } else {
                    break;
                }
            }
        }
        s.special = true;
        at += close + 1;
    }
    Ok((s, at))
}

impl Program {
    /// Compiles `pattern` (bytes) with the options of `regexp`.
    pub(crate) fn new(
        pattern: &[u8],
        caseless: bool,
        multiline: bool,
        dotall: bool,
        extended: bool,
    ) -> Result<Program, CompileError> {
        let (settings, start) = settings(pattern)?;
        let rest = &pattern[start..];
        let units: Vec<u32> = if settings.utf {
            std::str::from_utf8(rest)
                .map_err(|_| CompileError::Invalid)?
                .chars()
                .map(u32::from)
                .collect()
        } else {
            rest.iter().map(|&b| u32::from(b)).collect()
        };
        let mut parser = Parser {
            total_groups_hint: count_groups(&units),
            units,
            at: 0,
            flags: Flags {
                caseless,
                multiline,
                dotall,
                extended,
                ..Flags::default()
            },
            utf: settings.utf,
            ucp: settings.ucp,
            groups: 0,
            names: Vec::new(),
            closed: vec![true],
            open: Vec::new(),
            self_referenced: Vec::new(),
            special: settings.special,
            depth: 0,
        };
        let tree = match parser.parse() {
            Err(CompileError::Invalid) if parser.special => {
                return Err(CompileError::InvalidSpecial);
            }
            other => other?,
        };
        let mut group_nodes = Vec::new();
        collect_groups(&tree, &mut group_nodes);
        group_nodes.resize(parser.groups + 1, None);
        // Group 0 is the whole pattern, for `(?R)` in a lookbehind.
        group_nodes[0] = Some(&tree);
        let slots = 2 * (parser.groups + 1);
        let mut compiler = Compiler {
            insts: Vec::new(),
            classes: Vec::new(),
            names: &parser.names,
            groups: parser.groups,
            group_start: vec![0],
            group_nodes,
            calls: Vec::new(),
            registers: slots as u32,
            alt_ids: 0,
            enclosing_alt: Vec::new(),
            open_captures: Vec::new(),
            enclosing_groups: Vec::new(),
            behind_enclosing: Vec::new(),
            looks: Vec::new(),
            marks: Vec::new(),
            length_work: std::cell::Cell::new(0),
        };
        match compiler.node(&tree) {
            Err(CompileError::Invalid) if parser.special => {
                return Err(CompileError::InvalidSpecial);
            }
            other => other?,
        }
        compiler.emit(Inst::Match)?;
        for &(at, group) in &compiler.calls {
            let target = compiler.group_start.get(group).copied().unwrap_or(u32::MAX);
            if target == u32::MAX {
                return Err(CompileError::Unsupported);
            }
            compiler.insts[at] = Inst::Call { target, group };
        }
        let open_base = compiler.registers;
        let keep_register = (open_base as usize) + parser.groups + 1;
        // `(*ACCEPT)` can end a match anywhere: no literal (the study of
        // the length gives up where it meets one).
        let optimize = !settings.no_start_opt && !has_accept(&tree);
        let min_length = if !settings.no_start_opt {
            let groups: Vec<Option<&Node>> = compiler.group_nodes.clone();
            min_length(&tree, &groups, &|r| compiler.resolve(r).unwrap_or_default())
        } else {
            0
        };
        let anchored = !settings.no_start_opt && anchored(&tree);
        let required = if optimize { required_last(&tree) } else { None };
        // PCRE2's first code unit taken from a lookahead where the branches
        // set none (a match is tried only where it is, and the required
        // one is looked for after it: `(?=b)a*b` never matches "b"); in
        // UTF mode an ASCII one only. Where the branches set one, the
        // required unit here may be that same item, and is looked for
        // from the start as before.
        let first_unit = if optimize && !anchored && branch_first(&tree).is_none() {
            first_asserted(&tree, false).filter(|&(unit, other)| {
                !settings.utf || unit < 128 && other.is_none_or(|o| o < 128)
            })
        } else {
            None
        };
        let first = if let Some((unit, other)) = first_unit {
            let mut set = [0u64; 4];
            for u in std::iter::once(unit).chain(other) {
                set[(u >> 6) as usize] |= 1 << (u & 63);
            }
            Some(set)
        } else if settings.no_start_opt || settings.utf {
            None
        } else {
            first_units(&tree).and_then(|(set, nullable)| (!nullable).then_some(set))
        };
        Ok(Program {
            insts: compiler.insts,
            classes: compiler.classes,
            groups: parser.groups,
            registers: keep_register + 1,
            open_base,
            keep_register,
            utf: settings.utf,
            newline: settings.newline,
            bsr_anycrlf: settings.bsr_anycrlf,
            anchored,
            first,
            asserted_first: first_unit,
            min_length,
            required,
            notempty: settings.notempty,
            notempty_atstart: settings.notempty_atstart,
            limit: settings.limit,
            needed: parser.special,
        })
    }

    /// PCRE2's required code unit, looked for after the match's first
    /// unit, when a lookahead asserts the first one and the branches set
    /// none (see `Program::new`).
    pub(crate) fn asserted_required(&self) -> Option<(u32, Option<u32>)> {
        self.asserted_first.and(self.required)
    }

    /// The shortest subject a match is tried on (PCRE2's study).
    pub(crate) fn min_length(&self) -> usize {
        self.min_length
    }

    /// Whether subjects are decoded as UTF-8.
    pub(crate) fn utf(&self) -> bool {
        self.utf
    }
}

/// Capturing groups of a pattern, for PCRE's rule that `\NN` is a back
/// reference only if that many groups exist.
fn count_groups(units: &[u32]) -> usize {
    let (mut count, mut i, mut in_class) = (0, 0, false);
    while i < units.len() {
        match units[i] {
            92 => i += 1,
            91 if !in_class => in_class = true,
            93 if in_class => in_class = false,
            40 if !in_class => {
                let next = units.get(i + 1).copied();
                let after = units.get(i + 2).copied();
                let named = next == Some(63)
                    && (matches!(after, Some(80) | Some(39))
                        || after == Some(60) && !matches!(units.get(i + 3), Some(61 | 33)));
                if named || !matches!(next, Some(63 | 42)) {
                    count += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    count
}

/// Matching options of one call (PCRE2's `pcre2_match` options).
#[derive(Clone, Copy, Default)]
pub(crate) struct MatchOptions {
    pub(crate) anchored: bool,
    pub(crate) notempty: bool,
    pub(crate) notempty_atstart: bool,
    /// No match limit: the caller's model of PCRE2's count decided.
    pub(crate) unlimited: bool,
}

/// The groups of a match, as offsets in the caller's text: entry 0 is the
/// whole match.
pub(crate) type Groups = Vec<Option<(usize, usize)>>;

enum Entry {
    Branch {
        pc: u32,
        pos: usize,
        frame: u32,
        alt: u32,
    },
    /// A greedy single-item repeat that can give back down to `min_pos`.
    Greedy {
        pc: u32,
        pos: usize,
        min_pos: usize,
        frame: u32,
    },
    /// A lazy single-item repeat that may take one more item.
    Lazy {
        pc: u32,
        pos: usize,
        left: u32,
        frame: u32,
    },
    Restore {
        register: u32,
        old: usize,
    },
    /// A call pushed its frame when there were this many: backtracking
    /// past it frees the frames of that call and of later ones (a search
    /// makes millions of calls, `(a*)*(?1)b`, few of them at once).
    Frames(u32),
    Marker {
        pos: usize,
        frame: u32,
        restore: bool,
        on_success: u32,
        on_fail: u32,
    },
    Commit,
    Prune,
    Skip(usize),
    Then(u32),
    /// A `(*MARK)` passed: `(*SKIP:name)` looks for it.
    Mark(u32, usize),
    SkipTo(u32),
}

fn confining(entry: &Entry) -> bool {
    matches!(entry, Entry::Marker { restore: true, on_fail, .. } if *on_fail != PROPAGATE)
}

struct Frame {
    ret: u32,
    parent: u32,
    group: usize,
    pos: usize,
    depth: usize,
    saved: Box<[usize]>,
}

enum Outcome {
    Match(usize, usize),
    NoMatch,
    /// No match, and none at a later start either.
    Commit,
    /// No match; go on from this position.
    SkipTo(usize),
}

struct Run<'a> {
    program: &'a Program,
    s: &'a [u32],
    start_offset: usize,
    registers: Vec<usize>,
    stack: Vec<Entry>,
    frames: Vec<Frame>,
    steps: u64,
    charged: u64,
    limit_steps: u64,
    options: MatchOptions,
}

impl Program {
    /// Searches `subject` from unit `start`, as `pcre2_match` does.
    pub(crate) fn exec(
        &self,
        subject: &Subject,
        start: usize,
        options: MatchOptions,
        charge: &mut dyn FnMut(u64) -> bool,
    ) -> Result<Option<Groups>, MatchError> {
        let s = &subject.units[..];
        let mut run = Run {
            program: self,
            s,
            start_offset: start,
            registers: vec![UNSET; self.registers],
            stack: Vec::new(),
            frames: Vec::new(),
            steps: 0,
            charged: 0,
            limit_steps: 0,
            options: MatchOptions {
                notempty: options.notempty || self.notempty,
                notempty_atstart: options.notempty_atstart || self.notempty_atstart,
                anchored: options.anchored,
                unlimited: options.unlimited,
            },
        };
        let anchored = options.anchored || self.anchored;
        // Where the required literal was last found.
        let mut required_at: Option<usize> = None;
        let mut at = start;
        while at <= s.len() {
            if let Some(first) = &self.first
                && !anchored
            {
                // PCRE2 skips ahead to a unit a match can start with.
                while at < s.len()
                    && !(s[at] < 256 && first[(s[at] >> 6) as usize] >> (s[at] & 63) & 1 == 1)
                {
                    at += 1;
                }
                if at >= s.len() {
                    break;
                }
            }
            // PCRE2 starts no match that cannot succeed, and none after
            // it: at each start it checks that enough units remain (so
            // `$(?R)b` never runs at the end of "b", where it would loop),
            // and, with under 2,000 units left, that the required literal
            // follows (searched again only once the start passed it).
            if s.len().saturating_sub(at) < self.min_length {
                break;
            }
            // With a first code unit, the required one is looked for after
            // it (`(?=b)(?R)b` on "b" finds none and never runs).
            let from = at + usize::from(self.asserted_first.is_some());
            if let Some((unit, other)) = self.required
                && s.len() - at < REQUIRED_SCAN_MAX
                && required_at.is_none_or(|found| from > found)
            {
                match s
                    .get(from..)
                    .and_then(|rest| rest.iter().position(|&c| c == unit || Some(c) == other))
                {
                    Some(found) => required_at = Some(from + found),
                    None => break,
                }
            }
            run.limit_steps = 0;
            match run.attempt(at, charge)? {
                Outcome::Match(from, to) => {
                    let mut groups = vec![Some((subject.offsets[from], subject.offsets[to]))];
                    for n in 1..=self.groups {
                        let (a, b) = (run.registers[2 * n], run.registers[2 * n + 1]);
                        groups.push(
                            (a != UNSET && b != UNSET)
                                .then(|| (subject.offsets[a], subject.offsets[b.max(a)])),
                        );
                    }
                    // Unset groups after the last set one are not reported.
                    while groups.len() > 1 && groups.last().is_some_and(Option::is_none) {
                        groups.pop();
                    }
                    return Ok(Some(groups));
                }
                Outcome::NoMatch => {}
                Outcome::Commit => return Ok(None),
                Outcome::SkipTo(next) => {
                    if next > at {
                        if anchored {
                            return Ok(None);
                        }
                        at = next;
                        continue;
                    }
                }
            }
            if anchored {
                break;
            }
            at += 1;
        }
        let _ = run.charged;
        Ok(None)
    }
}

impl Run<'_> {
    fn set(&mut self, register: u32, value: usize) {
        let old = self.registers[register as usize];
        if old != value {
            self.stack.push(Entry::Restore { register, old });
            self.registers[register as usize] = value;
        }
    }

    fn close(&mut self, n: u32, pos: usize) {
        let start = self.registers[(self.program.open_base + n) as usize];
        self.set(2 * n, start);
        self.set(2 * n + 1, pos);
    }

    fn newline_at(&self, pos: usize) -> Option<usize> {
        let s = self.s;
        let c = *s.get(pos)?;
        let next = s.get(pos + 1).copied();
        match self.program.newline {
            Newline::Lf => (c == 10).then_some(1),
            Newline::Cr => (c == 13).then_some(1),
            Newline::Nul => (c == 0).then_some(1),
            Newline::CrLf => (c == 13 && next == Some(10)).then_some(2),
            Newline::AnyCrLf | Newline::Any => {
                if c == 13 && next == Some(10) {
                    Some(2)
                } else if c == 10
                    || c == 13
                    || (self.program.newline == Newline::Any
                        && (matches!(c, 11 | 12 | 0x85)
                            || (self.program.utf && matches!(c, 0x2028 | 0x2029))))
                {
                    Some(1)
                } else {
                    None
                }
            }
        }
    }

    fn newline_before(&self, pos: usize) -> bool {
        if pos == 0 {
            return false;
        }
        match self.program.newline {
            Newline::CrLf => pos >= 2 && self.s[pos - 2] == 13 && self.s[pos - 1] == 10,
            Newline::AnyCrLf | Newline::Any
                if self.s[pos - 1] == 10 && pos >= 2 && self.s[pos - 2] == 13 =>
            {
                true
            }
            _ => self.newline_at(pos - 1) == Some(1),
        }
    }

    fn is_word(&self, pos: usize, ucp: bool) -> bool {
        self.s.get(pos).is_some_and(|&c| {
            if ucp {
                unicode_is(Kind::Word, c)
            } else {
                c < 128 && ((c as u8).is_ascii_alphanumeric() || c == 95)
            }
        })
    }

    fn anchor(&self, anchor: Anchor, pos: usize) -> bool {
        let len = self.s.len();
        match anchor {
            Anchor::Circ(false) | Anchor::StartSubject => pos == 0,
            Anchor::Circ(true) => pos == 0 || (pos != len && self.newline_before(pos)),
            Anchor::Dollar(false) | Anchor::EndOrNewline => {
                pos == len || self.newline_at(pos).is_some_and(|l| pos + l == len)
            }
            Anchor::Dollar(true) => pos == len || self.newline_at(pos).is_some(),
            Anchor::EndSubject => pos == len,
            Anchor::StartOffset => pos == self.start_offset,
            Anchor::WordBoundary(ucp) => {
                (pos > 0 && self.is_word(pos - 1, ucp)) != self.is_word(pos, ucp)
            }
            Anchor::NotWordBoundary(ucp) => {
                (pos > 0 && self.is_word(pos - 1, ucp)) == self.is_word(pos, ucp)
            }
        }
    }

    fn item(&self, item: Item, pos: usize) -> bool {
        let Some(&c) = self.s.get(pos) else {
            return false;
        };
        match item {
            Item::Unit(u) => c == u,
            Item::Set(i) => self.program.classes[i as usize].has(c),
            Item::Any => self.newline_at(pos).is_none(),
            Item::AnyAll => true,
        }
    }

    /// Counts a step; `Err` past the match limit or the budget.
    fn step(&mut self, charge: &mut dyn FnMut(u64) -> bool) -> Result<(), MatchError> {
        self.steps += 1;
        self.limit_steps += 1;
        if self.limit_steps > self.program.limit && !self.options.unlimited {
            return Err(MatchError::Limit);
        }
        if self.steps.is_multiple_of(CHARGE_EVERY) {
            self.charged += CHARGE_EVERY;
            if !charge(CHARGE_EVERY) {
                return Err(MatchError::Budget);
            }
        }
        if self.stack.len() > MAX_STACK {
            return Err(MatchError::Limit);
        }
        Ok(())
    }

    /// A back reference at `pos`: the length it matches.
    fn back_reference(&self, groups: &[usize], caseless: bool, pos: usize) -> Option<usize> {
        let n = groups
            .iter()
            .copied()
            .find(|&n| self.registers[2 * n] != UNSET && self.registers[2 * n + 1] != UNSET)?;
        let (a, b) = (self.registers[2 * n], self.registers[2 * n + 1]);
        let length = b.saturating_sub(a);
        if pos + length > self.s.len() {
            return None;
        }
        let same = (0..length).all(|i| {
            let (x, y) = (self.s[a + i], self.s[pos + i]);
            x == y
                || caseless
                    && if self.program.utf {
                        other_cases(x).any(|o| o == y)
                    } else {
                        x < 128 && y < 128 && (x as u8).eq_ignore_ascii_case(&(y as u8))
                    }
        });
        same.then_some(length)
    }

    fn attempt(
        &mut self,
        start: usize,
        charge: &mut dyn FnMut(u64) -> bool,
    ) -> Result<Outcome, MatchError> {
        self.stack.clear();
        self.frames.clear();
        self.frames.push(Frame {
            ret: 0,
            parent: 0,
            group: usize::MAX,
            pos: start,
            depth: 0,
            saved: Box::new([]),
        });
        self.registers.iter_mut().for_each(|r| *r = UNSET);
        let program = self.program;
        let insts = &program.insts[..];
        let mut pc: u32 = 0;
        let mut pos = start;
        let mut frame: u32 = 0;
        loop {
            let mut ok = true;
            match &insts[pc as usize] {
                Inst::Item(item) => {
                    if self.item(*item, pos) {
                        pos += 1;
                        pc += 1;
                    } else {
                        ok = false;
                    }
                }
                Inst::Repeat {
                    item,
                    min,
                    max,
                    lazy,
                } => {
                    let (min, max) = (*min as usize, *max as usize);
                    let mut count = 0;
                    let limit = if *lazy { min } else { max };
                    while count < limit && self.item(*item, pos + count) {
                        count += 1;
                    }
                    if count < min {
                        ok = false;
                    } else {
                        let base = pos;
                        pos += count;
                        if *lazy {
                            if max > min {
                                self.step(charge)?;
                                self.stack.push(Entry::Lazy {
                                    pc,
                                    pos,
                                    left: (max - min).min(u32::MAX as usize) as u32,
                                    frame,
                                });
                            }
                        } else if count > min {
                            self.step(charge)?;
                            self.stack.push(Entry::Greedy {
                                pc,
                                pos,
                                min_pos: base + min,
                                frame,
                            });
                        }
                        pc += 1;
                    }
                }
                Inst::NotNewline => {
                    if pos < self.s.len() && self.newline_at(pos).is_none() {
                        pos += 1;
                        pc += 1;
                    } else {
                        ok = false;
                    }
                }
                Inst::LineBreak => {
                    let c = self.s.get(pos).copied();
                    let length = match c {
                        Some(13) if self.s.get(pos + 1) == Some(&10) => 2,
                        Some(10 | 13) => 1,
                        Some(11 | 12 | 0x85) if !program.bsr_anycrlf => 1,
                        Some(0x2028 | 0x2029) if program.utf && !program.bsr_anycrlf => 1,
                        _ => 0,
                    };
                    if length == 0 {
                        ok = false;
                    } else {
                        pos += length;
                        pc += 1;
                    }
                }
                Inst::Grapheme => {
                    if pos >= self.s.len() {
                        ok = false;
                    } else {
                        if self.s[pos] == 13 && self.s.get(pos + 1) == Some(&10) {
                            pos += 2;
                        } else {
                            pos += 1;
                            while program.utf
                                && self
                                    .s
                                    .get(pos)
                                    .is_some_and(|&c| (0x300..0x370).contains(&c))
                            {
                                pos += 1;
                            }
                        }
                        pc += 1;
                    }
                }
                Inst::Split { first, second, alt } => {
                    self.step(charge)?;
                    self.stack.push(Entry::Branch {
                        pc: *second,
                        pos,
                        frame,
                        alt: *alt,
                    });
                    pc = *first;
                }
                Inst::Jmp(target) => pc = *target,
                Inst::Open(n) => {
                    self.set(program.open_base + *n, pos);
                    pc += 1;
                }
                Inst::Close(n) => {
                    self.close(*n, pos);
                    pc += 1;
                }
                Inst::Anchor(anchor) => {
                    if self.anchor(*anchor, pos) {
                        pc += 1;
                    } else {
                        ok = false;
                    }
                }
                Inst::BackRef { groups, caseless } => {
                    match self.back_reference(groups, *caseless, pos) {
                        Some(length) => {
                            pos += length;
                            pc += 1;
                        }
                        None => ok = false,
                    }
                }
                Inst::LoopStart(reg) => {
                    self.set(*reg, pos);
                    pc += 1;
                }
                Inst::LoopEnd { reg, again } => {
                    if self.registers[*reg as usize] == pos {
                        // An empty iteration: no more of them.
                        pc += 1;
                    } else {
                        // Back to the split, which orders the choices.
                        pc = *again;
                    }
                }
                Inst::LookStart {
                    restore,
                    on_success,
                    on_fail,
                } => {
                    self.stack.push(Entry::Marker {
                        pos,
                        frame,
                        restore: *restore,
                        on_success: *on_success,
                        on_fail: *on_fail,
                    });
                    pc += 1;
                }
                Inst::LookEnd => {
                    // Cut back to the marker: keep only the undo entries.
                    let mut kept = Vec::new();
                    let mut marker = None;
                    while let Some(entry) = self.stack.pop() {
                        match entry {
                            Entry::Marker {
                                pos,
                                restore,
                                on_success,
                                ..
                            } => {
                                marker = Some((pos, restore, on_success));
                                break;
                            }
                            Entry::Restore { .. } | Entry::Frames(_) => kept.push(entry),
                            _ => {}
                        }
                    }
                    self.stack.extend(kept.into_iter().rev());
                    let Some((saved, restore, on_success)) = marker else {
                        return Err(MatchError::Limit);
                    };
                    if restore {
                        pos = saved;
                    }
                    if on_success == FAIL {
                        ok = false;
                    } else {
                        pc = on_success;
                    }
                }
                Inst::StepBack(length) => {
                    let length = *length as usize;
                    if pos < length {
                        ok = false;
                    } else {
                        pos -= length;
                        pc += 1;
                    }
                }
                Inst::Call { target, group } => {
                    self.step(charge)?;
                    // A recursion that has not moved since the last one
                    // of the same group loops for ever: PCRE2 errs.
                    let mut f = frame;
                    let mut looked = 0;
                    while f != 0 && looked < MAX_LOOP_CHECK {
                        looked += 1;
                        let fr = &self.frames[f as usize];
                        if fr.group == *group {
                            if fr.pos == pos {
                                return Err(MatchError::RecursionLoop);
                            }
                            break;
                        }
                        f = fr.parent;
                    }
                    let depth = self.frames[frame as usize].depth + 1;
                    if depth > MAX_CALL_DEPTH
                        || self.frames.len() >= MAX_FRAMES
                        || (self.frames.len() + 1) * self.registers.len() > MAX_SAVED_REGISTERS
                    {
                        return Err(MatchError::Limit);
                    }
                    self.stack.push(Entry::Frames(self.frames.len() as u32));
                    self.frames.push(Frame {
                        ret: pc + 1,
                        parent: frame,
                        group: *group,
                        pos,
                        depth,
                        saved: self.registers.clone().into_boxed_slice(),
                    });
                    frame = (self.frames.len() - 1) as u32;
                    pc = if *group == 0 { 0 } else { *target };
                }
                Inst::GroupEnd(group) => {
                    if frame != 0 && self.frames[frame as usize].group == *group {
                        (pc, frame) = self.ret(frame);
                    } else {
                        pc += 1;
                    }
                }
                Inst::CondGroups { groups, no } => {
                    let set = groups.iter().any(|&n| self.registers[2 * n + 1] != UNSET);
                    pc = if set { pc + 1 } else { *no };
                }
                Inst::CondRecursion { group, no } => {
                    let current = self.frames[frame as usize].group;
                    let yes = frame != 0 && group.is_none_or(|g| g == current);
                    pc = if yes { pc + 1 } else { *no };
                }
                Inst::Verb(verb, alt) => match verb {
                    Verb::Fail => ok = false,
                    Verb::Commit => {
                        self.stack.push(Entry::Commit);
                        pc += 1;
                    }
                    Verb::Prune => {
                        self.stack.push(Entry::Prune);
                        pc += 1;
                    }
                    Verb::Skip => {
                        self.stack.push(Entry::Skip(pos));
                        pc += 1;
                    }
                    Verb::Then => {
                        self.stack.push(Entry::Then(*alt));
                        pc += 1;
                    }
                },
                Inst::Mark(id) => {
                    self.stack.push(Entry::Mark(*id, pos));
                    pc += 1;
                }
                Inst::SkipTo(id) => {
                    self.stack.push(Entry::SkipTo(*id));
                    pc += 1;
                }
                Inst::Accept { closes, look_end } => {
                    for &n in closes.iter() {
                        self.close(n, pos);
                    }
                    if let Some(end) = look_end {
                        pc = *end;
                    } else if frame != 0 {
                        (pc, frame) = self.ret(frame);
                    } else if let Some(outcome) = self.finish(start, pos) {
                        return Ok(outcome);
                    } else {
                        ok = false;
                    }
                }
                Inst::Keep => {
                    self.set(program.keep_register as u32, pos);
                    pc += 1;
                }
                Inst::Match => {
                    if frame != 0 {
                        (pc, frame) = self.ret(frame);
                    } else if let Some(outcome) = self.finish(start, pos) {
                        return Ok(outcome);
                    } else {
                        ok = false;
                    }
                }
            }
            if ok {
                continue;
            }
            // Backtrack.
            let mut then: Option<u32> = None;
            loop {
                let Some(entry) = self.stack.pop() else {
                    return Ok(Outcome::NoMatch);
                };
                match entry {
                    Entry::Restore { register, old } => self.registers[register as usize] = old,
                    Entry::Frames(length) => self.frames.truncate(length as usize),
                    Entry::Branch {
                        pc: p,
                        pos: q,
                        frame: f,
                        alt,
                    } => {
                        if then.is_some_and(|t| t != alt) {
                            continue;
                        }
                        self.step(charge)?;
                        (pc, pos, frame) = (p, q, f);
                        break;
                    }
                    Entry::Greedy {
                        pc: p,
                        pos: q,
                        min_pos,
                        frame: f,
                    } => {
                        if then.is_some() {
                            continue;
                        }
                        self.step(charge)?;
                        let q = q - 1;
                        if q > min_pos {
                            self.stack.push(Entry::Greedy {
                                pc: p,
                                pos: q,
                                min_pos,
                                frame: f,
                            });
                        }
                        (pc, pos, frame) = (p + 1, q, f);
                        break;
                    }
                    Entry::Lazy {
                        pc: p,
                        pos: q,
                        left,
                        frame: f,
                    } => {
                        if then.is_some() {
                            continue;
                        }
                        let Inst::Repeat { item, .. } = insts[p as usize] else {
                            continue;
                        };
                        if !self.item(item, q) {
                            continue;
                        }
                        self.step(charge)?;
                        if left > 1 {
                            self.stack.push(Entry::Lazy {
                                pc: p,
                                pos: q + 1,
                                left: left - 1,
                                frame: f,
                            });
                        }
                        (pc, pos, frame) = (p + 1, q + 1, f);
                        break;
                    }
                    Entry::Marker {
                        pos: q,
                        frame: f,
                        on_fail,
                        ..
                    } => {
                        then = None;
                        if on_fail != PROPAGATE {
                            (pc, pos, frame) = (on_fail, q, f);
                            break;
                        }
                    }
                    Entry::Commit | Entry::Prune | Entry::Skip(_) if self.in_assertion() => {
                        // Inside an assertion a verb only ends the
                        // assertion: it fails (a negative one holds).
                        self.unwind_to_assertion();
                        then = None;
                    }
                    Entry::Commit => return Ok(Outcome::Commit),
                    Entry::Prune => return Ok(Outcome::NoMatch),
                    Entry::Skip(to) => return Ok(Outcome::SkipTo(to)),
                    Entry::SkipTo(id) => {
                        // To the most recent `(*MARK)` of that name, if any
                        // (it is below on the stack).
                        let found = self.stack.iter().rev().find_map(|e| match e {
                            Entry::Mark(m, at) if *m == id => Some(*at),
                            _ => None,
                        });
                        if let Some(at) = found {
                            return Ok(Outcome::SkipTo(at));
                        }
                    }
                    Entry::Mark(..) => {}
                    Entry::Then(alt) => {
                        if then.is_none() {
                            if alt == 0 {
                                return Ok(Outcome::NoMatch);
                            }
                            then = Some(alt);
                        }
                    }
                }
            }
        }
    }

    /// Whether a verb is inside an assertion that confines it: a negative
    /// one, or the condition of a conditional group (in a standalone
    /// positive assertion a verb acts on the whole match).
    fn in_assertion(&self) -> bool {
        self.stack.iter().any(confining)
    }

    /// Pops (undoing captures) down to the innermost assertion's marker,
    /// which the next step of backtracking then takes.
    fn unwind_to_assertion(&mut self) {
        while let Some(entry) = self.stack.last() {
            if confining(entry) {
                break;
            }
            match self.stack.pop() {
                Some(Entry::Restore { register, old }) => self.registers[register as usize] = old,
                Some(Entry::Frames(length)) => self.frames.truncate(length as usize),
                _ => {}
            }
        }
    }

    /// Returns from the call of `frame`: its captures as before the call.
    fn ret(&mut self, frame: u32) -> (u32, u32) {
        let (ret, parent) = {
            let f = &self.frames[frame as usize];
            (f.ret, f.parent)
        };
        let saved = std::mem::take(&mut self.frames[frame as usize].saved);
        for (register, &value) in saved.iter().enumerate() {
            if register != self.program.keep_register {
                self.set(register as u32, value);
            }
        }
        self.frames[frame as usize].saved = saved;
        (ret, parent)
    }

    /// A match ending at `pos`, unless the options refuse an empty one.
    fn finish(&self, start: usize, pos: usize) -> Option<Outcome> {
        let keep = self.registers[self.program.keep_register];
        let from = if keep == UNSET { start } else { keep };
        if pos == from
            && (self.options.notempty
                || (self.options.notempty_atstart && from == self.start_offset))
        {
            return None;
        }
        Some(Outcome::Match(from, pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(pattern: &str) -> Program {
        Program::new(pattern.as_bytes(), false, false, false, false).expect("compiles")
    }

    fn run(
        pattern: &str,
        subject: &str,
        options: MatchOptions,
    ) -> Result<Option<Groups>, MatchError> {
        let program = program(pattern);
        let subject = Subject::new(subject, program.utf())?;
        program.exec(&subject, 0, options, &mut |_| true)
    }

    /// The text of each group of the first match (`None`: no match).
    fn groups(pattern: &str, subject: &str) -> Option<Vec<Option<String>>> {
        let found = run(pattern, subject, MatchOptions::default()).expect("no error")?;
        Some(
            found
                .iter()
                .map(|g| g.map(|(a, b)| subject[a..b].to_string()))
                .collect(),
        )
    }

    fn whole(pattern: &str, subject: &str) -> Option<String> {
        groups(pattern, subject).and_then(|g| g[0].clone())
    }

    fn error(pattern: &str) -> Option<CompileError> {
        Program::new(pattern.as_bytes(), false, false, false, false).err()
    }

    #[test]
    fn recursion_and_subroutine_calls() {
        let parens = r"^(\((?:[^()]|(?1))*\))$";
        assert_eq!(whole(parens, "(a(b)c)").as_deref(), Some("(a(b)c)"));
        assert_eq!(whole(parens, "(a(b c)"), None);
        assert_eq!(whole("a(?R)?b", "xaabbx").as_deref(), Some("aabb"));
        assert_eq!(
            whole("^((.)(?1)\\2|.?)$", "racecar").as_deref(),
            Some("racecar")
        );
        // Captures made inside a call are restored when it returns.
        assert_eq!(
            groups("(a|b)(?1)", "ab"),
            Some(vec![Some("ab".into()), Some("a".into())])
        );
        // A called group keeps the options where it is written.
        assert_eq!(whole("(a)(?i:(?1))", "aA"), None);
        assert_eq!(whole("(?<p>a|b)(?&p)", "ba").as_deref(), Some("ba"));
        assert_eq!(whole("(a)\\g<-1>", "aa").as_deref(), Some("aa"));
        assert_eq!(whole("(?+1)(a)", "aa").as_deref(), Some("aa"));
        assert!(program("(a)(?1)").needed);
        assert!(!program("(a)b").needed);
    }

    /// The shortest subject each pattern can match, as PCRE2 10.32's study
    /// finds it (`pcre2_pattern_info(PCRE2_INFO_MINLENGTH)` of the
    /// oracle's libpcre2): a call of a group it is inside counts nothing
    /// and its branch is ignored unless first, a pattern that could match
    /// nothing is 0, an unlimited repeat of a group that could is 0, a back
    /// reference gives up (0) when a branch reset is present.
    #[test]
    fn min_length_as_pcre2_study_finds_it() {
        let table: &[(&str, usize)] = &[
            (r"(?R)x", 1),
            (r"a|(?R)bb", 1),
            (r"(a(?1)b|)", 0),
            (r"(bc(?1)|a)", 1),
            (r"(a)\1", 2),
            (r"(a)\1*", 1),
            (r"a(?R)?x", 2),
            (r"(?:(?R))x", 1),
            (r"(ab(?2)|c)(de|f(?1))", 3),
            (r"(?1)(a)", 2),
            (r"b|(?0)", 0),
            (r"(a)(?:c|)+b", 2),
            (r"(a)(?:c|\1)+b", 2),
            (r"(?|(a))\1", 0),
            (r"(?|(a)|(b)c)x", 2),
            (r"(a|)+\1b", 1),
            (r"(?|x|(a))+bc", 3),
            (r"(?R){2}(?|)\d", 1),
            (r"(?:c|(?=x))+b", 1),
            (r"(a)(?:c|(?1))+b", 2),
            // Copies of a repeated group: each visited (PCRE2 gives up
            // past 1,001 groups), a capturing group's next copies taking
            // the first's length, the last of an unlimited repeat of a
            // group that could match nothing counting nothing.
            (r"(a)(b|\1){2,}c", 4),
            (r"(a)(?:b|\1){2,}c", 3),
            (r"(?:a){1000}", 1000),
            (r"(?:a){1001}", 0),
            (r"(a){1001}", 1001),
            (r"(?:(a)){500}", 500),
            (r"(?:(a)){501}", 0),
            (r"(?>a){1001}", 0),
            (r"(?:a){999}+", 999),
            (r"(?:\d){1000}+", 0),
            (r"(?>(*ACCEPT)|x)++abc", 3),
            // A repeated call is measured once, and visits no group.
            (r"(a)(?1){1001}", 1002),
            (r"(a)(?:(?1)){1001}", 1002),
            (r"(a)(?1)+x", 2),
            (r"(a)(?1){2,}", 3),
            // A branch that reaches 65,535 ends the walk.
            (r"b|a{65535}", 65535),
            (r"b|a{65534}", 1),
            // Where it meets (*ACCEPT) the study gives up.
            (r"a(*ACCEPT)bc", 0),
            (r"(?:(*ACCEPT)){0,3}abc", 3),
            // Any back reference with a branch reset gives up.
            (r"(?|(a)|(bb))(?J)(?<n>x)(?<n>yy)\k<n>", 0),
            (r"(?J)(?<n>x)(?<n>yy)\k<n>", 4),
            // The cache of back references forgets those above the last
            // stored.
            (
                r"(?i)(?=(ab|[ab]|\2)|x{3,}|.{3,}|bcd|\2|(?=x)|\2)(?:\1){0,3}\2(?:\2\2\2|\1|)ab(([ab]|bcd|\2))\3\2",
                4,
            ),
        ];
        // No study with a back reference to a group above 128.
        let many = "(a)".repeat(129);
        let mut table: Vec<(String, usize)> =
            table.iter().map(|&(p, n)| (p.to_string(), n)).collect();
        table.push((format!("{many}\\129"), 0));
        table.push((format!("{many}\\128"), 130));
        let wrong: Vec<String> = table
            .iter()
            .filter_map(|(pattern, want)| {
                let (pattern, want) = (pattern.as_str(), *want);
                let got = program(pattern).min_length;
                (got != want).then(|| format!("{pattern}: {got}, PCRE2 {want}"))
            })
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn version_condition_reads_a_major_up_to_1000() {
        assert!(error("(?(VERSION>=1000)a|b)").is_none());
        assert!(error("(?(VERSION>=1001)a|b)").is_some());
        assert!(error("(?(VERSION>=10.320)a|b)").is_some());
        assert_eq!(whole("(?(VERSION>=10.3)a|b)", "a").as_deref(), Some("a"));
        assert_eq!(whole("(?(VERSION>=10.33)a|b)", "a"), None);
    }

    #[test]
    fn a_recursion_that_does_not_move_is_an_error() {
        assert_eq!(
            run("^(?R)?x$", "x", MatchOptions::default()),
            Err(MatchError::RecursionLoop)
        );
        assert_eq!(
            run("(?:a|(?R))", "b", MatchOptions::default()),
            Err(MatchError::RecursionLoop)
        );
    }

    #[test]
    fn option_settings_as_pcre2_reads_them() {
        // Extended-more mode skips blanks before a class's first member,
        // so the `]` after them is a member.
        assert_eq!(whole("(?xx)[ ]a]+", "x]a]").as_deref(), Some("]a]"));
        assert_eq!(whole("(?xx)[ ^ ]a]+", "]x").as_deref(), Some("x"));
        assert_eq!(error("(?xx)[ ]"), Some(CompileError::InvalidSpecial));
        // `x` without `xx`, or `x` unset, ends extended-more mode.
        assert_eq!(whole("(?xx)(?x)[ ]", "a ").as_deref(), Some(" "));
        assert_eq!(whole("(?xx)(?ix)[ ]", "a ").as_deref(), Some(" "));
        assert_eq!(whole("(?xx)(?-x)[ ]", "a ").as_deref(), Some(" "));
        assert_eq!(whole("(?xxx)[a b]+", " ab").as_deref(), Some("ab"));
        assert_eq!(error("(?xx)(?i)[ ]"), Some(CompileError::InvalidSpecial));
        // `^` unsets imnsx, not U or J, and takes no `-` after it.
        assert_eq!(whole("(?U)(?^)a+", "aaa").as_deref(), Some("a"));
        assert_eq!(whole("(?J)(?^)(?<n>a)(?<n>b)", "ab").as_deref(), Some("ab"));
        assert_eq!(error("(?^-i)a"), Some(CompileError::InvalidSpecial));
    }

    #[test]
    fn quantified_word_edges_repeat_the_assertion_only() {
        assert_eq!(whole("x[[:<:]]*-", "x-").as_deref(), Some("x-"));
        assert_eq!(whole("x[[:<:]]{0}-", "x-").as_deref(), Some("x-"));
        assert_eq!(whole("[[:<:]]*-", "-"), None);
        assert_eq!(whole("a[[:>:]]+", "ab a").as_deref(), Some("a"));
    }

    #[test]
    fn branch_reset_and_duplicate_names() {
        assert_eq!(
            groups("(?|(a)|(b))", "b"),
            Some(vec![Some("b".into()), Some("b".into())])
        );
        assert_eq!(
            groups("(a)(?|b(c)|d(e))(f)", "adef"),
            Some(vec![
                Some("adef".into()),
                Some("a".into()),
                Some("e".into()),
                Some("f".into())
            ])
        );
        assert_eq!(whole("(?|(a)|(b))\\1", "bb").as_deref(), Some("bb"));
        assert_eq!(
            whole("(?J)(?<n>a)|(?<n>b)\\k<n>", "bb").as_deref(),
            Some("bb")
        );
        assert_eq!(error("(?<x>a)(?<x>b)"), Some(CompileError::Invalid));
        assert_eq!(
            error("(?|(?<x>a)|(?<y>b))"),
            Some(CompileError::InvalidSpecial)
        );
    }

    #[test]
    fn conditional_groups() {
        assert_eq!(whole("(a)?(?(1)b|c)", "c").as_deref(), Some("c"));
        assert_eq!(whole("(a)?(?(1)b|c)", "ab").as_deref(), Some("ab"));
        assert_eq!(whole("(?<n>a)?(?(<n>)b|c)", "ab").as_deref(), Some("ab"));
        assert_eq!(whole("(?(?=a)ab|cd)", "xcd").as_deref(), Some("cd"));
        assert_eq!(whole("(?(?!a)cd|ab)", "xab").as_deref(), Some("ab"));
        assert_eq!(
            whole("(?(DEFINE)(?<d>\\d+))(?&d)-(?&d)", "x12-34").as_deref(),
            Some("12-34")
        );
        assert_eq!(whole("((?(R)a|b)(?1)?)", "bab").as_deref(), Some("ba"));
        assert_eq!(error("(?(2)a|b)"), Some(CompileError::InvalidSpecial));
        assert_eq!(error("(?(1)a|b|c)"), Some(CompileError::InvalidSpecial));
        assert_eq!(error("(?(DEFINE)a|b)"), Some(CompileError::InvalidSpecial));
    }

    #[test]
    fn verbs() {
        assert_eq!(whole("a(*FAIL)|b", "ab").as_deref(), Some("b"));
        assert_eq!(whole("a(*ACCEPT)b", "ac").as_deref(), Some("a"));
        assert_eq!(
            groups("(a(*ACCEPT)b)c", "axx"),
            Some(vec![Some("a".into()), Some("a".into())])
        );
        assert_eq!(whole("a+(*COMMIT)b", "aaac aab"), None);
        assert_eq!(whole("a+(*PRUNE)b", "aaac aab").as_deref(), Some("aab"));
        assert_eq!(whole("a+(*SKIP)b", "aaac aab").as_deref(), Some("aab"));
        assert_eq!(whole("a(*THEN)b|ac", "ac").as_deref(), Some("ac"));
        assert_eq!(whole("(?:a(*THEN)b)c|ad", "ad").as_deref(), Some("ad"));
        // The start optimization skips to a possible first character.
        assert_eq!(whole("(*COMMIT)abc", "xyzabc").as_deref(), Some("abc"));
        assert_eq!(whole("(*NO_START_OPT)(*COMMIT)abc", "xyzabc"), None);
        assert_eq!(error("(*FOO)a"), Some(CompileError::InvalidSpecial));
    }

    #[test]
    fn empty_iterations_stop_a_repeat_and_keep_their_captures() {
        assert_eq!(
            groups("(a|)*b", "aab").map(|g| g[1].clone()),
            Some(Some(String::new()))
        );
        assert_eq!(
            groups("(a|)+", "aa").map(|g| g[1].clone()),
            Some(Some(String::new()))
        );
        assert_eq!(
            groups("(a{0,2})*b", "aaab").map(|g| g[1].clone()),
            Some(Some(String::new()))
        );
        assert_eq!(whole("(?:()|a)*x", "aax").as_deref(), Some("aax"));
        assert!(program("(a|)*b").needed);
    }

    #[test]
    fn back_references_see_the_last_closed_iteration() {
        assert_eq!(
            whole("(\\2two|(one))+", "oneonetwo").as_deref(),
            Some("oneonetwo")
        );
        assert_eq!(whole("(a\\1?){3}", "aaaaaa").as_deref(), Some("aaaaaa"));
        assert_eq!(whole("(a|b\\1)+", "abaab").as_deref(), Some("abaa"));
        assert_eq!(whole("(a\\1)", "aa"), None);
        assert_eq!(whole("(a)|\\1b", "b"), None);
    }

    #[test]
    fn keep_and_match_options() {
        let keep = run("foo\\Kbar", "foobar", MatchOptions::default()).expect("no error");
        assert_eq!(keep.map(|g| g[0]), Some(Some((3, 6))));
        let anchored_not_empty = MatchOptions {
            anchored: true,
            notempty_atstart: true,
            ..MatchOptions::default()
        };
        let program = program("(?=a)|a");
        let subject = Subject::new("ab", false).expect("subject");
        let found = program.exec(&subject, 0, anchored_not_empty, &mut |_| true);
        assert_eq!(found.map(|g| g.map(|g| g[0])), Ok(Some(Some((0, 1)))));
        let found = program.exec(&subject, 1, anchored_not_empty, &mut |_| true);
        assert_eq!(found.map(|g| g.is_some()), Ok(false));
        assert_eq!(whole("(*NOTEMPTY)a*", "b"), None);
    }

    #[test]
    fn newline_conventions_and_utf() {
        assert_eq!(whole("(*CR)a$", "a\r").as_deref(), Some("a"));
        assert_eq!(whole("(*CR)a$", "a\n"), None);
        assert_eq!(whole("(*CRLF)a.b", "a\nb").as_deref(), Some("a\nb"));
        assert_eq!(whole("(*ANYCRLF)a$", "a\r\n").as_deref(), Some("a"));
        // Bytes as the caller maps them: é is two characters of Latin-1.
        let e_acute = "\u{c3}\u{a9}";
        assert!(whole("(*UTF)^.$", e_acute).is_some());
        assert!(whole("^.$", e_acute).is_none());
        assert!(whole("(*UCP)\\w", e_acute).is_some());
        assert_eq!(Subject::new("\u{ff}", true).err(), Some(MatchError::BadUtf));
    }

    #[test]
    fn invalid_patterns() {
        assert_eq!(error("(?<=a(b|cd))x"), Some(CompileError::Invalid));
        assert_eq!(error("(?C256)a"), Some(CompileError::InvalidSpecial));
        assert_eq!(error("\\g{-1}(a)"), Some(CompileError::InvalidSpecial));
        assert_eq!(error("a{2}{3}"), Some(CompileError::Invalid));
        assert_eq!(error("\\x{100}"), Some(CompileError::Invalid));
        assert!(error("(?<=(?1))(a)").is_none());
    }

    #[test]
    fn hostile_patterns_are_bounded() {
        // Nesting past the parser's depth: refused without a deep stack.
        let deep = format!("{}a{}(?1)", "(".repeat(5000), ")".repeat(5000));
        assert_eq!(error(&deep), Some(CompileError::Unsupported));
        // Exponential backtracking runs into the match limit.
        let subject = format!("{}x", "a".repeat(40));
        assert_eq!(
            run("(a*)*(?1)[bc]", &subject, MatchOptions::default()),
            Err(MatchError::Limit)
        );
        // Unless a literal every match needs is missing (PCRE2 looks first).
        assert_eq!(
            run("(a*)*(?1)b", &subject, MatchOptions::default()),
            Ok(None)
        );
        // The budget callback can stop a match.
        let program = program("(a*)*(?1)[bc]");
        let subject = Subject::new(&subject, false).expect("subject");
        let stopped = program.exec(&subject, 0, MatchOptions::default(), &mut |_| false);
        assert_eq!(stopped, Err(MatchError::Budget));
        // Deep recursion is iterative.
        let subject = format!("{}{}", "x".repeat(50_000), "y".repeat(50_000));
        assert!(whole("(x(?1)?y)", &subject).is_some());
        // Lengths of lookbehinds through calls are measured with a bound.
        let mut pattern = String::from("(?<=(?1))");
        for n in 1..=30 {
            pattern.push_str(&format!("(a(?{})?(?{})?)", n + 1, n + 1));
        }
        pattern.push_str("(b)");
        assert!(error(&pattern).is_some());
    }

    /// Class 30 of tests/gen/known_bugs.txt: a group that refers to itself
    /// is atomic in PCRE2 10.32, each iteration keeping its first match.
    #[test]
    fn group_referring_to_itself_is_atomic() {
        assert_eq!(whole(r"(a\1?){4}", "aaaaaa").as_deref(), Some("aaaaa"));
        assert_eq!(whole(r"^(a\1?){4}$", "aaaaaa"), None);
        assert_eq!(whole(r"^(a\1*){3}$", "aaaa"), None);
        assert_eq!(
            whole(r"(?<n>a\k<n>?){4}", "aaaaaa").as_deref(),
            Some("aaaaa")
        );
        assert_eq!(whole(r"((a\1?)){4}", "aaaaaa").as_deref(), Some("aaaaa"));
        assert_eq!(whole(r"^(x?a+\1*)ab", "aaab"), None);
        // A reference to another group leaves the repeat free to backtrack.
        assert_eq!(whole(r"^(a)(a\1?){2}$", "aaaa").as_deref(), Some("aaaa"));
    }
}
