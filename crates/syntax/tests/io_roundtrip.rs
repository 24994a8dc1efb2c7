//! JSON writer and reader, and the streaming ad readers: exact output
//! against HTCondor's printJson, round trips, errors that keep the other
//! ads, line numbers, and streaming.

use classad_syntax::json::{
    ad_to_json, ad_to_json_compact, parse_json_ad, parse_json_ads, parse_json_value,
};
use classad_syntax::{
    AdError, AdExpr, AdReader, Expr, ExprKind, Format, Literal, Name, ParseOptions, Parser,
    detect_format, parse_ad, unparse_ad, unparse_ad_old,
};
use std::io::{BufReader, Read};

fn parser() -> Parser {
    Parser::new(ParseOptions::default())
}

fn read_all(text: &str, format: Format) -> Vec<Result<AdExpr, AdError>> {
    let p = parser();
    AdReader::new(text.as_bytes(), format, &p).collect()
}

/// An ad and HTCondor 25's `printJson()` of it (from the oracle), but for
/// `k = - 3`, which HTCondor writes ` -3` (reading back as the literal -3)
/// and we write ` - 3` (docs/differences.md).
const PRINTJSON_SOURCE: &str = "[ a = 1; b = 2.5; c = \"x/y\\\"z\\\\w\\n\\t\\b\\f\\r\\001\\033\\177\u{e9}\"; d = true; e = undefined; f = error; g = {1, 2.0, \"s\", {3}, [x=1]}; h = [p = 1; q = r + 1; s = [t = {}]]; i = a + b; j = -3; k = - 3; l = 1e100; m = 0.1; n = -0.0; q = \"\"; r = {}; s = []; v = 100000000000.0; w = 1.0; x = (1); y = {1, a + 1}; z = [k = a+1]; aa = \"x\\ny\" + c; ab = MY.x =?= \"a\\\"b\"; ac = 1e-5; ad = 123456789.125 ]";
const PRINTJSON_EXPECTED: &str = "{\n  \"a\": 1,\n  \"b\": 2.5,\n  \"c\": \"x/y\\\"z\\\\w\\n\\t\\b\\f\\r\\u0001\\u001B\u{7f}\u{e9}\",\n  \"d\": true,\n  \"e\": null,\n  \"f\": \"\\/Expr(error)\\/\",\n  \"g\": [\n    1,\n    2.0,\n    \"s\",\n    [\n      3\n    ],\n    {\n      \"x\": 1\n    }\n  ],\n  \"h\": {\n    \"p\": 1,\n    \"q\": \"\\/Expr(r + 1)\\/\",\n    \"s\": {\n      \"t\": [\n      ]\n    }\n  },\n  \"i\": \"\\/Expr(a + b)\\/\",\n  \"j\": -3,\n  \"k\": \"\\/Expr( - 3)\\/\",\n  \"l\": 1E+100,\n  \"m\": 0.1,\n  \"n\": -0.0,\n  \"q\": \"\",\n  \"r\": [\n  ],\n  \"s\": {\n  },\n  \"v\": 100000000000.0,\n  \"w\": 1.0,\n  \"x\": \"\\/Expr((1))\\/\",\n  \"y\": [\n    1,\n    \"\\/Expr(a + 1)\\/\"\n  ],\n  \"z\": {\n    \"k\": \"\\/Expr(a + 1)\\/\"\n  },\n  \"aa\": \"\\/Expr(\\\"x\\\\ny\\\" + c)\\/\",\n  \"ab\": \"\\/Expr(MY.x is \\\"a\\\\\\\"b\\\")\\/\",\n  \"ac\": 1E-05,\n  \"ad\": 123456789.125\n}";

#[test]
fn json_writer_matches_printjson() {
    let ad = parse_ad(PRINTJSON_SOURCE).unwrap();
    assert_eq!(ad_to_json(&ad), PRINTJSON_EXPECTED);
    assert_eq!(ad_to_json(&AdExpr::new()), "{\n}");
}

