import os
import shutil
import subprocess
from pathlib import Path

import pytest

# python/tests → the source tree (go.mod, cmd/nsvm).
ROOT = Path(__file__).resolve().parents[2]


def find_go():
    for go in (os.environ.get("GO"), shutil.which("go"), "/usr/local/go/bin/go"):
        if go and Path(go).is_file() and os.access(go, os.X_OK):
            return go
    return None


@pytest.fixture(scope="session")
def cli(tmp_path_factory):
    """The nsvm command: $NSVM_CLI, or built from the source tree."""
    path = os.environ.get("NSVM_CLI")
    if path:
        return path
    go = find_go()
    if go is None or not (ROOT / "go.mod").is_file():
        pytest.skip("comparing with nsvm train needs nsvm's source tree and Go")
    out = tmp_path_factory.mktemp("bin") / "nsvm"
    subprocess.run([go, "build", "-o", str(out), "./cmd/nsvm"], cwd=ROOT, check=True)
    return str(out)
