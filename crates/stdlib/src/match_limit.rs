//! PCRE2's match limit, modelled: HTCondor 25.14 runs patterns on PCRE2
//! 10.32's interpreter (no JIT, default match context), which gives up with
//! an error once one match attempt (one start position) has opened more
//! than 10,000,000 backtracking frames. A pattern that backtracks
//! catastrophically without back references (`(a+)+$`) runs on an
//! automaton here and never backtracks, so its answer would be `false`
//! where HTCondor's is ERROR.
//!
//! This module replays the interpreter's search for the common subset of
//! patterns (literals, classes, `.`, `\d \w \s`, groups, alternation,
//! greedy and lazy quantifiers, `^ $`), counting frames where PCRE2 opens
//! them: one per start position, one per alternative tried (the last
//! alternative of a non-capturing group reuses its frame), one per
//! iteration of a repeated group and one per position a single-item
//! repeat backs off to (none for the position it started from). It models
//! the optimizations that decide whether backtracking starts at all:
//! anchoring, the set of possible first bytes, the minimum length, the
//! required last literal (looked for in subjects under 2,000 bytes) and
//! auto-possessification of a repeat followed by something it cannot
//! match. Counts were checked frame for frame against HTCondor's own
//! PCRE2 library (see `tests/regex.rs`).
//!
//! Only patterns that can backtrack exponentially are modelled (see
//! [`risky`]); polynomial backtracking is not (docs/differences.md).

/// PCRE2's default match limit (frames per start position).
pub(crate) const MATCH_LIMIT: u64 = 10_000_000;
/// Subjects shorter than this are first searched for the required byte.
const REQUIRED_SCAN_MAX: usize = 2000;
/// Most copies of a group a counted repeat may make here.
const MAX_COPIES: u32 = 16;
/// Most pending backtracking points kept; beyond it the model gives up.
const MAX_STACK: usize = 1 << 20;
/// Most bytes of pattern modelled.
const MAX_PATTERN: usize = 512;

type Set = [u64; 4];

fn set_has(set: &Set, byte: u8) -> bool {
    set[(byte >> 6) as usize] >> (byte & 63) & 1 == 1
}

fn set_add(set: &mut Set, byte: u8) {
    set[(byte >> 6) as usize] |= 1 << (byte & 63);
}

/// Whether `set` is one byte, or one letter in either case.
fn is_literal(set: &Set) -> bool {
    let bytes: Vec<u8> = (0..=255u8).filter(|&b| set_has(set, b)).take(3).collect();
    match bytes[..] {
        [_] => true,
        [upper, lower] => upper.is_ascii_uppercase() && lower == upper ^ 0x20,
        _ => false,
    }
}

fn disjoint(a: &Set, b: &Set) -> bool {
    a.iter().zip(b).all(|(x, y)| x & y == 0)
}