/// A relative time's literal (`relTime("...")` of a literal string) is
/// written as the real it evaluates to, an absolute time's as an
/// expression: HTCondor 25's `printJson()` of this ad (the oracle), in
/// the ad's order.
#[test]
fn json_writes_a_relative_time_literal_as_its_real() {
    let ad = parse_ad(
        r#"[z = relTime("1.5"); y = relTime(""); x = {relTime("01:01"), absTime("2020-01-01T00:00:00Z")}; w = relTime("-2147483649"); v = relTime("1d")]"#,
    )
    .unwrap();
    assert_eq!(
        ad_to_json_compact(&ad),
        r#"{"z": 1.5,"y": 0.0,"x": [61.0,"\/Expr(absTime(\"2020-01-01T00:00:00-00:00\"))\/"],"w": -2147483649.0,"v": 86400.0}"#
    );
}

#[test]
fn json_compact_form() {
    let ad = parse_ad(r#"[a = 1; b = {1, "x"}; c = [d = undefined]; e = {}; f = a + 1]"#).unwrap();
    assert_eq!(
        ad_to_json_compact(&ad),
        r#"{"a": 1,"b": [1,"x"],"c": {"d": null},"e": [],"f": "\/Expr(a + 1)\/"}"#
    );
}

#[test]
fn json_nonfinite_and_non_utf8() {
    let mut ad = AdExpr::new();
    ad.insert(Name::new("n"), Expr::literal(Literal::Real(f64::NAN)));
    ad.insert(
        Name::new("i"),
        Expr::literal(Literal::Real(f64::NEG_INFINITY)),
    );
    ad.insert(
        Name::new("s"),
        Expr::literal(Literal::String(b"a\xffb".to_vec().into())),
    );
    assert_eq!(
        ad_to_json_compact(&ad),
        r#"{"n": "\/Expr(real(\"NaN\"))\/","i": "\/Expr(real(\"-INF\"))\/","s": "\/Expr(\"a\\377b\")\/"}"#
    );
    // The non-UTF-8 string reads back to the same bytes.
    let back = parse_json_ad(&parser(), &ad_to_json(&ad)).unwrap();
    assert_eq!(back.get("s"), ad.get("s"));
}

#[test]
fn json_round_trip() {
    let mut ad = parse_ad(PRINTJSON_SOURCE).unwrap();
    // `k = - 3` is left out: the unparser writes it ` -3` (as HTCondor
    // does), which reads back as the literal -3, whatever the form.
    ad.attributes
        .retain(|(name, _)| name.to_str().unwrap() != "k");
    let p = parser();
    for text in [ad_to_json(&ad), ad_to_json_compact(&ad)] {
        let back = parse_json_ad(&p, &text).unwrap();
        assert_eq!(back, ad, "{text}");
    }
}

#[test]
fn json_reader_follows_htcondor() {
    let p = parser();
    let ad = parse_json_ad(
        &p,
        r#"{"a": -3, "b": 1.5e3, "c": "\/Expr(x+1)\/", "d": "/Expr(x+1)/", "e": "\/expr(x)\/",
            "f": null, "g": TRUE, "h": "\u00e9\ud83d\ude00\/", "i": 99999999999999999999,,
            "A": 7, "j": [1, [], {}], }"#,
    )
    .unwrap();
    let expected = parse_ad(
        r#"[a = 7; b = 1.5e3; c = x + 1; d = "/Expr(x+1)/"; e = x; f = undefined; g = true;
            h = "é😀/"; i = 0; j = {1, {}, []}]"#,
    )
    .unwrap();
    assert_eq!(ad, expected);
    // A name given twice keeps the first spelling and the last value.
    assert_eq!(ad.attributes[0].0.to_str().unwrap(), "a");
    assert!(matches!(
        parse_json_value(&p, "[1, 2]").unwrap().kind,
        ExprKind::List(_)
    ));
    for bad in [
        r#"{"a": 01}"#,
        r#"{"a": 1.}"#,
        r#"{"a": [1,]}"#,
        r#"{"a": undefined}"#,
        r#"{"a": "\u0000"}"#,
        r#"{"a": "\ud800"}"#,
        r#"{"a": 1"#,
        r#"{"a": "x}"#,
        r#"{a: 1}"#,
        r#"{"a": 1} x"#,
    ] {
        assert!(parse_json_ad(&p, bad).is_err(), "{bad}");
    }
}

#[test]
fn json_error_positions() {
    let p = parser();
    let text = "{\n  \"a\": 1,\n  \"b\": \"\\/Expr(1 + \\\"x\\\" +)\\/\"\n}";
    let err = parse_json_ad(&p, text).unwrap_err();
    assert_eq!(err.line, 3, "{err}");
    // The error is at the end of the expression, just before `)\/`.
    let at = err.span.start as usize;
    assert_eq!(&text[at..at + 4], ")\\/\"", "{err}");
    let err = parse_json_ad(&p, "{\n\n   \"a\" 1}").unwrap_err();
    assert_eq!((err.line, err.column), (3, 8), "{err}");
}

