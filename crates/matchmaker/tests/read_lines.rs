//! Reading old-syntax ads from the bytes of their lines (the
//! `LineCompiler` behind `read_ad_text`) must give exactly the ads of
//! parsing every ad and compiling it: the same attributes in the same
//! order, the same values, trees and programs, the same errors, and the
//! same definitions and layouts shared between the same ads.

use classad::AdRef;
use classad::syntax::unparse;
use classad_matchmaker::{AdFile, read_ad_text_by_parser, read_ad_text_in_parts};
use proptest::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// Records that `a` (of the first reading) and `b` (of the second) are
/// the same object, failing when either was already paired with another.
fn pair(
    pairs: &mut (HashMap<usize, usize>, HashMap<usize, usize>),
    a: usize,
    b: usize,
) -> Result<(), String> {
    let forward = *pairs.0.entry(a).or_insert(b);
    let backward = *pairs.1.entry(b).or_insert(a);
    if forward != b || backward != a {
        return Err("shared in one reading and not in the other".into());
    }
    Ok(())
}

/// Why two readings of a file differ, if they do.
fn difference(lines: &AdFile, parsed: &AdFile) -> Result<(), String> {
    if lines.errors != parsed.errors {
        return Err(format!(
            "errors:\n{:?}\nagainst\n{:?}",
            lines.errors, parsed.errors
        ));
    }
    if lines.ads.len() != parsed.ads.len() {
        return Err(format!(
            "{} ads against {}",
            lines.ads.len(),
            parsed.ads.len()
        ));
    }
    let mut layouts = Default::default();
    let mut definitions = Default::default();
    for ((n, a), (m, b)) in lines.ads.iter().zip(&parsed.ads) {
        if n != m {
            return Err(format!("ad {n} against ad {m}"));
        }
        ad_difference(a, b, &mut layouts, &mut definitions).map_err(|e| format!("ad {n}: {e}"))?;
    }
    Ok(())
}

type Pairs = (HashMap<usize, usize>, HashMap<usize, usize>);

fn ad_difference(
    a: &AdRef,
    b: &AdRef,
    layouts: &mut Pairs,
    definitions: &mut Pairs,
) -> Result<(), String> {
    let (a, b) = (&a.body, &b.body);
    pair(
        layouts,
        Arc::as_ptr(a.layout()) as usize,
        Arc::as_ptr(b.layout()) as usize,
    )
    .map_err(|e| format!("layout {e}"))?;
    if a.len() != b.len() {
        return Err(format!("{} attributes against {}", a.len(), b.len()));
    }
    for (x, y) in a.attributes().iter().zip(b.attributes()) {
        let name = x.name();
        if name != y.name() {
            return Err(format!("attribute {name} against {}", y.name()));
        }
        let (cx, cy) = (format!("{:?}", x.constant()), format!("{:?}", y.constant()));
        if cx != cy {
            return Err(format!("{name}: value {cx} against {cy}"));
        }
        let (ux, uy) = (unparse(&x.source), unparse(&y.source));
        if ux != uy || x.source != y.source {
            return Err(format!("{name}: tree {ux} against {uy}"));
        }
        let (px, py) = (x.program.disassemble_all(), y.program.disassemble_all());
        if px != py {
            return Err(format!("{name}: program\n{px}\nagainst\n{py}"));
        }
        pair(
            definitions,
            Arc::as_ptr(x) as usize,
            Arc::as_ptr(y) as usize,
        )
        .map_err(|e| format!("{name}: definition {e}"))?;
    }
    Ok(())
}

/// Reads `text` both ways, in parts of `part_size` bytes (the default
/// when `None`), and fails on any difference.
fn agree_in_parts(text: &[u8], part_size: Option<usize>) {
    let lines = read_ad_text_in_parts(text, "<test>", part_size);
    let parsed = read_ad_text_by_parser(text, "<test>");
    if let Err(why) = difference(&lines, &parsed) {
        let shown: String = String::from_utf8_lossy(text).chars().take(2000).collect();
        panic!("{why}\nparts of {part_size:?} bytes; text:\n{shown}");
    }
}

fn agree(text: &[u8]) {
    for part_size in [None, Some(1), Some(64)] {
        agree_in_parts(text, part_size);
    }
}

/// `../shared` beside the repository, or `$CLASSAD_SHARED`.
fn shared_dir() -> PathBuf {
    std::env::var_os("CLASSAD_SHARED").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    )
}

