"""Run every Python code block of the documentation, so the docs cannot
drift from the code.

    python3 docs/check_code.py                     # README.md and docs/**/*.md
    python3 docs/check_code.py docs/tutorial.md    # one page
    python3 docs/check_code.py -v ...              # and show what the blocks print

A page's ```python blocks run in order in one fresh interpreter, sharing
their variables, as a reader would type them; a block that raises fails the
page, and the traceback names the Markdown file and line. Other blocks
(```console, ```text ...) are shown, not run. The backend is whatever
PYCUDAC_BACKEND says (CI: the simulator; `make gpu-check`: the GPU). The
tree this file sits in is put first on PYTHONPATH when it holds a built
pycudac.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)(?P<info>[^\n`]*)$")

RUNNER = r"""
import json, sys, traceback
path, blocks = json.load(open(sys.argv[1]))
ns = {"__name__": "__main__"}
for line, code in blocks:
    print(f"--- {path}:{line}", flush=True)
    try:
        # pad so that tracebacks give the line in the Markdown file
        exec(compile("\n" * line + code, path, "exec"), ns)
    except SystemExit as exc:
        if exc.code not in (None, 0):
            raise
    except BaseException:
        traceback.print_exc()
        print(f"FAILED: the block at {path}:{line}", file=sys.stderr)
        sys.exit(1)
"""


def python_blocks(path):
    """[(line after the opening fence, code)] of the ```python blocks."""
    blocks, lines = [], open(path, encoding="utf-8").read().split("\n")
    k = 0
    while k < len(lines):
        m = FENCE.match(lines[k])
        if not m:
            k += 1
            continue
        fence, info, indent = m.group("fence"), m.group("info").strip(), len(m.group("indent"))
        body, j = [], k + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        if info in ("python", "py", "python3"):
            blocks.append((k + 1, "\n".join(body) + "\n"))
        k = j + 1
    return blocks


def pages(args):
    if args:
        return [os.path.abspath(a) for a in args]
    found = [os.path.join(ROOT, "README.md")]
    for folder, dirs, files in os.walk(HERE):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")))
        found += [os.path.join(folder, f) for f in sorted(files) if f.endswith(".md")]
    return found


def main(argv):
    verbose = "-v" in argv
    argv = [a for a in argv if a != "-v"]
    env = dict(os.environ)
    pkg = os.path.join(ROOT, "pycudac")
    if os.path.isdir(pkg) and any(f.startswith("_driver") for f in os.listdir(pkg)):
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    failed, total, t_all = [], 0, time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pycudac-docs-") as tmp:
        for page in pages(argv):
            blocks = python_blocks(page)
            if not blocks:
                continue
            total += len(blocks)
            rel = os.path.relpath(page, ROOT)
            spec = os.path.join(tmp, "blocks.json")
            with open(spec, "w") as f:
                json.dump([rel, blocks], f)
            t0 = time.monotonic()
            r = subprocess.run([sys.executable, "-c", RUNNER, spec], env=env, cwd=tmp,
                               capture_output=True, text=True, timeout=600)
            ok = r.returncode == 0
            print(f"{rel:32s} {len(blocks):2d} blocks {time.monotonic() - t0:6.1f} s  "
                  f"{'ok' if ok else 'FAILED'}", flush=True)
            if verbose and ok:
                print("    " + (r.stdout + r.stderr).rstrip().replace("\n", "\n    "))
            if not ok:
                failed.append(rel)
                print("    " + (r.stdout[-3000:] + r.stderr[-4000:]).replace("\n", "\n    "))
    print(f"{total} code blocks on {len(pages(argv))} pages: "
          f"{'all ran' if not failed else 'FAILED in ' + ', '.join(failed)} "
          f"({time.monotonic() - t_all:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
