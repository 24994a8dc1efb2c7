//! `classad query`: condor_q / condor_status filtering and projection.
//!
//! The literal outputs follow HTCondor's print mask as its source lays it
//! out (src/condor_utils/ad_printmask.cpp: `parse_autoformat_args`,
//! `AttrListPrintMask::render` and `display`); the evaluation and the text
//! of values are checked against HTCondor's own library on the workload
//! pool (`tests/query/reference.py` over classad2), when `../shared` and
//! the oracle are there. Without them that test says so in the normal
//! test output.

use crate::common;

use common::{Scratch, classad_reading, oracle_python, shared_dir, text};

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

/// `classad query ARGS` reading `stdin`.
fn run(args: &[&str], stdin: &str) -> Output {
    classad_reading(["query"].iter().chain(args), stdin)
}

const ADS: &str = "ClusterId = 1\nProcId = 0\nOwner = \"alice\"\nN = 10\nX = 2.5\nReq = N > 5\nRef = Owner\n\n\
ClusterId = 2\nProcId = 1\nOwner = \"bob\"\nN = 0\nX = -1.0\nReq = N > 5\nRef = Owner\n\n";

/// A directory holding ADS as `jobs.ads`, and that file's path.
fn fixture() -> (Scratch, String) {
    let dir = Scratch::new("query");
    let file = dir.file("jobs.ads", ADS);
    (dir, file)
}

