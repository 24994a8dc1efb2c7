#!/usr/bin/env python3
"""Differential test in match context: expressions evaluated with a MY ad
and a TARGET ad, by HTCondor's ClassAd library and by `classad eval`.

    match_context_check.py [--mode htcondor|strict] FILE...
    match_context_check.py [--mode ...] --generate --seed S [--pairs N] [--exprs K]
    match_context_check.py [--mode ...] --matches --seed S [--machines M] [--jobs J]
    match_context_check.py [--mode ...] --matches --shapes realistic --seed S [--machines M] [--jobs J]

FILE (e.g. tests/corpus/match_context.txt) holds `MY: [ ... ]` and
`TARGET: [ ... ]` lines, each setting one ad of the current pair (one line,
new ClassAd syntax), and expressions, one a line, each evaluated with the
pair set by the lines above it; blank lines and `#` lines are ignored.

The oracle evaluates `classad2.ExprTree(E).eval(MY, TARGET)`: the bindings
make E's parent scope MY and, when TARGET is another ad, put both in a
`classad::MatchClassAd` for the evaluation (EvaluateLooseExpr in
src/python-bindings/classad2/exprtree.cpp), as the negotiator does. The
command under test is run once per pair (and per probe round) as
`CMD --file MY --target-file TARGET` (plus `--strict` in strict mode),
expressions on standard input. Values are reduced and compared by
canon.py of the shared oracle (lists and ads probed as `(E)[i]` and
`(E).name`, in the same pair), so the verdicts are difftest.py's.

--generate makes pairs from ../shared/workloads/gen_pool.py (job with
machine and machine with job) and from the ad literals `gen-exprs --library`
prints, and gives each pair K expressions: generated ones (they use MY.,
TARGET., my, target, parent, root), every attribute of either ad bare and
scoped, and a fixed list of match idioms. --matches compares whole pools:
classad2's symmetricMatch against `classad match --all-pairs`; with
`--shapes realistic` the pool is made by `classad demo --shapes realistic
--write` (every shape of a real pool, issue 26) instead of gen_pool.py,
both sides read its old-syntax files as written, and the ads and
attributes HTCondor's reader finds (`classad2.parseAds`) are checked
against `classad check` first.
--write-failures FILE writes the failing cases in the corpus format.

The last line is "N passed, M failed"; exit status 0 iff M == 0, 3 when
the oracle is not available (callers skip), 2 on bad usage. Stdlib only;
the oracle's python is found with setup.sh, as difftest.py does. The
shared directory is $CLASSAD_SHARED, else ../shared beside the repository.
"""

import argparse
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
NOT_AVAILABLE = 3


def shared_dir():
    env = os.environ.get("CLASSAD_SHARED")
    if env:
        return env
    for up in ("..", os.path.join("..", "..")):
        cand = os.path.normpath(os.path.join(REPO, up, "shared"))
        if os.path.isdir(os.path.join(cand, "oracle")):
            return cand
    return os.path.normpath(os.path.join(REPO, "..", "shared"))


ORACLE_DIR = os.path.join(shared_dir(), "oracle")


# --------------------------------------------------------------------------
# the oracle's side, in a worker process under the oracle's python

