//! `lines::read_old_ads` cuts an old-syntax text into the ads and lines
//! one reader sees: declining every ad gives exactly what one reader over
//! the whole text gives (trees, spans, errors with their ordinals, lines,
//! columns and spans), wherever the parts are cut; the lines it offers
//! are the lines the reader parses, and no others.

use classad_syntax::lines::read_old_ads_in_parts;
use classad_syntax::{AdError, AdExpr, AdReader, AdWarning, Format, ParseOptions, Parser};
use proptest::prelude::*;
use std::path::Path;

mod common;
use common::ad_spans;

/// The ads of one reader, and its warnings about ads kept in part.
type Warned = (Vec<Result<AdExpr, AdError>>, Vec<AdWarning>);

fn sequential(text: &[u8]) -> (Format, Warned) {
    let parser = Parser::new(ParseOptions::default());
    let mut reader = AdReader::auto(text, &parser).expect("in memory");
    let format = reader.format();
    let ads = reader.by_ref().collect();
    (format, (ads, reader.take_warnings()))
}

#[derive(Debug)]
enum Made {
    Lines(Vec<Vec<u8>>),
    Parsed(AdExpr),
}

/// Reads `text` in parts of `part_size` with every ad declined, and with
/// every ad taken from its lines, against one reader.
fn same(text: &[u8], part_size: usize) {
    let show = || String::from_utf8_lossy(text).into_owned();
    let (format, (one, warnings)) = sequential(text);
    let declined = read_old_ads_in_parts(
        text,
        ParseOptions::default(),
        part_size,
        &|| (),
        &|_, _| None,
        &Made::Parsed,
    );
    let Some(declined) = declined else {
        assert_ne!(format, Format::Old, "{:?}", show());
        return;
    };
    assert_eq!(format, Format::Old, "{:?}", show());
    assert_eq!(
        warnings,
        declined.warnings,
        "warnings, parts of {part_size} in {:?}",
        show()
    );
    let declined = declined.ads;
    assert_eq!(
        one.len(),
        declined.len(),
        "parts of {part_size} in {:?}",
        show()
    );
    for (a, b) in one.iter().zip(&declined) {
        match (a, b) {
            (Ok(a), Ok(Made::Parsed(b))) => {
                assert_eq!(a, b, "parts of {part_size} in {:?}", show());
                assert_eq!(ad_spans(a), ad_spans(b), "spans, parts of {part_size}");
            }
            (Err(a), Err(b)) => assert_eq!(a, &**b, "parts of {part_size} in {:?}", show()),
            _ => panic!("parts of {part_size} in {:?}: {a:?} / {b:?}", show()),
        }
    }
    let taken = read_old_ads_in_parts(
        text,
        ParseOptions::default(),
        part_size,
        &|| (),
        &|_, lines: &[&[u8]]| Some(Made::Lines(lines.iter().map(|l| l.to_vec()).collect())),
        &Made::Parsed,
    )
    .expect("old syntax")
    .ads;
    assert_eq!(
        one.len(),
        taken.len(),
        "parts of {part_size} in {:?}",
        show()
    );
    let offered: Vec<&Vec<Vec<u8>>> = taken
        .iter()
        .filter_map(|ad| match ad {
            Ok(Made::Lines(lines)) => Some(lines),
            _ => None,
        })
        .collect();
    assert_eq!(
        offered.iter().map(|l| l.to_vec()).collect::<Vec<_>>(),
        lines_of(text),
        "parts of {part_size} in {:?}",
        show()
    );
    let parser = Parser::new(ParseOptions::default());
    for (a, b) in one.iter().zip(&taken) {
        let Ok(Made::Lines(lines)) = b else {
            panic!("{b:?}");
        };
        // The lines, parsed one by one, are the ad; the first that does
        // not parse is the reader's error.
        let mut ad = AdExpr::new();
        let mut failed = false;
        for line in lines {
            assert!(!line.contains(&b'\n'), "{line:?}");
            let parsed = std::str::from_utf8(line)
                .ok()
                .and_then(|l| parser.parse_old_line(l).ok());
            match parsed {
                Some((name, expr)) => {
                    ad.insert(name, expr);
                }
                None => {
                    failed = true;
                    break;
                }
            }
        }
        match a {
            Ok(a) => assert_eq!(a, &ad, "lines {lines:?} in {:?}", show()),
            Err(_) => assert!(failed, "lines {lines:?} in {:?}", show()),
        }
    }
}

