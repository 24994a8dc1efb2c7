//! HTCondor string lists: the `stringList*` family.
//!
//! Every expected value was checked against HTCondor 25.14 (the oracle)
//! unless a comment says otherwise.

use crate::common;
use common::check;

#[test]
fn stringlistavg() {
    check(&[
        ("stringListAvg(\"1, 2\")", "1"),
        ("stringListAvg(\"2, 4\")", "3"),
        ("stringListAvg(\"-3, -4\")", "-3"),
        ("stringListAvg(\"1, 2.0\")", "1.500000000000000E+00"),
        ("stringListAvg(\"\")", "0.0"),
        ("stringListAvg(\"x\")", "error"),
        ("stringListAvg(undefined)", "error"),
    ]);
}

#[test]
fn stringlistimember() {
    check(&[
        ("stringListIMember(\"A\", \"a, b, c\")", "true"),
        ("stringListIMember(\"é\", \"É\")", "false"),
        ("stringListIMember(undefined, \"a\")", "false"),
        ("stringListIMember(undefined, undefined)", "undefined"),
        ("stringListIMember(\"a\", 1)", "error"),
    ]);
}

#[test]
fn stringlistisubsetmatch() {
    check(&[
        ("stringListISubsetMatch(\"A, B\", \"a, b\")", "true"),
        ("stringListISubsetMatch(\"A, C\", \"a, b\")", "false"),
        ("stringListISubsetMatch(\"\", \"\")", "true"),
        ("stringListISubsetMatch(undefined, undefined)", "undefined"),
    ]);
}

#[test]
fn stringlistmax() {
    check(&[
        ("stringListMax(\"3, 1, 2\")", "3"),
        ("stringListMax(\"1, 2.5, 2\")", "2.500000000000000E+00"),
        ("stringListMax(\"\")", "undefined"),
        ("stringListMax(\"0\")", "0"),
        ("stringListMax(\"a,b\", \",\")", "error"),
        ("stringListMax(error)", "error"),
    ]);
}

#[test]
fn stringlistmember() {
    check(&[
        ("stringListMember(\"a\", \"a, b, c\")", "true"),
        ("stringListMember(\"A\", \"a, b, c\")", "false"),
        ("stringListMember(\"c\", \"a,b\\tc\")", "true"),
        ("stringListMember(\" b \", \"a, b, c\")", "false"),
        ("stringListMember(\"a\", \" a \")", "true"),
        ("stringListMember(\"\", \"a,,b\")", "false"),
        ("stringListMember(undefined, \"a, b\")", "false"),
        ("stringListMember(\"a\", undefined)", "false"),
        ("stringListMember(undefined, undefined)", "undefined"),
        ("stringListMember(error, \"a\")", "error"),
        ("stringListMember(1, \"1, 2\")", "error"),
        ("stringListMember(\"a\", \"a;b\", \";\")", "true"),
        ("stringListMember(\"a\", \"a;b\", undefined)", "false"),
        ("stringListMember(\"a, b\", \"a, b\", \"\")", "true"),
        ("stringListMember(\"a\")", "error"),
    ]);
}

#[test]
fn stringlistmin() {
    check(&[
        ("stringListMin(\"3, 1, 2\")", "1"),
        ("stringListMin(\"3, 1.5\")", "1.500000000000000E+00"),
        ("stringListMin(\"-5, 2\")", "-5"),
        ("stringListMin(\"nan, 1\")", "1.000000000000000E+00"),
        ("stringListMin(\"\")", "undefined"),
        ("stringListMin(\"abc\")", "error"),
    ]);
}

#[test]
fn stringlistsintersect() {
    check(&[
        ("stringListsIntersect(\"a, b\", \"b, c\")", "true"),
        ("stringListsIntersect(\"a, b\", \"c, d\")", "false"),
        ("stringListsIntersect(\"a\", \"A\")", "false"),
        ("stringListsIntersect(\"a \", \"a\")", "true"),
        ("stringListsIntersect(\"a\\t\", \"a\")", "false"),
        ("stringListsIntersect(\"a;b\", \"b\", \";\")", "true"),
        ("stringListsIntersect(\"a;b\", \"b\", \"\")", "false"),
        ("stringListsIntersect(undefined, \"a\")", "undefined"),
        ("stringListsIntersect(error, undefined)", "error"),
        ("stringListsIntersect(1, undefined)", "undefined"),
        ("stringListsIntersect(\"a\", \"a\", 1)", "error"),
        ("stringListsIntersect(\"a\")", "error"),
    ]);
}

#[test]
fn stringlistsize() {
    check(&[
        ("stringListSize(\"a, b, c\")", "3"),
        ("stringListSize(\"a,,b\")", "2"),
        ("stringListSize(\"\")", "0"),
        ("stringListSize(\" , , \")", "0"),
        ("stringListSize(\"a\\tb\")", "1"),
        ("stringListSize(\"a;b;c\", \";\")", "3"),
        ("stringListSize(\" x ;  ; y\", \";\")", "2"),
        ("stringListSize(\"a;b\", \"\")", "1"),
        ("stringListSize(undefined)", "error"),
        ("stringListSize(\"a\", undefined)", "error"),
        ("stringListSize(1)", "error"),
        ("stringListSize()", "error"),
    ]);
}

#[test]
fn stringlistsubsetmatch() {
    check(&[
        ("stringListSubsetMatch(\"a, b\", \"a, b, c\")", "true"),
        ("stringListSubsetMatch(\"a, d\", \"a, b, c\")", "false"),
        ("stringListSubsetMatch(\"\", \"\")", "true"),
        ("stringListSubsetMatch(\" , \", \"\")", "false"),
        ("stringListSubsetMatch(undefined, \"a\")", "true"),
        ("stringListSubsetMatch(\"a\", undefined)", "false"),
        ("stringListSubsetMatch(undefined, undefined)", "undefined"),
        ("stringListSubsetMatch(\"a,a,a\", \"a\")", "true"),
        ("stringListSubsetMatch(1, \"a\")", "error"),
    ]);
}

#[test]
fn stringlistsum() {
    check(&[
        ("stringListSum(\"1, 2, 3\")", "6"),
        ("stringListSum(\"1, 2.5\")", "3.500000000000000E+00"),
        ("stringListSum(\"\")", "0.0"),
        ("stringListSum(\"1, x\")", "error"),
        ("stringListSum(\"1x\")", "1.000000000000000E+00"),
        ("stringListSum(\"0x10\")", "1.600000000000000E+01"),
        ("stringListSum(\"0x\")", "error"),
        ("stringListSum(\"1e2\")", "1.000000000000000E+02"),
        ("stringListSum(\"1-2\")", "1"),
        (
            "stringListSum(\"9223372036854775807\")",
            "-9223372036854775808",
        ),
        ("stringListSum(\"inf\")", "real(\"INF\")"),
        ("stringListSum(undefined)", "error"),
    ]);
}
