#!/usr/bin/env python3
"""Random configuration files for check.py: definitions with macro
references (acyclic, self references allowed), defaults, function macros,
continuations, comments, conditionals and multi-line values.

  gen.py DIR N [SEED]   writes DIR/gen_0000.conf ... (then run check.py DIR/*.conf)
  gen.py DIR N -SEED    random token soup instead (mostly refused by HTCondor)
"""

import os
import random
import sys

NAMES = [f"N{i}" for i in range(12)] + ["Mixed_Case", "dot.ted", "sl/ash"]
WORDS = ["a", "b c", "1", "42", "-3", "2.5", "true", "no", "x,y,z", "/p/q/r.s", "", " sp "]


def ref(rng, i):
    """A reference to a name that comes earlier (or itself, or none)."""
    choice = rng.random()
    if choice < 0.15:
        return "$(UNDEF%d)" % rng.randrange(3)
    if i == 0 or choice < 0.25:
        return "$(%s)" % NAMES[i]
    name = NAMES[rng.randrange(i)]
    if rng.random() < 0.2:
        name = name.lower() if rng.random() < 0.5 else name.upper()
    if rng.random() < 0.25:
        return "$(%s:%s)" % (name, rng.choice(["d", "d e", "1,2", "$(N0)", "(p)"]))
    return "$(%s)" % name


def func(rng, i):
    target = NAMES[rng.randrange(max(i, 1))]
    return rng.choice([
        "$INT(%s)" % rng.choice(["2+3", "7/2", "2.9", "true", target, "x"]),
        "$INT(%s, %s)" % (rng.choice(["5", "-12", target]), rng.choice(["%03d", "%x", "[%d]", "%s", "%d%d"])),
        "$REAL(%s)" % rng.choice(["1/3", "1.0/3", "2.5e3", "1e20", target, "0.1"]),
        "$REAL(%s, %s)" % (rng.choice(["2.5", "3", target]), rng.choice(["%.2f", "%e", "%g", "%5.1f", "%d"])),
        "$SUBSTR(%s, %d%s)" % (target, rng.randrange(-4, 5), rng.choice(["", ", 2", ", -1", ", 0"])),
        "$CHOICE(%d, %s)" % (rng.randrange(-1, 4), rng.choice(["a,b,c", "LISTX", " x , y "])),
        "$F%s(%s)" % ("".join(rng.sample("pdnxbqauw", rng.randrange(1, 4))),
                     rng.choice(["/a/b/c.txt", "file.tar.gz", target, "dir/", "\"/q/x.y\""])),
        "$BASENAME(%s)" % rng.choice(["/a/b/c.txt", target]),
        "$DIRNAME(%s)" % rng.choice(["/a/b/c.txt", target]),
        "$ENV(%s)" % rng.choice(["HOME", "NO_SUCH_VAR:dflt", "NO_SUCH_VAR"]),
        "$STRING(%s)" % target,
        "$EVAL(%s)" % rng.choice(["1+2", "\"s\"", target, "{1,2}"]),
        "$(DOLLAR)",
    ])


def value(rng, i):
    parts = []
    for _ in range(rng.randrange(1, 4)):
        r = rng.random()
        if r < 0.4:
            parts.append(rng.choice(WORDS))
        elif r < 0.75:
            parts.append(ref(rng, i))
        else:
            parts.append(func(rng, i))
    return rng.choice([" ", "", "-", ","]).join(parts)


def condition(rng, macros=True):
    if not macros:
        return rng.choice(["true", "no", "1", "defined N0", "! defined N1", "version >= 8.1.6"])
    return rng.choice([
        "true", "false", "yes", "no", "1", "0", "defined N0", "defined UNDEF1", "! defined N1",
        "version >= 8.1.6", "version < 9.0", "version == 25.14", "$(N0)", "$(UNDEF2)", "! $(N1)",
        "defined 12", "TRUE", "2.5",
    ])


