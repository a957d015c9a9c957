#!/usr/bin/env python3
"""Block orders for the locality ground truth (bench/h100_locality_truth.sh). Stdlib only.

Writes a copy of a kernel program with its swizzle region (the text between the
`// swizzleperf:begin` and `// swizzleperf:end` lines) replaced by a named order, and the
region text alone (exactly the bytes spliced between the markers), so that another tool can
evaluate the same region later.

Usage:
  locality_orders.py list INFO [--slugs]      the order labels for the kernel (one a line;
                                              --slugs: "slug<TAB>label<TAB>same-as", same-as the
                                              first earlier label with the identical mapping or -);
                                              an order that is not a bijection on the kernel's grid
                                              is refused (stderr, exit 1), the others still listed
  locality_orders.py write SRC ORDER OUT_PROGRAM OUT_REGION [--info INFO]
                                              writes the program and the region; refuses (exit 1)
                                              an order that is not a bijection on the grid
  locality_orders.py check INFO               evaluates every order on the grid: bijection, the
                                              first tiles, and which orders map identically
  locality_orders.py slug LABEL               the file-name form of a label

INFO is the output of `prog info` (its last JSON line; a file, or - for stdin). Without
--info, `write` checks on the `// swizzleperf:default-grid MxN` comment of SRC (num_pids = m*n).

Orders (labels exactly these):
  identity; reverse (num_pids-1-pid); col_major; scatter(P=p) ((pid * p) % num_pids in 64 bits,
  p prime and coprime with num_pids: the smallest such prime >= max(num_pids/3, 97), and
  1000003 or the next coprime prime after it);
  grouped_m(G=2,4,8,16,32,64); grouped_n(G=2,4,8,16,32); grouped_m_die(G=8); die_rr;
  die_chunk(C=4); die_chunk(C=16); on a 1-D grid (m or n = 1, where the 2-D families are the
  identity) also die_chunk(C=2,8,32,64,256) and scatter(P=p) for the smallest primes coprime
  with num_pids from 3, 9, 31, 65 and 257 (strides: a tile's neighbours P pids apart);
  with program hints (attention_fwd): longest_first(G=1), longest_first(G=8),
  gqa_group(G=n_group,S=n_group_stride).
The built-in families' regions are byte for byte what swizzleperf's built-in proposer
renders for that label (render_family in src/proposer/builtin_proposer.cpp, C++ path), so
they compute exactly what the tool's own families compute; the Python evaluators below
mirror those formulas in 32-bit unsigned arithmetic (SWZ_NUM_DIES from info's num_dies).
"""
import json
import math
import re
import sys

M32 = 0xFFFFFFFF
HEADER = "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
BEGIN, END = "// swizzleperf:begin", "// swizzleperf:end"

# ---- C++ bodies: copied from src/proposer/builtin_proposer.cpp (kDieRr, die_chunk_body,
# grouped_m_tail, grouped_n_body, kColMajor, longest_first_body, gqa_group_body) ----------
K_DIE_RR = """  // Die round-robin inverse: the hardware sends pid to die pid % D, so give
  // die d the contiguous run of logical tiles [d*per, (d+1)*per); neighbouring
  // tiles then share one die's L2. Ragged counts: the first `tall` dies get one more.
  const unsigned D = SWZ_NUM_DIES;
  const unsigned per = (num_pids + D - 1) / D;
  unsigned tall = num_pids % D;
  if (tall == 0) tall = D;
  const unsigned die = pid % D, local = pid / D;
  unsigned q = die < tall ? die * per + local : tall * per + (die - tall) * (per - 1) + local;
"""


def die_chunk_body(c):
    return """  // Chunked die remap: within each block of D*C pids, die d (pid % D) gets
  // C consecutive logical tiles, so runs of C neighbours share an L2. The tail
  // that does not fill a block keeps its order (still a bijection).
  const unsigned D = SWZ_NUM_DIES, C = {};
  const unsigned span = D * C;
  const unsigned full = (num_pids / span) * span;
  unsigned q = pid;
  if (pid < full) {{
    const unsigned base = pid - pid % span, o = pid % span;
    q = base + (o % D) * C + o / D;
  }}
""".format(c)


