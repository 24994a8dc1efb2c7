"""classad_rs's own operations beyond classad2, each against the slow path
it shortcuts: the lazy reader against the eager one, match() against a
Python loop of symmetricMatch, query() against ExprTree.eval, readAds()
against parseAds(). (The classad2 API itself is tested against classad2
in crates/python/tests.)"""

import itertools
import random

import pytest

import classad_rs as classad

# Old syntax with what the reader must get right: comments, CRLF, blank
# lines of spaces, a bad line inside an ad (the lines before it are kept),
# nested ads and lists, a bad first line (the reading stops there).
OLD_TEXT = (
    "# a pool\n"
    "MyType = \"Job\"\nClusterId = 1\nRequestMemory = 2048\nRequirements = TARGET.Memory >= RequestMemory\n"
    "\n"
    "MyType = \"Job\"\r\nClusterId = 2\r\nRequestMemory = 512 * 2\r\n"
    "   \n"
    "ClusterId = 3\n# inside\nNested = [ a = 1; b = { 1, \"x\" } ]\nBroken = = 2\nAfter = 4\n"
    "\n\n"
    "ClusterId = 4\nList = { 1, 2.5, \"s\", undefined }\n"
    "\n"
    "Bad first = line\nClusterId = 5\n"
    "\n"
    "ClusterId = 6\n"
)


def eager(text):
    """The eager reader: the same native call with a bound on the ads, which
    takes the parser's path for every ad."""
    return classad._classad_rs._parse_ads(text, -1, 1 << 40)


def lazy(text):
    return classad._classad_rs._parse_ads(text, -1)


def test_lazy_reading_is_the_eager_reading():
    lazy_ads, lazy_taken, lazy_failed = lazy(OLD_TEXT)
    eager_ads, eager_taken, eager_failed = eager(OLD_TEXT)
    assert [repr(a) for a in lazy_ads] == [repr(a) for a in eager_ads]
    assert lazy_taken == eager_taken
    assert lazy_failed == eager_failed
    # The reading stopped at the ad whose first line does not read.
    assert len(eager_ads) == 4


def test_lazy_reading_of_generated_ads():
    rng = random.Random(7)
    ads = []
    for i in range(300):
        ad = classad.ClassAd()
        for n in range(rng.randrange(1, 12)):
            ad["Attr%d" % rng.randrange(40)] = rng.choice(
                [rng.randrange(-5, 5), rng.random(), "s%d" % n, [1, "x"], {"k": n}, classad.ExprTree("a + %d" % n)]
            )
        ads.append(ad)
    text = "\n".join(ad.printOld() for ad in ads)
    lazy_ads, lazy_taken, _ = lazy(text)
    eager_ads, eager_taken, _ = eager(text)
    assert [repr(a) for a in lazy_ads] == [repr(a) for a in eager_ads] == [repr(a) for a in ads]
    assert lazy_taken == eager_taken
    assert sum(lazy_taken) <= len(text)


def test_read_ads_is_parse_ads(tmp_path):
    path = tmp_path / "ads"
    path.write_text(OLD_TEXT.replace("Bad first = line\n", ""))
    read = classad.readAds(str(path))
    parsed = list(classad.parseAds(path.read_text()))
    assert [repr(a) for a in read] == [repr(a) for a in parsed]
    assert len(read) == 6


def test_read_ads_names_the_bad_ad(tmp_path):
    path = tmp_path / "bad.ads"
    path.write_text("a = 1\n\nb = = 2\n")
    with pytest.raises(classad.ClassAdException) as e:
        classad.readAds(str(path))
    assert "bad.ads" in str(e.value) and "line 3, column 5" in str(e.value)


def small_pool(seed, jobs=40, slots=30):
    rng = random.Random(seed)
    job_ads = [
        classad.ClassAd(
            "[ClusterId = %d; ProcId = 0; Owner = \"u%d\"; RequestMemory = %d; RequestCpus = %d;"
            " Requirements = TARGET.Memory >= RequestMemory && TARGET.Cpus >= RequestCpus && TARGET.Arch == \"%s\";"
            " Rank = TARGET.Memory]"
            % (i + 1, i % 4, rng.choice([512, 1024, 4096, 16384]), rng.choice([1, 2, 8]), rng.choice(["X86_64", "aarch64"]))
        )
        for i in range(jobs)
    ]
    slot_ads = [
        classad.ClassAd(
            "[Name = \"slot%d\"; State = \"%s\"; Memory = %d; Cpus = %d; Arch = \"%s\";"
            " Requirements = TARGET.Owner != \"u%d\"]"
            % (i, rng.choice(["Unclaimed", "Claimed"]), rng.choice([1024, 8192, 32768]), rng.choice([1, 4, 16]),
               rng.choice(["X86_64", "aarch64"]), rng.randrange(6))
        )
        for i in range(slots)
    ]
    return job_ads, slot_ads


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_all_pairs_is_the_symmetric_match_loop(seed):
    jobs, slots = small_pool(seed)
    loop = [(j, s) for (j, job), (s, slot) in itertools.product(enumerate(jobs), enumerate(slots)) if job.symmetricMatch(slot)]
    assert sorted(classad.match(jobs, slots, all_pairs=True, threads=2)) == loop
    assert loop, "the pool should have matches"


@pytest.mark.parametrize("seed", [1, 2])
def test_negotiation_gives_matching_unclaimed_slots(seed):
    jobs, slots = small_pool(seed)
    got = classad.match(jobs, slots, threads=1)
    assert len(got) == len(jobs)
    assigned = [(j, s) for j, s in enumerate(got) if s is not None]
    assert assigned
    for j, s in assigned:
        assert jobs[j].symmetricMatch(slots[s])
        assert slots[s]["State"] == "Unclaimed"
    # Static slots: each is claimed once.
    assert len({s for _, s in assigned}) == len(assigned)


def test_analyze_counts_agree_with_the_loop():
    jobs, slots = small_pool(4)
    job = jobs[0]
    counts = classad.analyze(job, slots)
    assert counts["slots"] == len(slots)
    assert counts["matching"] == sum(job.symmetricMatch(s) for s in slots)
    assert counts["available"] == sum(job.symmetricMatch(s) and s["State"] == "Unclaimed" for s in slots)


def test_query_is_eval_of_the_constraint():
    jobs, _ = small_pool(5)
    constraint = "RequestMemory > 1024 && Owner != \"u1\""
    expected = [ad for ad in jobs if classad.ExprTree(constraint).eval(ad) is True]
    assert [repr(a) for a in classad.query(jobs, constraint)] == [repr(a) for a in expected]
    rows = classad.query(jobs, constraint, ["Owner", "RequestMemory * 2", "Missing"])
    assert rows == [[ad["Owner"], ad["RequestMemory"] * 2, classad.Value.Undefined] for ad in expected]


def test_registered_function_that_raises_is_error():
    def explode(x):
        raise RuntimeError("explode: %s" % x)

    classad.register(explode)
    assert classad.ExprTree("explode(3)").eval() is classad.Value.Error
    assert "explode: 3" in classad.lastError()

    def double(x):
        return x * 2

    classad.register(double)
    ad = classad.ClassAd("[a = double(21)]")
    assert ad.eval("a") == 42


def test_bad_input_raises_with_position():
    with pytest.raises(classad.ClassAdException) as e:
        classad.ClassAd("[a = 1 +]")
    assert "line 1, column" in str(e.value)
    with pytest.raises(classad.ClassAdException):
        classad.ExprTree("(((")
    with pytest.raises(TypeError):
        classad.match([1], [])
