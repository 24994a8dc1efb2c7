//! The fast path of the parser: a hand-written byte scanner for the text
//! that fills real ad files (`Cpus = 8`, `Requirements = (TARGET.Arch ==
//! "X86_64") && (TARGET.Memory >= RequestMemory)`, `Rank =
//! ifThenElse(x, 10, 0)`), read without pest.
//!
//! The grammar (`classad.pest`) stays the definition of the language: this
//! scanner reads a subset of it and gives exactly the tree, spans included,
//! that the grammar gives, or `None` to leave the text to the grammar.
//! It reads literals (decimal numbers, strings, `true`, `false`,
//! `undefined`, `error`), attribute references, selections (`MY.x`),
//! function calls, parentheses, lists, prefix operators and every binary
//! operator, nested ads; it declines, among others, conditionals and
//! elvis (`?`), subscripts, quoted names, comments, adjacent strings,
//! numbers with a leading zero or a suffix, `;` between arguments, and
//! anything that does not parse. Errors are always the grammar's: a text
//! the scanner is unsure of is declined, never refused.
//!
//! Nesting and depth are bounded below the parser's limits, so the
//! scanner's recursion is shallow whatever the input; deeper texts go to
//! the grammar, which refuses or reads them as it always has.
//! `tests/fast_path.rs` checks the agreement on the corpora and on
//! generated text.

use crate::ast::{AdExpr, BinaryOp, Expr, ExprKind, Literal, Name, Span, UnaryOp};
use crate::parser::{
    AdBuilder, DEFAULT_WORK_PER_BYTE, ParseOptions, Parser, StringRules, decode_new_escapes,
    decode_old_escapes,
};

/// Deepest bracket nesting the scanner reads itself; beyond it the text
/// goes to the grammar. Keeps the scanner's recursion small.
const MAX_NESTING: usize = 64;

/// Parses a whole expression, as `Parser::parse_expression_with` does,
/// or declines.
pub fn expression(parser: &Parser, source: &str, rules: StringRules) -> Option<Expr> {
    expression_at(parser, source, rules, 0)
}

/// [`expression`] for a text that starts `base` bytes into its file:
/// every span is moved by `base`.
pub fn expression_at(
    parser: &Parser,
    source: &str,
    rules: StringRules,
    base: usize,
) -> Option<Expr> {
    let mut s = Scanner::new(parser, source, rules, base)?;
    s.skip_space()?;
    let built = s.expression()?;
    s.skip_space()?;
    s.at_end().then_some(built.expr)
}

/// Parses one old-syntax line `Name = expression` with old string rules,
/// as `Parser::parse_old_line` does, or declines.
pub fn old_line(parser: &Parser, source: &str) -> Option<(Name, Expr)> {
    old_line_at(parser, source, 0)
}

/// [`old_line`] for a line that starts `base` bytes into its file: every
/// span is moved by `base`.
pub fn old_line_at(parser: &Parser, source: &str, base: usize) -> Option<(Name, Expr)> {
    old_line_guessed(parser, source, base, None).map(|(name, _, expr)| (name, expr))
}

/// [`old_line_at`] where the line likely defines `guess` (a plain
/// identifier, with the number of its lower-cased form), which is then
/// not looked up; the name comes with that number.
pub(crate) fn old_line_guessed(
    parser: &Parser,
    source: &str,
    base: usize,
    guess: Option<&(Name, u32)>,
) -> Option<(Name, u32, Expr)> {
    let mut s = Scanner::new(parser, source, StringRules::Old, base)?;
    s.skip_space()?;
    let (name, fold) = s.definition_name(guess)?;
    s.skip_space()?;
    s.eat(b'=')?;
    s.skip_space()?;
    let built = s.expression()?;
    s.skip_space()?;
    s.at_end().then_some((name, fold, built.expr))
}

/// Parses one new-syntax ad literal `[ ... ]` (the whole text), as
/// `Parser::parse_ad` does, or declines.
pub fn ad(parser: &Parser, source: &str) -> Option<AdExpr> {
    ad_at(parser, source, 0)
}

