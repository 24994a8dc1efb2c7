//! HTCondor's XML form of ads (`condor_q -xml`, `condor_status -xml`),
//! both directions.
//!
//! ```text
//! <?xml version="1.0"?>
//! <!DOCTYPE classads SYSTEM "classads.dtd">
//! <classads>
//! <c>
//!     <a n="Owner"><s>alice</s></a>
//!     <a n="Requirements"><e>Memory &gt;= 1024</e></a>
//! </c>
//! </classads>
//! ```
//!
//! The writer follows HTCondor's `ClassAdXMLUnParser` (`xmlSink.cpp`):
//!
//! * an ad is `<c>`, each attribute `<a n="name">`; integers `<i>`, reals
//!   `<r>` (`%1.15E`, `0.0`, `NaN`, `INF`, `-INF`), strings `<s>`,
//!   booleans `<b v="t"/>` / `<b v="f"/>`, `<un/>`, `<er/>`, lists `<l>`,
//!   absolute time literals `<at>` with HTCondor's canonical text, a
//!   relative time's literal (`relTime("01:01")`) as the real it evaluates
//!   to (`<r>6.100000000000000E+01</r>`: HTCondor 25's writer takes a
//!   literal's value, and that literal's value is a real, as its JSON
//!   writer shows), and every other expression `<e>` with its one-line
//!   new-syntax text;
//! * text is escaped as HTCondor escapes it: `&`, `<`, `>` as entities;
//!   in `<s>` the string's ClassAd escapes without quotes (`\\`, `\n`,
//!   octal for bytes outside printable ASCII), a `"` left as it is; in `n`
//!   the same with `\"`;
//! * the pretty form (what the tools print) puts each attribute on its own
//!   line, indented by 4 per level of nesting; the compact form is one line.
//!
//! Two deliberate differences (docs/differences.md): a negative zero real
//! is written `-0.0` (HTCondor's test for it is unreachable, and it writes
//! `0.0`), and a real that `%1.15E` does not give back exactly is written
//! with 17 significant digits, as the new-syntax writer does.
//!
//! The reader follows `ClassAdXMLParser` (`xmlSource.cpp`): tags it does
//! not know outside an ad (`<?xml ...?>`, `<!DOCTYPE ...>`, `<classads>`)
//! are skipped, only `&amp;`, `&lt;` and `&gt;` are entities (another
//! `&name;` stays as written), integers and reals are read as C's `strtoll`
//! and `strtod` read them (no number is ERROR), a boolean is true when `v`
//! is `t` or `T`. Where HTCondor's reader would loop forever or guess
//! (text between list items, a missing end tag, an unknown tag inside an
//! ad, an attribute without a name) the ad is refused with an error that
//! carries its line and column. Comments (`<!-- ... -->`) are skipped.

use crate::ast::{AdExpr, Expr, ExprKind, Literal, Name, Span};
use crate::diag::ParseError;
use crate::parser::{Parser, decode_new_escapes};
use crate::time::{canonical_time_call, rel_time_literal_seconds};
use crate::unparse::{format_c_exponent, unparse};
use std::fmt::Write as _;

/// What HTCondor's tools print before the ads of an XML document.
pub const XML_HEADER: &str =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n";

/// What HTCondor's tools print after the ads of an XML document.
pub const XML_FOOTER: &str = "</classads>\n";

// ---------------------------------------------------------------------------
// Writer
// ---------------------------------------------------------------------------

/// An ad as `condor_q -xml` prints it: `<c>`, one indented attribute a
/// line, `</c>` and a newline.
///
/// ```
/// let ad = classad_syntax::parse_ad("[a = 1; b = x > 2]").unwrap();
/// assert_eq!(
///     classad_syntax::ad_to_xml(&ad),
///     "<c>\n    <a n=\"a\"><i>1</i></a>\n    <a n=\"b\"><e>x &gt; 2</e></a>\n</c>\n"
/// );
/// ```
pub fn ad_to_xml(ad: &AdExpr) -> String {
    let mut out = String::new();
    write_ad_xml(ad, true, &mut out);
    out
}

/// An ad in HTCondor's compact XML form, on one line without a newline.
///
/// ```
/// let ad = classad_syntax::parse_ad("[s = \"a<b\"; l = {true, undefined}]").unwrap();
/// assert_eq!(
///     classad_syntax::ad_to_xml_compact(&ad),
///     "<c><a n=\"s\"><s>a&lt;b</s></a><a n=\"l\"><l><b v=\"t\"/><un/></l></a></c>"
/// );
/// ```
pub fn ad_to_xml_compact(ad: &AdExpr) -> String {
    let mut out = String::new();
    write_ad_xml(ad, false, &mut out);
    out
}

/// Appends an ad in XML, pretty or compact, to `out`.
pub fn write_ad_xml(ad: &AdExpr, pretty: bool, out: &mut String) {
    XmlWriter { pretty }.ad(ad, 0, out);
}

