"""Every case of oracle_cases.py gives classad_rs the same answer as
HTCondor's classad2: compared live when classad2 imports, else against the
answers recorded from it (oracle_answers.json)."""

import json

import pytest

import oracle_cases
import record_oracle


@pytest.mark.parametrize("name", sorted(oracle_cases.CASES))
def test_same_answer_as_classad2(name, ours, oracle, recorded):
    if oracle is not None:
        expected = record_oracle.run_case(oracle, name)
    else:
        assert name in recorded, "no recorded answer: run CLASSAD_RS_RECORD=1 pytest with classad2 installed"
        expected = recorded[name]
    actual = json.loads(json.dumps(record_oracle.run_case(ours, name)))
    diffs = oracle_cases.differences(json.loads(json.dumps(expected)), actual)
    assert not diffs, "\n".join(diffs[:20]) + ("\n... %d differences in all" % len(diffs) if len(diffs) > 20 else "")


@pytest.mark.parametrize("name", sorted(oracle_cases.CASES))
def test_recorded_answer_is_current(name, oracle, recorded):
    """The file the oracle-less runs trust still holds classad2's answer."""
    if oracle is None:
        pytest.skip("classad2 is not installed: nothing to check the recording against")
    live = json.loads(json.dumps(record_oracle.run_case(oracle, name)))
    assert recorded.get(name) == live, "stale oracle_answers.json: re-record with CLASSAD_RS_RECORD=1"
