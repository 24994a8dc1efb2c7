//! Mutation of known expressions: a second way, beside the typed
//! [`generator`](crate::generator), to find where this library and
//! HTCondor read or evaluate a text differently.
//!
//! The corpus lines (tests/corpus, the conformance corpora) are texts whose
//! answers are known to agree; a small change to one of them lands on the
//! edges of the lexer and the parser (what each side accepts and refuses),
//! and on values the typed generator never writes. Each mutant is one
//! corpus line changed by one to three mutations, token-level (delete,
//! duplicate or swap tokens, another operator, an edge literal, another
//! name or a keyword, a call around a subexpression, a name quoted or
//! unquoted, keywords and function names in another case, a subexpression
//! spliced from another line) or character-level (a character inserted or
//! deleted, a digit changed, white space, control characters and comments
//! inserted).
//!
//! The oracle harness reads one expression a line, so a mutant never holds
//! a line feed or a carriage return: inside a string literal they are
//! inserted as escapes (`\n`, `\r`), elsewhere the mutation is dropped.
//! Same seed, same corpus: same mutants.

use crate::generator::{Rng, respell_case};
use std::collections::HashSet;

/// One token of a corpus line, as a lenient lexer splits it: every text
/// splits, whatever it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// White space and comments.
    Space,
    /// A double-quoted string, quotes included (maybe unterminated).
    Str,
    /// A single-quoted name, quotes included (maybe unterminated).
    Quoted,
    /// A number: digits, hexadecimal digits, a point, an exponent.
    Number,
    /// A name or keyword.
    Word,
    /// An operator or a bracket.
    Punct,
}

/// A token: its kind and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: Kind,
    /// Its text, as written.
    pub text: String,
}

const OPERATORS: &[&str] = &[
    "=?=", "=!=", ">>>", "?:", ">>", "<<", "<=", ">=", "==", "!=", "&&", "||",
];

/// Every operator token, for replacements.
const ALL_OPERATORS: &[&str] = &[
    "+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "!=", "=?=", "=!=", "&&", "||", "!", "~",
    "&", "|", "^", "<<", ">>", ">>>", "?", ":", "?:", ".", ",", ";", "=", "is", "isnt",
];

/// Edge values a literal is replaced by.
const EDGE_LITERALS: &[&str] = &[
    "0",
    "-0",
    "-0.0",
    "0.0",
    "1",
    "-1",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-9223372036854775807",
    "2147483647",
    "-2147483648",
    "4294967296",
    "1e308",
    "-1e308",
    "1e309",
    "-1e309",
    "1e-320",
    "4.9e-324",
    "(1e309 - 1e309)",
    "(0.0 / 0.0)",
    "real(\"NaN\")",
    "real(\"-INF\")",
    "real(\"INF\")",
    "\"\"",
    "\"\\377\"",
    "\"\\0\"",
    "\"\\n\"",
    "\"a\"",
    "\"A\"",
    "\" \"",
    "\"1\"",
    "\"1.5\"",
    "\"true\"",
    "\",\"",
    "undefined",
    "error",
    "true",
    "false",
    "{}",
    "[]",
    "{ {} }",
    "[ a = 1 ]",
    "{ 1, \"a\", undefined }",
    "absTime(0)",
    "relTime(0)",
    "absTime(\"1970-01-01T00:00:00Z\")",
    "relTime(\"-0:00:01\")",
];

/// Names a name is replaced by, beside the names of the line.
const KEYWORDS: &[&str] = &[
    "true",
    "false",
    "undefined",
    "error",
    "is",
    "isnt",
    "self",
    "parent",
    "root",
    "toplevel",
    "super",
    "MY",
    "TARGET",
    "other",
    "a",
    "x",
];

