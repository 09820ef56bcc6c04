"""Builds nsvm's shared library (the C ABI in ../capi) with the Go toolchain
while the package is built, so that

    python3 -m pip install --no-build-isolation ./python

installs everything offline from nsvm's source tree. Go ≥ 1.26 is found as
$GO, on PATH, or at /usr/local/go/bin/go; $NSVM_SOURCE overrides the source
tree (the directory holding go.mod and capi/).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent


def library_name():
    return {"darwin": "libnsvm.dylib", "win32": "nsvm.dll"}.get(sys.platform, "libnsvm.so")


def find_go():
    for go in (os.environ.get("GO"), shutil.which("go"), "/usr/local/go/bin/go"):
        if go and Path(go).is_file() and os.access(go, os.X_OK):
            return go
    sys.exit(
        "nsvm: building the package needs the Go toolchain (Go ≥ 1.26, with cgo and a C compiler): "
        "install it from https://go.dev/dl/ and put go on PATH, or set GO=/path/to/go"
    )


def source_tree():
    src = Path(os.environ.get("NSVM_SOURCE") or HERE.parent).resolve()
    if not (src / "go.mod").is_file() or not (src / "capi").is_dir():
        sys.exit(f"nsvm: {src} is not nsvm's source tree (no go.mod and capi/); build from it, or set NSVM_SOURCE")
    return src


def build_library(out):
    """go build -buildmode=c-shared of ./capi into out."""
    go = find_go()
    out.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, CGO_ENABLED="1")
    cmd = [go, "build", "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w", "-o", str(out), "./capi"]
    print("nsvm: " + " ".join(cmd), flush=True)
    try:
        subprocess.run(cmd, cwd=source_tree(), env=env, check=True)
    except subprocess.CalledProcessError as e:
        sys.exit(f"nsvm: building the shared library failed ({' '.join(cmd)} exited with {e.returncode})")
    header = out.with_suffix(".h")
    if header.exists():
        header.unlink()  # the prototypes are nsvm.h's and Go's; Python does not need them


class BuildPy(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            build_library(HERE / "nsvm" / library_name())
        else:
            build_library(Path(self.build_lib).resolve() / "nsvm" / library_name())


class BinaryDistribution(Distribution):
    """The package holds a shared library: its wheel is for one platform."""

    def has_ext_modules(self):
        return True


cmdclass = {"build_py": BuildPy}
try:
    from wheel.bdist_wheel import bdist_wheel

    class BdistWheel(bdist_wheel):
        """Tags the wheel py3-none-<platform>: the library does not use Python's C API."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            return ("py3", "none") + tuple(super().get_tag()[2:])

    cmdclass["bdist_wheel"] = BdistWheel
except ImportError:
    pass

setup(cmdclass=cmdclass, distclass=BinaryDistribution)
