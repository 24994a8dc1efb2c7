#!/usr/bin/env python3
"""Compare our unparses of the corpus with HTCondor's own (the oracle).

Run from anywhere, with the oracle's Python:

    CONDOR_CONFIG=/dev/null TZ=UTC ~/.cache/classad-oracle-venv/bin/python \
        crates/syntax/tests/oracle_unparse.py [--dump FILE] [--all]

It runs the `dump_unparses` test of tests/snapshots.rs (which writes every
corpus line with our canonical, old and pretty unparses as JSON lines), or
reads FILE if --dump is given, then for each line asks HTCondor's library:

  * canonical one-line form: `repr(ad)` of an ad `[ e = EXPR ]`, inner part;
  * old form: `ad.printOld()`, the `e = ...` line;
  * pretty form: `str(classad2.ExprTree(src))`.

It prints one group per kind of difference: lines that parse with only one
side, and each form that differs. --all also lists lines that agree.
The exit status is 0: differences are reported, not judged (some are
known and deliberate, see unparse.rs and docs/differences.md).
"""

import json
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("CONDOR_CONFIG", "/dev/null")
os.environ.setdefault("TZ", "UTC")

import classad2  # noqa: E402
import htcondor2  # noqa: E402,F401  (loads HTCondor's functions and settings)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def our_unparses(dump):
    if dump is None:
        fd, dump = tempfile.mkstemp(suffix=".jsonl")
        os.close(fd)
        env = dict(os.environ, CLASSAD_UNPARSE_DUMP=dump)
        env.setdefault("CARGO_TARGET_DIR", "/work/target-tests")
        subprocess.run(
            ["cargo", "test", "-q", "-p", "classad-syntax", "--test", "snapshots",
             "dump_unparses"],
            cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    with open(dump, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def oracle(source):
    """HTCondor's (new, old, pretty) forms, or a parse error string."""
    try:
        tree = classad2.ExprTree(source)
    except Exception as e:  # the library raises ClassAdException and others
        return "parse error: %s" % e

    def attempt(form):
        try:
            return form()
        except Exception as e:  # e.g. bytes that are not UTF-8
            return "(cannot print: %s)" % e

    ad = classad2.ClassAd()
    ad["e"] = tree

    def new():
        one_line = repr(ad)
        prefix, suffix = "[ e = ", " ]"
        assert one_line.startswith(prefix) and one_line.endswith(suffix), one_line
        return one_line[len(prefix):-len(suffix)]

    def old():
        text = ad.printOld().rstrip("\n")
        assert text.startswith("e = "), text
        return text[len("e = "):]

    return attempt(new), attempt(old), attempt(lambda: str(tree))


def main(argv):
    dump = None
    show_all = "--all" in argv
    if "--dump" in argv:
        dump = argv[argv.index("--dump") + 1]
    rows = our_unparses(dump)

    groups = {
        "accepted by us, refused by HTCondor": [],
        "refused by us, accepted by HTCondor": [],
        "canonical one-line unparse differs": [],
        "old-syntax unparse differs": [],
        "pretty unparse differs": [],
        "agree": [],
    }
    compared = 0
    for row in rows:
        where = "%s:%s" % (row["file"], row["line"])
        src = row["source"]
        theirs = oracle(src)
        ours_ok = "error" not in row
        theirs_ok = not isinstance(theirs, str)
        if row["file"].startswith("malformed/"):
            # Malformed lines: only acceptance is compared.
            if theirs_ok:
                groups["refused by us, accepted by HTCondor"].append(
                    (where, src, "HTCondor: %r" % theirs[0]))
            continue
        if ours_ok and not theirs_ok:
            groups["accepted by us, refused by HTCondor"].append(
                (where, src, "ours: %s  [dialect %s]" % (row["new"], row["dialect"])))
            continue
        if theirs_ok and not ours_ok:
            groups["refused by us, accepted by HTCondor"].append(
                (where, src, "HTCondor: %r; ours: %s" % (theirs[0], row["error"])))
            continue
        if not ours_ok:
            continue
        compared += 1
        same = True
        for key, index, group in (("new", 0, "canonical one-line unparse differs"),
                                  ("old", 1, "old-syntax unparse differs"),
                                  ("pretty", 2, "pretty unparse differs")):
            if row[key] != theirs[index]:
                same = False
                groups[group].append(
                    (where, src, "ours:     %r\n      HTCondor: %r" % (row[key], theirs[index])))
        if same:
            groups["agree"].append((where, src, row["new"]))

    print("%d corpus lines, %d parsed by both and compared" % (len(rows), compared))
    for title, items in groups.items():
        if title == "agree" and not show_all:
            print("\n== agree: %d" % len(items))
            continue
        print("\n== %s: %d" % (title, len(items)))
        for where, src, detail in items:
            print("  %s  %s\n      %s" % (where, src, detail))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