/// Calls wrapped around a subexpression (`{}` stands for it).
const WRAPPERS: &[&str] = &[
    "size({})",
    "string({})",
    "int({})",
    "real({})",
    "bool({})",
    "isUndefined({})",
    "isError({})",
    "isString({})",
    "isList({})",
    "isClassAd({})",
    "strcat({})",
    "strcat({}, {})",
    "toUpper({})",
    "toLower({})",
    "unparse({})",
    "eval({})",
    "floor({})",
    "round({})",
    "abs({})",
    "ifThenElse({}, 1, 2)",
    "member({}, { 1, \"a\" })",
    "sum({ {} })",
    "join(\",\", {})",
    "split({})",
    "substr({}, 1)",
    "relTime({})",
    "absTime({})",
    "formatTime({})",
    "regexp(\"a\", {})",
    "stringListMember({}, \"a,b\")",
    "({})",
    "-{}",
    "!{}",
    "~{}",
    "{ {} }",
    "{ {} }[0]",
    "[ a = {} ].a",
    "[ a = {} ]",
    "({}).a",
    "({})[0]",
    "{} ?: 1",
    "{} is undefined",
    "({} =?= {})",
];

/// Text inserted at a character position.
const INSERTIONS: &[&str] = &[
    "\n", "\r", "\t", "\u{b}", "\u{c}", "\0", " ", "/* */", "/* c */", "//", "/*", "*/", "\"", "'",
    "\\", ".", ",", ";", "(", ")", "[", "]", "{", "}", "-", "+", "!", "?", ":", "=", "e", "E", "x",
    "0", "9", "$", "@", "#", "`", "\u{e9}", "\u{a0}", "\u{2028}", "\u{ff}",
];

/// Splits `text` into tokens; every byte lands in one, so the tokens
/// joined give `text` back.
pub fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let at = |i: usize| chars.get(i).map(|&(_, c)| c);
    let offset = |i: usize| chars.get(i).map_or(text.len(), |&(o, _)| o);
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        let c = chars[i].1;
        let kind = if c.is_whitespace() || c == '\0' {
            while at(i).is_some_and(|c| c.is_whitespace() || c == '\0') {
                i += 1;
            }
            Kind::Space
        } else if c == '/' && at(i + 1) == Some('*') {
            i += 2;
            while i < chars.len() && !(at(i) == Some('*') && at(i + 1) == Some('/')) {
                i += 1;
            }
            i = (i + 2).min(chars.len());
            Kind::Space
        } else if c == '/' && at(i + 1) == Some('/') {
            i = chars.len();
            Kind::Space
        } else if c == '"' || c == '\'' {
            i += 1;
            while i < chars.len() && at(i) != Some(c) {
                i += if at(i) == Some('\\') { 2 } else { 1 };
            }
            i = (i + 1).min(chars.len());
            if c == '"' { Kind::Str } else { Kind::Quoted }
        } else if c.is_ascii_digit() || (c == '.' && at(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let hex = c == '0' && matches!(at(i + 1), Some('x' | 'X'));
            if hex {
                i += 2;
            }
            while let Some(d) = at(i) {
                let more = d.is_ascii_alphanumeric()
                    || d == '.'
                    || (matches!(d, '+' | '-')
                        && !hex
                        && matches!(at(i - 1), Some('e' | 'E' | 'p' | 'P')));
                if !more {
                    break;
                }
                i += 1;
            }
            Kind::Number
        } else if c.is_alphabetic() || c == '_' {
            while at(i).is_some_and(|c| c.is_alphanumeric() || c == '_') {
                i += 1;
            }
            Kind::Word
        } else {
            let rest = &text[offset(i)..];
            let len = OPERATORS
                .iter()
                .find(|op| rest.starts_with(*op))
                .map_or(1, |op| op.len());
            i += len;
            Kind::Punct
        };
        out.push(Token {
            kind,
            text: text[offset(start)..offset(i)].to_string(),
        });
    }
    out
}

fn join(tokens: &[Token]) -> String {
    tokens.iter().map(|t| t.text.as_str()).collect()
}

fn is_literal_word(w: &str) -> bool {
    matches!(
        w.to_ascii_lowercase().as_str(),
        "true" | "false" | "undefined" | "error"
    )
}

fn closing(open: &str) -> Option<&'static str> {
    match open {
        "(" => Some(")"),
        "[" => Some("]"),
        "{" => Some("}"),
        _ => None,
    }
}