fn union(a: &mut Set, b: &Set) {
    for (x, y) in a.iter_mut().zip(b) {
        *x |= y;
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Greedy,
    Lazy,
    Possessive,
}

#[derive(Clone, Debug)]
enum Node {
    Set(Set),
    Circ,
    Dollar,
    Group {
        capture: bool,
        alts: Vec<Vec<Node>>,
    },
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
        mode: Mode,
    },
    /// A lookaround assertion (a lookbehind's alternatives have fixed
    /// lengths).
    Look {
        negated: bool,
        behind: bool,
        alts: Vec<Vec<Node>>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ket {
    Once,
    Max,
    Min,
}

#[derive(Clone, Debug)]
enum Op {
    /// A group: the first op of each alternative.
    Bra {
        frames_all: bool,
        alts: Vec<u32>,
    },
    /// End of an alternative: on to the group's ket.
    AltEnd(u32),
    Ket {
        bra: u32,
        kind: Ket,
    },
    /// An optional group follows; `skip` is the op after its ket.
    BraZero {
        skip: u32,
        lazy: bool,
    },
    Item {
        set: u32,
        min: u32,
        max: u32,
        mode: Mode,
    },
    Circ,
    Dollar,
    /// An assertion: its body (a group, then `LookEnd`) follows; `next`
    /// is the op after it.
    Look {
        negated: bool,
        next: u32,
    },
    /// The end of an assertion's body: the assertion holds.
    LookEnd,
    /// A lookbehind's alternative starts this many bytes back.
    Back(u32),
    End,
}

/// A pattern ready to be replayed.
pub(crate) struct Model {
    ops: Vec<Op>,
    sets: Vec<Set>,
    anchored: bool,
    first: Option<Set>,
    min_length: usize,
    required: Option<Set>,
    /// Whether the first byte is one literal (the required byte is then
    /// looked for after it).
    first_is_literal: bool,
    /// `^` and `$` also at newlines inside the subject.
    multiline: bool,
}

struct Parser<'p> {
    bytes: &'p [u8],
    at: usize,
    caseless: bool,
    dotall: bool,
}

fn class_digit() -> Set {
    let mut set = [0; 4];
    (b'0'..=b'9').for_each(|b| set_add(&mut set, b));
    set
}

fn class_word() -> Set {
    let mut set = class_digit();
    (b'a'..=b'z')
        .chain(b'A'..=b'Z')
        .chain([b'_'])
        .for_each(|b| set_add(&mut set, b));
    set
}

fn class_space() -> Set {
    let mut set = [0; 4];
    [b' ', b'\t', b'\n', 0x0b, 0x0c, b'\r']
        .into_iter()
        .for_each(|b| set_add(&mut set, b));
    set
}

fn negate(set: Set) -> Set {
    set.map(|x| !x)
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn literal(&self, byte: u8) -> Set {
        let mut set = [0; 4];
        set_add(&mut set, byte);
        if self.caseless && byte.is_ascii_alphabetic() {
            set_add(&mut set, byte ^ 0x20);
        }
        set
    }

    /// An escape after `\`: a class or a literal byte.
    fn escape(&mut self) -> Option<Set> {
        let byte = self.peek()?;
        self.at += 1;
        Some(match byte {
            b'd' => class_digit(),
            b'D' => negate(class_digit()),
            b'w' => class_word(),
            b'W' => negate(class_word()),
            b's' => class_space(),
            b'S' => negate(class_space()),
            b't' => self.literal(b'\t'),
            b'n' => self.literal(b'\n'),
            b'r' => self.literal(b'\r'),
            _ if byte.is_ascii_alphanumeric() || byte >= 0x80 => return None,
            _ => self.literal(byte),
        })
    }

    fn class(&mut self) -> Option<Set> {
        let mut set = [0; 4];
        let negated = self.peek() == Some(b'^');
        if negated {
            self.at += 1;
        }
        let mut first = true;
        loop {
            let byte = self.peek()?;
            self.at += 1;
            if byte == b']' && !first {
                break;
            }
            first = false;
            let low = match byte {
                b'[' if self.peek() == Some(b':') => return None,
                b'\\' => {
                    let escaped = self.escape()?;
                    if escaped.iter().map(|x| x.count_ones()).sum::<u32>() > 2 {
                        union(&mut set, &escaped);
                        continue;
                    }
                    // A single byte (two with caseless letters): its lowest.
                    (0..=255u8).find(|&b| set_has(&escaped, b))?
                }
                _ => byte,
            };
            if self.peek() == Some(b'-') && self.bytes.get(self.at + 1).is_some_and(|&b| b != b']')
            {
                self.at += 1;
                let high = self.peek()?;
                self.at += 1;
                if high == b'\\' || high < low {
                    return None;
                }
                for b in low..=high {
                    union(&mut set, &self.literal(b));
                }
            } else {
                union(&mut set, &self.literal(low));
            }
        }
        Some(if negated { negate(set) } else { set })
    }

    fn alternatives(&mut self, depth: u32) -> Option<Vec<Vec<Node>>> {
        if depth > 32 {
            return None;
        }
        let mut alts = vec![Vec::new()];
        loop {
            let Some(byte) = self.peek() else {
                return (depth == 0).then_some(alts);
            };
            self.at += 1;
            let atom = match byte {
                b'|' => {
                    alts.push(Vec::new());
                    continue;
                }
                b')' => return (depth > 0).then_some(alts),
                b'(' => {
                    let rest = &self.bytes[self.at..];
                    let look = [
                        (&b"?="[..], false, false),
                        (b"?!", true, false),
                        (b"?<=", false, true),
                        (b"?<!", true, true),
                    ]
                    .into_iter()
                    .find(|(prefix, ..)| rest.starts_with(prefix));
                    if let Some((prefix, negated, behind)) = look {
                        self.at += prefix.len();
                        let body = self.alternatives(depth + 1)?;
                        if behind && body.iter().any(|alt| fixed_length(alt).is_none()) {
                            return None;
                        }
                        // A quantified assertion is not modelled.
                        if matches!(self.peek(), Some(b'*' | b'+' | b'?' | b'{')) {
                            return None;
                        }
                        alts.last_mut()?.push(Node::Look {
                            negated,
                            behind,
                            alts: body,
                        });
                        continue;
                    }
                    let capture = if self.peek() == Some(b'?') {
                        if self.bytes.get(self.at + 1) != Some(&b':') {
                            return None;
                        }
                        self.at += 2;
                        false
                    } else {
                        true
                    };
                    Node::Group {
                        capture,
                        alts: self.alternatives(depth + 1)?,
                    }
                }
                b'[' => Node::Set(self.class()?),
                b'\\' => Node::Set(self.escape()?),
                b'.' => {
                    let mut set = [u64::MAX; 4];
                    if !self.dotall {
                        set[0] &= !(1 << b'\n');
                    }
                    Node::Set(set)
                }
                b'^' => Node::Circ,
                b'$' => Node::Dollar,
                b'*' | b'+' | b'?' | b'{' | b'#' | b' ' => return None,
                _ if byte >= 0x80 => return None,
                _ => Node::Set(self.literal(byte)),
            };
            let atom = self.quantified(atom)?;
            alts.last_mut()?.push(atom);
        }
    }

    fn quantified(&mut self, atom: Node) -> Option<Node> {
        let (min, max) = match self.peek() {
            Some(b'*') => (0, None),
            Some(b'+') => (1, None),
            Some(b'?') => (0, Some(1)),
            Some(b'{') => {
                let rest = &self.bytes[self.at..];
                let close = rest.iter().position(|&b| b == b'}')?;
                let inner = std::str::from_utf8(&rest[1..close]).ok()?;
                let (low, high) = match inner.split_once(',') {
                    Some((low, high)) => (
                        low.parse::<u32>().ok()?,
                        if high.is_empty() {
                            None
                        } else {
                            Some(high.parse::<u32>().ok()?)
                        },
                    ),
                    None => {
                        let n = inner.parse::<u32>().ok()?;
                        (n, Some(n))
                    }
                };
                if high.is_some_and(|high| high < low) || low > 1000 {
                    return None;
                }
                self.at += close;
                (low, high)
            }
            _ => return Some(atom),
        };
        self.at += 1;
        let mode = match self.peek() {
            Some(b'?') => {
                self.at += 1;
                Mode::Lazy
            }
            Some(b'+') => return None,
            _ => Mode::Greedy,
        };
        if matches!(self.peek(), Some(b'*' | b'+' | b'?' | b'{')) {
            return None;
        }
        match atom {
            Node::Circ | Node::Dollar => None,
            _ => Some(Node::Repeat {
                node: Box::new(atom),
                min,
                max,
                mode,
            }),
        }
    }
}

/// Whether the tree can backtrack exponentially: a group repeated more
/// than once whose body can match in more than one way (a repeat of
/// varying count or an alternation). Polynomial backtracking (`a*a*a*$`)
/// is not modelled: it takes hundreds of bytes to reach the limit, and
/// replaying it would cost the square of the subject's length or more.
fn risky(alts: &[Vec<Node>]) -> bool {
    fn ambiguous(nodes: &[Node]) -> bool {
        nodes.iter().any(|node| match node {
            Node::Repeat { node, min, max, .. } => {
                max.is_none_or(|max| max > *min) || ambiguous(std::slice::from_ref(node))
            }
            Node::Group { alts, .. } => alts.len() > 1 || alts.iter().any(|a| ambiguous(a)),
            Node::Look { alts, .. } => alts.iter().any(|a| ambiguous(a)),
            _ => false,
        })
    }
    fn walk(nodes: &[Node]) -> bool {
        nodes.iter().any(|node| match node {
            Node::Repeat { node, max, .. } => match &**node {
                Node::Group { alts, .. } => {
                    (max.is_none_or(|max| max > 1)
                        && (alts.len() > 1 || alts.iter().any(|a| ambiguous(a))))
                        || alts.iter().any(|a| walk(a))
                }
                _ => false,
            },
            Node::Group { alts, .. } | Node::Look { alts, .. } => alts.iter().any(|a| walk(a)),
            _ => false,
        })
    }
    alts.iter().any(|a| walk(a))
}

fn min_length(nodes: &[Node]) -> usize {
    nodes.iter().map(node_min_length).sum()
}

fn node_min_length(node: &Node) -> usize {
    match node {
        Node::Set(_) => 1,
        Node::Circ | Node::Dollar | Node::Look { .. } => 0,
        Node::Group { alts, .. } => alts.iter().map(|a| min_length(a)).min().unwrap_or(0),
        Node::Repeat { node, min, .. } => node_min_length(node).saturating_mul(*min as usize),
    }
}

/// `pattern` without the white space and `#` comments that extended mode
/// ignores (outside classes and escapes); `None` where leaving them out
/// could change what the rest means (after `(`, inside a brace, between
/// a quantifier and `?` or `+`).
fn strip_extended(pattern: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(pattern.len());
    let mut at = 0;
    let mut skipped = false;
    while at < pattern.len() {
        let byte = pattern[at];
        match byte {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => {
                skipped = true;
                at += 1;
                continue;
            }
            b'#' => {
                while at < pattern.len() && pattern[at] != b'\n' {
                    at += 1;
                }
                skipped = true;
                continue;
            }
            _ => {}
        }
        if skipped
            && (out.last() == Some(&b'(')
                || matches!(out.last(), Some(b'?' | b'+' | b'*' | b'}'))
                    && matches!(byte, b'?' | b'+'))
        {
            return None;
        }
        if skipped && (byte == b'{' || out.contains(&b'{')) {
            return None;
        }
        skipped = false;
        match byte {
            b'\\' => {
                out.extend_from_slice(pattern.get(at..at + 2)?);
                at += 2;
            }
            b'[' => {
                // A class is copied as written: `]` first is a member.
                let start = at;
                at += 1;
                if pattern.get(at) == Some(&b'^') {
                    at += 1;
                }
                if pattern.get(at) == Some(&b']') {
                    at += 1;
                }
                while *pattern.get(at)? != b']' {
                    at += if pattern[at] == b'\\' { 2 } else { 1 };
                }
                at += 1;
                out.extend_from_slice(pattern.get(start..at)?);
            }
            _ => {
                out.push(byte);
                at += 1;
            }
        }
    }
    Some(out)
}

/// Whether `node` is a literal byte, repeated at least once or not
/// (PCRE2's first code unit).
fn starts_literal(node: &Node) -> bool {
    match node {
        Node::Set(set) => is_literal(set),
        Node::Repeat { node, min, .. } => *min > 0 && starts_literal(node),
        _ => false,
    }
}

/// The length every match of `nodes` has, if they all have one.
fn fixed_length(nodes: &[Node]) -> Option<usize> {
    nodes.iter().try_fold(0usize, |total, node| {
        let length = match node {
            Node::Set(_) => 1,
            Node::Circ | Node::Dollar | Node::Look { .. } => 0,
            Node::Group { alts, .. } => {
                let first = fixed_length(alts.first()?)?;
                alts.iter()
                    .all(|alt| fixed_length(alt) == Some(first))
                    .then_some(first)?
            }
            Node::Repeat { node, min, max, .. } if Some(*min) == *max => {
                fixed_length(std::slice::from_ref(node))?.checked_mul(*min as usize)?
            }
            Node::Repeat { .. } => return None,
        };
        total.checked_add(length)
    })
}

/// The bytes a match of `nodes` can start with, `None` if unknown or if it
/// can be empty.
fn first_set(nodes: &[Node]) -> Option<Set> {
    let mut set = [0; 4];
    for node in nodes {
        match node {
            Node::Set(s) => {
                union(&mut set, s);
                return Some(set);
            }
            Node::Circ | Node::Dollar => return None,
            // PCRE2's study skips these; a lookahead counts as a group.
            Node::Look { negated: true, .. } | Node::Look { behind: true, .. } => {}
            Node::Group { alts, .. } | Node::Look { alts, .. } => {
                let mut all = [0; 4];
                for alt in alts {
                    union(&mut all, &first_set(alt)?);
                }
                union(&mut set, &all);
                return Some(set);
            }
            Node::Repeat { node, min, .. } => {
                union(&mut set, &first_set(std::slice::from_ref(node))?);
                if *min > 0 {
                    return Some(set);
                }
            }
        }
    }
    None
}

/// The last literal byte every match needs (PCRE2's required code unit),
/// from the top-level sequence and groups that are not optional. It is
/// never the byte that starts the match (PCRE2's first code unit): `a+`
/// and `(a+)+` have none (their first `a` is the first code unit, the
/// others are optional), `aa+` has `a`.
fn required(nodes: &[Node]) -> Option<Set> {
    required_after(nodes, &mut false)
}

/// [`required`] of `nodes`, where `first_taken` says whether the start of
/// the match is behind (set once a byte or an optional item is passed).
fn required_after(nodes: &[Node], first_taken: &mut bool) -> Option<Set> {
    let mut found = None;
    // A literal byte: the first code unit when nothing came before it.
    let literal = |s: &Set, first_taken: &mut bool| {
        if std::mem::replace(first_taken, true) {
            Some(*s)
        } else {
            None
        }
    };
    for node in nodes {
        let last = match node {
            Node::Set(s) if is_literal(s) => literal(s, first_taken),
            Node::Set(_) => {
                *first_taken = true;
                None
            }
            Node::Circ | Node::Dollar => continue,
            // A lookahead gives its required byte only when it has one
            // after its first (PCRE2: `(?=ab)` gives `b`, `(?=b)` none).
            Node::Look {
                negated: false,
                behind: false,
                alts,
            } if alts.len() == 1 && alts[0].first().is_some_and(starts_literal) => {
                required_after(&alts[0][1..], &mut true)
            }
            Node::Look { .. } => continue,
            Node::Group { alts, .. } if alts.len() == 1 => required_after(&alts[0], first_taken),
            Node::Group { .. } => {
                *first_taken = true;
                None
            }
            Node::Repeat { node, min, .. } if *min > 0 => match &**node {
                Node::Group { alts, .. } if alts.len() == 1 => {
                    required_after(&alts[0], first_taken)
                }
                Node::Set(s) if is_literal(s) => literal(s, first_taken),
                _ => {
                    *first_taken = true;
                    None
                }
            },
            Node::Repeat { .. } => {
                *first_taken = true;
                continue;
            }
        };
        if last.is_some() {
            found = last;
        }
    }
    found
}

struct Codegen {
    ops: Vec<Op>,
    sets: Vec<Set>,
}

impl Codegen {
    fn sequence(&mut self, nodes: &[Node]) -> Option<()> {
        nodes.iter().try_for_each(|node| self.node(node))
    }

    fn node(&mut self, node: &Node) -> Option<()> {
        match node {
            Node::Set(set) => self.item(*set, 1, 1, Mode::Greedy),
            Node::Circ => self.ops.push(Op::Circ),
            Node::Dollar => self.ops.push(Op::Dollar),
            Node::Group { capture, alts } => self.group(*capture, alts, Ket::Once, false)?,
            Node::Look {
                negated,
                behind,
                alts,
            } => {
                let look = self.ops.len();
                self.ops.push(Op::Look {
                    negated: *negated,
                    next: 0,
                });
                // PCRE2 opens a frame for each branch of an assertion.
                self.group_with_back(true, alts, Ket::Once, true, *behind)?;
                self.ops.push(Op::LookEnd);
                self.ops[look] = Op::Look {
                    negated: *negated,
                    next: self.ops.len() as u32,
                };
            }
            Node::Repeat {
                node,
                min,
                max,
                mode,
            } => match &**node {
                Node::Set(set) => self.item(*set, *min, max.unwrap_or(u32::MAX), *mode),
                Node::Group { capture, alts } => {
                    self.repeat_group(*capture, alts, *min, *max, *mode)?
                }
                _ => return None,
            },
        }
        Some(())
    }

    fn item(&mut self, set: Set, min: u32, max: u32, mode: Mode) {
        self.sets.push(set);
        self.ops.push(Op::Item {
            set: self.sets.len() as u32 - 1,
            min,
            max,
            mode,
        });
    }

    fn group(&mut self, capture: bool, alts: &[Vec<Node>], kind: Ket, top: bool) -> Option<()> {
        self.group_with_back(capture, alts, kind, top, false)
    }

    /// A group; `behind`: each alternative first steps back its length.
    fn group_with_back(
        &mut self,
        capture: bool,
        alts: &[Vec<Node>],
        kind: Ket,
        top: bool,
        behind: bool,
    ) -> Option<()> {
        // A repeated group that can match nothing opens a frame for each
        // alternative, as a capturing one does (PCRE2's SBRA).
        let empty = kind != Ket::Once && alts.iter().any(|alt| min_length(alt) == 0);
        let frames_all = capture || top || empty;
        let bra = self.ops.len();
        self.ops.push(Op::Bra {
            frames_all,
            alts: Vec::new(),
        });
        let mut starts = Vec::new();
        let mut ends = Vec::new();
        for alt in alts {
            starts.push(self.ops.len() as u32);
            if behind {
                self.ops.push(Op::Back(fixed_length(alt)?.try_into().ok()?));
            }
            self.sequence(alt)?;
            ends.push(self.ops.len());
            self.ops.push(Op::AltEnd(0));
        }
        let ket = self.ops.len() as u32;
        for end in ends {
            self.ops[end] = Op::AltEnd(ket);
        }
        self.ops[bra] = Op::Bra {
            frames_all,
            alts: starts,
        };
        self.ops.push(Op::Ket {
            bra: bra as u32,
            kind,
        });
        if self.ops.len() > 1 << 16 {
            return None;
        }
        Some(())
    }

    fn optional_group(
        &mut self,
        capture: bool,
        alts: &[Vec<Node>],
        kind: Ket,
        lazy: bool,
    ) -> Option<()> {
        let zero = self.ops.len();
        self.ops.push(Op::BraZero { skip: 0, lazy });
        self.group(capture, alts, kind, false)?;
        self.ops[zero] = Op::BraZero {
            skip: self.ops.len() as u32,
            lazy,
        };
        Some(())
    }

    /// A quantified group as PCRE2 compiles it: copies for the minimum,
    /// then a repeating ket, or nested optional copies up to the maximum.
    fn repeat_group(
        &mut self,
        capture: bool,
        alts: &[Vec<Node>],
        min: u32,
        max: Option<u32>,
        mode: Mode,
    ) -> Option<()> {
        let lazy = mode == Mode::Lazy;
        let repeat_ket = if lazy { Ket::Min } else { Ket::Max };
        match max {
            None => {
                if min == 0 {
                    return self.optional_group(capture, alts, repeat_ket, lazy);
                }
                if min > MAX_COPIES {
                    return None;
                }
                for _ in 1..min {
                    self.group(capture, alts, Ket::Once, false)?;
                }
                self.group(capture, alts, repeat_ket, false)
            }
            Some(max) => {
                if max > MAX_COPIES {
                    return None;
                }
                for _ in 0..min {
                    self.group(capture, alts, Ket::Once, false)?;
                }
                // Nested: BRAZERO ( X BRAZERO ( X ... ) ).
                let mut opens = Vec::new();
                for _ in min..max {
                    let zero = self.ops.len();
                    self.ops.push(Op::BraZero { skip: 0, lazy });
                    let bra = self.ops.len();
                    self.ops.push(Op::Bra {
                        frames_all: capture,
                        alts: Vec::new(),
                    });
                    let mut starts = Vec::new();
                    let mut ends = Vec::new();
                    for (i, alt) in alts.iter().enumerate() {
                        starts.push(self.ops.len() as u32);
                        self.sequence(alt)?;
                        if i + 1 < alts.len() {
                            ends.push(self.ops.len());
                            self.ops.push(Op::AltEnd(0));
                        }
                    }
                    opens.push((zero, bra, starts, ends));
                }
                // The inner copies sit inside the last alternative of the
                // outer ones, before their kets.
                while let Some((zero, bra, starts, ends)) = opens.pop() {
                    let last_end = self.ops.len();
                    self.ops.push(Op::AltEnd(0));
                    let ket = self.ops.len() as u32;
                    for end in ends.into_iter().chain([last_end]) {
                        self.ops[end] = Op::AltEnd(ket);
                    }
                    self.ops[bra] = Op::Bra {
                        frames_all: capture,
                        alts: starts,
                    };
                    self.ops.push(Op::Ket {
                        bra: bra as u32,
                        kind: Ket::Once,
                    });
                    self.ops[zero] = Op::BraZero {
                        skip: self.ops.len() as u32,
                        lazy,
                    };
                }
                if self.ops.len() > 1 << 16 {
                    return None;
                }
                Some(())
            }
        }
    }
}

impl Model {
    /// The model of `pattern` (flags of `regex.rs`: caseless, multiline,
    /// dotall, extended), or `None` if it is outside the modelled subset or
    /// cannot backtrack enough to matter.
    pub(crate) fn new(
        pattern: &[u8],
        caseless: bool,
        multiline: bool,
        dotall: bool,
        extended: bool,
    ) -> Option<Model> {
        Model::build(pattern, caseless, multiline, dotall, extended, false)
    }

    /// As [`Model::new`]; `always`: also a pattern that cannot backtrack
    /// much.
    fn build(
        pattern: &[u8],
        caseless: bool,
        multiline: bool,
        dotall: bool,
        extended: bool,
        always: bool,
    ) -> Option<Model> {
        if pattern.len() > MAX_PATTERN {
            return None;
        }
        let stripped;
        let pattern = if extended {
            stripped = strip_extended(pattern)?;
            &stripped[..]
        } else {
            pattern
        };
        let mut parser = Parser {
            bytes: pattern,
            at: 0,
            caseless,
            dotall,
        };
        let alts = parser.alternatives(0)?;
        if !always && !risky(&alts) {
            return None;
        }
        // In multiline mode `^` also matches after a newline: PCRE2 then
        // skips to such places, and each other start fails at once, with
        // no frame to count.
        let anchored = !multiline
            && alts
                .iter()
                .all(|alt| matches!(alt.first(), Some(Node::Circ)));
        let mut first = Some([0; 4]);
        for alt in &alts {
            match (first.as_mut(), first_set(alt)) {
                (Some(all), Some(set)) => union(all, &set),
                _ => first = None,
            }
        }
        let first_is_literal = first.as_ref().is_some_and(is_literal);
        let min_length = alts.iter().map(|a| min_length(a)).min().unwrap_or(0);
        let required = if alts.len() == 1 {
            required(&alts[0])
        } else {
            None
        };
        let mut codegen = Codegen {
            ops: Vec::new(),
            sets: Vec::new(),
        };
        codegen.group(false, &alts, Ket::Once, true)?;
        codegen.ops.push(Op::End);
        let mut model = Model {
            ops: codegen.ops,
            sets: codegen.sets,
            anchored,
            first,
            min_length,
            required,
            first_is_literal,
            multiline,
        };
        model.auto_possess();
        Some(model)
    }

    /// PCRE2's auto-possessification: a single-item repeat followed by
    /// something that cannot start with a byte it matches never gives
    /// anything back.
    fn auto_possess(&mut self) {
        for pc in 0..self.ops.len() {
            if let Op::Item {
                set,
                min,
                max,
                mode,
            } = self.ops[pc]
                && mode != Mode::Possessive
                && max > min
                && self.cannot_follow(&self.sets[set as usize], mode == Mode::Lazy, pc + 1, 0)
            {
                self.ops[pc] = Op::Item {
                    set,
                    min,
                    max,
                    mode: Mode::Possessive,
                };
            }
        }
    }

    /// Whether what starts at `pc` cannot start with a byte of `set`.
    fn cannot_follow(&self, set: &Set, lazy: bool, pc: usize, depth: u32) -> bool {
        if depth > 8 {
            return false;
        }
        match &self.ops[pc] {
            Op::Item { set: next, min, .. } => {
                disjoint(set, &self.sets[*next as usize])
                    && (*min > 0 || self.cannot_follow(set, lazy, pc + 1, depth + 1))
            }
            Op::Dollar => !set_has(set, b'\n'),
            Op::End => true,
            // The end of an assertion: nothing follows inside it.
            Op::LookEnd => !lazy,
            Op::AltEnd(ket) => self.cannot_follow(set, lazy, *ket as usize, depth + 1),
            // PCRE2 does not make a lazy repeat possessive at a group's end.
            Op::Ket {
                kind: Ket::Once, ..
            } => !lazy && self.cannot_follow(set, lazy, pc + 1, depth + 1),
            Op::Bra { alts, .. } => alts
                .iter()
                .all(|&alt| self.cannot_follow(set, lazy, alt as usize, depth + 1)),
            Op::BraZero { skip, .. } => {
                self.cannot_follow(set, lazy, pc + 1, depth + 1)
                    && self.cannot_follow(set, lazy, *skip as usize, depth + 1)
            }
            _ => false,
        }
    }

    /// Whether PCRE2 would give up on `subject` at its match limit:
    /// `Some(true)` if it would, `Some(false)` if it would not (it matches
    /// or fails within the limit), `None` if the model gave up (out of
    /// `budget`, which is charged one unit per frame, or too deep).
    #[cfg(test)]
    pub(crate) fn exceeds_limit(
        &self,
        subject: &[u8],
        budget: &mut dyn FnMut(u64) -> bool,
    ) -> Option<bool> {
        self.exceeds(subject, MATCH_LIMIT, budget)
    }

    #[cfg(test)]
    fn exceeds(
        &self,
        subject: &[u8],
        limit: u64,
        budget: &mut dyn FnMut(u64) -> bool,
    ) -> Option<bool> {
        Some(self.replay(subject, limit, budget)? == Verdict::Limit)
    }

    /// PCRE2's search of `subject` from its start, replayed: whether it
    /// matches or gives up at its match limit. `None` if the model gave up
    /// (out of `budget`, which is charged one unit per frame, or too deep).
    pub(crate) fn search(
        &self,
        subject: &[u8],
        budget: &mut dyn FnMut(u64) -> bool,
    ) -> Option<Verdict> {
        self.replay(subject, MATCH_LIMIT, budget)
    }

    fn replay(
        &self,
        subject: &[u8],
        limit: u64,
        budget: &mut dyn FnMut(u64) -> bool,
    ) -> Option<Verdict> {
        let mut required_seen: Option<usize> = None;
        let mut start = 0;
        loop {
            if start > subject.len() || (self.anchored && start > 0) {
                return Some(Verdict::NoMatch);
            }
            if let Some(first) = &self.first {
                match subject[start..].iter().position(|&b| set_has(first, b)) {
                    Some(offset) => start += offset,
                    None => return Some(Verdict::NoMatch),
                }
            }
            if subject.len() - start < self.min_length {
                return Some(Verdict::NoMatch);
            }
            if let Some(required) = &self.required
                && subject.len() - start < REQUIRED_SCAN_MAX
                && required_seen.is_none_or(|at| at < start)
            {
                let from = start + usize::from(self.first_is_literal);
                match subject
                    .get(from..)
                    .and_then(|rest| rest.iter().position(|&b| set_has(required, b)))
                {
                    Some(offset) => required_seen = Some(from + offset),
                    None => return Some(Verdict::NoMatch),
                }
            }
            match self.attempt(subject, start, limit, budget)? {
                Attempt::Matched => return Some(Verdict::Match),
                Attempt::Limit => return Some(Verdict::Limit),
                Attempt::Failed => start += 1,
            }
        }
    }

    fn attempt(
        &self,
        subject: &[u8],
        start: usize,
        limit: u64,
        budget: &mut dyn FnMut(u64) -> bool,
    ) -> Option<Attempt> {
        let mut count = Count {
            frames: 1,
            charged: 0,
            limit,
        };
        self.run(subject, 0, start, &mut count, budget, 0)
    }

    /// Runs from `pc` at `pos` to the end of the pattern, or of the
    /// assertion whose body starts at `pc`; assertions nest to `depth`.
    fn run(
        &self,
        subject: &[u8],
        start_pc: usize,
        start: usize,
        count: &mut Count,
        budget: &mut dyn FnMut(u64) -> bool,
        depth: u32,
    ) -> Option<Attempt> {
        // A pending backtracking point: where to go on failure.
        #[derive(Clone, Copy)]
        enum Resume {
            /// Try alternative `alt` of the group at `bra`.
            Alt { bra: u32, alt: u32 },
            /// Go on at `pc`.
            At { pc: u32 },
            /// Back the repeat at `pc` off one byte, not below `floor`.
            BackOff { pc: u32, floor: u32 },
            /// Match one more of the lazy repeat at `pc` (`count` so far).
            More { pc: u32, count: u32 },
        }
        struct Point {
            resume: Resume,
            pos: u32,
            groups: u32,
            arena: u32,
        }
        // Open groups as a linked stack in an arena: (enclosing, start).
        let mut arena: Vec<(u32, u32)> = Vec::new();
        let mut points: Vec<Point> = Vec::new();
        let none = u32::MAX;
        let (mut pc, mut pos, mut groups) = (start_pc, start, none);
        let end = subject.len();
        macro_rules! push {
            ($resume:expr) => {{
                count.frames += 1;
                if count.frames > count.limit {
                    return Some(Attempt::Limit);
                }
                if points.len() >= MAX_STACK {
                    return None;
                }
                points.push(Point {
                    resume: $resume,
                    pos: pos as u32,
                    groups,
                    arena: arena.len() as u32,
                });
            }};
        }
        // Enters alternative `alt` of the group at `bra` (frames as PCRE2).
        macro_rules! enter {
            ($bra:expr, $alt:expr) => {{
                let bra = $bra;
                let alt = $alt;
                let Op::Bra { frames_all, alts } = &self.ops[bra] else {
                    return None;
                };
                if *frames_all || alt + 1 < alts.len() {
                    push!(Resume::Alt {
                        bra: bra as u32,
                        alt: alt as u32 + 1
                    });
                }
                arena.push((groups, pos as u32));
                groups = arena.len() as u32 - 1;
                pc = alts[alt] as usize;
            }};
        }
        'run: loop {
            if count.frames - count.charged >= 4096 {
                if !budget(count.frames - count.charged) {
                    return None;
                }
                count.charged = count.frames;
            }
            let failed = match &self.ops[pc] {
                Op::Bra { .. } => {
                    enter!(pc, 0);
                    false
                }
                Op::AltEnd(ket) => {
                    pc = *ket as usize;
                    false
                }
                Op::Ket { bra, kind } => {
                    let (enclosing, group_start) = arena[groups as usize];
                    groups = enclosing;
                    let moved = pos as u32 != group_start;
                    match kind {
                        Ket::Max if moved => {
                            push!(Resume::At { pc: pc as u32 + 1 });
                            pc = *bra as usize;
                        }
                        Ket::Min if moved => {
                            push!(Resume::At { pc: *bra });
                            pc += 1;
                        }
                        _ => pc += 1,
                    }
                    false
                }
                Op::BraZero { skip, lazy } => {
                    if *lazy {
                        push!(Resume::At { pc: pc as u32 + 1 });
                        pc = *skip as usize;
                    } else {
                        push!(Resume::At { pc: *skip });
                        pc += 1;
                    }
                    false
                }
                Op::Item {
                    set,
                    min,
                    max,
                    mode,
                } => {
                    let set = &self.sets[*set as usize];
                    let mut count = 0;
                    while count < *min && pos < end && set_has(set, subject[pos]) {
                        pos += 1;
                        count += 1;
                    }
                    if count < *min {
                        true
                    } else if *mode == Mode::Lazy {
                        // Every position a lazy repeat tries is a frame.
                        push!(Resume::More {
                            pc: pc as u32,
                            count
                        });
                        pc += 1;
                        false
                    } else {
                        let floor = pos;
                        while count < *max && pos < end && set_has(set, subject[pos]) {
                            pos += 1;
                            count += 1;
                        }
                        if *mode == Mode::Greedy && pos > floor {
                            push!(Resume::BackOff {
                                pc: pc as u32,
                                floor: floor as u32
                            });
                        }
                        pc += 1;
                        false
                    }
                }
                Op::Circ => {
                    pc += 1;
                    // Multiline: after a newline that does not end the
                    // subject too.
                    !(pos == 0 || (self.multiline && pos < end && subject[pos - 1] == b'\n'))
                }
                Op::Dollar => {
                    pc += 1;
                    !(pos == end || (pos + 1 == end || self.multiline) && subject[pos] == b'\n')
                }
                Op::End | Op::LookEnd => return Some(Attempt::Matched),
                Op::Look { negated, next } => {
                    // An assertion is atomic: its body runs on its own,
                    // counting its frames with the rest.
                    if depth > 32 {
                        return None;
                    }
                    match self.run(subject, pc + 1, pos, count, budget, depth + 1)? {
                        Attempt::Limit => return Some(Attempt::Limit),
                        outcome => {
                            pc = *next as usize;
                            matches!(outcome, Attempt::Matched) == *negated
                        }
                    }
                }
                Op::Back(length) => {
                    pc += 1;
                    match pos.checked_sub(*length as usize) {
                        Some(back) => {
                            pos = back;
                            false
                        }
                        None => true,
                    }
                }
            };
            if !failed {
                continue;
            }
            // Backtrack to the latest pending point.
            loop {
                let Some(point) = points.pop() else {
                    return Some(Attempt::Failed);
                };
                pos = point.pos as usize;
                groups = point.groups;
                arena.truncate(point.arena as usize);
                match point.resume {
                    Resume::Alt { bra, alt } => {
                        let Op::Bra { alts, .. } = &self.ops[bra as usize] else {
                            return None;
                        };
                        if (alt as usize) < alts.len() {
                            enter!(bra as usize, alt as usize);
                            continue 'run;
                        }
                    }
                    Resume::At { pc: at } => {
                        pc = at as usize;
                        continue 'run;
                    }
                    Resume::BackOff { pc: at, floor } => {
                        pos -= 1;
                        if pos as u32 > floor {
                            push!(Resume::BackOff { pc: at, floor });
                        }
                        pc = at as usize + 1;
                        continue 'run;
                    }
                    Resume::More { pc: at, count } => {
                        let Op::Item { set, max, .. } = &self.ops[at as usize] else {
                            return None;
                        };
                        if count < *max
                            && pos < end
                            && set_has(&self.sets[*set as usize], subject[pos])
                        {
                            pos += 1;
                            push!(Resume::More {
                                pc: at,
                                count: count + 1
                            });
                            pc = at as usize + 1;
                            continue 'run;
                        }
                    }
                }
            }
        }
    }
}

