//! HTCondor's JSON form of ads, both directions.
//!
//! The writer follows `ClassAdJsonUnParser` (what `printJson()` and
//! `condor_q -long:json` print), checked against the oracle:
//!
//! * integers as JSON numbers; reals in the old-syntax format (`%.16G`,
//!   `.0` added to integral values: `2.5`, `1.0`, `1E+100`, `-0.0`);
//! * strings with `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other control
//!   characters as `\u001B` (upper-case hex); `/`, DEL and non-ASCII raw;
//! * `true`, `false`; `null` for UNDEFINED;
//! * lists as arrays, nested ad literals as objects;
//! * a relative time's literal (`relTime("01:01")`) as the real it
//!   evaluates to (`61.0`): HTCondor's writer takes a literal's value;
//! * everything else, ERROR and non-finite reals included, as the string
//!   `"\/Expr(<one-line new-syntax unparse>)\/"`.
//!
//! The pretty form indents by 2 as `printJson()` does (an empty list is
//! `[` and `]` on two lines); the compact form is HTCondor's one-line form
//! (`{"a": 1,"b": [1,2]}`).
//!
//! One deliberate difference: a string that is not UTF-8 (octal escapes
//! can make one) is written as an `\/Expr(...)\/` string literal in new
//! syntax, with octal escapes, where HTCondor writes the raw bytes and so
//! invalid JSON. It reads back to the same bytes.
//!
//! The reader accepts what HTCondor's `ClassAdJsonParser` accepts, plus a
//! top-level array of ads (the `condor_q -json` form): one object, a
//! sequence of objects, or an array of objects. As in HTCondor, a string is
//! an expression only when it is written `"\/Expr(...)\/"` with escaped
//! slashes (`"/Expr(x)/"` is a plain string), `Expr` is matched ignoring
//! case, extra commas between members are allowed, `true`, `false` and
//! `null` are read ignoring case, and an unknown escape stands for the
//! escaped character. `\uXXXX` escapes are decoded to UTF-8 properly
//! (surrogate pairs included), where HTCondor's decoder garbles them.

use crate::ast::{AdExpr, Expr, ExprKind, Literal, Span};
use crate::diag::{ParseError, describe_found};
use crate::parser::Parser;
use crate::time::rel_time_literal_seconds;
use crate::unparse::{format_real_old, unparse};
use std::fmt::Write as _;

// ---------------------------------------------------------------------------
// Writer
// ---------------------------------------------------------------------------

/// An ad as `printJson()` writes it: pretty, 2-space indent, no final newline.
pub fn ad_to_json(ad: &AdExpr) -> String {
    let mut out = String::new();
    write_ad_json(ad, true, &mut out);
    out
}

/// An ad in HTCondor's one-line JSON form: `{"a": 1,"b": "x"}`.
pub fn ad_to_json_compact(ad: &AdExpr) -> String {
    let mut out = String::new();
    write_ad_json(ad, false, &mut out);
    out
}

/// Appends an ad in JSON, pretty or one-line, to `out`.
pub fn write_ad_json(ad: &AdExpr, pretty: bool, out: &mut String) {
    JsonWriter { pretty, indent: 0 }.ad(ad, out);
}

/// An expression as a JSON value, pretty or one-line.
pub fn expr_to_json(expr: &Expr, pretty: bool) -> String {
    let mut out = String::new();
    JsonWriter { pretty, indent: 0 }.value(expr, &mut out);
    out
}

/// Appends `text` to `out` with HTCondor's JSON string escapes (no quotes).
pub fn write_json_escaped(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&text[start..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{:04X}", b);
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&text[start..]);
}

/// Appends the quoted-expression string `"\/Expr(text)\/"`.
fn write_quoted_expr(text: &str, out: &mut String) {
    out.push_str("\"\\/Expr(");
    write_json_escaped(text, out);
    out.push_str(")\\/\"");
}

struct JsonWriter {
    pretty: bool,
    indent: usize,
}

impl JsonWriter {
    fn newline(&self, out: &mut String) {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', self.indent));
    }

