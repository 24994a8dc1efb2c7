#!/usr/bin/env python3
"""Compare `classad config` with HTCondor's own configuration reader.

For each corpus file (default: every *.conf beside this script) the
names it defines (and those named on `# check:` lines) are looked up
twice: with our command (`classad config -allow-commands -json -f FILE
NAME...`) and with HTCondor 25's reader through the oracle's Python
(`htcondor2.param` with `CONDOR_CONFIG=FILE`). Both run in this
directory, with the `_CONDOR_` variables of the environment removed.

Directives, on comment lines of a corpus file:
  # check: NAME...     also compare these names (defined elsewhere)
  # nocheck: NAME...   do not compare these names
  # env: NAME=VALUE    set an environment variable for both readers
  # subsystem: NAME    read as this subsystem (default TOOL)
  # expect: error      HTCondor refuses this file; we must report an error
  # known: REASON      a known difference: counted apart, not in M

With a subsystem, the oracle reads the file first as TOOL (at import),
then again as the subsystem: a file must be valid both ways.

HTCondor's `param` answers typed values for the names its parameter
table types (int, bool, double): ours is then evaluated as a ClassAd
expression with the oracle's classad2 and compared as that type. An
empty value and an undefined one are the same to `param` (KeyError).

`--generated N` adds N random files from gen.py (seed `--seed`).

Prints one line per difference, then `N agree, M differ`; exit status 0
iff M = 0. Usage: check.py [--cmd CMD] [--oracle-python PY] [FILE...]
"""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

ORACLE_SCRIPT = r'''
import json, os, sys
import classad2
import htcondor2 as h
sub = os.environ.get("CHECK_SUBSYSTEM")
if sub:
    h.set_subsystem(sub)
    h.reload_config()
names = json.loads(sys.argv[1])
ours = json.loads(sys.stdin.read())
out = {}
for name in names:
    try:
        v = h.param[name]
    except KeyError:
        out[name] = {"kind": "undefined"}
        continue
    except Exception as e:
        out[name] = {"kind": "exception", "text": str(e)}
        continue
    mine = ours.get(name)
    mine_text = mine if isinstance(mine, str) else None
    if isinstance(v, bool) or isinstance(v, int) or isinstance(v, float):
        # Typed: evaluate ours the way param would.
        same = False
        if mine_text is not None:
            try:
                val = classad2.ExprTree(mine_text).eval()
                if isinstance(v, bool):
                    same = isinstance(val, bool) and val == v
                elif isinstance(v, int):
                    same = (not isinstance(val, bool)) and isinstance(val, (int, float)) and int(val) == v
                else:
                    same = isinstance(val, (int, float)) and not isinstance(val, bool) and float(val) == v
            except Exception:
                same = False
        out[name] = {"kind": "typed", "text": repr(v), "same": same}
    else:
        out[name] = {"kind": "string", "text": v}
print("RESULT " + json.dumps(out))
'''


def oracle_python(explicit):
    if explicit:
        return explicit
    setup = os.environ.get("CLASSAD_ORACLE_SETUP")
    if not setup:
        d = HERE
        while True:
            cand = os.path.join(d, "shared", "oracle", "setup.sh")
            if os.path.exists(cand):
                setup = cand
                break
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    if not setup:
        return None
    try:
        out = subprocess.run(["sh", setup], capture_output=True, text=True, timeout=900)
    except Exception:
        return None
    py = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
    return py if out.returncode == 0 and py else None


DEF_RE = re.compile(r"^\s*([A-Za-z0-9_./]+)\s*(@=|=)")


def directives(text):
    d = {"check": [], "nocheck": [], "env": {}, "subsystem": None, "expect": None, "known": None}
    for line in text.splitlines():
        m = re.match(r"^\s*#\s*(check|nocheck|env|subsystem|expect|known):\s*(.*)$", line)
        if not m:
            continue
        key, rest = m.group(1), m.group(2).strip()
        if key in ("check", "nocheck"):
            d[key].extend(rest.split())
        elif key == "env":
            k, _, v = rest.partition("=")
            d["env"][k.strip()] = v
        else:
            d[key] = rest
    return d


def defined_names(text):
    names = []
    tag = None
    for line in text.splitlines():
        s = line.strip()
        if tag is not None:
            if s == "@" + tag:
                tag = None
            continue
        if s.startswith("#"):
            continue
        m = DEF_RE.match(line)
        if not m:
            continue
        name = m.group(1)
        if name.lower() in ("include", "error", "warning", "use", "if", "elif", "else", "endif"):
            continue
        if m.group(2) == "@=":
            tag = line.split("@=", 1)[1].strip()
        if "$" not in name:
            names.append(name)
    return names


def clean_env(extra):
    env = {k: v for k, v in os.environ.items() if not k.lower().startswith("_condor_")}
    env.update(extra)
    return env


