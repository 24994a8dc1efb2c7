//! `classad eval --batch` writes exactly one output line per input line,
//! whatever the line holds: every control character (and bytes that are
//! not UTF-8) in strings, quoted names, comments, time literals and text
//! that does not parse. One extra line would shift every later answer of a
//! batch.

use crate::common;

use common::classad_reading;

/// Runs the batch and returns its output lines.
fn run_batch(input: &[u8]) -> Vec<Vec<u8>> {
    let output = classad_reading(["eval", "--batch"], input);
    assert!(output.status.success(), "classad failed");
    let mut lines: Vec<Vec<u8>> = output
        .stdout
        .split(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    assert_eq!(lines.pop(), Some(Vec::new()), "output ends with a newline");
    lines
}

/// Every byte that could break a line: the C0 controls but the newline
/// itself, DEL, and bytes that are not UTF-8.
fn awkward_bytes() -> Vec<Vec<u8>> {
    let mut bytes: Vec<Vec<u8>> = (0u8..0x20)
        .filter(|&b| b != b'\n')
        .chain([0x7f])
        .map(|b| vec![b])
        .collect();
    bytes.extend([vec![0x80], vec![0xff], vec![0xc3], vec![0xe2, 0x80]]);
    // Unicode's own line and paragraph separators and NEL.
    bytes.extend([
        "\u{2028}".as_bytes().to_vec(),
        "\u{2029}".as_bytes().to_vec(),
        "\u{85}".as_bytes().to_vec(),
    ]);
    bytes
}

/// Expressions that put `x` in every place text can be: string literals
/// (valid and as time literals, which quote the text in their message), a
/// quoted name, comments, and places where it does not parse.
fn templates() -> Vec<(&'static [u8], &'static [u8])> {
    vec![
        (b"\"a", b"b\""),
        (b"strcat(\"a", b"b\", 1.5)"),
        (b"relTime(\"line", b"break\")"),
        (b"absTime(\"2020", b"-01-01\")"),
        (b"[ 'a", b"b' = 1 ]"),
        (b"[ 'a", b"b' = 1 ].'a"),
        (b"1 + 2 // a", b"b"),
        (b"1 + /* a", b"b */ 2"),
        (b"1 +", b" 2"),
        (b"", b""),
        (b"\"", b""),
        (b"'", b"'"),
        (b"unparse(x", b")"),
        (b"eval(\"1 +", b" 2\")"),
        (b"regexp(\"", b"(\", \"a\")"),
        (b"toUpper({\"a", b"b\"})"),
    ]
}

#[test]
fn one_output_line_per_input_line_for_every_control_character() {
    let mut input = Vec::new();
    let mut count = 0;
    for x in awkward_bytes() {
        for (before, after) in templates() {
            input.extend_from_slice(before);
            input.extend_from_slice(&x);
            input.extend_from_slice(after);
            input.push(b'\n');
            count += 1;
        }
    }
    let lines = run_batch(&input);
    assert_eq!(lines.len(), count, "one output line per input line");
    // Every line is either a value or a message, never a piece of one.
    for line in &lines {
        assert!(!line.is_empty(), "an empty output line");
        assert!(
            !line.iter().any(|&b| b < 0x20 || b == 0x7f),
            "a control byte in {:?}",
            String::from_utf8_lossy(line)
        );
    }
}

#[test]
fn a_message_quoting_a_newline_stays_on_its_line() {
    let lines = run_batch(b"relTime(\"line\\nbreak\")\n1 + 1\n");
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with(b"parse error:"));
    assert_eq!(lines[1], b"2");
}

#[test]
fn a_last_line_without_newline_and_carriage_returns() {
    let lines = run_batch(b"1 + 1\r\n\r\n2 + 2");
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0], b"2");
    assert!(lines[1].starts_with(b"parse error:"));
    assert_eq!(lines[2], b"4");
}
