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
//! greedy and lazy quantifiers, `^ $`, lookarounds, back references and
//! subroutine calls), counting frames where PCRE2 opens
//! them: one per start position, one per alternative tried (the last
//! alternative of a non-capturing group reuses its frame), one per
//! iteration of a repeated group and one per position a single-item
//! repeat backs off to (none for the position it started from). It models
//! the optimizations that decide whether backtracking starts at all:
//! anchoring, the set of possible first bytes, the minimum length (the
//! study of [`crate::backtrack`]), the
//! required last literal (looked for in subjects under 2,000 bytes) and
//! auto-possessification of a repeat followed by something it cannot
//! match. Counts were checked frame for frame against HTCondor's own
//! PCRE2 library (see `crates/stdlib/tests/regex.rs`).
//!
//! A subroutine call (`(?1)`, `(?&name)`, `(?R)`) runs as PCRE2 10.32's
//! OP_RECURSE: a frame for each alternative of the called group it tries,
//! none for the group's brackets; at the group's end it goes back after the
//! call with the captures of before it, and can still backtrack into it
//! (recursion stopped being atomic in 10.30), except the whole pattern's,
//! which returns at OP_END from the frame of the call and drops what was
//! left to try inside. Calling a group again, inside a call of it, where
//! that call started is PCRE2's RECURSELOOP error (ERROR, as the limit).
//! A quantified call is a repeated non-atomic group holding it. Measured
//! against the oracle's libpcre2 on about 2,000 random patterns with
//! calls (tests/gen/pcre2_frames.py).
//!
//! Only patterns that can backtrack exponentially are modelled (see
//! [`risky`]); polynomial backtracking is not (docs/differences.md).

use crate::backtrack::Program;
use crate::limits::{MATCH_LIMIT, REQUIRED_SCAN_MAX};

/// Most copies of a group a counted repeat may make here.
const MAX_COPIES: u32 = 16;
/// Most pending backtracking points kept; beyond it the model gives up.
const MAX_STACK: usize = 1 << 20;
/// Most bytes of pattern modelled.
const MAX_MODELLED_PATTERN: usize = 512;
/// A capture not set.
const UNSET: u32 = u32::MAX;
/// Bytes compared by back references charged as one frame (an unanchored
/// `(\w+)\1+$` on 5,000 letters compares billions of bytes in 100 million
/// frames).
const BYTES_PER_FRAME: u64 = 64;

type Set = [u64; 4];

fn set_has(set: &Set, byte: u8) -> bool {
    set[(byte >> 6) as usize] >> (byte & 63) & 1 == 1
}

fn set_add(set: &mut Set, byte: u8) {
    set[(byte >> 6) as usize] |= 1 << (byte & 63);
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
    /// A character type (`\d`, `\w`...).
    Set(Set),
    /// `.`.
    Any(Set),
    /// A negated single character (`[^a]`).
    Not(Set),
    /// A class of more than one character (`[ab]`, `[\d]`): PCRE2 opens a
    /// frame for a repeat of it at each count down to its minimum, that one
    /// too (for a character type, not that one).
    Class(Set),
    /// A literal character (in either case if caseless).
    Char(Set),
    Circ,
    Dollar,
    /// A group; `capture`: its number if it captures.
    Group {
        capture: Option<u32>,
        /// Atomic: PCRE2 10.32 wraps a capturing group that holds a back
        /// reference to itself in an atomic group (10.35 stopped).
        atomic: bool,
        alts: Vec<Vec<Node>>,
    },
    /// A back reference to a capturing group.
    BackRef(u32),
    /// A subroutine call of a group (`(?1)`, `(?&name)`; 0: the whole
    /// pattern, `(?R)`).
    Call(u32),
    /// A call by name, resolved once the whole pattern is read.
    CallName(Vec<u8>),
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
        /// The group's number if it captures (set at its ket), else 0.
        capture: u32,
        /// At its ket, what was left to try inside is dropped.
        atomic: bool,
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
        kind: ItemKind,
    },
    /// A back reference, repeated from `min` to `max` times.
    Ref {
        group: u32,
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
    /// A subroutine call of group `group` (0: the whole pattern), whose
    /// brackets are at `target`.
    Call {
        group: u32,
        target: u32,
    },
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
    /// Back references compare ignoring ASCII case.
    caseless: bool,
    /// Tried only at the start of the subject and after newlines.
    startline: bool,
    /// Capturing groups.
    groups: u32,
    /// The pattern holds a subroutine call (PCRE2's `had_recurse`).
    calls: bool,
}