    fn ad(&mut self, ad: &AdExpr, out: &mut String) {
        out.push('{');
        self.indent += 2;
        for (i, (name, value)) in ad.attributes.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            if self.pretty {
                self.newline(out);
            }
            out.push('"');
            // HTCondor writes a name's bytes as they are, which is not JSON
            // text when they are not UTF-8; each such byte is U+FFFD here
            // (docs/differences.md).
            write_json_escaped(&name.to_string_lossy(), out);
            out.push_str("\": ");
            self.value(value, out);
        }
        self.indent -= 2;
        if self.pretty {
            self.newline(out);
        }
        out.push('}');
    }

    fn list(&mut self, items: &[Expr], out: &mut String) {
        out.push('[');
        self.indent += 2;
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            if self.pretty {
                self.newline(out);
            }
            self.value(item, out);
        }
        self.indent -= 2;
        if self.pretty {
            self.newline(out);
        }
        out.push(']');
    }

    fn value(&mut self, expr: &Expr, out: &mut String) {
        if let ExprKind::Call { name, args } = &expr.kind
            && let [arg] = args.as_slice()
            && let ExprKind::Literal(Literal::String(text)) = &arg.kind
            && let Some(secs) = name
                .to_str()
                .and_then(|name| rel_time_literal_seconds(name, text))
        {
            // HTCondor's writer takes a relative time's literal for the
            // real it evaluates to.
            let real = Expr::new(ExprKind::Literal(Literal::Real(secs)));
            return self.value(&real, out);
        }
        match &expr.kind {
            ExprKind::Literal(lit) => match lit {
                Literal::Integer(i) => {
                    let _ = write!(out, "{i}");
                }
                Literal::Real(x) if x.is_nan() => write_quoted_expr("real(\"NaN\")", out),
                Literal::Real(x) if x.is_infinite() => write_quoted_expr(
                    if *x > 0.0 {
                        "real(\"INF\")"
                    } else {
                        "real(\"-INF\")"
                    },
                    out,
                ),
                Literal::Real(x) => out.push_str(&format_real_old(*x)),
                Literal::String(bytes) => match std::str::from_utf8(bytes) {
                    Ok(text) => {
                        out.push('"');
                        write_json_escaped(text, out);
                        out.push('"');
                    }
                    Err(_) => write_quoted_expr(&unparse(expr), out),
                },
                Literal::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
                Literal::Undefined => out.push_str("null"),
                Literal::Error => write_quoted_expr("error", out),
            },
            ExprKind::List(items) => self.list(items, out),
            ExprKind::Ad(ad) => self.ad(ad, out),
            _ => write_quoted_expr(&unparse(expr), out),
        }
    }
}

// ---------------------------------------------------------------------------
// Reader
// ---------------------------------------------------------------------------

/// Reads a text holding exactly one JSON object as an ad.
pub fn parse_json_ad(parser: &Parser, text: &str) -> Result<AdExpr, ParseError> {
    let mut reader = JsonReader::new(parser, text);
    reader.skip_ws();
    if reader.peek() != Some(b'{') {
        return Err(reader.unexpected("`{` to start an ad"));
    }
    let ad = reader.top_object().map_err(|(e, _)| e)?;
    reader.skip_ws();
    if reader.pos < text.len() {
        return Err(reader.unexpected("end of input"));
    }
    Ok(ad)
}

/// Reads a JSON text as one expression (an object is an ad literal).
pub fn parse_json_value(parser: &Parser, text: &str) -> Result<Expr, ParseError> {
    let mut reader = JsonReader::new(parser, text);
    reader.skip_ws();
    let value = reader.value(0)?;
    if let Some(err) = reader.soft_error.take() {
        return Err(err);
    }
    reader.skip_ws();
    if reader.pos < text.len() {
        return Err(reader.unexpected("end of input"));
    }
    Ok(value)
}

/// The ads of a JSON document, one at a time: see [`JsonAdCursor`].
pub fn parse_json_ads<'p, 't>(parser: &'p Parser, text: &'t str) -> JsonAds<'p, 't> {
    JsonAds {
        parser,
        text,
        cursor: JsonAdCursor::new(),
    }
}

/// Iterator over the ads of a JSON document, each with the byte offset
/// where it starts. See [`JsonAdCursor::next_ad`].
pub struct JsonAds<'p, 't> {
    parser: &'p Parser,
    text: &'t str,
    cursor: JsonAdCursor,
}

impl Iterator for JsonAds<'_, '_> {
    type Item = (usize, Result<AdExpr, ParseError>);

    fn next(&mut self) -> Option<Self::Item> {
        self.cursor.next_ad(self.parser, self.text)
    }
}

/// Where a reading of a JSON document of ads stands. It holds no borrow,
/// so that its owner can also own the text.
#[derive(Debug, Default)]
pub struct JsonAdCursor {
    pos: usize,
    state: CursorState,
    lines: LineCursor,
    /// Reading a part of an array: the element that starts at or after
    /// this offset is not read, and where it starts is kept.
    limit: Option<usize>,
    stopped_at: Option<usize>,
    /// Bytes read by elements that failed and scanned to find where the
    /// next one starts: bounded by the document's length (see
    /// [`RECOVERY_WORK_PER_BYTE`]).
    recovery_work: usize,
    /// Set once `recovery_work` has passed its bound: an element is then
    /// read no further than the next line that starts with `{`, and only
    /// such lines are places to start again.
    lines_only: bool,
    /// Whether some line of the document starts with `{` (worked out at
    /// the first failure): such a document has one ad a line or more, and
    /// only its lines that start with `{` are places to start again.
    line_structured: Option<bool>,
}

