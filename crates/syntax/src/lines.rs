//! Old-syntax ads cut into their lines without parsing them, for a reader
//! that can often make an ad from its lines alone (a compiler that has
//! seen most of them before in the same file) and leaves every other ad to
//! the parser.
//!
//! The lines are those [`crate::AdReader`] parses: a line ends at `\n`
//! (one `\r` before it is dropped); a line of ASCII whitespace ends an
//! ad; a line whose first non-blank byte is `#` is skipped. An ad the
//! reader declines is read by an [`crate::AdReader`] over exactly its text,
//! so its tree, or its error with ordinal, line, column and span, is what
//! one reader over the whole file gives.

use crate::ast::AdExpr;
use crate::parser::{ParseOptions, Parser};
use crate::read::{AdError, AdReader, AdWarning, BOM, Format, ReadAds, after_blank_line};

/// Makes an ad from its lines, or declines (`None`) to leave it to the
/// parser. The lines exclude comments and line ends, nothing else.
pub type FromLines<'t, S, U> = dyn Fn(&mut S, &[&'t [u8]]) -> Option<U> + Sync;

/// Reads every ad of an old-syntax `text` on rayon's threads, as
/// [`crate::read_ads_parallel_map`] does (the same results in the same
/// order, with the same errors), but offering each ad's lines to
/// `from_lines` first: only the ads it declines are parsed, then given
/// to `map`. Each part of the text is read with a state made by `init`,
/// at most one per part read at once: a part that starts after another
/// has finished goes on with that one's state (what it learned of the
/// text, and its tables, which grow once instead of once per part).
/// `None` when the text is not old syntax (found as
/// [`crate::detect_format`] finds it). Errors are boxed: they are rare,
/// and an [`AdError`] (96 bytes) would make the list four times the size
/// of a list of small results.
///
/// ```
/// use classad_syntax::{ParseOptions, lines::read_old_ads};
/// let text = b"A = 1\nB = 2\n\nA = 2 +\n\nA = 3\n";
/// let counts = read_old_ads(
///     text,
///     ParseOptions::default(),
///     &|| (),
///     &|_, lines: &[&[u8]]| (lines.len() == 1 && lines[0] == b"A = 3").then_some(0),
///     &|ad| ad.len(),
/// )
/// .unwrap()
/// .ads;
/// assert_eq!(counts[0].as_ref().ok(), Some(&2));
/// assert_eq!(counts[1].as_ref().unwrap_err().ordinal, 2);
/// assert_eq!(counts[2].as_ref().ok(), Some(&0));
/// ```
pub fn read_old_ads<'t, S: Send, U: Send>(
    text: &'t [u8],
    options: ParseOptions,
    init: &(dyn Fn() -> S + Sync),
    from_lines: &FromLines<'t, S, U>,
    map: &(dyn Fn(AdExpr) -> U + Sync),
) -> Option<ReadAds<U, Box<AdError>>> {
    read_old_ads_in_parts(
        text,
        options,
        line_part_size(text.len()),
        init,
        from_lines,
        map,
    )
}

/// The size of the parts a text is read in: two per thread, fewer than
/// the parser's reader takes, since each part learns the lines of the
/// file anew (a line met in one part is new to the next).
fn line_part_size(len: usize) -> usize {
    let threads = rayon::current_num_threads();
    if threads <= 1 {
        return usize::MAX;
    }
    (len / (threads * 2)).max(256 << 10)
}

/// [`read_old_ads`] with parts of about `part_size` bytes (for tests:
/// small parts put boundaries everywhere).
#[doc(hidden)]
pub fn read_old_ads_in_parts<'t, S: Send, U: Send>(
    text: &'t [u8],
    options: ParseOptions,
    part_size: usize,
    init: &(dyn Fn() -> S + Sync),
    from_lines: &FromLines<'t, S, U>,
    map: &(dyn Fn(AdExpr) -> U + Sync),
) -> Option<ReadAds<U, Box<AdError>>> {
    use rayon::prelude::*;
    let body = if text.starts_with(BOM) { BOM.len() } else { 0 };
    let first = text[body..].iter().find(|b| !b.is_ascii_whitespace());
    // `[` is new syntax or JSON, as `detect_format` decides.
    if Format::from_first_byte(first.copied()) != Format::Old {
        return None;
    }
    let mut starts = vec![body];
    let mut from = part_size;
    while from < text.len() {
        let Some(next) = after_blank_line(text, from).filter(|&n| n < text.len()) else {
            break;
        };
        starts.push(next);
        from = next.saturating_add(part_size);
    }
    let ends: Vec<usize> = starts.iter().skip(1).copied().chain([text.len()]).collect();
    // States of parts that finished, for the parts that start later.
    // Besides what they learned, their tables are kept whole: tables made
    // anew for each part would grow in the allocator's heap among the ads
    // (glibc takes blocks under its threshold there, and raises the
    // threshold as soon as the first part's tables are freed), leaving
    // holes it does not give back once they are freed.
    let idle: std::sync::Mutex<Vec<(S, Parser)>> = std::sync::Mutex::default();
    let read = |k: usize| {
        let taken = idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let (state, parser) = taken.unwrap_or_else(|| (init(), Parser::new(options)));
        let mut part = Part {
            text,
            end: ends[k],
            parser: &parser,
            state,
            from_lines,
            map,
            lines: Vec::new(),
            ads: Vec::new(),
            warnings: Vec::new(),
        };
        let line_count = part.read(starts[k]);
        let Part {
            ads,
            warnings,
            state,
            ..
        } = part;
        idle.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((state, parser));
        (ads, warnings, line_count)
    };
    let parts: Vec<(PartAds<U>, Vec<AdWarning>, usize)> = if starts.len() == 1 {
        vec![read(0)]
    } else {
        (0..starts.len()).into_par_iter().map(read).collect()
    };
    let mut ads = Vec::with_capacity(parts.iter().map(|(ads, ..)| ads.len()).sum());
    let mut all_warnings = Vec::new();
    let mut lines_before = 0;
    for (part, warnings, line_count) in parts {
        let before = ads.len();
        let shift = |e: &mut AdError| {
            e.ordinal += before;
            e.first_line += lines_before;
            e.error.line += lines_before;
        };
        ads.extend(part.into_iter().map(|ad| {
            ad.map_err(|mut e| {
                shift(&mut e);
                e
            })
        }));
        all_warnings.extend(warnings.into_iter().map(|mut warning| {
            shift(&mut warning.error);
            warning
        }));
        lines_before += line_count;
    }
    Some(ReadAds {
        ads,
        warnings: all_warnings,
    })
}

