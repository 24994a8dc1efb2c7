//! `classad convert` on broken input (issue 9): one bad ad costs only
//! itself, every bad ad is reported, and a binary file's errors are capped.

mod common;

use common::{Scratch, classad, text};

fn convert(args: &[&str], content: &[u8]) -> (String, String) {
    let dir = Scratch::new("convert-robust");
    let file = dir.file("input", content);
    let mut all = vec!["convert"];
    all.extend_from_slice(args);
    all.push(&file);
    let output = classad(&all);
    (text(&output.stdout), text(&output.stderr))
}

#[test]
fn unterminated_string_loses_only_its_ad() {
    let input =
        b"[ a = 1; x = \"unterminated ]\n[ b = 2 ]\n[ c = 3 ]\n[ d = [ e = 1; ]\n[ f = 6 ]\n";
    let (out, err) = convert(&["--from", "new", "--to", "new"], input);
    assert_eq!(out, "[ b = 2 ]\n[ c = 3 ]\n[ f = 6 ]\n", "{err}");
    assert!(err.contains("ad 1 of"), "{err}");
    assert!(err.contains("ad 4 of"), "{err}");
}

#[test]
fn errors_on_a_binary_file_are_capped() {
    // Bytes from a fixed xorshift, with many `[` and newlines.
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let bytes: Vec<u8> = (0..2_000_000)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            match seed % 16 {
                0 => b'[',
                1 => b'\n',
                2 => b'"',
                _ => (seed >> 8) as u8,
            }
        })
        .collect();
    for from in ["old", "new", "json"] {
        let (_, err) = convert(&["--from", from, "--to", "new"], &bytes);
        assert!(
            err.len() < 20_000,
            "--from {from}: {} bytes of errors",
            err.len()
        );
        if from == "old" {
            assert!(err.contains("not shown"), "--from {from}: {err}");
        }
    }
}

#[test]
fn cutting_broken_ads_stays_linear() {
    // Every line starts a new ad that never closes: each cut is read again
    // to the end, which would be quadratic without a bound.
    let mut input = b"[ x = \"".to_vec();
    for _ in 0..500_000 {
        input.extend_from_slice(b"\n[");
    }
    let (_, err) = convert(&["--from", "new", "--to", "new"], &input);
    assert!(err.contains("error"), "{err}");
}

/// Class 18 of tests/gen/known_bugs.txt: strings ending in backslashes
/// (Windows paths), with quotes and escapes, survive `--to old` then
/// `--from old`, as HTCondor's old-syntax writer and reader treat them.
#[test]
fn old_syntax_round_trips_strings_ending_in_backslashes() {
    let ad =
        br#"[ A = "C:\\dir\\"; B = "say \"hi\""; C = "a\\\\b\\\\"; D = "x\\"; E = "tab\there" ]
"#;
    let (old, err) = convert(&["--from", "new", "--to", "old"], ad);
    assert!(old.contains("A = \"C:\\dir\\\"\n"), "{old}{err}");
    let (back, err) = convert(&["--from", "old", "--to", "new"], old.as_bytes());
    assert_eq!(
        back.trim_end(),
        std::str::from_utf8(ad).unwrap().trim_end(),
        "{err}"
    );
}
