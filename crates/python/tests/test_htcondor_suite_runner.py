"""run_htcondor_suite.py on a small suite of our own, written the way
HTCondor's classad2 tests are (import classad2, ornithology's `action`):
the shim must hand the tests classad_rs, and the report must tell a test
passing on both from one that fails only on ours."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

SUITE = '''
import classad2
from ornithology import action


@action
def ad():
    return classad2.ClassAd("[ a = 1 ]")


class TestShim:
    def test_reads_an_attribute(self, ad):
        assert ad["a"] == 1

    def test_knows_which_module_it_has(self):
        # passes on HTCondor's package only: the report must list it
        assert classad2.__name__ == "classad2"
'''


def test_runner_reports_side_by_side(tmp_path, ours, oracle):
    if oracle is None:
        pytest.skip("the runner needs HTCondor's classad2 for its reference run")
    (tmp_path / "test_tiny.py").write_text(SUITE)
    proc = subprocess.run(
        [sys.executable, os.path.join(HERE, "run_htcondor_suite.py"), str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
    )
    out = proc.stdout
    assert proc.returncode == 1, out
    assert "passing on HTCondor's package: 2; of those, passing on classad_rs: 1" in out, out
    assert "test_tiny.TestShim::test_knows_which_module_it_has: failed" in out, out
