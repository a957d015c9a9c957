#!/usr/bin/env python3
"""Reliability as numbers: a fuzz campaign, a kill storm and a fault soak.

Runs on a CPU-only machine with the normal build (build/) and the fuzz build
(build-fuzz/, see tests/fuzz/CMakeLists.txt), and writes
bench/results/<date>-reliability.{md,json}.

  fuzz       every build-fuzz/tests/fuzz/fuzz_* for --fuzz-seconds each (one process
             per target, one process, -detect_leaks=1) over a scratch copy of its seed
             corpus; execs parsed from -print_final_stats=1.
  kill storm `optimize` through the fake nvcc/ncu (builtin proposer); SIGKILL of the
             whole process tree at a random moment, then `--resume` (killed again at
             random, ...) until the run completes. After every kill history.json must
             parse and still hold every attempt seen before, unchanged (else: lost).
             Each finished run must equal an uninterrupted run of the same config,
             attempt for attempt (iteration, label, status, region); extra or
             repeated attempts count as repeated, missing ones as lost.
  fault soak `optimize --proposer llm` against tests/fakes/fake_llm_server (HTTP
             401/429/500, timeouts, resets, malformed / truncated / cut replies) with
             fake_nvcc/fake_ncu injecting compile errors, hanging and crashing
             kernels, profiler errors and garbage profiler output
             (SWZ_FAKE_FAULT_RATE), plus runs whose run dir is a small tmpfs that
             fills up (disk full; needs root, skipped otherwise). Every injected
             fault must be found in the history (see account_* below) or end the
             run with one `swizzleperf: error:` line; the history must parse and
             keep every attempt (history_lost counts runs where it does not).

Everything is bounded in time and count and uses 127.0.0.1 only.
"""
import argparse
import datetime
import glob
import json
import os
import platform
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(msg):
    print(f"[reliability {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ---------------------------------------------------------------- fuzz campaign
def run_fuzz(fuzz_dir, seconds, out_dir, jobs=1, only=()):
    binaries = [b for b in sorted(glob.glob(os.path.join(fuzz_dir, "fuzz_*")))
                if os.access(b, os.X_OK) and not os.path.isdir(b) and (not only or os.path.basename(b) in only)]
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        parts = list(pool.map(lambda b: fuzz_one(b, seconds, out_dir), binaries))
    return {name: r for name, r in parts}


def fuzz_one(binary, seconds, out_dir):
    """One target for `seconds` over a scratch copy of its seeds: (name, numbers)."""
    name = os.path.basename(binary)
    seeds = os.path.join(ROOT, "tests", "fuzz", "corpus", name)
    work = tempfile.mkdtemp(prefix=f"swz-{name}-")
    if os.path.isdir(seeds):
        for f in os.listdir(seeds):
            shutil.copy(os.path.join(seeds, f), work)
    artifacts = os.path.join(out_dir, name) + "-"
    cmd = ["nice", "-n", "19", binary, work, f"-max_total_time={seconds}", "-print_final_stats=1",
           "-detect_leaks=1", f"-artifact_prefix={artifacts}", "-timeout=25",
           "-rss_limit_mb=2048"]
    fuzz_src = os.path.join(ROOT, "tests", "fuzz")
    dict_name = "fuzz_csv.dict" if name in ("fuzz_ncu_csv", "fuzz_rocprof_csv") else \
        "fuzz_json.dict" if name in ("fuzz_history", "fuzz_probe_json", "fuzz_reply") else None
    if dict_name:
        cmd.append(f"-dict={os.path.join(fuzz_src, dict_name)}")
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                       timeout=seconds + 120)
    elapsed = time.time() - t0
    execs = sum(int(m) for m in re.findall(r"stat::number_of_executed_units:\s*(\d+)", p.stdout))
    crashed = p.returncode != 0 or bool(glob.glob(artifacts + "*"))
    leaks = len(re.findall(r"ERROR: LeakSanitizer", p.stdout))
    r = {"execs": execs, "crashes": int(crashed), "leaks": leaks, "seconds": round(elapsed, 1),
         "exit_code": p.returncode}
    if crashed:
        r["tail"] = "\n".join(p.stdout.splitlines()[-30:])
        keep = os.path.join(ROOT, "build-fuzz", "artifacts")  # the crashing input outlives the temp dir
        os.makedirs(keep, exist_ok=True)
        for f in glob.glob(artifacts + "*"):
            shutil.copy(f, keep)
    log(f"fuzz {name}: {execs} execs in {elapsed:.0f} s, crashed={crashed}")
    shutil.rmtree(work, ignore_errors=True)
    return name, r


