//! Streaming readers of ad files: old syntax (`condor_q -long`), new
//! syntax (a sequence of `[ ... ]` ads) and HTCondor's JSON.
//!
//! An [`AdReader`] reads from any [`BufRead`] ad by ad and yields each ad
//! or an [`AdError`]; a bad ad does not stop the reading. Old and new
//! syntax are read without holding more than one ad in memory (an ad or
//! line longer than 256 MiB is skipped unread); JSON and XML are one
//! document, read whole up to [`max_input_bytes`] (1 GiB unless set). Every
//! span in the trees, and every error position, is a byte offset and
//! line/column in the whole input.
//!
//! ```
//! use classad_syntax::{AdReader, Format, Parser, ParseOptions};
//! let parser = Parser::new(ParseOptions::default());
//! let text = "A = 1\nB = A + 1\n\nA = 2 +\n\nA = 3\n";
//! let ads: Vec<_> = AdReader::new(text.as_bytes(), Format::Old, &parser).collect();
//! assert_eq!(ads.len(), 3);
//! assert!(ads[0].is_ok() && ads[2].is_ok());
//! let err = ads[1].as_ref().unwrap_err();
//! assert_eq!((err.ordinal, err.first_line, err.error.line), (2, 4, 4));
//! ```

use crate::ast::{AdExpr, Span};
use crate::diag::{ParseError, describe_found};
use crate::json::JsonAdCursor;
use crate::parser::{AdBuilder, ParseOptions, Parser};
use crate::xml::XmlAdCursor;
use std::fmt;
use std::io::{self, BufRead, Read};
use std::str::FromStr;
use std::sync::Arc;

/// The text forms of ads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Old syntax: `Name = expr` lines, ads separated by blank lines.
    Old,
    /// New syntax: a sequence of `[ ... ]` ads.
    New,
    /// HTCondor's JSON: one object, a sequence of objects, or an array.
    Json,
    /// HTCondor's XML: `<c>` ads, usually inside `<classads>`.
    Xml,
}

impl Format {
    /// The name used on command lines: `old`, `new`, `json`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Old => "old",
            Format::New => "new",
            Format::Json => "json",
            Format::Xml => "xml",
        }
    }

    /// The format a text starting with byte `first` (its first non-blank
    /// byte) is in: `[` (or a `/` comment) is new syntax, `{` JSON, anything
    /// else old syntax.
    pub fn from_first_byte(first: Option<u8>) -> Format {
        match first {
            Some(b'[' | b'/') => Format::New,
            Some(b'{') => Format::Json,
            Some(b'<') => Format::Xml,
            _ => Format::Old,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        match s.to_ascii_lowercase().as_str() {
            "old" => Ok(Format::Old),
            "new" => Ok(Format::New),
            "json" => Ok(Format::Json),
            "xml" => Ok(Format::Xml),
            _ => Err(format!(
                "unknown ad format `{s}` (expected old, new, json or xml)"
            )),
        }
    }
}

/// The format of `text`, by its first non-blank characters: `{` is JSON;
/// `[` is new syntax unless the next non-blank character is `{` (an array
/// of JSON ads) or the text is `[ ]` alone (an empty array); a `/` (a
/// comment) is new syntax; `<` XML; anything else old syntax.
pub fn detect_format(text: &str) -> Format {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rest = text.as_bytes();
    let mut next = || {
        let i = rest.iter().position(|b| !b.is_ascii_whitespace())?;
        let b = rest[i];
        rest = &rest[i + 1..];
        Some(b)
    };
    decide(&mut next)
}

/// The detection rule of [`detect_format`], over a source of non-blank bytes.
fn decide(next: &mut impl FnMut() -> Option<u8>) -> Format {
    let first = next();
    if first != Some(b'[') {
        return Format::from_first_byte(first);
    }
    match next() {
        Some(b'{') => Format::Json,
        Some(b']') if next().is_none() => Format::Json,
        _ => Format::New,
    }
}

/// An ad that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdError {
    /// 1-based position of the ad in the input, counting good and bad ads.
    pub ordinal: usize,
    /// 1-based line where the ad starts.
    pub first_line: usize,
    /// The error, with its span, line and column in the whole input.
    pub error: ParseError,
    /// The source text around the error, for [`AdError::render`]; it
    /// starts at the beginning of a line (text before the ad on its first
    /// line is replaced by spaces).
    pub text: String,
    /// Byte offset in the input that `text` starts at.
    pub text_offset: usize,
}

impl AdError {
    /// The error drawn as a compiler would, with the file's line numbers
    /// (see [`ParseError::render`]).
    pub fn render(&self, origin: &str) -> String {
        let mut local = self.error.clone();
        let offset = u32::try_from(self.text_offset).unwrap_or(u32::MAX);
        local.span.start = local.span.start.saturating_sub(offset);
        local.span.end = local.span.end.saturating_sub(offset);
        local.render(&self.text, origin)
    }

    fn io(ordinal: usize, line: usize, offset: usize, error: &io::Error) -> AdError {
        AdError {
            ordinal,
            first_line: line,
            error: ParseError {
                message: format!("cannot read the input: {error}"),
                span: Span::new(offset, offset),
                line,
                column: 1,
            },
            text: String::new(),
            text_offset: offset,
        }
    }
}

impl fmt::Display for AdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ad {} (from line {}): {}",
            self.ordinal, self.first_line, self.error
        )
    }
}

impl std::error::Error for AdError {}

/// An old-syntax ad read only in part: a line could not be read, and, as
/// HTCondor does (its `InsertFromFile` stops at the first line it cannot
/// read and skips to the blank line that ends the ad), the ad keeps the
/// lines before it and drops that line and the rest of the ad. The ad is
/// yielded; this says what was dropped, so that nothing is lost silently.
/// [`ParseOptions::refuse_partial_ads`] refuses such an ad instead. An ad
/// whose first line cannot be read has nothing to keep: it is an
/// [`AdError`] either way, as in HTCondor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdWarning {
    /// Why the line could not be read, where the ad is, and the line
    /// (as an [`AdError`] would say it).
    pub error: AdError,
    /// Lines of the ad read before the unreadable line (each defines an
    /// attribute; one defined twice keeps its last definition).
    pub kept_lines: usize,
    /// Lines dropped: the unreadable line and the lines after it up to
    /// the end of the ad (comment lines not counted).
    pub dropped_lines: usize,
}

impl AdWarning {
    /// The warning drawn as a compiler would (see [`AdError::render`]),
    /// with a note that says what was kept and what dropped.
    pub fn render(&self, origin: &str) -> String {
        let drawn = self.error.render(origin);
        let mut text = match drawn.strip_prefix("error: ") {
            Some(rest) => format!("warning: {rest}"),
            None => drawn,
        };
        text.push_str(&format!("  = note: {}\n", self.note()));
        text
    }

