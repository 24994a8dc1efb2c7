//! Reading a file in parts on several threads gives exactly what one
//! reader over the whole file gives: the same ads (trees and spans), the
//! same errors (ordinals, lines, columns, spans, excerpts), in the same
//! order, wherever the parts are cut, on good and broken input alike.

use classad_syntax::read::read_ads_in_parts;
use classad_syntax::{AdError, AdExpr, AdReader, AdWarning, ParseOptions, Parser};
use proptest::prelude::*;

mod common;
use common::ad_spans;

fn sequential(text: &[u8]) -> Vec<Result<AdExpr, AdError>> {
    sequential_warned(text).0
}

/// The ads of one reader, and its warnings about ads kept in part.
fn sequential_warned(text: &[u8]) -> (Vec<Result<AdExpr, AdError>>, Vec<AdWarning>) {
    let parser = Parser::new(ParseOptions::default());
    let mut reader = AdReader::auto(text, &parser).expect("in memory");
    let ads = reader.by_ref().collect();
    (ads, reader.take_warnings())
}

fn same(text: &[u8], part_size: usize) {
    let (one, warnings) = sequential_warned(text);
    let parts = read_ads_in_parts(text, ParseOptions::default(), part_size, &|ad| ad);
    let show = || String::from_utf8_lossy(text).into_owned();
    assert_eq!(
        warnings,
        parts.warnings,
        "warnings, parts of {part_size} in {:?}",
        show()
    );
    let parts = parts.ads;
    assert_eq!(
        one.len(),
        parts.len(),
        "parts of {part_size} in {:?}",
        show()
    );
    for (a, b) in one.iter().zip(&parts) {
        match (a, b) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "parts of {part_size} in {:?}", show());
                assert_eq!(ad_spans(a), ad_spans(b), "spans, parts of {part_size}");
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "parts of {part_size} in {:?}", show()),
            _ => panic!("parts of {part_size} in {:?}: {a:?} / {b:?}", show()),
        }
    }
}

/// A reader that hands out at most `chunk` bytes a call.
struct Trickle<'a> {
    data: &'a [u8],
    chunk: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.chunk.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Reading through a small buffer, so that lines and ads straddle its
/// refills, gives what reading the text in memory gives.
fn same_streamed(text: &[u8], buffer: usize, chunk: usize) {
    let one = sequential(text);
    let parser = Parser::new(ParseOptions::default());
    let reader = std::io::BufReader::with_capacity(buffer, Trickle { data: text, chunk });
    let streamed: Vec<_> = AdReader::auto(reader, &parser).unwrap().collect();
    let show = || String::from_utf8_lossy(text).into_owned();
    assert_eq!(one.len(), streamed.len(), "{:?}", show());
    for (a, b) in one.iter().zip(&streamed) {
        match (a, b) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{:?}", show());
                assert_eq!(ad_spans(a), ad_spans(b), "spans in {:?}", show());
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "{:?}", show());
                // The line and column are those of the error's offset.
                if let Ok(text) = std::str::from_utf8(text) {
                    let before = &text[..a.error.span.start as usize];
                    let line = 1 + before.matches('\n').count();
                    let column = 1 + before.rsplit('\n').next().unwrap().chars().count();
                    assert_eq!(
                        (a.error.line, a.error.column),
                        (line, column),
                        "{a:?} in {text:?}"
                    );
                }
            }
            _ => panic!("{:?}: {a:?} / {b:?}", show()),
        }
    }
}

fn every_cut(text: &str) {
    for size in [1, 2, 3, 5, 8, 13, 40, 100, 1000] {
        same(text.as_bytes(), size);
    }
}

#[test]
fn old_syntax_good_and_bad() {
    every_cut("A = 1\nB = A + 1\n\nA = 2 +\n\n\n# comment\nA = 3\n  \t\nC = \"x\"\n");
    every_cut("\u{feff}A = 1\n\nB = 2\n\n\u{feff}C = 3\n");
    every_cut("A = 1\r\n\r\nB = [ x = 1;\r\n  y = 2 ]\r\nC = 3\r\n\r\n");
    let mut bytes = b"A = 1\n\nB = \"\xff\xfe\"\nC = 2\n\nD = 3\n\n".to_vec();
    bytes.extend_from_slice(b"E = \x00\n\nF = 4");
    for size in [1, 3, 7, 20] {
        same(&bytes, size);
    }
}

#[test]
fn new_syntax_good_and_bad() {
    every_cut("[ a = 1; b = \"x\" ]\n[ c = 2 ]\n\n[ d = {1, 2} ]\n");
    // The example: an unterminated string in the first ad.
    every_cut("[ a = 1; x = \"unterminated ]\n[ b = 2 ]\n[ c = 3 ]\n");
    every_cut("[ a = [ b = 1 ]\n[ c = 2 ]\n[ d = 3 ]\n");
    every_cut("garbage\n[ a = 1 ]\n/ [ b = 2 ]\n[ c = 3 ]\nmore garbage");
    every_cut("[ a = 1 ]\n/* a comment\n[ not = an ad ]\n*/\n[ b = 2 ]\n// [ x = 1 ]\n[ c = 3 ]\n");
    every_cut("[\n  a = 1;\n  b = [\n    c = 2\n  ]\n]\n[\nd = [\ne = 1\n]\n]\n[ f = \"a\nb\" ]\n");
    every_cut("[ s = \"x\n[ y = 1 ]\n\" ]\n[ ok = 1 ]\n");
    every_cut("\u{feff}[ a = 1 ]\n[ b = \u{feff}1 ]\n\u{feff}[ c = 1 ]\n");
    let bytes = b"[ a = 1 ]\n[ b = \"\xff\" ]\n[ c = 2 ]\n";
    for size in [1, 3, 7, 20] {
        same(bytes, size);
    }
}

