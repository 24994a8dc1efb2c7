//! Diagnostics quote a window of the line around the error, never the
//! whole line: a parse error on a 50 MB one-line ad must not put 100 MB on
//! standard error (issue 13).

use classad_syntax::parse_expression;

fn rendered(source: &str) -> String {
    let error = parse_expression(source).expect_err("a parse error");
    error.render(source, "input")
}

#[test]
fn diagnostics_clip_long_lines() {
    let filler = (0..200).map(|i| format!("a{i} + ")).collect::<String>();
    // The error in the middle of a long line: both ends cut.
    insta::assert_snapshot!("middle", rendered(&format!("{filler}(1 +) + {filler}1")));
    // At the start: only the end cut.
    insta::assert_snapshot!("start", rendered(&format!(") + {filler}1")));
    // At the end: only the start cut.
    insta::assert_snapshot!("end", rendered(&filler));
    // A short line is shown whole.
    insta::assert_snapshot!("short", rendered("1 + * 2"));
}

#[test]
fn diagnostics_stay_small_on_huge_lines() {
    let huge = format!(
        "[a = \"{}\"; b = 1 +; c = \"{}\"]",
        "x".repeat(5 << 20),
        "y".repeat(5 << 20)
    );
    let text = rendered(&huge);
    assert!(text.len() < 400, "{} bytes of diagnostic", text.len());
    let number = format!("0x{}", "f".repeat(1 << 20));
    let error = parse_expression(&number).expect_err("hex is JDL");
    assert!(error.message.len() < 200, "{}", error.message.len());
}

/// A quote that nothing later closes is named as such, not as the token
/// the grammar did not expect; a quote closed later keeps the grammar's
/// message.
#[test]
fn diagnostics_name_an_unterminated_string() {
    insta::assert_snapshot!(
        "unterminated_string",
        rendered("[a = 1; x = \"unterminated ]")
    );
    insta::assert_snapshot!("unterminated_name", rendered("'abc + 1"));
    insta::assert_snapshot!("escaped_quote_left_open", rendered("strcat(\"a\\\""));
    let closed = parse_expression("1 \"a\"").expect_err("a parse error");
    assert!(!closed.to_string().contains("unterminated"), "{closed}");
}

/// An old-syntax ad kept in part (class 18 of tests/gen/known_bugs.txt):
/// the warning names the unreadable line, with its line and column, what
/// the ad kept and what it dropped.
#[test]
fn diagnostics_say_what_an_unreadable_line_dropped() {
    use classad_syntax::{AdReader, Format, ParseOptions, Parser};
    let text = "A = 1\nB = 2\nC = (3 +\n# a comment\nD = 4\nE = 5\n\nF = 6\nG = \"x\n";
    let parser = Parser::new(ParseOptions::default());
    let mut reader = AdReader::new(text.as_bytes(), Format::Old, &parser);
    let ads: Vec<_> = reader.by_ref().collect();
    assert!(ads.iter().all(Result::is_ok), "{ads:?}");
    let shown: Vec<String> = reader
        .take_warnings()
        .iter()
        .map(|w| w.render("pool.ads"))
        .collect();
    insta::assert_snapshot!("partial_ads", shown.join(""));
}