def git_commit():
    p = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return p.stdout.strip() or "unknown"


def replace_fuzz_targets(earlier, result):
    """Per target, the latest round's numbers are the totals: the targets this round
    fuzzed replace theirs, the others keep theirs. Every round stays listed; in_totals
    says whether some target's numbers still come from it."""
    rounds = earlier.get("fuzz_rounds", [])
    current = [r for r in rounds if r.get("in_totals", True)]
    merged = {k: dict(v) for k, v in earlier["fuzz"].items()}
    if len(current) == 1:  # entries written before per-target stamps belong to that round
        for v in merged.values():
            v.setdefault("round", current[0].get("date"))
            v.setdefault("commit", current[0].get("commit"))
    merged.update(result["fuzz"])
    rounds = rounds + result.get("fuzz_rounds", [])
    live = {v.get("round") for v in merged.values()}
    result["fuzz_rounds"] = [dict(r, in_totals=r.get("date") in live) for r in rounds]
    result["fuzz"] = merged
    result["fuzz_execs_total"] = sum(v["execs"] for v in merged.values())
    result["fuzz_crashes_total"] = sum(v["crashes"] for v in merged.values())
    result["fuzz_leaks_total"] = sum(v["leaks"] for v in merged.values())


def add_fuzz_round(earlier, result):
    """A campaign in rounds: per target, this round's execs, crashes, leaks and seconds
    are added to the earlier rounds'; fuzz_rounds lists every round."""
    merged = {k: dict(v) for k, v in earlier["fuzz"].items()}
    for name, v in result["fuzz"].items():
        m = merged.setdefault(name, {"execs": 0, "crashes": 0, "leaks": 0, "seconds": 0.0, "exit_code": 0})
        for k in ("execs", "crashes", "leaks"):
            m[k] += v[k]
        m["seconds"] = round(m["seconds"] + v["seconds"], 1)
        m["exit_code"] = v["exit_code"] or m.get("exit_code", 0)
        if "tail" in v:
            m["tail"] = v["tail"]
    rounds = earlier.get("fuzz_rounds") or [{"date": earlier.get("date"), "commit": earlier.get("commit", "unknown"),
                                             "execs": earlier.get("fuzz_execs_total", 0),
                                             "crashes": earlier.get("fuzz_crashes_total", 0),
                                             "leaks": earlier.get("fuzz_leaks_total", 0)}]
    result["fuzz_rounds"] = rounds + result.get("fuzz_rounds", [])
    result["fuzz"] = merged
    result["fuzz_execs_total"] = sum(v["execs"] for v in merged.values())
    result["fuzz_crashes_total"] = sum(v["crashes"] for v in merged.values())
    result["fuzz_leaks_total"] = sum(v["leaks"] for v in merged.values())


# ---------------------------------------------------------------- process helpers
def kill_session(sid):
    """SIGKILL every process of session sid (the optimize run and all its children)."""
    for _ in range(3):
        found = False
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[3]) == sid:  # field 6: session
                    found = True
                    os.kill(int(d), signal.SIGKILL)
            except (OSError, IndexError, ValueError):
                pass
        if not found:
            return
        time.sleep(0.05)


def load_history(path):
    """(ok, json or None): ok is False when the file exists but does not parse."""
    if not os.path.exists(path):
        return True, None
    try:
        with open(path) as f:
            j = json.load(f)
        return j.get("format") == "swizzleperf-history", j
    except (OSError, ValueError):
        return False, None


def key(a):
    return (a["iteration"], a["label"], a["status"], a["region"])


class Tools:
    def __init__(self, build):
        self.binary = os.path.join(build, "swizzleperf")
        self.fakes = os.path.join(build, "tests", "fakes")
        self.nvcc = os.path.join(self.fakes, "fake_nvcc")
        self.ncu = os.path.join(self.fakes, "fake_ncu")
        self.llm = os.path.join(self.fakes, "fake_llm_server")


