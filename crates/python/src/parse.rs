//! Reading ads from text and files: the native halves of `parseAds`,
//! `parseOne`, `parseNext` (the Python package handles file objects) and
//! `readAds`.

use crate::ClassAdException;
use crate::ad::{ClassAd, LazySource, in_htcondor_order};
use crate::engine;
use classad::syntax::{AdError, AdExpr, AdReader, Format, ParseOptions, Parser};
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::sync::Arc;

/// The format a `ParserType` value names; `None` to find it from the text
/// (`Auto`, `FileAuto`).
fn format_of(parser: i64) -> PyResult<Option<Format>> {
    Ok(match parser {
        -1 | 4 => None,
        0 => Some(Format::Old),
        1 => Some(Format::Xml),
        2 => Some(Format::Json),
        3 => Some(Format::New),
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{other} is not a ParserType"
            )));
        }
    })
}

/// The text of an error reading an ad, with where it is.
pub(crate) fn describe(error: &AdError, origin: &str) -> String {
    format!(
        "{origin}: ad {} (from line {}): line {}, column {}: {}",
        error.ordinal, error.first_line, error.error.line, error.error.column, error.error.message
    )
}

/// Reads the ads of `text` in `format` (found from the text when `None`):
/// each good ad, up to the first bad one, and that one's error.
fn read_text(text: &[u8], format: Option<Format>) -> (Vec<AdExpr>, Option<AdError>) {
    let results = match format {
        None => {
            classad::syntax::read_ads_parallel_map(text, ParseOptions::default(), &|ad| {
                in_htcondor_order(ad)
            })
            .ads
        }
        Some(format) => {
            let parser = Parser::new(ParseOptions::default());
            AdReader::new(text, format, &parser)
                .map(|ad| ad.map(in_htcondor_order))
                .collect()
        }
    };
    let mut ads = Vec::with_capacity(results.len());
    for result in results {
        match result {
            Ok(ad) => ads.push(ad),
            Err(e) => return (ads, Some(e)),
        }
    }
    (ads, None)
}

fn into_list<'py>(py: Python<'py>, ads: Vec<AdExpr>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for ad in ads {
        list.append(Bound::new(py, ClassAd::from_ast(ad))?)?;
    }
    Ok(list)
}

/// How `classad2` ends a reading: no more ads, or a `ValueError`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    /// No (more) ads: the input is spent, or what is left is not read.
    Stop,
    /// `classad2` raises `ValueError("Unable to parse input stream into a
    /// ClassAd.")` here.
    Raise,
}

/// Whether `text` holds nothing but white space.
fn blank(text: &[u8]) -> bool {
    text.iter().all(u8::is_ascii_whitespace)
}

/// Reads ads from `text` one after another as `classad2`'s parser does
/// (`_classad_parse_next` called again from where the last ad ended), at
/// most `limit`: each ad with the bytes it took, and how the reading ends.
///
/// `Auto` reads new syntax where the text (from the current position)
/// starts with `[` or `/`, old syntax otherwise; old syntax stops at a
/// first line it cannot read, keeping an ad's lines before a bad one; new
/// syntax stops at a truncated ad and raises at text that is no ad; JSON
/// raises at what is not an object (the rest of an array after its first
/// element, as `classad2`); XML stops at what it cannot read.
fn read_like_classad2(text: &[u8], parser: i64, limit: usize) -> (Vec<(AdExpr, usize)>, End) {
    let options = Parser::new(ParseOptions::default());
    let mut ads = Vec::new();
    let mut at = 0;
    while ads.len() < limit {
        let rest = &text[at..];
        if blank(rest) {
            return (ads, End::Stop);
        }
        let first = rest.iter().copied().find(|b| !b.is_ascii_whitespace());
        if parser == 4 {
            // classad2's string reader refuses FileAuto.
            return (ads, End::Raise);
        }
        let format = match parser {
            -1 | 4 if matches!(first, Some(b'[' | b'/')) => Format::New,
            1 => Format::Xml,
            2 => Format::Json,
            3 => Format::New,
            _ => Format::Old,
        };
        if format == Format::Json && first == Some(b'[') && !ads.is_empty() {
            return (ads, End::Raise);
        }
        let json_array = format == Format::Json && first == Some(b'[');
        let mut reader = AdReader::new(rest, format, &options);
        let result = reader.next();
        let consumed = match format {
            // An ad of new syntax ends at its closing bracket, where
            // HTCondor's parser stops.
            Format::New => new_ad_end(rest).unwrap_or(reader.bytes_read()),
            // An XML ad ends at its `</c>`.
            Format::Xml => memchr_find(rest, b"</c>").map_or(reader.bytes_read(), |at| at + 4),
            _ => reader.bytes_read(),
        };
        match result {
            Some(Ok(ad)) => {
                let consumed = if json_array {
                    json_first_element_end(rest).unwrap_or(consumed)
                } else {
                    consumed
                };
                ads.push((in_htcondor_order(ad), consumed.max(1)));
                if json_array {
                    return (ads, End::Raise);
                }
                at += consumed.max(1);
            }
            Some(Err(e)) => {
                engine::set_last_error(describe(&e, "<input>"));
                let end = match format {
                    Format::Old | Format::Xml => End::Stop,
                    Format::New if e.error.span.start as usize >= trimmed_len(rest) => End::Stop,
                    _ => End::Raise,
                };
                return (ads, end);
            }
            None => return (ads, End::Stop),
        }
    }
    (ads, End::Stop)
}

