//! `classad convert` on broken input (issue 9): one bad ad costs only
//! itself, every bad ad is reported, and a binary file's errors are capped.

use crate::common;

use common::{Scratch, classad, oracle_python, repo_root, text};

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

/// The rest of class 18 of tests/gen/known_bugs.txt: an old-syntax ad
/// with a line that cannot be read keeps the lines before it, and drops
/// that line and the rest of the ad up to the blank line, as HTCondor's
/// file reader (`CondorClassAdFileIterator`, `InsertFromFile`) does; an ad
/// whose first line cannot be read is refused, as there. The expected
/// ads are HTCondor's: `tests/oracle/roundtrip_check.py` (its
/// `parse_old_file`, `classad2.parseNext` ad by ad over the file) read
/// this input as `[{A: 1}, {D: 4, E: 5}, {G: 7}, {I: 10}]` with HTCondor
/// 25.14.1; when the oracle is installed the test asks it again.
#[test]
fn old_syntax_ads_keep_the_lines_before_an_unreadable_line() {
    let input = "A = 1\nB = 2 +\nC = 3\n\nD = 4\nE = 5\n\nbad +\nF = 1\n\nG = 7\n# comment\nH = (\n   \nI = 9\nI = 10\nJ = 11 +\n# x\nK = 12\n";
    let dir = Scratch::new("convert-partial");
    let file = dir.file("partial.ads", input);
    let output = classad(["convert", "--to", "new", &file]);
    let (out, err) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(
        out, "[ A = 1 ]\n[ D = 4; E = 5 ]\n[ G = 7 ]\n[ I = 10 ]\n",
        "{err}"
    );
    // The ad with nothing to keep is an error (exit status 1); the others
    // are warnings that name the line, its column, and what was dropped.
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error: expected an attribute name, found `bad`"),
        "{err}"
    );
    for (at, note) in [
        (
            "partial.ads:2:8",
            "ad 1 (from line 1) keeps its 1 line before line 2; line 2 and the 1 line after it",
        ),
        (
            "partial.ads:13:6",
            "ad 4 (from line 11) keeps its 1 line before line 13; line 13 is dropped",
        ),
        (
            "partial.ads:17:9",
            "ad 5 (from line 15) keeps its 2 lines before line 17; line 17 and the 1 line after it",
        ),
    ] {
        assert!(err.contains(at) && err.contains(note), "{at}: {err}");
    }
    assert_eq!(err.matches("warning: ").count(), 3, "{err}");

    // The opt-in: every ad with an unreadable line is refused.
    let refused = classad(["convert", "--refuse-partial-ads", "--to", "new", &file]);
    let (out, err) = (text(&refused.stdout), text(&refused.stderr));
    assert_eq!(out, "[ D = 4; E = 5 ]\n", "{err}");
    assert_eq!(err.matches("error: ").count(), 4, "{err}");
    assert!(!err.contains("warning"), "{err}");

    match oracle_python() {
        Ok(python) => {
            let converted = dir.file("partial.new", &output.stdout);
            let check = std::process::Command::new(python)
                .arg(repo_root().join("tests/oracle/roundtrip_check.py"))
                .args(["--old", &file, "--new", &converted])
                .env("CONDOR_CONFIG", "/dev/null")
                .env("TZ", "UTC")
                .output()
                .expect("run the oracle check");
            assert!(
                check.status.success(),
                "HTCondor reads other ads:\n{}{}",
                text(&check.stdout),
                text(&check.stderr)
            );
        }
        Err(why) => eprintln!("note: {why}; HTCondor's check skipped"),
    }
}
