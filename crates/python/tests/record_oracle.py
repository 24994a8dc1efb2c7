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


def run_case(module, name):
    """The canonical answer of case `name` run on `module`."""
    sys.path.insert(0, HERE)
    import oracle_cases

    with tempfile.TemporaryDirectory() as scratch:
        return oracle_cases.attempt(lambda: oracle_cases.CASES[name](oracle_cases.Case(module, scratch)))


def run_case_fresh(module_name, name):
    """The canonical answer of case `name` run on the module named
    `module_name` in a new interpreter, for the cases whose answer depends
    on what the process did before (oracle_cases.FRESH_PROCESS_CASES)."""
    import subprocess

    code = (
        "import sys, json, importlib; sys.path.insert(0, %r)\n"
        "import record_oracle; record_oracle.fix_time_zone()\n"
        "print(json.dumps(record_oracle.run_case(importlib.import_module(%r), %r)))" % (HERE, module_name, name)
    )
    out = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, check=True, text=True).stdout
    return json.loads(out)


def answer(module, name):
    """run_case, or run_case_fresh for the cases that need a fresh process."""
    sys.path.insert(0, HERE)
    import oracle_cases

    if name in oracle_cases.FRESH_PROCESS_CASES:
        return run_case_fresh(module.__name__, name)
    return run_case(module, name)


def record():
    fix_time_zone()
    import classad2

    sys.path.insert(0, HERE)
    import oracle_cases

    answers = {
        "classad2_version": classad2.version(),
        "answers": {name: answer(classad2, name) for name in sorted(oracle_cases.CASES)},
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