def optimize_cmd(tools, kernel, run_dir, iterations, extra=()):
    return [tools.binary, "optimize", kernel, "--backend", "cuda", "--proposer", "builtin", "--nvcc", tools.nvcc,
            "--ncu", tools.ncu, "--run-dir", run_dir, "--iterations", str(iterations), "--reps", "3", *extra]


def resume_cmd(tools, run_dir, extra=()):
    return [tools.binary, "optimize", "--resume", run_dir, "--nvcc", tools.nvcc, "--ncu", tools.ncu, "--reps", "3",
            *extra]


# ---------------------------------------------------------------- kill storm
def kill_storm(tools, cycles, iterations, sleep_ms, seed, work, minutes=40, max_delay=20.0):
    rng = random.Random(seed)
    kernel = os.path.join(work, "gemm.hip")
    shutil.copy(os.path.join(ROOT, "kernels", "gemm.hip"), kernel)
    env = dict(os.environ, SWZ_FAKE_SLEEP_MS=str(sleep_ms))
    # The uninterrupted reference.
    ref_dir = os.path.join(work, "reference")
    t0 = time.time()
    p = subprocess.run(optimize_cmd(tools, kernel, ref_dir, iterations), env=env, cwd=work,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=600)
    ref_seconds = time.time() - t0
    if p.returncode != 0:
        raise RuntimeError("reference run failed: " + p.stderr[-500:])
    ok, ref = load_history(os.path.join(ref_dir, "history.json"))
    reference = [key(a) for a in ref["attempts"]]
    log(f"kill storm: reference run {ref_seconds:.1f} s, {len(reference)} attempts")
    stats = {"kill_cycles": 0, "kill_lost_attempts": 0, "kill_repeated_attempts": 0, "kill_unparsable_history": 0,
             "kill_runs_completed": 0, "kill_runs_differing": 0, "reference_seconds": round(ref_seconds, 1),
             "reference_attempts": len(reference), "differences": []}
    run_no = 0
    deadline = time.time() + minutes * 60
    while stats["kill_cycles"] < cycles and time.time() < deadline:
        run_no += 1
        run_dir = os.path.join(work, f"storm-{run_no:03}")
        hist = os.path.join(run_dir, "history.json")
        seen = {}  # iteration -> attempt json, as first seen on disk
        completed = False
        while not completed and time.time() < deadline:
            if os.path.exists(hist):
                cmd = resume_cmd(tools, run_dir)
            else:
                shutil.rmtree(run_dir, ignore_errors=True)  # nothing recorded yet: start again
                cmd = optimize_cmd(tools, kernel, run_dir, iterations)
            kill_cycle = stats["kill_cycles"] < cycles
            errf = tempfile.TemporaryFile()
            proc = subprocess.Popen(cmd, env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=errf,
                                    start_new_session=True)
            delay = rng.uniform(0.05, min(max_delay, max(0.5, ref_seconds / 3)))
            try:
                proc.wait(timeout=delay if kill_cycle else 600)
                completed = proc.returncode == 0
                errf.seek(0)
                err = errf.read().decode(errors="replace")
                if proc.returncode != 0:
                    raise RuntimeError(f"run {run_dir} exited {proc.returncode}: {err[-400:]}")
            except subprocess.TimeoutExpired:
                kill_session(proc.pid)
                proc.wait()
                stats["kill_cycles"] += 1
            errf.close()
            good, h = load_history(hist)
            if not good:
                stats["kill_unparsable_history"] += 1
                shutil.copy(hist, os.path.join(work, f"unparsable-{stats['kill_cycles']}.json"))
                raise RuntimeError(f"history {hist} does not parse after kill {stats['kill_cycles']}")
            now = {a["iteration"]: a for a in (h["attempts"] if h else [])}
            for it, a in seen.items():
                if it not in now or now[it] != a:
                    stats["kill_lost_attempts"] += 1
                    stats["differences"].append(f"{run_dir}: attempt {it} changed or vanished after a kill")
            for it, a in now.items():
                seen.setdefault(it, a)
        if not completed:
            break
        stats["kill_runs_completed"] += 1
        _, h = load_history(hist)
        final = [key(a) for a in h["attempts"]]
        if final != reference:
            stats["kill_runs_differing"] += 1
            fk, rk = set(final), set(reference)
            stats["kill_lost_attempts"] += len([k for k in reference if k not in fk])
            stats["kill_repeated_attempts"] += len(final) - len(fk) + len([k for k in final if k not in rk])
            stats["differences"].append(f"{run_dir}: {len(final)} attempts vs {len(reference)} in the reference")
        log(f"kill storm: run {run_no} completed, {stats['kill_cycles']} kills so far")
        shutil.rmtree(run_dir, ignore_errors=True)
    stats["runs"] = run_no
    return stats


