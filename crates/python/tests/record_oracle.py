"""Record HTCondor's classad2 answers to the cases of oracle_cases.py.

    python record_oracle.py            # with a python that imports classad2
    CLASSAD_RS_RECORD=1 pytest ...     # the same, before the tests run

writes oracle_answers.json beside this file: for each case, classad2's
canonical answer. The tests compare classad_rs against classad2 itself
when it imports, and against this file when it does not (CI machines
without HTCondor), so the file must be regenerated whenever a case
changes; test_against_classad2.py fails on a stale one where the oracle
is present.
"""

import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ANSWERS = os.path.join(HERE, "oracle_answers.json")


def fix_time_zone():
    """Naive datetimes are local time in both modules: pin it so recorded
    answers hold on every machine."""
    os.environ["TZ"] = "UTC"
    time.tzset()


def import_oracle():
    """HTCondor's classad2 as HTCondor runs it, or None when it is not
    installed. Importing htcondor2 beside it turns on what HTCondor turns on
    (its own functions, old-ClassAd compatibility: MY. is the enclosing ad,
    010 and 0x10 do not parse); without it classad2 switches to that mode
    only when something loads htcondor2 internally (reading a nested ad out
    of a ClassAd does), so its answers would depend on what ran before (as
    ../shared/oracle/canon.py found). No machine's HTCondor configuration
    may change the answers: CONDOR_CONFIG is /dev/null."""
    os.environ["CONDOR_CONFIG"] = "/dev/null"
    try:
        import classad2
        import htcondor2  # noqa: F401 (imported for its effect)
    except ImportError:
        return None
    return classad2


def run_case(module, name):
    """The canonical answer of case `name` run on `module`."""
    sys.path.insert(0, HERE)
    import oracle_cases

    with tempfile.TemporaryDirectory() as scratch:
        return oracle_cases.attempt(lambda: oracle_cases.CASES[name](oracle_cases.Case(module, scratch)))


def record():
    fix_time_zone()
    classad2 = import_oracle()
    if classad2 is None:
        raise SystemExit("record_oracle.py needs HTCondor's classad2: pip install htcondor==25.14.1")

    sys.path.insert(0, HERE)
    import oracle_cases

    answers = {
        "classad2_version": classad2.version(),
        "answers": {name: run_case(classad2, name) for name in sorted(oracle_cases.CASES)},
    }
    # one case a line: small diffs when a case changes
    lines = ['{"classad2_version": %s, "answers": {' % json.dumps(answers["classad2_version"])]
    names = sorted(answers["answers"])
    for i, name in enumerate(names):
        comma = "," if i + 1 < len(names) else ""
        lines.append("%s: %s%s" % (json.dumps(name), json.dumps(answers["answers"][name], separators=(",", ":")), comma))
    lines.append("}}")
    with open(ANSWERS, "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(answers["answers"])


if __name__ == "__main__":
    n = record()
    print("recorded %d answers of classad2 into %s" % (n, ANSWERS))