def worker_main():
    sys.path.insert(0, ORACLE_DIR)
    import canon
    oracle = canon.Oracle()
    classad2 = oracle.classad2
    ads = {}
    pair = [None, None]

    def load(path):
        if path not in ads:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                ads[path] = oracle.ClassAd(f.read())
        return ads[path]

    # A match as the negotiator decides it: IsAMatch (compat_classad.cpp)
    # calls MatchClassAd::symmetricMatch(), which evaluates the match ad's
    # attribute `symmetricMatch = RIGHT.requirements && LEFT.requirements`.
    # An unscoped `symmetricMatch` evaluated with MY = job and TARGET = slot
    # is that attribute (the ads do not define it). The binding's
    # ClassAd.symmetricMatch is not: it evaluates each Requirements tree
    # itself, not as an attribute, so a Requirements that refers to itself
    # unrolls once more there (`Requirements = isUndefined(Requirements)`
    # matches in the negotiator, not in the binding).
    symmetric_match = classad2.ExprTree("symmetricMatch")
    fallback_match = classad2.ExprTree("TARGET.Requirements && MY.Requirements")

    def negotiator_match(job, slot):
        defined = "symmetricMatch" in job or "symmetricMatch" in slot
        return (fallback_match if defined else symmetric_match).eval(job, slot) is True

    # Every evaluation and probe of canon.py runs in the current pair.
    oracle.eval_tree = lambda tree: tree.eval(pair[0], pair[1])
    oracle.simplify_repr = lambda tree: repr(tree.simplify(pair[0], pair[1]))
    out = sys.stdout
    for line in sys.stdin:
        req = json.loads(line)
        kind = req[0]
        try:
            if kind == "version":
                ans = oracle.version()
            elif kind == "eval":
                pair[0], pair[1] = load(req[1]), load(req[2])
                ans = canon.evaluate_text(oracle, req[3], req[4])
            elif kind == "ads":
                # one-line new-syntax texts of the ads in a text, any syntax
                try:
                    ans = [repr(ad) for ad in classad2.parseAds(req[1])]
                except Exception:
                    ans = []
            elif kind == "sizes":
                # the number of attributes of each ad of a file, as
                # HTCondor's reader reads it
                with open(req[1], encoding="utf-8") as f:
                    ans = [len(ad) for ad in classad2.parseAds(f.read())]
            elif kind == "match_files":
                # symmetricMatch over the ads of two files as read
                with open(req[1], encoding="utf-8") as f:
                    jobs = list(classad2.parseAds(f.read()))
                with open(req[2], encoding="utf-8") as f:
                    slots = list(classad2.parseAds(f.read()))
                ans = [["%s.%s" % (job.get("ClusterId"), job.get("ProcId")), slot.get("Name")]
                       for job in jobs for slot in slots if negotiator_match(job, slot)]
            elif kind == "match":
                jobs = [oracle.ClassAd(t) for t in req[1]]
                slots = [oracle.ClassAd(t) for t in req[2]]
                ans = [["%s.%s" % (job.get("ClusterId"), job.get("ProcId")), slot.get("Name")]
                       for job in jobs for slot in slots if negotiator_match(job, slot)]
            else:
                ans = None
        except Exception as exc:
            ans = ["oracle-exception", "%s: %s" % (type(exc).__name__, exc)]
        out.write(json.dumps(ans) + "\n")
        out.flush()


def oracle_python():
    setup = os.path.join(ORACLE_DIR, "setup.sh")
    if not os.path.exists(setup):
        return None
    try:
        out = subprocess.run(["sh", setup], stdout=subprocess.PIPE, check=True)
    except (subprocess.CalledProcessError, OSError):
        return None
    lines = out.stdout.decode().strip().splitlines()
    return lines[-1] if lines else None


class MatchOracle:
    def __init__(self, canon, python, mode):
        env = dict(os.environ, TZ="UTC", CLASSAD_ORACLE_MODE=mode)
        self.worker = canon.LineWorker([python, os.path.abspath(__file__), "--oracle-worker"],
                                       env=env, line_timeout=60.0)
        self.crashed = []

    def ask(self, reqs):
        return [None if a is None else json.loads(a)
                for a in self.worker.run([json.dumps(r) for r in reqs])]

    def close(self):
        self.worker.close()


class PairOracleSide:
    """canon.py's OracleSide for one pair."""

    def __init__(self, canon, oracle, my_path, target_path):
        self.canon, self.oracle = canon, oracle
        self.paths = (my_path, target_path)

    def heads(self, exprs):
        answers = self.oracle.ask([["eval", self.paths[0], self.paths[1], e, False]
                                   for e in exprs])
        out = []
        for e, a in zip(exprs, answers):
            if a is None:
                self.oracle.crashed.append(e)
                a = ["oracle-exception", "the oracle crashed or hung on this expression"]
            out.append((self.canon.PARSE_ERROR if a is None else a, None))
        return out


# --------------------------------------------------------------------------
# cases

def read_cases(paths):
    """[(where, my_text, target_text, expr)] from corpus files."""
    cases = []
    for path in paths:
        my = target = "[]"
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            for lineno, line in enumerate(f, 1):
                line = line.rstrip("\r\n")
                s = line.strip()
                if not s or s.startswith("#"):
                    continue
                if line.startswith("MY:"):
                    my = line[3:].strip()
                elif line.startswith("TARGET:"):
                    target = line[7:].strip()
                else:
                    cases.append(("%s:%d" % (os.path.basename(path), lineno), my, target, line))
    return cases


