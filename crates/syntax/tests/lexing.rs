//! HTCondor's lexer, class by class (issue 12), each answer checked with
//! the oracle (HTCondor 25.14.1's classad2, default and strict mode).

use classad_syntax::{Expr, ExprKind, Literal, ParseOptions, Parser, unparse};

fn parse(source: &str) -> Result<Expr, String> {
    Parser::new(ParseOptions::default())
        .parse_expression(source)
        .map_err(|e| e.message)
}

fn parse_strict(source: &str) -> Result<Expr, String> {
    Parser::new(ParseOptions {
        strict: true,
        ..ParseOptions::default()
    })
    .parse_expression(source)
    .map_err(|e| e.message)
}

fn literal(source: &str, strict: bool) -> Literal {
    let e = if strict {
        parse_strict(source)
    } else {
        parse(source)
    }
    .unwrap_or_else(|e| panic!("{source}: {e}"));
    match e.into_kind() {
        ExprKind::Literal(lit) => lit,
        other => panic!("{source}: not a literal: {other:?}"),
    }
}

/// `..` not followed by a digit is one selection token: `a..b` is `a.b`
/// (undefined), `..b` is `.b`; `a...b` and `..` are errors.
#[test]
fn double_dot_is_one_selection() {
    for (source, same_as) in [
        ("a..b", "a.b"),
        ("a .. b", "a.b"),
        ("..b", ".b"),
        ("[b = 1]..b", "[b = 1].b"),
        ("..e5", ".e5"),
    ] {
        assert_eq!(parse(source).unwrap(), parse(same_as).unwrap(), "{source}");
    }
    for source in ["a...b", "..", "a..5", "1..2"] {
        assert!(parse(source).is_err(), "{source}");
    }
}

/// `..` before digits starts a real that strtod reads as nothing: 0.0;
/// `-..5` is minus applied to it (-0.0).
#[test]
fn double_dot_before_digits_is_zero() {
    for source in ["..5", "..5e2"] {
        assert!(
            matches!(literal(source, false), Literal::Real(x) if x == 0.0 && x.is_sign_positive()),
            "{source}"
        );
    }
    let e = parse("-..5").unwrap();
    assert!(matches!(e.kind, ExprKind::Unary { .. }), "{e:?}");
}

/// A decimal point after digits must be followed by a digit: `5.`, `5.a`,
/// `10.a`, `0.a`, `1.e5`, `5.e3` are parse errors; `1.5.a`, `.5.a` and
/// `1e5.a` are selections on a real.
#[test]
fn digit_must_follow_decimal_point() {
    for source in [
        "5.", "5.a", "2.a", "10.a", "0.a", "-5.a", "1.e5", "5.e3", "1.e", "- 5.a",
    ] {
        let error = parse(source).expect_err(source);
        assert!(error.contains("decimal point"), "{source}: {error}");
    }
    for source in ["1.5.a", ".5.a", "1e5.a", "0.5.a"] {
        let e = parse(source).unwrap_or_else(|e| panic!("{source}: {e}"));
        assert!(matches!(e.kind, ExprKind::Select { .. }), "{source}");
    }
}

/// A selection on an integer is written `5 .a`, which reads back (HTCondor
/// writes `5.a`, which its own lexer refuses).
#[test]
fn selection_on_integer_unparses_readably() {
    for source in ["5 .a", "-5 .a", "- 5 .a"] {
        let e = parse(source).unwrap();
        let text = unparse(&e);
        assert_eq!(parse(&text).unwrap(), e, "{source} -> {text}");
    }
}

