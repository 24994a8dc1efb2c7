//! `classad eval --jdl`: the forms only the 2001 JDL document (spec 004)
//! describes, with the values the document gives them
//! (`../shared/conformance/seed_examples_extensions.txt`), and proof that
//! the default dialect refuses or reads them as HTCondor does.

use crate::common;

use common::batch;

/// (expression, value in the JDL dialect as the document gives it).
const JDL: &[(&str, &str)] = &[
    ("0xff", "255"),
    ("0777", "511"),
    ("0600", "384"),
    ("2K", "2.048000000000000E+03"),
    ("1T", "1.099511627776000E+12"),
    ("int('Thu Aug 17 18:21:07 2000 (CDT) -06:00')", "966558067"),
    ("'18:21:32'", "relTime(66092)"),
    ("'3d19:49:15'", "relTime(330555)"),
    ("[e = '00:15:00'; r = e*4].r", "relTime(3600)"),
    (
        "MakeAbsTime(86400)",
        "absTime(\"1970-01-02T00:00:00-00:00\")",
    ),
    ("MakeRelTime(3600)", "relTime(3600)"),
    ("InHours(relTime(7200))", "2.000000000000000E+00"),
    ("InDays(relTime(172800))", "2.000000000000000E+00"),
    ("IsMember(undefined, {undefined})", "true"),
];

#[test]
fn jdl_forms_have_the_documented_values() {
    let exprs: Vec<&str> = JDL.iter().map(|(e, _)| *e).collect();
    let printed = batch(&["--jdl"], &exprs);
    for ((expr, expected), got) in JDL.iter().zip(&printed) {
        assert_eq!(got, expected, "{expr}");
    }
    assert_eq!(printed.len(), JDL.len());
}

#[test]
fn default_dialect_reads_them_as_htcondor_does() {
    let exprs: Vec<&str> = JDL.iter().map(|(e, _)| *e).collect();
    let printed = batch::<&str, _>(&[], &exprs);
    for (expr, got) in exprs.iter().zip(&printed) {
        // HTCondor refuses the numbers; quoted times are attribute names
        // (UNDEFINED); the JDL functions are unknown (ERROR).
        assert!(
            got.starts_with("parse error:") || got == "undefined" || got == "error",
            "{expr}: {got}"
        );
    }
}

mod common_figure {
    //! Figure 1 of the JDL HowTo (spec 004, "A classad describing a
    //! submitted job"): `Requirements` continued over three lines with a
    //! backslash at the end of each.

    use super::common::{Scratch, classad, shared_dir, text};

    /// The figure as the HowTo prints it (its two halves, cut by a page
    /// break in the text, joined).
    pub const FIGURE_1: &str = r#"[
Executable = "WPltestF";
StdOutput = "sim.out";
StdError = "sim.err";
InputSandbox = {"/home/datamat/sim.exe", "/home/datamat/DATA/*"};
OutputSandbox = {"sim.err", "sim.err", "testD.out"};
Rank = other.TotalCPUs * other.AverageSI00;
Requirements = other.LRMSType == "PBS" \
&& (other.OpSys == "Linux RH 6.1" || other.OpSys == "Linux RH 6.2") && \
self.Rank > 10 && other.FreeCPUs > 1;
RetryCount = 2;
Arguments = "file1";
InputData = "LF:test10099-1001";
ReplicaCatalog = "ldap://sunlab2g.cnaf.infn.it:2010/rc=WP2 INFN Test Replica
Catalog,dc=sunlab2g, dc=cnaf, dc=infn, dc=it";
DataAccessProtocol = "gridftp";
OutputSE = "grid001.cnaf.infn.it";
]
"#;

    /// A CE the figure's job asks for (PBS, RH 6.2, two free CPUs, a Rank
    /// of 4 * 23 = 92 > 10), in the form of the HowTo's Figure 4.
    const CE: &str = "[\n  LRMSType = \"PBS\";\n  OpSys = \"Linux RH 6.2\";\n  TotalCPUs = 4;\n  AverageSI00 = 23;\n  FreeCPUs = 2;\n]\n";

    #[test]
    fn the_fixture_is_the_figures_text() {
        let Some(shared) = shared_dir() else {
            eprintln!("skipped: no ../shared/spec");
            return;
        };
        let spec = std::fs::read_to_string(shared.join("spec/004_1b0a51c3c9043399.txt"))
            .expect("the JDL HowTo");
        for line in FIGURE_1.lines().filter(|l| l.len() > 1) {
            assert!(spec.contains(line), "not in the HowTo: {line}");
        }
    }

    #[test]
    fn figure_1_parses_and_matches_a_ce_in_the_jdl_dialect() {
        let dir = Scratch::new("jdl-figure");
        let job = dir.file("job.ad", FIGURE_1);
        let ce = dir.file("ce.ad", CE);
        let other = dir.file("lsf.ad", CE.replace("PBS", "LSF"));
        let eval = |target: &str, expr: &str| {
            let out = classad([
                "eval",
                "--jdl",
                "-quiet",
                "-my-file",
                &job,
                "-target-file",
                target,
                expr,
            ]);
            assert!(out.status.success(), "{expr}: {}", text(&out.stderr));
            text(&out.stdout)
        };
        assert_eq!(eval(&ce, "Rank"), "92\n");
        assert_eq!(eval(&ce, "Requirements"), "true\n");
        assert_eq!(eval(&other, "Requirements"), "false\n");
        // The three lines are one expression, the backslashes blanks.
        assert_eq!(
            eval(&ce, "unparse(Requirements)"),
            "\"other.LRMSType == \\\"PBS\\\" && (other.OpSys == \\\"Linux RH 6.1\\\" || \
             other.OpSys == \\\"Linux RH 6.2\\\") && self.Rank > 10 && other.FreeCPUs > 1\"\n"
        );
        // The string broken over two lines keeps its line end.
        assert_eq!(eval(&ce, "size(ReplicaCatalog)"), "103\n");
    }

    #[test]
    fn the_default_dialect_refuses_the_backslash_as_htcondor_does() {
        let dir = Scratch::new("jdl-figure-default");
        let job = dir.file("job.ad", FIGURE_1);
        let out = classad(["eval", "-quiet", "-my-file", &job, "Rank"]);
        assert_eq!(out.status.code(), Some(1));
        let err = text(&out.stderr);
        assert!(err.contains("found `\\`"), "{err}");
        // As `classad check` shows a bad ad: the file, line and column, the
        // line itself and a caret, each on its own line.
        assert!(err.contains(&format!("--> {job}:8:40")), "{err}");
        assert!(
            err.contains("Requirements = other.LRMSType == \"PBS\" \\\n"),
            "{err}"
        );
        assert!(err.contains('^'), "{err}");
        assert!(!err.contains("\\n"), "{err}");
    }
}