IDIOMS = [
    "target", "my", "parent", "root", "self", "TARGET", "MY", "parent.my", "parent.target",
    "Requirements", "MY.Requirements", "TARGET.Requirements", "Rank", "MY.Rank",
    "TARGET.Rank", "target.Requirements && my.Requirements",
    "TARGET.MY.Requirements", "MY.TARGET.Requirements", "root.Requirements",
    "unresolved(Requirements)", "unresolved(TARGET.Requirements)", "unresolved(Rank)",
    "evalInEachContext(Requirements, {MY, TARGET})", "eval(\"Requirements\")",
    "eval(\"TARGET.Requirements\")", "CurrentTime > 0", "time() - CurrentTime < 5",
    "ifThenElse(isUndefined(TARGET.Rank), 0, TARGET.Rank)", "size(TARGET)",
    "isUndefined(TARGET.NoSuchAttribute)", "NoSuchAttribute", "MY.NoSuchAttribute",
    "[x = TARGET].x", "[x = MY].x", "{ MY, TARGET }", "[a = Requirements].a",
    "[Requirements = 1; b = Requirements].b", "[TARGET = 1; b = TARGET].b",
    "[MY = 1; b = MY].b", "[b = parent].b", "[b = root].b", "[b = TARGET.Requirements].b",
]