# ---------------------------------------------------------------- fault soak
def start_llm_server(tools, work, seed, rate, faults, delay_ms):
    port_file = os.path.join(work, f"llm-{seed}.port")
    log_file = os.path.join(work, f"llm-{seed}.log")
    cmd = [tools.llm, "--port-file", port_file, "--rate", str(rate), "--seed", str(seed), "--log", log_file,
           "--delay-ms", str(delay_ms), "--lifetime-s", "900"]
    if faults:
        cmd += ["--faults", faults]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if os.path.exists(port_file):
            with open(port_file) as f:
                return proc, int(f.read().strip()), log_file
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("fake_llm_server did not start")


def read_lines(path):
    if not os.path.exists(path):
        return []
    with open(path, errors="replace") as f:
        return [l.rstrip("\n") for l in f if l.strip()]


def one_error_line(stderr):
    lines = [l for l in stderr.splitlines() if l.strip()]
    errs = [l for l in lines if l.startswith("swizzleperf: error: ")]
    return len(errs) == 1 and lines[-1] == errs[0]


def account_tool_faults(fault_lines, history, exit_code, stderr):
    """Fake-tool faults: (injected, unrecorded, notes). A fault in iter-NNN must be an
    attempt NNN with a non-ok status and a reason; one in the baseline must end the run
    with one error line."""
    injected = unrecorded = 0
    notes = []
    attempts = {a["iteration"]: a for a in (history or {}).get("attempts", [])}
    for line in fault_lines:
        injected += 1
        m = re.search(r"/iter-(\d+)/", line)
        if m:
            a = attempts.get(int(m.group(1)))
            if a is None or a["status"] == "ok" or not a.get("reason"):
                # The run may have stopped before recording it: then it must have said so.
                if not (a is None and exit_code != 0 and one_error_line(stderr)):
                    unrecorded += 1
                    notes.append(f"unrecorded: {line[:160]} -> {a and a['status']}")
        elif "/baseline/" in line:
            base = (history or {}).get("baseline")
            if exit_code == 0 or not one_error_line(stderr):
                if not (base and base.get("status") != "ok" and base.get("reason")):
                    unrecorded += 1
                    notes.append(f"baseline fault not reported: {line[:160]} (exit {exit_code})")
        else:
            notes.append(f"fault outside an attempt: {line[:160]}")
    return injected, unrecorded, notes


def account_llm_faults(server_lines, history, exit_code, stderr):
    """LLM faults: the server's requests, in order, against the HTTP exchanges the
    history records (each call's `attempts`). A retried fault is recorded as an extra
    exchange of its call; a call whose last exchange failed, or whose reply could not
    be used, must be a proposal_failed attempt with a reason; a 401 must stop the run
    with one error line. (injected, unrecorded, retried, notes)"""
    kinds = [l.split()[1] for l in server_lines]
    injected = sum(k != "ok" for k in kinds)
    calls = []  # (exchanges, attempt)
    for a in (history or {}).get("attempts", []):
        for c in (a.get("proposal") or {}).get("calls", []):
            calls.append((int(c.get("attempts", 0) or 0), a))
    unrecorded = retried = 0
    notes = []
    pos = 0
    for n, a in calls:
        chunk = kinds[pos:pos + n]
        pos += n
        if not chunk:
            continue
        retried += sum(k != "ok" for k in chunk[:-1])
        last = chunk[-1]
        if last != "ok" and (a["status"] != "proposal_failed" or not a.get("reason")):
            unrecorded += 1
            notes.append(f"iteration {a['iteration']}: last exchange {last} but status {a['status']}")
    rest = kinds[pos:]
    bad_rest = [k for k in rest if k != "ok"]
    if bad_rest:
        # Exchanges after the last recorded call: only a run that stopped with one
        # error line (a refused key, or one more call cut short) accounts for them.
        if exit_code != 0 and one_error_line(stderr):
            pass
        else:
            unrecorded += len(bad_rest)
            notes.append(f"{len(bad_rest)} fault(s) after the last recorded call: {bad_rest}")
    return injected, unrecorded, retried, notes