/// What PCRE2's search comes to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Verdict {
    Match,
    NoMatch,
    /// It gives up at its match limit: ERROR in HTCondor.
    Limit,
}

/// Frames opened by one start position, and those charged so far.
struct Count {
    frames: u64,
    charged: u64,
    limit: u64,
}

enum Attempt {
    Matched,
    Failed,
    Limit,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte that starts a match is PCRE2's first code unit, never its
    /// required one (known_bugs class 20): `(a+)+` matches "a" (answers
    /// of HTCondor 25.14.1, tests/corpus/functions_regex.txt).
    #[test]
    fn the_first_byte_is_not_required_again() {
        let search = |pattern: &str, subject: &str| {
            let model = Model::build(pattern.as_bytes(), false, false, false, false, true)
                .expect("modelled");
            model.search(subject.as_bytes(), &mut |_| true)
        };
        for (pattern, subject, verdict) in [
            ("(a+)+", "a", Verdict::Match),
            ("(a+)+$", "a", Verdict::Match),
            ("((a+)+)+$", "a", Verdict::Match),
            ("(aa+)+$", "a", Verdict::NoMatch),
            ("(aa+)+$", "aa", Verdict::Match),
            ("(a+)+(?=a+c)", "aaaa", Verdict::NoMatch),
        ] {
            assert_eq!(
                search(pattern, subject),
                Some(verdict),
                "{pattern} on {subject}"
            );
        }
    }