/// A document of ads as the tools write it: [`XML_HEADER`], each ad in
/// the pretty form, [`XML_FOOTER`].
pub fn ads_to_xml<'a>(ads: impl IntoIterator<Item = &'a AdExpr>) -> String {
    let mut out = String::from(XML_HEADER);
    for ad in ads {
        write_ad_xml(ad, true, &mut out);
    }
    out.push_str(XML_FOOTER);
    out
}

/// An expression as an XML value (`<i>1</i>`, `<e>a + b</e>`, ...).
pub fn expr_to_xml(expr: &Expr) -> String {
    let mut out = String::new();
    XmlWriter { pretty: false }.value(expr, 0, &mut out);
    out
}

/// Appends `text` with `&`, `<` and `>` as entities.
fn push_escaped(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

/// Appends string bytes with HTCondor's ClassAd escapes (`quote`, if any,
/// escaped with a backslash) and then the XML entities.
fn push_string(bytes: &[u8], quote: Option<u8>, out: &mut String) {
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
            b'&' => out.push_str("&amp;"),
            b'<' => out.push_str("&lt;"),
            b'>' => out.push_str("&gt;"),
            b if Some(b) == quote => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
}

/// A real as `<r>` holds it.
fn format_real_xml(x: f64) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-INF" } else { "INF" }.to_string();
    }
    let text = format_c_exponent(x, 15);
    if text.parse::<f64>().ok() == Some(x) {
        text
    } else {
        format_c_exponent(x, 16)
    }
}

struct XmlWriter {
    pretty: bool,
}

impl XmlWriter {
    fn ad(&self, ad: &AdExpr, indent: usize, out: &mut String) {
        out.push_str("<c>");
        if self.pretty {
            out.push('\n');
        }
        for (name, value) in &ad.attributes {
            if self.pretty {
                out.extend(std::iter::repeat_n(' ', indent + 4));
            }
            out.push_str("<a n=\"");
            push_string(name.as_bytes(), Some(b'"'), out);
            out.push_str("\">");
            self.value(value, indent + 4, out);
            out.push_str("</a>");
            if self.pretty {
                out.push('\n');
            }
        }
        if self.pretty {
            out.extend(std::iter::repeat_n(' ', indent));
        }
        out.push_str("</c>");
        if self.pretty && indent == 0 {
            out.push('\n');
        }
    }

    fn value(&self, expr: &Expr, indent: usize, out: &mut String) {
        match &expr.kind {
            ExprKind::Literal(lit) => match lit {
                Literal::Integer(i) => {
                    let _ = write!(out, "<i>{i}</i>");
                }
                Literal::Real(x) => {
                    let _ = write!(out, "<r>{}</r>", format_real_xml(*x));
                }
                Literal::String(bytes) => {
                    out.push_str("<s>");
                    push_string(bytes, None, out);
                    out.push_str("</s>");
                }
                Literal::Boolean(b) => {
                    out.push_str(if *b { "<b v=\"t\"/>" } else { "<b v=\"f\"/>" })
                }
                Literal::Undefined => out.push_str("<un/>"),
                Literal::Error => out.push_str("<er/>"),
            },
            ExprKind::List(items) => {
                out.push_str("<l>");
                for item in items {
                    self.value(item, indent, out);
                }
                out.push_str("</l>");
            }
            ExprKind::Ad(ad) => self.ad(ad, indent, out),
            ExprKind::Call { name, args } => {
                let text = match args.as_slice() {
                    [arg] => match &arg.kind {
                        ExprKind::Literal(Literal::String(text)) => Some(text),
                        _ => None,
                    },
                    _ => None,
                };
                // A relative time's literal is written as the real it
                // evaluates to, as HTCondor's writer takes its value.
                if let Some(secs) = text.and_then(|t| rel_time_literal_seconds(name.to_str()?, t)) {
                    let _ = write!(out, "<r>{}</r>", format_real_xml(secs));
                    return;
                }
                if let Some(text) = text
                    && name.eq_ignore_case("absTime")
                    && let Some(canonical) = name
                        .to_str()
                        .and_then(|name| canonical_time_call(name, text))
                {
                    // `absTime("` and `")` around the canonical text.
                    let inner = &canonical[9..canonical.len() - 2];
                    let _ = write!(out, "<at>{inner}</at>");
                    return;
                }
                self.expression(expr, out);
            }
            _ => self.expression(expr, out),
        }
    }

    fn expression(&self, expr: &Expr, out: &mut String) {
        out.push_str("<e>");
        push_escaped(&unparse(expr), out);
        out.push_str("</e>");
    }
}

// ---------------------------------------------------------------------------
// Reader
// ---------------------------------------------------------------------------