/// [`ad`] for a text that starts `base` bytes into its file: every span
/// is moved by `base`.
pub fn ad_at(parser: &Parser, source: &str, base: usize) -> Option<AdExpr> {
    let mut s = Scanner::new(parser, source, StringRules::New, base)?;
    s.skip_space()?;
    // The parser's builder gathers the definitions of the top-level ad.
    let mut builder = parser.take_builder();
    builder.begin();
    let read = s.ad(Some(&mut builder));
    let ad = builder.finish();
    parser.give_back_builder(builder);
    read?;
    s.skip_space()?;
    s.at_end().then_some(ad)
}

/// A subtree with its depth (a leaf is 1), as the grammar's builder counts it.
struct Built {
    expr: Expr,
    /// Depth of the tree, selection links not counted (as the grammar's
    /// `Built::depth`).
    depth: usize,
}

struct Scanner<'p, 's> {
    parser: &'p Parser,
    text: &'s str,
    bytes: &'s [u8],
    pos: usize,
    rules: StringRules,
    /// Added to every span: where the text starts in its file.
    base: usize,
    nesting: usize,
    max_nesting: usize,
    max_depth: usize,
}

/// Byte classes, looked up rather than computed in the scanning loops.
const SPACE: u8 = 1;
const IDENT_START: u8 = 2;
const IDENT: u8 = 4;

static CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if matches!(c, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c) {
            table[b] |= SPACE;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            table[b] |= IDENT_START;
        }
        if c.is_ascii_alphanumeric() || c == b'_' {
            table[b] |= IDENT;
        }
        b += 1;
    }
    table
};

fn is_space(b: u8) -> bool {
    CLASS[usize::from(b)] & SPACE != 0
}

fn is_ident_start(b: u8) -> bool {
    CLASS[usize::from(b)] & IDENT_START != 0
}

fn is_ident(b: u8) -> bool {
    CLASS[usize::from(b)] & IDENT != 0
}

/// The grammar's reserved words, which are not identifiers.
fn keyword(word: &[u8]) -> Option<Keyword> {
    let eq = |w: &[u8]| word.eq_ignore_ascii_case(w);
    Some(match word.len() {
        2 if eq(b"is") => Keyword::Is,
        4 if eq(b"true") => Keyword::Literal(Literal::Boolean(true)),
        4 if eq(b"isnt") => Keyword::Isnt,
        5 if eq(b"false") => Keyword::Literal(Literal::Boolean(false)),
        5 if eq(b"error") => Keyword::Literal(Literal::Error),
        9 if eq(b"undefined") => Keyword::Literal(Literal::Undefined),
        _ => return None,
    })
}

enum Keyword {
    Literal(Literal),
    Is,
    Isnt,
}

/// Whether the parser's options leave the scanner free to read: the
/// grammar's work bound is off or generous (a text the scanner reads
/// costs the grammar far fewer steps per byte than this).
fn usable(options: &ParseOptions) -> bool {
    options.work_per_byte == 0 || options.work_per_byte >= DEFAULT_WORK_PER_BYTE / 10
}