/// The token range of the subexpression that starts at token `i`: a
/// bracketed group, a call, or a single operand; `None` elsewhere.
fn subexpr_at(tokens: &[Token], i: usize) -> Option<std::ops::Range<usize>> {
    let token = tokens.get(i)?;
    let group_end = |open: usize| -> Option<usize> {
        let mut stack = Vec::new();
        for (j, t) in tokens.iter().enumerate().skip(open) {
            if t.kind != Kind::Punct {
                continue;
            }
            if let Some(close) = closing(&t.text) {
                stack.push(close);
            } else if matches!(t.text.as_str(), ")" | "]" | "}") {
                if stack.pop() != Some(t.text.as_str()) {
                    return None;
                }
                if stack.is_empty() {
                    return Some(j + 1);
                }
            }
        }
        None
    };
    match token.kind {
        Kind::Punct if closing(&token.text).is_some() => Some(i..group_end(i)?),
        Kind::Word => {
            let next = (i + 1..tokens.len()).find(|&j| tokens[j].kind != Kind::Space);
            match next {
                Some(j) if tokens[j].text == "(" => Some(i..group_end(j)?),
                _ => Some(i..i + 1),
            }
        }
        Kind::Number | Kind::Str | Kind::Quoted => Some(i..i + 1),
        _ => None,
    }
}

/// Every subexpression of a line, as text.
fn subexprs(tokens: &[Token]) -> Vec<String> {
    (0..tokens.len())
        .filter_map(|i| subexpr_at(tokens, i))
        .map(|r| join(&tokens[r]))
        .collect()
}

/// Whether a quoted name of `text` may hold a line feed or carriage
/// return once its escapes are read (`'\n'`, `'\12'`, `'\1' '2'`): the
/// harness probes an ad by writing its names unescaped into the next
/// expression, which then spans two lines and shifts every later answer.
fn name_may_hold_line_break(text: &str) -> bool {
    tokenize(text).iter().any(|t| {
        t.kind == Kind::Quoted
            && t.text
                .as_bytes()
                .windows(2)
                .any(|w| w[0] == b'\\' && matches!(w[1], b'0'..=b'7' | b'n' | b'r'))
    })
}

/// A mutator over a corpus.
pub struct Mutator {
    rng: Rng,
    lines: Vec<String>,
    seen: HashSet<String>,
}

impl Mutator {
    /// A mutator of `lines` (corpus lines: blank lines and `#` comments
    /// are left out) for `seed`.
    pub fn new(seed: u64, lines: impl IntoIterator<Item = String>) -> Mutator {
        let lines = lines
            .into_iter()
            .map(|l| l.trim_end_matches(['\r', '\n']).to_string())
            .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
            .collect();
        Mutator {
            rng: Rng::new(seed),
            lines,
            seen: HashSet::new(),
        }
    }

    /// The next mutant, new among those this mutator gave; `None` when the
    /// corpus is empty or no new mutant turned up in many tries.
    pub fn next_mutant(&mut self) -> Option<String> {
        if self.lines.is_empty() {
            return None;
        }
        for _ in 0..1000 {
            let line = self.lines[self.rng.below(self.lines.len())].clone();
            let rounds = match self.rng.below(10) {
                0 => 3,
                1 | 2 => 2,
                _ => 1,
            };
            let mut text = line.clone();
            for _ in 0..rounds {
                if let Some(t) = self.mutate(&text) {
                    text = t;
                }
            }
            let usable = text != line
                && !text.contains(['\n', '\r'])
                && !name_may_hold_line_break(&text)
                && !text.trim().is_empty()
                && !text.trim_start().starts_with('#');
            if usable && self.seen.insert(text.clone()) {
                return Some(text);
            }
        }
        None
    }

