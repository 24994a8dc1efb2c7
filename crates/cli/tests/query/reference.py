"""`classad query`'s filtering and projection, rebuilt over HTCondor's classad2.

condor_q and condor_status are not in the pip package, so this is an
independent reading of what they do with ad files (`-jobads`, `-ads`), from
HTCondor's source: the constraint is evaluated with the ad as MY and no
TARGET and the ad kept when the value is true or a nonzero number
(EvalExprBool under old-ClassAd semantics); each `-af` argument is the ad's
attribute of that name, or else an expression, evaluated against the ad and
printed as `%v` (a string as it is, anything else as the old-syntax unparse
of the value), `%V` (strings quoted too) or `%r` (the expression
unevaluated, "undefined" for a reference to a missing attribute); columns
are separated by a space, a newline after each row
(AttrListPrintMask::display).

With MODE `format:FMT` and one ARG, the column is `-format FMT ARG`
instead: the value converted as AttrListPrintMask::render does (a number
for %d and %f, a real truncated, a boolean 1 or 0; a string for %s, or
the unparsed expression of an attribute that is not one) and printed with
printf (Python's `%` operator, C's rules for these conversions); a value
of the wrong type prints nothing.

Usage: python reference.py FILE MODE CONSTRAINT ARG...
  MODE is v, V, r or format:FMT; CONSTRAINT is "" for none.
"""

import re
import sys

import classad2 as classad

# As the tools: HTCondor's functions registered, old-ClassAd semantics.
import htcondor2  # noqa: F401


def old_unparse(value):
    ad = classad.ClassAd()
    ad["x"] = value
    text = ad.printOld()
    assert text.startswith("x = "), text
    return text[len("x = "):].rstrip("\n")


def keep(ad, constraint):
    if not constraint:
        return True
    value = classad.ExprTree(constraint).eval(ad)
    # Undefined and Error are classad2.Value, an IntEnum: not numbers here.
    if isinstance(value, classad.Value):
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    return False


REFERENCE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def is_reference(text):
    # A bare attribute name or a selection: what HTCondor calls ATTRREF.
    text = str(classad.ExprTree(text))
    return bool(REFERENCE.match(text)) and text.lower() not in (
        "true", "false", "undefined", "error")


def column(ad, arg, mode):
    found = arg.lower() in (k.lower() for k in ad.keys())
    if mode == "r":
        if found:
            tree = ad.lookup(arg)
            text = str(tree)
            if is_reference(text):
                return "undefined"
            return old_unparse(tree)
        if is_reference(arg):
            return "undefined"
        return old_unparse(classad.ExprTree(arg))
    value = ad.eval(arg) if found else classad.ExprTree(arg).eval(ad)
    if isinstance(value, str) and mode == "v":
        return value
    return old_unparse(value)


def formatted(ad, fmt, arg):
    letter = re.search(r"%[-+ #0]*[0-9]*(?:\.[0-9]+)?([a-zA-Z])", fmt).group(1)
    found = arg.lower() in (k.lower() for k in ad.keys())
    value = ad.eval(arg) if found else classad.ExprTree(arg).eval(ad)
    if letter == "s":
        if isinstance(value, str):
            return fmt % value
        if found:
            return fmt % old_unparse(ad.lookup(arg))
        return ""
    if isinstance(value, classad.Value) or not isinstance(value, (bool, int, float)):
        return ""
    if letter in "dixXou":
        return fmt % int(value)
    return fmt % float(value)


def main(path, mode, constraint, args):
    if mode.startswith("format:"):
        with open(path) as f:
            ads = list(classad.parseAds(f.read(), classad.ParserType.Old))
        fmt = mode[len("format:"):]
        sys.stdout.write("".join(
            formatted(ad, fmt, args[0]) for ad in ads if keep(ad, constraint)))
        return
    with open(path) as f:
        ads = list(classad.parseAds(f.read(), classad.ParserType.Old))
    out = []
    for ad in ads:
        if keep(ad, constraint):
            out.append(" ".join(column(ad, a, mode) for a in args) + "\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