/// Bound on the bytes read by failed elements and scanned to recover from
/// them, per byte of the document (plus a mebibyte): past it an element
/// is read no further than the next line that starts with `{`, so that
/// recovering can never make reading quadratic.
const RECOVERY_WORK_PER_BYTE: usize = 4;

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum CursorState {
    #[default]
    Start,
    /// Inside a top-level array; `true` before its first element.
    Array(bool),
    /// A sequence of top-level objects.
    Sequence,
    Done,
}

impl JsonAdCursor {
    /// A cursor at the start of a document.
    pub fn new() -> JsonAdCursor {
        JsonAdCursor::default()
    }

    /// Byte offset the cursor has reached in the document.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// A cursor inside a top-level array, at the start of an element that
    /// starts line `line` (0-based) at offset `pos`, as a cursor from the
    /// start is once it has read the `,` before that element.
    pub(crate) fn in_array(pos: usize, line: usize) -> JsonAdCursor {
        JsonAdCursor {
            pos,
            state: CursorState::Array(true),
            lines: LineCursor {
                offset: pos,
                line,
                line_start: pos,
                column: 0,
            },
            ..JsonAdCursor::default()
        }
    }

    /// Stops before the array element that starts at or after `limit`.
    pub(crate) fn stop_at(&mut self, limit: usize) {
        self.limit = Some(limit);
    }

    /// Where the element it stopped before starts (see [`Self::stop_at`]).
    pub(crate) fn stopped_at(&self) -> Option<usize> {
        self.stopped_at
    }

    /// The next ad of `text`, which must be the same text on every call:
    /// the byte offset where the ad starts, and the ad or why it could not
    /// be read. An error inside an `\/Expr(...)\/` string fails only its
    /// ad; after an error in the JSON itself, reading starts again at the
    /// next element, found by its brackets or by the next line that starts
    /// with `{`. `None` at the end.
    pub fn next_ad(
        &mut self,
        parser: &Parser,
        text: &str,
    ) -> Option<(usize, Result<AdExpr, ParseError>)> {
        // Past the recovery bound an element is read no further than the
        // next line that starts with `{`.
        let window = if self.lines_only {
            next_line_object(text.as_bytes(), self.pos + 1).unwrap_or(text.len())
        } else {
            text.len()
        };
        let mut reader = JsonReader {
            parser,
            whole: text,
            text: &text[..window],
            bytes: &text.as_bytes()[..window],
            pos: self.pos,
            soft_error: None,
            lines: std::mem::take(&mut self.lines),
        };
        let result = self.step(&mut reader);
        self.pos = reader.pos;
        self.lines = reader.lines;
        result
    }

    fn step(&mut self, r: &mut JsonReader<'_, '_>) -> Option<(usize, Result<AdExpr, ParseError>)> {
        loop {
            r.skip_ws();
            let start = r.pos;
            match self.state {
                CursorState::Done => return None,
                CursorState::Start => match r.peek() {
                    None => {
                        self.state = CursorState::Done;
                        return None;
                    }
                    Some(b'[') => {
                        r.pos += 1;
                        self.state = CursorState::Array(true);
                    }
                    Some(b'{') => self.state = CursorState::Sequence,
                    Some(_) => {
                        self.state = CursorState::Done;
                        return Some((start, Err(r.unexpected("`{` or `[` to start the ads"))));
                    }
                },
                CursorState::Sequence => match r.peek() {
                    None => {
                        self.state = CursorState::Done;
                        return None;
                    }
                    Some(b'{') => return Some((start, self.object(r, start))),
                    Some(_) => {
                        let err = r.unexpected("`{` to start an ad");
                        let _ = self.recover(r, start);
                        return Some((start, Err(err)));
                    }
                },
                CursorState::Array(first) => {
                    if r.peek() == Some(b']') {
                        r.pos += 1;
                        r.skip_ws();
                        self.state = CursorState::Done;
                        if r.pos < r.text.len() {
                            return Some((
                                r.pos,
                                Err(r.unexpected("end of input after the array")),
                            ));
                        }
                        return None;
                    }
                    if !first {
                        if r.peek() != Some(b',') {
                            let err = r.unexpected("`,` or `]`");
                            if r.peek() == Some(b'{') {
                                // A missing comma: the next ad is read.
                                self.state = CursorState::Array(true);
                            } else {
                                let _ = self.recover(r, start);
                            }
                            return Some((start, Err(err)));
                        }
                        r.pos += 1;
                        r.skip_ws();
                    }
                    let start = r.pos;
                    if self.limit.is_some_and(|limit| start >= limit) {
                        self.stopped_at = Some(start);
                        self.state = CursorState::Done;
                        return None;
                    }
                    self.state = CursorState::Array(false);
                    if r.peek() != Some(b'{') {
                        let err = r.unexpected("`{` to start an ad");
                        let _ = self.recover(r, start);
                        return Some((start, Err(err)));
                    }
                    return Some((start, self.object(r, start)));
                }
            }
        }
    }