    /// What was kept and what dropped, in words.
    pub fn note(&self) -> String {
        let plural = |n: usize, one: &str| {
            if n == 1 {
                format!("1 {one}")
            } else {
                format!("{n} {one}s")
            }
        };
        let line = self.error.error.line;
        let dropped = match self.dropped_lines {
            0 | 1 => format!("line {line} is dropped, as HTCondor drops it"),
            n => format!(
                "line {line} and the {} after it in the ad are dropped, as HTCondor drops them",
                plural(n - 1, "line")
            ),
        };
        format!(
            "ad {} (from line {}) keeps its {} before line {line}; {dropped} \
             (--refuse-partial-ads, or ParseOptions::refuse_partial_ads, refuses the ad \
             instead)",
            self.error.ordinal,
            self.error.first_line,
            plural(self.kept_lines, "line"),
        )
    }
}

impl fmt::Display for AdWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; {}", self.error, self.note())
    }
}

/// Reads ads one by one from a [`BufRead`], as an iterator of
/// `Result<AdExpr, AdError>`. One [`Parser`] serves the whole input, so
/// attribute names are interned once.
pub struct AdReader<'p, R> {
    reader: R,
    parser: &'p Parser,
    format: Format,
    /// Ads (and failures) yielded so far.
    ordinal: usize,
    /// Bytes consumed from `reader`.
    offset: usize,
    /// Lines completed so far (0-based number of the current line).
    line: usize,
    /// Characters since the start of the current line.
    column: usize,
    done: bool,
    line_buf: Vec<u8>,
    /// Old syntax: where the lines of the chunk being read end.
    line_ends: Vec<usize>,
    scan: NewScan,
    json: Option<JsonDoc>,
    /// Bytes to scan again before reading on (new syntax, after a broken
    /// ad was cut short), and how many of them are scanned.
    pending: Vec<u8>,
    pending_used: usize,
    /// Bytes read from `reader` (not counting those scanned again), and
    /// bytes of broken ads parsed again after a cut: bounded by the first,
    /// so that cutting cannot make reading quadratic.
    fresh: usize,
    resync_work: usize,
    /// Set once `resync_work` has passed its bound: from then on an ad
    /// also ends before a line that starts with `[` (where a cut would
    /// have been made), so that a broken ad costs only its own lines and
    /// the ads after it are still read.
    line_cuts: bool,
    /// Whether the start of the input was checked for a byte-order mark.
    bom_checked: bool,
    xml: Option<(String, XmlAdCursor)>,
    /// New syntax: whether the input ended inside an ad or a comment, and
    /// how many broken ads were cut short (see [`read_ads_parallel`]).
    ended_inside: bool,
    cuts: usize,
    /// Old-syntax ads read in part, not yet taken (see [`AdWarning`]).
    warnings: Vec<AdWarning>,
}

/// An old-syntax ad being read, line by line.
struct OldAd {
    ad: AdBuilder,
    /// The line of its first definition.
    first_line: Option<usize>,
    /// The first line that could not be read; the lines after it are not.
    failure: Option<AdError>,
    /// Lines read before the failure, and lines from it on (not counting
    /// comments), for the [`AdWarning`] of an ad read in part.
    kept: usize,
    dropped: usize,
}

impl OldAd {
    /// Reads one line (without its `\n`; `text` is the same line when it
    /// is known to be UTF-8), which starts at byte `start` of the input and
    /// is line `line_no`. `true` at a blank line that ends the ad.
    fn line(
        &mut self,
        parser: &Parser,
        line: &[u8],
        text: Option<&str>,
        start: usize,
        line_no: usize,
    ) -> bool {
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            return self.first_line.is_some();
        }
        if trimmed[0] == b'#' {
            return false;
        }
        self.first_line.get_or_insert(line_no);
        if self.failure.is_some() {
            self.dropped += 1;
            return false;
        }
        let text = match text {
            Some(text) => Ok(text),
            None => std::str::from_utf8(line),
        };
        let text = text.map(|text| text.strip_suffix('\r').unwrap_or(text));
        let (error, shown) = match text {
            Err(e) => {
                let shown = String::from_utf8_lossy(line.strip_suffix(b"\r").unwrap_or(line));
                let at = e.valid_up_to();
                let column = String::from_utf8_lossy(&line[..at]).chars().count() + 1;
                let error = ParseError {
                    message: "the line is not valid UTF-8".to_string(),
                    span: Span::new(start + at, start + at + 1),
                    line: line_no,
                    column,
                };
                (error, shown.into_owned())
            }
            Ok(text) => match parser.parse_old_line_into(text, start, &mut self.ad) {
                Ok(()) => {
                    self.kept += 1;
                    return false;
                }
                Err(err) => (err.shifted(start, line_no - 1, 0), text.to_string()),
            },
        };
        self.fail(AdError {
            ordinal: 0,
            first_line: 0,
            error,
            text: shown,
            text_offset: start,
        });
        false
    }

    /// Records a line that could not be read: the first such line fails
    /// the rest of the ad.
    fn fail(&mut self, error: AdError) {
        self.dropped += 1;
        self.failure.get_or_insert(error);
    }
}

/// Where the new-syntax scanner stands between calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum ScanState {
    /// Between ads.
    #[default]
    Outside,
    /// Between ads, just after a `/`.
    OutsideSlash,
    OutsideLineComment,
    OutsideBlockComment,
    OutsideBlockStar,
    /// In text that is not an ad, up to the next `[`.
    Garbage,
    /// Inside an ad.
    Normal,
    Slash,
    Str(u8),
    StrEscape(u8),
    LineComment,
    BlockComment,
    BlockStar,
}

#[derive(Default)]
struct NewScan {
    state: ScanState,
    /// The current ad (or garbage) text.
    buf: Vec<u8>,
    /// Bracket depth inside the current ad.
    depth: usize,
    /// Offset, line (1-based) and column (chars before it) of its start.
    start: (usize, usize, usize),
    /// The text grew past `MAX_AD_BYTES`: only its first `SHOWN_BYTES`
    /// are kept, and it is reported unread.
    overflow: bool,
}

struct JsonDoc {
    /// Shared by the readers of the parts of one document.
    text: Arc<str>,
    cursor: JsonAdCursor,
    /// Line counting for ad starts: offset reached, newlines before it.
    line_at: (usize, usize),
    /// Offsets of bytes that were not UTF-8 (replaced in `text`).
    invalid: Vec<usize>,
}

enum Event {
    /// An ad's text is complete in `scan.buf`.
    Ad,
    /// Text that is not an ad is complete in `scan.buf`.
    Garbage,
}