/// Leading zeros depend on the mode: the default refuses `010`, `00`,
/// `007` and `0x1F` (old ClassAd compatibility); strict mode reads them as
/// decimal (`010` is 10, `0x1F` is its prefix 0). Both read `-010` as
/// -10 and `-0x1F` as 0, and refuse a leading zero before 8 or 9 (`09`,
/// `-09`) unless a real follows (`08.5`).
#[test]
fn leading_zero_depends_on_mode() {
    for (source, default, strict) in [
        ("010", None, Some(10)),
        ("00", None, Some(0)),
        ("007", None, Some(7)),
        ("0x1F", None, Some(0)),
        ("-010", Some(-10), Some(-10)),
        ("-007", Some(-7), Some(-7)),
        ("-00", Some(0), Some(0)),
        ("-0x1F", Some(0), Some(0)),
        ("0777777777777777777777", None, Some(0)),
        ("09", None, None),
        ("-09", None, None),
    ] {
        for (strict_mode, expected) in [(false, default), (true, strict)] {
            let parsed = if strict_mode {
                parse_strict(source)
            } else {
                parse(source)
            };
            match expected {
                Some(n) => assert!(
                    matches!(parsed, Ok(Expr { kind: ExprKind::Literal(Literal::Integer(v)), .. }) if v == n),
                    "{source} (strict {strict_mode}): {parsed:?}"
                ),
                None => assert!(
                    parsed.is_err(),
                    "{source} (strict {strict_mode}): {parsed:?}"
                ),
            }
        }
    }
    assert!(matches!(literal("08.5", false), Literal::Real(x) if x == 8.5));
    // In an ad and after an operator, as a token.
    assert!(parse("[a = 1; b = 010].b").is_err());
    assert!(parse_strict("[a = 1; b = 010].b").is_ok());
    assert!(parse("1 - 010").is_err());
    assert!(parse_strict("1 -010").is_ok());
}

/// `;` between function arguments is old ClassAd syntax: read by default,
/// refused in strict mode; never between list items.
#[test]
fn semicolon_between_arguments_depends_on_mode() {
    assert_eq!(
        parse("strcat(\"x\"; \"y\")").unwrap(),
        parse("strcat(\"x\", \"y\")").unwrap()
    );
    let error = parse_strict("strcat(\"x\"; \"y\")").expect_err("strict");
    assert!(error.contains("strict"), "{error}");
    parse_strict("strcat(\"x\", \"y\")").expect("commas");
    assert!(parse("{1; 2}").is_err());
}

/// `?` then `:` with only white space between is HTCondor's one elvis token,
/// a postfix operator: `10 ? : 2 + 3` is `(10 ?: 2) + 3` (13 in HTCondor),
/// `-x ? : 3` is `-(x ?: 3)`; a comment between leaves `?` and `:` apart,
/// which does not parse (found by the Go library's parity corpus).
#[test]
fn spaced_elvis_is_the_postfix_token() {
    for (source, same_as) in [
        ("10 ? : 2 + 3", "10 ?: 2 + 3"),
        ("10 ?\t\n: 2 * 3", "10 ?: 2 * 3"),
        ("-x ? : 3", "-x ?: 3"),
        ("1 + 0 ? : 2 + 3", "1 + 0 ?: 2 + 3"),
    ] {
        assert_eq!(parse(source).unwrap(), parse(same_as).unwrap(), "{source}");
    }
    for source in ["1 ? /* c */ : 2", "x ?\n// c\n: 4"] {
        assert!(parse(source).is_err(), "{source}");
    }
    assert!(parse("1 ? /* c */ 2 : 3").is_ok());
}