def check_history_kept(history_ok, history):
    """history_lost: the file does not parse, or attempts are not 1..N in order."""
    if not history_ok:
        return 1
    if history is None:
        return 0
    its = [a["iteration"] for a in history.get("attempts", [])]
    return int(its != sorted(its) or len(set(its)) != len(its))


def soak_run(tools, kernel, run_no, iterations, rate, llm_rate_default, seed, work):
    """One optimize run under faults; returns its share of the soak's numbers."""
    st = {"faults_injected": 0, "faults_unrecorded": 0, "history_lost": 0, "faults_by_kind": {},
          "llm_faults_retried": 0, "runs": 1, "runs_completed": 0, "runs_stopped": 0, "disk_full_runs": 0,
          "notes": []}
    run_dir = os.path.join(work, f"soak-{run_no:03}")
    fault_log = os.path.join(work, f"faults-{run_no:03}.log")
    # Every 10th run only a refused key; every 7th on a small full disk.
    faults = "http401" if run_no % 10 == 0 else "http429,http500,timeout,reset,malformed,truncated,cut_body"
    llm_rate = 0.3 if run_no % 10 == 0 else llm_rate_default
    server, port, server_log = start_llm_server(tools, work, seed * 1000 + run_no, llm_rate, faults, 2500)
    env = dict(os.environ, SWZ_FAKE_FAULT_RATE=str(rate), SWZ_FAKE_FAULT_SEED=str(seed * 1000 + run_no),
               SWZ_FAKE_FAULT_LOG=fault_log)
    if run_no % 5 != 0:
        env["SWZ_FAKE_FAULT_SKIP"] = "/baseline/"  # most runs reach their attempts
    disk_full = run_no % 7 == 0 and os.geteuid() == 0
    mounted = False
    if disk_full:
        os.makedirs(run_dir, exist_ok=True)
        size_kb = 400 + 100 * (run_no % 5)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", run_dir]).returncode == 0
        env["SWZ_FAKE_FAULT_RATE"] = "0"
    cmd = [tools.binary, "optimize", kernel, "--backend", "cuda", "--proposer", "llm", "--base-url",
           f"http://127.0.0.1:{port}/v1", "--model", "fake-llm", "--nvcc", tools.nvcc, "--ncu", tools.ncu,
           "--run-dir", run_dir, "--iterations", str(iterations), "--reps", "3", "--run-timeout", "2",
           "--profile-timeout", "4", "--llm-timeout", "2"]
    with tempfile.TemporaryFile() as errf:
        try:
            p = subprocess.run(cmd, env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=errf, timeout=900,
                               start_new_session=True)
            code = p.returncode
        except subprocess.TimeoutExpired:
            code = 124
            st["notes"].append(f"run {run_no} timed out")
        errf.seek(0)
        err = errf.read().decode(errors="replace")
    server.kill()
    server.wait()
    hist_ok, history = load_history(os.path.join(run_dir, "history.json"))
    st["history_lost"] += check_history_kept(hist_ok, history)
    st["runs_completed"] += int(code == 0)
    st["runs_stopped"] += int(code != 0)
    if code != 0 and not one_error_line(err):
        st["notes"].append(f"run {run_no} exited {code} without one error line: {err[-300:]!r}")
        st["faults_unrecorded"] += 1
    tool_lines = read_lines(fault_log)
    server_lines = read_lines(server_log)
    for k in [l.split()[1] for l in tool_lines] + [l.split()[1] for l in server_lines]:
        if k != "ok":
            st["faults_by_kind"][k] = st["faults_by_kind"].get(k, 0) + 1
    ti, tu, tn = account_tool_faults(tool_lines, history, code, err)
    li, lu, lr, ln = account_llm_faults(server_lines, history, code, err)
    st["faults_injected"] += ti + li
    st["faults_unrecorded"] += tu + lu
    st["llm_faults_retried"] += lr
    st["notes"] += [f"run {run_no}: {n}" for n in tn + ln]
    if disk_full and mounted:
        st["disk_full_runs"] += 1
        st["faults_injected"] += 1
        st["faults_by_kind"]["disk_full"] = st["faults_by_kind"].get("disk_full", 0) + 1
        # Recorded: the run completed (the disk sufficed) or stopped with one line.
        if code != 0 and not one_error_line(err):
            st["faults_unrecorded"] += 1
        if code != 0:
            st["notes"].append(f"run {run_no} (tmpfs {size_kb} KiB): {err.strip().splitlines()[-1][:200] if err.strip() else ''}")
        subprocess.run(["umount", "-l", run_dir])
    log(f"fault soak: run {run_no} exit {code}: {st['faults_injected']} faults, {st['faults_unrecorded']} unrecorded")
    shutil.rmtree(run_dir, ignore_errors=True)
    return st