impl<'p, R: BufRead> AdReader<'p, R> {
    /// A reader of ads in `format`, parsing with `parser`.
    pub fn new(reader: R, format: Format, parser: &'p Parser) -> AdReader<'p, R> {
        AdReader {
            reader,
            parser,
            format,
            ordinal: 0,
            offset: 0,
            line: 0,
            column: 0,
            done: false,
            line_buf: Vec::new(),
            line_ends: Vec::new(),
            scan: NewScan::default(),
            json: None,
            pending: Vec::new(),
            pending_used: 0,
            fresh: 0,
            resync_work: 0,
            line_cuts: false,
            bom_checked: false,
            xml: None,
            ended_inside: false,
            cuts: 0,
            warnings: Vec::new(),
        }
    }

    /// A reader of a part of a file that starts `offset` bytes and `lines`
    /// lines into it, at the start of a line: positions are the file's.
    pub(crate) fn part(
        reader: R,
        format: Format,
        parser: &'p Parser,
        offset: usize,
        lines: usize,
    ) -> Self {
        let mut part = AdReader::new(reader, format, parser);
        part.offset = offset;
        part.line = lines;
        // A byte-order mark is skipped only at the start of the file.
        part.bom_checked = offset > 0;
        part
    }

    /// Skips a UTF-8 byte-order mark at the start of the input, as
    /// HTCondor does.
    fn skip_bom(&mut self) -> io::Result<()> {
        self.bom_checked = true;
        let chunk = loop {
            match self.reader.fill_buf() {
                Ok(chunk) => break chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        if chunk.starts_with(BOM) {
            self.reader.consume(BOM.len());
            self.offset += BOM.len();
        }
        Ok(())
    }

    /// The format being read.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Bytes of input consumed so far.
    pub fn bytes_read(&self) -> usize {
        self.offset
    }

    fn next_old(&mut self) -> Option<Result<AdExpr, AdError>> {
        // Ads of one file are much alike: room for as many attributes as
        // the last one had saves growing the ad attribute by attribute.
        let parser = self.parser;
        let mut ad = OldAd {
            ad: parser.take_builder(),
            first_line: None,
            failure: None,
            kept: 0,
            dropped: 0,
        };
        ad.ad.begin();
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.done = true;
                    self.ordinal += 1;
                    let (line, offset) = (self.line + 1, self.offset);
                    parser.give_back_builder(ad.ad);
                    return Some(Err(AdError::io(self.ordinal, line, offset, &e)));
                }
            };
            if chunk.is_empty() {
                self.done = true;
                break;
            }
            // The complete lines of the chunk up to the blank line that
            // ends the ad are read in place, their UTF-8 checked at once.
            self.line_ends.clear();
            let mut end = 0;
            let mut content = ad.first_line.is_some();
            let mut ends_ad = false;
            while let Some(i) = memchr::memchr(b'\n', &chunk[end..]) {
                let first = chunk[end..end + i]
                    .iter()
                    .find(|b| !b.is_ascii_whitespace());
                end += i + 1;
                self.line_ends.push(end - 1);
                match first {
                    None if content => {
                        ends_ad = true;
                        break;
                    }
                    None | Some(b'#') => {}
                    Some(_) => content = true,
                }
                // A few thousand lines at a time, so that the line table
                // stays small whatever the ad.
                if self.line_ends.len() >= OLD_LINES_AT_ONCE {
                    break;
                }
            }
            if end == 0 {
                // A line that does not end in the chunk (or the last line
                // of the input, without a newline) is read through a copy.
                self.line_buf.clear();
                let start = self.offset;
                match read_line_capped(&mut self.reader, &mut self.line_buf) {
                    Ok(0) => {
                        self.done = true;
                        break;
                    }
                    Ok(n) => {
                        self.offset += n;
                        self.line += 1;
                        if self.line_buf.len() > MAX_AD_BYTES {
                            self.line_buf.truncate(SHOWN_BYTES);
                            ad.first_line.get_or_insert(self.line);
                            ad.fail(AdError {
                                ordinal: 0,
                                first_line: 0,
                                error: too_long(start, self.line, 1),
                                text: String::from_utf8_lossy(&self.line_buf).into_owned(),
                                text_offset: start,
                            });
                            continue;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        self.done = true;
                        self.ordinal += 1;
                        parser.give_back_builder(ad.ad);
                        return Some(Err(AdError::io(self.ordinal, self.line + 1, start, &e)));
                    }
                }
                let line = self.line_buf.strip_suffix(b"\n");
                let line = line.unwrap_or(&self.line_buf);
                if ad.line(parser, line, None, start, self.line) {
                    break;
                }
                continue;
            }
            let region = &chunk[..end];
            let valid = std::str::from_utf8(region).ok();
            let mut at = 0;
            for &line_end in &self.line_ends {
                self.line += 1;
                let text = valid.map(|text| &text[at..line_end]);
                ad.line(
                    parser,
                    &region[at..line_end],
                    text,
                    self.offset + at,
                    self.line,
                );
                at = line_end + 1;
            }
            self.offset += end;
            self.reader.consume(end);
            if ends_ad {
                break;
            }
        }
        let built = ad.ad.finish();
        parser.give_back_builder(ad.ad);
        let first_line = ad.first_line?;
        self.ordinal += 1;
        Some(match ad.failure {
            None => Ok(built),
            Some(mut err) => {
                err.ordinal = self.ordinal;
                err.first_line = first_line;
                // As HTCondor: the lines before the unreadable one make the
                // ad (none: the ad fails), the rest is dropped, and said so.
                if ad.kept > 0 && !parser.options().refuse_partial_ads {
                    self.warnings.push(AdWarning {
                        error: err,
                        kept_lines: ad.kept,
                        dropped_lines: ad.dropped,
                    });
                    Ok(built)
                } else {
                    Err(err)
                }
            }
        })
    }

    /// Takes the warnings about ads read in part (old syntax: an
    /// unreadable line dropped the rest of its ad, see [`AdWarning`]) met
    /// since the last call. A warning is ready as soon as its ad is
    /// yielded: take them after each ad to report them in order.
    pub fn take_warnings(&mut self) -> Vec<AdWarning> {
        std::mem::take(&mut self.warnings)
    }

    /// Scans bytes until an ad or a stretch of garbage is complete, or the
    /// input ends.
    fn scan_new(&mut self) -> io::Result<Option<Event>> {
        loop {
            let from_pending = self.pending_used < self.pending.len();
            let chunk = if from_pending {
                &self.pending[self.pending_used..]
            } else {
                match self.reader.fill_buf() {
                    Ok(chunk) => chunk,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            if chunk.is_empty() {
                let scan = &mut self.scan;
                let event = match scan.state {
                    ScanState::Outside | ScanState::OutsideLineComment => None,
                    ScanState::OutsideBlockComment | ScanState::OutsideBlockStar => {
                        self.ended_inside = true;
                        None
                    }
                    ScanState::OutsideSlash | ScanState::Garbage => Some(Event::Garbage),
                    _ => {
                        self.ended_inside = true;
                        Some(Event::Ad)
                    }
                };
                scan.state = ScanState::Outside;
                return Ok(event);
            }
            let mut used = 0;
            let mut event = None;
            let line_cuts = self.line_cuts;
            let scan = &mut self.scan;
            // Line and column are brought up to date where an ad starts and
            // at the end of the chunk, not byte by byte.
            let mut counted = 0;
            while used < chunk.len() {
                use ScanState::*;
                // Runs of bytes that change nothing but the text kept are
                // skipped at once: inside an ad, all but quotes, `/` and
                // brackets; inside a string, all but its quote and `\`.
                let run = match scan.state {
                    Normal => chunk[used..]
                        .iter()
                        .position(|&b| NEW_SPECIAL[usize::from(b)])
                        .unwrap_or(chunk.len() - used),
                    Str(q) if line_cuts => memchr::memchr3(q, b'\\', b'[', &chunk[used..])
                        .unwrap_or(chunk.len() - used),
                    Str(q) => {
                        memchr::memchr2(q, b'\\', &chunk[used..]).unwrap_or(chunk.len() - used)
                    }
                    Outside => chunk[used..]
                        .iter()
                        .position(|&b| !b.is_ascii_whitespace())
                        .unwrap_or(chunk.len() - used),
                    _ => 0,
                };
                if run > 0 {
                    if scan.state != Outside {
                        scan.buf.extend_from_slice(&chunk[used..used + run]);
                    }
                    used += run;
                    continue;
                }
                let b = chunk[used];
                if line_cuts
                    && b == b'['
                    && scan.buf.len() > 1
                    && scan.buf.last() == Some(&b'\n')
                    && !matches!(
                        scan.state,
                        Outside
                            | OutsideSlash
                            | OutsideLineComment
                            | OutsideBlockComment
                            | OutsideBlockStar
                            | Garbage
                    )
                {
                    // The `[` is left for the next ad.
                    scan.state = Outside;
                    event = Some(Event::Ad);
                    break;
                }
                // Bytes of an ad (and of garbage) are kept; an ad ends after
                // its closing `]`, garbage before the next `[`.
                match scan.state {
                    Outside | OutsideSlash => {
                        if scan.state == OutsideSlash {
                            match b {
                                b'/' => {
                                    scan.state = OutsideLineComment;
                                    scan.buf.clear();
                                }
                                b'*' => {
                                    scan.state = OutsideBlockComment;
                                    scan.buf.clear();
                                }
                                b'[' => {
                                    scan.state = Outside;
                                    event = Some(Event::Garbage);
                                    break;
                                }
                                _ => {
                                    scan.state = Garbage;
                                    scan.buf.push(b);
                                }
                            }
                        } else {
                            advance(&mut self.line, &mut self.column, &chunk[counted..used]);
                            counted = used;
                            scan.start = (self.offset + used, self.line + 1, self.column);
                            scan.buf.clear();
                            scan.buf.push(b);
                            if b == b'[' {
                                scan.state = Normal;
                                scan.depth = 1;
                            } else if b == b'/' {
                                scan.state = OutsideSlash;
                            } else {
                                scan.state = Garbage;
                            }
                        }
                    }
                    OutsideLineComment => {
                        if b == b'\n' {
                            scan.state = Outside;
                        }
                    }
                    OutsideBlockComment | OutsideBlockStar => {
                        scan.state = match (scan.state, b) {
                            (OutsideBlockStar, b'/') => Outside,
                            (_, b'*') => OutsideBlockStar,
                            _ => OutsideBlockComment,
                        };
                    }
                    Garbage => {
                        if b == b'[' {
                            scan.state = Outside;
                            event = Some(Event::Garbage);
                            break;
                        }
                        scan.buf.push(b);
                    }
                    Normal | Slash => {
                        scan.buf.push(b);
                        if scan.state == Slash {
                            scan.state = Normal;
                            if b == b'/' {
                                scan.state = LineComment;
                            } else if b == b'*' {
                                scan.state = BlockComment;
                            }
                        }
                        if scan.state == Normal {
                            match b {
                                b'"' | b'\'' => scan.state = Str(b),
                                b'/' => scan.state = Slash,
                                b'[' => scan.depth += 1,
                                b']' => {
                                    scan.depth -= 1;
                                    if scan.depth == 0 {
                                        scan.state = Outside;
                                        event = Some(Event::Ad);
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    Str(q) => {
                        scan.buf.push(b);
                        if b == b'\\' {
                            scan.state = StrEscape(q);
                        } else if b == q {
                            scan.state = Normal;
                        }
                    }
                    StrEscape(q) => {
                        scan.buf.push(b);
                        scan.state = Str(q);
                    }
                    LineComment => {
                        scan.buf.push(b);
                        if b == b'\n' {
                            scan.state = Normal;
                        }
                    }
                    BlockComment | BlockStar => {
                        scan.buf.push(b);
                        scan.state = match (scan.state, b) {
                            (BlockStar, b'/') => Normal,
                            (_, b'*') => BlockStar,
                            _ => BlockComment,
                        };
                    }
                }
                used += 1;
                if event.is_some() {
                    break;
                }
            }
            if scan.buf.len() > MAX_AD_BYTES {
                scan.buf.truncate(SHOWN_BYTES);
                scan.overflow = true;
            }
            advance(&mut self.line, &mut self.column, &chunk[counted..used]);
            self.offset += used;
            if from_pending {
                self.pending_used += used;
            } else {
                self.fresh += used;
                self.reader.consume(used);
            }
            if event.is_some() {
                return Ok(event);
            }
        }
    }

    fn next_new(&mut self) -> Option<Result<AdExpr, AdError>> {
        let event = match self.scan_new() {
            Ok(Some(event)) => event,
            Ok(None) => {
                self.done = true;
                return None;
            }
            Err(e) => {
                self.done = true;
                self.ordinal += 1;
                return Some(Err(AdError::io(
                    self.ordinal,
                    self.line + 1,
                    self.offset,
                    &e,
                )));
            }
        };
        self.ordinal += 1;
        let (start, line, column) = self.scan.start;
        let buf = std::mem::take(&mut self.scan.buf);
        let padded = |buf: &[u8]| {
            let mut text = " ".repeat(column);
            text.push_str(&String::from_utf8_lossy(buf));
            text
        };
        let fail = |error: ParseError| AdError {
            ordinal: self.ordinal,
            first_line: line,
            error,
            text: padded(&buf),
            text_offset: start.saturating_sub(column),
        };
        let result = match event {
            _ if std::mem::take(&mut self.scan.overflow) => Err(AdError {
                text: padded(&buf[..buf.len().min(SHOWN_BYTES)]),
                ..fail(too_long(start, line, column + 1))
            }),
            Event::Garbage => {
                let text = String::from_utf8_lossy(&buf);
                let (found, len) = describe_found(&text, 0);
                Err(fail(ParseError {
                    message: format!("expected `[` to start an ad, found {found}"),
                    span: Span::new(start, start + len.max(1)),
                    line,
                    column: column + 1,
                }))
            }
            Event::Ad => match std::str::from_utf8(&buf) {
                Err(e) => {
                    let at = e.valid_up_to();
                    let (l, c) = crate::diag::line_column(&String::from_utf8_lossy(&buf[..at]), at);
                    Err(fail(ParseError {
                        message: "the ad is not valid UTF-8".to_string(),
                        span: Span::new(start + at, start + at + 1),
                        line: line + l - 1,
                        column: if l == 1 { c + column } else { c },
                    }))
                }
                Ok(text) => match self.parser.parse_ad_at(text, start) {
                    Ok(mut ad) => {
                        ad.drop_index();
                        Ok(ad)
                    }
                    Err(err) => match resync_point(&buf).inspect(|_| {
                        self.resync_work += buf.len();
                        if self.resync_work > RESYNC_WORK_PER_BYTE * self.fresh + (1 << 20) {
                            self.line_cuts = true;
                        }
                    }) {
                        // An unterminated string or an unbalanced `[` ran
                        // the ad into the ones after it: it ends where a
                        // line starts with `[`, and the rest is read again.
                        Some(cut) => {
                            self.cuts += 1;
                            let head = &buf[..cut];
                            let error = match std::str::from_utf8(head)
                                .map_err(|_| err.clone())
                                .and_then(|head| self.parser.parse_ad(head).map(|_| ()))
                            {
                                Err(head_err) => head_err,
                                Ok(()) => err,
                            };
                            let newlines = head.iter().filter(|&&b| b == b'\n').count();
                            let mut rest = buf[cut..].to_vec();
                            rest.extend_from_slice(&self.pending[self.pending_used..]);
                            self.pending = rest;
                            self.pending_used = 0;
                            self.offset = start + cut;
                            self.line = line - 1 + newlines;
                            self.column = 0;
                            self.scan.state = ScanState::Outside;
                            let mut failure = fail(error.shifted(start, line - 1, column));
                            failure.text = padded(head);
                            Err(failure)
                        }
                        None => Err(fail(err.shifted(start, line - 1, column))),
                    },
                },
            },
        };
        // Keep the buffer's allocation for the next ad.
        let mut buf = buf;
        buf.clear();
        self.scan.buf = buf;
        Some(result)
    }

    /// The whole input as text, for the formats read whole; `Err` is the
    /// error to yield.
    fn read_whole(&mut self) -> Result<String, AdError> {
        let bytes = match read_to_end_within(&mut self.reader, max_input_bytes()) {
            Ok(bytes) => bytes,
            Err(e) => {
                self.ordinal += 1;
                return Err(AdError::io(self.ordinal, 1, self.offset, &e));
            }
        };
        self.offset = bytes.len();
        String::from_utf8(bytes).map_err(|e| {
            self.ordinal += 1;
            let at = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let (line, column) = crate::diag::line_column(&text, at);
            let error = ParseError {
                message: "the input is not valid UTF-8".to_string(),
                span: Span::new(at, at + 1),
                line,
                column,
            };
            json_error(self.ordinal, 1, error, &text)
        })
    }

    fn next_xml(&mut self) -> Option<Result<AdExpr, AdError>> {
        if self.xml.is_none() {
            match self.read_whole() {
                Ok(text) => self.xml = Some((text, XmlAdCursor::new())),
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        let (text, cursor) = self.xml.as_mut()?;
        let Some((_, result)) = cursor.next_ad(self.parser, text) else {
            self.done = true;
            return None;
        };
        self.ordinal += 1;
        let first_line = cursor.ad_line();
        Some(result.map_err(|error| json_error(self.ordinal, first_line, error, text)))
    }

    fn next_json(&mut self) -> Option<Result<AdExpr, AdError>> {
        if self.json.is_none() {
            let bytes = match read_to_end_within(&mut self.reader, max_input_bytes()) {
                Ok(bytes) => bytes,
                Err(e) => {
                    self.done = true;
                    self.ordinal += 1;
                    return Some(Err(AdError::io(self.ordinal, 1, self.offset, &e)));
                }
            };
            self.offset = bytes.len();
            let (text, invalid) = json_text(bytes);
            self.json = Some(JsonDoc {
                text: text.into(),
                cursor: JsonAdCursor::new(),
                line_at: (0, 0),
                invalid,
            });
        }
        let doc = self.json.as_mut()?;
        let Some((start, result)) = doc.cursor.next_ad(self.parser, &doc.text) else {
            self.done = true;
            return None;
        };
        self.ordinal += 1;
        // Line of the ad's start, counting forward from the last one.
        let (from, lines) = doc.line_at;
        let start = start.max(from).min(doc.text.len());
        let newlines = doc.text.as_bytes()[from..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        doc.line_at = (start, lines + newlines);
        let first_line = lines + newlines + 1;
        let end = doc.cursor.position();
        let first_bad = doc.invalid.partition_point(|&p| p < start);
        if let Some(&bad) = doc.invalid.get(first_bad).filter(|&&p| p < end) {
            let (line, column) = crate::diag::line_column(&doc.text, bad);
            let error = ParseError {
                message: "the ad is not valid UTF-8".to_string(),
                span: Span::new(bad, bad + 1),
                line,
                column,
            };
            return Some(Err(json_error(self.ordinal, first_line, error, &doc.text)));
        }
        Some(
            result
                .map(|mut ad| {
                    ad.drop_index();
                    ad
                })
                .map_err(|error| json_error(self.ordinal, first_line, error, &doc.text)),
        )
    }
}

/// The text of a JSON document. A byte that is not UTF-8 fails only the
/// ad it is in: it is replaced by `?` (one byte, so offsets stay those of
/// the file) for the JSON reader, and its offset is returned so that its
/// ad is reported instead.
fn json_text(mut bytes: Vec<u8>) -> (String, Vec<usize>) {
    let mut invalid = Vec::new();
    let mut at = 0;
    while let Err(e) = std::str::from_utf8(&bytes[at..]) {
        let bad = at + e.valid_up_to();
        let len = e.error_len().unwrap_or(bytes.len() - bad);
        for b in &mut bytes[bad..bad + len] {
            *b = b'?';
        }
        invalid.push(bad);
        at = bad + len;
    }
    let text = String::from_utf8(bytes).expect("made valid UTF-8");
    (text, invalid)
}

/// An error in a JSON or XML document, keeping the line it is on, or a
/// window of `SHOWN_BYTES` either side of the error when the line is
/// longer (a one-line document of many ads must not be copied into each
/// of its errors).
fn json_error(ordinal: usize, first_line: usize, error: ParseError, text: &str) -> AdError {
    let floor = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let at = floor(error.span.start as usize);
    let bytes = text.as_bytes();
    let window_start = floor(at.saturating_sub(SHOWN_BYTES));
    let line_start = memchr::memrchr(b'\n', &bytes[window_start..at])
        .map_or(window_start, |i| window_start + i + 1);
    let window_end = floor(at.saturating_add(SHOWN_BYTES));
    let line_end = memchr::memchr(b'\n', &bytes[at..window_end]).map_or(window_end, |i| at + i);
    AdError {
        ordinal,
        first_line,
        error,
        text: text[line_start..line_end].to_string(),
        text_offset: line_start,
    }
}

impl<'p, R: BufRead> AdReader<'p, io::Chain<io::Cursor<Vec<u8>>, R>> {
    /// A reader whose format is found from the input, by the rule of
    /// [`detect_format`]. The text read to decide is read again by the
    /// returned reader.
    pub fn auto(mut reader: R, parser: &'p Parser) -> io::Result<Self> {
        let mut seen = Vec::new();
        // A byte-order mark is not the first character; it is kept for the
        // returned reader to skip.
        let starts_with_bom = loop {
            match reader.fill_buf() {
                Ok(chunk) => break chunk.starts_with(BOM),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        if starts_with_bom {
            reader.consume(BOM.len());
            seen.extend_from_slice(BOM);
        }
        let mut failure = None;
        let format = decide(&mut || match next_non_blank(&mut reader, &mut seen) {
            Ok(b) => b,
            Err(e) => {
                failure = Some(e);
                None
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        Ok(AdReader::new(
            io::Cursor::new(seen).chain(reader),
            format,
            parser,
        ))
    }
}

/// Reads up to and including the next non-blank byte, keeping what it
/// read in `seen`; `None` at the end of the input.
fn next_non_blank<R: BufRead>(reader: &mut R, seen: &mut Vec<u8>) -> io::Result<Option<u8>> {
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(None);
        }
        match chunk.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => {
                let b = chunk[i];
                seen.extend_from_slice(&chunk[..=i]);
                reader.consume(i + 1);
                return Ok(Some(b));
            }
            None => {
                let n = chunk.len();
                seen.extend_from_slice(chunk);
                reader.consume(n);
                if seen.len() > MAX_AD_BYTES {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "more than {} of blank text before the first ad",
                            human_bytes(MAX_AD_BYTES as u64)
                        ),
                    ));
                }
            }
        }
    }
}

/// Default bound on an input read whole into memory (a file given to
/// `classad check`, `match` or `eval --file`, a JSON or XML document read
/// from a stream): 1 GiB. See [`set_max_input_bytes`].
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 1 << 30;

static MAX_INPUT_BYTES: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(DEFAULT_MAX_INPUT_BYTES);

/// The bound on an input read whole: [`DEFAULT_MAX_INPUT_BYTES`] unless
/// [`set_max_input_bytes`] changed it.
pub fn max_input_bytes() -> u64 {
    MAX_INPUT_BYTES.load(std::sync::atomic::Ordering::Relaxed)
}

/// Sets the bound on an input read whole, for the whole process (the
/// command line's `--max-input`): an endless input (`/dev/zero`, a FIFO
/// that never closes) or a huge file is refused with [`InputTooLong`]
/// after that many bytes instead of being read until memory runs out.
pub fn set_max_input_bytes(bytes: u64) {
    MAX_INPUT_BYTES.store(bytes, std::sync::atomic::Ordering::Relaxed);
}

/// Why an input was not read: it is longer than the bound on inputs read
/// whole. Carried inside an [`io::Error`] of kind `InvalidData`; find it
/// with [`InputTooLong::of`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputTooLong {
    /// The bound, in bytes.
    pub limit: u64,
}

impl InputTooLong {
    /// The bound an error is about, when it is this error.
    pub fn of(error: &io::Error) -> Option<InputTooLong> {
        error.get_ref()?.downcast_ref::<InputTooLong>().copied()
    }
}

impl fmt::Display for InputTooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the input is longer than {}, the limit on an input read whole \
             (raise it with --max-input BYTES on the command line, \
             set_max_input_bytes in the library)",
            human_bytes(self.limit)
        )
    }
}

impl std::error::Error for InputTooLong {}

/// `n` bytes in words: `1 GiB`, `256 MiB`, `1500 bytes`.
pub fn human_bytes(n: u64) -> String {
    for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift && n.is_multiple_of(1 << shift) {
            return format!("{} {unit}", n >> shift);
        }
    }
    format!("{n} bytes")
}

/// Reads `reader` to its end, refusing (with [`InputTooLong`]) an input
/// longer than `limit` bytes after reading one byte more than that.
pub fn read_to_end_within<R: Read>(reader: R, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut limited = reader.take(limit.saturating_add(1));
    loop {
        match limited.read_to_end(&mut bytes) {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            InputTooLong { limit },
        ));
    }
    Ok(bytes)
}

/// The bytes of the file at `path`, at most [`max_input_bytes`] of them
/// (a longer file is refused before it is read when its size is known).
pub fn read_file_within(path: impl AsRef<std::path::Path>) -> io::Result<Vec<u8>> {
    read_path_within(path, max_input_bytes())
}

/// The bytes of the file at `path`, at most `limit` of them: a longer
/// file is refused with [`InputTooLong`], before it is read when its size
/// is known, after `limit + 1` bytes when not (a device, a FIFO).
pub fn read_path_within(path: impl AsRef<std::path::Path>, limit: u64) -> io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    if let Ok(meta) = file.metadata()
        && meta.is_file()
        && meta.len() > limit
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            InputTooLong { limit },
        ));
    }
    read_to_end_within(file, limit)
}