    fn object(&mut self, r: &mut JsonReader<'_, '_>, start: usize) -> Result<AdExpr, ParseError> {
        r.top_object().map_err(|(err, hard)| {
            if !hard {
                return err;
            }
            match self.recover(r, start) {
                // The element ran into the next line that starts with `{`
                // (an unterminated string, a missing `}`): its error is the
                // one it has on its own lines, where the cause is.
                Some(cut) if cut <= err.span.start as usize => {
                    self.recovery_work += cut - start;
                    let mut head = JsonReader {
                        parser: r.parser,
                        whole: r.whole,
                        text: &r.text[..cut],
                        bytes: &r.bytes[..cut],
                        pos: start,
                        soft_error: None,
                        lines: std::mem::take(&mut r.lines),
                    };
                    // An error at the cut itself ("found end of input")
                    // says less than the one found reading on.
                    let own = head.top_object().err().map(|(e, _)| e);
                    r.lines = head.lines;
                    own.filter(|e| (e.span.start as usize) < cut).unwrap_or(err)
                }
                _ => err,
            }
        })
    }

    /// After an element of the array (or of the sequence of objects) that
    /// starts at `start` could not be read, moves the reader to where the
    /// next element starts, so that one broken ad costs only itself:
    ///
    /// 1. the end of the element found by its brackets (strings skipped),
    ///    when a `,` or `]` (in a sequence, a `{` or the end) follows it
    ///    and no line starting with `{` comes first: a bad number, a
    ///    missing colon, a stray word leave the brackets balanced;
    /// 2. otherwise the next line that starts with `{`, where every
    ///    element starts in a document of one ad a line or more
    ///    (`condor_q -json`, `classad convert --to json`): an unterminated
    ///    string or a missing `}` runs the element into the next ones;
    /// 3. in a document with no such line, the next `{` after a `,`
    ///    (after a `}` in a sequence).
    ///
    /// Nothing found ends the document. The offset of the line it starts
    /// again at, when that is how it found the next element.
    fn recover(&mut self, r: &mut JsonReader<'_, '_>, start: usize) -> Option<usize> {
        let in_array = match self.state {
            CursorState::Array(_) => true,
            CursorState::Sequence => false,
            _ => {
                self.state = CursorState::Done;
                return None;
            }
        };
        let bytes = r.bytes;
        let len = bytes.len();
        let budget = RECOVERY_WORK_PER_BYTE
            .saturating_mul(len)
            .saturating_add(1 << 20);
        self.recovery_work += r.pos.saturating_sub(start);
        let line = next_line_object(bytes, start + 1);
        let line_structured = *self
            .line_structured
            .get_or_insert_with(|| memchr::memmem::find(bytes, b"\n{").is_some());
        if self.recovery_work > budget {
            self.lines_only = true;
        }
        let resume =
            |state: &mut CursorState, r: &mut JsonReader<'_, '_>, at: usize, inside: bool| {
                r.pos = at;
                *state = match (in_array, inside) {
                    (true, true) => CursorState::Array(false),
                    (true, false) => CursorState::Array(true),
                    (false, _) => CursorState::Sequence,
                };
            };
        if !self.lines_only && bytes.get(start) == Some(&b'{') {
            let stop = line.unwrap_or(len);
            let end = element_end(bytes, start, stop);
            self.recovery_work += end.unwrap_or(stop) - start;
            if let Some(end) = end {
                let after = |at: usize| bytes[at..].iter().position(|b| !b.is_ascii_whitespace());
                let fits = match after(end).map(|i| (end + i, bytes[end + i])) {
                    Some((_, b',')) => in_array,
                    // The end of the array only if the document ends there.
                    Some((at, b']')) => in_array && after(at + 1).is_none(),
                    Some((_, b'{')) | None => !in_array,
                    _ => false,
                };
                if fits {
                    resume(&mut self.state, r, end, true);
                    return None;
                }
            }
        }
        let next = match line {
            Some(at) => Some(at),
            None if line_structured || self.lines_only => None,
            None => {
                let before = if in_array { b',' } else { b'}' };
                next_object_after(bytes, start + 1, before)
            }
        };
        match next {
            Some(at) => {
                resume(&mut self.state, r, at, false);
                line.filter(|&l| l == at)
            }
            None => {
                r.pos = len;
                self.state = CursorState::Done;
                None
            }
        }
    }
}

