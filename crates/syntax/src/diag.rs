//! Parse errors: where, what was expected, what was found, in plain words.
//!
//! An error keeps the byte span it is about; line and column are worked
//! out from the source when the error is made, so an error can be shown
//! without the source. [`ParseError::render`] draws the source line with
//! the span underlined, as a compiler would.

use crate::ast::Span;
use std::fmt;

/// Why a text could not be read as ClassAd.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The whole message, lower-case, user input in backticks.
    pub message: String,
    /// The bytes the error is about (may be empty, at a position).
    pub span: Span,
    /// 1-based line of the span's start.
    pub line: usize,
    /// 1-based column (in characters) of the span's start.
    pub column: usize,
}

impl ParseError {
    /// An error about `span` of `source`.
    pub fn new(source: &str, span: Span, message: impl Into<String>) -> ParseError {
        let (line, column) = line_column(source, span.start as usize);
        ParseError {
            message: message.into(),
            span,
            line,
            column,
        }
    }

    /// Moves the error into a larger text: `offset` bytes and `lines`
    /// lines precede the text it was found in.
    pub fn shifted(mut self, offset: usize, lines: usize, first_line_column: usize) -> ParseError {
        if self.line == 1 {
            self.column += first_line_column;
        }
        self.line += lines;
        let offset = u32::try_from(offset).unwrap_or(u32::MAX);
        self.span.start = self.span.start.saturating_add(offset);
        self.span.end = self.span.end.saturating_add(offset);
        self
    }

    /// The message with the offending line of `source` shown and the span
    /// underlined with carets. `source` must be the text the span refers to.
    pub fn render(&self, source: &str, origin: &str) -> String {
        let mut out = format!(
            "error: {}\n --> {}:{}:{}\n",
            self.message, origin, self.line, self.column
        );
        let start = (self.span.start as usize).min(source.len());
        let line_start = source[..floor_char(source, start)]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        let line_end = source[line_start..]
            .find('\n')
            .map_or(source.len(), |i| line_start + i);
        let text = source[line_start..line_end].trim_end_matches('\r');
        let gutter = self.line.to_string();
        let pad = " ".repeat(gutter.len());
        let span_end = (self.span.end as usize).clamp(start, line_end.max(start));
        let width = source
            .get(start..span_end)
            .map_or(1, |s| s.chars().count())
            .clamp(1, SHOWN_AFTER);
        // Only a window of the line around the error is shown, so a parse
        // error on a huge one-line ad does not echo the whole ad. The
        // column is counted in `source`, which may be a window of the line
        // the error is on (see `AdError::text`).
        let column = source[line_start..floor_char(source, start)]
            .chars()
            .count();
        let (first, last) = if text.len() <= SHOWN_WHOLE {
            (0, usize::MAX)
        } else {
            (
                column.saturating_sub(SHOWN_BEFORE),
                column + width + SHOWN_AFTER,
            )
        };
        let mut shown = String::new();
        let mut lead = String::new();
        let mut clipped_end = false;
        for (n, c) in text.chars().enumerate().skip(first) {
            if n >= last {
                clipped_end = true;
                break;
            }
            shown.push(c);
            if n < column {
                lead.push(if c == '\t' { '\t' } else { ' ' });
            }
        }
        let (open, lead_pad) = if first > 0 { ("...", "   ") } else { ("", "") };
        let close = if clipped_end { "..." } else { "" };
        out.push_str(&format!(
            "{pad} |\n{gutter} | {open}{shown}{close}\n{pad} | {lead_pad}{lead}{}\n",
            "^".repeat(width)
        ));
        out
    }
}

/// Lines up to this many bytes are shown whole.
const SHOWN_WHOLE: usize = 120;
/// Characters of a longer line shown before the error's column.
const SHOWN_BEFORE: usize = 40;
/// Characters shown after the underlined span (and longest underline).
const SHOWN_AFTER: usize = 40;

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ParseError {}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// 1-based line and column (in characters) of byte `offset` in `source`.
pub fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let offset = floor_char(source, offset.min(source.len()));
    let before = &source[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// `text` as it may be quoted in a message: at most `max` characters, with
/// `...` where it was cut, so no message repeats a huge input.
pub fn excerpt(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

/// A short description of what stands at byte `offset`: a token-sized
/// excerpt in backticks, or "end of input".
pub fn describe_found(source: &str, offset: usize) -> (String, usize) {
    let offset = floor_char(source, offset.min(source.len()));
    let rest = &source[offset..];
    let Some(first) = rest.chars().next() else {
        return ("end of input".to_string(), 0);
    };
    let len = if first.is_ascii_alphanumeric() || first == '_' {
        rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len())
    } else if first == '\n' {
        return ("end of line".to_string(), 0);
    } else {
        let ops = [
            "=?=", "=!=", ">>>", "==", "!=", "<=", ">=", "<<", ">>", "&&", "||", "?:",
        ];
        ops.iter()
            .find(|op| rest.starts_with(**op))
            .map_or(first.len_utf8(), |op| op.len())
    };
    let len = len.min(24);
    let len = floor_char(rest, len);
    (format!("`{}`", &rest[..len]), len)
}