impl<'p, 's> Scanner<'p, 's> {
    fn new(parser: &'p Parser, text: &'s str, rules: StringRules, base: usize) -> Option<Self> {
        let options = parser.options();
        if !usable(&options) {
            return None;
        }
        Some(Scanner {
            parser,
            text,
            bytes: text.as_bytes(),
            pos: 0,
            rules,
            base,
            nesting: 0,
            max_nesting: options.max_nesting.min(MAX_NESTING),
            max_depth: options.max_depth,
        })
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn at_end(&self) -> bool {
        self.pos == self.bytes.len()
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        if self.peek() == Some(b) {
            self.pos += 1;
            Some(())
        } else {
            None
        }
    }

    /// Skips whitespace; declines at a comment.
    fn skip_space(&mut self) -> Option<()> {
        while let Some(b) = self.peek() {
            if is_space(b) {
                self.pos += 1;
            } else if b == b'/' && matches!(self.peek_at(1), Some(b'/' | b'*')) {
                return None;
            } else {
                break;
            }
        }
        Some(())
    }

    /// One more level of brackets.
    fn open(&mut self) -> Option<()> {
        self.nesting += 1;
        (self.nesting <= self.max_nesting).then_some(())
    }

    /// The span of bytes `start..end` of the text, in the file.
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.base + start, self.base + end)
    }

    #[inline]
    fn node(&self, kind: ExprKind, span: Span, depth: usize) -> Option<Built> {
        (depth <= self.max_depth).then_some(Built {
            expr: Expr { kind, span },
            depth,
        })
    }

    /// An ad literal `[ ... ]` at the position, and its depth; with a
    /// `builder`, its definitions go there and the ad returned is empty.
    fn ad(&mut self, mut builder: Option<&mut AdBuilder>) -> Option<(AdExpr, usize)> {
        self.eat(b'[')?;
        self.open()?;
        let mut ad = AdExpr::new();
        let mut defined = false;
        let mut depth = 0;
        let mut separators = false;
        loop {
            self.skip_space()?;
            match self.peek() {
                Some(b';') => {
                    separators = true;
                    self.pos += 1;
                }
                Some(b']') => {
                    // `[;]` is refused by the grammar.
                    if separators && !defined {
                        return None;
                    }
                    self.pos += 1;
                    self.nesting -= 1;
                    return Some((ad, depth));
                }
                _ => {
                    // A definition must follow `[` or a `;`.
                    if defined && !separators {
                        return None;
                    }
                    match builder.as_deref_mut() {
                        Some(builder) => {
                            let (name, fold) = self.definition_name(builder.guess())?;
                            let value = self.definition_value()?;
                            depth = depth.max(value.depth);
                            if builder
                                .define(name, fold, true, value.expr)
                                .is_some_and(|r| crate::time::invalid_time_literal(&r).is_some())
                            {
                                return None;
                            }
                        }
                        None => {
                            let name = self.attribute_name()?;
                            let value = self.definition_value()?;
                            depth = depth.max(value.depth);
                            if ad
                                .insert(name, value.expr)
                                .is_some_and(|r| crate::time::invalid_time_literal(&r).is_some())
                            {
                                // The grammar reports it.
                                return None;
                            }
                        }
                    }
                    defined = true;
                    separators = false;
                }
            }
        }
    }

    /// `= expression` after a definition's name.
    fn definition_value(&mut self) -> Option<Built> {
        self.skip_space()?;
        self.eat(b'=')?;
        self.skip_space()?;
        self.expression()
    }

    /// An identifier that is not a reserved word: `[A-Za-z_][A-Za-z0-9_]*`.
    fn word(&mut self) -> Option<(usize, usize)> {
        let start = self.pos;
        if !self.peek().is_some_and(is_ident_start) {
            return None;
        }
        let mut end = start + 1;
        while end < self.bytes.len() && is_ident(self.bytes[end]) {
            end += 1;
        }
        self.pos = end;
        Some((start, end))
    }

    /// An attribute name: a plain identifier (quoted names are declined).
    fn attribute_name(&mut self) -> Option<Name> {
        let (start, end) = self.word()?;
        if keyword(&self.bytes[start..end]).is_some() {
            return None;
        }
        Some(self.parser.intern(&self.text[start..end]))
    }

    /// The name of a definition, with the number of its lower-cased form;
    /// `guess` (a plain identifier) is tried first.
    fn definition_name(&mut self, guess: Option<&(Name, u32)>) -> Option<(Name, u32)> {
        if let Some((name, fold)) = guess {
            let spelling = name.as_bytes();
            let rest = &self.bytes[self.pos..];
            if rest.starts_with(spelling) && !rest.get(spelling.len()).is_some_and(|&b| is_ident(b))
            {
                self.pos += spelling.len();
                return Some((name.clone(), *fold));
            }
        }
        let (start, end) = self.word()?;
        if keyword(&self.bytes[start..end]).is_some() {
            return None;
        }
        Some(self.parser.intern_folded(&self.text.as_bytes()[start..end]))
    }

    fn expression(&mut self) -> Option<Built> {
        self.binary(0)
    }

    /// Precedence climbing over left-associative operators, which folds
    /// as the grammar's Pratt parser does.
    fn binary(&mut self, min_precedence: u8) -> Option<Built> {
        let mut lhs = self.operand()?;
        loop {
            let before = self.pos;
            self.skip_space()?;
            let Some((op, len)) = self.infix()? else {
                self.pos = before;
                return Some(lhs);
            };
            let precedence = op.precedence();
            if precedence < min_precedence {
                self.pos = before;
                return Some(lhs);
            }
            self.pos += len;
            self.skip_space()?;
            let rhs = self.binary(precedence + 1)?;
            let span = lhs.expr.span.join(rhs.expr.span);
            let depth = 1 + lhs.depth.max(rhs.depth);
            let kind = ExprKind::Binary {
                op,
                lhs: Box::new(lhs.expr),
                rhs: Box::new(rhs.expr),
            };
            lhs = self.node(kind, span, depth)?;
        }
    }

    /// The infix operator at the position and its length; `Some(None)` at
    /// what ends an expression (`)`, `]`, `}`, `,`, `;`, the end), `None`
    /// (decline) at anything else.
    fn infix(&self) -> Option<Option<(BinaryOp, usize)>> {
        let Some(b) = self.peek() else {
            return Some(None);
        };
        let next = self.peek_at(1);
        let op = match b {
            b')' | b']' | b'}' | b',' | b';' => return Some(None),
            b'|' if next == Some(b'|') => (BinaryOp::Or, 2),
            b'|' => (BinaryOp::BitOr, 1),
            b'&' if next == Some(b'&') => (BinaryOp::And, 2),
            b'&' => (BinaryOp::BitAnd, 1),
            b'^' => (BinaryOp::BitXor, 1),
            b'=' => match (next, self.peek_at(2)) {
                (Some(b'?'), Some(b'=')) => (BinaryOp::Is, 3),
                (Some(b'!'), Some(b'=')) => (BinaryOp::Isnt, 3),
                (Some(b'='), _) => (BinaryOp::Equal, 2),
                _ => return None,
            },
            b'!' if next == Some(b'=') => (BinaryOp::NotEqual, 2),
            b'>' => match (next, self.peek_at(2)) {
                (Some(b'>'), Some(b'>')) => (BinaryOp::ShiftRightUnsigned, 3),
                (Some(b'>'), _) => (BinaryOp::ShiftRight, 2),
                (Some(b'='), _) => (BinaryOp::GreaterEqual, 2),
                _ => (BinaryOp::Greater, 1),
            },
            b'<' => match next {
                Some(b'<') => (BinaryOp::ShiftLeft, 2),
                Some(b'=') => (BinaryOp::LessEqual, 2),
                _ => (BinaryOp::Less, 1),
            },
            b'+' => (BinaryOp::Add, 1),
            b'-' => (BinaryOp::Subtract, 1),
            b'*' => (BinaryOp::Multiply, 1),
            // A comment was declined by skip_space.
            b'/' => (BinaryOp::Divide, 1),
            b'%' => (BinaryOp::Modulo, 1),
            b'i' | b'I' => {
                let mut end = self.pos;
                while end < self.bytes.len() && is_ident(self.bytes[end]) {
                    end += 1;
                }
                match keyword(&self.bytes[self.pos..end])? {
                    Keyword::Is => (BinaryOp::Is, 2),
                    Keyword::Isnt => (BinaryOp::Isnt, 4),
                    Keyword::Literal(_) => return None,
                }
            }
            _ => return None,
        };
        Some(Some(op))
    }

    /// Prefix operators, then a postfix expression.
    fn operand(&mut self) -> Option<Built> {
        let mut prefixes: Vec<(UnaryOp, usize)> = Vec::new();
        loop {
            let op = match self.peek()? {
                // `-` against a digit is part of a number.
                b'-' if self.peek_at(1).is_some_and(|b| b.is_ascii_digit()) => break,
                // `-.5` is a number, `-..5` a minus: left to the grammar.
                b'-' if self.peek_at(1) == Some(b'.') => return None,
                b'-' => UnaryOp::Minus,
                b'+' => UnaryOp::Plus,
                b'!' => UnaryOp::Not,
                b'~' => UnaryOp::BitNot,
                _ => break,
            };
            if prefixes.len() >= self.max_depth {
                return None;
            }
            prefixes.push((op, self.pos));
            self.pos += 1;
            self.skip_space()?;
        }
        let mut built = self.postfix()?;
        for (op, at) in prefixes.into_iter().rev() {
            let span = self.span(at, at + 1).join(built.expr.span);
            let depth = built.depth + 1;
            let kind = ExprKind::Unary {
                op,
                operand: Box::new(built.expr),
            };
            built = self.node(kind, span, depth)?;
        }
        Some(built)
    }

    /// A primary and the selections after it.
    fn postfix(&mut self) -> Option<Built> {
        let mut built = self.primary()?;
        loop {
            let before = self.pos;
            self.skip_space()?;
            match self.peek() {
                Some(b'.') => {
                    // `..` is a selection too, and `..5` is not: left to the grammar.
                    if self.peek_at(1) == Some(b'.') {
                        return None;
                    }
                    let dot = self.pos;
                    self.pos += 1;
                    self.skip_space()?;
                    let name = self.attribute_name()?;
                    let span = built.expr.span.join(self.span(dot, self.pos));
                    let depth = built.depth;
                    let kind = ExprKind::Select {
                        base: Box::new(built.expr),
                        name,
                    };
                    built = self.node(kind, span, depth)?;
                }
                // Subscripts, `?:` and `? :`.
                Some(b'[' | b'?') => return None,
                _ => {
                    self.pos = before;
                    return Some(built);
                }
            }
        }
    }

    fn primary(&mut self) -> Option<Built> {
        let start = self.pos;
        match self.peek()? {
            b'-' | b'0'..=b'9' => {
                let literal = self.number()?;
                self.node(ExprKind::Literal(literal), self.span(start, self.pos), 1)
            }
            b'"' => {
                let literal = self.string()?;
                self.node(ExprKind::Literal(literal), self.span(start, self.pos), 1)
            }
            b'(' => {
                self.pos += 1;
                self.open()?;
                self.skip_space()?;
                let inner = self.expression()?;
                self.skip_space()?;
                self.eat(b')')?;
                self.nesting -= 1;
                let depth = inner.depth + 1;
                let span = self.span(start, self.pos);
                self.node(ExprKind::Paren(Box::new(inner.expr)), span, depth)
            }
            b'{' => {
                self.pos += 1;
                self.open()?;
                let (mut items, depth) = self.items(b'}')?;
                // A long list keeps no growth slack (up to half its size).
                items.shrink_to_fit();
                self.nesting -= 1;
                self.node(ExprKind::List(items), self.span(start, self.pos), depth + 1)
            }
            b'[' => {
                let (ad, depth) = self.ad(None)?;
                let span = self.span(start, self.pos);
                self.node(ExprKind::Ad(Box::new(ad)), span, depth + 1)
            }
            b => {
                if !is_ident_start(b) {
                    return None;
                }
                let (word_start, word_end) = self.word()?;
                let word = &self.bytes[word_start..word_end];
                match keyword(word) {
                    Some(Keyword::Literal(literal)) => {
                        return self.node(
                            ExprKind::Literal(literal),
                            self.span(start, self.pos),
                            1,
                        );
                    }
                    Some(_) => return None,
                    None => {}
                }
                let name = self.parser.intern(&self.text[word_start..word_end]);
                self.skip_space()?;
                if self.peek() != Some(b'(') {
                    self.pos = word_end;
                    return self.node(ExprKind::Attribute(name), self.span(start, word_end), 1);
                }
                self.pos += 1;
                self.open()?;
                let (args, depth) = self.items(b')')?;
                self.nesting -= 1;
                let span = self.span(start, self.pos);
                self.node(ExprKind::Call { name, args }, span, depth + 1)
            }
        }
    }

    /// Comma-separated expressions up to `close`, after the opening
    /// bracket; the position ends after `close`. Returns the items and
    /// their greatest depth.
    fn items(&mut self, close: u8) -> Option<(Vec<Expr>, usize)> {
        let mut items = Vec::new();
        let mut depth = 0;
        self.skip_space()?;
        if self.peek() == Some(close) {
            self.pos += 1;
            return Some((items, depth));
        }
        loop {
            let item = self.expression()?;
            depth = depth.max(item.depth);
            items.push(item.expr);
            self.skip_space()?;
            match self.peek()? {
                b',' => {
                    self.pos += 1;
                    self.skip_space()?;
                }
                b if b == close => {
                    self.pos += 1;
                    return Some((items, depth));
                }
                _ => return None,
            }
        }
    }

    /// A decimal number, optionally negative: `8`, `-1`, `0.05`, `1.5e10`,
    /// `1e-3`. Leading zeros, suffixes, a point without digits after it
    /// and integers out of range are declined.
    fn number(&mut self) -> Option<Literal> {
        let start = self.pos;
        let bytes = self.bytes;
        let mut i = start;
        let negative = bytes[i] == b'-';
        if negative {
            i += 1;
        }
        let digits = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == digits || (bytes[digits] == b'0' && i - digits > 1) {
            return None;
        }
        let mut real = false;
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            let fraction = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if i == fraction {
                return None;
            }
            real = true;
        }
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let exponent = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if i == exponent {
                return None;
            }
            real = true;
        }
        // A scale suffix, hex digits, or letters run into the number.
        if bytes.get(i).is_some_and(|&b| is_ident(b)) {
            return None;
        }
        self.pos = i;
        if real {
            let value: f64 = self.text[digits..i].parse().ok()?;
            Some(Literal::Real(if negative { -value } else { value }))
        } else if i - start <= 18 {
            // Fits in an i64 whatever the digits.
            let mut value: i64 = 0;
            for &d in &bytes[digits..i] {
                value = value * 10 + i64::from(d - b'0');
            }
            Some(Literal::Integer(if negative { -value } else { value }))
        } else {
            Some(Literal::Integer(self.text[start..i].parse().ok()?))
        }
    }

    /// A string literal; adjacent strings (`"a" "b"`) are declined.
    fn string(&mut self) -> Option<Literal> {
        let open = self.pos;
        let bytes = self.bytes;
        let mut i = open + 1;
        let mut escapes = false;
        if self.rules == StringRules::Old {
            // HTCondor's old-ClassAd lexer: the next `"` not after a
            // backslash ends the string, and one after a backslash too at
            // the end of the text (see `mask_old_strings`).
            loop {
                i += memchr::memchr(b'"', &bytes[i..])?;
                if i > open + 1 && bytes[i - 1] == b'\\' && i + 1 != bytes.len() {
                    i += 1;
                    continue;
                }
                break;
            }
            escapes = memchr::memchr(b'\\', &bytes[open + 1..i]).is_some();
        }
        if self.rules == StringRules::New {
            loop {
                i += memchr::memchr2(b'"', b'\\', &bytes[i..])?;
                if bytes[i] == b'"' {
                    break;
                }
                escapes = true;
                i += 2;
                if i > bytes.len() {
                    return None;
                }
            }
        }
        let body = &self.text[open + 1..i];
        self.pos = i + 1;
        // Only whitespace may stand between adjacent strings.
        let mut after = self.pos;
        while after < bytes.len() && is_space(bytes[after]) {
            after += 1;
        }
        if bytes.get(after) == Some(&b'"') {
            return None;
        }
        let decoded = if escapes {
            let mut out = Vec::with_capacity(body.len());
            match self.rules {
                StringRules::New => decode_new_escapes(body, &mut out).ok()?,
                StringRules::Old => decode_old_escapes(body, &mut out).ok()?,
            }
            out.into_boxed_slice()
        } else {
            // A NUL is left to the grammar, which says where it is.
            if memchr::memchr(0, body.as_bytes()).is_some() {
                return None;
            }
            Box::from(body.as_bytes())
        };
        Some(Literal::String(decoded))
    }
}
