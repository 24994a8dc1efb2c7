//! `classad check` through the binary: counts of good files, every bad ad
//! reported with its file, line and column (and the good ads around it
//! still counted), `--json`, and files that cannot be read.

use crate::common;

use common::{Scratch, classad, text};

const GOOD_OLD: &str = "Name = \"slot1@a\"\nMemory = 4096\nRequirements = TARGET.RequestMemory <= MY.Memory\n\n\
Name = \"slot1@b\"\nMemory = 4096\nRequirements = TARGET.RequestMemory <= MY.Memory\n\n";

const GOOD_NEW: &str = "[ a = 1; b = a + 1 ]\n[ a = 1; c = \"x\" ]\n";

/// Five ads: the second has a line that does not parse (it keeps its
/// first line, as HTCondor keeps it), the fourth does not compile.
const BAD_OLD: &str = "A = 1\nB = \"x\"\n\n\
A = 2\nB = (1 +\nC = 3\n\n\
A = 3\n\n\
A = 4\nT = absTime(\"garbage\")\n\n\
A = 5\n";

#[test]
fn good_files_are_counted_and_pass() {
    let d = Scratch::new("check-good");
    let (old, new) = (d.file("slots.ads", GOOD_OLD), d.file("ads.new", GOOD_NEW));
    let out = classad(["check", &old, &new]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    // Six attributes; distinct definitions: the two names, Memory = 4096
    // and the Requirements.
    assert!(
        lines[0].starts_with(&format!(
            "{old}: 2 ads (old), 6 attributes, 4 distinct definitions, {} bytes in ",
            GOOD_OLD.len()
        )),
        "{}",
        lines[0]
    );
    assert!(lines[0].ends_with(" MB/s)"), "{}", lines[0]);
    // `a = 1` is written twice: a = 1, b = a + 1 and c = "x".
    assert!(
        lines[1].starts_with(&format!(
            "{new}: 2 ads (new), 4 attributes, 3 distinct definitions, {} bytes",
            GOOD_NEW.len()
        )),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("total: 2 files, 4 ads, 0 bad, "),
        "{}",
        lines[2]
    );
}

#[test]
fn every_bad_ad_is_reported_with_its_position_and_the_good_ones_counted() {
    let d = Scratch::new("check-bad");
    let (good, bad) = (d.file("good.ads", GOOD_OLD), d.file("bad.ads", BAD_OLD));
    let out = classad(["check", &good, &bad]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("warning: ad 2: expected an expression, found end of input"),
        "{stderr}"
    );
    assert!(
        stderr.contains("ad 2 (from line 4) keeps its 1 line before line 5"),
        "{stderr}"
    );
    assert!(stderr.contains(&format!(" --> {bad}:5:9\n")), "{stderr}");
    assert!(
        stderr.contains("error: ad 4: attribute `T`: `garbage` is not a valid time"),
        "{stderr}"
    );
    assert!(stderr.contains(&format!(" --> {bad}:11:5\n")), "{stderr}");
    // The good file has no errors; the bad file's are in file order.
    assert!(!stderr.contains(&good));
    assert!(stderr.find(":5:9").unwrap() < stderr.find(":11:5").unwrap());
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "{bad}: 5 ads, 2 bad, 1 of them kept in part (old), "
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("total: 2 files, 7 ads, 2 bad, "),
        "{stdout}"
    );
}