/// Reads one line (up to and including its `\n`) into `buf`, keeping no
/// more than `max` bytes of it: the rest of a longer line is read and
/// dropped. The bytes read (0 at the end of the input), and whether the
/// line was cut.
pub fn read_line_within<R: BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<(usize, bool)> {
    let before = buf.len();
    let n = read_line_kept(reader, buf, max.saturating_add(before))?;
    let cut = buf.len() - before > max;
    buf.truncate(before + (buf.len() - before).min(max));
    Ok((n, cut))
}

/// Longest line (or new-syntax ad) read from a stream, in bytes.
pub const MAX_LINE_BYTES: usize = MAX_AD_BYTES;

/// Most lines of an old-syntax ad read in place at once.
const OLD_LINES_AT_ONCE: usize = 4096;

/// The bytes that matter to the new-syntax scanner inside an ad: quotes,
/// `/` (a comment may start) and brackets.
static NEW_SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    table[b'"' as usize] = true;
    table[b'\'' as usize] = true;
    table[b'/' as usize] = true;
    table[b'[' as usize] = true;
    table[b']' as usize] = true;
    table
};

/// Moves a line count and a column (characters since the line's start)
/// over `bytes`.
fn advance(line: &mut usize, column: &mut usize, bytes: &[u8]) {
    let chars = |bytes: &[u8]| bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count();
    match memchr::memrchr(b'\n', bytes) {
        Some(last) => {
            *line += memchr::memchr_iter(b'\n', &bytes[..=last]).count();
            *column = chars(&bytes[last + 1..]);
        }
        None => *column += chars(bytes),
    }
}