/// The default pool of `gen_pool.py` (`$CLASSAD_POOL_DIR` when set), or
/// `None` without the generator.
fn default_pool() -> Option<Vec<u8>> {
    let (dir, temporary) = match std::env::var_os("CLASSAD_POOL_DIR") {
        Some(dir) => (PathBuf::from(dir), false),
        None => {
            let generator = shared_dir().join("workloads/gen_pool.py");
            if !generator.exists() {
                eprintln!("skipped: {} not found", generator.display());
                return None;
            }
            let dir =
                std::env::temp_dir().join(format!("classad-read-lines-{}", std::process::id()));
            let output = Command::new("python3")
                .arg(&generator)
                .arg("--out")
                .arg(&dir)
                .output()
                .ok()?;
            assert!(output.status.success(), "{output:?}");
            (dir, true)
        }
    };
    let mut text = std::fs::read(dir.join("machines.ads")).ok()?;
    text.extend(b"\n");
    text.extend(std::fs::read(dir.join("jobs.ads")).ok()?);
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Some(text)
}

#[test]
fn the_default_pool_reads_the_same() {
    let Some(text) = default_pool() else {
        return;
    };
    agree_in_parts(&text, None);
    agree_in_parts(&text, Some(100_000));
    // The same ads again, with lines a pool does not have.
    let text = String::from_utf8(text).unwrap();
    let odd = text
        .replace("Cpus = ", "cpus= ")
        .replace("\nArch = ", "\n# a comment\n  Arch\t=  ")
        .replace("LoadAvg = 0", "LoadAvg = 00")
        .replace("Memory = 2", "Memory = absTime(\"x\") + 2");
    agree_in_parts(odd.as_bytes(), None);
    agree_in_parts(odd.as_bytes(), Some(50_000));
}

#[test]
fn the_generated_pools_read_the_same() {
    use classad_matchmaker::generate;
    let text = format!("{}\n{}", generate::slots(300, 7), generate::jobs(300, 7));
    agree(text.as_bytes());
}

/// Odd and broken ads, each between good ones that repeat its lines.
#[test]
fn odd_ads_read_the_same() {
    let good = "MyType = \"Machine\"\nCpus = 8\nMemory = 2048\nRequirements = Memory > 1024 && Cpus >= 1\nRank = -1.5\n";
    let odd: &[&str] = &[
        // Comments, blank lines of spaces, line ends.
        "# comment\nA = 1\n  # indented comment\nB = 2\n",
        "A = 1\r\nB = \"x\"\r\n",
        "A = 1\r\r\nB = 2\n",
        "A = 1\n \t \nB = 2\n",
        "A = 1\n\x0c\nB = 2\n",
        "A = 1\n\x0b\nB = 2\n",
        "#only a comment\n",
        // Names: case, duplicates, reserved words, quoting.
        "A = 1\na = 2\n",
        "Cpus = 1\nCPUS = 2\nMemory = 3\n",
        "cpus = 8\nmemory = 2048\n",
        "true = 1\n",
        "parent = 1\nB = parent\n",
        "'quoted name' = 1\n",
        "A.b = 1\n",
        // Values the fast reader declines, and broken ones.
        "A = 007\nB = 1e3\nC = .5\nD = 5.\nE = 0x1F\nF = 12K\n",
        "A = 99999999999999999999\nB = -9223372036854775808\nC = 123456789012345678\n",
        "A = \"a\\\"b\"\nB = \"back\\\\\"\nC = \"a\" \"b\"\n",
        "A = \"unterminated\n",
        "A = \"nul\0\"\n",
        "A = 1 +\n",
        "A = \n",
        "A\n",
        "= 1\n",
        "A == 1\n",
        "A = absTime(\"not a time\")\n",
        "A = relTime(\"3d19:49:15\")\nB = absTime(\"2020-01-01T00:00:00Z\")\n",
        "A = 1 /* comment */\nB = 2 // comment\n",
        "A = [x = 1; y = x + A]\nB = {1, 2, A}\n",
        "A = B + 1\nB = A\nC = MY.A + TARGET.B\n",
        "A = \"caf\u{e9}\"\nB = \"\u{1}\u{7f}\"\n",
        "A = 1\t\nB = 2 \n",
        "  A = 1\nB=2\n",
        "A = TRUE\nB = Undefined\nC = ERROR\nD = false\n",
        "A = -0\nB = -0.0\nC = 0.0\n",
        "A = 1.0\nB = 1.00\nC = 1.000\n",
        "Requirements = Memory > 1024 && Cpus >= 1\nMemory = 1\n",
        "Requirements = Memory > 1024  &&  Cpus >= 1\nMemory = 1\nCpus = 1\n",
        // New values after the names of the good ad's lines at the same
        // places (a new line read with the name of the line before it).
        "MyType = \"Job\"\nCpus =  9\nMemory = 2049 \t\nRequirements = 1\nRank = \"x\\\"y\"\n",
        "MyType = 1 + 1\nCpus = 9K\nMemory = -\nRequirements = \"r\"\nRank = TRUE\n",
        "MyTypes = 1\nCpu = 9\nmemory = 2049\nRequirements= 2\nRank =3\n",
        "MyType = \"Machine\"\nCpus = 8\nMemory = 2048\nCpus = 2\nRank = -1.5\n",
    ];
    let not_utf8: &[&[u8]] = &[
        b"A = \"bad \xff byte\"\n",
        b"\xff = 1\n",
        b"A = 1 \xc3\n",
        b"MyType = \"\xff\"\nCpus = 9\n",
    ];
    let cases = odd
        .iter()
        .map(|c| c.as_bytes())
        .chain(not_utf8.iter().copied());
    let good = good.as_bytes();
    for case in cases {
        let cat = |parts: &[&[u8]]| parts.concat();
        agree(&cat(&[
            good, b"\n", case, b"\n", good, b"\n", case, b"\n", good,
        ]));
        // As the first ad, and with a byte-order mark.
        agree(&cat(&[case, b"\n", good]));
        agree(&cat(&[b"\xef\xbb\xbf", case, b"\n", good]));
        agree(&cat(&[b"\xef\xbb\xbf\n", case, b"\n", good]));
        // As the last ad, without a final line end.
        agree(&cat(&[
            good,
            b"\n",
            case.strip_suffix(b"\n").unwrap_or(case),
        ]));
    }
}