/// Reads a text holding exactly one ad (`<c>...</c>`, optionally inside a
/// `<classads>` document).
///
/// ```
/// use classad_syntax::{Parser, ParseOptions, parse_xml_ad, unparse_ad};
/// let parser = Parser::new(ParseOptions::default());
/// let ad = parse_xml_ad(&parser, r#"<c><a n="x"><i>3</i></a><a n="y"><e>x &lt; 4</e></a></c>"#)
///     .unwrap();
/// assert_eq!(unparse_ad(&ad), "[ x = 3; y = x < 4 ]");
/// ```
pub fn parse_xml_ad(parser: &Parser, text: &str) -> Result<AdExpr, ParseError> {
    let mut cursor = XmlAdCursor::new();
    let (_, ad) = cursor.next_ad(parser, text).ok_or_else(|| {
        ParseError::new(
            text,
            Span::new(text.len(), text.len()),
            "expected `<c>` to start an ad, found the end of the input",
        )
    })?;
    let ad = ad?;
    if let Some((start, _)) = cursor.next_ad(parser, text) {
        return Err(ParseError::new(
            text,
            Span::new(start, start + 1),
            "expected the end of the input after the ad, found another ad",
        ));
    }
    Ok(ad)
}

/// Reads the ads of an XML document, each with the byte offset where it
/// starts; a bad ad does not stop the reading (see [`XmlAdCursor`]).
///
/// ```
/// use classad_syntax::{Parser, ParseOptions, parse_xml_ads, XML_HEADER, XML_FOOTER};
/// let parser = Parser::new(ParseOptions::default());
/// let doc = format!("{XML_HEADER}<c><a n=\"a\"><i>1</i></a></c>\n<c><a n=\"a\"><i></a></c>\n{XML_FOOTER}");
/// let ads: Vec<_> = parse_xml_ads(&parser, &doc).map(|(_, ad)| ad).collect();
/// assert_eq!(ads.len(), 2);
/// assert!(ads[0].is_ok());
/// assert_eq!(ads[1].as_ref().unwrap_err().line, 5);
/// ```
pub fn parse_xml_ads<'p, 't>(parser: &'p Parser, text: &'t str) -> XmlAds<'p, 't> {
    XmlAds {
        parser,
        text,
        cursor: XmlAdCursor::new(),
    }
}

/// Iterator over the ads of an XML document: see [`parse_xml_ads`].
pub struct XmlAds<'p, 't> {
    parser: &'p Parser,
    text: &'t str,
    cursor: XmlAdCursor,
}

impl Iterator for XmlAds<'_, '_> {
    type Item = (usize, Result<AdExpr, ParseError>);

    fn next(&mut self) -> Option<Self::Item> {
        self.cursor.next_ad(self.parser, self.text)
    }
}

/// Where a reading of an XML document of ads stands. It holds no borrow,
/// so that its owner can also own the text.
#[derive(Debug, Default)]
pub struct XmlAdCursor {
    pos: usize,
    done: bool,
    /// Line and column at `pos`, kept as the reading goes, so that a
    /// position costs the text since the last one, not the whole input.
    mark: Mark,
    /// 1-based line of the last ad's `<c>`.
    ad_line: usize,
    /// The last search for a line that starts with `<c>`: where it
    /// started and what it found. Kept so that many bad ads on one line
    /// cost one search to the end of the text, not one each.
    line_search: Option<(usize, Option<usize>)>,
}

/// A byte offset with its 1-based line and column.
#[derive(Clone, Copy, Debug)]
struct Mark {
    offset: usize,
    line: usize,
    column: usize,
}

impl Default for Mark {
    fn default() -> Mark {
        Mark {
            offset: 0,
            line: 1,
            column: 1,
        }
    }
}

impl Mark {
    /// The mark at `to` in `text` (counting from this one when `to` is
    /// after it).
    fn advance(self, text: &str, to: usize) -> Mark {
        let mut to = to.min(text.len());
        while !text.is_char_boundary(to) {
            to -= 1;
        }
        if to < self.offset {
            let (line, column) = crate::diag::line_column(text, to);
            return Mark {
                offset: to,
                line,
                column,
            };
        }
        let between = &text[self.offset..to];
        match between.rfind('\n') {
            Some(last) => Mark {
                offset: to,
                line: self.line + between.bytes().filter(|&b| b == b'\n').count(),
                column: between[last + 1..].chars().count() + 1,
            },
            None => Mark {
                offset: to,
                line: self.line,
                column: self.column + between.chars().count(),
            },
        }
    }
}

impl XmlAdCursor {
    /// A cursor at the start of a document.
    pub fn new() -> XmlAdCursor {
        XmlAdCursor::default()
    }

    /// The 1-based line where the last ad returned starts.
    pub fn ad_line(&self) -> usize {
        self.ad_line
    }