struct Parser<'p> {
    bytes: &'p [u8],
    at: usize,
    caseless: bool,
    dotall: bool,
    /// Capturing groups opened so far.
    groups: u32,
    /// The highest group a back reference names.
    highest_ref: u32,
    /// The capturing groups open at the point read.
    open: Vec<u32>,
    /// Groups that hold a back reference to themselves.
    self_referenced: Vec<u32>,
    /// Groups some back reference names.
    referenced: Vec<u32>,
    /// Names of capturing groups.
    names: Vec<(Vec<u8>, u32)>,
    /// The pattern holds a subroutine call.
    calls: bool,
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

    /// A back reference after `\`: `\1` to `\9` (a single digit is always
    /// one in PCRE2, even to a group not opened yet), `\gN`, `\g{N}` and
    /// the relative `\g{-N}`, `\g-N`. Other escapes are left unread.
    fn back_reference(&mut self) -> Option<u32> {
        let rest = &self.bytes[self.at..];
        let digits = |bytes: &[u8]| bytes.iter().take_while(|b| b.is_ascii_digit()).count();
        let (number, relative, length) = match rest {
            [b'1'..=b'9', next @ ..] if digits(next) == 0 => (u32::from(rest[0] - b'0'), false, 1),
            [b'g', b'{', inner @ ..] => {
                let negative = inner.first() == Some(&b'-');
                let body = &inner[usize::from(negative)..];
                let count = digits(body);
                if count == 0 || count > 3 || body.get(count) != Some(&b'}') {
                    return None;
                }
                let number = std::str::from_utf8(&body[..count]).ok()?.parse().ok()?;
                (number, negative, 3 + usize::from(negative) + count)
            }
            [b'g', inner @ ..] => {
                let negative = inner.first() == Some(&b'-');
                let body = &inner[usize::from(negative)..];
                let count = digits(body);
                if count == 0 || count > 3 {
                    return None;
                }
                let number = std::str::from_utf8(&body[..count]).ok()?.parse().ok()?;
                (number, negative, 1 + usize::from(negative) + count)
            }
            _ => return None,
        };
        let group = if relative {
            (self.groups + 1).checked_sub(number).filter(|&g| g > 0)?
        } else {
            number
        };
        if group == 0 {
            return None;
        }
        self.at += length;
        self.highest_ref = self.highest_ref.max(group);
        if self.open.contains(&group) && !self.self_referenced.contains(&group) {
            self.self_referenced.push(group);
        }
        if !self.referenced.contains(&group) {
            self.referenced.push(group);
        }
        Some(group)
    }

    /// An escape after `\`: a class, or a literal byte (`Node::Char`).
    fn escape(&mut self) -> Option<Node> {
        let byte = self.peek()?;
        self.at += 1;
        Some(match byte {
            b'd' => Node::Set(class_digit()),
            b'D' => Node::Set(negate(class_digit())),
            b'w' => Node::Set(class_word()),
            b'W' => Node::Set(negate(class_word())),
            b's' => Node::Set(class_space()),
            b'S' => Node::Set(negate(class_space())),
            b't' => Node::Char(self.literal(b'\t')),
            b'n' => Node::Char(self.literal(b'\n')),
            b'r' => Node::Char(self.literal(b'\r')),
            _ if byte.is_ascii_alphanumeric() || byte >= 0x80 => return None,
            _ => Node::Char(self.literal(byte)),
        })
    }

    /// A class after `[`; one that holds a single literal character is
    /// that character (`Node::Char`), as PCRE2 compiles it.
    fn class(&mut self) -> Option<Node> {
        let mut set = [0; 4];
        let negated = self.peek() == Some(b'^');
        if negated {
            self.at += 1;
        }
        let mut first = true;
        let mut items = 0;
        let mut single_char = true;
        loop {
            let byte = self.peek()?;
            self.at += 1;
            if byte == b']' && !first {
                break;
            }
            first = false;
            items += 1;
            let low = match byte {
                b'[' if self.peek() == Some(b':') => return None,
                b'\\' => {
                    let escaped = match self.escape()? {
                        Node::Char(set) => set,
                        Node::Set(class) => {
                            single_char = false;
                            union(&mut set, &class);
                            continue;
                        }
                        _ => return None,
                    };
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
                single_char = false;
                for b in low..=high {
                    union(&mut set, &self.literal(b));
                }
            } else {
                union(&mut set, &self.literal(low));
            }
        }
        // A negated single character is no class in PCRE2 either.
        Some(match (negated, items == 1 && single_char) {
            (false, true) => Node::Char(set),
            (true, true) => Node::Not(negate(set)),
            (false, false) => Node::Class(set),
            (true, false) => Node::Class(negate(set)),
        })
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
                        if let Some(call) = self.call() {
                            self.calls = true;
                            // PCRE2 10.32 compiles a quantified call as a
                            // repeated group holding it (not atomic:
                            // measured, `(a|ab)(?1)+c$`).
                            let call = if matches!(self.peek(), Some(b'*' | b'+' | b'?' | b'{')) {
                                Node::Group {
                                    capture: None,
                                    atomic: false,
                                    alts: vec![vec![call]],
                                }
                            } else {
                                call
                            };
                            let atom = self.quantified(call)?;
                            alts.last_mut()?.push(atom);
                            continue;
                        }
                        if let Some(name) = self.group_name() {
                            self.groups += 1;
                            self.names.push((name, self.groups));
                            Some(self.groups)
                        } else {
                            if self.bytes.get(self.at + 1) != Some(&b':') {
                                return None;
                            }
                            self.at += 2;
                            None
                        }
                    } else {
                        self.groups += 1;
                        Some(self.groups)
                    };
                    self.open.extend(capture);
                    let alts = self.alternatives(depth + 1)?;
                    self.open.pop_if(|_| capture.is_some());
                    let group = Node::Group {
                        capture,
                        atomic: false,
                        alts,
                    };
                    match capture {
                        Some(number) if self.self_referenced.contains(&number) => Node::Group {
                            capture: None,
                            atomic: true,
                            alts: vec![vec![group]],
                        },
                        _ => group,
                    }
                }
                b'[' => self.class()?,
                b'\\' => match self.back_reference() {
                    Some(group) => Node::BackRef(group),
                    None => self.escape()?,
                },
                b'.' => {
                    let mut set = [u64::MAX; 4];
                    if !self.dotall {
                        set[0] &= !(1 << b'\n');
                    }
                    Node::Any(set)
                }
                b'^' => Node::Circ,
                b'$' => Node::Dollar,
                b'*' | b'+' | b'?' | b'{' | b'#' | b' ' => return None,
                _ if byte >= 0x80 => return None,
                _ => Node::Char(self.literal(byte)),
            };
            let atom = self.quantified(atom)?;
            alts.last_mut()?.push(atom);
        }
    }

    /// A subroutine call after `(`, at its `?`: `(?R)`, `(?N)`, `(?+N)`,
    /// `(?-N)`, `(?&name)`, `(?P>name)`.
    fn call(&mut self) -> Option<Node> {
        let rest = &self.bytes[self.at + 1..];
        let close = rest.iter().position(|&b| b == b')')?;
        let inner = &rest[..close];
        let number = |digits: &[u8]| -> Option<u32> {
            if digits.is_empty() || digits.len() > 5 || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            std::str::from_utf8(digits).ok()?.parse().ok()
        };
        let node = match inner {
            [b'R'] => Node::Call(0),
            [b'+', digits @ ..] => Node::Call(self.groups.checked_add(number(digits)?)?),
            [b'-', digits @ ..] => Node::Call(
                (self.groups + 1)
                    .checked_sub(number(digits)?)
                    .filter(|&g| g > 0)?,
            ),
            [b'&', name @ ..] | [b'P', b'>', name @ ..] if !name.is_empty() => {
                Node::CallName(name.to_vec())
            }
            digits => Node::Call(number(digits)?),
        };
        self.at += 2 + close;
        Some(node)
    }

    /// The name of a named group after `(`, at its `?`: `(?<name>`,
    /// `(?'name'`, `(?P<name>`; the group's body follows.
    fn group_name(&mut self) -> Option<Vec<u8>> {
        let rest = &self.bytes[self.at + 1..];
        let (skip, close) = match rest {
            [b'<', b'=' | b'!', ..] => return None,
            [b'<', ..] => (1, b'>'),
            [b'\'', ..] => (1, b'\''),
            [b'P', b'<', ..] => (2, b'>'),
            _ => return None,
        };
        let body = &rest[skip..];
        let end = body.iter().position(|&b| b == close)?;
        let name = &body[..end];
        if name.is_empty()
            || name[0].is_ascii_digit()
            || !name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            return None;
        }
        self.at += 1 + skip + end + 1;
        Some(name.to_vec())
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
                // An exact count has nothing to be lazy about.
                if max == Some(min) {
                    Mode::Greedy
                } else {
                    Mode::Lazy
                }
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

/// The shortest match of `nodes`, a back reference counting nothing (the
/// compiler's test of a group that could match nothing, which makes a
/// repeated group check each iteration).
fn min_length(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|node| match node {
            Node::Set(_) | Node::Any(_) | Node::Not(_) | Node::Class(_) | Node::Char(_) => 1,
            Node::Circ
            | Node::Dollar
            | Node::Look { .. }
            | Node::BackRef(_)
            | Node::Call(_)
            | Node::CallName(_) => 0,
            Node::Group { alts, .. } => alts.iter().map(|a| min_length(a)).min().unwrap_or(0),
            Node::Repeat { node, min, .. } => {
                min_length(std::slice::from_ref(&**node)).saturating_mul(*min as usize)
            }
        })
        .fold(0, usize::saturating_add)
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

/// The length every match of `nodes` has, if they all have one.
fn fixed_length(nodes: &[Node]) -> Option<usize> {
    nodes.iter().try_fold(0usize, |total, node| {
        let length = match node {
            Node::Set(_) | Node::Any(_) | Node::Not(_) | Node::Class(_) | Node::Char(_) => 1,
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
            Node::Repeat { .. } | Node::BackRef(_) | Node::Call(_) | Node::CallName(_) => {
                return None;
            }
        };
        total.checked_add(length)
    })
}

