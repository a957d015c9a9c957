"""swizzleperf's fork server for Triton programs: import torch and triton once, fork a child per run.

Why: a fresh Python process that imports torch and triton costs about 3.8 s before it does any
work (measured on an H200: bench/triton_cost.py); a candidate's evaluate run does about one
second of work after that. This process imports the heavy modules once, touching no GPU (CUDA
is never initialised here, so a forked child may initialise it), and then runs each program in
a child of its own, forked from this warm state.

Protocol (stdin/stdout, one JSON object per line; started by src/backend/triton_forkserver.cpp):
  argv[1:]    modules to import before serving (e.g. torch triton swz_triton); none is fine
  first line  {"ready": true, "python": "3.12.3"} once they are imported, or
              {"ready": false, "error": "..."} and exit 1
  request     {"argv": [PROGRAM, ARGS...], "out": PATH, "err": PATH}
  response    {"exit": CODE} or {"signal": N}   (one per request, when the child has ended)
The child: stdin /dev/null, stdout and stderr to the two files, sys.argv = argv, PROGRAM run as
__main__ (runpy), its exit code that of SystemExit (0 when it returns). The child stays in this
process's group: the caller's timeout and Ctrl-C kill the group (this server and its child),
and the caller starts a new server for the next run. One request at a time. EOF on stdin ends
the server.
"""
import importlib
import json
import os
import platform
import sys
import traceback


def _child(argv, out_path, err_path):
    try:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        out = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(out, 1)
        os.dup2(err, 2)
        for fd in (devnull, out, err):
            os.close(fd)
    except OSError:
        os._exit(126)
    code = 0
    try:
        import runpy
        sys.argv = list(argv)
        # As `python PROGRAM` would have it: the program's folder first on sys.path.
        sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
        runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code & 0xFF
        else:
            sys.stderr.write(str(e.code) + "\n")
            code = 1
    except BaseException:  # the program's own failure, reported as Python would
        traceback.print_exc()
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    os._exit(code)


def _serve():
    for raw in sys.stdin:
        raw = raw.strip()
        if not raw:
            continue
        try:
            req = json.loads(raw)
            argv = [str(a) for a in req["argv"]]
            out_path, err_path = str(req["out"]), str(req["err"])
            if not argv:
                raise ValueError("empty argv")
        except Exception as e:  # a malformed request: say so, keep serving
            sys.stdout.write(json.dumps({"error": "bad request: %s" % e}) + "\n")
            sys.stdout.flush()
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(argv, out_path, err_path)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            reply = {"signal": os.WTERMSIG(status)}
        else:
            reply = {"exit": os.WEXITSTATUS(status)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


def main():
    try:
        for name in sys.argv[1:]:
            importlib.import_module(name)
    except BaseException as e:
        msg = "".join(traceback.format_exception_only(type(e), e)).strip().splitlines()[-1]
        sys.stdout.write(json.dumps({"ready": False, "error": "cannot import %s: %s" % (name, msg)}) + "\n")
        sys.stdout.flush()
        return 1
    sys.stdout.write(json.dumps({"ready": True, "python": platform.python_version()}) + "\n")
    sys.stdout.flush()
    _serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
