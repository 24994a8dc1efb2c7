"""classad_rs beside HTCondor's classad2, in one run, on gen_pool.py's pool.

    python crates/python/bench/compare.py --pool DIR [--classad2-python PATH]

DIR holds machines.ads and jobs.ads (python3 ../shared/workloads/gen_pool.py
--out DIR: the default pool, 2000 slots and 2000 jobs). This interpreter
must import classad_rs; classad2 is run by --classad2-python (default: this
interpreter if it imports classad2, else the oracle's venv), in a child
process, on the same files, one measurement after the other.

Three figures, each the best of --repeat runs (CPU seconds of the process):
  parseAds      list(parseAds(text)) of both files, read into strings first
                (classad_rs.readAds of the files too)
  symmetricMatch a Python loop over the first 300 jobs x the first 300 slots
  all pairs     classad_rs.match(jobs, slots, all_pairs=True) on the whole
                pool, per pair, against classad2's loop per pair
The match counts of the two modules are printed and must agree.
"""

import argparse
import json
import os
import subprocess
import sys
import time

LOOP = 300


def best(fn, repeat):
    """The least CPU time (of this process, all its threads) of `repeat`
    runs of fn(), and its last result. CPU time, not wall-clock: on a
    machine shared with other work the wall clock measures the others too.
    Threads add their CPU time, so a parallel run is not flattered."""
    times = []
    result = None
    for _ in range(repeat):
        start = time.process_time()
        result = fn()
        times.append(time.process_time() - start)
    return min(times), result


def measure(module_name, pool, repeat):
    """The figures of one module, as a dict."""
    ca = __import__(module_name)
    texts = {}
    for name in ("jobs", "machines"):
        with open(os.path.join(pool, name + ".ads")) as f:
            texts[name] = f.read()
    out = {}

    def parse_both():
        return {name: list(ca.parseAds(text)) for name, text in texts.items()}

    out["parse_seconds"], ads = best(parse_both, repeat)

    def parse_and_use():
        # classad_rs parses an old-syntax ad's lines when it is first used
        # (its first line at once): len() makes it parse them all.
        return sum(len(ad) for text in texts.values() for ad in ca.parseAds(text))

    out["parse_use_seconds"], out["attributes"] = best(parse_and_use, repeat)
    out["ads"] = {name: len(v) for name, v in ads.items()}
    if hasattr(ca, "readAds"):
        out["read_ads_seconds"], _ = best(
            lambda: [ca.readAds(os.path.join(pool, n + ".ads")) for n in ("jobs", "machines")], repeat
        )
    jobs = ads["jobs"][:LOOP]
    slots = ads["machines"][:LOOP]

    def loop():
        matches = 0
        for job in jobs:
            for slot in slots:
                if job.symmetricMatch(slot):
                    matches += 1
        return matches

    out["loop_seconds"], out["loop_matches"] = best(loop, repeat)
    out["loop_pairs"] = len(jobs) * len(slots)
    if hasattr(ca, "match"):
        all_jobs, all_slots = ads["jobs"], ads["machines"]
        # The first call compiles the ads (each keeps its compiled form).
        ca.match(all_jobs[:1], all_slots, all_pairs=True)
        ca.match(all_jobs, all_slots[:1], all_pairs=True)
        out["all_pairs_seconds"], pairs = best(lambda: ca.match(all_jobs, all_slots, all_pairs=True), repeat)
        out["all_pairs_matches"] = len(pairs)
        out["all_pairs_pairs"] = len(all_jobs) * len(all_slots)
        first = set(range(LOOP))
        out["all_pairs_matches_in_loop"] = sum(1 for j, s in pairs if j in first and s in first)
    return out


def oracle_python(given):
    if given:
        return given
    try:
        import classad2  # noqa: F401

        return sys.executable
    except ImportError:
        return os.path.expanduser("~/.cache/classad-oracle-venv/bin/python")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pool", required=True)
    parser.add_argument("--classad2-python")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.pool, args.repeat)))
        return
    theirs = json.loads(
        subprocess.run(
            [oracle_python(args.classad2_python), os.path.abspath(__file__), "--pool", args.pool,
             "--repeat", str(args.repeat), "--child", "classad2"],
            check=True, capture_output=True, text=True,
        ).stdout
    )
    ours = measure("classad_rs", args.pool, args.repeat)
    assert ours["ads"] == theirs["ads"], (ours["ads"], theirs["ads"])
    assert ours["attributes"] == theirs["attributes"], (ours["attributes"], theirs["attributes"])
    assert ours["loop_matches"] == theirs["loop_matches"], (ours["loop_matches"], theirs["loop_matches"])
    assert ours["all_pairs_matches_in_loop"] == theirs["loop_matches"]
    per_pair_theirs = theirs["loop_seconds"] / theirs["loop_pairs"]
    per_pair_ours = ours["all_pairs_seconds"] / ours["all_pairs_pairs"]
    rows = [
        ("parseAds, both files (%d + %d ads)" % (ours["ads"]["jobs"], ours["ads"]["machines"]),
         theirs["parse_seconds"], ours["parse_seconds"]),
        ("parseAds, then len() of every ad (%d attributes)" % ours["attributes"],
         theirs["parse_use_seconds"], ours["parse_use_seconds"]),
        ("readAds of the files (classad2: parseAds)", theirs["parse_seconds"], ours["read_ads_seconds"]),
        ("symmetricMatch loop, %d x %d (%d matches)" % (LOOP, LOOP, ours["loop_matches"]),
         theirs["loop_seconds"], ours["loop_seconds"]),
        ("per pair: classad2 loop vs match(all_pairs=True), %d pairs (%d matches)"
         % (ours["all_pairs_pairs"], ours["all_pairs_matches"]), per_pair_theirs, per_pair_ours),
    ]
    print("| operation | classad2 | classad_rs | speed-up |")
    print("| --- | ---: | ---: | ---: |")
    for label, a, b in rows:
        unit, scale = ("µs", 1e6) if a < 1e-3 else ("s", 1)
        print("| %s | %.3g %s | %.3g %s | %.0f× |" % (label, a * scale, unit, b * scale, unit, a / b))


if __name__ == "__main__":
    main()