def check_file(path, cmd, py, show):
    text = open(path, encoding="utf-8", errors="replace").read()
    d = directives(text)
    seen, names = set(), []
    for n in defined_names(text) + d["check"]:
        if n.lower() not in seen and n not in d["nocheck"]:
            seen.add(n.lower())
            names.append(n)
    rel = os.path.relpath(path, HERE)
    env = clean_env(d["env"])
    ours_cmd = shlex.split(cmd) + ["-allow-commands", "-json", "-f", rel]
    if d["subsystem"]:
        ours_cmd += ["-subsystem", d["subsystem"]]
    ours_run = subprocess.run(ours_cmd + names, capture_output=True, text=True, cwd=HERE,
                              env=env, timeout=60)
    try:
        ours = json.loads(ours_run.stdout) if ours_run.stdout.strip() else {}
    except ValueError:
        ours = {}
    ours_failed = ours_run.returncode != 0 or any(isinstance(v, dict) for v in ours.values())
    # htcondor2.param answers KeyError for a name defined only with a
    # prefix (MASTER.X), whatever the subsystem: such names cannot be
    # compared through it (they are, through macros that use them).
    dump_cmd = shlex.split(cmd) + ["-allow-commands", "-json", "-raw", "-dump", "-f", rel]
    dump_run = subprocess.run(dump_cmd, capture_output=True, text=True, cwd=HERE, env=env,
                              timeout=60)
    try:
        exact = {k.lower() for k in json.loads(dump_run.stdout)}
    except ValueError:
        exact = None
    oenv = dict(env)
    oenv["CONDOR_CONFIG"] = rel
    if d["subsystem"]:
        oenv["CHECK_SUBSYSTEM"] = d["subsystem"]
    try:
        orun = subprocess.run([py, "-c", ORACLE_SCRIPT, json.dumps(names)], input=json.dumps(ours),
                              capture_output=True, text=True, cwd=HERE, env=oenv, timeout=30)
        oracle_out = orun.stdout
        hung = False
    except subprocess.TimeoutExpired:
        oracle_out, hung = "", True
    result = None
    for line in oracle_out.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[7:])
    agree, differ = 0, 0
    if result is None:
        # HTCondor refused the file (or hung on it): we must report an error.
        what = "hung" if hung else "refused the configuration"
        if ours_failed:
            agree += 1
        else:
            differ += 1
            show(f"{rel}: HTCondor {what}, we reported no error")
        return agree, differ
    if d["expect"] == "error":
        differ += 1
        show(f"{rel}: marked `expect: error` but HTCondor accepted it")
    elif ours_failed:
        differ += 1
        show(f"{rel}: HTCondor accepted the file, we reported an error: "
             + ours_run.stderr.strip().splitlines()[0] if ours_run.stderr.strip() else "")
    for name in names:
        o = result.get(name, {"kind": "missing"})
        mine = ours.get(name)
        if isinstance(mine, dict):
            mine = None  # an expansion error: nothing, like KeyError
        if o["kind"] == "undefined" and exact is not None and name.lower() not in exact:
            continue
        if o["kind"] == "undefined":
            ok = mine is None or mine == ""
        elif o["kind"] == "string":
            ok = mine == o["text"]
        elif o["kind"] == "typed":
            ok = o["same"]
        else:
            ok = False
        if ok:
            agree += 1
        else:
            differ += 1
            show(f"{rel}: {name}: HTCondor {o.get('text', o['kind'])!r}, ours {mine!r}")
    return agree, differ


def check_one(path, cmd, py):
    lines = []
    a, m = check_file(path, cmd, py, lines.append)
    text = open(path, encoding="utf-8", errors="replace").read()
    known = directives(text)["known"]
    return path, a, m, lines, known


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmd", default=os.path.join(HERE, "..", "..", "target", "release", "classad") + " config")
    ap.add_argument("--oracle-python")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--generated", type=int, default=0,
                    help="also check this many random files from gen.py")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    py = oracle_python(args.oracle_python)
    if not py:
        print("skipped: the oracle (shared/oracle/setup.sh) is not available")
        return 0
    files = args.files or sorted(
        os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".conf"))
    if args.generated:
        import tempfile
        gen_dir = tempfile.mkdtemp(prefix="classad-config-gen-")
        subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), gen_dir,
                        str(args.generated), str(args.seed)], check=True)
        files += sorted(os.path.join(gen_dir, f) for f in os.listdir(gen_dir))
    from concurrent.futures import ThreadPoolExecutor
    total_agree, total_differ, total_known = 0, 0, 0
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda f: check_one(os.path.abspath(f), args.cmd, py), files))
    for path, a, m, lines, known in results:
        total_agree += a
        if known and m:
            total_known += m
            for line in lines:
                print(f"known ({known}): {line}")
        else:
            total_differ += m
            for line in lines:
                print(line)
    print(f"{total_agree} agree, {total_differ} differ ({total_known} known differences)")
    return 0 if total_differ == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