#[test]
fn a_broken_new_syntax_ad_does_not_hide_the_ads_after_it() {
    let d = Scratch::new("check-new");
    let file = d.file(
        "ads.new",
        "[ a = 1; x = \"unterminated ]\n[ b = 2 ]\n[ c = 3 ]\n",
    );
    let out = classad(["check", &file]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains(&format!("{file}:1:14")),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).starts_with(&format!("{file}: 3 ads, 1 bad (new), 2 attributes")),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn json_is_one_object_with_counts_and_errors() {
    let d = Scratch::new("check-json");
    let (good, bad) = (d.file("good.ads", GOOD_OLD), d.file("bad.ads", BAD_OLD));
    let missing = d.join("missing.ads").to_string_lossy().into_owned();
    let out = classad(["check", "--json", &good, &bad, &missing]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.starts_with("{\"files\": [{\"file\": "), "{stdout}");
    assert!(
        stdout.trim_end().ends_with(&format!(
            "\"ads\": 7, \"bad_ads\": 2, \"partial_ads\": 1, \"bytes\": {}, \"unreadable_files\": 1, \"ok\": false}}",
            GOOD_OLD.len() + BAD_OLD.len()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "\"format\": \"old\", \"ads\": 2, \"bad_ads\": 0, \"partial_ads\": 0, \"attributes\": 6, \"distinct_definitions\": 4, \"bytes\": {},",
            GOOD_OLD.len()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "\"ads\": 5, \"bad_ads\": 2, \"partial_ads\": 1, \"attributes\": 7, \"distinct_definitions\": 6,"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "\"errors\": [{\"ad\": 2, \"line\": 5, \"column\": 9, \"message\": \"expected an expression, found end of input\", \"kept_in_part\": true}, \
             {\"ad\": 4, \"line\": 11, \"column\": 5, \"message\": \"attribute `T`: `garbage` is not a valid time\", \"kept_in_part\": false}], \"errors_not_listed\": 0}"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("\"error\": \"cannot read `"), "{stdout}");
    // Every brace and bracket outside strings is closed.
    let (mut depth, mut in_string, mut escaped) = (0i32, false, false);
    for c in stdout.chars() {
        match (in_string, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (true, false, '"') | (false, _, '"') => in_string = !in_string,
            (false, _, '{' | '[') => depth += 1,
            (false, _, '}' | ']') => depth -= 1,
            _ => {}
        }
        assert!(depth >= 0);
    }
    assert_eq!((depth, in_string), (0, false));
}

#[test]
fn an_unreadable_file_fails_the_check_and_the_others_are_still_checked() {
    let d = Scratch::new("check-unreadable");
    let good = d.file("good.ads", GOOD_OLD);
    let missing = d.join("missing.ads").to_string_lossy().into_owned();
    // A directory cannot be read as a file either.
    let directory = d.to_string_lossy().into_owned();
    let out = classad(["check", &missing, &good, &directory]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("classad check: cannot read `{missing}`: ")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("classad check: cannot read `{directory}`: ")),
        "{stderr}"
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!("{good}: 2 ads (old), 6 attributes")),
        "{stdout}"
    );
    assert!(
        stdout.contains("total: 3 files (2 unreadable), 2 ads, 0 bad, "),
        "{stdout}"
    );
}

#[test]
fn errors_of_a_binary_file_are_capped_and_counted() {
    let d = Scratch::new("check-binary");
    // Many lines that are not `Name = expression`, each its own bad ad.
    let junk: String = (0..300)
        .map(|i| format!("\u{1}\u{2} junk {i}\n\n"))
        .collect();
    let file = d.file("junk.ads", &junk);
    let out = classad(["check", &file]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.matches("error: ad ").count(), 100, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "classad check: {file}: 200 more bad ads not shown"
        )),
        "{stderr}"
    );
    assert!(text(&out.stdout).contains(": 300 ads, 300 bad (old)"));
}

#[test]
fn a_command_line_without_files_is_a_usage_error() {
    let out = classad(["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("Usage: classad check <FILE>..."),
        "{}",
        text(&out.stderr)
    );
    let out = classad(["check", "--frobnicate", "x"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A file large enough to be read in parts on several threads: the bad
/// ads listed are the first hundred in file order, whether they do not
/// parse or do not compile, with the lines of the whole file.
#[test]
fn a_large_file_lists_its_first_bad_ads_in_file_order() {
    let d = Scratch::new("check-large");
    let mut contents = String::new();
    let mut line = 1;
    let mut bad_lines = Vec::new();
    for n in 1..=6000 {
        let filler = format!("Filler = \"{}\"\n", "x".repeat(250));
        contents.push_str(&format!("Id = {n}\n{filler}"));
        line += 2;
        if n % 20 == 0 {
            bad_lines.push(line);
            if n % 40 == 0 {
                contents.push_str("Broken = (1 +\n");
            } else {
                contents.push_str("T = absTime(\"garbage\")\n");
            }
            line += 1;
        }
        contents.push('\n');
        line += 1;
    }
    assert!(contents.len() > 1 << 20);
    let file = d.file("large.ads", &contents);
    let out = classad(["check", &file]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    let listed: Vec<usize> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix(&format!(" --> {file}:")))
        .map(|l| l.split(':').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(listed, bad_lines[..100], "{stderr}");
    assert!(stderr.contains("200 more bad ads not shown"), "{stderr}");
    assert!(
        text(&out.stdout)
            .contains(": 6000 ads, 300 bad, 150 of them kept in part (old), 12150 attributes"),
        "{}",
        text(&out.stdout)
    );
}