/// The ads of a part (errors boxed, as [`read_old_ads`] gives them).
type PartAds<U> = Vec<Result<U, Box<AdError>>>;

/// The reading of one part of a text.
struct Part<'a, 't, S, U> {
    text: &'t [u8],
    /// Where the part ends in `text`.
    end: usize,
    parser: &'a Parser,
    state: S,
    from_lines: &'a FromLines<'t, S, U>,
    map: &'a (dyn Fn(AdExpr) -> U + Sync),
    /// The lines of the ad being read.
    lines: Vec<&'t [u8]>,
    /// The ads read; an error's ordinal and lines count from the part's
    /// start.
    ads: PartAds<U>,
    /// The warnings of ads read in part, counted as the errors are.
    warnings: Vec<AdWarning>,
}

impl<'t, S, U> Part<'_, 't, S, U> {
    /// Reads the ads of the part that starts at `start`; the number of
    /// lines in the part.
    fn read(&mut self, start: usize) -> usize {
        let text = self.text;
        let end = self.end;
        // Where the current ad starts, and the lines of the part before it.
        let mut ad: Option<(usize, usize)> = None;
        let mut line_no = 0;
        let mut pos = start;
        while pos < end {
            let (line_end, next) = match newline(&text[..end], pos) {
                Some(i) => (i, i + 1),
                None => (end, end),
            };
            let mut line = &text[pos..line_end];
            if let [rest @ .., b'\r'] = line {
                line = rest;
            }
            // Most lines start with their name: no trimming to know that.
            let content = match line.first() {
                Some(&b) if !b.is_ascii_whitespace() => b != b'#',
                _ => line.trim_ascii().first().is_some_and(|&b| b != b'#'),
            };
            if content {
                ad.get_or_insert((pos, line_no));
                self.lines.push(line);
            } else if line.trim_ascii().is_empty()
                && let Some((ad_start, ad_lines)) = ad.take()
            {
                self.finish(ad_start, pos, ad_lines);
            }
            line_no += 1;
            pos = next;
        }
        if let Some((ad_start, ad_lines)) = ad {
            self.finish(ad_start, end, ad_lines);
        }
        line_no
    }

    /// Makes the ad whose text is `text[start..end]` (`lines` lines of the
    /// part before it) from its lines, or else by the parser.
    fn finish(&mut self, start: usize, end: usize, lines: usize) {
        let made = (self.from_lines)(&mut self.state, &self.lines);
        self.lines.clear();
        let ad = match made {
            Some(ad) => Ok(ad),
            None => {
                let mut reader = AdReader::part(
                    &self.text[start..end],
                    Format::Old,
                    self.parser,
                    start,
                    lines,
                );
                let read = reader.next();
                let ordinal = self.ads.len() + 1;
                self.warnings
                    .extend(reader.take_warnings().into_iter().map(|mut warning| {
                        warning.error.ordinal = ordinal;
                        warning
                    }));
                match read {
                    Some(Ok(ad)) => Ok((self.map)(ad)),
                    Some(Err(mut e)) => {
                        e.ordinal = self.ads.len() + 1;
                        Err(Box::new(e))
                    }
                    // Not reached: the text has a line that is neither
                    // blank nor a comment.
                    None => return,
                }
            }
        };
        self.ads.push(ad);
    }
}

/// The position of the first `\n` in `bytes` at or after `from`, found
/// eight bytes at a time: lines of ads are short, and `memchr` costs more
/// to start than this to finish.
fn newline(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = from;
    while let Some(word) = bytes.get(i..i + 8) {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes")) ^ (ONES * 0x0a);
        // The high bit of each byte that was `\n` (exact up to the first:
        // a borrow only runs upwards).
        let found = word.wrapping_sub(ONES) & !word & HIGH;
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    bytes[i.min(bytes.len())..]
        .iter()
        .position(|&b| b == b'\n')
        .map(|k| i + k)
}

#[cfg(test)]
mod tests {
    #[test]
    fn newline_finds_the_first_line_end() {
        let mut text = vec![b'x'; 40];
        for at in 0..40 {
            for from in 0..=at {
                text[at] = b'\n';
                text[(at + 3).min(39)] = b'\n';
                assert_eq!(super::newline(&text, from), Some(at), "{at} {from}");
                text[at] = 0x8a;
                text[(at + 3).min(39)] = 0x0b;
            }
            assert_eq!(super::newline(&text, at), None);
        }
        assert_eq!(super::newline(b"", 0), None);
        assert_eq!(super::newline(b"\n", 1), None);
    }
}
