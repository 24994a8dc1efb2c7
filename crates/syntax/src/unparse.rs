//! Unparsing: trees back to text, in new syntax (one line or pretty) and
//! old syntax, following HTCondor's `ClassAdUnParser` conventions as the
//! oracle prints them:
//!
//! * binary operators with a space each side (`a + b`), `=?=` as `is`;
//!   prefix operators with a space before (` -x`), as HTCondor writes them;
//! * function arguments and list items joined by `,` without space;
//!   lists as `{ 1,2 }`, ads as `[ a = 1; b = 2 ]`, empty ones `{  }`, `[  ]`;
//! * reals in new syntax as C's `%.15E` (`1.500000000000000E+00`), zero as
//!   `0.0` / `-0.0`, non-finite as `real("INF")`, `real("-INF")`,
//!   `real("NaN")`; in old syntax as `%.16G` with `.0` added to integral
//!   values (`1.0`, `1E+100`).
//!
//! Two deliberate differences, so that `parse(unparse(x)) == x` holds for
//! every tree (docs/differences.md): a real that `%.15E` (or `%.16G`) does
//! not read back exactly is written with 17 significant digits; a selected
//! name that is not an identifier is quoted (`a.'b c'`), where HTCondor
//! writes `a.b c`.

use crate::ast::{AdExpr, Expr, ExprKind, Literal, Name, UnaryOp};
use std::fmt::Write;

/// Which syntax to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// New ClassAd syntax.
    New,
    /// Old ClassAd syntax: raw strings, `=?=` and `=!=`, `%.16G` reals.
    Old,
}

/// The canonical one-line new-syntax text of `expr`.
pub fn unparse(expr: &Expr) -> String {
    let mut out = String::new();
    Unparser::new(Syntax::New, false).expr(expr, &mut out);
    out
}

/// The one-line old-syntax text of `expr` (the right-hand side of a
/// `Name = expr` line).
pub fn unparse_old(expr: &Expr) -> String {
    let mut out = String::new();
    Unparser::new(Syntax::Old, false).expr(expr, &mut out);
    out
}

/// New-syntax text with nested lists and ads laid out over several lines,
/// as HTCondor's pretty unparser does.
pub fn unparse_pretty(expr: &Expr) -> String {
    let mut out = String::new();
    Unparser::new(Syntax::New, true).expr(expr, &mut out);
    out
}

/// HTCondor's own bytes for `expr`, for text that becomes a value (strings
/// made from lists and ads, `unparse()`): reals always `%.15E`, minus next
/// to its operand, `?:` together, selected names unquoted, and an ad's
/// attributes in HTCondor's order (shorter names first, then ignoring
/// case), where the first spelling of a repeated name is kept. This text
/// need not read back as the same tree; [`unparse`]'s does.
pub fn unparse_htcondor(expr: &Expr) -> String {
    let mut out = String::new();
    Unparser::htcondor(false).expr(expr, &mut out);
    out
}

/// [`unparse_htcondor`] laid out over several lines, as `unparse()` gives it.
pub fn unparse_htcondor_pretty(expr: &Expr) -> String {
    let mut out = String::new();
    Unparser::htcondor(true).expr(expr, &mut out);
    out
}

/// A real as HTCondor writes it in new syntax, always `%.15E` (zero,
/// infinities and NaN as [`format_real_new`]).
pub fn format_real_htcondor(x: f64) -> String {
    non_finite_or_zero(x).unwrap_or_else(|| format_c_exponent(x, 15))
}

/// The attributes of an ad in HTCondor's order: by the length of the name,
/// then ignoring ASCII case; a name repeated (ignoring case) keeps its
/// first spelling and its last expression.
pub fn htcondor_order<'a, T>(
    attributes: impl IntoIterator<Item = (&'a [u8], T)>,
) -> Vec<(&'a [u8], T)> {
    let mut out: Vec<(&'a [u8], T)> = Vec::new();
    for (name, value) in attributes {
        match out.iter_mut().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
            Some(slot) => slot.1 = value,
            None => out.push((name, value)),
        }
    }
    out.sort_by(|(a, _), (b, _)| {
        a.len().cmp(&b.len()).then_with(|| {
            a.iter()
                .map(|c| c.to_ascii_lowercase())
                .cmp(b.iter().map(|c| c.to_ascii_lowercase()))
        })
    });
    out
}

/// An ad in one-line new syntax: `[ a = 1; b = 2 ]`.
pub fn unparse_ad(ad: &AdExpr) -> String {
    let mut out = String::new();
    Unparser::new(Syntax::New, false).ad(ad, &mut out);
    out
}