/// The files of the corpora as they are (most are not old syntax, and
/// are read by the parser either way), and every line of them as the
/// value of an attribute, an ad of each and one ad of many.
#[test]
fn the_corpora_read_the_same() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in [
        root.join("tests/corpus"),
        root.join("tests/hostile"),
        root.join("tests/gen"),
        root.join("crates/syntax/tests/corpus/ads"),
        root.join("crates/syntax/tests/corpus/expressions"),
        root.join("crates/syntax/tests/corpus/malformed"),
        shared_dir().join("conformance/htcondor"),
    ] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.path().is_file() {
                files.push(entry.path());
            }
        }
    }
    files.sort();
    assert!(files.len() > 10, "corpora not found");
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        agree_in_parts(&bytes, None);
        let mut ads = Vec::new();
        let mut one = Vec::new();
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if line.len() > 4000 {
                continue;
            }
            ads.extend_from_slice(b"A = ");
            ads.extend_from_slice(line);
            ads.extend_from_slice(b"\nB = 1\n\n");
            one.extend_from_slice(format!("A{} = ", i % 50).as_bytes());
            one.extend_from_slice(line);
            one.push(b'\n');
        }
        // Twice: the second time every line has been seen.
        let twice = [&ads[..], &ads[..]].concat();
        agree_in_parts(&twice, None);
        agree_in_parts(&twice, Some(4096));
        let twice = [&one[..], b"\n", &one[..]].concat();
        agree_in_parts(&twice, None);
    }
}

/// Lines made of names and values the fast reader reads, declines or
/// refuses, in ads that repeat them.
fn line() -> impl Strategy<Value = String> {
    let name = prop::sample::select(vec![
        "A", "a", "B", "Cpus", "cpus", "CPUS", "Memory", "_x1", "true", "parent", "'q'", "A.b",
    ]);
    let value = prop::sample::select(vec![
        "1",
        "-1",
        "0",
        "-0",
        "007",
        "1.5",
        "-0.0",
        "1.",
        ".5",
        "1e3",
        "12345678901234567890",
        "\"s\"",
        "\"\"",
        "\"a\\\"b\"",
        "\"a\" \"b\"",
        "\"x",
        "true",
        "FALSE",
        "undefined",
        "error",
        "A",
        "B + 1",
        "MY.A",
        "TARGET.Memory >= Memory",
        "absTime(\"x\")",
        "relTime(\"1:00\")",
        "{1, A}",
        "[x = A]",
        "1 +",
        "",
        "/* c */ 1",
        "A ? 1 : 2",
    ]);
    let space = prop::sample::select(vec!["", " ", "  ", "\t", "\r"]);
    (space.clone(), name, space.clone(), value, space).prop_map(|(s1, n, s2, v, s3)| {
        let s3 = if s3 == "\r" { " " } else { s3 };
        let s1 = if s1 == "\r" { "" } else { s1 };
        format!("{s1}{n}{s2}= {v}{s3}")
    })
}

fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        6 => line(),
        1 => Just(String::new()),
        1 => Just("# comment".to_string()),
        1 => Just("  ".to_string()),
    ];
    prop::collection::vec(piece, 0..30).prop_map(|lines| {
        let once = lines.join("\n");
        // Every line met a second time.
        format!("{once}\n\n{once}\n")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn generated_lines_read_the_same(text in text(), part in 1usize..200) {
        agree_in_parts(text.as_bytes(), None);
        agree_in_parts(text.as_bytes(), Some(part));
    }
}