    /// The next ad of `text`, which must be the same text on every call:
    /// the byte offset of its `<c>` and the ad or why it could not be
    /// read. After a bad ad the reading goes on after its `</c>`. `None`
    /// at the end.
    pub fn next_ad(
        &mut self,
        parser: &Parser,
        text: &str,
    ) -> Option<(usize, Result<AdExpr, ParseError>)> {
        if self.done {
            return None;
        }
        self.mark = self.mark.advance(text, self.pos);
        let mut lexer = Lexer {
            text,
            pos: self.pos,
            mark: self.mark,
        };
        // Skip to the next `<c>`; anything else outside an ad is ignored,
        // as HTCondor ignores it.
        let (start, tag) = loop {
            match lexer.token() {
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Ok(Some(Token::Tag(tag))) if tag.name == "c" && tag.kind != TagKind::End => {
                    break (tag.span.start as usize, tag);
                }
                Ok(Some(_)) => {}
                Err(e) => {
                    self.done = true;
                    return Some((lexer.pos, Err(e)));
                }
            }
        };
        lexer.mark = lexer.mark.advance(text, start);
        self.ad_line = lexer.mark.line;
        let mut reader = Reader {
            parser,
            lexer,
            depth: 0,
        };
        let result = reader.ad_body(&tag);
        self.pos = reader.lexer.pos;
        if result.is_err() {
            // The ad ends at its `</c>`, unless a line that starts with
            // `<c>` (where HTCondor's writer starts every ad) comes first:
            // a missing `</c>` or an unclosed tag then costs only its ad.
            let line = self.next_line_of_ad(text, start + 1);
            match skip_ad(text, start, line.unwrap_or(text.len())).or(line) {
                Some(end) => self.pos = end,
                None => self.done = true,
            }
        }
        Some((start, result))
    }
}

impl XmlAdCursor {
    /// The offset of the next `<c>` at the start of a line after `from`.
    fn next_line_of_ad(&mut self, text: &str, from: usize) -> Option<usize> {
        if let Some((searched_from, found)) = self.line_search
            && searched_from <= from
            && found.is_none_or(|at| at > from)
        {
            return found;
        }
        let found = memchr::memmem::find(&text.as_bytes()[from..], b"\n<c>").map(|n| from + n + 1);
        self.line_search = Some((from, found));
        found
    }
}

/// The offset after the `</c>` that closes the ad starting at `start`,
/// if it ends before `stop`.
fn skip_ad(text: &str, start: usize, stop: usize) -> Option<usize> {
    let mut lexer = Lexer {
        text,
        pos: start,
        mark: Mark::default(),
    };
    let mut depth = 0usize;
    loop {
        if lexer.pos >= stop {
            return None;
        }
        match lexer.token() {
            Ok(Some(Token::Tag(tag))) if tag.name == "c" => match tag.kind {
                TagKind::Start => depth += 1,
                TagKind::End => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(lexer.pos);
                    }
                }
                TagKind::Empty => {}
            },
            Ok(Some(_)) => {}
            Ok(None) => return None,
            Err(_) => {
                // An unclosed tag or comment: nothing after it is readable.
                return None;
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TagKind {
    Start,
    End,
    Empty,
}

#[derive(Debug)]
struct Tag<'t> {
    name: &'t str,
    kind: TagKind,
    /// `name="value"` pairs, values decoded (bytes: `n="\377"` names the
    /// attribute of the byte 0xFF).
    attributes: Vec<(&'t str, Vec<u8>)>,
    span: Span,
}

impl Tag<'_> {
    fn attribute(&self, name: &str) -> Option<&[u8]> {
        self.attributes
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_slice())
    }
}

enum Token<'t> {
    Tag(Tag<'t>),
    /// Text with entities decoded, and its span.
    Text(String, Span),
}

struct Lexer<'t> {
    text: &'t str,
    pos: usize,
    /// A position at or before every error of this ad.
    mark: Mark,
}

/// Decodes HTCondor's three entities; any other `&` stays as written.
fn decode_entities(raw: &str) -> String {
    if !raw.contains('&') {
        return raw.to_string();
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let (entity, replacement) = [("&amp;", '&'), ("&lt;", '<'), ("&gt;", '>')]
            .into_iter()
            .find(|(e, _)| rest.starts_with(e))
            .unwrap_or(("&", '&'));
        out.push(replacement);
        rest = &rest[entity.len()..];
    }
    out.push_str(rest);
    out
}

impl<'t> Lexer<'t> {
    fn error(&self, span: Span, message: impl Into<String>) -> ParseError {
        let at = self.mark.advance(self.text, span.start as usize);
        ParseError {
            message: message.into(),
            span,
            line: at.line,
            column: at.column,
        }
    }

    fn skip_ws(&mut self) {
        let bytes = self.text.as_bytes();
        while self.pos < bytes.len() && bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    /// The next tag or text (text with its whitespace, unless `raw` is
    /// false and the text is only whitespace, which is skipped).
    fn next(&mut self, raw: bool) -> Result<Option<Token<'t>>, ParseError> {
        loop {
            let start = self.pos;
            if !raw {
                self.skip_ws();
            }
            let rest = &self.text[self.pos..];
            if rest.is_empty() {
                return Ok(None);
            }
            if let Some(comment) = rest.strip_prefix("<!--") {
                let Some(end) = comment.find("-->") else {
                    return Err(self.error(
                        Span::new(self.pos, self.pos + 4),
                        "a comment `<!--` is not closed by `-->`",
                    ));
                };
                self.pos += 4 + end + 3;
                continue;
            }
            if rest.starts_with('<') {
                return self.tag().map(|tag| Some(Token::Tag(tag)));
            }
            let len = rest.find('<').unwrap_or(rest.len());
            let span = Span::new(self.pos, self.pos + len);
            let text = decode_entities(&rest[..len]);
            self.pos += len;
            if raw {
                return Ok(Some(Token::Text(text, Span::new(start, self.pos))));
            }
            return Ok(Some(Token::Text(text, span)));
        }
    }