def grouped_m_tail(src, g):
    return """  // Grouped-M order over the tile grid: walk G tile rows at a time, column by
  // column, so blocks in flight share rows of A and columns of B in L2.
  if (grid.m * grid.n != num_pids) return {0};
  const unsigned G = {1};
  const unsigned width = G * grid.n;
  const unsigned group = {0} / width, first_m = group * G;
  const unsigned gs = grid.m - first_m < G ? grid.m - first_m : G;
  const unsigned pid_m = first_m + ({0} % width) % gs;
  const unsigned pid_n = ({0} % width) / gs;
  return pid_m * grid.n + pid_n;
""".format(src, g)


def grouped_n_body(g):
    return """  // Grouped-N order: walk G tile columns at a time, row by row (the transpose
  // of grouped-M), for kernels whose blocks share columns more than rows.
  if (grid.m * grid.n != num_pids) return pid;
  const unsigned G = {};
  const unsigned height = G * grid.m;
  const unsigned group = pid / height, first_n = group * G;
  const unsigned gs = grid.n - first_n < G ? grid.n - first_n : G;
  const unsigned pid_n = first_n + (pid % height) % gs;
  const unsigned pid_m = (pid % height) / gs;
  return pid_m * grid.n + pid_n;
""".format(g)


K_COL_MAJOR = """  // Column-major order: all rows (query tiles) of one grid column (one problem,
  // e.g. one attention head) run together, so the data they share stays in L2.
  if (grid.m * grid.n != num_pids) return pid;
  return (pid % grid.m) * grid.n + pid / grid.m;
"""


def longest_first_body(g):
    return """  // Longest-first for causal work (row i of a column does i+1 units): bands of G
  // columns, and within a band the rows in descending order, columns fastest, so
  // the long tiles start first and the short ones fill the tail; a band's columns
  // run together and share their data in L2.
  if (grid.m * grid.n != num_pids) return pid;
  const unsigned G = {};
  const unsigned height = G * grid.m;
  const unsigned group = pid / height, first_n = group * G;
  const unsigned gs = grid.n - first_n < G ? grid.n - first_n : G;
  const unsigned pid_n = first_n + (pid % height) % gs;
  const unsigned pid_m = grid.m - 1 - (pid % height) / gs;
  return pid_m * grid.n + pid_n;
""".format(g)


def gqa_group_body(g, s):
    return """  // GQA groups: columns c + S*(k*G + i), i < G, read the same K/V (the G query
  // heads of one K/V head at one batch index). Run one group at a time, row by
  // row with its G columns fastest. Grids that do not split into such groups
  // (other sizes) keep the identity order.
  const unsigned G = {}, S = {};
  if (grid.m * grid.n != num_pids || grid.n % (G * S) != 0) return pid;
  const unsigned span = G * grid.m;
  const unsigned group = pid / span, r = pid % span;
  const unsigned pid_m = r / G;
  const unsigned pid_n = group % S + S * ((group / S) * G + r % G);
  return pid_m * grid.n + pid_n;
""".format(g, s)


def builtin_region(label, body):
    # render_family's C++ wrapper, byte for byte.
    return ("// {} \u2014 proposed by swizzleperf's built-in proposer.\n".format(label) + HEADER +
            "  (void)grid;\n" + body + "}\n")


def own_region(label, what, body):
    return "// {} \u2014 bench/locality_orders.py: {}\n".format(label, what) + HEADER + body + "}\n"


# ---- Python evaluators: the same formulas in 32-bit unsigned arithmetic ------------------
def ev_die_rr_q(pid, n, D):
    per = ((n + D - 1) & M32) // D
    tall = n % D
    if tall == 0:
        tall = D
    die, local = pid % D, pid // D
    if die < tall:
        return (die * per + local) & M32
    return (tall * per + ((die - tall) & M32) * ((per - 1) & M32) + local) & M32