#[test]
fn json_spans_point_into_the_document() {
    let p = parser();
    let text = r#"{"a": "\/Expr(\"q\" + foo)\/"}"#;
    let ad = parse_json_ad(&p, text).unwrap();
    let ExprKind::Binary { rhs, .. } = &ad.get("a").unwrap().kind else {
        panic!("not a binary operator")
    };
    assert_eq!(&text[rhs.span.start as usize..rhs.span.end as usize], "foo");
}

#[test]
fn json_deep_nesting_is_an_error_not_a_crash() {
    let p = parser();
    let deep = format!("{{\"a\": {}1{}}}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(parse_json_ad(&p, &deep).is_err());
    let deep = format!("{}1{}", "{\"a\": ".repeat(100_000), "}".repeat(100_000));
    assert!(parse_json_ad(&p, &deep).is_err());
}

#[test]
fn json_documents_of_many_ads() {
    let p = parser();
    let array =
        "[\n{\n  \"a\": 1\n}\n,\n{\n  \"b\": \"\\/Expr(1 +)\\/\"\n}\n,\n{\n  \"c\": 3\n}\n]\n";
    let items: Vec<_> = parse_json_ads(&p, array).collect();
    assert_eq!(items.len(), 3);
    assert!(items[0].1.is_ok() && items[1].1.is_err() && items[2].1.is_ok());
    let seq = "{\"a\": 1}\n{\"b\": 2} {\"c\": 3}";
    assert_eq!(
        parse_json_ads(&p, seq).filter(|(_, r)| r.is_ok()).count(),
        3
    );
    assert_eq!(parse_json_ads(&p, "  \n").count(), 0);
    assert_eq!(parse_json_ads(&p, "[]").count(), 0);
    // A JSON syntax error costs only its ad: reading starts again at the
    // next element.
    let broken: Vec<_> = parse_json_ads(&p, r#"[{"a": 1}, {"b" 2}, {"c": 3}]"#).collect();
    assert_eq!(broken.len(), 3);
    assert!(broken[0].1.is_ok() && broken[1].1.is_err() && broken[2].1.is_ok());
}

#[test]
fn json_reader_errors_keep_ordinal_and_line() {
    let text = "[\n{\"a\": 1},\n{\"b\": \"\\/Expr(1 +)\\/\"},\n{\"c\": 3}\n]";
    let ads = read_all(text, Format::Json);
    assert_eq!(ads.len(), 3);
    let err = ads[1].as_ref().unwrap_err();
    assert_eq!((err.ordinal, err.first_line, err.error.line), (2, 3, 3));
    let rendered = err.render("f.json");
    assert!(rendered.contains("f.json:3:"), "{rendered}");
    assert!(rendered.contains("3 | {\"b\""), "{rendered}");
}

const OLD: &str = r#"# a comment
MyType = "Machine"
Name = "slot1@host"
Memory = 2048
Requirements = Memory > 1024 && TARGET.RequestMemory <= Memory

MyType = "Job"
Cmd = "/bin/sh"
Bad = 1 +
Rank = 0.0

   
Weird = "back\\slash \" quote"
Real = 1E+100
"#;

/// With `refuse_partial_ads`, an ad with an unreadable line is an error,
/// and the ads after it are read.
#[test]
fn old_reader_keeps_going_after_a_bad_ad() {
    let p = Parser::new(ParseOptions {
        refuse_partial_ads: true,
        ..ParseOptions::default()
    });
    let ads: Vec<_> = AdReader::new(OLD.as_bytes(), Format::Old, &p).collect();
    assert_eq!(ads.len(), 3);
    let first = ads[0].as_ref().unwrap();
    assert_eq!(first.len(), 4);
    let err = ads[1].as_ref().unwrap_err();
    assert_eq!(err.ordinal, 2);
    assert_eq!(err.first_line, 7);
    assert_eq!(err.error.line, 9);
    assert_eq!(err.error.column, 10);
    let rendered = err.render("pool.ads");
    assert!(rendered.contains("pool.ads:9:10"), "{rendered}");
    assert!(rendered.contains("9 | Bad = 1 +"), "{rendered}");
    let third = ads[2].as_ref().unwrap();
    // Old syntax keeps backslashes; only `\"` is an escape.
    assert_eq!(
        third.get("Weird"),
        Some(&Expr::literal(Literal::String(
            b"back\\\\slash \" quote".to_vec().into()
        )))
    );
}

/// By default the ad keeps the lines before its unreadable line, as
/// HTCondor does, and the reader says what it dropped.
#[test]
fn old_reader_keeps_the_lines_before_an_unreadable_line() {
    let p = parser();
    let mut reader = AdReader::new(OLD.as_bytes(), Format::Old, &p);
    let ads: Vec<_> = reader.by_ref().collect();
    assert_eq!(ads.len(), 3);
    let second = ads[1].as_ref().unwrap();
    let names: Vec<String> = second
        .attributes
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    assert_eq!(names, ["MyType", "Cmd"]);
    let warnings = reader.take_warnings();
    assert_eq!(warnings.len(), 1);
    let w = &warnings[0];
    assert_eq!((w.error.ordinal, w.error.first_line), (2, 7));
    assert_eq!((w.error.error.line, w.error.error.column), (9, 10));
    assert_eq!((w.kept_lines, w.dropped_lines), (2, 2));
    let rendered = w.render("pool.ads");
    assert!(rendered.starts_with("warning: "), "{rendered}");
    assert!(rendered.contains("pool.ads:9:10"), "{rendered}");
    assert!(
        rendered.contains("line 9 and the 1 line after it"),
        "{rendered}"
    );
    assert!(reader.take_warnings().is_empty());
}

#[test]
fn old_spans_are_file_offsets() {
    let ads = read_all(OLD, Format::Old);
    let first = ads[0].as_ref().unwrap();
    let req = first.get("Requirements").unwrap();
    let text = &OLD[req.span.start as usize..req.span.end as usize];
    assert_eq!(text, "Memory > 1024 && TARGET.RequestMemory <= Memory");
}

#[test]
fn old_reader_handles_crlf_and_no_final_newline() {
    let ads = read_all("A = 1\r\nB = \"x\"\r\n\r\nC = 2", Format::Old);
    assert_eq!(ads.len(), 2);
    assert_eq!(ads[0].as_ref().unwrap().len(), 2);
    assert_eq!(ads[1].as_ref().unwrap().len(), 1);
    assert_eq!(read_all("", Format::Old).len(), 0);
    assert_eq!(read_all("\n\n# only a comment\n\n", Format::Old).len(), 0);
}

#[test]
fn old_reader_reports_non_utf8() {
    let p = parser();
    let input: &[u8] = b"A = \"\xff\"\n\nB = 1\n";
    let ads: Vec<_> = AdReader::new(input, Format::Old, &p).collect();
    assert_eq!(ads.len(), 2);
    assert!(ads[0].is_err());
    assert!(ads[1].is_ok());
}

const NEW: &str = r#"// leading comment
[ a = 1; b = "]"; c = '['; /* ] */ d = [e = 2] ] [ bad = 1 + ]
/* between */ [
  x = 1;
  y = {1, 2
]
[ z = "ok" ] junk [ w = 1 ]
"#;

#[test]
fn new_reader_keeps_going_after_bad_ads() {
    let ads = read_all(NEW, Format::New);
    let summary: Vec<_> = ads.iter().map(|r| r.is_ok()).collect();
    assert_eq!(summary, [true, false, false, true, false, true]);
    let first = ads[0].as_ref().unwrap();
    assert_eq!(first.len(), 4);
    let bad = ads[1].as_ref().unwrap_err();
    assert_eq!((bad.ordinal, bad.first_line, bad.error.line), (2, 2, 2));
    // The `]` of `[ bad = 1 + ]` is at column 62 of line 2.
    let rendered = bad.render("x");
    assert_eq!(bad.error.column, 62, "{rendered}");
    assert!(rendered.contains("x:2:62"), "{rendered}");
    assert!(rendered.contains("2 | "), "{rendered}");
    let unclosed = ads[2].as_ref().unwrap_err();
    assert_eq!(unclosed.first_line, 3);
    assert_eq!(unclosed.error.line, 6, "{}", unclosed.render("x"));
    let junk = ads[4].as_ref().unwrap_err();
    assert_eq!((junk.error.line, junk.error.column), (7, 14));
    assert!(
        junk.error.message.contains("`junk`"),
        "{}",
        junk.error.message
    );
}

#[test]
fn new_spans_are_file_offsets() {
    let ads = read_all(NEW, Format::New);
    let last = ads[5].as_ref().unwrap();
    let w = last.get("w").unwrap();
    assert_eq!(&NEW[w.span.start as usize..w.span.end as usize], "1");
    assert_eq!(NEW[..w.span.start as usize].lines().count(), 7);
}

/// An unterminated string costs only its own ad (see
/// `new_syntax_reader_resynchronises_after_a_broken_ad`).
#[test]
fn new_reader_unterminated_string_costs_only_its_ad() {
    let ads = read_all("[a = 1]\n[b = \"oops]\n[c = 2]\n", Format::New);
    assert_eq!(ads.len(), 3);
    assert!(ads[0].is_ok());
    assert!(ads[1].is_err());
    assert!(ads[2].is_ok());
}

#[test]
fn format_detection() {
    assert_eq!(detect_format("  \n [a=1]"), Format::New);
    assert_eq!(detect_format("\n{\"a\": 1}"), Format::Json);
    assert_eq!(detect_format("A = 1"), Format::Old);
    assert_eq!(detect_format("# c\nA = 1"), Format::Old);
    assert_eq!(detect_format("// c\n[]"), Format::New);
    assert_eq!(detect_format(""), Format::Old);
    assert_eq!(detect_format("[\n{\n  \"a\": 1\n}\n]\n"), Format::Json);
    assert_eq!(detect_format(" [ ] \n"), Format::Json);
    assert_eq!(detect_format("[ ]\n[a = 1]"), Format::New);
    assert_eq!(detect_format("[]]"), Format::New);
    assert_eq!("JSON".parse::<Format>(), Ok(Format::Json));
    assert_eq!("xml".parse::<Format>(), Ok(Format::Xml));
    assert!("yaml".parse::<Format>().is_err());
    assert_eq!(detect_format("\n<?xml version=\"1.0\"?>"), Format::Xml);
    let p = parser();
    for (text, format) in [
        ("\n\n  [a = 1]", Format::New),
        ("\n{\"a\": 1}", Format::Json),
        ("\nA = 1", Format::Old),
        ("[\n {\"a\": 1}]", Format::Json),
        ("[a = [b = 1]]", Format::New),
        (
            "\n<classads><c><a n=\"a\"><i>1</i></a></c></classads>",
            Format::Xml,
        ),
    ] {
        let reader = AdReader::auto(text.as_bytes(), &p).unwrap();
        assert_eq!(reader.format(), format);
        let ads: Vec<_> = reader.collect();
        assert_eq!(ads.len(), 1);
        assert_eq!(ads[0].as_ref().unwrap().len(), 1, "{text:?}");
    }
    // Positions count the blank lines read to decide.
    let mut reader = AdReader::auto("\n\n[a = 1 +]".as_bytes(), &p).unwrap();
    let err = reader.next().unwrap().unwrap_err();
    assert_eq!(err.error.line, 3);
}

/// A reader that hands out its input a few bytes at a time.
struct Trickle<'a> {
    data: &'a [u8],
    pos: usize,
    chunk: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.chunk.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[test]
fn readers_stream_ad_by_ad() {
    let p = parser();
    let mut old = String::new();
    let mut new = String::new();
    for i in 0..2000 {
        let ad = parse_ad(&format!(
            r#"[Id = {i}; Name = "n{i}"; R = Id > 3 && {{1, "]"}}[0] == 1]"#
        ))
        .unwrap();
        old.push_str(&unparse_ad_old(&ad));
        old.push('\n');
        new.push_str(&unparse_ad(&ad));
        new.push_str(if i % 2 == 0 { "\n" } else { " /* c ] */ " });
    }
    for (text, format) in [(&old, Format::Old), (&new, Format::New)] {
        let trickle = Trickle {
            data: text.as_bytes(),
            pos: 0,
            chunk: 7,
        };
        let mut reader = AdReader::new(BufReader::with_capacity(16, trickle), format, &p);
        let first = reader.next().unwrap().unwrap();
        assert_eq!(first.get("Id"), Some(&Expr::literal(Literal::Integer(0))));
        // Only about one ad has been read, not the whole input.
        assert!(
            reader.bytes_read() < 200,
            "{format:?} read {}",
            reader.bytes_read()
        );
        let rest: Vec<_> = reader.map(Result::unwrap).collect();
        assert_eq!(rest.len(), 1999);
        assert_eq!(
            rest[1998].get("Id"),
            Some(&Expr::literal(Literal::Integer(1999)))
        );
    }
}

#[test]
fn readers_agree_across_formats() {
    let p = parser();
    let ads: Vec<AdExpr> = read_all(OLD, Format::Old)
        .into_iter()
        .filter_map(Result::ok)
        .collect();
    let mut new = String::new();
    let mut json = String::from("[\n");
    for (i, ad) in ads.iter().enumerate() {
        new.push_str(&unparse_ad(ad));
        new.push('\n');
        if i > 0 {
            json.push_str(",\n");
        }
        json.push_str(&ad_to_json(ad));
        json.push('\n');
    }
    json.push_str("]\n");
    let from_new: Vec<AdExpr> = AdReader::new(new.as_bytes(), Format::New, &p)
        .map(Result::unwrap)
        .collect();
    let from_json: Vec<AdExpr> = AdReader::new(json.as_bytes(), Format::Json, &p)
        .map(Result::unwrap)
        .collect();
    assert_eq!(from_new, ads);
    assert_eq!(from_json, ads);
}

#[test]
fn no_panic_on_odd_inputs() {
    let p = parser();
    let inputs: [&[u8]; 12] = [
        b"[",
        b"]",
        b"/",
        b"/*",
        b"[\"",
        b"['",
        b"[a = \"\\",
        b"{",
        b"{\"a\": \"\\u12",
        b"[\xff]",
        b"{\"\xff\": 1}",
        b"= = =\n\n\xff\xfe",
    ];
    for input in inputs {
        for format in [Format::Old, Format::New, Format::Json] {
            let _ = AdReader::new(input, format, &p).count();
        }
        let _ = AdReader::auto(input, &p).map(Iterator::count);
    }
}

/// What we write, we read (issue 13): a raw NUL in an old-syntax string
/// was read, and then written as new syntax (`\000`) and JSON (`\u0000`)
/// that every reader, ours and HTCondor's, refuses. HTCondor reads ad
/// text as C strings, where a NUL ends the input, so the old-syntax reader
/// now refuses it too, saying where, and goes on to the next ad.
#[test]
fn old_syntax_nul_in_string_is_refused() {
    let text = "A = \"x\0y\"\nB = 2\n\nC = 3\n";
    let ads = read_all(text, Format::Old);
    assert_eq!(ads.len(), 2, "{ads:?}");
    let error = ads[0].as_ref().expect_err("NUL refused");
    assert!(
        error.error.message.contains("NUL"),
        "{}",
        error.error.message
    );
    assert_eq!((error.error.line, error.error.column), (1, 7));
    let good = ads[1].as_ref().expect("the next ad");
    assert_eq!(unparse_ad(good), "[ C = 3 ]");
    // After an escaping backslash as well, and on the grammar's path.
    for text in ["A = \"x\\\0\"\n", "A = \"x\0\" + \"y\"\n"] {
        let ads = read_all(text, Format::Old);
        assert!(ads[0].is_err(), "{text:?}: {ads:?}");
    }
}

/// One broken ad in a new-syntax file costs only itself (issue 9): an
/// unterminated string or an unbalanced `[` used to run the ad into every
/// later one, which were all lost. The reader now cuts the broken ad where
/// a line starts with `[`, reports it with its own position, and reads on.
#[test]
fn new_syntax_reader_resynchronises_after_a_broken_ad() {
    let text = "[ a = 1; x = \"unterminated ]\n[ b = 2 ]\n[ c = 3 ]\n";
    let ads = read_all(text, Format::New);
    assert_eq!(ads.len(), 3, "{ads:?}");
    let error = ads[0].as_ref().expect_err("the broken ad");
    assert_eq!((error.ordinal, error.first_line), (1, 1));
    assert_eq!(error.error.line, 1, "{error:?}");
    assert_eq!(unparse_ad(ads[1].as_ref().unwrap()), "[ b = 2 ]");
    assert_eq!(unparse_ad(ads[2].as_ref().unwrap()), "[ c = 3 ]");

    // An unbalanced `[`, then a good ad, another broken one, a good one:
    // every bad ad is reported, every good one read, lines kept.
    let text = "[ a = [ b = 1; ]\n[ c = 3 ]\n[ d = \"x ]\n\n[ e = 5 ]\n";
    let ads = read_all(text, Format::New);
    let summary: Vec<String> = ads
        .iter()
        .map(|ad| match ad {
            Ok(ad) => unparse_ad(ad),
            Err(e) => format!("error in the ad from line {}", e.first_line),
        })
        .collect();
    assert_eq!(
        summary,
        [
            "error in the ad from line 1",
            "[ c = 3 ]",
            "error in the ad from line 3",
            "[ e = 5 ]"
        ],
        "{ads:?}"
    );
    let good = ads[3].as_ref().unwrap();
    let (_, e) = good.attributes.first().unwrap();
    assert_eq!(&text[e.span.start as usize..e.span.end as usize], "5");

    // A nested ad that starts a line is not cut when the ad is good.
    let text = "[ a =\n[ b = 1 ]\n]\n[ c = 2 ]\n";
    let ads = read_all(text, Format::New);
    assert!(ads.iter().all(Result::is_ok), "{ads:?}");
    assert_eq!(ads.len(), 2);
}

/// Each broken ad that runs to the end of the input (a missing `]`, an
/// unterminated string) used to be read again up to the end, under a
/// bound of 4 bytes per byte of input: past it the next broken ad took
/// the rest of the input with it. 10 such ads spread over a pool of
/// 100,000 lost the last 35,000 good ones. Past the bound every line that
/// starts with `[` now ends the ad before it, so reading stays linear and
/// every good ad after a broken one is read.
#[test]
fn many_broken_ads_do_not_take_the_rest_of_the_input() {
    for broken in ["[ a = [ b = 1; c = 2 ]", "[ a = \"x; b = 1 ]", "[ a = \"x"] {
        let (n, every) = (20_000, 1_000);
        let mut text = String::new();
        for i in 0..n {
            if i % every == every / 2 {
                text.push_str(broken);
            } else {
                text.push_str(&format!("[ a = {i} ]"));
            }
            text.push('\n');
        }
        let ads = read_all(&text, Format::New);
        let bad: Vec<usize> = ads
            .iter()
            .filter_map(|ad| ad.as_ref().err().map(|e| e.first_line))
            .collect();
        let expected: Vec<usize> = (0..n)
            .filter(|i| i % every == every / 2)
            .map(|i| i + 1)
            .collect();
        assert_eq!(bad, expected, "{broken}");
        assert_eq!(ads.len(), n, "{broken}");
        let last = ads.last().unwrap().as_ref().expect("the last ad is good");
        assert_eq!(unparse_ad(last), format!("[ a = {} ]", n - 1));
    }
}

/// An ad (new syntax) or a line (old syntax) of more than 256 MiB read
/// from a stream is reported and skipped, not kept: `classad convert
/// /dev/zero` grew one line until the allocator aborted the process (4 GiB
/// under `ulimit -v`). The ads around it are read.
#[test]
fn an_endless_ad_in_a_stream_is_skipped_with_bounded_memory() {
    /// `head`, then `fill` bytes of `x`, then `tail`, in 64 KiB reads.
    struct Stream {
        parts: Vec<u8>,
        fill: usize,
        tail: Vec<u8>,
    }
    impl std::io::Read for Stream {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = if !self.parts.is_empty() {
                let n = self.parts.len().min(out.len());
                out[..n].copy_from_slice(&self.parts[..n]);
                self.parts.drain(..n);
                n
            } else if self.fill > 0 {
                let n = self.fill.min(out.len()).min(1 << 16);
                out[..n].fill(b'x');
                self.fill -= n;
                n
            } else {
                let n = self.tail.len().min(out.len());
                out[..n].copy_from_slice(&self.tail[..n]);
                self.tail.drain(..n);
                n
            };
            Ok(n)
        }
    }
    let p = parser();
    for (format, head, tail, line) in [
        (Format::New, "[ a = 1 ]\n[ b = \"", "\" ]\n[ c = 3 ]\n", 2),
        (Format::Old, "a = 1\n\nb = \"", "\"\n\nc = 3\n", 3),
    ] {
        let stream = Stream {
            parts: head.as_bytes().to_vec(),
            fill: 257 << 20,
            tail: tail.as_bytes().to_vec(),
        };
        let reader = std::io::BufReader::new(stream);
        let ads: Vec<_> = AdReader::new(reader, format, &p).collect();
        assert_eq!(ads.len(), 3, "{format:?}");
        let e = ads[1].as_ref().expect_err("the long ad");
        assert!(e.error.message.contains("longer than 256 MiB"), "{e:?}");
        assert_eq!((e.first_line, e.error.line), (line, line), "{format:?}");
        assert!(e.text.len() < 2048);
        for (ad, want) in [(&ads[0], "[ a = 1 ]"), (&ads[2], "[ c = 3 ]")] {
            assert_eq!(unparse_ad(ad.as_ref().unwrap()), want, "{format:?}");
        }
    }
}

/// A UTF-8 byte-order mark at the start of a file is skipped, in every
/// format and when the format is detected (HTCondor accepts it).
#[test]
fn byte_order_mark_is_skipped() {
    let p = parser();
    for (text, format) in [
        ("\u{feff}A = 1\nB = \"x\"\n", Format::Old),
        ("\u{feff}[ A = 1; B = \"x\" ]\n", Format::New),
        ("\u{feff}[ { \"A\": 1, \"B\": \"x\" } ]\n", Format::Json),
    ] {
        let ads: Vec<_> = AdReader::new(text.as_bytes(), format, &p).collect();
        assert_eq!(ads.len(), 1, "{text:?}: {ads:?}");
        assert_eq!(unparse_ad(ads[0].as_ref().unwrap()), "[ A = 1; B = \"x\" ]");
        assert_eq!(detect_format(text), format, "{text:?}");
        let auto: Vec<_> = AdReader::auto(text.as_bytes(), &p).unwrap().collect();
        assert_eq!(auto.len(), 1, "{text:?}: {auto:?}");
        assert!(auto[0].is_ok(), "{text:?}: {auto:?}");
    }
}

/// A byte that is not UTF-8 inside a string is reported with its line
/// and column, never replaced silently, and the next ad is still read.
#[test]
fn non_utf8_byte_in_string_is_reported_with_its_position() {
    let p = parser();
    let old = b"A = 1\nB = \"x\xffy\"\n\nC = 3\n";
    let mut reader = AdReader::new(&old[..], Format::Old, &p);
    let ads: Vec<_> = reader.by_ref().collect();
    assert_eq!(ads.len(), 2, "{ads:?}");
    // The ad keeps its line before, as after any unreadable line.
    assert_eq!(ads[0].as_ref().map(AdExpr::len), Ok(1), "{ads:?}");
    let warnings = reader.take_warnings();
    let e = &warnings[0].error;
    assert!(e.error.message.contains("UTF-8"), "{e:?}");
    assert_eq!((e.error.line, e.error.column), (2, 7));
    assert!(ads[1].is_ok());
    let new = b"[ a = \"x\xffy\" ]\n[ b = 2 ]\n";
    let ads: Vec<_> = AdReader::new(&new[..], Format::New, &p).collect();
    assert_eq!(ads.len(), 2, "{ads:?}");
    let e = ads[0].as_ref().expect_err("not UTF-8");
    assert_eq!((e.error.line, e.error.column), (1, 9));
    assert!(ads[1].is_ok());
    // In JSON it cost the whole document; now only its ad.
    let json = b"[\n{\"a\": 1},\n{\"b\": \"x\xff\xfey\"},\n{\"c\": 3}\n]\n";
    let ads: Vec<_> = AdReader::new(&json[..], Format::Json, &p).collect();
    assert_eq!(ads.len(), 3, "{ads:?}");
    assert!(ads[0].is_ok() && ads[2].is_ok(), "{ads:?}");
    let e = ads[1].as_ref().expect_err("not UTF-8");
    assert!(e.error.message.contains("UTF-8"), "{e:?}");
    assert_eq!((e.error.line, e.error.column), (3, 9));
}

#[test]
fn xml_reader_positions() {
    let text = "<classads>\n<c><a n=\"a\"><i>1</i></a></c>\n<c>\n  <a n=\"b\"><e>1 +</e></a>\n</c>\n<c><a n=\"c\"><s>x</s></a></c>\n</classads>\n";
    let ads = read_all(text, Format::Xml);
    assert_eq!(ads.len(), 3);
    assert!(ads[0].is_ok() && ads[2].is_ok());
    let err = ads[1].as_ref().unwrap_err();
    assert_eq!((err.ordinal, err.first_line, err.error.line), (2, 3, 4));
    assert!(err.render("pool.xml").contains("pool.xml:4:"));
}
