#!/usr/bin/env python3
"""Sorts the mismatches of difftest.py JSON reports (run_difftest.sh) into
kinds, shortest expression first, to find minimal reproducers.

    tests/gen/triage.py GEN_EXPRS REPORT.json...

GEN_EXPRS is the gen-exprs binary (its --classify mode names the known VM
bug an expression may run into). Kinds:
  <name>           a known VM bug (harness::known_vm_bug; none at present)
  ad-subscript     uses ad["name"]: HTCondor loses the scope of an ad
                   obtained that way (docs/semantics.md section 9)
  other            everything else, printed in full
"""
import json
import subprocess
import sys


def main():
    gen, reports = sys.argv[1], sys.argv[2:]
    cases = []
    for path in reports:
        with open(path) as f:
            cases += [c for c in json.load(f)["cases"] if c["status"] != "pass"]
    tags = subprocess.run(
        [gen, "--classify"],
        input="".join(c["expr"] + "\n" for c in cases),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    kinds = {}
    for case, tag in zip(cases, tags):
        if tag != "-":
            kind = tag
        elif '["' in case["expr"]:
            kind = "ad-subscript"
        else:
            kind = "other"
        kinds.setdefault(kind, []).append(case)
    for kind, items in sorted(kinds.items()):
        print(f"== {kind}: {len(items)}")
        items.sort(key=lambda c: len(c["expr"]))
        for c in items[: (10**6 if kind == "other" else 5)]:
            print(f"  {c['status']} | {c['expr']}")
            print(f"      oracle: {json.dumps(c.get('oracle'))[:200]}")
            print(f"      tested: {json.dumps(c.get('tested'))[:200]}")


if __name__ == "__main__":
    main()
