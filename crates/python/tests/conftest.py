"""Shared set-up of the Python tests of classad_rs.

`ours` is the module under test; `oracle` is HTCondor's classad2 when it
imports (pip install htcondor), else None, and the tests fall back to the
answers recorded from it in oracle_answers.json. CLASSAD_RS_RECORD=1
re-records those answers (with classad2) before the tests run;
CLASSAD_RS_NO_ORACLE=1 uses them even where classad2 imports.
"""

import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import record_oracle  # noqa: E402 (needs the path above)

# Naive datetimes are local time in both modules: pin it for every test.
record_oracle.fix_time_zone()


def pytest_configure(config):
    if os.environ.get("CLASSAD_RS_RECORD") == "1":
        n = record_oracle.record()
        print("recorded %d answers of classad2 into %s" % (n, record_oracle.ANSWERS))


@pytest.fixture(scope="session")
def ours():
    # Deliberately not importorskip: a build that does not import must fail
    # the suite, not skip it.
    import classad_rs

    return classad_rs


@pytest.fixture(scope="session")
def oracle():
    # CLASSAD_RS_NO_ORACLE=1 takes the path of a machine without HTCondor
    # (the recorded answers) even where classad2 imports.
    if os.environ.get("CLASSAD_RS_NO_ORACLE") == "1":
        return None
    return record_oracle.import_oracle()


@pytest.fixture(scope="session")
def recording():
    with open(record_oracle.ANSWERS) as f:
        return json.load(f)


@pytest.fixture(scope="session")
def recorded(recording):
    return recording["answers"]


@pytest.fixture(scope="session")
def same_oracle(oracle, recording):
    """classad2 when it is the version the answers were recorded from, else
    None: another version may answer otherwise, and the recording is the
    reference then."""
    if oracle is not None and oracle.version() == recording["classad2_version"]:
        return oracle
    return None
