//! PCRE2's limit on the size of a compiled pattern: 10.32 (8-bit code
//! units, link size 2) refuses a pattern whose compiled form, as its first
//! pass measures it, is longer than 65,536 code units ("regular expression
//! is too large"). A group repeated `{n}` is copied `n` times, so
//! `((a){100}){100}` is far over it in 16 bytes of pattern.
//!
//! [`estimate`] measures a pattern by the sizes of PCRE2's opcodes; each
//! item is counted at most at its real size, so a pattern is refused only
//! when PCRE2 refuses it. The sizes of the common items (characters,
//! classes, types, groups, references, quantified items and groups, `{n}`
//! `{n,}` `{n,m}` of groups with the nesting PCRE2 gives the optional
//! copies) were checked at the boundary against HTCondor 25.14 by
//! bisection (`tests/corpus/functions_regex.txt`).

use crate::engine::{brace_quantifier, read_class};

#[derive(Clone, Copy)]
enum Kind {
    /// A character (`OP_CHAR c`): 2.
    Char,
    /// A character type (`.`, `\d`, `\p{..}`): its size (1, or 3 for a
    /// property).
    Type(u64),
    /// A class of more than one character, or a back reference or call:
    /// repeated by an `OP_CR..` code after it.
    Repeated,
    /// A group of this size.
    Group,
    /// A lookaround assertion of this size: PCRE2 repeats one at most once
    /// (`(?=(a){10}){618}` compiles as `(?=(a){10})`).
    Assertion,
    /// An assertion or anything no quantifier applies to.
    Fixed,
}

struct Frame {
    /// The group's own codes (brackets and links).
    open: u64,
    /// The alternatives before the current one, with their `OP_ALT`s.
    alternatives: u64,
    sequence: u64,
    last: Option<(u64, Kind)>,
    /// A lookahead or lookbehind.
    assertion: bool,
}

impl Frame {
    fn new(open: u64) -> Frame {
        Frame {
            open,
            alternatives: 0,
            sequence: 0,
            last: None,
            assertion: false,
        }
    }

    fn push(&mut self, size: u64, kind: Kind) {
        self.sequence = self.sequence.saturating_add(size);
        self.last = Some((size, kind));
    }

    fn total(&self) -> u64 {
        self.open
            .saturating_add(self.alternatives)
            .saturating_add(self.sequence)
    }
}

/// The size of a repeated single item (`Char`: the character is one unit,
/// else `t`, the type's size): `OP_STAR c`, `OP_EXACT n c`, `OP_UPTO`.
fn single(min: u32, max: Option<u32>, unit: u64, plain: u64) -> u64 {
    let one = 1 + unit;
    let counted = 3 + unit;
    match (min, max) {
        (1, Some(1)) => plain,
        (0, Some(0)) => 0,
        (0 | 1, None) | (0, Some(1)) => one,
        (n, None) => counted + one * u64::from(n >= 2),
        (n, Some(m)) if m == n => counted,
        (n, Some(m)) => {
            let first = match n {
                0 => 0,
                1 => plain,
                _ => counted,
            };
            first + if m - n == 1 { one } else { counted }
        }
    }
}

