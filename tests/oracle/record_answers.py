#!/usr/bin/env python3
"""Records HTCondor's answers to the expression corpora, beside them.

    record_answers.py [--mode htcondor|strict|both] [--out DIR] CORPUS...

For each CORPUS (one expression a line; blank lines and `#` lines are
skipped, as difftest.py skips them) and each mode, evaluates every case
with HTCondor's own library through the shared oracle's canon.py, exactly
as difftest.py evaluates its oracle side (canonical values, lists and ads
probed as `(E)[i]` and `(E).name` to difftest's default depth), and writes
DIR/NAME.MODE (NAME is the corpus's name without `.txt`): line N answers
line N of the corpus, so a corpus and its answers diff side by side.

A case's line is `HASH ANSWER`: HASH is the FNV-1a 32-bit hash of the
expression's bytes in 8 hex digits (so a case edited since its answer was
recorded is found, not checked against a stale answer) and ANSWER the
canonical value in the text form crates/classad/tests/corpus.rs reads:

    undefined | error | parse-error | bool true | bool false
    int N | real X | reltime X | abstime N | str "..."
    str-digest LENGTH FNV64                 (a string of over 1,000 bytes)
    list N | list N [ANSWER, ...]          (children up to 16, if probed)
    ad (NAME, ...) | ad {NAME: ANSWER, ...} (names lower-cased, sorted)
    oracle-exception "..."                  (the library failed: unjudged)

Reals are Python's shortest repr (`2.5`, `1e-05`, `inf`, `nan`). Strings
are bytes: `\\"`, `\\\\`, `\\n`, `\\t`, `\\r`, `\\xNN` for a byte that is
not UTF-8, `\\u{X}` for a character that does not print; other characters
as themselves. A name is bare when it is an identifier, else a string.
A skipped line's answer line is empty.

Run by `CLASSAD_RECORD=1 cargo test -p classad --release --test corpus`
(which then checks the new answers); it can be run by hand too. The
shared directory is $CLASSAD_SHARED_DIR, else ../shared beside the
repository. Exit status 0 on success, 3 when the oracle is not available.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
NOT_AVAILABLE = 3


def shared_dir():
    env = os.environ.get("CLASSAD_SHARED_DIR") or os.environ.get("CLASSAD_SHARED")
    if env:
        return env
    return os.path.normpath(os.path.join(REPO, "..", "shared"))


ORACLE_DIR = os.path.join(shared_dir(), "oracle")


def ensure_oracle():
    """Re-executes this script under the oracle's python when classad2 does
    not import here (difftest.py's way, through the shared setup.sh)."""
    try:
        import classad2  # noqa: F401
        return
    except ImportError:
        pass
    if os.environ.get("CLASSAD_ORACLE_REEXEC"):
        print("record_answers: classad2 is still missing after setup.sh")
        sys.exit(NOT_AVAILABLE)
    setup = os.path.join(ORACLE_DIR, "setup.sh")
    if not os.path.exists(setup):
        print("record_answers: the oracle is not at %s" % ORACLE_DIR)
        sys.exit(NOT_AVAILABLE)
    try:
        out = subprocess.run(["sh", setup], stdout=subprocess.PIPE, check=True)
    except subprocess.CalledProcessError as exc:
        print("record_answers: %s failed (status %d)" % (setup, exc.returncode))
        sys.exit(NOT_AVAILABLE)
    python = out.stdout.decode().strip().splitlines()[-1]
    env = dict(os.environ, CLASSAD_ORACLE_REEXEC="1")
    os.execve(python, [python, os.path.abspath(__file__)] + sys.argv[1:], env)


def read_lines(path):
    """Every line of the corpus as difftest.py reads it (universal newlines,
    bytes that are not UTF-8 kept as surrogate escapes)."""
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return [line.rstrip("\r\n") for line in f]


def is_case(line):
    return bool(line.strip()) and not line.lstrip().startswith("#")


def fnv1a32(text):
    h = 0x811C9DC5
    for b in text.encode("utf-8", "surrogateescape"):
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return "%08x" % h


# Strings longer than this are recorded by their length and FNV-1a 64-bit
# hash (a memory-budget case makes a 2 MB string).
LONG_STRING = 1000


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def fmt_str(s):
    out = ['"']
    for ch in s:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:      # a byte that is not UTF-8
            out.append("\\x%02x" % (code - 0xDC00))
        elif ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append("\\u{%x}" % code)
    out.append('"')
    return "".join(out)


def fmt_name(name):
    if name and (name[0].isascii() and (name[0].isalpha() or name[0] == "_")) and all(
            c.isascii() and (c.isalnum() or c == "_") for c in name):
        return name
    return fmt_str(name)


def fmt(t):
    kind = t[0]
    if kind in ("undefined", "error", "parse-error"):
        return kind
    if kind == "oracle-exception":
        return "oracle-exception " + fmt_str(str(t[1]))
    if kind == "bool":
        return "bool true" if t[1] else "bool false"
    if kind in ("int", "abstime"):
        return "%s %d" % (kind, t[1])
    if kind in ("real", "reltime"):
        return "%s %r" % (kind, float(t[1]))
    if kind == "str":
        data = t[1].encode("utf-8", "surrogateescape")
        if len(data) > LONG_STRING:
            return "str-digest %d %s" % (len(data), fnv1a64(data))
        return "str " + fmt_str(t[1])
    if kind == "list":
        if t[2] is None:
            return "list %d" % t[1]
        return "list %d [%s]" % (t[1], ", ".join(fmt(c) for c in t[2]))
    if kind == "ad":
        if t[2] is None:
            return "ad (%s)" % ", ".join(fmt_name(n) for n in t[1])
        return "ad {%s}" % ", ".join("%s: %s" % (fmt_name(n), fmt(t[2][n])) for n in t[1])
    raise ValueError("unexpected canonical value %r" % (t,))


def record(canon, mode, corpora, out_dir):
    os.environ["CLASSAD_ORACLE_MODE"] = mode
    service = canon.OracleService()
    try:
        for path in corpora:
            lines = read_lines(path)
            cases = [line for line in lines if is_case(line)]
            trees = [n.tree() for n in canon.canonicalize(canon.OracleSide(service), cases)]
            answers = iter(trees)
            name = os.path.basename(path)
            if name.endswith(".txt"):
                name = name[:-4]
            target = os.path.join(out_dir, "%s.%s" % (name, mode))
            with open(target, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as f:
                for line in lines:
                    if is_case(line):
                        f.write("%s %s\n" % (fnv1a32(line), fmt(next(answers))))
                    else:
                        f.write("\n")
            print("record_answers: %s (%s): %d cases" % (target, mode, len(cases)))
        if service.crashed:
            print("record_answers: the oracle crashed or hung on %d expressions (recorded as "
                  "oracle-exception, unjudged)" % len(service.crashed))
    finally:
        service.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=("htcondor", "strict", "both"), default="both")
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "corpus", "answers"))
    ap.add_argument("corpora", nargs="+")
    args = ap.parse_args()
    ensure_oracle()
    sys.path.insert(0, ORACLE_DIR)
    import canon
    os.makedirs(args.out, exist_ok=True)
    modes = ("htcondor", "strict") if args.mode == "both" else (args.mode,)
    for mode in modes:
        record(canon, mode, args.corpora, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
