"""The pytest plugin of retryproof-sandbox, registered through the ``pytest11`` entry point:
once the package is installed, every test can ask for the ``retryproof_sandbox`` fixture, a
provider of its own started for the test and stopped after it::

    def test_one_job_through_a_dropped_commit(retryproof_sandbox):
        retryproof_sandbox.faults("commit-then-drop")
        create_order(retryproof_sandbox.url, "order-42")      # your code
        assert retryproof_sandbox.verdicts(policy="attempts=3").ok

The program is found as ``Sandbox`` finds it: ``$RETRYPROOF_BINARY``, else ``retryproof`` on
``PATH``. For other options, define a fixture of your own around ``Sandbox(...)``.
"""

import pytest

from retryproof_sandbox import Sandbox


@pytest.fixture
def retryproof_sandbox():
    """A retryproof provider of its own for this test (retryproof_sandbox.Sandbox)."""
    with Sandbox() as sandbox:
        yield sandbox