/// The first code unit a positive lookahead asserts at the start of every
/// branch (PCRE2's `find_firstassertedcu`): the first item (negative
/// assertions and lookbehinds skipped) is a group whose branches do the
/// same or a lookahead, inside which a literal (repeated at least once)
/// is the unit; every branch gives the same one.
fn first_asserted(alts: &[Vec<Node>], in_assert: bool) -> Option<Set> {
    let mut found = None;
    for alt in alts {
        let item = alt.iter().find(|node| {
            !matches!(
                node,
                Node::Look { negated: true, .. } | Node::Look { behind: true, .. }
            )
        })?;
        let unit = match item {
            Node::Group { alts, .. } => first_asserted(alts, in_assert)?,
            Node::Look { alts, .. } => first_asserted(alts, true)?,
            Node::Char(set) if in_assert => *set,
            Node::Repeat { node, min, .. } if in_assert && *min > 0 => match **node {
                Node::Char(set) => set,
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

/// Replaces calls by name with calls by number; `None` if a call names
/// no group.
fn resolve_calls(alts: &mut [Vec<Node>], names: &[(Vec<u8>, u32)], groups: u32) -> Option<()> {
    for node in alts.iter_mut().flatten() {
        match node {
            Node::CallName(name) => {
                let number = names.iter().find(|(n, _)| n == name)?.1;
                *node = Node::Call(number);
            }
            Node::Call(number) if *number > groups => return None,
            Node::Group { alts, .. } | Node::Look { alts, .. } => {
                resolve_calls(alts, names, groups)?;
            }
            Node::Repeat { node, .. } => match &mut **node {
                // A quantified call is not modelled.
                Node::Call(_) | Node::CallName(_) => return None,
                Node::Group { alts, .. } => resolve_calls(alts, names, groups)?,
                _ => {}
            },
            _ => {}
        }
    }
    Some(())
}

/// Whether a branch starts with `.*`, perhaps inside groups.
fn leads_with_dot_star(nodes: &[Node]) -> bool {
    match nodes.first() {
        Some(Node::Repeat { node, min: 0, .. }) => matches!(**node, Node::Any(_)),
        Some(Node::Group { alts, .. }) => alts.iter().any(|alt| leads_with_dot_star(alt)),
        _ => false,
    }
}

/// What every branch may start with for PCRE2 to try a pattern at the
/// subject's start only, or at line starts only.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lead {
    Anchor,
    LineStart,
}

/// Whether `nodes` start with `^` (in multiline mode for line starts),
/// `.*` (with dotall for the start, without for line starts, outside
/// atomic groups and groups a back reference names: `hidden`) or a group
/// whose branches all do (PCRE2's `is_anchored`, `is_startline`).
fn leads_with(
    nodes: &[Node],
    lead: Lead,
    multiline: bool,
    referenced: &[u32],
    hidden: bool,
) -> bool {
    match nodes.first() {
        Some(Node::Circ) => lead == Lead::LineStart || !multiline,
        Some(Node::Repeat {
            node,
            min: 0,
            max: None,
            ..
        }) => match &**node {
            Node::Any(set) => !hidden && set_has(set, b'\n') == (lead == Lead::Anchor),
            _ => false,
        },
        Some(Node::Group {
            capture,
            atomic,
            alts,
        }) => {
            let hidden = hidden || *atomic || capture.is_some_and(|c| referenced.contains(&c));
            alts.iter()
                .all(|alt| leads_with(alt, lead, multiline, referenced, hidden))
        }
        _ => false,
    }
}

/// PCRE2's study of the bytes a match can start with (`set_start_bits`):
/// adds those of `nodes` to `set`; `Some(true)` if they can also match
/// nothing (the bytes of what follows count too), `None` if unknown.
fn start_bits(nodes: &[Node], set: &mut Set, multiline: bool) -> Option<bool> {
    for node in nodes {
        if !node_start_bits(node, set, multiline)? {
            return Some(false);
        }
    }
    Some(true)
}

fn node_start_bits(node: &Node, set: &mut Set, multiline: bool) -> Option<bool> {
    match node {
        Node::Set(s) | Node::Class(s) | Node::Char(s) => {
            union(set, s);
            Some(false)
        }
        // PCRE2's study knows nothing of what a call starts with.
        Node::Dollar
        | Node::BackRef(_)
        | Node::Not(_)
        | Node::Any(_)
        | Node::Call(_)
        | Node::CallName(_) => None,
        // `^` is skipped, but not in multiline mode.
        Node::Circ => (!multiline).then_some(true),
        // Skipped, as lookbehinds and negative lookaheads.
        Node::Look { negated: true, .. } | Node::Look { behind: true, .. } => Some(true),
        // A positive lookahead counts as a group.
        Node::Group { alts, .. } | Node::Look { alts, .. } => {
            let mut empty = false;
            for alt in alts {
                empty |= start_bits(alt, set, multiline)?;
            }
            Some(empty)
        }
        Node::Repeat { node, min, .. } => Some(node_start_bits(node, set, multiline)? || *min == 0),
    }
}

/// A first or required code unit as PCRE2's compiler tracks them
/// (`firstcu`, `reqcu` and their flags in `compile_branch`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Unit {
    /// Nothing seen yet (REQ_UNSET).
    Unset,
    /// There is none (REQ_NONE).
    None,
    /// This literal (a byte, or a letter in both cases); `vary`: set after
    /// a repeat of varying count (REQ_VARY).
    Some(Set, bool),
}

impl Unit {
    fn is_set(&self) -> bool {
        matches!(self, Unit::Some(..))
    }
}

/// PCRE2's first and required code units, computed as its compiler does
/// from the items of each branch in turn: the first literal of a branch
/// is its first code unit (not also a required one), later literals the
/// required one; a repeat that may be absent restores both to what they
/// were before the item (for a back reference, which saves nothing, to
/// what the item before it saved).
struct Units {
    /// A repeat of varying count has been compiled (`req_varyopt`).
    vary: bool,
    multiline: bool,
}

impl Units {
    /// `compile_regex`: the units of a group from those of its branches.
    fn alternatives(&mut self, alts: &[Vec<Node>]) -> (Unit, Unit) {
        let (mut first, mut required) = (Unit::Unset, Unit::Unset);
        for (index, alt) in alts.iter().enumerate() {
            let (branch_first, mut branch_required) = self.branch(alt);
            if index == 0 {
                (first, required) = (branch_first, branch_required);
                continue;
            }
            if first != branch_first {
                if first.is_set() && !required.is_set() {
                    required = first;
                }
                first = Unit::None;
            }
            if !first.is_set() && branch_first.is_set() && !branch_required.is_set() {
                branch_required = branch_first;
            }
            required = match (required, branch_required) {
                (Unit::Some(a, vary_a), Unit::Some(b, vary_b)) if a == b => {
                    Unit::Some(a, vary_a || vary_b)
                }
                (Unit::Unset, Unit::Unset) => Unit::Unset,
                _ => Unit::None,
            };
        }
        (first, required)
    }

    /// `compile_branch`: the units of a sequence of items.
    fn branch(&mut self, nodes: &[Node]) -> (Unit, Unit) {
        let (mut first, mut required) = (Unit::Unset, Unit::Unset);
        let (mut zero_first, mut zero_required) = (Unit::Unset, Unit::Unset);
        for node in nodes {
            let (item, repeat) = match node {
                Node::Repeat { node, min, max, .. } => (&**node, Some((*min, *max))),
                other => (other, None),
            };
            let mut group_set_first = false;
            match item {
                Node::Char(set) => {
                    zero_required = required;
                    if first == Unit::Unset {
                        zero_first = Unit::None;
                        first = Unit::Some(*set, false);
                    } else {
                        zero_first = first;
                        required = Unit::Some(*set, self.vary);
                    }
                }
                Node::Set(_) | Node::Any(_) | Node::Not(_) | Node::Class(_) => {
                    if first == Unit::Unset {
                        first = Unit::None;
                    }
                    zero_first = first;
                    zero_required = required;
                }
                Node::Circ => {
                    if self.multiline && first == Unit::Unset {
                        first = Unit::None;
                        zero_first = Unit::None;
                    }
                }
                Node::Dollar | Node::Repeat { .. } => {}
                Node::BackRef(_) => {
                    if first == Unit::Unset {
                        first = Unit::None;
                        zero_first = Unit::None;
                    }
                }
                // `compile_branch` on a call: no first code unit if none
                // was seen, the required one left as it was.
                Node::Call(_) | Node::CallName(_) => {
                    if first == Unit::Unset {
                        first = Unit::None;
                    }
                    zero_first = first;
                }
                Node::Group { alts, .. } => {
                    let vary_before = self.vary;
                    let (sub_first, mut sub_required) = self.alternatives(alts);
                    zero_required = required;
                    zero_first = first;
                    if first == Unit::Unset && sub_first != Unit::Unset {
                        if sub_first.is_set() {
                            first = sub_first;
                            group_set_first = true;
                        } else {
                            first = Unit::None;
                        }
                        zero_first = Unit::None;
                    } else if let Unit::Some(set, _) = sub_first
                        && !sub_required.is_set()
                    {
                        sub_required = Unit::Some(set, vary_before);
                    }
                    if sub_required.is_set() {
                        required = sub_required;
                    }
                }
                Node::Look {
                    negated,
                    behind,
                    alts,
                } => {
                    let (sub_first, sub_required) = self.alternatives(alts);
                    zero_required = required;
                    zero_first = first;
                    if !negated && !behind && sub_first.is_set() && sub_required.is_set() {
                        required = sub_required;
                    }
                }
            }
            if let Some((min, max)) = repeat {
                if min == 0 {
                    first = zero_first;
                    required = zero_required;
                }
                match item {
                    // At least two of a literal: it is required, whatever
                    // the first unit is.
                    Node::Char(set) if min > 1 => required = Unit::Some(*set, self.vary),
                    Node::Group { .. } if min > 1 && group_set_first && !required.is_set() => {
                        required = first;
                    }
                    _ => {}
                }
                if max != Some(min) {
                    self.vary = true;
                }
            }
        }
        (first, required)
    }
}

/// What a group's brackets do besides grouping.
#[derive(Clone, Copy)]
struct GroupKind {
    capture: Option<u32>,
    atomic: bool,
}

impl GroupKind {
    fn of(capture: Option<u32>, atomic: bool) -> GroupKind {
        GroupKind { capture, atomic }
    }
}

/// What PCRE2 compiles a single item to, which decides its frames and
/// whether it is made possessive.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ItemKind {
    Char,
    Type,
    Any,
    Not,
    Class,
}

/// The set and kind of a single-item node.
fn item_kind(node: &Node) -> Option<(Set, ItemKind)> {
    Some(match node {
        Node::Char(set) => (*set, ItemKind::Char),
        Node::Set(set) => (*set, ItemKind::Type),
        Node::Any(set) => (*set, ItemKind::Any),
        Node::Not(set) => (*set, ItemKind::Not),
        Node::Class(set) => (*set, ItemKind::Class),
        _ => return None,
    })
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
            Node::Set(_) | Node::Any(_) | Node::Not(_) | Node::Class(_) | Node::Char(_) => {
                let (set, kind) = item_kind(node)?;
                self.item(set, 1, 1, Mode::Greedy, kind)
            }
            Node::Circ => self.ops.push(Op::Circ),
            Node::Dollar => self.ops.push(Op::Dollar),
            Node::Group {
                capture,
                atomic,
                alts,
            } => self.group(GroupKind::of(*capture, *atomic), alts, Ket::Once, false)?,
            Node::BackRef(group) => self.ops.push(Op::Ref {
                group: *group,
                min: 1,
                max: 1,
                mode: Mode::Greedy,
            }),
            Node::Call(group) => self.ops.push(Op::Call {
                group: *group,
                target: 0,
            }),
            // Resolved before.
            Node::CallName(_) => return None,
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
                self.group_with_back(GroupKind::of(None, false), alts, Ket::Once, true, *behind)?;
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
                Node::Set(_) | Node::Any(_) | Node::Not(_) | Node::Class(_) | Node::Char(_) => {
                    let (set, kind) = item_kind(node)?;
                    self.item(set, *min, max.unwrap_or(u32::MAX), *mode, kind)
                }
                Node::Group {
                    capture,
                    atomic,
                    alts,
                } => {
                    self.repeat_group(GroupKind::of(*capture, *atomic), alts, *min, *max, *mode)?
                }
                Node::BackRef(group) => self.ops.push(Op::Ref {
                    group: *group,
                    min: *min,
                    max: max.unwrap_or(u32::MAX),
                    mode: *mode,
                }),
                _ => return None,
            },
        }
        Some(())
    }

    fn item(&mut self, set: Set, min: u32, max: u32, mode: Mode, kind: ItemKind) {
        self.sets.push(set);
        self.ops.push(Op::Item {
            set: self.sets.len() as u32 - 1,
            min,
            max,
            mode,
            kind,
        });
    }

    fn group(
        &mut self,
        kind_of: GroupKind,
        alts: &[Vec<Node>],
        kind: Ket,
        top: bool,
    ) -> Option<()> {
        self.group_with_back(kind_of, alts, kind, top, false)
    }

    /// A group; `behind`: each alternative first steps back its length.
    fn group_with_back(
        &mut self,
        kind_of: GroupKind,
        alts: &[Vec<Node>],
        kind: Ket,
        top: bool,
        behind: bool,
    ) -> Option<()> {
        // A repeated group that can match nothing opens a frame for each
        // alternative, as a capturing one does (PCRE2's SBRA).
        let empty = kind != Ket::Once && alts.iter().any(|alt| min_length(alt) == 0);
        let frames_all = kind_of.capture.is_some() || kind_of.atomic || top || empty;
        let bra = self.ops.len();
        self.ops.push(Op::Bra {
            frames_all,
            capture: kind_of.capture.unwrap_or(0),
            atomic: kind_of.atomic,
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
            capture: kind_of.capture.unwrap_or(0),
            atomic: kind_of.atomic,
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
        kind_of: GroupKind,
        alts: &[Vec<Node>],
        kind: Ket,
        lazy: bool,
    ) -> Option<()> {
        let zero = self.ops.len();
        self.ops.push(Op::BraZero { skip: 0, lazy });
        self.group(kind_of, alts, kind, false)?;
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
        kind_of: GroupKind,
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
                    return self.optional_group(kind_of, alts, repeat_ket, lazy);
                }
                if min > MAX_COPIES {
                    return None;
                }
                for _ in 1..min {
                    self.group(kind_of, alts, Ket::Once, false)?;
                }
                self.group(kind_of, alts, repeat_ket, false)
            }
            Some(max) => {
                if max > MAX_COPIES {
                    return None;
                }
                for _ in 0..min {
                    self.group(kind_of, alts, Ket::Once, false)?;
                }
                // Nested as `(?:X(?:X)?)?`: each optional copy but the last
                // is wrapped with what follows it in a plain bracket.
                let mut wrappers = Vec::new();
                for copy in min..max {
                    let zero = self.ops.len();
                    self.ops.push(Op::BraZero { skip: 0, lazy });
                    if copy + 1 < max {
                        let bra = self.ops.len();
                        self.ops.push(Op::Bra {
                            frames_all: false,
                            capture: 0,
                            atomic: false,
                            alts: vec![bra as u32 + 1],
                        });
                        self.group(kind_of, alts, Ket::Once, false)?;
                        wrappers.push((zero, bra));
                    } else {
                        self.group(kind_of, alts, Ket::Once, false)?;
                        self.ops[zero] = Op::BraZero {
                            skip: self.ops.len() as u32,
                            lazy,
                        };
                    }
                }
                while let Some((zero, bra)) = wrappers.pop() {
                    let ket = self.ops.len() as u32 + 1;
                    self.ops.push(Op::AltEnd(ket));
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
    /// The model of `pattern` (flags of `engine.rs`: caseless, multiline,
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
        if pattern.len() > MAX_MODELLED_PATTERN {
            return None;
        }
        let original = pattern;
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
            groups: 0,
            highest_ref: 0,
            open: Vec::new(),
            self_referenced: Vec::new(),
            referenced: Vec::new(),
            names: Vec::new(),
            calls: false,
        };
        let mut alts = parser.alternatives(0)?;
        // A reference to a group that does not exist: PCRE2 refuses it.
        if parser.highest_ref > parser.groups {
            return None;
        }
        if parser.calls {
            resolve_calls(&mut alts, &parser.names, parser.groups)?;
            // Whether PCRE2 anchors a pattern at a leading `.*` when it
            // has calls is not modelled.
            if alts.iter().any(|alt| leads_with_dot_star(alt)) {
                return None;
            }
        }
        // Back references are always replayed: PCRE2 10.32 reads them as
        // no other engine here does (a group that refers to itself is
        // atomic, the study's minimum length can exclude a match).
        if !always && !risky(&alts) && parser.highest_ref == 0 {
            return None;
        }
        // In multiline mode `^` also matches after a newline: PCRE2 then
        // skips to such places, and each other start fails at once, with
        // no frame to count.
        let leads = |lead: Lead| {
            alts.iter()
                .all(|alt| leads_with(alt, lead, multiline, &parser.referenced, false))
        };
        let anchored = leads(Lead::Anchor);
        let (first_unit, required_unit) = Units {
            vary: false,
            multiline,
        }
        .alternatives(&alts);
        // Where the branches set none, a first code unit a lookahead
        // asserts (PCRE2's find_firstassertedcu: `(?=b)\w*(a+)+b`).
        let first_unit = match first_unit {
            Unit::Some(..) => first_unit,
            _ if anchored => first_unit,
            _ => match first_asserted(&alts, false) {
                Some(set) => Unit::Some(set, false),
                None => first_unit,
            },
        };
        // Without a first code unit, the study's set of first bytes (none
        // when the pattern is tried at line starts only).
        let startline = !anchored && !first_unit.is_set() && leads(Lead::LineStart);
        let first = match first_unit {
            Unit::Some(set, _) => Some(set),
            _ if startline => None,
            _ => {
                let mut all = [0; 4];
                let mut empty = false;
                for alt in &alts {
                    empty |= start_bits(alt, &mut all, multiline).unwrap_or(true);
                }
                (!empty).then_some(all)
            }
        };
        let first_is_literal = first_unit.is_set();
        // PCRE2's study of the shortest match is the backtracking
        // matcher's (one implementation for both).
        let min_length = Program::new(original, caseless, multiline, dotall, extended)
            .ok()?
            .min_length();
        // An anchored pattern uses its required unit only after a repeat
        // of varying count.
        let required = match required_unit {
            Unit::Some(set, vary) if !anchored || vary => Some(set),
            _ => None,
        };
        let mut codegen = Codegen {
            ops: Vec::new(),
            sets: Vec::new(),
        };
        codegen.group(GroupKind::of(None, false), &alts, Ket::Once, true)?;
        codegen.ops.push(Op::End);
        // A call runs the first copy of its group (the whole pattern's
        // brackets are the first op).
        for pc in 0..codegen.ops.len() {
            if let Op::Call { group, .. } = codegen.ops[pc] {
                let target = if group == 0 {
                    0
                } else {
                    codegen
                        .ops
                        .iter()
                        .position(|op| matches!(op, Op::Bra { capture, .. } if *capture == group))?
                };
                codegen.ops[pc] = Op::Call {
                    group,
                    target: target as u32,
                };
            }
        }
        let mut model = Model {
            ops: codegen.ops,
            sets: codegen.sets,
            anchored,
            first,
            min_length,
            required,
            first_is_literal,
            multiline,
            caseless,
            groups: parser.groups,
            startline,
            calls: parser.calls,
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
                kind,
            } = self.ops[pc]
                && mode != Mode::Possessive
                && max > min
                && self.cannot_follow(
                    &self.possess_set(set, kind),
                    kind,
                    mode == Mode::Lazy,
                    pc + 1,
                )
            {
                self.ops[pc] = Op::Item {
                    set,
                    min,
                    max,
                    mode: Mode::Possessive,
                    kind,
                };
            }
        }
    }

    /// Whether what starts at `pc` cannot start with a byte of `set`.
    /// The bytes an item is compared with: all of them for `.` (PCRE2 only
    /// makes it possessive where nothing follows).
    fn possess_set(&self, set: u32, kind: ItemKind) -> Set {
        match kind {
            ItemKind::Any => [u64::MAX; 4],
            _ => self.sets[set as usize],
        }
    }

    fn cannot_follow(&self, set: &Set, kind: ItemKind, lazy: bool, pc: usize) -> bool {
        self.cannot_follow_from(set, kind, lazy, pc, 0, false)
    }

    /// As [`Model::cannot_follow`]; `entered`: a group that follows the
    /// repeat was entered on the way.
    fn cannot_follow_from(
        &self,
        set: &Set,
        kind: ItemKind,
        lazy: bool,
        pc: usize,
        depth: u32,
        entered: bool,
    ) -> bool {
        if depth > 8 {
            return false;
        }
        let next = |pc: usize, entered: bool| {
            self.cannot_follow_from(set, kind, lazy, pc, depth + 1, entered)
        };
        match &self.ops[pc] {
            // Nothing is compared with `.`.
            Op::Item {
                set: other,
                min,
                kind: other_kind,
                ..
            } => {
                *other_kind != ItemKind::Any
                    && disjoint(set, &self.sets[*other as usize])
                    && (*min > 0 || next(pc + 1, entered))
            }
            // Only before a character type such as `\w`, or a literal
            // outside multiline mode.
            Op::Dollar => {
                (kind == ItemKind::Type || kind == ItemKind::Char && !self.multiline)
                    && !set_has(set, b'\n')
            }
            Op::End => true,
            // The end of an assertion: nothing follows inside it.
            Op::LookEnd => !lazy,
            Op::AltEnd(ket) => next(*ket as usize, entered),
            // PCRE2 does not make a lazy repeat possessive at a group's end;
            // the last repeat of an atomic group is, unless it is in a
            // group entered after the repeat.
            Op::Ket {
                kind: Ket::Once,
                bra,
            } => {
                !lazy
                    && match self.ops[*bra as usize] {
                        Op::Bra { atomic: true, .. } => !entered,
                        // A capturing group may be called: what follows
                        // its end is unknown when the pattern has calls.
                        Op::Bra { capture, .. } if capture > 0 && self.calls => false,
                        _ => next(pc + 1, entered),
                    }
            }
            Op::Bra { alts, .. } => alts.iter().all(|&alt| next(alt as usize, true)),
            Op::BraZero { skip, .. } => next(pc + 1, entered) && next(*skip as usize, entered),
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

    /// Whether the `length` bytes at `pos` are those at `from` (ignoring
    /// ASCII case if caseless, as PCRE2's default tables do).
    #[inline]
    fn same(&self, subject: &[u8], from: usize, pos: usize, length: usize) -> bool {
        let Some(copy) = subject.get(pos..pos.saturating_add(length)) else {
            return false;
        };
        let original = &subject[from..from + length];
        if self.caseless {
            original.eq_ignore_ascii_case(copy)
        } else if length < 16 {
            // Short copies (a repeated `\1` of one letter compares
            // thousands) cost less compared here than through memcmp.
            original.iter().zip(copy).all(|(a, b)| a == b)
        } else {
            original == copy
        }
    }

    fn replay(
        &self,
        subject: &[u8],
        limit: u64,
        budget: &mut dyn FnMut(u64) -> bool,
    ) -> Option<Verdict> {
        let mut required_seen: Option<usize> = None;
        let mut start = 0;
        // One set of stacks for every start position and assertion: a
        // hostile pattern is tried at thousands of positions.
        let mut count = Count {
            frames: 0,
            charged: 0,
            limit,
            captures: vec![UNSET; 2 * (self.groups as usize + 1)],
            trail: Vec::new(),
            compared: 0,
            stacks: Stacks::default(),
        };
        loop {
            if start > subject.len() || (self.anchored && start > 0) {
                return Some(Verdict::NoMatch);
            }
            if self.startline && start > 0 && subject[start - 1] != b'\n' {
                start = match subject[start..].iter().position(|&b| b == b'\n') {
                    Some(offset) => start + offset + 1,
                    None => subject.len(),
                };
            }
            if let Some(first) = &self.first {
                // An anchored pattern is tried at its start only if the
                // first byte can start it.
                let offset = if self.anchored {
                    subject.first().filter(|&&b| set_has(first, b)).map(|_| 0)
                } else {
                    subject[start..].iter().position(|&b| set_has(first, b))
                };
                match offset {
                    Some(offset) => start += offset,
                    None => return Some(Verdict::NoMatch),
                }
            }
            if subject.len() - start < self.min_length {
                return Some(Verdict::NoMatch);
            }
            if let Some(required) = &self.required
                && subject.len() - start < REQUIRED_SCAN_MAX
                && required_seen.is_none_or(|at| at < start + usize::from(self.first_is_literal))
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
            match self.attempt(subject, start, &mut count, budget)? {
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
        count: &mut Count,
        budget: &mut dyn FnMut(u64) -> bool,
    ) -> Option<Attempt> {
        count.frames = 1;
        count.charged = 0;
        count.compared = 0;
        count.captures.fill(UNSET);
        count.trail.clear();
        let mut stacks = std::mem::take(&mut count.stacks);
        stacks.points.clear();
        stacks.arena.clear();
        stacks.looks.clear();
        let outcome = self.run(subject, start, count, budget, &mut stacks);
        count.stacks = stacks;
        outcome
    }

    /// Runs the pattern from `start` to its end. An assertion's body runs
    /// in the same loop, above the points of the assertion's caller: its
    /// `base`, where the body has failed.
    fn run(
        &self,
        subject: &[u8],
        start: usize,
        count: &mut Count,
        budget: &mut dyn FnMut(u64) -> bool,
        stacks: &mut Stacks,
    ) -> Option<Attempt> {
        let mut base = 0;
        let none = u32::MAX;
        let (mut pc, mut pos, mut groups) = (0, start, none);
        let end = subject.len();
        macro_rules! push {
            ($resume:expr) => {{
                count.frames += 1;
                if count.frames > count.limit {
                    return Some(Attempt::Limit);
                }
                if stacks.points.len() - base >= MAX_STACK {
                    return None;
                }
                stacks.points.push(Point {
                    resume: $resume,
                    pos: pos as u32,
                    groups,
                    arena: stacks.arena.len() as u32,
                    trail: count.trail.len() as u32,
                });
            }};
        }
        // Ends the innermost assertion, its body matched or not: on after
        // it, where it started; whether that fails.
        macro_rules! end_look {
            ($matched:expr) => {{
                let look = stacks.looks.pop()?;
                stacks.points.truncate(look.base as usize);
                stacks.arena.truncate(look.arena as usize);
                base = stacks.looks.last().map_or(0, |outer| outer.base as usize);
                let Op::Look { negated, next } = self.ops[look.pc as usize] else {
                    return None;
                };
                pc = next as usize;
                pos = look.pos as usize;
                groups = look.groups;
                let holds = $matched != negated;
                // What a positive assertion captured is kept.
                if negated || !holds {
                    count.undo_to(look.trail as usize);
                }
                !holds
            }};
        }
        // Enters alternative `alt` of the group at `bra` (frames as PCRE2).
        macro_rules! enter {
            ($bra:expr, $alt:expr) => {{
                let bra = $bra;
                let alt = $alt;
                let Op::Bra {
                    frames_all, alts, ..
                } = &self.ops[bra]
                else {
                    return None;
                };
                let pending = stacks.points.len() as u32;
                if *frames_all || alt + 1 < alts.len() {
                    push!(Resume::Alt {
                        bra: bra as u32,
                        alt: alt as u32 + 1
                    });
                }
                stacks.arena.push(Open {
                    enclosing: groups,
                    start: pos as u32,
                    pending,
                    call: NO_CALL,
                    trail: 0,
                });
                groups = stacks.arena.len() as u32 - 1;
                pc = alts[alt] as usize;
            }};
        }
        // Enters alternative `alt` of the group at `bra` called by the
        // call at `call`: PCRE2's OP_RECURSE opens a frame for each
        // alternative it tries.
        macro_rules! enter_call {
            ($call:expr, $bra:expr, $alt:expr) => {{
                let (call, bra, alt) = ($call, $bra, $alt);
                let Op::Bra { alts, .. } = &self.ops[bra] else {
                    return None;
                };
                let pending = stacks.points.len() as u32;
                if stacks.arena.len() >= MAX_STACK {
                    return None;
                }
                push!(Resume::CallAlt {
                    call: call as u32,
                    alt: alt as u32 + 1
                });
                stacks.arena.push(Open {
                    enclosing: groups,
                    start: pos as u32,
                    pending,
                    call: call as u32,
                    trail: count.trail.len() as u32,
                });
                groups = stacks.arena.len() as u32 - 1;
                pc = alts[alt] as usize;
            }};
        }
        'run: loop {
            let spent = count.frames + count.compared / BYTES_PER_FRAME;
            if spent - count.charged >= 4096 {
                if !budget(spent - count.charged) {
                    return None;
                }
                count.charged = spent;
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
                    let Open {
                        enclosing,
                        start: group_start,
                        pending,
                        call,
                        trail,
                    } = stacks.arena[groups as usize];
                    groups = enclosing;
                    if call != NO_CALL {
                        // The end of a called group: back after the call,
                        // with the captures of before it (PCRE2 10.32's
                        // OP_KET), what is left to try inside kept. The
                        // whole pattern returns at OP_END, from the frame
                        // of the call: what was left inside is dropped.
                        if *bra == 0 {
                            stacks.points.truncate(pending as usize);
                        }
                        count.restore_from(trail as usize);
                        pc = call as usize + 1;
                        continue 'run;
                    }
                    let moved = pos as u32 != group_start;
                    let Op::Bra {
                        capture, atomic, ..
                    } = self.ops[*bra as usize]
                    else {
                        return None;
                    };
                    if capture > 0 {
                        count.set_capture(2 * capture as usize, group_start);
                        count.set_capture(2 * capture as usize + 1, pos as u32);
                    }
                    if atomic {
                        stacks.points.truncate(pending as usize);
                    }
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
                    kind,
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
                        if *mode == Mode::Greedy && *kind == ItemKind::Class && max > min {
                            push!(Resume::ClassBack {
                                pc: pc as u32,
                                floor: floor as u32
                            });
                        } else if *mode == Mode::Greedy && pos > floor {
                            push!(Resume::BackOff {
                                pc: pc as u32,
                                floor: floor as u32
                            });
                        }
                        pc += 1;
                        false
                    }
                }
                Op::Ref {
                    group,
                    min,
                    max,
                    mode,
                } => {
                    let (min, max) = (*min, *max);
                    let (from, to) = (
                        count.captures[2 * *group as usize],
                        count.captures[2 * *group as usize + 1],
                    );
                    let single = min == 1 && max == 1;
                    if from == UNSET || to == UNSET {
                        // An unset group matches nothing, but a repeat that
                        // may be absent is passed over.
                        pc += 1;
                        single || min > 0
                    } else if !single && from == to {
                        // An empty capture matches any number of times.
                        pc += 1;
                        false
                    } else {
                        let length = (to - from) as usize;
                        let mut taken = 0;
                        while taken < min && self.same(subject, from as usize, pos, length) {
                            count.compared += length as u64;
                            pos += length;
                            taken += 1;
                        }
                        if taken < min {
                            true
                        } else if min == max {
                            pc += 1;
                            false
                        } else if *mode == Mode::Lazy {
                            // A frame before each further copy is tried.
                            push!(Resume::RefMore {
                                pc: pc as u32,
                                count: taken,
                                length: length as u32
                            });
                            pc += 1;
                            false
                        } else {
                            // As many copies as match, then a frame at each
                            // count down to the minimum (that one too).
                            let floor = pos;
                            while taken < max && self.same(subject, from as usize, pos, length) {
                                count.compared += length as u64;
                                pos += length;
                                taken += 1;
                            }
                            push!(Resume::RefBack {
                                pc: pc as u32,
                                floor: floor as u32,
                                length: length as u32
                            });
                            pc += 1;
                            false
                        }
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
                Op::End => return Some(Attempt::Matched),
                Op::LookEnd => end_look!(true),
                Op::Look { .. } => {
                    // An assertion is atomic: its body runs on its own,
                    // counting its frames with the rest.
                    if stacks.looks.len() > 32 {
                        return None;
                    }
                    base = stacks.points.len();
                    stacks.looks.push(Look {
                        pc: pc as u32,
                        base: base as u32,
                        arena: stacks.arena.len() as u32,
                        groups,
                        pos: pos as u32,
                        trail: count.trail.len() as u32,
                    });
                    pc += 1;
                    false
                }
                Op::Call { group, target } => {
                    // Inside a call, calling the same group again where the
                    // innermost such call started is PCRE2's RECURSELOOP
                    // error: ERROR in HTCondor, as the match limit.
                    let mut at = groups;
                    let mut depth = 0;
                    while at != none {
                        let open = &stacks.arena[at as usize];
                        if open.call != NO_CALL
                            && matches!(self.ops[open.call as usize], Op::Call { group: g, .. } if g == *group)
                        {
                            if open.start as usize == pos {
                                return Some(Attempt::Limit);
                            }
                            break;
                        }
                        at = open.enclosing;
                        depth += 1;
                        if depth > MAX_STACK {
                            return None;
                        }
                    }
                    enter_call!(pc, *target as usize, 0);
                    false
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
                if stacks.points.len() == base {
                    if stacks.looks.is_empty() {
                        return Some(Attempt::Failed);
                    }
                    if !end_look!(false) {
                        continue 'run;
                    }
                    continue;
                }
                let point = stacks.points.pop()?;
                pos = point.pos as usize;
                groups = point.groups;
                stacks.arena.truncate(point.arena as usize);
                count.undo_to(point.trail as usize);
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
                    Resume::CallAlt { call, alt } => {
                        let Op::Call { target, .. } = self.ops[call as usize] else {
                            return None;
                        };
                        let Op::Bra { alts, .. } = &self.ops[target as usize] else {
                            return None;
                        };
                        if (alt as usize) < alts.len() {
                            enter_call!(call as usize, target as usize, alt as usize);
                            continue 'run;
                        }
                    }
                    Resume::At { pc: at } => {
                        pc = at as usize;
                        continue 'run;
                    }
                    Resume::ClassBack { pc: at, floor } => {
                        if pos > floor as usize {
                            pos -= 1;
                            push!(Resume::ClassBack { pc: at, floor });
                            pc = at as usize + 1;
                            continue 'run;
                        }
                    }
                    Resume::BackOff { pc: at, floor } => {
                        pos -= 1;
                        if pos as u32 > floor {
                            push!(Resume::BackOff { pc: at, floor });
                        }
                        pc = at as usize + 1;
                        continue 'run;
                    }
                    Resume::RefBack {
                        pc: at,
                        floor,
                        length,
                    } => {
                        if pos >= (floor + length) as usize {
                            pos -= length as usize;
                            push!(Resume::RefBack {
                                pc: at,
                                floor,
                                length
                            });
                            pc = at as usize + 1;
                            continue 'run;
                        }
                    }
                    Resume::RefMore {
                        pc: at,
                        count: taken,
                        length,
                    } => {
                        let Op::Ref { group, max, .. } = &self.ops[at as usize] else {
                            return None;
                        };
                        let from = count.captures[2 * *group as usize] as usize;
                        count.compared += u64::from(length);
                        if taken < *max && self.same(subject, from, pos, length as usize) {
                            pos += length as usize;
                            push!(Resume::RefMore {
                                pc: at,
                                count: taken + 1,
                                length
                            });
                            pc = at as usize + 1;
                            continue 'run;
                        }
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

// A pending backtracking point: where to go on failure.
#[derive(Clone, Copy)]
enum Resume {
    /// Try alternative `alt` of the group at `bra`.
    Alt { bra: u32, alt: u32 },
    /// Try alternative `alt` of the group the call at `call` runs.
    CallAlt { call: u32, alt: u32 },
    /// Go on at `pc`.
    At { pc: u32 },
    /// Back the repeat at `pc` off one byte, not below `floor`.
    BackOff { pc: u32, floor: u32 },
    /// The same for a class, which opens a frame at `floor` too.
    ClassBack { pc: u32, floor: u32 },
    /// Match one more of the lazy repeat at `pc` (`count` so far).
    More { pc: u32, count: u32 },
    /// Back the repeated reference at `pc` off one copy of
    /// `length` bytes, not below `floor`.
    RefBack { pc: u32, floor: u32, length: u32 },
    /// Match one more copy of the lazy repeated reference at `pc`.
    RefMore { pc: u32, count: u32, length: u32 },
}
struct Point {
    resume: Resume,
    pos: u32,
    groups: u32,
    arena: u32,
    trail: u32,
}

/// An open group: the one it is in, where it started, the pending points
/// when it was entered, and for a group run by a call, the call's op and
/// the length of the capture trail at the call.
#[derive(Clone, Copy)]
struct Open {
    enclosing: u32,
    start: u32,
    pending: u32,
    call: u32,
    trail: u32,
}

/// Not a call.
const NO_CALL: u32 = u32::MAX;

/// Open groups as a linked stack in an arena, and the pending backtracking
/// stacks.points.
#[derive(Default)]
struct Stacks {
    arena: Vec<Open>,
    points: Vec<Point>,
    /// The assertions whose bodies are running, innermost last.
    looks: Vec<Look>,
}

/// An assertion being tested: its op, the points and groups below its
/// body, and the place, groups and captures it started from.
struct Look {
    pc: u32,
    base: u32,
    arena: u32,
    groups: u32,
    pos: u32,
    trail: u32,
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
/// Frames opened by one start position, and those charged so far; the
/// captures (start and end of each group, as PCRE2's frames copy them)
/// with the changes to undo on backtracking.
struct Count {
    frames: u64,
    charged: u64,
    limit: u64,
    captures: Vec<u32>,
    trail: Vec<(u32, u32)>,
    /// Bytes compared by back references (charged to the budget, not
    /// counted toward the match limit).
    compared: u64,
    /// The stacks of the last start position, kept for the next.
    stacks: Stacks,
}

impl Count {
    fn set_capture(&mut self, slot: usize, value: u32) {
        let old = self.captures[slot];
        if old != value {
            self.trail.push((slot as u32, old));
            self.captures[slot] = value;
        }
    }

    /// Sets every capture changed since the trail was `length` long back
    /// to what it was then (undone in turn on backtracking).
    fn restore_from(&mut self, length: usize) {
        let mut restored: Vec<(u32, u32)> = Vec::new();
        for &(slot, old) in &self.trail[length..] {
            if !restored.iter().any(|&(s, _)| s == slot) {
                restored.push((slot, old));
            }
        }
        for (slot, old) in restored {
            self.set_capture(slot as usize, old);
        }
    }

    fn undo_to(&mut self, length: usize) {
        while self.trail.len() > length {
            if let Some((slot, old)) = self.trail.pop() {
                self.captures[slot as usize] = old;
            }
        }
    }
}

enum Attempt {
    Matched,
    Failed,
    Limit,
}

#[cfg(test)]
mod tests {
    use super::*;

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
    // smallest match limit under which pcre2_match does not fail, as
    // tests/gen/pcre2_frames.py measures it.
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
            // known_bugs class 15: back references, and what the oracle's
            // libpcre2 showed besides while checking them.
            ("((a)+)+\\2$", "aaaaaaaaaa!", 5119),
            ("(a+)+\\1$", "aaaaaaaaaa!", 2560),
            ("((a|b)+)+\\2!", "aaaaaab!", 894),
            ("(a*)*\\1b", "aaaaaaaa!b", 769),
            ("(a|aa)+\\1$", "aaaaaaaaaaaa!", 1828),
            (
                "(\\w+)\\1+$",
                "abababababababababababababababababababab!",
                88,
            ),
            ("(a)(\\1*)", "ab", 5),
            ("(\\1|a+).", "aa", 5),
            ("^(x?a+\\1*)ab", "aaab", 5),
            ("(a|b)+?\\1$", "abab!", 16),
            ("(a|b)+\\1*?$", "abab!", 20),
            ("^[ab]*a+", "a", 4),
            ("(|){0,2}", "", 6),
            ("(a|)!", "Aa!", 3),
            ("(a+)+$", "a", 5),
            ("(A|\\1*)a", "a", 0),
            ("(a(|\\1))\\1", "a", 5),
            (".(((\\3}\\2|\\g{3})))", "\n", 0),
            ("\\n*.", "\n\n", 4),
            ("a*$", "a", 2),
            // known_bugs class 33: subroutine calls.
            ("(a*)*(?1)b", "aaaaaaaaaa-b", 7167),
            ("(a+)*(?1)b", "aaaaaaaaaa-b", 4096),
            ("(a*)+(?1)b", "aaaaaaaaaa-b", 7155),
            ("(?:a*)*(?1)b(a)", "aaaaaaaaaa-b", 5121),
            ("(a|aa)*(?1)b", "aaaaaaaaaa-b", 1162),
            ("(?<n>a*)*(?&n)b", "aaaaaaa-b", 895),
            ("(?P<x>a*)*(?P>x)b", "aaaaaaa-b", 895),
            ("(a*)*(?-1)b", "aaaaaaa-b", 895),
            ("(a*)*(?+1)b(a)", "aaaaaaa-b", 641),
            ("(a+)+(?R)", "aaaa!", 176),
            ("(a+)+b|x(?R)", "xaaaa!", 44),
            ("(a|aa)+?(?1)$", "aaaaaaa!", 269),
            ("((a)|b)+(?2)\\2$", "aaaab!", 30),
            ("(a)(b)?(?1)\\2", "aab", 6),
            ("(a+)+x|(?1)(?1)y", "aaaaa!", 97),
            ("(?=(?1))(a+)+$", "aaaa!", 43),
            ("(?!(?1)x)(a+)+$", "aaaa!", 45),
            ("(a+)+(?=(?1)c)", "aaaaa", 153),
            ("(a|b(?1))+$", "aaba!", 15),
            ("(a(?1)?b)+$", "aabb!", 9),
            ("a(?R)?b", "aaabbb", 8),
            ("(a+)+(?1)*$", "aaaa!", 141),
            ("(a+)+(?1){2}$", "aaaa!", 71),
            ("(a|aa)(?1)*$", "aaaaaa!", 132),
            ("^(?:a|ab)(?R)?c", "abac", 7),
            ("(a|ab)(?1)+c$", "abababac", 29),
            ("(a.(b|.|(?:a)a)+.)+(?R)", "aababbaa!", 494),
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

    /// Prints the model's frames for each `pattern<TAB>subject` line of
    /// the file named by MODEL_FRAMES (subjects as Python literals are not
    /// read: `\t`-free raw bytes), to compare with tests/gen/pcre2_frames.py.
    #[test]
    #[ignore]
    fn print_frames() {
        let Ok(file) = std::env::var("MODEL_FRAMES") else {
            return;
        };
        for line in std::fs::read_to_string(file).unwrap().lines() {
            let Some((pattern, subject)) = line.split_once('\t') else {
                continue;
            };
            let frames =
                Model::build(pattern.as_bytes(), false, false, false, false, true).map(|model| {
                    let mut budget = |_| true;
                    let (mut low, mut high) = (0u64, 1 << 26);
                    while low < high {
                        let mid = (low + high) / 2;
                        if model.exceeds(subject.as_bytes(), mid, &mut budget) == Some(true) {
                            low = mid + 1;
                        } else {
                            high = mid;
                        }
                    }
                    let verdict = model.search(subject.as_bytes(), &mut budget);
                    format!("{low} {verdict:?}")
                });
            println!("MODEL\t{pattern}\t{subject}\t{frames:?}");
        }
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

    /// known_bugs class 15: back references reach the limit where
    /// HTCondor's PCRE2 does, and a group that refers to itself is atomic.
    #[test]
    fn back_references_as_htcondor() {
        let verdict = |pattern: &str, subject: String| {
            Model::new(pattern.as_bytes(), false, false, false, false)
                .expect("modelled")
                .search(subject.as_bytes(), &mut |_| true)
        };
        let a = |n: usize| "a".repeat(n) + "!";
        assert_eq!(verdict("((a)+)+\\2$", a(20)), Some(Verdict::NoMatch));
        assert_eq!(verdict("((a)+)+\\2$", a(21)), Some(Verdict::Limit));
        assert_eq!(verdict("(a|aa)+\\1$", a(29)), Some(Verdict::NoMatch));
        assert_eq!(verdict("(a|aa)+\\1$", a(30)), Some(Verdict::Limit));
        assert_eq!(verdict("(a+)+$", "a".into()), Some(Verdict::Match));
        assert_eq!(
            verdict("^(x?a+\\1*)ab", "aaab".into()),
            Some(Verdict::NoMatch)
        );
        // known_bugs class 33: the first start position reaches the limit
        // with 21 `a`s, as in HTCondor.
        let call = |n: usize| "a".repeat(n) + "-b";
        assert_eq!(verdict("(a*)*(?1)b", call(20)), Some(Verdict::Match));
        assert_eq!(verdict("(a*)*(?1)b", call(21)), Some(Verdict::Limit));
        // The whole pattern's recursion returns atomically: no match.
        let whole =
            Model::build(b"^(?:a|ab)(?R)?c", false, false, false, false, true).expect("modelled");
        assert_eq!(whole.search(b"abac", &mut |_| true), Some(Verdict::NoMatch));
        // A call of a group inside a call of it that did not move: PCRE2's
        // RECURSELOOP error, ERROR as the limit.
        assert_eq!(verdict("((?1)|a)+$", "aaaa!".into()), Some(Verdict::Limit));
        // Without a back reference nor exponential backtracking: not
        // replayed (the engine answers).
        assert!(Model::new(b"^(x?a+)ab", false, false, false, false).is_none());
    }
}