/// Class: a time literal in a replaced definition. HTCondor reads
/// `relTime("...")`/`absTime("...")` of a literal string while parsing, so
/// one that is not a time refuses the text even when a later definition of
/// the same name replaces it (the compiler, which checks the others, never
/// sees it).
#[test]
fn replaced_definition_with_a_bad_time_literal_is_refused() {
    for text in [
        r#"[A = relTime("=="); a = 1].a"#,
        r#"[A = {absTime("x")}; a = 1]"#,
        r#"[A = 1; a = relTime("=="); A = 2].a"#,
    ] {
        let error = classad_syntax::parse_expression(text).expect_err(text);
        assert!(
            error.message.contains("is not a valid time"),
            "{text}: {}",
            error.message
        );
    }
    assert!(classad_syntax::parse_expression(r#"[A = relTime("1:00"); a = 1].a"#).is_ok());
    assert!(classad_syntax::parse_ad(r#"[A = relTime("=="); a = 1]"#).is_err());
}

/// Class (found by gen-exprs --mutate and --outside): an absolute-time
/// literal whose HTCondor text does not read back (an offset of 100 hours
/// or more, a year past 9999) is written as it was in the round-trip form,
/// HTCondor's text in HTCondor's form.
#[test]
fn time_literals_that_do_not_read_back_are_written_as_read() {
    let e = parse("[ a = absTime(\"2020-01-01T00:00:00+99:99\") ]").unwrap();
    assert_eq!(
        unparse(&e),
        "[ a = absTime(\"2020-01-01T00:00:00+99:99\") ]"
    );
    assert!(parse(&unparse(&e)).is_ok());
    let e = parse("absTime(\"2020-01-01T00:00:00+09:59\")").unwrap();
    assert_eq!(unparse(&e), "absTime(\"2020-01-01T00:00:00+09:59\")");
    assert!(
        classad_syntax::unparse::unparse_htcondor(
            &parse("absTime(\"2020-01-01T00:00:00+99:99\")").unwrap()
        )
        .contains("+100:39")
    );
}

/// Class (found by gen-exprs --mutate, seed 998): a NUL byte is refused
/// wherever it stands, in a comment too (HTCondor's C strings end there
/// and its Python bindings refuse it), so `x // c` followed by NUL is a
/// parse error as `x` followed by NUL is.
#[test]
fn nul_is_refused_in_comments_too() {
    for source in [
        "rege//xp(\"a\")\0",
        "1 /* \0 */",
        "1 + \0 2",
        "\"a\0b\"",
        "\0 1",
    ] {
        assert!(parse(source).is_err(), "{source:?}");
        assert!(parse_strict(source).is_err(), "{source:?}");
    }
    assert!(parse("1 // c").is_ok());
    assert!(parse("1 /* c */").is_ok());
}

/// Class 5 of tests/gen/known_bugs.txt: names are bytes. Unparsed, a name
/// that is not an identifier is quoted with octal escapes for every byte
/// outside printable ASCII (`[ '\377' = 1 ]`, 14 bytes in HTCondor);
/// HTCondor's own text writes a selected name raw, byte for byte
/// (`strcat([c = a.'\377'])` is 11 bytes there).
#[test]
fn names_of_bytes_unparse_as_htcondor() {
    use classad_syntax::unparse::{htcondor_text_bytes, unparse_htcondor, unparse_old};
    let ad = parse(r"[ '\377' = 1; '\376' = a.'\377'; 'x\n' = 2 ]").unwrap();
    assert_eq!(
        unparse(&ad),
        r"[ '\377' = 1; '\376' = a.'\377'; 'x\n' = 2 ]"
    );
    let ExprKind::Ad(body) = &ad.kind else {
        panic!("not an ad");
    };
    assert_eq!(body.attributes.len(), 3);
    assert_eq!(body.attributes[0].0.as_bytes(), b"\xff");
    assert_eq!(body.attributes[1].0.as_bytes(), b"\xfe");
    assert_eq!(
        htcondor_text_bytes(unparse_htcondor(&ad)),
        b"[ '\\376' = a.\xff; '\\377' = 1; 'x\\n' = 2 ]"
    );
    assert!(unparse_old(&ad).contains(r"'\376' = a.'\377'"));
    // Every name reads back to the same bytes.
    assert_eq!(parse(&unparse(&ad)).unwrap(), ad);
    // A character of the range standing for single bytes, written in a
    // name, stays that character.
    let odd = parse("a.'\u{10FFFF}\u{10FF80}é'").unwrap();
    assert_eq!(
        htcondor_text_bytes(unparse_htcondor(&odd)),
        "a.\u{10FFFF}\u{10FF80}é".as_bytes()
    );
    // JSON text is UTF-8: a byte that is not becomes U+FFFD there (HTCondor
    // writes it raw, which is not JSON).
    let json = classad_syntax::json::ad_to_json(body);
    assert!(json.contains("\"\u{FFFD}\": 1"), "{json}");
    // XML escapes the name's bytes as a string's, and reads them back.
    let xml = classad_syntax::xml::ad_to_xml(body);
    assert!(xml.contains(r#"<a n="\377">"#), "{xml}");
    let parser = Parser::new(ParseOptions::default());
    let back = classad_syntax::xml::parse_xml_ad(&parser, &xml).unwrap();
    assert_eq!(&back, body.as_ref());
}