def generate(rng, macros=True):
    lines = ["LISTX = p, q, r, s"]
    depth = 0
    for i, name in enumerate(NAMES):
        for _ in range(rng.randrange(1, 3)):
            kind = rng.random()
            if kind < 0.08 and depth < 3:
                lines.append("if " + condition(rng, macros))
                depth += 1
            elif kind < 0.13 and depth > 0:
                lines.append(rng.choice(["else", "endif", "elif " + condition(rng, macros)]))
                if lines[-1] == "endif":
                    depth -= 1
            elif kind < 0.18:
                lines.append("# comment " + value(rng, i))
            lines_value = value(rng, i)
            r = rng.random()
            if r < 0.1:
                lines.append(f"{name} @=end")
                lines.extend(lines_value.split(" ") or [""])
                lines.append("@end")
            elif r < 0.2 and " " in lines_value:
                a, b = lines_value.split(" ", 1)
                lines.append(f"{name} = {a} \\")
                if rng.random() < 0.3:
                    lines.append("# commented \\")
                lines.append(f"   {b}")
            else:
                sep = rng.choice([" = ", "=", "  =  ", "\t=\t"])
                prefix = ""
                if rng.random() < 0.15:
                    prefix = rng.choice(["MASTER.", "TOOL.", "SCHEDD.", "master."])
                lines.append(f"{prefix}{name}{sep}{lines_value}")
    # Close an `else` opened after another `else` by never emitting two.
    out, stack = [], []
    for line in lines:
        word = line.split(" ")[0]
        if word == "if":
            stack.append("if")
        elif word in ("else", "elif"):
            if not stack or stack[-1] == "else":
                continue
            if word == "else":
                stack[-1] = "else"
        elif word == "endif":
            if not stack:
                continue
            stack.pop()
        out.append(line)
    out.extend("endif" for _ in stack)
    return "\n".join(out) + "\n"


SOUP = ["N1", "N2", "n3", "X", " ", " ", "=", "=", ":", "@=", "$(", ")", "(", "$(N1)",
        "$(N2:d)", "#", "\\", "[", "]", "if ", "else", "endif", "elif ", "true", "defined ",
        "@", "$$", "$ENV(", "$INT(", ",", "tag", "\t", "a", "1", "$F", "n", "x", "!", "use ",
        "warning", "version", ">=", "8.1", "'", '"', ".", "/", "_", "-"]


def soup(rng):
    """Lines of random tokens: mostly nonsense, sometimes a statement."""
    lines = ["N1 = one", "N2 = two"]
    for _ in range(rng.randrange(3, 12)):
        if rng.random() < 0.85:
            name = rng.choice(["N1", "N2", "n3", "X", "Y"])
            lines.append(name + rng.choice([" = ", "=", " : ", " @="]) +
                         "".join(rng.choice(SOUP) for _ in range(rng.randrange(0, 6))))
        else:
            lines.append("".join(rng.choice(SOUP) for _ in range(rng.randrange(1, 7))))
    return "\n".join(lines) + "\n"


def main():
    out_dir, count = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    if seed < 0:
        os.makedirs(out_dir, exist_ok=True)
        for n in range(count):
            rng = random.Random(-seed * 100003 + n)
            with open(os.path.join(out_dir, f"soup_{n:04d}.conf"), "w") as f:
                f.write("# check: N1 N2 n3 X Y tag\n" + soup(rng))
        return
    os.makedirs(out_dir, exist_ok=True)
    for n in range(count):
        rng = random.Random(seed * 100003 + n)
        text = "# check: " + " ".join(NAMES) + "\n"
        # With a subsystem, no macros in conditions: the oracle reads the
        # file as TOOL first, and both readings must be valid.
        with_subsystem = rng.random() < 0.3
        if with_subsystem:
            text += "# subsystem: " + rng.choice(["MASTER", "SCHEDD", "STARTD"]) + "\n"
        text += generate(rng, not with_subsystem)
        with open(os.path.join(out_dir, f"gen_{n:04d}.conf"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