def fault_soak(tools, target, iterations, rate, llm_rate_default, seed, work, parallel, minutes=50):
    """Runs soak_run `parallel` at a time (they mostly wait on timeouts and backoff)
    until `target` faults were injected (or 50 minutes passed)."""
    import concurrent.futures
    kernel = os.path.join(work, "gemm.hip")
    shutil.copy(os.path.join(ROOT, "kernels", "gemm.hip"), kernel)
    stats = {"faults_injected": 0, "faults_unrecorded": 0, "history_lost": 0, "faults_by_kind": {},
             "llm_faults_retried": 0, "runs": 0, "runs_completed": 0, "runs_stopped": 0, "disk_full_runs": 0,
             "notes": [], "parallel": parallel}
    deadline = time.time() + minutes * 60
    run_no = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        running = set()
        while True:
            while len(running) < parallel and stats["faults_injected"] < target and time.time() < deadline:
                run_no += 1
                running.add(pool.submit(soak_run, tools, kernel, run_no, iterations, rate, llm_rate_default, seed,
                                        work))
            if not running:
                break
            done, running = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
            for f in done:
                st = f.result()
                for k, v in st.items():
                    if k == "faults_by_kind":
                        for kind, n in v.items():
                            stats[k][kind] = stats[k].get(kind, 0) + n
                    elif isinstance(v, list):
                        stats[k] += v
                    else:
                        stats[k] += v
            log(f"fault soak: {stats['faults_injected']} faults injected so far, {stats['faults_unrecorded']} "
                f"unrecorded, {stats['history_lost']} histories lost")
    return stats


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--fuzz-build", default=os.path.join(ROOT, "build-fuzz"))
    ap.add_argument("--fuzz-seconds", type=int, default=120, help="per target")
    ap.add_argument("--kill-cycles", type=int, default=200)
    ap.add_argument("--faults", type=int, default=1000)
    ap.add_argument("--fault-rate", type=float, default=0.3, help="per fake nvcc/ncu call")
    ap.add_argument("--llm-fault-rate", type=float, default=0.7, help="per LLM request")
    ap.add_argument("--kill-iterations", type=int, default=4)
    ap.add_argument("--soak-iterations", type=int, default=8)
    ap.add_argument("--kill-max-delay", type=float, default=20, help="longest wait before a kill, s")
    ap.add_argument("--kill-minutes", type=float, default=40, help="stop the storm after this long")
    ap.add_argument("--soak-minutes", type=float, default=50, help="stop starting soak runs after this long")
    ap.add_argument("--soak-parallel", type=int, default=4, help="soak runs at a time")
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--skip", default="", help="comma list of fuzz,kill,soak to skip")
    ap.add_argument("--fuzz-jobs", type=int, default=1, help="fuzz targets run at a time")
    ap.add_argument("--fuzz-targets", default="", help="comma list of fuzz targets (default: all); the others keep "
                                                         "the numbers of their latest round")
    ap.add_argument("--fuzz-accumulate", action="store_true",
                    help="add this run's fuzz numbers to the same day's earlier ones (a campaign in rounds; "
                         "each round is listed in fuzz_rounds with its commit)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--tag", default="reliability", help="file name: <date>-<tag>.{md,json}")
    a = ap.parse_args()
    skip = set(filter(None, a.skip.split(",")))
    tools = Tools(a.build)
    work = tempfile.mkdtemp(prefix="swz-reliability-")
    started = time.time()
    result = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "machine": f"{platform.node()}: {platform.platform()}, {os.cpu_count()} CPUs (shared), no GPU",
              "commands": [" ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:])], "seed": a.seed,
              "commit": git_commit()}
    try:
        import threading

        def fuzz():
            art = os.path.join(work, "fuzz-artifacts")
            os.makedirs(art)
            only = tuple(filter(None, a.fuzz_targets.split(",")))
            result["fuzz"] = run_fuzz(os.path.join(a.fuzz_build, "tests", "fuzz"), a.fuzz_seconds, art, a.fuzz_jobs, only)
            for v in result["fuzz"].values():
                v.update(round=result["date"], commit=result["commit"])
            result["fuzz_execs_total"] = sum(v["execs"] for v in result["fuzz"].values())
            result["fuzz_crashes_total"] = sum(v["crashes"] for v in result["fuzz"].values())
            result["fuzz_leaks_total"] = sum(v["leaks"] for v in result["fuzz"].values())
            result["fuzz_rounds"] = [{"date": result["date"], "commit": result["commit"], "seconds_per_target": a.fuzz_seconds,
                                      "jobs": a.fuzz_jobs, "in_totals": True, "targets": sorted(result["fuzz"]),
                                      "execs": result["fuzz_execs_total"], "crashes": result["fuzz_crashes_total"],
                                      "leaks": result["fuzz_leaks_total"]}]

        fuzz_thread = None
        if "fuzz" not in skip:  # one niced process at a time, beside the storm and the soak
            fuzz_thread = threading.Thread(target=fuzz)
            fuzz_thread.start()
        # The storm needs CPU (compiles), the soak mostly waits (timeouts, backoff):
        # they run side by side.
        outcome = {}

        def storm():
            try:
                t0 = time.time()
                os.makedirs(os.path.join(work, "kill"))
                ks = kill_storm(tools, a.kill_cycles, a.kill_iterations, 40, a.seed, os.path.join(work, "kill"),
                                a.kill_minutes, a.kill_max_delay)
                ks["seconds"] = round(time.time() - t0, 1)
                outcome["kill"] = ks
            except Exception as e:  # reported, never swallowed
                outcome["kill_error"] = repr(e)

        thread = None
        if "kill" not in skip:
            thread = threading.Thread(target=storm)
            thread.start()
        if "soak" not in skip:
            t0 = time.time()
            os.makedirs(os.path.join(work, "soak"))
            fs_ = fault_soak(tools, a.faults, a.soak_iterations, a.fault_rate, a.llm_fault_rate, a.seed,
                             os.path.join(work, "soak"), a.soak_parallel, a.soak_minutes)
            fs_["seconds"] = round(time.time() - t0, 1)
            result.update({k: fs_.pop(k) for k in ("faults_injected", "faults_unrecorded", "history_lost")})
            result["fault_soak"] = fs_
        if fuzz_thread:
            fuzz_thread.join()
        if thread:
            thread.join()
            if "kill_error" in outcome:
                result["kill_storm_error"] = outcome["kill_error"]
                log("kill storm failed: " + outcome["kill_error"])
            else:
                ks = outcome["kill"]
                result.update({k: ks.pop(k) for k in ("kill_cycles", "kill_lost_attempts", "kill_repeated_attempts")})
                result["kill_storm"] = ks
    finally:
        result["seconds"] = round(time.time() - started, 1)
        os.makedirs(a.out, exist_ok=True)
        day = result["date"][:10]
        base = os.path.join(a.out, f"{day}-{a.tag}")
        # Parts run separately (--skip) on the same day add to one file: what this
        # run measured replaces the same fields, the rest is kept.
        if os.path.exists(base + ".json"):
            with open(base + ".json") as f:
                earlier = json.load(f)
            result["commands"] = earlier.get("commands", []) + result["commands"]
            if "fuzz" in result and "fuzz" in earlier:
                if a.fuzz_accumulate:
                    add_fuzz_round(earlier, result)
                else:
                    replace_fuzz_targets(earlier, result)
            result["seconds"] = round(result["seconds"] + earlier.get("seconds", 0), 1)
            earlier.update(result)
            result = earlier
        with open(base + ".json", "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
        with open(base + ".md", "w") as f:
            f.write(render_md(result))
        shutil.rmtree(work, ignore_errors=True)
        log(f"wrote {base}.json and .md")
    ok = ("kill_storm_error" not in result and result.get("fuzz_crashes_total", 0) == 0 and result.get("kill_lost_attempts", 0) == 0
          and result.get("kill_repeated_attempts", 0) == 0 and result.get("faults_unrecorded", 0) == 0
          and result.get("history_lost", 0) == 0)
    return 0 if ok else 1


def render_md(r):
    out = [f"# Reliability: fuzzing, kill storm, fault soak ({r['date']})", "",
           f"Machine: {r['machine']}. Commands: {', '.join('`' + c + '`' for c in r['commands'])}. "
           f"Total {r['seconds']} s.",
           "Produced by bench/reliability.py (its docstring says what each number means).", ""]
    if "fuzz" in r:
        out += ["## Fuzz campaign (libFuzzer, ASan + UBSan, -detect_leaks=1)", "",
                "| target | execs | crashes | leaks | seconds | commit |", "|---|---|---|---|---|---|"]
        for name, v in r["fuzz"].items():
            out.append(f"| {name} | {v['execs']:,} | {v['crashes']} | {v['leaks']} | {v['seconds']} | {v.get('commit', '')} |")
        out += [f"| **all** | **{r['fuzz_execs_total']:,}** | **{r['fuzz_crashes_total']}** | "
                f"**{r['fuzz_leaks_total']}** | | |", ""]
        for rd in r.get("fuzz_rounds", []):
            out.append(f"- round {rd.get('date')} at commit {rd.get('commit')}: {rd.get('execs', 0):,} execs, "
                       f"{rd.get('crashes', 0)} crashes, {rd.get('leaks', 0)} leaks"
                       + ("" if rd.get("in_totals", True) else " (not in the totals above)")
                       + (f"; {rd['note']}" if rd.get("note") else ""))
        out.append("")
    if "kill_storm_error" in r:
        out += ["## Kill storm", "", f"FAILED: {r['kill_storm_error']}", ""]
    if "kill_cycles" in r:
        k = r["kill_storm"]
        out += ["## Kill storm", "",
                f"- kill_cycles: {r['kill_cycles']} SIGKILLs (whole process tree) at random moments, each followed by `--resume`",
                f"- kill_lost_attempts: {r['kill_lost_attempts']}", f"- kill_repeated_attempts: {r['kill_repeated_attempts']}",
                f"- history unparsable after a kill: {k['kill_unparsable_history']}",
                f"- runs completed: {k['kill_runs_completed']}, differing from the uninterrupted reference "
                f"({k['reference_attempts']} attempts, {k['reference_seconds']} s): {k['kill_runs_differing']}",
                f"- {k['seconds']} s", ""]
        for d in k.get("differences", [])[:20]:
            out.append(f"  - {d}")
    if "faults_injected" in r:
        s = r["fault_soak"]
        out += ["## Fault soak", "", f"- faults_injected: {r['faults_injected']}",
                f"- faults_unrecorded: {r['faults_unrecorded']}", f"- history_lost: {r['history_lost']}",
                f"- LLM faults retried by the client (recorded as extra exchanges of a call): {s['llm_faults_retried']}",
                f"- runs: {s['runs']} ({s['runs_completed']} completed, {s['runs_stopped']} stopped with one error line"
                f"), {s['disk_full_runs']} on a full tmpfs", f"- {s['seconds']} s", "",
                "| fault | injected |", "|---|---|"]
        for kind, n in sorted(s["faults_by_kind"].items()):
            out.append(f"| {kind} | {n} |")
        out.append("")
        for n in s.get("notes", [])[:30]:
            out.append(f"- note: {n}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