/// An ad in pretty new syntax, one attribute a line:
///
/// ```text
/// [
///     a = 1;
///     b = 2
/// ]
/// ```
pub fn unparse_ad_pretty(ad: &AdExpr) -> String {
    let mut out = String::from("[\n");
    let unparser = Unparser::new(Syntax::New, false);
    for (i, (name, value)) in ad.attributes.iter().enumerate() {
        out.push_str("    ");
        write_name(name, &mut out);
        out.push_str(" = ");
        unparser.expr(value, &mut out);
        out.push_str(if i + 1 < ad.attributes.len() {
            ";\n"
        } else {
            "\n"
        });
    }
    out.push(']');
    out
}

/// An ad in old syntax: one `Name = expr` line each, as `condor_q -long`;
/// a name that is not an identifier is quoted (`'my attr' = 1`), as
/// HTCondor's `printOld` does.
pub fn unparse_ad_old(ad: &AdExpr) -> String {
    let mut out = String::new();
    let unparser = Unparser::new(Syntax::Old, false);
    for (name, value) in &ad.attributes {
        write_name(name, &mut out);
        out.push_str(" = ");
        unparser.expr(value, &mut out);
        out.push('\n');
    }
    out
}

/// Writes a name, quoted with `'` when it is not a plain identifier.
pub fn write_name(name: &Name, out: &mut String) {
    if name.is_plain_identifier() {
        out.extend(name.as_bytes().iter().map(|&b| char::from(b)));
    } else {
        out.push('\'');
        write_escaped(name.as_bytes(), b'\'', out);
        out.push('\'');
    }
}

/// Writes a name after `.`: as [`write_name`], except that `parent` stays
/// bare (`x.parent`), as HTCondor writes it and reads it back.
fn write_selected_name(name: &Name, out: &mut String) {
    if name.eq_ignore_case("parent") {
        out.extend(name.as_bytes().iter().map(|&b| char::from(b)));
    } else {
        write_name(name, out);
    }
}

/// The first of the characters that stand for single bytes in HTCondor's
/// text ([`write_raw_name`]): U+10FF80 stands for the byte 0x80, U+10FFFF
/// for 0xFF (the last 128 code points, private use).
const RAW_BYTE_BASE: u32 = 0x10_FF00;

/// Writes a name as HTCondor writes a selected name, raw, without quotes
/// or escapes (`a.'\377'` is `a.` and the byte 0xFF). Text is UTF-8 but
/// HTCondor's is bytes, so a byte of the name that is not part of UTF-8,
/// and every byte of a character in U+10FF80..=U+10FFFF, is written as
/// the character U+10FF00 + byte, which [`htcondor_text_bytes`] turns back
/// into the byte. Every other character of HTCondor's text is ASCII or
/// comes from a raw name, so the mapping is exact.
fn write_raw_name(name: &Name, out: &mut String) {
    let mut rest = name.as_bytes();
    while !rest.is_empty() {
        let (valid, bad) = match std::str::from_utf8(rest) {
            Ok(text) => (text, 0),
            Err(e) => {
                let valid = e.valid_up_to();
                let bad = e.error_len().unwrap_or(rest.len() - valid);
                // Safe split: `valid_up_to` bytes are UTF-8.
                (std::str::from_utf8(&rest[..valid]).unwrap_or(""), bad)
            }
        };
        for c in valid.chars() {
            if u32::from(c) >= RAW_BYTE_BASE + 0x80 {
                let mut buf = [0u8; 4];
                for &b in c.encode_utf8(&mut buf).as_bytes() {
                    out.push(raw_byte_char(b));
                }
            } else {
                out.push(c);
            }
        }
        let end = valid.len() + bad;
        for &b in &rest[valid.len()..end] {
            out.push(raw_byte_char(b));
        }
        rest = &rest[end..];
    }
}