/// A lower bound of PCRE2's compiled size of `pattern` (as text, one
/// character per code unit; `extended`: white space and comments are not
/// counted, so the estimate is not made).
pub(crate) fn estimate(pattern: &str) -> u64 {
    let chars: Vec<char> = pattern.chars().collect();
    // Capturing brackets: `OP_CBRA`, link, number; `OP_KET`, link.
    let capture: u64 = if pattern.contains("(?n") || pattern.contains("NO_AUTO") {
        6
    } else {
        8
    };
    // The pattern's own `OP_BRA`, `OP_KET` and `OP_END`.
    let mut stack = vec![Frame::new(7)];
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let Some(frame) = stack.last_mut() else {
            return 0;
        };
        match c {
            '\\' => {
                let next = chars.get(i + 1).copied().unwrap_or('\\');
                i += 2;
                match next {
                    'd' | 'D' | 's' | 'S' | 'w' | 'W' | 'h' | 'H' | 'v' | 'V' | 'R' | 'X' | 'N'
                    | 'C' => frame.push(1, Kind::Type(1)),
                    'b' | 'B' | 'A' | 'z' | 'Z' | 'G' | 'K' => frame.push(1, Kind::Fixed),
                    'E' => {}
                    'Q' => {
                        while i < chars.len()
                            && !(chars[i] == '\\' && chars.get(i + 1) == Some(&'E'))
                        {
                            frame.push(2, Kind::Char);
                            i += 1;
                        }
                        i += 2;
                    }
                    'p' | 'P' => {
                        if chars.get(i) == Some(&'{') {
                            i += chars[i..].iter().position(|&c| c == '}').unwrap_or(0);
                        }
                        i += 1;
                        frame.push(3, Kind::Type(3));
                    }
                    'g' | 'k' => {
                        match chars.get(i) {
                            Some('{' | '<' | '\'') => {
                                let close = match chars[i] {
                                    '{' => '}',
                                    '<' => '>',
                                    _ => '\'',
                                };
                                i += chars[i..].iter().position(|&c| c == close).unwrap_or(0) + 1;
                            }
                            _ => {
                                i += usize::from(matches!(chars.get(i), Some('-' | '+')));
                                while chars.get(i).is_some_and(char::is_ascii_digit) {
                                    i += 1;
                                }
                            }
                        }
                        frame.push(3, Kind::Repeated);
                    }
                    'x' | 'o' if chars.get(i) == Some(&'{') => {
                        i += chars[i..].iter().position(|&c| c == '}').unwrap_or(0) + 1;
                        frame.push(2, Kind::Char);
                    }
                    'c' => {
                        i += 1;
                        frame.push(2, Kind::Char);
                    }
                    // A back reference or an octal character: counted as
                    // the smaller, a character.
                    '0'..='9' => {
                        let start = i;
                        while chars.get(i).is_some_and(char::is_ascii_digit) {
                            i += 1;
                        }
                        // `\1` to `\9` are always back references (`OP_REF n`).
                        if next != '0' && i == start {
                            frame.push(3, Kind::Repeated);
                        } else {
                            frame.push(2, Kind::Char);
                        }
                    }
                    _ => frame.push(2, Kind::Char),
                }
            }
            '[' => {
                let Some((_, end)) = read_class(&chars, i) else {
                    return 0;
                };
                let inner: &[char] = &chars[i + 1..end - 1];
                let inner = inner.strip_prefix(&['^']).unwrap_or(inner);
                // A class of one character (or of one letter in both
                // cases) is compiled as that character.
                let many = if inner.contains(&'\\') || inner.contains(&'[') {
                    false
                } else {
                    let mut members: Vec<char> = Vec::new();
                    let mut k = 0;
                    while k < inner.len() {
                        if k + 2 < inner.len() && inner[k + 1] == '-' {
                            members.extend(inner[k]..=inner[k + 2]);
                            k += 3;
                        } else {
                            members.push(inner[k]);
                            k += 1;
                        }
                    }
                    members.sort_unstable();
                    members.dedup();
                    match members[..] {
                        [] | [_] => false,
                        [a, b] => !a.eq_ignore_ascii_case(&b),
                        _ => true,
                    }
                };
                if many {
                    frame.push(33, Kind::Repeated);
                } else {
                    frame.push(2, Kind::Char);
                }
                i = end;
            }
            '.' => {
                frame.push(1, Kind::Type(1));
                i += 1;
            }
            '^' | '$' => {
                frame.push(1, Kind::Fixed);
                i += 1;
            }
            '|' => {
                frame.alternatives = frame
                    .alternatives
                    .saturating_add(frame.sequence)
                    .saturating_add(3);
                frame.sequence = 0;
                frame.last = None;
                i += 1;
            }
            '(' => {
                let rest = &chars[i + 1..];
                let close = |from: usize| {
                    chars[from..]
                        .iter()
                        .position(|&c| c == ')')
                        .map_or(chars.len(), |p| from + p + 1)
                };
                if rest.starts_with(&['?', '#']) || rest.first() == Some(&'*') {
                    // A comment, a verb or a setting: counted as nothing.
                    i = close(i);
                    continue;
                }
                if rest.first() != Some(&'?') {
                    stack.push(Frame::new(capture));
                    i += 1;
                    continue;
                }
                let after: &[char] = &rest[1..];
                let name = after.starts_with(&['<'])
                    && !after.starts_with(&['<', '='])
                    && !after.starts_with(&['<', '!'])
                    || after.starts_with(&['\''])
                    || after.starts_with(&['P', '<']);
                let option_only = after
                    .iter()
                    .position(|c| !(c.is_ascii_alphabetic() || *c == '-' || *c == '^'))
                    .is_some_and(|p| after[p] == ')');
                let call = after
                    .first()
                    .is_some_and(|c| c.is_ascii_digit() || matches!(c, 'R' | '&' | '-' | '+'))
                    || after.starts_with(&['P', '>'])
                    || after.starts_with(&['P', '=']);
                if name {
                    stack.push(Frame::new(capture));
                    i = close_name(&chars, i);
                } else if option_only && !call {
                    i = close(i);
                } else if call {
                    frame.push(3, Kind::Repeated);
                    i = close(i);
                } else if after.first() == Some(&'C') {
                    i = close(i);
                } else {
                    let mut group = Frame::new(6);
                    group.assertion = matches!(after.first(), Some('=' | '!'))
                        || after.starts_with(&['<', '='])
                        || after.starts_with(&['<', '!']);
                    stack.push(group);
                    if after.first() == Some(&'(') {
                        // `(?(`: a condition that is an assertion is read
                        // as a group inside, any other is skipped.
                        i += 2;
                        if after.get(1) != Some(&'?') {
                            i = close(i);
                        }
                    } else {
                        // `(?:`, `(?i:`, `(?=`, `(?<=`, `(?>`, `(?|`.
                        i += 2;
                        while chars
                            .get(i)
                            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '-' | '^'))
                        {
                            i += 1;
                        }
                        i += if chars.get(i) == Some(&'<') { 2 } else { 1 };
                    }
                }
            }
            ')' => {
                let Some(done) = stack.pop() else {
                    return 0;
                };
                let Some(parent) = stack.last_mut() else {
                    return 0;
                };
                let kind = if done.assertion {
                    Kind::Assertion
                } else {
                    Kind::Group
                };
                parent.push(done.total(), kind);
                i += 1;
            }
            '*' | '+' | '?' | '{' => {
                let (length, min, max) = match c {
                    '*' => (1, 0, None),
                    '+' => (1, 1, None),
                    '?' => (1, 0, Some(1)),
                    _ => match brace_quantifier(&chars[i..]) {
                        Some(q) => q,
                        None => {
                            frame.push(2, Kind::Char);
                            i += 1;
                            continue;
                        }
                    },
                };
                i += length;
                if matches!(chars.get(i), Some('?' | '+')) {
                    i += 1;
                }
                if let Some((size, kind)) = frame.last.take() {
                    let repeated = match kind {
                        Kind::Char => single(min, max, 1, 2),
                        Kind::Type(t) => single(min, max, t, t),
                        Kind::Repeated => {
                            size + match (min, max) {
                                (1, Some(1)) | (0, Some(0)) => 0,
                                (0 | 1, None) | (0, Some(1)) => 1,
                                _ => 5,
                            }
                        }
                        Kind::Group => group(size, min, max),
                        Kind::Assertion => {
                            group(size, min.min(1), Some(max.map_or(1, |max| max.min(1))))
                        }
                        Kind::Fixed => size,
                    };
                    frame.sequence = frame.sequence.saturating_sub(size).saturating_add(repeated);
                }
            }
            _ => {
                frame.push(2, Kind::Char);
                i += 1;
            }
        }
    }
    stack.first().map_or(0, Frame::total)
}