/// The lines of each ad of an old-syntax text, as the reader's
/// documentation states them: a line ends at `\n`, and one `\r` before it
/// is dropped; a line of ASCII whitespace ends an ad; a line whose first
/// non-blank byte is `#` is skipped; a byte-order mark at the start is not
/// text.
fn lines_of(text: &[u8]) -> Vec<Vec<Vec<u8>>> {
    let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
    let mut ads = vec![];
    let mut ad: Vec<Vec<u8>> = vec![];
    let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    if text.ends_with(b"\n") {
        lines.pop();
    }
    for line in lines {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            if !ad.is_empty() {
                ads.push(std::mem::take(&mut ad));
            }
        } else if trimmed[0] != b'#' {
            ad.push(line.to_vec());
        }
    }
    if !ad.is_empty() {
        ads.push(ad);
    }
    ads
}

fn every_cut(text: &[u8]) {
    for size in [1, 2, 3, 5, 8, 13, 40, 100, 1000, usize::MAX] {
        same(text, size);
    }
}

#[test]
fn good_and_bad_ads() {
    every_cut(b"A = 1\nB = A + 1\n\nA = 2 +\n\n\n# comment\nA = 3\n  \t\nC = \"x\"\n");
    every_cut("\u{feff}A = 1\n\nB = 2\n\n\u{feff}C = 3\n".as_bytes());
    every_cut(b"\xef\xbb\xbf\n\nA = 1 +\n# c\n\nB = 2 +\n");
    every_cut(b"A = 1\r\n\r\nB = [ x = 1;\r\n  y = 2 ]\r\nC = 3\r\n\r\n");
    every_cut(b"A = 1\r\r\nB = 2\n\x0c\nC = 3\n\x0b\nD = 4");
    every_cut(b"# only\n# comments\n\n  # here\n");
    every_cut(b"A = \"\xff\"\nB = 1\n\nC = 2\n\n\xfe = 3\n\nD = 4 +\nE = 5\n");
    every_cut(b"A = 1\na = 2\n\n  B = 3\nB\n\n = 4\n");
    every_cut(b"");
    every_cut(b"\n\n  \n");
    every_cut(b"[ A = 1 ]\n");
    every_cut(b"{\"A\": 1}\n");
    every_cut(b"\n  /* c */ [ A = 1 ]\n");
}

#[test]
fn the_corpora() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut count = 0;
    for dir in [
        "tests/corpus",
        "tests/gen",
        "tests/hostile",
        "crates/syntax/tests/corpus/ads",
        "crates/syntax/tests/corpus/expressions",
        "crates/syntax/tests/corpus/malformed",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(bytes) = std::fs::read(entry.path()) else {
                continue;
            };
            count += 1;
            for size in [1, 300, usize::MAX] {
                same(&bytes, size);
            }
            // Every line as a value, two ads at a time.
            let mut ads = Vec::new();
            for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
                ads.extend_from_slice(format!("A{} = ", i % 3).as_bytes());
                ads.extend_from_slice(line);
                ads.extend_from_slice(if i % 2 == 0 { b"\n" } else { b"\n\n" });
            }
            for size in [1, 300, usize::MAX] {
                same(&ads, size);
            }
        }
    }
    assert!(count > 20, "corpora not found");
}

fn text() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop::sample::select(vec![
        &b"A = 1"[..],
        b"B = \"x\"",
        b"a = 2",
        b"C = A + ",
        b"D = (1",
        b"2)",
        b"# c",
        b"  # c",
        b"",
        b" ",
        b"\t",
        b"\r",
        b"\x0b",
        b"\x0c",
        b"\xff",
        b"\xef\xbb\xbf",
        b"E = [x = 1;",
        b"y = 2]",
        b"[",
        b"{",
        b"/",
    ]);
    let sep = prop::sample::select(vec![&b"\n"[..], b"\r\n", b"\n\n", b""]);
    prop::collection::vec((piece, sep), 0..25).prop_map(|pieces| {
        pieces
            .into_iter()
            .flat_map(|(p, s)| p.iter().chain(s.iter()).copied())
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    #[test]
    fn generated_texts(text in text(), size in 1usize..60) {
        same(&text, size);
        same(&text, usize::MAX);
    }
}
