"""classad_eval's behaviour, rebuilt over HTCondor's classad2.

HTCondor 25 ships classad_eval as a small Python program over classad2
(src/condor_scripts/classad_eval in HTCondor's repository) that the pip
package lacks; this follows that program (its `updated` flag: set by ad
and assignment arguments only, not by -file; the context printed before
an argument is tried as an expression; its message for an argument that
is neither) and its man page (docs/man-pages/classad_eval.rst), and is
the oracle of tests/it/classad_eval.rs.

Usage: python reference.py ARG...   (the arguments of one invocation)
Prints what classad_eval prints on standard output; exit status 0, or 1
when an argument is neither an ad nor an expression.
"""

import sys

import classad2 as classad

# classad_eval imports htcondor2, and so does this: loading HTCondor's
# configuration switches the library to old-ClassAd semantics (CurrentTime
# defined, unscoped names falling back to TARGET), which changes answers.
import htcondor2  # noqa: F401


def make_ad(text, from_file=False):
    # condor_q -long:new: `{` alone on the first line, `}` on the last.
    if from_file and text.startswith("{\n") and text.endswith("\n}\n"):
        text = text[2:]
    try:
        return classad.ClassAd(text)
    except classad.ClassAdException:
        return classad.ClassAd("[" + text + "]")


def main(args):
    context = classad.ClassAd()
    target = None
    quiet = False
    changed = True
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-quiet":
            quiet = True
        elif arg in ("-file", "-my-file", "-ad-file", "-target-file"):
            i += 1
            with open(args[i]) as f:
                ad = make_ad(f.read(), from_file=True)
            if arg == "-target-file":
                target = ad
            else:
                # classad_eval does not set `updated` here.
                context = ad
        else:
            try:
                context.update(make_ad(arg))
                changed = True
            except classad.ClassAdException:
                if changed:
                    changed = False
                    if not quiet:
                        print(repr(context))
                try:
                    expr = classad.ExprTree(arg)
                except classad.ClassAdException:
                    sys.stdout.flush()
                    print(
                        "Unable to turn '" + arg + "' into a ClassAd or an expression.",
                        file=sys.stderr,
                    )
                    return 1
                print(repr(expr.simplify(context, target)))
        i += 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
