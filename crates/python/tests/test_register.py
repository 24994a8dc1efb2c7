"""classad_rs.register: Python functions callable from expressions.

classad2 has no register (HTCondor's own test of it is an xfail), so
nothing here compares with it directly. The reference is Python itself:
a registered function receives its arguments as the values classad_rs
gives for the same literals (whose conversion oracle_cases.py checks
against classad2), and its result comes back as the same value stored
into an ad and read out again would. A function that raises is ERROR in
the expression, and the exception is kept for lastError().
"""

import datetime
import itertools

import pytest

_names = itertools.count()


def fresh_name(stem):
    """A function name no earlier test registered (registrations are global)."""
    return "%s%d" % (stem, next(_names))


def register_as(ours, fn, stem):
    name = fresh_name(stem)
    ours.register(fn, name)
    return name


ARG_LITERALS = ["1", "-2", "2.5", '"text"', "true", "false", "{ 1, \"a\", { 2 } }", "[ a = 1; b = \"x\" ]", "undefined", "error", 'absTime("2020-01-02T03:04:05Z")', "relTime(90)"]


@pytest.mark.parametrize("literal", ARG_LITERALS)
def test_arguments_arrive_as_evaluated_values(ours, literal):
    seen = []
    name = register_as(ours, lambda x: seen.append(x) or 0, "argsOf")
    ours.ExprTree("%s(%s)" % (name, literal)).eval()
    assert len(seen) == 1
    expected = ours.ExprTree(literal).eval()
    got = seen[0]
    assert type(got) is type(expected)
    if type(expected).__name__ == "ClassAd":
        assert dict(got) == dict(expected)
    else:
        assert got == expected


def test_arguments_are_evaluated_in_the_ad(ours):
    seen = []
    name = register_as(ours, lambda *a: seen.append(a) or 0, "inAd")
    ad = ours.ClassAd("[ x = 3; y = x * 2; call = %s(x, y, x + y, z) ]" % name)
    ad.eval("call")
    assert seen == [(3, 6, 9, ours.Value.Undefined)]


RESULTS = [
    7,
    -1.5,
    "str",
    True,
    False,
    None,
    [1, "a", [2.5]],
    {"k": 1, "n": {"m": "v"}},
    datetime.datetime(2021, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc),
]


@pytest.mark.parametrize("result", RESULTS, ids=repr)
def test_result_converts_as_an_assigned_value(ours, result):
    """`f()` evaluates to what `ad["x"] = result; ad["x"]` reads back."""
    name = register_as(ours, lambda: result, "give")
    got = ours.ExprTree("%s()" % name).eval()
    ad = ours.ClassAd()
    ad["x"] = result
    expected = ad["x"]
    assert type(got) is type(expected)
    if type(expected).__name__ == "ClassAd":
        assert dict(got) == dict(expected)
    else:
        assert got == expected


def test_result_of_special_values(ours):
    undefined = register_as(ours, lambda: ours.Value.Undefined, "undef")
    error = register_as(ours, lambda: ours.Value.Error, "err")
    expr = register_as(ours, lambda: ours.ExprTree("1 + 2"), "expr")
    assert ours.ExprTree("%s()" % undefined).eval() == ours.Value.Undefined
    assert ours.ExprTree("%s()" % error).eval() == ours.Value.Error
    assert ours.ExprTree("%s() * 2" % expr).eval() == 6


def test_concatenate_lists(ours, oracle):
    """HTCondor's own example (an xfail in its classad2 suite)."""
    name = register_as(ours, lambda a, b: a + b, "concatenateLists")
    got = ours.ExprTree("%s({1, 2}, {3, 4})" % name).eval()
    expected = (oracle or ours).ExprTree("{1, 2, 3, 4}").eval()
    assert got == expected


def test_registered_under_its_own_name(ours):
    def pythonSideName(a):
        return a * 3

    ours.register(pythonSideName)
    assert ours.ExprTree("pythonSideName(4)").eval() == 12


def test_closure_sees_python_values(ours):
    local = {"add": 1}
    name = register_as(ours, lambda a: a + local["add"], "add")
    assert ours.ExprTree("%s(1)" % name).eval() == 2
    local["add"] = 10
    assert ours.ExprTree("%s(1)" % name).eval() == 11


def test_reregistering_replaces(ours):
    name = fresh_name("again")
    ours.register(lambda: 1, name)
    ours.register(lambda: 2, name)
    assert ours.ExprTree("%s()" % name).eval() == 2


def test_raising_function_is_error_and_kept_for_last_error(ours):
    def bad(a, b):
        raise RuntimeError("oops from bad")

    name = register_as(ours, bad, "bad")
    assert ours.ExprTree("%s(1, 2)" % name).eval() == ours.Value.Error
    assert "oops from bad" in ours.lastError()
    # the ERROR propagates as any ERROR does
    assert ours.ExprTree("isError(%s(1, 2))" % name).eval() is True
    assert ours.ExprTree("%s(1, 2) =?= error" % name).eval() is True


def test_wrong_argument_count_is_error(ours):
    name = register_as(ours, lambda a: a, "oneArg")
    assert ours.ExprTree("%s(1, 2)" % name).eval() == ours.Value.Error
    assert ours.lastError() != ""


def test_unconvertible_result_is_error(ours):
    name = register_as(ours, lambda: object(), "opaque")
    assert ours.ExprTree("%s()" % name).eval() == ours.Value.Error


def test_function_may_evaluate_expressions_itself(ours):
    """Re-entry: the function calls back into the engine while it runs."""
    inner = register_as(ours, lambda a: a + 1, "inner")
    outer = register_as(ours, lambda a: ours.ExprTree("%s(%d) * 10" % (inner, a)).eval(), "outer")
    assert ours.ExprTree("%s(4)" % outer).eval() == 50


def test_registered_function_in_matching(ours):
    name = register_as(ours, lambda mem: mem >= 1024, "bigEnough")
    job = ours.ClassAd("[ Requirements = %s(TARGET.Memory) ]" % name)
    small = ours.ClassAd("[ Memory = 512; Requirements = true ]")
    big = ours.ClassAd("[ Memory = 2048; Requirements = true ]")
    assert [job.symmetricMatch(small), job.symmetricMatch(big)] == [False, True]


def test_register_rejects_non_callables(ours):
    with pytest.raises(TypeError):
        ours.register(5)


@pytest.mark.parametrize("name", ["", "1abc", "a b", "f(x)", "a.b", "ünï"])
def test_register_refuses_names_an_expression_cannot_call(ours, name):
    with pytest.raises((ValueError, TypeError, ours.ClassAdException)):
        ours.register(lambda: 1, name)
