"""Fetch PyCUDA's sdist (pinned) from PyPI into build/pycuda/, for running
PyCUDA's own test files and examples against pycudac (issue 21). PyCUDA's
code never enters the repository: it lands in the ignored build/ folder.

    python tools/pycuda_compat/fetch.py [--dest build/pycuda]

Prints the folder that holds test/ and examples/. Offline (the GPU machine),
give it the tarball: --tarball path (make gpu-check carries build/pycuda).
"""
import argparse
import hashlib
import os
import shutil
import sys
import tarfile
import urllib.request

VERSION = "2026.1"
URL = ("https://files.pythonhosted.org/packages/75/93/"
       "36ffd54430924dcb03a88c97519d56589e573d0dcc999c77a4c4d8a90306/pycuda-2026.1.tar.gz")
SHA256 = "759516160628ba06f32ce7e563e3f5b9214691dc9528a03ea99ea1073f4e14ba"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dest", default=os.path.join(ROOT, "build", "pycuda"))
    ap.add_argument("--tarball", help="a downloaded pycuda-%s.tar.gz" % VERSION)
    args = ap.parse_args()
    tree = os.path.join(args.dest, f"pycuda-{VERSION}")
    if os.path.isdir(os.path.join(tree, "test")):
        print(tree)
        return 0
    os.makedirs(args.dest, exist_ok=True)
    tarball = args.tarball or os.path.join(args.dest, f"pycuda-{VERSION}.tar.gz")
    if not os.path.exists(tarball):
        with urllib.request.urlopen(URL, timeout=60) as r, open(tarball + ".part", "wb") as f:
            shutil.copyfileobj(r, f)
        os.replace(tarball + ".part", tarball)
    with open(tarball, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    if digest != SHA256:
        print(f"{tarball}: sha256 {digest}, expected {SHA256}", file=sys.stderr)
        return 1
    with tarfile.open(tarball) as t:
        members = [m for m in t.getmembers()
                   if m.isfile() and m.name.split("/")[1:2] in (["test"], ["examples"])]
        t.extractall(args.dest, members=members)
    print(tree)
    return 0


if __name__ == "__main__":
    sys.exit(main())