def ev_die_chunk(pid, n, D, C):
    span = D * C
    full = (n // span) * span
    if pid < full:
        base, o = pid - pid % span, pid % span
        return (base + (o % D) * C + o // D) & M32
    return pid


def ev_grouped_m(x, n, m, ncols, G):
    if ((m * ncols) & M32) != n:
        return x
    width = (G * ncols) & M32
    first_m = (x // width) * G
    d = (m - first_m) & M32
    gs = d if d < G else G
    return ((first_m + (x % width) % gs) * ncols + (x % width) // gs) & M32


def ev_grouped_n(pid, n, m, ncols, G, longest=False):
    if ((m * ncols) & M32) != n:
        return pid
    height = (G * m) & M32
    first_n = (pid // height) * G
    d = (ncols - first_n) & M32
    gs = d if d < G else G
    pid_n = first_n + (pid % height) % gs
    pid_m = (pid % height) // gs
    if longest:
        pid_m = (m - 1 - pid_m) & M32
    return (pid_m * ncols + pid_n) & M32


def ev_gqa(pid, n, m, ncols, G, S):
    if ((m * ncols) & M32) != n or ncols % ((G * S) & M32) != 0:
        return pid
    span = (G * m) & M32
    group, r = pid // span, pid % span
    return ((r // G) * ncols + group % S + S * ((group // S) * G + r % G)) & M32


# ---- the orders ---------------------------------------------------------------------------
LABEL_RE = re.compile(r"^([a-z_]+)(?:\(([A-Z]=\d+(?:,[A-Z]=\d+)*)\))?$")


def parse_label(label):
    mt = LABEL_RE.match(label)
    if not mt:
        raise ValueError("bad order label '{}'".format(label))
    params = {}
    if mt.group(2):
        for kv in mt.group(2).split(","):
            k, v = kv.split("=")
            params[k] = int(v)
    return mt.group(1), params


def order(label):
    """(region text, evaluator f(pid, num_pids, m, n, D)) for a label."""
    fam, p = parse_label(label)
    need = {"identity": [], "reverse": [], "col_major": [], "die_rr": [], "scatter": ["P"],
            "grouped_m": ["G"], "grouped_n": ["G"], "grouped_m_die": ["G"], "die_chunk": ["C"],
            "longest_first": ["G"], "gqa_group": ["G", "S"]}
    if fam not in need or sorted(p) != sorted(need[fam]):
        raise ValueError("unknown order '{}'".format(label))
    if any(v <= 0 for v in p.values()):
        raise ValueError("order '{}': parameters must be positive".format(label))
    if fam == "identity":
        return HEADER + "  return pid;\n}\n", lambda pid, n, m, c, D: pid
    if fam == "reverse":
        return (own_region(label, "the launch order reversed.", "  (void)grid;\n  return num_pids - 1 - pid;\n"),
                lambda pid, n, m, c, D: (n - 1 - pid) & M32)
    if fam == "scatter":
        P = p["P"]
        body = ("  (void)grid;\n"
                "  // Tile (pid * P) mod num_pids in 64 bits; P is coprime with num_pids, so a bijection.\n"
                "  const unsigned long long P = {}ull;\n"
                "  return (unsigned)((unsigned long long)pid * P % num_pids);\n").format(P)
        return (own_region(label, "a scattered order (no locality).", body),
                lambda pid, n, m, c, D: (pid * P) % n)
    if fam == "die_rr":
        return builtin_region(label, K_DIE_RR + "  return q;\n"), lambda pid, n, m, c, D: ev_die_rr_q(pid, n, D)
    if fam == "die_chunk":
        C = p["C"]
        return (builtin_region(label, die_chunk_body(C) + "  return q;\n"),
                lambda pid, n, m, c, D: ev_die_chunk(pid, n, D, C))
    if fam == "grouped_m":
        G = p["G"]
        return builtin_region(label, grouped_m_tail("pid", G)), lambda pid, n, m, c, D: ev_grouped_m(pid, n, m, c, G)
    if fam == "grouped_m_die":
        G = p["G"]
        body = K_DIE_RR + "  // Then lay the die-contiguous order q out in grouped-M order.\n" + grouped_m_tail("q", G)
        return builtin_region(label, body), lambda pid, n, m, c, D: ev_grouped_m(ev_die_rr_q(pid, n, D), n, m, c, G)
    if fam == "grouped_n":
        G = p["G"]
        return builtin_region(label, grouped_n_body(G)), lambda pid, n, m, c, D: ev_grouped_n(pid, n, m, c, G)
    if fam == "col_major":
        return (builtin_region(label, K_COL_MAJOR),
                lambda pid, n, m, c, D: ((pid % m) * c + pid // m) & M32 if ((m * c) & M32) == n else pid)
    if fam == "longest_first":
        G = p["G"]
        return (builtin_region(label, longest_first_body(G)),
                lambda pid, n, m, c, D: ev_grouped_n(pid, n, m, c, G, longest=True))
    G, S = p["G"], p["S"]
    return builtin_region(label, gqa_group_body(G, S)), lambda pid, n, m, c, D: ev_gqa(pid, n, m, c, G, S)


def is_prime(x):
    if x < 2:
        return False
    for d in range(2, math.isqrt(x) + 1):
        if x % d == 0:
            return False
    return True


def coprime_prime_from(start, n):
    p = max(start, 2)
    while not (is_prime(p) and math.gcd(p, n) == 1):
        p += 1
    return p


def labels_for(info):
    n = int(info["num_pids"])
    p1 = coprime_prime_from(max(-(-n // 3), 97), n)
    p2 = coprime_prime_from(1000003, n)
    if p2 == p1:
        p2 = coprime_prime_from(p1 + 1, n)
    out = ["identity", "reverse", "col_major", "scatter(P={})".format(p1), "scatter(P={})".format(p2)]
    out += ["grouped_m(G={})".format(g) for g in (2, 4, 8, 16, 32, 64)]
    out += ["grouped_n(G={})".format(g) for g in (2, 4, 8, 16, 32)]
    out += ["grouped_m_die(G=8)", "die_rr", "die_chunk(C=4)", "die_chunk(C=16)"]
    if int(info["grid"]["m"]) == 1 or int(info["grid"]["n"]) == 1:
        # On a 1-D grid the 2-D families map as the identity does, which leaves 7 distinct
        # orders; graded ones instead: runs of C consecutive tiles per die, and strides of a
        # few tiles (a tile's neighbours P pids apart), from near-identity to scattered.
        out += ["die_chunk(C={})".format(c) for c in (2, 8, 32, 64, 256)]
        out += ["scatter(P={})".format(coprime_prime_from(s, n)) for s in (3, 9, 31, 65, 257)]
    hints = info.get("hints")
    if isinstance(hints, dict) and hints:
        out += ["longest_first(G=1)", "longest_first(G=8)"]
        g, s = hints.get("n_group"), hints.get("n_group_stride")
        if isinstance(g, int) and isinstance(s, int) and g >= 1 and s >= 1:
            out.append("gqa_group(G={},S={})".format(g, s))
    return list(dict.fromkeys(out))


def slug(label):
    return re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_")


# ---- the self-check -------------------------------------------------------------------------
def mapping(label, num_pids, m, ncols, dies):
    f = order(label)[1]
    return [f(pid, num_pids, m, ncols, dies) for pid in range(num_pids)]


def bijection_problem(values, num_pids):
    seen = bytearray(num_pids)
    for pid, t in enumerate(values):
        if not 0 <= t < num_pids:
            return "pid {} -> {} is out of range [0, {})".format(pid, t, num_pids)
        if seen[t]:
            return "tile {} is hit twice (again by pid {})".format(t, pid)
        seen[t] = 1
    return None


def geometry(info):
    return int(info["num_pids"]), int(info["grid"]["m"]), int(info["grid"]["n"]), int(info.get("num_dies", 1) or 1)


def read_info(path):
    text = sys.stdin.read() if path == "-" else open(path).read()
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    sys.exit("error: {}: no JSON line (the output of `prog info`)".format(path))


# ---- splicing (as KernelSource: the region is the lines strictly between the markers) -------
def splice(text, region, where):
    lines = text.splitlines(keepends=True)
    begins = [i for i, l in enumerate(lines) if l.strip().startswith(BEGIN)]
    ends = [i for i, l in enumerate(lines) if l.strip().startswith(END)]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        sys.exit("error: {}: expected one '{}' ... '{}' region".format(where, BEGIN, END))
    return "".join(lines[:begins[0] + 1]) + region + "".join(lines[ends[0]:])


def default_grid(text):
    mt = re.search(r"^\s*// swizzleperf:default-grid (\d+)x(\d+)\s*$", text, re.M)
    return (int(mt.group(1)), int(mt.group(2))) if mt else None


def main(argv):
    if len(argv) >= 2 and argv[0] == "slug":
        print(slug(argv[1]))
        return 0
    if len(argv) >= 2 and argv[0] == "list":
        info = read_info(argv[1])
        num_pids, m, ncols, dies = geometry(info)
        bad, first_of = 0, {}
        for label in labels_for(info):
            vals = mapping(label, num_pids, m, ncols, dies)
            prob = bijection_problem(vals, num_pids)
            if prob:
                print("refused {}: not a bijection on {}x{} ({} pids): {}".format(label, m, ncols, num_pids, prob),
                      file=sys.stderr)
                bad += 1
                continue
            same = first_of.setdefault(tuple(vals), label)
            if "--slugs" in argv[2:]:  # slug, label, the first earlier label with the same mapping (or -)
                print("{}\t{}\t{}".format(slug(label), label, same if same != label else "-"))
            else:
                print(label)
        return 1 if bad else 0
    if len(argv) >= 2 and argv[0] == "check":
        info = read_info(argv[1])
        num_pids, m, ncols, dies = geometry(info)
        seen, bad = {}, 0
        for label in labels_for(info):
            vals = mapping(label, num_pids, m, ncols, dies)
            prob = bijection_problem(vals, num_pids)
            bad += prob is not None
            key = hash(tuple(vals))
            same = [l for l in seen.get(key, [])]
            seen.setdefault(key, []).append(label)
            print("{:22s} {}  first tiles {}{}".format(label, "ok " if not prob else "BAD: " + prob,
                                                       vals[:6], "  (same mapping as {})".format(", ".join(same)) if same else ""))
        return 1 if bad else 0
    if len(argv) >= 5 and argv[0] == "write":
        src, label, out_prog, out_region = argv[1:5]
        rest = argv[5:]
        text = open(src).read()
        try:
            region = order(label)[0]
        except ValueError as e:
            sys.exit("error: {}".format(e))
        if "--info" in rest:
            num_pids, m, ncols, dies = geometry(read_info(rest[rest.index("--info") + 1]))
        else:
            g = default_grid(text)
            if not g:
                sys.exit("error: {}: no --info and no '// swizzleperf:default-grid MxN' line".format(src))
            m, ncols = g
            num_pids, dies = m * ncols, 2
        prob = bijection_problem(mapping(label, num_pids, m, ncols, dies), num_pids)
        if prob:
            sys.exit("error: {} is not a bijection on {}x{} ({} pids): {}".format(label, m, ncols, num_pids, prob))
        new = splice(text, region, src)
        with open(out_prog, "w") as f:
            f.write(new)
        with open(out_region, "w") as f:
            f.write(region)
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