/// Runs `classad query FILE ARGS...` and checks standard output.
fn check(cases: &[(&[&str], &str)]) {
    let (_dir, file) = fixture();
    let file = file.as_str();
    let mut failures = Vec::new();
    for (args, expected) in cases {
        let mut all = vec![file];
        all.extend_from_slice(args);
        let out = run(&all, "");
        if text(&out.stdout) != *expected || !out.status.success() {
            failures.push(format!(
                "{args:?}\n  expected: {expected:?}\n  printed ({}): {:?}\n  stderr: {}",
                out.status,
                text(&out.stdout),
                text(&out.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn autoformat_options_as_condor_q_lays_them_out() {
    check(&[
        (&["-af", "Owner", "N"], "alice 10\nbob 0\n"),
        (
            &["-af:,", "Owner", "N", "X"],
            "alice, 10, 2.5\nbob, 0, -1.0\n",
        ),
        (&["-af:t", "Owner", "N"], "alice\t10\nbob\t0\n"),
        // `n` puts a newline after each column but the last; the space
        // before each column but the first stays.
        (&["-af:n", "Owner", "N"], "alice\n 10\nbob\n 0\n"),
        (&["-af:g", "Owner", "N"], "\nalice10\n\nbob0\n"),
        (
            &["-af:l", "Owner", "N"],
            "Owner = alice N = 10\nOwner = bob N = 0\n",
        ),
        (&["-af:lV", "Owner"], "Owner = \"alice\"\nOwner = \"bob\"\n"),
        (&["-af:j", "Owner"], "1.0 alice\n2.1 bob\n"),
        // Values: evaluated, strings bare; an expression when the ad has
        // no attribute of that name.
        (
            &["-af", "Req", "N * 2", "Missing", "Ref"],
            "true 20 undefined alice\nfalse 0 undefined bob\n",
        ),
        // Raw: the expression; a reference alone is "undefined".
        (
            &["-af:r", "Req", "Ref", "N + 1", "Missing"],
            "N > 5 undefined N + 1 undefined\nN > 5 undefined N + 1 undefined\n",
        ),
        // Headings: left-aligned columns as wide as the widest value.
        (&["-af:h", "Owner", "N"], "Owner N \nalice 10\nbob   0 \n"),
        (
            &["-af:jh", "Owner"],
            " ID      Owner\n   1.0   alice\n   2.1   bob  \n",
        ),
        // -af ends at the next argument that starts with a dash; a lone
        // dash is dropped.
        (&["-af", "Owner", "-", "-constraint", "N"], "alice\n"),
    ]);
}

#[test]
fn format_conversions_as_printf() {
    check(&[
        (
            &["-format", "%s:", "Owner", "-format", "%d\\n", "N"],
            "alice:10\nbob:0\n",
        ),
        (
            &[
                "-format", "%5.1f|", "X", "-format", "%-4d|", "N", "-format", "%x\\n", "N",
            ],
            "  2.5|10  |a\n -1.0|0   |0\n",
        ),
        // A value of the wrong type prints nothing, the format's text too.
        (&["-format", "%d\\n", "Owner"], ""),
        // %s of an attribute that is not a string: its expression.
        (&["-format", "[%s]\\n", "N"], "[10]\n[0]\n"),
        (&["-format", "[%s]\\n", "Req"], "[N > 5]\n[N > 5]\n"),
        // ... but of an expression, nothing.
        (&["-format", "[%s]\\n", "N + 1"], ""),
        (
            &["-format", "%v|", "X", "-format", "%V\\n", "Owner"],
            "2.5|\"alice\"\n-1.0|\"bob\"\n",
        ),
        (&["-format", "100%% %d\\n", "N"], "100% 10\n100% 0\n"),
        (
            &["-format", "no conversion\\n", "N"],
            "no conversion\nno conversion\n",
        ),
        // %T is the duration alone, the rest of the format dropped.
        (
            &["-format", "%T and more", "N * 3661", "-af", "Owner"],
            "  0+10:10:10 alice\n  0+00:00:00 bob\n",
        ),
        // Columns of both kinds keep their order; the last -af's
        // separators apply to all.
        (
            &["-format", "<%s>", "Owner", "-af", "N"],
            "<alice> 10\n<bob> 0\n",
        ),
    ]);
}

#[test]
fn constraint_with_the_ad_as_my() {
    check(&[
        (&["-constraint", "N > 5", "-af", "Owner"], "alice\n"),
        (&["-constraint", "MY.N > 5", "-af", "Owner"], "alice\n"),
        // A nonzero number is true, as under old-ClassAd semantics.
        (&["-constraint", "N", "-af", "Owner"], "alice\n"),
        (&["-constraint", "X", "-af", "Owner"], "alice\nbob\n"),
        // A string, undefined (no TARGET) or error keeps nothing.
        (&["-constraint", "Owner", "-af", "Owner"], ""),
        (&["-constraint", "TARGET.N > 0", "-af", "Owner"], ""),
        (&["-constraint", "1/0", "-af", "Owner"], ""),
        (&["--constraint=Owner == \"bob\"", "-af", "N"], "0\n"),
        (&["-const", "Owner == \"bob\"", "-af", "N"], "0\n"),
    ]);
}

#[test]
fn files_standard_input_and_whole_ads() {
    let (_dir, file) = fixture();
    let file = file.as_str();
    for args in [
        vec!["-ads", file, "-af", "Owner"],
        vec!["-jobads", file, "-af", "Owner"],
        vec!["-af", "Owner", "-jobads", file],
        vec![file, "-af", "Owner"],
    ] {
        let out = run(&args, "");
        assert_eq!(text(&out.stdout), "alice\nbob\n", "{args:?}");
    }
    let out = run(&["-af", "Owner"], ADS);
    assert_eq!(text(&out.stdout), "alice\nbob\n");
    let out = run(&["-", "-af", "Owner"], ADS);
    assert_eq!(text(&out.stdout), "alice\nbob\n");
    // Without columns, the ads: old syntax by default, -json, -xml.
    let out = run(&[file, "-constraint", "N > 5"], "");
    assert_eq!(
        text(&out.stdout),
        "ClusterId = 1\nProcId = 0\nOwner = \"alice\"\nN = 10\nX = 2.5\nReq = N > 5\nRef = Owner\n\n"
    );
    let out = run(&[file, "-constraint", "N > 5", "-json"], "");
    let json = text(&out.stdout);
    assert!(
        json.starts_with("[\n") && json.contains("\"Owner\": \"alice\""),
        "{json}"
    );
    assert!(!json.contains("bob"), "{json}");
    let out = run(&[file, "-xml", "-constraint", "N == 0"], "");
    let xml = text(&out.stdout);
    assert!(
        xml.contains("<classads>") && xml.contains("<s>bob</s>"),
        "{xml}"
    );
}

#[test]
fn bad_command_lines_and_bad_files() {
    let (_dir, file) = fixture();
    let file = file.as_str();
    let cases: &[(&[&str], i32, &str)] = &[
        (&["-af"], 2, "needs at least one attribute"),
        (
            &["-af", "-constraint", "true"],
            2,
            "needs at least one attribute",
        ),
        (&["-af", "N +"], 2, "not a valid expression"),
        (&["-format", "%d"], 2, "needs a format and an attribute"),
        (&["-l", "-af", "N"], 2, "cannot be used with"),
        (&["-constraint", "N +"], 2, "<-constraint>"),
        (&["-json", "-xml"], 2, "cannot be used with"),
        (&["-bogus"], 2, "unexpected argument '--bogus'"),
    ];
    for (args, status, message) in cases {
        let mut all = vec![file];
        all.extend_from_slice(args);
        let out = run(&all, "");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(*status), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
    let out = run(&["/nonexistent/ads", file, "-af", "Owner"], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "alice\nbob\n");
    assert!(text(&out.stderr).contains("cannot open /nonexistent/ads"));
    let out = run(&["-af", "Owner"], "A = 1\n\nB = 1 +\n\nOwner = \"c\"\n\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "undefined\nc\n");
}

// ---------------------------------------------------------------------
// Against HTCondor's evaluation, on the workload pool.

/// A note that `cargo test` shows without `--nocapture`: written to the
/// process's standard error directly, past the test harness's capture.
fn say(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{message}");
}

/// (file, -af mode, constraint, arguments).
const ORACLE_CASES: &[(&str, &str, &str, &[&str])] = &[
    (
        "jobs",
        "v",
        "",
        &[
            "Owner",
            "ClusterId",
            "ProcId",
            "RequestMemory",
            "RequestCpus",
            "JobUniverse",
            "Requirements",
            "Rank",
        ],
    ),
    (
        "jobs",
        "v",
        "RequestMemory > 4000",
        &[
            "Owner",
            "RequestMemory / 1024.0",
            "strcat(Owner, \"-\", ClusterId)",
            "RequestDisk * 1.1",
        ],
    ),
    (
        "jobs",
        "v",
        "JobUniverse == 5 && RequestCpus > 1",
        &["ClusterId", "QDate / 7.0", "size(Owner)"],
    ),
    (
        "jobs",
        "v",
        "regexp(\"^a\", Owner)",
        &["Owner", "AcctGroup", "x509UserProxyVOName"],
    ),
    ("jobs", "v", "RequestMemory", &["RequestMemory"]),
    (
        "jobs",
        "V",
        "isUndefined(AcctGroup)",
        &["Owner", "Cmd", "Iwd", "Environment"],
    ),
    (
        "jobs",
        "r",
        "",
        &[
            "Requirements",
            "Rank",
            "QDate",
            "Owner",
            "Missing",
            "Missing + 1",
        ],
    ),
    (
        "machines",
        "v",
        "",
        &[
            "Name",
            "Memory",
            "Cpus",
            "Disk",
            "LoadAvg",
            "State",
            "Activity",
            "Arch",
            "OpSysAndVer",
            "KFlops",
        ],
    ),
    (
        "machines",
        "v",
        "Memory >= 65536",
        &[
            "Name",
            "Memory * 1.5",
            "AvailableGPUs",
            "CUDACapability",
            "Start",
            "TotalCpus / 3",
        ],
    ),
    (
        "machines",
        "V",
        "State == \"Unclaimed\" && Cpus > 8",
        &[
            "Name",
            "AvailableGPUs[0]",
            "split(Name, \"@\")",
            "[a = 1; b = a]",
            "1/0",
            "real(\"INF\")",
            "1e300",
            "0.1",
            "{1, 2.5, \"x\", undefined}",
        ],
    ),
    (
        "machines",
        "v",
        "PartitionableSlot",
        &["Name", "ChildCpus", "ChildMemory", "Requirements"],
    ),
    ("machines", "v", "Requirements == false", &["Name"]),
    (
        "machines",
        "v",
        "stringListMember(\"x86_64\", \"X86_64,aarch64\") && Arch == \"X86_64\"",
        &["Name"],
    ),
    (
        "machines",
        "r",
        "Cpus > 16",
        &["Start", "WithinResourceLimits", "Rank", "IsWakeAble"],
    ),
    ("machines", "v", "TARGET.Memory > 0", &["Name"]),
    // -format: printf over HTCondor's values.
    ("jobs", "format:%-8d|\n", "", &["RequestMemory"]),
    ("jobs", "format:%x\n", "", &["RequestMemory / 3.0"]),
    ("jobs", "format:%10.3f|\n", "", &["RequestMemory / 7"]),
    ("jobs", "format:%e\n", "", &["QDate * 1.5"]),
    ("jobs", "format:%g\n", "", &["RequestDisk / 1000.0"]),
    ("jobs", "format:[%-12s]\n", "", &["Owner"]),
    ("jobs", "format:[%s]\n", "", &["RequestMemory"]),
    ("jobs", "format:[%s]\n", "", &["strcat(Owner, \"@x\")"]),
    ("jobs", "format:%d\n", "", &["Owner"]),
    ("machines", "format:%5d|\n", "", &["HasFileTransfer"]),
    ("machines", "format:%.2f\n", "", &["LoadAvg"]),
    ("machines", "format:%d\n", "", &["LoadAvg * 100"]),
];

#[test]
fn agrees_with_htcondors_evaluation_on_the_workload_pool() {
    let Some(shared) = shared_dir() else {
        say(
            "SKIPPED query_cli::agrees_with_htcondors_evaluation_on_the_workload_pool: ../shared (workloads, oracle) not found",
        );
        return;
    };
    let python = match oracle_python() {
        Ok(python) => python,
        Err(why) => {
            say(&format!(
                "SKIPPED query_cli::agrees_with_htcondors_evaluation_on_the_workload_pool: {why}"
            ));
            return;
        }
    };
    let dir = Scratch::new("query-pool");
    let made = Command::new("python3")
        .arg(shared.join("workloads/gen_pool.py"))
        .arg("--out")
        .arg(&*dir)
        .args(["--machines", "300", "--jobs", "300"])
        .output()
        .expect("run gen_pool.py");
    assert!(made.status.success(), "{}", text(&made.stderr));
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/query/reference.py");
    let (mut invocations, mut rows, mut values, mut ads) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for (name, mode, constraint, args) in ORACLE_CASES {
        let file = dir.join(format!("{name}.ads"));
        let file = file.to_str().unwrap();
        let af = format!("-af:{mode}");
        let mut ours_args = vec![file];
        if !constraint.is_empty() {
            ours_args.extend(["-constraint", constraint]);
        }
        match mode.strip_prefix("format:") {
            Some(format) => ours_args.extend(["-format", format]),
            None => ours_args.push(&af),
        }
        ours_args.extend_from_slice(args);
        let ours = run(&ours_args, "");
        let theirs = Command::new(&python)
            .arg(&reference)
            .args([file, mode, constraint])
            .args(*args)
            .env("TZ", "UTC")
            .env("CONDOR_CONFIG", "/dev/null")
            .output()
            .expect("run the reference");
        assert!(
            theirs.status.success(),
            "reference: {}",
            text(&theirs.stderr)
        );
        invocations += 1;
        ads += 300;
        let (ours_text, theirs_text) = (text(&ours.stdout), text(&theirs.stdout));
        let lines = theirs_text.lines().count();
        rows += lines;
        values += lines * args.len();
        if ours_text != theirs_text || !ours.status.success() {
            let first = ours_text
                .lines()
                .zip(theirs_text.lines())
                .find(|(a, b)| a != b)
                .map(|(a, b)| format!("\n  ours:     {a}\n  classad2: {b}"))
                .unwrap_or_default();
            failures.push(format!(
                "{ours_args:?}: {} rows, classad2 {lines}{first}\n  stderr: {}",
                ours_text.lines().count(),
                text(&ours.stderr)
            ));
        }
    }
    say(&format!(
        "query_cli: {invocations} queries over a 300-job, 300-slot workload pool ({ads} ads filtered): {rows} rows, {values} values compared with classad2, {} differ",
        failures.len()
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