    fn token(&mut self) -> Result<Option<Token<'t>>, ParseError> {
        self.next(false)
    }

    fn tag(&mut self) -> Result<Tag<'t>, ParseError> {
        let start = self.pos;
        let rest = &self.text[start..];
        let Some(close) = rest.find('>') else {
            return Err(self.error(
                Span::new(start, start + 1),
                "a tag `<` is not closed by `>`",
            ));
        };
        self.pos = start + close + 1;
        let span = Span::new(start, self.pos);
        let mut inner = rest[1..close].trim_matches(|c: char| c.is_ascii_whitespace());
        let kind = if let Some(after) = inner.strip_prefix('/') {
            inner = after;
            TagKind::End
        } else if let Some(before) = inner.strip_suffix('/') {
            inner = before;
            TagKind::Empty
        } else {
            TagKind::Start
        };
        let name_len = inner
            .find(|c: char| c.is_ascii_whitespace())
            .unwrap_or(inner.len());
        let name = &inner[..name_len];
        let mut attributes = Vec::new();
        let mut rest = &inner[name_len..];
        loop {
            rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace());
            if rest.is_empty() {
                break;
            }
            let name_end = rest
                .find(|c: char| c.is_ascii_whitespace() || c == '=')
                .unwrap_or(rest.len());
            let attr = &rest[..name_end];
            rest =
                rest[name_end..].trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '=');
            let Some(body) = rest.strip_prefix('"') else {
                if name.starts_with(['?', '!']) {
                    // Declarations have their own syntax; they are skipped.
                    break;
                }
                return Err(self.error(
                    span,
                    format!("expected `\"` to start the value of `{attr}` in the tag"),
                ));
            };
            // Up to a `"` not escaped with a backslash, as HTCondor reads it.
            let bytes = body.as_bytes();
            let mut end = 0;
            while end < bytes.len()
                && !(bytes[end] == b'"' && (end == 0 || bytes[end - 1] != b'\\'))
            {
                end += 1;
            }
            let value = decode_entities(&body[..end]);
            let mut decoded = Vec::new();
            if let Err((_, message)) = decode_new_escapes(&value, &mut decoded) {
                return Err(self.error(span, message));
            }
            attributes.push((attr, decoded));
            rest = body.get(end + 1..).unwrap_or("");
        }
        Ok(Tag {
            name,
            kind,
            attributes,
            span,
        })
    }
}

struct Reader<'p, 't> {
    parser: &'p Parser,
    lexer: Lexer<'t>,
    depth: usize,
}