/// Bound on the bytes of broken ads read again after a cut, per byte of
/// input (plus a mebibyte): past it every line that starts with `[` ends
/// the ad before it (`line_cuts`), so that broken ads stop costing the
/// rest of the input each.
const RESYNC_WORK_PER_BYTE: usize = 4;

/// Longest ad (new syntax) or line (old syntax) read from a stream: past
/// it the text is reported as too long and skipped, not kept, so that an
/// endless input (`/dev/zero`) costs no more memory than this.
const MAX_AD_BYTES: usize = 256 << 20;

/// Bytes of a text past `MAX_AD_BYTES` kept to show in its error.
const SHOWN_BYTES: usize = 1024;

fn too_long(start: usize, line: usize, column: usize) -> ParseError {
    ParseError {
        message: format!(
            "the ad is longer than {} MiB; it is skipped unread",
            MAX_AD_BYTES >> 20
        ),
        span: Span::new(start, start + 1),
        line,
        column,
    }
}

/// `read_until(b'\n')`, keeping no more than `MAX_AD_BYTES + 1` bytes of
/// the line in `buf` (the rest is read and dropped); the bytes read.
fn read_line_capped<R: BufRead>(reader: &mut R, buf: &mut Vec<u8>) -> io::Result<usize> {
    read_line_kept(reader, buf, MAX_AD_BYTES)
}