/// The character standing for the byte `b` (0x80 and above).
fn raw_byte_char(b: u8) -> char {
    char::from_u32(RAW_BYTE_BASE + u32::from(b)).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// HTCondor's bytes of a text [`unparse_htcondor`] made: the characters
/// `write_raw_name` wrote for single bytes become those bytes again.
pub fn htcondor_text_bytes(text: String) -> Vec<u8> {
    // U+10FF80..=U+10FFFF are F4 8F BE xx and F4 8F BF xx in UTF-8.
    if !text.as_bytes().contains(&0xF4) {
        return text.into_bytes();
    }
    let mut out = Vec::with_capacity(text.len());
    let mut buf = [0u8; 4];
    for c in text.chars() {
        match u32::from(c).checked_sub(RAW_BYTE_BASE) {
            Some(b @ 0x80..=0xFF) => out.push(b as u8),
            _ => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
        }
    }
    out
}

/// Writes a new-syntax string literal, quotes included.
pub fn write_string_literal(bytes: &[u8], out: &mut String) {
    out.push('"');
    write_escaped(bytes, b'"', out);
    out.push('"');
}

/// Escapes as HTCondor's unparser does: the quote and backslash, C escapes
/// for control characters, octal `\ooo` for every other byte outside
/// printable ASCII (so `é` is `\303\251`).
fn write_escaped(bytes: &[u8], quote: u8, out: &mut String) {
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x0b => out.push_str("\\v"),
            0x0c => out.push_str("\\f"),
            b if b == quote => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{:03o}", b);
            }
        }
    }
}

/// Formats like C's `%.{precision}E`: `1.500000000000000E+00`.
pub fn format_c_exponent(x: f64, precision: usize) -> String {
    let s = format!("{:.*e}", precision, x);
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}E{sign}{:02}", exp.unsigned_abs())
}

/// Formats like C's `%.{precision}G`: the shorter of fixed and exponent
/// notation, trailing zeros removed.
pub fn format_c_general(x: f64, precision: usize) -> String {
    let precision = precision.max(1);
    let e_form = format_c_exponent(x, precision - 1);
    let exp: i32 = e_form
        .rsplit_once('E')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    if exp < -4 || exp >= precision as i32 {
        let (mantissa, exp) = e_form.split_once('E').unwrap_or((&e_form, "+00"));
        format!("{}E{}", trim_fraction(mantissa), exp)
    } else {
        let decimals = (precision as i32 - 1 - exp).max(0) as usize;
        trim_fraction(&format!("{:.*}", decimals, x)).to_string()
    }
}

