"""`make dist`: the release tarball holds the committed tree, and what once
needed git history builds from it: the layout-1 library the reader's tests
open (from the tarball of its sources kept in the tree).  CI builds the
Debian packages from this tarball."""

import os
import subprocess
import tarfile

import pytest

import gdbrun
from gdbrun import REPO


def test_tarball_builds_without_git(tmp_path):
    if not os.path.exists(os.path.join(REPO, ".git")):
        pytest.skip("not a git checkout: make dist archives the committed tree")
    proc = subprocess.run(["make", "-s", "-C", REPO, "dist"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    tarball = os.path.join(REPO, proc.stdout.strip().splitlines()[-1])
    with tarfile.open(tarball) as tar:
        names = tar.getnames()
        tar.extractall(tmp_path)
    top = os.path.commonpath(names)
    committed = subprocess.run(["git", "-C", REPO, "ls-files"], capture_output=True,
                               text=True, check=True).stdout.split()
    assert sorted(os.path.relpath(n, top) for n in names if not n.endswith("/")
                  and (tmp_path / n).is_file()) == sorted(committed)
    tree = tmp_path / top
    assert not (tree / ".git").exists()
    build = tree / "build" / gdbrun.MPI
    proc = subprocess.run(["make", "-s", "-C", str(tree), "BUILD=" + str(build),
                           str(build / "layout1" / "libmpireg.so")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert (build / "layout1" / "libmpireg.so").is_file()