/// The index after the `>` or `'` that closes a group's name.
fn close_name(chars: &[char], open: usize) -> usize {
    let from = open + 3;
    let close = if chars.get(open + 2) == Some(&'\'') {
        '\''
    } else {
        '>'
    };
    chars[from.min(chars.len())..]
        .iter()
        .position(|&c| c == close)
        .map_or(chars.len(), |p| from + p + 1)
}

/// A group of `size` repeated: copied `min` times, then `max - min`
/// optional copies nested in brackets each with its `OP_BRAZERO`.
fn group(size: u64, min: u32, max: Option<u32>) -> u64 {
    let (min64, nested) = (u64::from(min), size.saturating_add(7));
    match (min, max) {
        (0, Some(0)) => 0,
        (0, None) | (0, Some(1)) => size + 1,
        (_, None) => size.saturating_mul(min64.max(1)),
        (_, Some(m)) if m == min => size.saturating_mul(min64),
        (0, Some(m)) => nested.saturating_mul(u64::from(m)) - 6,
        (_, Some(m)) => {
            size.saturating_mul(min64)
                .saturating_add(nested.saturating_mul(u64::from(m - min)))
                - 6
        }
    }
}

#[cfg(test)]
mod tests {
    use super::estimate;

    #[test]
    fn sizes_at_the_boundaries_found_with_htcondor() {
        // The last count HTCondor 25.14 accepts, for each family.
        let families: [(&dyn Fn(usize) -> String, usize); 12] = [
            (&|n| format!("(a){{{n}}}"), 6552),
            (&|n| format!("(?:ab){{{n}}}"), 6552),
            (&|n| format!("(a|b){{{n}}}"), 4368),
            (&|n| format!("([ab]){{{n}}}"), 1598),
            (&|n| format!("(.){{{n}}}"), 7281),
            (&|n| format!("(a{{2,5}}){{{n}}}"), 4095),
            (&|n| format!("(a){{0,{n}}}"), 3855),
            (&|n| format!("(a){{1,{n}}}"), 3855),
            (&|n| "a".repeat(n), 32764),
            (&|n| "[ab]{2}".repeat(n), 1724),
            (&|n| format!("((a){{100}}){{{n}}}"), 65),
            (&|n| format!("(a){}", r"\1".repeat(n)), 21839),
        ];
        for (family, last) in families {
            assert!(
                estimate(&family(last)) <= crate::limits::MAX_COMPILED,
                "{}",
                family(1)
            );
            assert!(
                estimate(&family(last + 1)) > crate::limits::MAX_COMPILED,
                "{}",
                family(1)
            );
        }
    }
}