fn trim_fraction(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

fn reads_back(text: &str, x: f64) -> bool {
    text.parse::<f64>()
        .is_ok_and(|y| y.to_bits() == x.to_bits())
}

/// A real in new syntax: HTCondor's `%.15E`, or 17 digits where that
/// would not read back to the same double.
pub fn format_real_new(x: f64) -> String {
    if let Some(special) = non_finite_or_zero(x) {
        return special;
    }
    let text = format_c_exponent(x, 15);
    if reads_back(&text, x) {
        text
    } else {
        format_c_exponent(x, 16)
    }
}

/// A real in old syntax (and JSON): `%.16G` with `.0` added to integral
/// values, or 17 digits where that would not read back.
pub fn format_real_old(x: f64) -> String {
    if let Some(special) = non_finite_or_zero(x) {
        return special;
    }
    let mut text = format_c_general(x, 16);
    if !reads_back(&text, x) {
        text = format_c_general(x, 17);
    }
    if !text.contains(['.', 'E', 'n', 'N']) {
        text.push_str(".0");
    }
    text
}

fn non_finite_or_zero(x: f64) -> Option<String> {
    Some(
        if x.is_nan() {
            "real(\"NaN\")"
        } else if x == f64::INFINITY {
            "real(\"INF\")"
        } else if x == f64::NEG_INFINITY {
            "real(\"-INF\")"
        } else if x == 0.0 {
            if x.is_sign_negative() { "-0.0" } else { "0.0" }
        } else {
            return None;
        }
        .to_string(),
    )
}

struct Unparser {
    syntax: Syntax,
    pretty: bool,
    /// HTCondor's bytes rather than text that reads back ([`unparse_htcondor`]).
    htcondor: bool,
}

impl Unparser {
    fn new(syntax: Syntax, pretty: bool) -> Unparser {
        Unparser {
            syntax,
            pretty,
            htcondor: false,
        }
    }

    fn htcondor(pretty: bool) -> Unparser {
        Unparser {
            syntax: Syntax::New,
            pretty,
            htcondor: true,
        }
    }

    fn literal(&self, lit: &Literal, out: &mut String) {
        match lit {
            Literal::Integer(i) => {
                let _ = write!(out, "{i}");
            }
            Literal::Real(x) => out.push_str(&match self.syntax {
                Syntax::New if self.htcondor => format_real_htcondor(*x),
                Syntax::New => format_real_new(*x),
                Syntax::Old => format_real_old(*x),
            }),
            Literal::String(bytes) => match self.syntax {
                Syntax::New => write_string_literal(bytes, out),
                Syntax::Old => {
                    out.push('"');
                    write_old_string(bytes, out);
                    out.push('"');
                }
            },
            Literal::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
            Literal::Undefined => out.push_str("undefined"),
            Literal::Error => out.push_str("error"),
        }
    }

    fn expr(&self, expr: &Expr, out: &mut String) {
        self.expr_at(expr, 0, out);
    }

    fn expr_at(&self, expr: &Expr, indent: usize, out: &mut String) {
        match &expr.kind {
            ExprKind::Literal(lit) => self.literal(lit, out),
            ExprKind::Attribute(name) => write_name(name, out),
            ExprKind::RootAttribute(name) => {
                out.push('.');
                write_name(name, out);
            }
            ExprKind::Select { .. } => {
                let (base, names) = expr.selection_chain().expect("a selection");
                self.expr_at(base, indent, out);
                // `1.a` would read as a bad number (HTCondor's lexer wants a
                // digit after the point); `1 .a` reads back as written.
                if matches!(base.kind, ExprKind::Literal(Literal::Integer(_))) {
                    out.push(' ');
                }
                for name in names {
                    out.push('.');
                    if self.htcondor {
                        write_raw_name(name, out);
                    } else {
                        write_selected_name(name, out);
                    }
                }
            }
            ExprKind::Subscript { base, index } => {
                self.expr_at(base, indent, out);
                out.push('[');
                self.expr_at(index, indent, out);
                out.push(']');
            }
            ExprKind::Call { name, args } => {
                // HTCondor's parser makes a constant of a time literal and
                // writes the constant back in its own form.
                if let [arg] = args.as_slice()
                    && let ExprKind::Literal(Literal::String(text)) = &arg.kind
                    && let Some(function) = name.to_str()
                    && let Some(canonical) = crate::time::canonical_time_call(function, text)
                    // Printed (not HTCondor's text of a value), a form that
                    // would not read back stays as written.
                    && (self.htcondor || crate::time::canonical_time_reads_back(function, text))
                {
                    out.push_str(&canonical);
                    return;
                }
                // A function name that is no identifier (`'a b'(1)`) came
                // quoted; HTCondor writes it bare, the round-trip form quoted.
                if self.htcondor {
                    write_raw_name(name, out);
                } else {
                    // `parent(1)` reads back as a call, `true(1)` does not.
                    write_selected_name(name, out);
                }
                out.push('(');
                for (i, arg) in args.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.expr_at(arg, indent, out);
                }
                out.push(')');
            }
            ExprKind::Unary { op, operand } => {
                out.push(' ');
                out.push_str(op.symbol());
                // `- 3` is minus applied to 3 (and `- 3.a` to `3.a`), but
                // `-3` reads as the literal -3: keep the space HTCondor drops
                // (docs/differences.md).
                let start = out.len();
                self.expr_at(operand, indent, out);
                if *op == UnaryOp::Minus
                    && !self.htcondor
                    && out[start..].starts_with(|c: char| c.is_ascii_digit())
                {
                    out.insert(start, ' ');
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                self.expr_at(lhs, indent, out);
                out.push(' ');
                out.push_str(match self.syntax {
                    Syntax::New => op.symbol(),
                    Syntax::Old => op.old_symbol(),
                });
                out.push(' ');
                self.expr_at(rhs, indent, out);
            }
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => {
                self.expr_at(cond, indent, out);
                out.push_str(" ? ");
                self.expr_at(then, indent, out);
                out.push_str(" : ");
                self.expr_at(otherwise, indent, out);
            }
            ExprKind::Elvis { value, fallback } => {
                // `?:` binds as a postfix operator (with or without white
                // space between `?` and `:`, as HTCondor lexes it), so an
                // operand that is not a postfix expression is bracketed to
                // read back as the same tree; HTCondor writes it bare.
                let bracket = !self.htcondor && !is_postfix_elvis(value, fallback);
                let value_bracket = bracket
                    && (matches!(value.kind, ExprKind::Elvis { .. })
                        || !is_postfix_expression(value));
                let fallback_bracket = bracket && !is_postfix_expression(fallback);
                self.bracketed(value, value_bracket, indent, out);
                out.push_str(" ?: ");
                self.bracketed(fallback, fallback_bracket, indent, out);
            }
            ExprKind::Paren(inner) => {
                out.push('(');
                self.expr_at(inner, indent, out);
                out.push(')');
            }
            ExprKind::List(items) => self.list(items, indent, out),
            ExprKind::Ad(ad) => self.ad_at(ad, indent, out),
        }
    }

    fn bracketed(&self, expr: &Expr, bracket: bool, indent: usize, out: &mut String) {
        if bracket {
            out.push('(');
        }
        self.expr_at(expr, indent, out);
        if bracket {
            out.push(')');
        }
    }

    fn list(&self, items: &[Expr], indent: usize, out: &mut String) {
        if !self.pretty {
            out.push_str("{ ");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                self.expr_at(item, indent, out);
            }
            out.push_str(" }");
            return;
        }
        // HTCondor's pretty form: a newline, the brace indented by 3 more
        // than the enclosing level, items by 6, one a line.
        let brace = indent + 3;
        let _ = write!(out, "\n{:brace$}{{", "");
        for (i, item) in items.iter().enumerate() {
            let _ = write!(out, "\n{:w$}", "", w = brace + 3);
            self.expr_at(item, brace + 3, out);
            if i + 1 < items.len() {
                out.push(',');
            }
        }
        let _ = write!(out, "\n{:brace$}}}", "");
    }

    fn ad(&self, ad: &AdExpr, out: &mut String) {
        self.ad_at(ad, 0, out);
    }

    fn ad_at(&self, ad: &AdExpr, indent: usize, out: &mut String) {
        if self.htcondor {
            let ordered = htcondor_order(
                ad.attributes
                    .iter()
                    .map(|(name, value)| (name.as_bytes(), value)),
            );
            let ad: AdExpr = ordered
                .into_iter()
                .map(|(name, value)| (Name::from_bytes(name), value.clone()))
                .collect();
            return self.ad_in_order(&ad, indent, out);
        }
        self.ad_in_order(ad, indent, out)
    }

    fn ad_in_order(&self, ad: &AdExpr, indent: usize, out: &mut String) {
        if !self.pretty {
            out.push_str("[ ");
            for (i, (name, value)) in ad.attributes.iter().enumerate() {
                if i > 0 {
                    out.push_str("; ");
                }
                write_name(name, out);
                out.push_str(" = ");
                self.expr_at(value, indent, out);
            }
            out.push_str(" ]");
            return;
        }
        // HTCondor's pretty form: the bracket indented by 4 more than the
        // enclosing level, definitions by 8, each ending `; ` but the last.
        let bracket = indent + 4;
        let _ = write!(out, "\n{:bracket$}[", "");
        for (i, (name, value)) in ad.attributes.iter().enumerate() {
            let _ = write!(out, "\n{:w$}", "", w = bracket + 4);
            write_name(name, out);
            out.push_str(" = ");
            self.expr_at(value, bracket + 4, out);
            if i + 1 < ad.attributes.len() {
                out.push_str("; ");
            }
        }
        let _ = write!(out, "\n{:bracket$}]", "");
    }
}

