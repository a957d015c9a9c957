// Each family exactly as its C++ template in builtin_proposer.cpp, in unsigned 32-bit
// arithmetic (the region's), one pid at a time.
#include "swizzleperf/proposer/family_order.h"

namespace swz {

namespace {

using u32 = std::uint32_t;

u32 order_die_rr(u32 pid, u32 num_pids, u32 D) {
  const u32 per = (num_pids + D - 1) / D;
  u32 tall = num_pids % D;
  if (tall == 0) tall = D;
  const u32 die = pid % D, local = pid / D;
  return die < tall ? die * per + local : tall * per + (die - tall) * (per - 1) + local;
}

u32 order_grouped_m(u32 src, u32 num_pids, TileGrid g, u32 G) {
  if (g.m * g.n != num_pids) return 0;
  const u32 width = G * g.n;
  const u32 group = src / width, first_m = group * G;
  const u32 gs = g.m - first_m < G ? g.m - first_m : G;
  const u32 pid_m = first_m + (src % width) % gs;
  const u32 pid_n = (src % width) / gs;
  return pid_m * g.n + pid_n;
}

u32 order_grouped_n(u32 pid, u32 num_pids, TileGrid g, u32 G, bool longest) {
  if (g.m * g.n != num_pids) return pid;
  const u32 height = G * g.m;
  const u32 group = pid / height, first_n = group * G;
  const u32 gs = g.n - first_n < G ? g.n - first_n : G;
  const u32 pid_n = first_n + (pid % height) % gs;
  const u32 pid_m = longest ? g.m - 1 - (pid % height) / gs : (pid % height) / gs;
  return pid_m * g.n + pid_n;
}

u32 order_one(const FamilyCandidate& c, u32 pid, u32 num_pids, TileGrid g, u32 D) {
  const std::string& f = c.family;
  const u32 P = static_cast<u32>(c.param);
  if (f == "die_rr") return order_die_rr(pid, num_pids, D);
  if (f == "die_chunk") {
    const u32 span = D * P, full = (num_pids / span) * span;
    if (pid >= full) return pid;
    const u32 base = pid - pid % span, o = pid % span;
    return base + (o % D) * P + o / D;
  }
  if (f == "grouped_m") return order_grouped_m(pid, num_pids, g, P);
  if (f == "grouped_n") return order_grouped_n(pid, num_pids, g, P, false);
  if (f == "longest_first") return order_grouped_n(pid, num_pids, g, P, true);
  if (f == "grouped_m_die") return order_grouped_m(order_die_rr(pid, num_pids, D), num_pids, g, P);
  if (f == "col_major") return g.m * g.n != num_pids ? pid : (pid % g.m) * g.n + pid / g.m;
  if (f == "gqa_group") {
    const u32 G = static_cast<u32>(c.n_group), S = static_cast<u32>(c.n_stride);
    if (g.m * g.n != num_pids || G * S == 0 || g.n % (G * S) != 0) return pid;
    const u32 span = G * g.m, group = pid / span, r = pid % span;
    return (r / G) * g.n + group % S + S * ((group / S) * G + r % G);
  }
  return pid;
}

}  // namespace

std::vector<std::uint32_t> family_order(const FamilyCandidate& c, TileGrid grid, int num_dies) {
  const u32 n = static_cast<u32>(grid.num_pids());
  const u32 D = static_cast<u32>(num_dies > 0 ? num_dies : 1);
  std::vector<std::uint32_t> out(n);
  if (c.family == "topo_group") {  // the rank loop is quadratic in the wave: precompute it
    const u32 W = static_cast<u32>(c.table.size()), lim = n < W ? n : W;
    std::vector<u32> q(lim);
    u32 zeros = 0;
    for (u32 p = 0; p < lim; ++p) zeros += c.table[p] != 1;
    u32 r0 = 0, r1 = 0;
    for (u32 p = 0; p < lim; ++p) q[p] = c.table[p] == 1 ? zeros + r1++ : r0++;
    for (u32 pid = 0; pid < n; ++pid) out[pid] = order_grouped_m(pid < lim ? q[pid] : pid, n, grid, static_cast<u32>(c.param));
    return out;
  }
  for (u32 pid = 0; pid < n; ++pid) out[pid] = order_one(c, pid, n, grid, D);
  return out;
}

}  // namespace swz