impl<'t> Reader<'_, 't> {
    fn error(&self, span: Span, message: impl Into<String>) -> ParseError {
        self.lexer.error(span, message)
    }

    fn end_of_input(&self) -> ParseError {
        let end = self.lexer.text.len();
        self.error(Span::new(end, end), "the input ends inside an ad")
    }

    /// The next token, which must exist.
    fn token(&mut self) -> Result<Token<'t>, ParseError> {
        self.lexer.token()?.ok_or_else(|| self.end_of_input())
    }

    fn expect_end(&mut self, name: &str) -> Result<(), ParseError> {
        match self.token()? {
            Token::Tag(tag) if tag.name == name && tag.kind == TagKind::End => Ok(()),
            Token::Tag(tag) => Err(self.error(
                tag.span,
                format!(
                    "expected `</{name}>`, found `<{}{}>`",
                    end_slash(&tag),
                    tag.name
                ),
            )),
            Token::Text(_, span) => {
                Err(self.error(span, format!("expected `</{name}>`, found text")))
            }
        }
    }

    fn nest(&mut self, span: Span) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > self.parser.options().max_nesting {
            return Err(self.error(
                span,
                format!(
                    "ads and lists nest more than {} deep",
                    self.parser.options().max_nesting
                ),
            ));
        }
        Ok(())
    }

    /// The attributes of an ad whose `<c>` (or `<c/>`) has been read.
    fn ad_body(&mut self, open: &Tag<'t>) -> Result<AdExpr, ParseError> {
        let mut ad = AdExpr::new();
        if open.kind == TagKind::Empty {
            return Ok(ad);
        }
        self.nest(open.span)?;
        loop {
            match self.token()? {
                Token::Tag(tag) if tag.name == "c" && tag.kind == TagKind::End => break,
                Token::Tag(tag) if tag.name == "a" && tag.kind == TagKind::Start => {
                    let name = match tag.attribute("n") {
                        Some(name) if !name.is_empty() => Name::from_bytes(name),
                        _ => {
                            return Err(
                                self.error(tag.span, "an attribute `<a>` needs a name `n=\"...\"`")
                            );
                        }
                    };
                    let value = self.value(tag.span)?;
                    self.expect_end("a")?;
                    ad.insert(name, value);
                }
                Token::Tag(tag) => {
                    return Err(self.error(
                        tag.span,
                        format!(
                            "expected `<a n=\"...\">` or `</c>` in an ad, found `<{}{}>`",
                            end_slash(&tag),
                            tag.name
                        ),
                    ));
                }
                Token::Text(_, span) => {
                    return Err(self.error(
                        span,
                        "expected `<a n=\"...\">` or `</c>` in an ad, found text",
                    ));
                }
            }
        }
        self.depth -= 1;
        Ok(ad)
    }

    /// One value: the tag that starts it is the next token.
    fn value(&mut self, context: Span) -> Result<Expr, ParseError> {
        let tag = match self.token()? {
            Token::Tag(tag) if tag.kind != TagKind::End => tag,
            Token::Tag(tag) => {
                return Err(self.error(
                    tag.span,
                    format!("expected a value, found `</{}>`", tag.name),
                ));
            }
            Token::Text(_, span) => {
                return Err(self.error(span.join(context), "expected a value tag, found text"));
            }
        };
        let span = tag.span;
        let empty = tag.kind == TagKind::Empty;
        let literal = |lit| {
            Ok(Expr {
                kind: ExprKind::Literal(lit),
                span,
            })
        };
        match tag.name {
            "c" => {
                let ad = self.ad_body(&tag)?;
                Ok(Expr {
                    kind: ExprKind::Ad(Box::new(ad)),
                    span,
                })
            }
            "l" => {
                let mut items = Vec::new();
                if !empty {
                    self.nest(span)?;
                    loop {
                        let save = self.lexer.pos;
                        match self.token()? {
                            Token::Tag(end) if end.name == "l" && end.kind == TagKind::End => break,
                            _ => {
                                self.lexer.pos = save;
                                items.push(self.value(span)?);
                            }
                        }
                    }
                    self.depth -= 1;
                }
                Ok(Expr {
                    kind: ExprKind::List(items),
                    span,
                })
            }
            "b" => {
                let truth = matches!(tag.attribute("v"), Some(b"t" | b"T"));
                if !empty {
                    self.expect_end("b")?;
                }
                literal(Literal::Boolean(truth))
            }
            "un" | "er" => {
                if !empty {
                    self.expect_end(tag.name)?;
                }
                literal(if tag.name == "un" {
                    Literal::Undefined
                } else {
                    Literal::Error
                })
            }
            "s" => {
                if empty {
                    return literal(Literal::String(Box::default()));
                }
                let save = self.lexer.pos;
                let (text, text_span) = match self.lexer.next(true)? {
                    Some(Token::Text(text, text_span)) => (text, text_span),
                    _ => {
                        self.lexer.pos = save;
                        (String::new(), span)
                    }
                };
                let mut bytes = Vec::new();
                decode_new_escapes(&text, &mut bytes)
                    .map_err(|(_, message)| self.error(text_span, message))?;
                self.expect_end("s")?;
                literal(Literal::String(bytes.into_boxed_slice()))
            }
            "i" | "r" | "at" | "rt" | "e" => {
                let (text, text_span) = match (empty, self.token()?) {
                    (false, Token::Text(text, text_span)) => (text, text_span),
                    _ => {
                        return Err(self.error(
                            span,
                            format!("`<{}>` needs its text before `</{}>`", tag.name, tag.name),
                        ));
                    }
                };
                self.expect_end(tag.name)?;
                let kind = match tag.name {
                    "i" => ExprKind::Literal(
                        read_c_integer(&text).map_or(Literal::Error, Literal::Integer),
                    ),
                    "r" => {
                        ExprKind::Literal(read_c_real(&text).map_or(Literal::Error, Literal::Real))
                    }
                    "at" | "rt" => ExprKind::Call {
                        name: self.parser.intern(if tag.name == "at" {
                            "absTime"
                        } else {
                            "relTime"
                        }),
                        args: vec![Expr {
                            kind: ExprKind::Literal(Literal::String(
                                text.into_bytes().into_boxed_slice(),
                            )),
                            span: text_span,
                        }],
                    },
                    _ => {
                        let mut expr = self.parser.parse_expression(&text).map_err(|e| {
                            // The text was decoded, so its offsets are close to,
                            // not exactly, those of the input: point at the tag.
                            self.error(text_span, format!("in `<e>`: {}", e.message))
                        })?;
                        crate::json::shift_spans(&mut expr, text_span.start as usize);
                        return Ok(expr);
                    }
                };
                Ok(Expr { kind, span })
            }
            other => Err(self.error(
                span,
                format!(
                    "expected a value tag (i, r, s, b, un, er, at, rt, l, c, e), found `<{other}>`"
                ),
            )),
        }
    }
}