fn memchr_find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn trimmed_len(text: &[u8]) -> usize {
    text.len()
        - text
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_whitespace())
            .count()
}

/// The byte after the `]` that closes the first ad of new syntax in
/// `text`: brackets counted outside strings and comments.
fn new_ad_end(text: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'"' | b'\'' => {
                let quote = text[i];
                i += 1;
                while i < text.len() && text[i] != quote {
                    if text[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'/' if text.get(i + 1) == Some(&b'/') => {
                while i < text.len() && text[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if text.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < text.len() && !(text[i] == b'*' && text[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b'[' => depth += 1,
            b']' => {
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

/// The byte after the first element (`{...}`) of a JSON array.
fn json_first_element_end(text: &[u8]) -> Option<usize> {
    let open = text.iter().position(|&b| b == b'{')?;
    let mut depth = 0usize;
    let mut i = open;
    while i < text.len() {
        match text[i] {
            b'"' => {
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    if text[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
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

/// Characters that start in `bytes` (Python counts offsets in
/// characters; a cut inside a character counts it where it starts).
fn chars_in(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

/// What the lazy reader makes of an ad: its text's range (the first line
/// read, the rest left for when the ad is used), or the tree of an ad it
/// had to parse.
enum Item {
    Lazy(std::ops::Range<usize>),
    Parsed,
}

/// The byte after the blank line that ends an old-syntax ad whose last
/// line ends at `from` (the end of the text if none does).
fn after_blank_line(text: &[u8], from: usize) -> usize {
    let line_end = |at: usize| {
        text[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |n| at + n + 1)
    };
    let mut at = line_end(from.min(text.len()));
    while at < text.len() {
        let end = line_end(at);
        if blank(&text[at..end]) {
            return end;
        }
        at = end;
    }
    text.len()
}

/// Reads an old-syntax text lazily: each ad's first line is parsed (an
/// ad whose first line does not read ends the reading, as in `classad2`),
/// the rest when the ad is first used. The ranges of the ads and the
/// bytes each took (up to and with the blank line after it), and how the
/// reading ends; `None` where the text is not old syntax, or an ad needed
/// the parser, for the eager reader to do.
type LazyAds = (Vec<(std::ops::Range<usize>, usize)>, Option<AdError>);

fn read_old_lazily(text: &[u8]) -> Option<LazyAds> {
    let base = text.as_ptr() as usize;
    let read = classad::syntax::lines::read_old_ads(
        text,
        ParseOptions::default(),
        &|| Parser::new(ParseOptions::default()),
        &move |parser: &mut Parser, lines: &[&[u8]]| {
            let first = lines.first()?;
            parser
                .parse_old_line(std::str::from_utf8(first).ok()?)
                .ok()?;
            let last = lines.last()?;
            let start = first.as_ptr() as usize - base;
            let end = last.as_ptr() as usize - base + last.len();
            Some(Item::Lazy(start..end))
        },
        &|_| Item::Parsed,
    )?;
    let mut ads = Vec::with_capacity(read.ads.len());
    let mut taken_to = 0;
    for item in read.ads {
        match item {
            Ok(Item::Lazy(range)) => {
                let end = after_blank_line(text, range.end);
                ads.push((range, end - taken_to));
                taken_to = end;
            }
            Ok(Item::Parsed) => return None,
            Err(e) => return Some((ads, Some(*e))),
        }
    }
    Some((ads, None))
}

/// The ads of a string as `classad2`'s `parseAds` reads them, at most
/// `limit`: the ads, the characters each took, and whether the reading
/// ends in a `ValueError` (after the ads).
#[pyfunction]
#[pyo3(name = "_parse_ads", signature = (text, parser = -1, limit = usize::MAX))]
pub(crate) fn parse_ads_text<'py>(
    py: Python<'py>,
    text: &str,
    parser: i64,
    limit: usize,
) -> PyResult<(Bound<'py, PyList>, Vec<usize>, bool)> {
    let bytes = text.as_bytes();
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    let old = parser == -1 && !matches!(first, Some(b'[' | b'/')) || parser == 0;
    if old && limit == usize::MAX && first.is_some() {
        let shared: Arc<[u8]> = Arc::from(bytes);
        if let Some((ads, error)) = py.detach(|| read_old_lazily(&shared)) {
            if let Some(error) = error {
                engine::set_last_error(describe(&error, "<input>"));
            }
            let mut consumed = Vec::with_capacity(ads.len());
            let mut at = 0;
            let list = PyList::empty(py);
            for (range, taken) in ads {
                consumed.push(chars_in(&bytes[at..at + taken]));
                at += taken;
                let source = LazySource {
                    text: shared.clone(),
                    range,
                };
                list.append(Bound::new(py, ClassAd::lazy(source))?)?;
            }
            return Ok((list, consumed, false));
        }
    }
    let (ads, end) = py.detach(|| read_like_classad2(bytes, parser, limit));
    let mut consumed = Vec::with_capacity(ads.len());
    let mut at = 0;
    let list = PyList::empty(py);
    for (ad, bytes) in ads {
        let end = (at + bytes).min(text.len());
        consumed.push(chars_in(&text.as_bytes()[at.min(end)..end]));
        at = end;
        list.append(Bound::new(py, ClassAd::from_ast(ad))?)?;
    }
    Ok((list, consumed, end == End::Raise))
}

/// Reads every ad of a file (old or new syntax, JSON or XML) into a list,
/// in parallel and with the GIL released: faster than `parseAds` over an
/// open file. An ad that cannot be read raises `ClassAdException` naming
/// the file, the ad, the line and the column.
#[pyfunction]
#[pyo3(name = "readAds", signature = (path, parser = -1))]
pub(crate) fn read_ads<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    parser: i64,
) -> PyResult<Bound<'py, PyList>> {
    let format = format_of(parser)?;
    let origin = path.display().to_string();
    let read = py.detach(|| -> PyResult<_> {
        let text: Arc<[u8]> = classad::syntax::read::read_file_within(&path)
            .map_err(|e| {
                pyo3::exceptions::PyOSError::new_err(format!("cannot read `{origin}`: {e}"))
            })?
            .into();
        if matches!(format, None | Some(Format::Old))
            && let Some(lazy) = read_old_lazily(&text)
        {
            return Ok(Err((text, lazy)));
        }
        Ok(Ok(read_text(&text, format)))
    })?;
    let (ads, error) = match read {
        Ok(eager) => eager,
        Err((text, (ranges, error))) => {
            if let Some(error) = error {
                let message = describe(&error, &origin);
                engine::set_last_error(message.clone());
                return Err(ClassAdException::new_err(message));
            }
            let list = PyList::empty(py);
            for (range, _) in ranges {
                let source = LazySource {
                    text: text.clone(),
                    range,
                };
                list.append(Bound::new(py, ClassAd::lazy(source))?)?;
            }
            return Ok(list);
        }
    };
    if let Some(error) = error {
        let message = describe(&error, &origin);
        engine::set_last_error(message.clone());
        return Err(ClassAdException::new_err(message));
    }
    into_list(py, ads)
}