    /// One mutation of `text`, or `None` when the chosen one does not
    /// apply.
    pub fn mutate(&mut self, text: &str) -> Option<String> {
        let mut tokens = tokenize(text);
        let solid: Vec<usize> = (0..tokens.len())
            .filter(|&i| tokens[i].kind != Kind::Space)
            .collect();
        if solid.is_empty() {
            return None;
        }
        let rng = &mut self.rng;
        let pick = solid[rng.below(solid.len())];
        match rng.below(16) {
            // Delete a token.
            0 => {
                tokens.remove(pick);
            }
            // Duplicate one.
            1 => {
                let t = tokens[pick].clone();
                let space = Token {
                    kind: Kind::Space,
                    text: if rng.chance(50) { " " } else { "" }.to_string(),
                };
                tokens.insert(pick, space);
                tokens.insert(pick, t);
            }
            // Swap two neighbours.
            2 => {
                let k = solid.iter().position(|&i| i == pick)?;
                let other = *solid.get(k + 1)?;
                tokens.swap(pick, other);
            }
            // Another operator.
            3 => {
                let ops: Vec<usize> = solid
                    .iter()
                    .copied()
                    .filter(|&i| {
                        tokens[i].kind == Kind::Punct && closing(&tokens[i].text).is_none()
                            || matches!(tokens[i].text.to_ascii_lowercase().as_str(), "is" | "isnt")
                    })
                    .collect();
                if ops.is_empty() {
                    return None;
                }
                let i = ops[rng.below(ops.len())];
                let op = rng.pick_str(ALL_OPERATORS);
                tokens[i].text = if op.chars().all(char::is_alphabetic) {
                    format!(" {op} ")
                } else {
                    op.to_string()
                };
            }
            // An edge literal for a literal (or any operand, now and then).
            4 | 5 => {
                let lits: Vec<usize> = solid
                    .iter()
                    .copied()
                    .filter(|&i| {
                        matches!(tokens[i].kind, Kind::Number | Kind::Str)
                            || tokens[i].kind == Kind::Word && is_literal_word(&tokens[i].text)
                    })
                    .collect();
                let i = if lits.is_empty() || rng.chance(10) {
                    pick
                } else {
                    lits[rng.below(lits.len())]
                };
                let range = subexpr_at(&tokens, i).unwrap_or(i..i + 1);
                let edge = rng.pick_str(EDGE_LITERALS).to_string();
                tokens.splice(
                    range,
                    [Token {
                        kind: Kind::Word,
                        text: edge,
                    }],
                );
            }
            // Another name: one of the line or a keyword.
            6 => {
                let words: Vec<usize> = solid
                    .iter()
                    .copied()
                    .filter(|&i| matches!(tokens[i].kind, Kind::Word | Kind::Quoted))
                    .collect();
                if words.is_empty() {
                    return None;
                }
                let i = words[rng.below(words.len())];
                tokens[i].text = if rng.chance(50) {
                    tokens[words[rng.below(words.len())]].text.clone()
                } else {
                    rng.pick_str(KEYWORDS).to_string()
                };
            }
            // A call (or an operator, a list, an ad) around a subexpression.
            7 | 8 => {
                let range = subexpr_at(&tokens, pick)?;
                let inner = join(&tokens[range.clone()]);
                let wrapped = rng.pick_str(WRAPPERS).replace("{}", &inner);
                tokens.splice(
                    range,
                    [Token {
                        kind: Kind::Word,
                        text: wrapped,
                    }],
                );
            }
            // A name quoted, a quoted name unquoted.
            9 => {
                let t = &mut tokens[pick];
                match t.kind {
                    Kind::Word => t.text = format!("'{}'", t.text),
                    Kind::Quoted if t.text.len() >= 2 => {
                        t.text = t.text[1..t.text.len() - 1].to_string();
                    }
                    Kind::Str if t.text.len() >= 2 && rng.chance(50) => {
                        t.text = format!("'{}'", &t.text[1..t.text.len() - 1]);
                    }
                    _ => return None,
                }
            }
            // Keywords and function names in another case.
            10 => {
                let words: Vec<usize> = solid
                    .iter()
                    .copied()
                    .filter(|&i| tokens[i].kind == Kind::Word)
                    .collect();
                if words.is_empty() {
                    return None;
                }
                let i = words[rng.below(words.len())];
                tokens[i].text = respell_case(&tokens[i].text, rng);
            }
            // A subexpression spliced from another line.
            11 => {
                let range = subexpr_at(&tokens, pick)?;
                let other = &self.lines[rng.below(self.lines.len())];
                let parts = subexprs(&tokenize(other));
                if parts.is_empty() {
                    return None;
                }
                let part = parts[rng.below(parts.len())].clone();
                tokens.splice(
                    range,
                    [Token {
                        kind: Kind::Word,
                        text: part,
                    }],
                );
            }
            // Character level.
            _ => return self.mutate_chars(text),
        }
        Some(join(&tokens))
    }