    /// The frames of the costliest start position: the smallest limit
    /// under which the search is not cut short (as measured on PCRE2 by
    /// raising its match limit until the error goes).
    fn frames(pattern: &str, subject: &str) -> u64 {
        let model =
            Model::build(pattern.as_bytes(), false, false, false, false, true).expect("modelled");
        let mut budget = |_| true;
        let (mut low, mut high) = (0, 1 << 26);
        while low < high {
            let mid = (low + high) / 2;
            if model.exceeds(subject.as_bytes(), mid, &mut budget) == Some(true) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        low
    }

    // Each count is PCRE2 10.32's (HTCondor 25.14's library): the
    // smallest match limit under which pcre2_match does not fail.
    #[test]
    fn frames_as_pcre2_counts_them() {
        let wrong = [
            ("^(a)+$", "aaab", 9),
            ("^(?:a)+$", "aaab", 5),
            ("^(a|b)+$", "aaab", 13),
            ("^(a|b)+$", "aaac", 13),
            ("^(a+)+$", "aaa!", 20),
            ("(a+)+$", "aaa!", 20),
            ("^(a+)+$", "aaaa!", 40),
            ("(a+)+$", "aaaaa!", 80),
            ("(a+)+$", "aaaaaaaaaa!", 2560),
            ("^(a){2,4}$", "aaaaa", 8),
            ("^(?:a|b)*[cd]", "abe", 8),
            ("^(a|b)*[cd]", "abe", 11),
            ("^(a|b)*?[cd]", "abe", 11),
            ("^(a|b)+?[cd]", "abe", 10),
            ("^(?:ab|a)*[cd]", "abae", 10),
            ("^(a*)*[cd]", "aae", 13),
            ("^(a*)+[cd]", "aae", 12),
            ("^(?:a*)*[cd]", "aae", 13),
            ("^a*a[bc]", "aaad", 5),
            ("^a*?a[bc]", "aaad", 6),
            ("^a+?a[bc]", "aaad", 5),
            ("^a*b*[ac]", "aaad", 4),
            ("a(?=b)", "aaaa", 3),
            ("(a+)+(?=c)", "aaaa", 55),
            ("(a+)+(?=c)", "aaaaaaaaaa", 3583),
            ("a+(?=c)", "aaaa", 9),
            ("a+?(?=c)", "aaaa", 10),
            ("(a*)*(?=b)", "aaaa", 81),
            ("(a|aa)+(?=b)", "aaaa!", 48),
            ("(a)(?=b)", "aaaa", 4),
            ("^(a+)+(?=b)", "aaaa", 55),
            ("(a+)+(?!a)b", "aaaa", 0),
            ("(a+)+(?=a)b", "aaaa", 0),
            ("(?=a)(a+)+$", "aaaa!", 41),
            ("(a+)+(?=bc)", "aaaab", 0),
            ("(a+)+(?<=b)", "aaaa", 55),
            ("(a+)+(?<=a)$", "aaaa!", 55),
            ("(a|b)+(?=(a|b)c)", "abab", 28),
            ("(a+)+(?=a+c)", "aaaa", 0),
            ("(a+)+(?=a+?c)", "aaaa", 0),
            ("(a+)+(?=(?:a|b)c)", "aaaa", 70),
            ("(a+)+(?=ab|ac)", "aaaa", 70),
            ("(?!x)(a+)+$", "aaaa!", 41),
            ("(a+)+(?<!a)$", "aaaa!", 55),
        ]
        .into_iter()
        .filter(|&(pattern, subject, expected)| frames(pattern, subject) != expected)
        .map(|(pattern, subject, expected)| {
            format!(
                "{pattern} on {subject:?}: {} not {expected}",
                frames(pattern, subject)
            )
        })
        .collect::<Vec<_>>();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn limit_thresholds_as_htcondor() {
        let limited = |pattern: &str, subject: String| {
            Model::new(pattern.as_bytes(), false, false, false, false)
                .expect("modelled")
                .exceeds_limit(subject.as_bytes(), &mut |_| true)
        };
        assert_eq!(limited("(a+)+$", "a".repeat(21) + "!"), Some(false));
        assert_eq!(limited("(a+)+$", "a".repeat(22) + "!"), Some(true));
        assert_eq!(limited("(a+)+b", "a".repeat(1999)), Some(false));
        assert_eq!(limited("(a+)+b", "a".repeat(2000)), Some(true));
    }
}