fn end_slash(tag: &Tag<'_>) -> &'static str {
    if tag.kind == TagKind::End { "/" } else { "" }
}

/// C's `strtoll(text, _, 10)`: leading space, a sign, digits; saturating;
/// `None` when there are no digits.
fn read_c_integer(text: &str) -> Option<i64> {
    let t = text.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let len = digits.bytes().take_while(u8::is_ascii_digit).count();
    if len == 0 {
        return None;
    }
    let mut value: i64 = 0;
    for b in digits[..len].bytes() {
        let d = i64::from(b - b'0');
        value = match value.checked_mul(10).and_then(|v| {
            if negative {
                v.checked_sub(d)
            } else {
                v.checked_add(d)
            }
        }) {
            Some(v) => v,
            None => return Some(if negative { i64::MIN } else { i64::MAX }),
        };
    }
    Some(value)
}

/// C's `strtod`: leading space, then the longest prefix that is a decimal
/// number, `inf`, `infinity` or `nan` (any case); `None` when there is none.
fn read_c_real(text: &str) -> Option<f64> {
    let t = text.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let bytes = t.as_bytes();
    let mut i = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let word = t[i..].to_ascii_lowercase();
    let sign = if t.starts_with('-') { -1.0 } else { 1.0 };
    if word.starts_with("inf") {
        return Some(sign * f64::INFINITY);
    }
    if word.starts_with("nan") {
        return Some(f64::NAN.copysign(sign));
    }
    let digits_from = |i: &mut usize| {
        let start = *i;
        while *i < bytes.len() && bytes[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let mut count = digits_from(&mut i);
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        count += digits_from(&mut i);
    }
    if count == 0 {
        return None;
    }
    if i < bytes.len() && matches!(bytes[i], b'e' | b'E') {
        let mut j = i + 1;
        if j < bytes.len() && matches!(bytes[j], b'+' | b'-') {
            j += 1;
        }
        if digits_from(&mut j) > 0 {
            i = j;
        }
    }
    t[..i].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::{ParseOptions, parse_ad};
    use crate::unparse::unparse_ad;

    fn parser() -> Parser {
        Parser::new(ParseOptions::default())
    }

    fn round_trip(text: &str) -> AdExpr {
        let ad = parse_ad(text).unwrap();
        for pretty in [true, false] {
            let mut xml = String::new();
            write_ad_xml(&ad, pretty, &mut xml);
            let back = parse_xml_ad(&parser(), &xml).unwrap_or_else(|e| panic!("{xml}: {e}"));
            assert_eq!(unparse_ad(&back), unparse_ad(&ad), "{xml}");
        }
        ad
    }

    // The forms below are those of HTCondor's ClassAdXMLUnParser
    // (xmlSink.cpp); classad2 has no XML to ask.
    #[test]
    fn every_value_kind() {
        let ad = round_trip(
            r#"[i = -3; r = 2.5; z = 0.0; s = "a\"b\\c<&>\n"; t = true; f = false;
                u = undefined; e = error; l = {1, "x", {}}; c = [d = 1];
                at = absTime("2004-01-01T00:00:00-00:00"); x = a.b + f(1, "&") >= 2]"#,
        );
        assert_eq!(
            ad_to_xml_compact(&ad),
            "<c><a n=\"i\"><i>-3</i></a><a n=\"r\"><r>2.500000000000000E+00</r></a>\
             <a n=\"z\"><r>0.0</r></a><a n=\"s\"><s>a\"b\\\\c&lt;&amp;&gt;\\n</s></a>\
             <a n=\"t\"><b v=\"t\"/></a><a n=\"f\"><b v=\"f\"/></a><a n=\"u\"><un/></a>\
             <a n=\"e\"><er/></a><a n=\"l\"><l><i>1</i><s>x</s><l></l></l></a>\
             <a n=\"c\"><c><a n=\"d\"><i>1</i></a></c></a>\
             <a n=\"at\"><at>2004-01-01T00:00:00-00:00</at></a>\
             <a n=\"x\"><e>a.b + f(1,\"&amp;\") &gt;= 2</e></a></c>"
        );
    }

    // HTCondor 25's writer takes a literal's value, and a relative time's
    // literal evaluates to a real (its JSON writer, which the oracle runs,
    // writes `relTime("01:01")` as 61.0): so the real, read back as one.
    // A relative time that is not a literal string stays an expression.
    #[test]
    fn a_relative_time_literal_is_written_as_its_real() {
        let ad = parse_ad(
            r#"[rt = relTime("3+01:14:16.123"); l = {relTime("01:01"), relTime("")};
                n = relTime(61); bad = relTime("x" + "y")]"#,
        )
        .unwrap();
        assert_eq!(
            ad_to_xml_compact(&ad),
            "<c><a n=\"rt\"><r>2.636561230000000E+05</r></a>\
             <a n=\"l\"><l><r>6.100000000000000E+01</r><r>0.0</r></l></a>\
             <a n=\"n\"><e>relTime(61)</e></a>\
             <a n=\"bad\"><e>relTime(\"x\" + \"y\")</e></a></c>"
        );
        let mut xml = String::new();
        write_ad_xml(&ad, false, &mut xml);
        let back = parse_xml_ad(&parser(), &xml).unwrap();
        assert_eq!(
            unparse_ad(&back),
            "[ rt = 2.636561230000000E+05; l = { 6.100000000000000E+01,0.0 }; \
             n = relTime(61); bad = relTime(\"x\" + \"y\") ]"
        );
    }

    #[test]
    fn pretty_nesting_indents_by_four() {
        let ad = parse_ad("[a = [b = 1]; l = {[c = 2]}]").unwrap();
        assert_eq!(
            ad_to_xml(&ad),
            "<c>\n    <a n=\"a\"><c>\n        <a n=\"b\"><i>1</i></a>\n    </c></a>\n    \
             <a n=\"l\"><l><c>\n        <a n=\"c\"><i>2</i></a>\n    </c></l></a>\n</c>\n"
        );
    }

    #[test]
    fn names_and_reals_read_back() {
        round_trip(r#"['a "b" <c>' = 1; r = 0.1; big = 1e300; n = -0.0; w = "é"]"#);
        let ad = parse_ad("[x = real(\"NaN\"); y = real(\"-INF\")]").unwrap();
        assert!(ad_to_xml(&ad).contains("<e>real(\"NaN\")</e>"));
    }

    #[test]
    fn reader_follows_htcondor() {
        let p = parser();
        let ad = parse_xml_ad(
            &p,
            "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\
             <!-- note --><c>\n <a n=\"i\"><i> 12abc</i></a><a n=\"j\"><i>x</i></a>\
             <a n=\"big\"><i>99999999999999999999</i></a><a n=\"r\"><r>1e3x</r></a>\
             <a n=\"inf\"><r>-inf</r></a><a n=\"b\"><b v=\"T\"></b></a><a n=\"b2\"><b v=\"yes\"/></a>\
             <a n=\"s\"><s>  two  spaces &quot; </s></a><a n=\"empty\"><s></s></a>\
             <a n=\"esc\"><s>\\101\\t</s></a></c></classads>",
        )
        .unwrap();
        assert_eq!(
            unparse_ad(&ad),
            "[ i = 12; j = error; big = 9223372036854775807; r = 1.000000000000000E+03; \
             inf = real(\"-INF\"); b = true; b2 = false; s = \"  two  spaces &quot; \"; \
             empty = \"\"; esc = \"A\\t\" ]"
        );
    }

    #[test]
    fn bad_ads_are_errors_with_positions_and_reading_goes_on() {
        let p = parser();
        let text = "<classads>\n<c><a n=\"x\"><i>1</i></a></c>\n<c>\n<a><i>1</i></a></c>\n\
                    <c><a n=\"y\"><e>1 +</e></a></c>\n<c><a n=\"z\"><foo/></a></c>\n\
                    <c><a n=\"w\"><l>text</l></a></c>\n<c><a n=\"ok\"><i>2</i></a></c>\n</classads>";
        let ads: Vec<_> = parse_xml_ads(&p, text).map(|(_, r)| r).collect();
        assert_eq!(ads.len(), 6);
        assert!(ads[0].is_ok() && ads[5].is_ok());
        let lines: Vec<usize> = ads[1..5]
            .iter()
            .map(|r| r.as_ref().unwrap_err().line)
            .collect();
        assert_eq!(lines, [4, 5, 6, 7]);
        assert!(
            ads[1]
                .as_ref()
                .unwrap_err()
                .message
                .contains("needs a name")
        );
    }

    /// Positions are counted from the previous one: a long line of bad ads
    /// costs linear time, not the quadratic of counting from the start.
    #[test]
    fn many_bad_ads_on_one_line_each_reported() {
        // 100,000 bad ads on one line: once took minutes, when each bad ad
        // searched the rest of the text for the next line holding an ad.
        let p = parser();
        let text = "<c><a><i>1</i></a></c>".repeat(100_000);
        let mut count = 0;
        for (_, ad) in parse_xml_ads(&p, &text) {
            let e = ad.unwrap_err();
            assert_eq!(e.line, 1);
            count += 1;
        }
        assert_eq!(count, 100_000);
    }

    #[test]
    fn hostile_input_is_an_error() {
        let p = parser();
        let deep = "<c><a n=\"a\">".repeat(10_000);
        assert!(parse_xml_ad(&p, &deep).is_err());
        let lists = format!("<c><a n=\"a\">{}", "<l>".repeat(10_000));
        assert!(parse_xml_ad(&p, &lists).is_err());
        for text in [
            "<c",
            "<c><a n=\"x\"><i>1</i>",
            "<c><!-- ",
            "<c><a n=\"x\"><s>\\0</s></a></c>",
            "",
        ] {
            assert!(parse_xml_ad(&p, text).is_err(), "{text}");
        }
    }
}