#[test]
fn json_arrays() {
    every_cut("[\n{ \"a\": 1 },\n{ \"b\": \"\\/Expr(x + 1)\\/\" }\n]\n");
    every_cut(
        "[\n{\n  \"a\": 1,\n  \"n\": {\n\"x\": 1\n}\n}\n,\n{\n  \"b\": [1,\n{\"c\": 2}]\n}\n]\n",
    );
    // Soft errors (in an expression) fail one ad; hard ones end the document.
    every_cut("[\n{ \"a\": \"\\/Expr(x +)\\/\" },\n{ \"b\": 2 },\n{ \"c\" 3 },\n{ \"d\": 4 }\n]\n");
    every_cut("[\n{ \"a\": 1 }\n{ \"b\": 2 },\n{ \"c\": 3 }\n]\n");
    every_cut("[\n{ \"a\": 1 },\n{ \"b\": 2 },\n]\n");
    every_cut("[\n{ \"a\": 1 },\n{ \"b\": 2 }\n] trailing\n");
    every_cut("[\n{ \"s\": \"x\n{ \\\"y\\\": 1 }\" },\n{ \"b\": 2 }\n]\n");
    every_cut("\u{feff}[\n{ \"a\": 1 },\n{ \"b\": 2 }\n]\n");
    every_cut("{ \"a\": 1 }\n{ \"b\": 2 }\n");
    every_cut("[ ]");
    let bytes = b"[\n{ \"a\": \"\xff\" },\n{ \"b\": 2 },\n{ \"c\": \"\xfe\" }\n]\n";
    for size in [1, 3, 7, 20] {
        same(bytes, size);
    }
}

#[test]
fn xml_is_read_whole() {
    every_cut("<classads><c><a n=\"x\"><i>1</i></a></c></classads>\n");
}

/// Lines of old and new syntax, good and broken, to build files from.
fn old_line() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(vec![
        "A = 1",
        "B = A + 1",
        "C = \"x y\"",
        "D = [ e = 1 ]",
        "E = 1 +",
        "F = \"open",
        "",
        "",
        "  ",
        "# note",
        "G = f(",
        "'q' = 1",
        "H = {1, 2}",
        "\t",
        "I = a ? b : c",
    ])
}

fn new_piece() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(vec![
        "[ a = 1 ]",
        "[ b = \"x\" ]",
        "[",
        "]",
        "[ c = \"open ]",
        "\"",
        "/*",
        "*/",
        "//",
        "[ d = [ e = 1 ] ]",
        "x",
        ";",
        "[ f = {1,",
        "}",
        " ",
        "'",
        "[ g = 1; h = 2 ]",
    ])
}

fn json_piece() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(vec![
        "{ \"a\": 1 }",
        "{ \"b\": \"x\" }",
        ",",
        ",",
        "{",
        "}",
        "[",
        "]",
        "\"",
        "{ \"c\": {",
        "{ \"e\": \"\\/Expr(a +)\\/\" }",
        "{ \"f\": \"\\/Expr(1)\\/\" }",
        "x",
        ":",
        " ",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn generated_old_files(lines in proptest::collection::vec(old_line(), 0..30), size in 1usize..60) {
        let text = lines.join("\n");
        same(text.as_bytes(), size);
    }

    #[test]
    fn generated_old_files_streamed(
        lines in proptest::collection::vec(old_line(), 0..30),
        crlf in any::<bool>(),
        bad_byte in proptest::option::of(any::<prop::sample::Index>()),
        buffer in 1usize..40,
        chunk in 1usize..20,
    ) {
        let mut text = lines.join(if crlf { "\r\n" } else { "\n" }).into_bytes();
        if let Some(at) = bad_byte.filter(|_| !text.is_empty()) {
            let at = at.index(text.len());
            text[at] = 0xFF;
        }
        same_streamed(&text, buffer, chunk);
    }

    #[test]
    fn generated_new_files_streamed(
        pieces in proptest::collection::vec((new_piece(), proptest::sample::select(vec!["", " ", "\n", "é", "\té\n"])), 0..30),
        buffer in 1usize..40,
        chunk in 1usize..20,
    ) {
        let text: String = pieces.iter().map(|(p, s)| format!("{p}{s}")).collect();
        same_streamed(text.as_bytes(), buffer, chunk);
    }

    #[test]
    fn generated_new_files(
        pieces in proptest::collection::vec((new_piece(), proptest::sample::select(vec!["", " ", "\n"])), 0..30),
        size in 1usize..60,
    ) {
        let text: String = pieces.iter().map(|(p, s)| format!("{p}{s}")).collect();
        same(text.as_bytes(), size);
    }

    #[test]
    fn generated_json_files(
        pieces in proptest::collection::vec((json_piece(), proptest::sample::select(vec!["", " ", "\n"])), 0..30),
        size in 1usize..60,
    ) {
        let text: String = std::iter::once("[\n".to_string())
            .chain(pieces.iter().map(|(p, s)| format!("{p}{s}")))
            .collect();
        same(text.as_bytes(), size);
    }
}
