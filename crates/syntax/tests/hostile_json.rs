//! A broken ad inside a JSON document costs only itself: the reader
//! starts again at the next element and reports each bad ad with its
//! line and column (the project rule: bad input is normal input).

use classad_syntax::{AdError, AdExpr, AdReader, Format, ParseOptions, Parser, unparse_ad};

fn read(text: &[u8]) -> Vec<Result<AdExpr, AdError>> {
    let parser = Parser::new(ParseOptions::default());
    AdReader::new(text, Format::Json, &parser).collect()
}

/// Each read ad as new syntax, each error as `line:column`.
fn outline(text: &[u8]) -> Vec<String> {
    read(text)
        .iter()
        .map(|ad| match ad {
            Ok(ad) => unparse_ad(ad),
            Err(e) => format!("error {}:{}", e.error.line, e.error.column),
        })
        .collect()
}

/// The broken middle ads tried: what each is, and its text.
const BROKEN: &[(&str, &str)] = &[
    ("unterminated string", r#"{"b": "never closed }"#),
    ("bad number", r#"{"b": 1.2.3}"#),
    ("leading zero", r#"{"b": 007}"#),
    ("missing colon", r#"{"b" 2}"#),
    ("missing value", r#"{"b": }"#),
    ("unknown word", r#"{"b": nope}"#),
    ("unbalanced open brace", r#"{"b": {"x": 1}"#),
    ("unbalanced open bracket", r#"{"b": [1, 2}"#),
    ("extra close bracket", r#"{"b": 2]}"#),
    ("not an object", r#"17"#),
    ("bare string", r#""b""#),
    ("bad escape", r#"{"b": "\u12"}"#),
    ("control garbage", "{\"b\": \u{1}\u{2}\u{7f}}"),
    ("missing comma between members", r#"{"b": 1 "c": 2}"#),
];

/// One line, all ads on it: the element after the broken one is found by
/// its brackets, or after the next `,`.
#[test]
fn one_line_array_keeps_the_ads_after_a_broken_one() {
    for (what, bad) in BROKEN {
        let text = format!(r#"[ {{"a": 1}}, {bad}, {{"c": 3}} ]"#);
        let got = outline(text.as_bytes());
        assert_eq!(got.len(), 3, "{what}: {text}: {got:?}");
        assert_eq!(got[0], "[ a = 1 ]", "{what}");
        assert!(got[1].starts_with("error 1:"), "{what}: {got:?}");
        assert_eq!(got[2], "[ c = 3 ]", "{what}: {text}: {got:?}");
    }
}

/// The form `condor_q -json` and `classad convert --to json` write, one
/// member a line: the element after the broken one starts the next line
/// that starts with `{`, whatever the breakage swallowed.
#[test]
fn pretty_array_keeps_the_ads_after_a_broken_one() {
    for (what, bad) in BROKEN {
        let bad = bad.replace(", ", ",\n  ");
        let text = format!("[\n{{\n  \"a\": 1\n}}\n,\n{bad}\n,\n{{\n  \"c\": 3\n}}\n]\n");
        let got = outline(text.as_bytes());
        assert_eq!(got.len(), 3, "{what}: {text}: {got:?}");
        assert_eq!(got[0], "[ a = 1 ]", "{what}");
        assert!(got[1].starts_with("error "), "{what}: {got:?}");
        assert_eq!(got[2], "[ c = 3 ]", "{what}: {text}: {got:?}");
    }
}

/// Several broken ads, each reported with its own position, the good
/// ones between them kept; also in a sequence of objects (no array).
#[test]
fn every_broken_ad_is_reported_with_its_position() {
    let mut text = String::from("[\n");
    for (i, (_, bad)) in BROKEN.iter().enumerate() {
        text.push_str(&format!("{{\"good\": {i}}},\n{bad},\n"));
    }
    text.push_str("{\"last\": 1}\n]\n");
    let got = read(text.as_bytes());
    assert_eq!(got.len(), 2 * BROKEN.len() + 1, "{text}");
    for (i, ad) in got.iter().enumerate() {
        // The ads are on lines 2, 3, 4, ...
        let line = i + 2;
        match ad {
            Ok(ad) => assert!(i % 2 == 0 || i == got.len() - 1, "{i}: {}", unparse_ad(ad)),
            Err(e) => {
                assert_eq!(i % 2, 1, "{i}: {e}");
                assert_eq!((e.ordinal, e.first_line), (i + 1, line));
                // A missing `}` is found where the next ad starts.
                assert!((line..=line + 1).contains(&e.error.line), "{e}");
                let shown = format!("f.json:{}:{}", e.error.line, e.error.column);
                assert!(e.render("f.json").contains(&shown));
            }
        }
    }
    // A stray `}` after a good ad is an error of its own.
    assert_eq!(
        outline(br#"[{"a": 1}, {"b": 2}}, {"c": 3}]"#),
        ["[ a = 1 ]", "[ b = 2 ]", "error 1:20", "[ c = 3 ]"]
    );
    let sequence = "{\"a\": 1}\n{\"b\" 2}\n{\"c\": \"open\n{\"d\": 4}\n";
    assert_eq!(
        outline(sequence.as_bytes()),
        ["[ a = 1 ]", "error 2:6", "error 3:7", "[ d = 4 ]"]
    );
}

/// Binary garbage in and between ads: the ads it touches fail, with the
/// position of the first byte that is not UTF-8, and the others are read.
#[test]
fn binary_garbage_costs_only_the_ads_it_is_in() {
    let mut text = b"[\n{\"a\": 1},\n{\"b\": \x00\xff\xfe\x80[{\"}\n,\n{\"c\": 3}\n]\n".to_vec();
    let got = outline(&text);
    assert_eq!(got, ["[ a = 1 ]", "error 3:8", "[ c = 3 ]"]);
    // Garbage from a fixed generator in place of the middle ad, a line
    // that starts with `{` after it.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for round in 0..200 {
        let mut garbage = Vec::new();
        for _ in 0..(round % 40 + 1) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            garbage.push(state as u8);
        }
        text.clear();
        text.extend_from_slice(b"[\n{\"a\": 1},\n{");
        text.extend_from_slice(&garbage);
        text.extend_from_slice(b"\n,\n{\"c\": 3}\n]\n");
        let got = outline(&text);
        assert_eq!(
            got.first().map(String::as_str),
            Some("[ a = 1 ]"),
            "{text:?}"
        );
        assert_eq!(
            got.last().map(String::as_str),
            Some("[ c = 3 ]"),
            "{text:?}: {got:?}"
        );
    }
}

/// Many broken ads on one line cost time and memory linear in the
/// document: each error keeps a window of the line, not the line.
#[test]
fn many_broken_ads_on_one_line_stay_bounded() {
    let mut text = String::from("[");
    for i in 0..20_000 {
        text.push_str(&format!("{{\"a\": {i}}}, {{\"b\" 1}}, "));
    }
    text.push_str("{\"z\": 1}]");
    let got = read(text.as_bytes());
    assert_eq!(got.len(), 40_001);
    assert_eq!(got.iter().filter(|ad| ad.is_ok()).count(), 20_001);
    let kept: usize = got
        .iter()
        .filter_map(|ad| ad.as_ref().err())
        .map(|e| e.text.len())
        .sum();
    assert!(kept < 20_000 * 4096, "{kept} bytes of error text");
    // The column of the last error is counted on the one long line.
    let last = got[got.len() - 2].as_ref().unwrap_err();
    assert_eq!(last.error.line, 1);
    assert_eq!(
        last.error.column,
        text.rfind("{\"b\" 1}").unwrap() + 6,
        "{}",
        last.error
    );
}

/// An element that never closes, repeated on every line, each line
/// starting with `{`: reading stays within the recovery bound and every
/// line is reported.
#[test]
fn unclosed_elements_on_every_line_are_each_reported() {
    let mut text = String::from("[\n");
    for _ in 0..2_000 {
        text.push_str("{\"a\": [1, 2, {\"b\": \"x\n");
    }
    text.push_str("{\"z\": 1}\n]\n");
    let got = read(text.as_bytes());
    assert_eq!(got.len(), 2_001);
    assert!(got[..2_000].iter().all(Result::is_err));
    assert!(got[2_000].is_ok(), "{:?}", got[2_000]);
}

/// Read in parts on several threads, a document with broken ads gives
/// exactly what one reader gives.
#[test]
fn parts_read_in_parallel_agree_with_one_reader() {
    let mut text = String::from("[\n");
    for (i, (_, bad)) in BROKEN.iter().enumerate() {
        text.push_str(&format!("{{\"good\": {i}}},\n{bad},\n"));
    }
    text.push_str("{\"last\": 1}\n]\n");
    let one = read(text.as_bytes());
    for part in [1, 7, 40, 100] {
        let parts = classad_syntax::read::read_ads_in_parts(
            text.as_bytes(),
            ParseOptions::default(),
            part,
            &|ad| ad,
        );
        assert!(parts.warnings.is_empty());
        assert_eq!(parts.ads, one, "parts of {part} bytes");
    }
}

/// The XML reader likewise: an ad without its `</c>`, or with a tag left
/// open, ends where the next line starts with `<c>`.
#[test]
fn xml_ad_left_open_costs_only_itself() {
    let parser = Parser::new(ParseOptions::default());
    for bad in [
        "<c><a n=\"b\"><i>1</i></a>",
        "<c><a n=\"b\"><i>1</i",
        "<c><a n=\"b\"><s>open",
        "<c><a n=\"b\"><i>1x</a></c>",
    ] {
        let text = format!(
            "<classads>\n<c><a n=\"a\"><i>1</i></a></c>\n{bad}\n<c><a n=\"d\"><i>4</i></a></c>\n</classads>\n"
        );
        let got: Vec<String> = AdReader::new(text.as_bytes(), Format::Xml, &parser)
            .map(|ad| match ad {
                Ok(ad) => unparse_ad(&ad),
                Err(e) => format!("error {}", e.first_line),
            })
            .collect();
        assert_eq!(got, ["[ a = 1 ]", "error 3", "[ d = 4 ]"], "{bad}");
    }
}