/// Whether `value ?: fallback` reads back as the same tree when written
/// with the `?:` token: both sides are postfix expressions, and the value is
/// not itself an elvis (the token associates to the right).
fn is_postfix_elvis(value: &Expr, fallback: &Expr) -> bool {
    !matches!(value.kind, ExprKind::Elvis { .. })
        && is_postfix_expression(value)
        && is_postfix_expression(fallback)
}

/// Whether an expression is written as a postfix expression: a primary
/// followed by selections, subscripts and `?:` parts.
fn is_postfix_expression(mut expr: &Expr) -> bool {
    loop {
        match &expr.kind {
            ExprKind::Literal(_)
            | ExprKind::Attribute(_)
            | ExprKind::RootAttribute(_)
            | ExprKind::Call { .. }
            | ExprKind::Paren(_)
            | ExprKind::List(_)
            | ExprKind::Ad(_) => return true,
            ExprKind::Select { base, .. } | ExprKind::Subscript { base, .. } => expr = base,
            ExprKind::Elvis { value, fallback } => return is_postfix_elvis(value, fallback),
            _ => return false,
        }
    }
}

/// Old-syntax strings are written raw but for `"`, which becomes `\"`; a
/// byte that is not UTF-8 is written as U+FFFD, since old syntax has no
/// escape for it.
fn write_old_string(bytes: &[u8], out: &mut String) {
    let text = String::from_utf8_lossy(bytes);
    for c in text.chars() {
        if c == '"' {
            out.push_str("\\\"");
        } else {
            out.push(c);
        }
    }
}
