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