/// The offset of the first `{` at or after `from` that starts a line.
fn next_line_object(bytes: &[u8], from: usize) -> Option<usize> {
    let from = from.max(1);
    let at = memchr::memmem::find(bytes.get(from - 1..)?, b"\n{")?;
    Some(from - 1 + at + 1)
}

/// The offset just after the bracket that closes the one at `start`,
/// looking no further than `stop`: brackets of both kinds are counted
/// and strings skipped.
fn element_end(bytes: &[u8], start: usize, stop: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = start;
    while i < stop {
        match bytes[i] {
            b'"' => {
                i += 1;
                loop {
                    let rest = bytes.get(i..stop)?;
                    let n = memchr::memchr2(b'"', b'\\', rest)?;
                    i += n;
                    if bytes[i] == b'"' {
                        break;
                    }
                    i += 2;
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The offset of the first `{` after `from` that follows a `before` byte,
/// whitespace between.
fn next_object_after(bytes: &[u8], from: usize, before: u8) -> Option<usize> {
    let mut at = from;
    while let Some(n) = memchr::memchr(before, bytes.get(at..)?) {
        let sep = at + n;
        let next = bytes[sep + 1..]
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .map(|i| sep + 1 + i)?;
        if bytes[next] == b'{' {
            return Some(next);
        }
        at = sep + 1;
    }
    None
}

/// Line numbers and columns of offsets met mostly in increasing order,
/// without rescanning the text from the start each time: a move costs
/// the bytes between the last offset and the new one, backwards too (a
/// failed element is read again from a line inside it).
#[derive(Debug, Default)]
struct LineCursor {
    offset: usize,
    line: usize,
    line_start: usize,
    /// Characters from `line_start` to `offset`.
    column: usize,
}

impl LineCursor {
    fn position(&mut self, text: &str, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let bytes = text.as_bytes();
        let chars = |b: &[u8]| b.iter().filter(|&&b| b & 0xC0 != 0x80).count();
        if offset >= self.offset {
            let moved = &bytes[self.offset..offset];
            match memchr::memrchr(b'\n', moved) {
                Some(last) => {
                    self.line += memchr::memchr_iter(b'\n', moved).count();
                    self.line_start = self.offset + last + 1;
                    self.column = chars(&bytes[self.line_start..offset]);
                }
                None => self.column += chars(moved),
            }
        } else if offset >= self.line_start {
            self.column -= chars(&bytes[offset..self.offset]);
        } else {
            self.line -= memchr::memchr_iter(b'\n', &bytes[offset..self.line_start]).count();
            self.line_start = memchr::memrchr(b'\n', &bytes[..offset]).map_or(0, |i| i + 1);
            self.column = chars(&bytes[self.line_start..offset]);
        }
        self.offset = offset;
        (self.line + 1, self.column + 1)
    }
}

struct JsonReader<'p, 't> {
    parser: &'p Parser,
    /// The whole document, for line numbers; `text` may be a prefix of it
    /// (see [`JsonAdCursor::recover`]).
    whole: &'t str,
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    /// The first error inside an `\/Expr(...)\/` string of the current ad:
    /// the ad fails but the JSON around it is still read.
    soft_error: Option<ParseError>,
    lines: LineCursor,
}

type Result<T, E = ParseError> = std::result::Result<T, E>;

impl<'p, 't> JsonReader<'p, 't> {
    fn new(parser: &'p Parser, text: &'t str) -> Self {
        JsonReader {
            parser,
            whole: text,
            text,
            bytes: text.as_bytes(),
            pos: 0,
            soft_error: None,
            lines: LineCursor::default(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) = self.peek() {
            self.pos += 1;
        }
    }

    fn error_at(&mut self, span: Span, message: impl Into<String>) -> ParseError {
        let (line, column) = self.lines.position(self.whole, span.start as usize);
        ParseError {
            message: message.into(),
            span,
            line,
            column,
        }
    }

    fn unexpected(&mut self, expected: &str) -> ParseError {
        let (found, len) = describe_found(self.text, self.pos);
        let span = Span::new(self.pos, self.pos + len);
        self.error_at(span, format!("expected {expected}, found {found}"))
    }

    /// A top-level object. On error, whether it was in the JSON itself
    /// (`true`: the reader must find where the next element starts, see
    /// [`JsonAdCursor::recover`]) or only in an expression string.
    fn top_object(&mut self) -> Result<AdExpr, (ParseError, bool)> {
        self.soft_error = None;
        let ad = self.object(0).map_err(|e| (e, true))?;
        match self.soft_error.take() {
            Some(err) => Err((err, false)),
            None => Ok(ad),
        }
    }

    fn enter(&mut self, depth: usize) -> Result<usize> {
        let depth = depth + 1;
        let max = self.parser.options().max_nesting;
        if depth > max {
            let span = Span::new(self.pos, self.pos + 1);
            return Err(self.error_at(
                span,
                format!("JSON nested too deeply: more than {max} levels of brackets"),
            ));
        }
        Ok(depth)
    }

    fn object(&mut self, depth: usize) -> Result<AdExpr> {
        if depth > 0 {
            let mut ad = AdExpr::new();
            self.members(depth, &mut |parser, name, value| {
                ad.insert(parser.intern(name), value);
            })?;
            return Ok(ad);
        }
        // A top-level ad's definitions go through the parser's builder,
        // its names compared first with the last ad's.
        let mut builder = self.parser.take_builder();
        builder.begin();
        let read = self.members(depth, &mut |parser, name, value| {
            let (name, fold) = match builder.guess_any() {
                Some((guess, fold)) if guess.as_bytes() == name.as_bytes() => {
                    (guess.clone(), *fold)
                }
                _ => parser.intern_folded(name.as_bytes()),
            };
            builder.define(name, fold, false, value);
        });
        let ad = builder.finish();
        self.parser.give_back_builder(builder);
        read.map(|()| ad)
    }

    /// The members of an object, each given to `define` with its name.
    fn members(&mut self, depth: usize, define: &mut dyn FnMut(&Parser, &str, Expr)) -> Result<()> {
        let depth = self.enter(depth)?;
        debug_assert_eq!(self.peek(), Some(b'{'));
        self.pos += 1;
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                // HTCondor allows extra commas between members.
                Some(b',') => {
                    self.pos += 1;
                    continue;
                }
                Some(b'"') => {}
                _ => return Err(self.unexpected("a member name in double quotes, or `}`")),
            }
            let name = self.name_token()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.unexpected("`:`"));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value(depth)?;
            define(self.parser, &name, value);
            self.skip_ws();
            match self.peek() {
                Some(b',' | b'}') => {}
                _ => return Err(self.unexpected("`,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Vec<Expr>> {
        let depth = self.enter(depth)?;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(items);
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    // A long list keeps no growth slack (up to half its size).
                    items.shrink_to_fit();
                    return Ok(items);
                }
                _ => return Err(self.unexpected("`,` or `]`")),
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Expr> {
        let start = self.pos;
        let kind = match self.peek() {
            Some(b'{') => ExprKind::Ad(Box::new(self.object(depth)?)),
            Some(b'[') => ExprKind::List(self.array(depth)?),
            Some(b'"') => return self.string_value(),
            Some(b'-' | b'0'..=b'9') => ExprKind::Literal(self.number()?),
            Some(b) if b.is_ascii_alphabetic() => {
                let end = self.bytes[start..]
                    .iter()
                    .position(|b| !b.is_ascii_alphanumeric() && *b != b'_')
                    .map_or(self.bytes.len(), |n| start + n);
                let word = &self.bytes[start..end];
                let lit = if word.eq_ignore_ascii_case(b"true") {
                    Literal::Boolean(true)
                } else if word.eq_ignore_ascii_case(b"false") {
                    Literal::Boolean(false)
                } else if word.eq_ignore_ascii_case(b"null") {
                    Literal::Undefined
                } else {
                    return Err(self.unexpected("a JSON value"));
                };
                self.pos = end;
                ExprKind::Literal(lit)
            }
            _ => return Err(self.unexpected("a JSON value")),
        };
        Ok(Expr {
            kind,
            span: Span::new(start, self.pos),
        })
    }

    fn number(&mut self) -> Result<Literal> {
        let start = self.pos;
        let bytes = self.bytes;
        let mut i = start;
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        let digits = |mut i: usize| {
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        let int_start = i;
        i = digits(i);
        let bad = |r: &mut Self, at: usize, what: &str| {
            r.pos = at;
            Err(r.unexpected(what))
        };
        if i == int_start {
            return bad(self, i, "a digit");
        }
        if bytes[int_start] == b'0' && i - int_start > 1 {
            let span = Span::new(start, i);
            return Err(self.error_at(span, "a number cannot have a leading zero"));
        }
        let mut real = false;
        if bytes.get(i) == Some(&b'.') {
            real = true;
            let frac = i + 1;
            i = digits(frac);
            if i == frac {
                return bad(self, i, "a digit after `.`");
            }
        }
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            real = true;
            i += 1;
            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let exp = i;
            i = digits(exp);
            if i == exp {
                return bad(self, i, "a digit in the exponent");
            }
        }
        let text = &self.text[start..i];
        self.pos = i;
        Ok(if real {
            Literal::Real(text.parse().unwrap_or(0.0))
        } else {
            // Out of range is 0, as HTCondor reads it.
            Literal::Integer(text.parse().unwrap_or(0))
        })
    }

    /// Reads a string token at `"`: the decoded text and the raw body's
    /// byte range.
    fn string_token(&mut self) -> Result<(String, (usize, usize))> {
        self.string_token_mapped(None)
    }

    /// As [`Self::string_token`]; when `map` is given, also records for
    /// each decoded byte the offset of the raw text it came from, and one
    /// more entry for the end.
    fn string_token_mapped(
        &mut self,
        mut map: Option<&mut Vec<u32>>,
    ) -> Result<(String, (usize, usize))> {
        let open = self.pos;
        let body_start = open + 1;
        let bytes = self.bytes;
        // Built from slices of the text and decoded characters, so that it
        // is UTF-8 without being checked again.
        let mut out = String::new();
        let mut i = body_start;
        let mut run = body_start;
        let at = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        loop {
            let Some(next) = memchr::memchr2(b'"', b'\\', &bytes[i.min(bytes.len())..]) else {
                let span = Span::new(open, open + 1);
                return Err(self.error_at(span, "unterminated string: no closing `\"`"));
            };
            i += next;
            if bytes[i] == b'"' {
                break;
            }
            // Flush the plain run before the escape.
            out.push_str(&self.text[run..i]);
            if let Some(map) = map.as_deref_mut() {
                map.extend((run..i).map(at));
            }
            let esc = i;
            let Some(&c) = bytes.get(i + 1) else {
                let span = Span::new(open, open + 1);
                return Err(self.error_at(span, "unterminated string: no closing `\"`"));
            };
            let before = out.len();
            i += 2;
            match c {
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'n' => out.push('\n'),
                b'r' => out.push('\r'),
                b't' => out.push('\t'),
                b'u' => {
                    let (ch, next) = self.unicode_escape(esc)?;
                    i = next;
                    out.push(ch);
                }
                _ => {
                    // `\"`, `\\`, `\/` and any other escaped character
                    // stand for the character itself.
                    let ch = self.text[esc + 1..].chars().next().unwrap_or('\\');
                    out.push(ch);
                    i = esc + 1 + ch.len_utf8();
                }
            }
            if let Some(map) = map.as_deref_mut() {
                map.extend(std::iter::repeat_n(at(esc), out.len() - before));
            }
            run = i;
        }
        out.push_str(&self.text[run..i]);
        if let Some(map) = map {
            map.extend((run..=i).map(at));
        }
        self.pos = i + 1;
        Ok((out, (body_start, i)))
    }

    /// A member name: borrowed from the text when it has no escapes.
    fn name_token(&mut self) -> Result<std::borrow::Cow<'t, str>> {
        let body_start = self.pos + 1;
        let text = self.text;
        if let Some(end) =
            memchr::memchr2(b'"', b'\\', &self.bytes[body_start.min(self.bytes.len())..])
                .map(|n| body_start + n)
                .filter(|&end| self.bytes[end] == b'"')
        {
            self.pos = end + 1;
            return Ok(std::borrow::Cow::Borrowed(&text[body_start..end]));
        }
        Ok(std::borrow::Cow::Owned(self.string_token()?.0))
    }

    /// Decodes `\uXXXX` at `esc` (and a following low surrogate); returns
    /// the character and the offset after the escape.
    fn unicode_escape(&mut self, esc: usize) -> Result<(char, usize)> {
        let hex = |r: &Self, at: usize| -> Option<u32> {
            let digits = r.text.get(at..at + 4)?;
            if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            u32::from_str_radix(digits, 16).ok()
        };
        let bad = |r: &mut Self, end: usize, msg: &str| {
            let span = Span::new(esc, end.min(r.text.len()));
            Err(r.error_at(span, msg.to_string()))
        };
        let Some(first) = hex(self, esc + 2) else {
            return bad(
                self,
                esc + 2,
                "`\\u` must be followed by four hexadecimal digits",
            );
        };
        let mut end = esc + 6;
        let code = if (0xD800..0xDC00).contains(&first) {
            let low = if self.text.get(end..end + 2) == Some("\\u") {
                hex(self, end + 2).filter(|l| (0xDC00..0xE000).contains(l))
            } else {
                None
            };
            let Some(low) = low else {
                return bad(
                    self,
                    end,
                    "a high surrogate `\\uD8xx` must be followed by a low surrogate `\\uDCxx`",
                );
            };
            end += 6;
            0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00)
        } else {
            first
        };
        if code == 0 {
            return bad(
                self,
                end,
                "a string cannot contain a NUL character (`\\u0000`)",
            );
        }
        match char::from_u32(code) {
            Some(ch) => Ok((ch, end)),
            None => bad(self, end, "a lone low surrogate is not a character"),
        }
    }

    /// A string value: a literal, or an expression when written
    /// `"\/Expr(...)\/"`.
    fn string_value(&mut self) -> Result<Expr> {
        let start = self.pos;
        let raw_quoted = {
            let rest = &self.bytes[start + 1..];
            rest.starts_with(b"\\/")
        };
        // `"\/Expr(...)\/"` without any other escape: the expression is
        // the raw text, read in place.
        if raw_quoted && let Some(close) = memchr::memchr(b'"', &self.bytes[start + 1..]) {
            let body = &self.bytes[start + 1..start + 1 + close];
            if body.len() >= 10
                && body[2..7].eq_ignore_ascii_case(b"Expr(")
                && body.ends_with(b")\\/")
                && memchr::memchr(b'\\', &body[2..body.len() - 3]).is_none()
            {
                let inner_start = start + 1 + 7;
                let inner_end = start + 1 + close - 3;
                self.pos = start + 1 + close + 1;
                let span = Span::new(start, self.pos);
                let inner = &self.text[inner_start..inner_end];
                return Ok(match self.parser.parse_expression_at(inner, inner_start) {
                    Ok(expr) => expr,
                    Err(err) => {
                        let shift = u32::try_from(inner_start).unwrap_or(u32::MAX);
                        let mapped = Span {
                            start: err.span.start.saturating_add(shift),
                            end: err.span.end.saturating_add(shift),
                        };
                        let err = self.error_at(mapped, err.message);
                        if self.soft_error.is_none() {
                            self.soft_error = Some(err);
                        }
                        // A placeholder; the ad fails with the error above.
                        Expr {
                            kind: ExprKind::Literal(Literal::Error),
                            span,
                        }
                    }
                });
            }
        }
        let mut map = Vec::new();
        let (text, (body_start, body_end)) = if raw_quoted {
            self.string_token_mapped(Some(&mut map))?
        } else {
            self.string_token()?
        };
        let span = Span::new(start, self.pos);
        let body = &self.bytes[body_start..body_end];
        let is_expr = raw_quoted
            && body.len() >= 4
            && body.ends_with(b"\\/")
            && text.len() >= 8
            && text.as_bytes()[..6].eq_ignore_ascii_case(b"/Expr(")
            && text.ends_with(")/");
        if !is_expr {
            let lit = Literal::String(text.into_bytes().into_boxed_slice());
            return Ok(Expr {
                kind: ExprKind::Literal(lit),
                span,
            });
        }
        let inner = &text[6..text.len() - 2];
        // Decoded offset `k` of `inner` is raw offset `map[6 + k]`.
        let to_raw = |k: u32| map.get(6 + k as usize).copied().unwrap_or(span.end);
        match self.parser.parse_expression(inner) {
            Ok(mut expr) => {
                remap_spans(&mut expr, &to_raw);
                Ok(expr)
            }
            Err(err) => {
                let mapped = Span {
                    start: to_raw(err.span.start),
                    end: to_raw(err.span.end),
                };
                let err = self.error_at(mapped, err.message);
                if self.soft_error.is_none() {
                    self.soft_error = Some(err);
                }
                // A placeholder; the ad fails with the error above.
                Ok(Expr {
                    kind: ExprKind::Literal(Literal::Error),
                    span,
                })
            }
        }
    }
}

/// Rewrites every span of the tree through `f`, without recursion.
fn remap_spans(expr: &mut Expr, f: &impl Fn(u32) -> u32) {
    let mut stack: Vec<&mut Expr> = vec![expr];
    while let Some(e) = stack.pop() {
        e.span = Span {
            start: f(e.span.start),
            end: f(e.span.end),
        };
        match &mut e.kind {
            ExprKind::Literal(_) | ExprKind::Attribute(_) | ExprKind::RootAttribute(_) => {}
            ExprKind::Select { base, .. } => stack.push(base),
            ExprKind::Subscript { base, index } => {
                stack.push(base);
                stack.push(index);
            }
            ExprKind::Call { args, .. } | ExprKind::List(args) => stack.extend(args.iter_mut()),
            ExprKind::Unary { operand, .. } => stack.push(operand),
            ExprKind::Binary { lhs, rhs, .. } => {
                stack.push(lhs);
                stack.push(rhs);
            }
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => {
                stack.push(cond);
                stack.push(then);
                stack.push(otherwise);
            }
            ExprKind::Elvis { value, fallback } => {
                stack.push(value);
                stack.push(fallback);
            }
            ExprKind::Paren(inner) => stack.push(inner),
            ExprKind::Ad(ad) => stack.extend(ad.attributes.iter_mut().map(|(_, e)| e)),
        }
    }
}

/// Adds `by` to every span of the tree, without recursion.
pub fn shift_spans(expr: &mut Expr, by: usize) {
    if by == 0 {
        return;
    }
    let by = u32::try_from(by).unwrap_or(u32::MAX);
    remap_spans(expr, &|s| s.saturating_add(by));
}
