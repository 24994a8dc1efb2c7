#!/usr/bin/env python3
"""Run HTCondor's own tests of classad2 against classad_rs, side by side
with the same tests on HTCondor's classad2.

    python run_htcondor_suite.py DIR [--python PY] [--oracle-python PY]

DIR holds HTCondor's pytest files that import classad2 (they are not
committed here: fetch them from the htcondor/htcondor repository, e.g. the
classad2 version of src/condor_tests/test_python_bindings_classad.py).
Each file is run twice by pytest, in a scratch copy of DIR:

* on HTCondor's package: `import classad2` is HTCondor's own (the
  `htcondor` wheel, in the interpreter --oracle-python, default --python);
* on ours: a shim directory first on PYTHONPATH holds a module `classad2`
  that replaces itself, in sys.modules, by `classad_rs`, so every
  `import classad2` and `classad2.X` the tests do reaches classad_rs.

Both runs get a stand-in for the one piece of HTCondor's test framework
(ornithology) that the classad2 tests use without a running pool: its
`action` decorator, a class-scoped pytest fixture. Tests needing a pool
are out of scope (they need HTCondor's daemons).

The report gives every test's outcome on both packages and, for each test
that passes on HTCondor's package but not on ours, the first line of the
failure. The exit status is 1 when there is such a test, 0 otherwise.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

CLASSAD2_SHIM = '''"""classad2 is classad_rs here: run_htcondor_suite.py's shim."""
import sys

import classad_rs

sys.modules[__name__] = classad_rs
'''

ORNITHOLOGY_STANDIN = '''"""A stand-in for HTCondor's ornithology test framework: only `action`,
which declares a class-scoped fixture (optionally parametrized by a dict
of id -> value), written for run_htcondor_suite.py."""
import pytest


def action(fn=None, *, params=None):
    def declare(f):
        if params is None:
            return pytest.fixture(scope="class")(f)
        return pytest.fixture(scope="class", params=list(params.values()), ids=list(params.keys()))(f)

    return declare if fn is None else declare(fn)
'''


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def outcomes(junit_path):
    """Test id -> (outcome, first line of the reason) from pytest's JUnit XML."""
    result = {}
    if not os.path.exists(junit_path):
        return result
    for tc in ET.parse(junit_path).getroot().iter("testcase"):
        name = "%s::%s" % (tc.get("classname", ""), tc.get("name", ""))
        outcome, reason = "passed", ""
        for child in tc:
            if child.tag in ("failure", "error"):
                outcome = "failed" if child.tag == "failure" else "error"
                reason = child.get("message") or ""
                # a collection error's message is only "collection failure":
                # the exception is on the traceback's last "E " line
                raised = [ln[1:].strip() for ln in (child.text or "").splitlines() if ln.startswith("E ")]
                if raised and (not reason or reason == "collection failure"):
                    reason = raised[-1]
            elif child.tag == "skipped":
                kind = child.get("type", "")
                outcome = "xfailed" if "xfail" in kind else "skipped"
                reason = child.get("message") or ""
        result[name] = (outcome, reason.strip().splitlines()[0] if reason.strip() else "")
    return result


def run_pytest(python, test_dir, extra_path, junit_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [extra_path, env.get("PYTHONPATH", "")] if p)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    cmd = [
        python,
        "-m",
        "pytest",
        "-q",
        "-rN",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        test_dir,
        "-o",
        "addopts=",
        "--junitxml",
        junit_path,
        test_dir,
    ]
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc.returncode, proc.stdout


def counts(results):
    tally = {}
    for outcome, _ in results.values():
        tally[outcome] = tally.get(outcome, 0) + 1
    return ", ".join("%d %s" % (n, k) for k, n in sorted(tally.items())) or "no tests"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("test_dir", help="directory of HTCondor's classad2 test files")
    ap.add_argument("--python", default=sys.executable, help="interpreter with classad_rs and pytest (default: this one)")
    ap.add_argument("--oracle-python", default=None, help="interpreter with HTCondor's classad2 (default: --python)")
    ap.add_argument("--show-output", action="store_true", help="print both pytest runs' output")
    args = ap.parse_args()
    oracle_python = args.oracle_python or args.python

    with tempfile.TemporaryDirectory(prefix="htcondor-suite-") as work:
        tests = os.path.join(work, "tests")
        shutil.copytree(args.test_dir, tests, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
        common = os.path.join(work, "common")
        shim = os.path.join(work, "shim")
        os.makedirs(common)
        os.makedirs(shim)
        write(os.path.join(common, "ornithology.py"), ORNITHOLOGY_STANDIN)
        write(os.path.join(shim, "classad2.py"), CLASSAD2_SHIM)

        runs = {}
        for label, python, path in [
            ("htcondor", oracle_python, common),
            ("classad_rs", args.python, os.pathsep.join([shim, common])),
        ]:
            junit = os.path.join(work, label + ".xml")
            code, output = run_pytest(python, tests, path, junit)
            if args.show_output:
                print("===== pytest on %s (exit %d) =====\n%s" % (label, code, output))
            runs[label] = outcomes(junit)
            if not runs[label]:
                print("pytest on %s ran no test (exit %d):\n%s" % (label, code, output[-3000:]))

    theirs, ours = runs["htcondor"], runs["classad_rs"]
    names = sorted(set(theirs) | set(ours))
    width = max([len(n) for n in names] + [4])
    print("%-*s  %-10s  %-10s" % (width, "test", "htcondor", "classad_rs"))
    regressions = []
    for n in names:
        t = theirs.get(n, ("absent", ""))
        o = ours.get(n, ("absent", ""))
        print("%-*s  %-10s  %-10s" % (width, n, t[0], o[0]))
        if t[0] == "passed" and o[0] != "passed":
            if o[0] == "absent":
                # not collected: the file's collection error says why
                module = n.split("::")[0].split(".")[0]
                o = ("absent", ours.get("::" + module, ("", "not collected"))[1])
            regressions.append((n, o))
    print()
    print("HTCondor's classad2: %s" % counts(theirs))
    print("classad_rs:          %s" % counts(ours))
    passed_theirs = sum(1 for o, _ in theirs.values() if o == "passed")
    passed_both = sum(1 for n in theirs if theirs[n][0] == "passed" and ours.get(n, ("",))[0] == "passed")
    print("passing on HTCondor's package: %d; of those, passing on classad_rs: %d" % (passed_theirs, passed_both))
    if regressions:
        print("\nPassing on HTCondor's package, not on classad_rs:")
        for n, (outcome, reason) in regressions:
            print("  %s: %s: %s" % (n, outcome, reason[:300]))
    others = [(n, o) for n, o in sorted(ours.items()) if o[0] in ("failed", "error") and theirs.get(n, ("",))[0] != "passed"]
    if others:
        print("\nFailing on classad_rs, not passing on HTCondor's package either:")
        for n, (outcome, reason) in others:
            print("  %s: %s: %s (HTCondor's: %s: %s)" % (n, outcome, reason[:300], theirs.get(n, ("absent", ""))[0], theirs.get(n, ("", ""))[1][:200]))
    return 1 if regressions or not theirs else 0


if __name__ == "__main__":
    sys.exit(main())