def generate(args, oracle, work):
    rng = random.Random(args.seed)
    pool_dir = os.path.join(work, "pool")
    subprocess.run([sys.executable, os.path.join(shared_dir(), "workloads", "gen_pool.py"),
                    "--seed", str(args.seed), "--machines", str(args.machines),
                    "--jobs", str(args.jobs), "--out", pool_dir],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(pool_dir, "jobs.ads"), encoding="utf-8") as f:
        jobs_text = f.read()
    with open(os.path.join(pool_dir, "machines.ads"), encoding="utf-8") as f:
        machines_text = f.read()
    jobs, machines = oracle.ask([["ads", jobs_text], ["ads", machines_text]])
    gen = os.path.join(REPO, "target", "release", "gen-exprs")
    exprs = subprocess.run([gen, "--seed", str(args.seed), "--count", str(args.gen_count),
                            "--max-depth", "4", "--library"],
                           check=True, stdout=subprocess.PIPE).stdout.decode(
                               "utf-8", "surrogateescape").splitlines()
    exprs = [e for e in exprs if e.strip()]
    literals = [e for e in exprs if e.startswith("[") and e.endswith("]")][:400]
    small = [a[0] for a in oracle.ask([["ads", t] for t in literals]) if a and len(a) == 1]
    pairs = []
    for _ in range(args.pairs):
        r = rng.random()
        if r < 0.4 and jobs and machines:
            pairs.append((rng.choice(jobs), rng.choice(machines)))
        elif r < 0.6 and jobs and machines:
            pairs.append((rng.choice(machines), rng.choice(jobs)))
        elif r < 0.8 and small:
            pairs.append((rng.choice(small), rng.choice(small)))
        elif small and jobs and machines:
            big = rng.choice(jobs + machines)
            pairs.append((big, rng.choice(small)) if rng.random() < 0.5
                         else (rng.choice(small), big))
    names = {}
    for text in set(t for p in pairs for t in p):
        names[text] = []
    # attribute names: ask the oracle for keys through a probe-free parse
    for text in names:
        names[text] = attribute_names(text)
    cases = []
    for i, (my, target) in enumerate(pairs):
        own = names[my] + names[target]
        chosen = rng.sample(exprs, min(len(exprs), args.exprs // 2))
        chosen += rng.sample(IDIOMS, min(len(IDIOMS), args.exprs // 6))
        for n in rng.sample(own, min(len(own), args.exprs - len(chosen))):
            chosen.append(rng.choice([n, "MY." + n, "TARGET." + n, "target." + n,
                                      "my." + n, "parent.target." + n]))
        for e in chosen:
            cases.append(("pair %d" % i, my, target, e))
    return cases


def attribute_names(text):
    """Top-level attribute names of a one-line ad as the oracle prints it
    (`[ a = ...; b = ... ]`): names are read at nesting depth 1."""
    names, depth, i, start = [], 0, 0, True
    quote = None
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            if depth == 1 and start and c == "'":
                j = text.index("'", i + 1)
                while text[j - 1] == "\\":
                    j = text.index("'", j + 1)
                names.append(text[i:j + 1])
                start = False
                i = j
            else:
                quote = c
        elif c in "[{(":
            depth += 1
            start = depth == 1
        elif c in "]})":
            depth -= 1
        elif c == ";" and depth == 1:
            start = True
        elif depth == 1 and start and (c.isalpha() or c == "_"):
            j = i
            while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                j += 1
            names.append(text[i:j])
            start = False
            i = j - 1
        elif depth == 1 and start and not c.isspace():
            start = False
        i += 1
    return names


# --------------------------------------------------------------------------
# running

def run_cases(args, canon, oracle, reader, cases, work):
    paths = {}

    # One file per side and text: the same ad text on both sides must
    # still be two ads (the bindings skip the match for one ad twice).
    def path_of(role, text):
        if (role, text) not in paths:
            p = os.path.join(work, "%s%d.ad" % (role, len(paths)))
            with open(p, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text + "\n")
            paths[(role, text)] = p
        return paths[(role, text)]

    groups = {}
    for case in cases:
        groups.setdefault((case[1], case[2]), []).append(case)
    base = shlex.split(args.cmd) + (["--strict"] if args.mode == "strict" else [])
    passed = failed = shown = 0
    failures = []
    notes = []
    t0 = time.monotonic()
    for (my, target), group in groups.items():
        mp, tp = path_of("my", my), path_of("target", target)
        exprs = [c[3] for c in group]
        want = canon.canonicalize(PairOracleSide(canon, oracle, mp, tp), exprs, args.depth)
        side = canon.CommandSide(reader, base + ["--file", mp, "--target-file", tp])
        try:
            got = canon.canonicalize(side, exprs, args.depth)
        except canon.CommandError as exc:
            notes.append(str(exc))
            failed += len(exprs)
            continue
        notes.extend(side.notes[:1])
        for case, w, g in zip(group, want, got):
            wt, gt = w.tree(), g.tree()
            if canon.equal(wt, gt):
                passed += 1
                continue
            failed += 1
            failures.append(case)
            if shown < args.max_show:
                shown += 1
                print("MISMATCH %s: %s" % (case[0], case[3]))
                if len(my) + len(target) < 600:
                    print("  MY: %s\n  TARGET: %s" % (my, target))
                print("  oracle: %s" % canon.show(wt))
                print("  tested: %s" % canon.show(gt))
                print("  printed: %s" % (g.raw if g.raw is not None else "<nothing>"))
    for note in notes[:5]:
        print("note: %s" % note)
    for crashed in oracle.crashed[:5]:
        print("note: the oracle crashed or hung on: %s" % crashed)
    if failed > shown:
        print("(%d more mismatches not shown; use --max-show)" % (failed - shown))
    print("%d pairs, %.1f s" % (len(groups), time.monotonic() - t0))
    if args.write_failures:
        with open(args.write_failures, "w", encoding="utf-8", errors="surrogateescape") as f:
            last = None
            for _, my, target, e in failures:
                if (my, target) != last:
                    f.write("MY: %s\nTARGET: %s\n" % (my, target))
                    last = (my, target)
                f.write(e + "\n")
    return passed, failed


def realistic_pool(args, work):
    """The realistic pool `classad demo` writes: (jobs file, slots file)."""
    pool_dir = os.path.join(work, "pool")
    subprocess.run([args.classad, "demo", "--shapes", "realistic", "--seed", str(args.seed),
                    "--jobs", str(args.jobs), "--slots", str(args.machines), "--threads", "1",
                    "--write", pool_dir],
                   check=True, stdout=subprocess.DEVNULL)
    return os.path.join(pool_dir, "jobs.ads"), os.path.join(pool_dir, "slots.ads")


def check_reading(args, oracle, files):
    """Failures: files whose ads or attributes HTCondor's reader and
    `classad check` count differently."""
    failed = 0
    for path in files:
        sizes = oracle.ask([["sizes", path]])[0]
        out = subprocess.run([args.classad, "check", "--json", path],
                             stdout=subprocess.PIPE, check=False)
        ours = json.loads(out.stdout.decode())["files"][0]
        theirs = (len(sizes), sum(sizes), 0, 0)
        got = (ours["ads"], ours["attributes"], ours["bad_ads"], ours["partial_ads"])
        if got != theirs:
            failed += 1
            print("READ %s: HTCondor reads %d ads, %d attributes; classad check %d ads, "
                  "%d attributes, %d bad, %d partial" % ((os.path.basename(path),) + theirs[:2] + got))
    return failed


def run_realistic_matches(args, oracle, work):
    """The negotiator's match against `classad match --all-pairs` on the
    realistic pool's own files."""
    jobs_file, slots_file = realistic_pool(args, work)
    failed = check_reading(args, oracle, (jobs_file, slots_file))
    want = set((j, s) for j, s in oracle.ask([["match_files", jobs_file, slots_file]])[0])
    cmd = [args.classad, "match", "--all-pairs", "--json", "--jobs", jobs_file,
           "--slots", slots_file]
    if args.mode == "strict":
        cmd.append("--strict")
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    got = set((p["job"], p["slot"]) for p in json.loads(out.stdout.decode())["pairs"])
    missing, extra = sorted(want - got), sorted(got - want)
    for j, s in (missing + extra)[:args.max_show]:
        print("MATCH %s: job %s slot %s" % ("missing" if (j, s) in want else "extra", j, s))
    print("%d jobs x %d slots (realistic shapes, seed %d): oracle %d matches, tested %d"
          % (args.jobs, args.machines, args.seed, len(want), len(got)))
    if len(want) < 1:
        print("note: no pair matches in the oracle")
    failed += len(missing) + len(extra)
    return args.jobs * args.machines - failed, failed


def run_matches(args, oracle, work):
    """The negotiator's match against `classad match --all-pairs`."""
    if args.shapes == "realistic":
        return run_realistic_matches(args, oracle, work)
    pool_dir = os.path.join(work, "pool")
    subprocess.run([sys.executable, os.path.join(shared_dir(), "workloads", "gen_pool.py"),
                    "--seed", str(args.seed), "--machines", str(args.machines),
                    "--jobs", str(args.jobs), "--out", pool_dir],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    texts = []
    for name in ("jobs.ads", "machines.ads"):
        with open(os.path.join(pool_dir, name), encoding="utf-8") as f:
            texts.append(f.read())
    jobs, slots = oracle.ask([["ads", texts[0]], ["ads", texts[1]]])
    want = oracle.ask([["match", jobs, slots]])[0]
    want = set((j, s) for j, s in want)
    if len(want) < 1:
        print("note: no pair matches in the oracle")
    for name, ads in (("jobs.new", jobs), ("slots.new", slots)):
        with open(os.path.join(work, name), "w", encoding="utf-8") as f:
            f.write("\n".join(ads) + "\n")
    cmd = [args.classad, "match", "--all-pairs",
           "--json", "--jobs", os.path.join(work, "jobs.new"),
           "--slots", os.path.join(work, "slots.new")]
    if args.mode == "strict":
        cmd.append("--strict")
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    got = set()
    for p in json.loads(out.stdout.decode())["pairs"]:
        got.add((p["job"], p["slot"]))
    missing, extra = sorted(want - got), sorted(got - want)
    for j, s in (missing + extra)[:args.max_show]:
        print("MATCH %s: job %s slot %s" % ("missing" if (j, s) in want else "extra", j, s))
    total = len(jobs) * len(slots)
    failed = len(missing) + len(extra)
    print("%d jobs x %d slots: oracle %d matches, tested %d" % (len(jobs), len(slots),
                                                                 len(want), len(got)))
    return total - failed, failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--mode", choices=("htcondor", "strict"), default="htcondor")
    ap.add_argument("--cmd", default=os.path.join(REPO, "target", "release", "classad")
                    + " eval --quiet --batch",
                    help="command under test; --file, --target-file (and --strict) are added")
    ap.add_argument("--classad", default=os.path.join(REPO, "target", "release", "classad"),
                    help="the classad binary --matches runs")
    ap.add_argument("--shapes", choices=("gen_pool", "realistic"), default="gen_pool",
                    help="--matches: the pool of gen_pool.py or of classad demo --shapes realistic")
    ap.add_argument("--generate", action="store_true")
    ap.add_argument("--matches", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--exprs", type=int, default=100, help="expressions per generated pair")
    ap.add_argument("--gen-count", type=int, default=3000)
    ap.add_argument("--machines", type=int, default=60)
    ap.add_argument("--jobs", type=int, default=60)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--max-show", type=int, default=20)
    ap.add_argument("--write-failures", metavar="FILE")
    args = ap.parse_args()
    if not args.files and not args.generate and not args.matches:
        ap.error("give FILE..., --generate or --matches")

    python = oracle_python()
    if python is None or not os.path.exists(os.path.join(ORACLE_DIR, "canon.py")):
        print("match_context_check: the oracle is not available (%s)" % ORACLE_DIR)
        return NOT_AVAILABLE
    sys.path.insert(0, ORACLE_DIR)
    import canon
    os.environ["CLASSAD_ORACLE_MODE"] = args.mode
    oracle = MatchOracle(canon, python, args.mode)
    reader = canon.OracleService(python)   # reads what the command prints
    with tempfile.TemporaryDirectory(prefix="classad-match-context-") as work:
        if args.matches:
            passed, failed = run_matches(args, oracle, work)
        else:
            cases = read_cases(args.files) if args.files else []
            if args.generate:
                cases += generate(args, oracle, work)
            passed, failed = run_cases(args, canon, oracle, reader, cases, work)
    print("oracle %s, mode %s" % (oracle.ask([["version"]])[0], args.mode))
    oracle.close()
    reader.close()
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--oracle-worker"]:
        worker_main()
    else:
        sys.exit(main())