/// `read_until(b'\n')`, keeping no more than `max + 1` bytes in `buf`.
fn read_line_kept<R: BufRead>(reader: &mut R, buf: &mut Vec<u8>, max: usize) -> io::Result<usize> {
    let mut total = 0;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(total);
        }
        let (used, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = max.saturating_add(1).saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..used.min(room)]);
        reader.consume(used);
        total += used;
        if done {
            return Ok(total);
        }
    }
}

/// The UTF-8 byte-order mark.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Where a new-syntax ad that does not parse is cut so that the ads after
/// it are read: the first line after its first that starts with `[`.
fn resync_point(buf: &[u8]) -> Option<usize> {
    (1..buf.len()).find(|&i| buf[i] == b'[' && buf[i - 1] == b'\n')
}

impl<R: BufRead> Iterator for AdReader<'_, R> {
    type Item = Result<AdExpr, AdError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if !self.bom_checked
            && let Err(e) = self.skip_bom()
        {
            self.done = true;
            self.ordinal += 1;
            return Some(Err(AdError::io(self.ordinal, 1, 0, &e)));
        }
        match self.format {
            Format::Old => self.next_old(),
            Format::New => self.next_new(),
            Format::Json => self.next_json(),
            Format::Xml => self.next_xml(),
        }
    }
}

