"""Bad input from Python: the documented exception, with a message that
says where the input went wrong, and never a crash of the interpreter.

The exception *types* are compared with classad2's in oracle_cases.py;
here are what classad2 does not give (a position in the message) or gets
wrong (it crashes on some of these inputs, so they cannot be compared).
"""

import os
import re
import subprocess
import sys
import textwrap

import pytest

POSITION = re.compile(r"(line|column|col|offset|position|byte|char\w*)\W{0,3}\d+", re.IGNORECASE)


def parse_error(ours, fn):
    with pytest.raises(ours.ClassAdException) as info:
        fn()
    return str(info.value)


@pytest.mark.parametrize(
    "text",
    # (not "[ a = 1 ] junk": classad2 reads the first ad and ignores the rest)
    ["[ a = ]", "[ a = 1; b = (2 + ]", "[ a = 1", '[ s = "unterminated ]', "[ a = 1; = 2 ]"],
)
def test_classad_parse_error_gives_a_position(ours, text):
    message = parse_error(ours, lambda: ours.ClassAd(text))
    assert POSITION.search(message), "no position in %r" % message


@pytest.mark.parametrize("text", ["1 +", "(", "a b", "f(1,", "{ 1, 2"])
def test_exprtree_parse_error_gives_a_position(ours, text):
    message = parse_error(ours, lambda: ours.ExprTree(text))
    assert POSITION.search(message), "no position in %r" % message


def test_parse_error_names_the_line(ours):
    """The third line is the bad one: the message says line 3."""
    message = parse_error(ours, lambda: ours.ClassAd("[\n  a = 1;\n  b = = 2;\n  c = 3\n]"))
    assert re.search(r"line\W{0,3}3\b", message, re.IGNORECASE), message


def test_last_error_after_parse_error(ours):
    """lastError() keeps the failed parse's message (classad2 keeps one too)."""
    parse_error(ours, lambda: ours.ClassAd("[ a = ]"))
    assert POSITION.search(ours.lastError()), ours.lastError()


# Each line is one operation that has crashed a ClassAd binding (classad2
# 25.14.1 segfaults on `unquote(None)` and on a 100,000-deep list) or
# could: unbounded recursion, bytes that are not UTF-8, cycles.
# They run in a child interpreter so that a crash is a failed test with
# the operation named, not a dead test run.
NASTY = r"""
import classad_rs as ca

def deep_list(n):
    v = []
    for _ in range(n):
        v = [v]
    return v

def deep_dict(n):
    v = {}
    for _ in range(n):
        v = {"x": v}
    return v

cyclic_list = []
cyclic_list.append(cyclic_list)
cyclic_dict = {}
cyclic_dict["self"] = cyclic_dict
chain = "[ a0 = a1; " + "; ".join("a%d = a%d" % (i, i + 1) for i in range(1, 20000)) + "; a20000 = 1 ]"

ops = [
    ("quote(int)", lambda: ca.quote(5)),
    ("unquote(None)", lambda: ca.unquote(None)),
    ("deep parentheses", lambda: ca.ExprTree("(" * 100000 + "1" + ")" * 100000).eval()),
    ("unclosed parentheses", lambda: ca.ExprTree("(" * 100000)),
    ("deep brackets", lambda: ca.ClassAd("[ a = " * 50000)),
    ("deep unary minus", lambda: ca.ExprTree("-" * 100000 + "1").eval()),
    ("long sum", lambda: ca.ExprTree("1" + " + 1" * 100000).eval()),
    ("long selection chain", lambda: ca.ExprTree("a" + ".a" * 100000).eval()),
    ("deep python list", lambda: ca.ClassAd().__setitem__("x", deep_list(100000))),
    ("deep python dict", lambda: ca.ClassAd({"x": deep_dict(100000)})),
    ("cyclic python list", lambda: ca.ClassAd().__setitem__("x", cyclic_list)),
    ("cyclic python dict", lambda: ca.ClassAd(cyclic_dict)),
    ("int beyond 64 bits", lambda: ca.ClassAd().__setitem__("x", 2 ** 70)),
    ("bytes not UTF-8", lambda: ca.ClassAd().__setitem__("x", b"\xff\xfe")),
    ("NUL in a string", lambda: ca.ClassAd({"x": "a\x00b"})["x"]),
    ("NUL in ad text", lambda: ca.ClassAd('[ x = "a\x00b" ]')),
    ("lone surrogate", lambda: ca.ClassAd({"x": "\ud800"})),
    ("long attribute chain", lambda: ca.ClassAd(chain).eval("a0")),
    ("self reference", lambda: ca.ClassAd("[ a = a + 1 ]").eval("a")),
    ("mutual reference", lambda: ca.ClassAd("[ a = b; b = a ]").eval("a")),
    ("eval in ad that is assigned into itself", lambda: (lambda ad: (ad.__setitem__("me", ad), ad.eval("me")))(ca.ClassAd("[ x = 1 ]"))),
    ("parseAds of bytes", lambda: list(ca.parseAds(b"[ a = 1 ]"))),
    ("parseAds binary file", lambda: list(ca.parseAds(open(BINARY, "rb")))),
    ("parseAds text file not UTF-8", lambda: list(ca.parseAds(open(BINARY)))),
    ("parseOne closed file", lambda: ca.parseOne(CLOSED)),
    ("parseNext int parser", lambda: ca.parseNext("[ a = 1 ]", 77)),
    ("ExprTree of int", lambda: ca.ExprTree(5)),
    ("eval with str scope", lambda: ca.ExprTree("a").eval("[a = 1]")),
    ("huge string", lambda: len(ca.ClassAd({"x": "y" * 10000000})["x"])),
    ("many attributes", lambda: len(ca.ClassAd({"a%d" % i: i for i in range(100000)}))),
]
for name, op in ops:
    try:
        r = op()
        print("%s: returned %s" % (name, type(r).__name__), flush=True)
    except BaseException as e:  # anything but a crash is fine here
        print("%s: %s" % (name, type(e).__name__), flush=True)
print("done")
"""


def test_never_crashes(ours, tmp_path):
    binary = tmp_path / "binary.ads"
    binary.write_bytes(b"[ a = \xff\xfe\x00\x80 ]\n\xc3\x28 = 1\n")
    closed = open(tmp_path / "closed", "w")
    closed.close()
    script = "BINARY = %r\nimport io\nCLOSED = open(%r)\nCLOSED.close()\n" % (str(binary), str(tmp_path / "closed")) + textwrap.dedent(NASTY)
    proc = subprocess.run(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        env=dict(os.environ, PYTHONFAULTHANDLER="1"),
    )
    done = proc.stdout.splitlines()
    assert proc.returncode == 0 and done and done[-1] == "done", (
        "the interpreter died (exit %d) after:\n%s\nstderr:\n%s" % (proc.returncode, proc.stdout[-2000:], proc.stderr[-3000:])
    )


@pytest.mark.parametrize("arg", [5, None, b"x", ["a"]])
def test_quote_and_unquote_reject_non_strings(ours, arg):
    """classad2 segfaults on unquote(None); a TypeError is Python's answer."""
    with pytest.raises(TypeError):
        ours.quote(arg)
    with pytest.raises(TypeError):
        ours.unquote(arg)


def test_int_beyond_64_bits_is_refused(ours):
    """classad2 leaves a SystemError; ours must refuse with a real exception
    and leave the ad unchanged."""
    ad = ours.ClassAd("[ x = 1 ]")
    with pytest.raises((OverflowError, ValueError, TypeError, ours.ClassAdException)):
        ad["x"] = 2**70
    assert ad["x"] == 1