    /// A character-level mutation of `text`.
    fn mutate_chars(&mut self, text: &str) -> Option<String> {
        let rng = &mut self.rng;
        let offsets: Vec<usize> = text
            .char_indices()
            .map(|(o, _)| o)
            .chain([text.len()])
            .collect();
        let at = offsets[rng.below(offsets.len())];
        let inside_string = {
            // Whether `at` is inside a double-quoted string token.
            let mut o = 0;
            tokenize(text).iter().any(|t| {
                let start = o;
                o += t.text.len();
                t.kind == Kind::Str && at > start && at < o
            })
        };
        let mut out = text.to_string();
        match rng.below(4) {
            0 => {
                let ins = rng.pick_str(INSERTIONS);
                let ins = match ins {
                    "\n" if inside_string => "\\n",
                    "\r" if inside_string => "\\r",
                    "\n" | "\r" => return None,
                    other => other,
                };
                out.insert_str(at, ins);
            }
            1 => {
                if at == text.len() {
                    return None;
                }
                out.remove(at);
            }
            2 => {
                let digits: Vec<usize> = text
                    .char_indices()
                    .filter(|(_, c)| c.is_ascii_digit())
                    .map(|(o, _)| o)
                    .collect();
                if digits.is_empty() {
                    return None;
                }
                let d = digits[rng.below(digits.len())];
                let new = char::from(b'0' + rng.below(10) as u8);
                out.replace_range(d..d + 1, &new.to_string());
            }
            _ => {
                let ws = rng.pick_str(&[
                    "\t", "\u{b}", "\u{c}", "\0", "  ", "/* */", "/**/", "/* x */ ", "//",
                ]);
                out.insert_str(at, ws);
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_join_back_to_the_text() {
        for text in [
            "a + b",
            "strcat(\"x\\\"y\", 'q n') /* c */ // end",
            "0x1F + 1.5e-3 + .5 + 1.e5",
            "\"unterminated",
            "[ a = 1; b = { 1, 2 } ].a =?= x \u{e9}\u{2028}\0",
        ] {
            assert_eq!(join(&tokenize(text)), text);
        }
    }

    #[test]
    fn names_that_may_break_a_line_are_seen() {
        assert!(name_may_hold_line_break("[ '\\1' '2' = 1 ]"));
        assert!(name_may_hold_line_break("x.'a\\n'"));
        assert!(!name_may_hold_line_break("\"\\n\" + 'a\\'b'"));
    }

    #[test]
    fn subexpressions_are_groups_calls_and_operands() {
        let t = tokenize("f(1, (2)) + [a = {3}].a");
        let parts = subexprs(&t);
        assert!(parts.contains(&"f(1, (2))".to_string()));
        assert!(parts.contains(&"(2)".to_string()));
        assert!(parts.contains(&"[a = {3}]".to_string()));
        assert!(parts.contains(&"{3}".to_string()));
    }

    #[test]
    fn mutants_are_deterministic_single_lines_and_new() {
        let corpus = [
            "strcat(\"a\", 1 + 2)",
            "[ a = 1; b = a * 2 ].b",
            "x =?= undefined",
        ]
        .map(String::from);
        let run = |seed| {
            let mut m = Mutator::new(seed, corpus.clone());
            (0..300).filter_map(|_| m.next_mutant()).collect::<Vec<_>>()
        };
        let first = run(990);
        assert_eq!(first, run(990));
        assert_ne!(first, run(991));
        assert!(first.len() > 100);
        let unique: HashSet<_> = first.iter().collect();
        assert_eq!(unique.len(), first.len());
        for m in &first {
            assert!(!m.contains(['\n', '\r']), "{m:?}");
            assert!(!name_may_hold_line_break(m), "{m:?}");
            assert!(!corpus.contains(m));
        }
    }
}