/// Reads every ad of `text` (old or new syntax, JSON or XML, found as
/// [`AdReader::auto`] finds it) with `options`, on rayon's threads: the
/// text is cut at ad boundaries (old syntax: after a blank line; new
/// syntax: before a line that starts with `[`) into parts read in
/// parallel, and the results come back in file order.
///
/// The results are exactly those of one [`AdReader`] over the whole text:
/// the same trees, the same errors with the same ordinals, lines, columns
/// and spans. Where a part of new syntax does not end where its last ad
/// ends (a boundary inside a comment, a string or an ad), or a broken ad
/// was cut short to resynchronise, the whole text is read again by one
/// reader, so that what is read never depends on where the text was cut.
/// A JSON array is cut before lines that start with `{` (see
/// `read_json_in_parts`); other JSON documents and XML are read by one
/// reader.
///
/// ```
/// use classad_syntax::{ParseOptions, read_ads_parallel};
/// let text = b"A = 1\n\nA = 2 +\n\nA = 3\nB = 4 +\nC = 5\n";
/// let read = read_ads_parallel(text, ParseOptions::default());
/// assert_eq!(read.ads.len(), 3);
/// assert_eq!(read.ads[1].as_ref().unwrap_err().ordinal, 2);
/// // The third ad keeps `A`, the line before its unreadable one.
/// assert_eq!(read.ads[2].as_ref().unwrap().len(), 1);
/// assert_eq!(read.warnings[0].error.ordinal, 3);
/// ```
pub fn read_ads_parallel(text: &[u8], options: ParseOptions) -> ReadAds<AdExpr> {
    read_ads_in_parts(text, options, parallel_part_size(text.len()), &|ad| ad)
}

/// [`read_ads_parallel`] with `map` applied to each good ad by the thread
/// that read it, as soon as it is read: a caller that compiles ads never
/// holds the trees of a whole file at once (they take several times the
/// text). `map` may run twice for an ad when the text has to be read
/// again by one reader (see [`read_ads_parallel`]), so it should have no
/// effect beyond its result.
///
/// ```
/// use classad_syntax::{ParseOptions, read_ads_parallel_map};
/// let text = b"A = 1\nB = 2\n\nA = 2 +\n\nA = 3\n";
/// let sizes = read_ads_parallel_map(text, ParseOptions::default(), &|ad| ad.len()).ads;
/// assert_eq!(sizes[0].as_ref().ok(), Some(&2));
/// assert!(sizes[1].is_err());
/// ```
pub fn read_ads_parallel_map<U: Send>(
    text: &[u8],
    options: ParseOptions,
    map: &(dyn Fn(AdExpr) -> U + Sync),
) -> ReadAds<U> {
    read_ads_in_parts(text, options, parallel_part_size(text.len()), map)
}

/// Bytes per part: a few parts per thread, so that threads finish
/// together, and no part so small that starting it costs more than it saves.
pub(crate) fn parallel_part_size(len: usize) -> usize {
    let threads = rayon::current_num_threads();
    if threads <= 1 {
        return usize::MAX;
    }
    (len / (threads * 4)).max(256 << 10)
}

/// [`read_ads_parallel`] with parts of about `part_size` bytes (for tests:
/// small parts put boundaries everywhere).
#[doc(hidden)]
pub fn read_ads_in_parts<U: Send>(
    text: &[u8],
    options: ParseOptions,
    part_size: usize,
    map: &(dyn Fn(AdExpr) -> U + Sync),
) -> ReadAds<U> {
    use rayon::prelude::*;
    let sequential = || {
        let parser = Parser::new(options);
        match AdReader::auto(text, &parser) {
            Ok(mut reader) => {
                let ads = reader.by_ref().map(|ad| ad.map(map)).collect();
                ReadAds {
                    ads,
                    warnings: reader.take_warnings(),
                }
            }
            Err(e) => ReadAds {
                ads: vec![Err(AdError::io(1, 1, 0, &e))],
                warnings: Vec::new(),
            },
        }
    };
    let format = {
        let body = text.strip_prefix(BOM).unwrap_or(text);
        let mut rest = body;
        decide(&mut || {
            let i = rest.iter().position(|b| !b.is_ascii_whitespace())?;
            let b = rest[i];
            rest = &rest[i + 1..];
            Some(b)
        })
    };
    if format == Format::Json {
        return match read_json_in_parts(text, options, part_size, map) {
            Some(ads) => ReadAds {
                ads,
                warnings: Vec::new(),
            },
            None => sequential(),
        };
    }
    let starts = part_starts(text, format, part_size);
    if starts.len() <= 1 {
        return sequential();
    }
    let mut parts: Vec<(usize, usize, usize)> = starts
        .iter()
        .zip(starts.iter().skip(1).chain([&text.len()]))
        .map(|(&start, &end)| (start, end, 0))
        .collect();
    // Lines before each part, for the positions of its ads and errors.
    let newlines: Vec<usize> = parts
        .par_iter()
        .map(|&(start, end, _)| memchr::memchr_iter(b'\n', &text[start..end]).count())
        .collect();
    let mut lines = 0;
    for (part, n) in parts.iter_mut().zip(newlines) {
        part.2 = lines;
        lines += n;
    }
    let last = parts.len() - 1;
    let read: Vec<Option<ReadAds<U>>> = parts
        .par_iter()
        .enumerate()
        .map(|(k, &(start, end, lines))| {
            let parser = Parser::new(options);
            let mut reader = AdReader::part(&text[start..end], format, &parser, start, lines);
            let ads: Vec<_> = reader.by_ref().map(|ad| ad.map(map)).collect();
            let clean = reader.cuts == 0 && (k == last || !reader.ended_inside);
            clean.then(|| ReadAds {
                ads,
                warnings: reader.take_warnings(),
            })
        })
        .collect();
    if read.iter().any(Option::is_none) {
        return sequential();
    }
    let mut all = ReadAds {
        ads: Vec::with_capacity(read.iter().flatten().map(|part| part.ads.len()).sum()),
        warnings: Vec::new(),
    };
    for part in read.into_iter().flatten() {
        let before = all.ads.len();
        all.ads.extend(part.ads.into_iter().map(|ad| {
            ad.map_err(|mut e| {
                e.ordinal += before;
                e
            })
        }));
        all.warnings
            .extend(part.warnings.into_iter().map(|mut warning| {
                warning.error.ordinal += before;
                warning
            }));
    }
    all
}

/// The ads of a text read by the parallel readers, in file order, and the
/// warnings about old-syntax ads read in part (see [`AdWarning`]), in
/// file order too.
#[derive(Debug)]
pub struct ReadAds<U, E = AdError> {
    /// Each ad, or why it could not be read.
    pub ads: Vec<Result<U, E>>,
    /// The ads among `ads` that kept only the lines before an unreadable
    /// line; each names its ad by ordinal.
    pub warnings: Vec<AdWarning>,
}

/// [`read_ads_in_parts`] for JSON: an array is cut before lines that start
/// with `{`, and each part is read by a cursor that starts inside the
/// array and stops before the element at the next cut. `None` (read the
/// whole document with one reader) for a document that is not an array,
/// and where a part did not stop exactly at the next cut (a cut inside
/// an element, or a broken document).
fn read_json_in_parts<U: Send>(
    text: &[u8],
    options: ParseOptions,
    part_size: usize,
    map: &(dyn Fn(AdExpr) -> U + Sync),
) -> Option<Vec<Result<U, AdError>>> {
    use rayon::prelude::*;
    // As the reader does: offsets are counted after a byte-order mark.
    let body = text.strip_prefix(BOM).unwrap_or(text);
    let first = body.iter().position(|b| !b.is_ascii_whitespace())?;
    if body[first] != b'[' {
        return None;
    }
    let mut starts = vec![0];
    let mut from = part_size;
    while let Some(i) = body
        .get(from..)
        .and_then(|rest| memchr::memmem::find(rest, b"\n{"))
    {
        let next = from + i + 1;
        starts.push(next);
        from = next.saturating_add(part_size);
    }
    if starts.len() <= 1 {
        return None;
    }
    let (json, invalid) = json_text(body.to_vec());
    let json: Arc<str> = json.into();
    let ends: Vec<usize> = starts.iter().skip(1).copied().chain([body.len()]).collect();
    let newlines: Vec<usize> = starts
        .par_iter()
        .zip(&ends)
        .map(|(&start, &end)| memchr::memchr_iter(b'\n', &body[start..end]).count())
        .collect();
    let mut lines = Vec::with_capacity(starts.len());
    let mut total = 0;
    for n in newlines {
        lines.push(total);
        total += n;
    }
    let last = starts.len() - 1;
    let read: Vec<Option<Vec<Result<U, AdError>>>> = (0..starts.len())
        .into_par_iter()
        .map(|k| {
            let parser = Parser::new(options);
            let mut cursor = if k == 0 {
                JsonAdCursor::new()
            } else {
                JsonAdCursor::in_array(starts[k], lines[k])
            };
            if k < last {
                cursor.stop_at(ends[k]);
            }
            let mut reader = AdReader::new(&b""[..], Format::Json, &parser);
            reader.bom_checked = true;
            reader.json = Some(JsonDoc {
                text: json.clone(),
                cursor,
                line_at: (starts[k], lines[k]),
                invalid: invalid.clone(),
            });
            let ads: Vec<_> = reader.by_ref().map(|ad| ad.map(map)).collect();
            let stopped = reader.json.as_ref().and_then(|d| d.cursor.stopped_at());
            (k == last || stopped == Some(ends[k])).then_some(ads)
        })
        .collect();
    let mut ads = Vec::new();
    for part in read {
        let before = ads.len();
        ads.extend(part?.into_iter().map(|ad| {
            ad.map_err(|mut e| {
                e.ordinal += before;
                e
            })
        }));
    }
    Some(ads)
}

/// Where the parts of `text` start (the first at 0): after a blank line
/// (old syntax) or at a line that starts with `[` (new syntax), about
/// `part_size` bytes apart. One part for the other formats.
fn part_starts(text: &[u8], format: Format, part_size: usize) -> Vec<usize> {
    let mut starts = vec![0];
    if !matches!(format, Format::Old | Format::New) {
        return starts;
    }
    let mut from = part_size;
    while from < text.len() {
        let next = match format {
            Format::Old => after_blank_line(text, from),
            _ => memchr::memmem::find(&text[from..], b"\n[").map(|i| from + i + 1),
        };
        let Some(next) = next.filter(|&n| n < text.len()) else {
            break;
        };
        starts.push(next);
        from = next.saturating_add(part_size);
    }
    starts
}

/// The start of the line after the first blank line (as the old-syntax
/// reader sees one: nothing but ASCII whitespace) that starts at or
/// after `from`'s line.
pub(crate) fn after_blank_line(text: &[u8], from: usize) -> Option<usize> {
    // The start of the line after the one `from` is in.
    let mut line = from + memchr::memchr(b'\n', &text[from..])? + 1;
    loop {
        let end = line + memchr::memchr(b'\n', &text[line..])?;
        if text[line..end].trim_ascii().is_empty() {
            return Some(end + 1);
        }
        line = end + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ads and warnings (as `(ordinal, line, kept, dropped)`) of an
    /// old-syntax text.
    fn read_old(text: &str, refuse: bool) -> (Vec<Result<String, usize>>, Vec<[usize; 4]>) {
        let parser = Parser::new(ParseOptions {
            refuse_partial_ads: refuse,
            ..ParseOptions::default()
        });
        let mut reader = AdReader::new(text.as_bytes(), Format::Old, &parser);
        let ads = reader
            .by_ref()
            .map(|ad| {
                ad.map(|ad| crate::unparse_ad(&ad))
                    .map_err(|e| e.error.line)
            })
            .collect();
        let warnings = (reader.take_warnings().iter())
            .map(|w| {
                let e = &w.error;
                [e.ordinal, e.error.line, w.kept_lines, w.dropped_lines]
            })
            .collect();
        (ads, warnings)
    }

    /// HTCondor's rule (asked of classad2.parseNext over a file, 25.14.1):
    /// the lines before the first unreadable line make the ad, that line
    /// and the rest up to the blank line are dropped, the next ad is read
    /// whole; with nothing before it, the ad fails.
    #[test]
    fn an_unreadable_line_drops_the_rest_of_its_ad() {
        let text = "A = 1\nA = 2\nB = 2 +\nC = 3\n# note\n \t \nD = 4\n";
        let (ads, warnings) = read_old(text, false);
        assert_eq!(
            ads,
            [Ok("[ A = 2 ]".to_string()), Ok("[ D = 4 ]".to_string())]
        );
        assert_eq!(warnings, [[1, 3, 2, 2]]);
        let (ads, warnings) = read_old(text, true);
        assert_eq!(ads, [Err(3), Ok("[ D = 4 ]".to_string())]);
        assert!(warnings.is_empty());
        // Nothing before the unreadable line: an error either way.
        let (ads, warnings) = read_old("# c\nB = +\nC = 3\n\nD = 4\n", false);
        assert_eq!(ads, [Err(2), Ok("[ D = 4 ]".to_string())]);
        assert!(warnings.is_empty());
    }
}
