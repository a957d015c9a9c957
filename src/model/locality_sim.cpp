// The simulator behind `swizzleperf predict` (see locality_sim.h for the model). Hot path:
// one set-associative lookup per (piece of a span, granule) pair; pieces are generated on
// the fly from the spans, so memory is the caches plus the footprint itself.
#include "swizzleperf/model/locality_sim.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

namespace swz {

DieCounts& DieCounts::operator+=(const DieCounts& o) {
  tiles += o.tiles;
  requests += o.requests;
  hits += o.hits;
  read_requests += o.read_requests;
  write_requests += o.write_requests;
  read_hits += o.read_hits;
  fabric_read_requests += o.fabric_read_requests;
  fabric_read_hits += o.fabric_read_hits;
  dram_read_bytes += o.dram_read_bytes;
  dram_write_bytes += o.dram_write_bytes;
  cross_die_bytes += o.cross_die_bytes;
  return *this;
}

DieCounts& DieCounts::operator*=(std::uint64_t k) {  // every count, tiles aside
  requests *= k;
  hits *= k;
  read_requests *= k;
  write_requests *= k;
  read_hits *= k;
  fabric_read_requests *= k;
  fabric_read_hits *= k;
  dram_read_bytes *= k;
  dram_write_bytes *= k;
  cross_die_bytes *= k;
  return *this;
}

DieCounts LaunchPrediction::total() const {
  DieCounts t;
  for (const auto& d : dies) t += d;
  return t;
}

namespace {

std::uint64_t sim_hash(std::uint64_t x) {  // splitmix64's finaliser: a set index from a granule key
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

// A set-associative LRU cache of granules, each with a mask of the units (sectors or lines)
// present. Stamps are a global clock; 0 marks an empty way.
class GranuleCache {
 public:
  GranuleCache() = default;
  GranuleCache(std::uint64_t granules, unsigned ways) : ways_(std::max(1u, ways)) {
    sets_ = std::max<std::uint64_t>(1, granules / ways_);
    keys_.assign(sets_ * ways_, 0);
    stamps_.assign(sets_ * ways_, 0);
    masks_.assign(sets_ * ways_, 0);
    owner_.assign(sets_ * ways_, 0);
    seen_.assign(sets_ * ways_, 0);
    first_round_.assign(sets_ * ways_, 0);
  }
  bool empty() const { return sets_ == 0; }
  // Looks `key` up for the units in `mask`: returns the units present; adds `mask` to the
  // granule (allocating it, evicting the set's least recent granule, when absent). `owner`
  // records who filled a fresh granule; *prev_owner gets the owner it had (-1: absent).
  std::uint64_t access(std::uint64_t key, std::uint64_t mask, std::uint64_t now, int owner = 0, int* prev_owner = nullptr) {
    const std::uint64_t w = find(key);
    if (stamps_[w] != 0 && keys_[w] == key) {
      const std::uint64_t present = masks_[w] & mask;
      masks_[w] |= mask;
      stamps_[w] = now;
      if (prev_owner) *prev_owner = owner_[w];
      return present;
    }
    fill(w, key, now, mask, 0, 0);
    owner_[w] = owner;
    if (prev_owner) *prev_owner = -1;
    return 0;
  }

  // A read, on the near side, of an address homed on the other side (H100). The near side
  // holds a copy of a far sector only from its second request on: the first is forwarded
  // and only remembered ("seen"), with the round it was made in. A later request for a seen
  // sector is forwarded again and makes the copy, unless it comes within `window` rounds of
  // the first, while that one is still in flight: then it merges with it (a hit, nothing
  // crosses).
  struct FarRead {
    std::uint64_t held = 0;     // units the near copy has: hits, nothing crosses
    std::uint64_t merged = 0;   // units in flight for an earlier request: hits, nothing crosses
    std::uint64_t forward = 0;  // units that cross the fabric to the home side
  };
  FarRead far_read(std::uint64_t key, std::uint64_t mask, std::uint64_t now, std::uint64_t round, std::uint64_t window) {
    FarRead r;
    const std::uint64_t w = find(key);
    if (stamps_[w] != 0 && keys_[w] == key) {
      r.held = masks_[w] & mask;
      const std::uint64_t again = seen_[w] & mask & ~r.held;
      if (round < first_round_[w] + window) r.merged = again;
      r.forward = mask & ~r.held & ~r.merged;
      masks_[w] |= again & ~r.merged;  // a second request: the near side keeps the copy
      if (mask & ~seen_[w] & ~masks_[w]) first_round_[w] = round;
      seen_[w] |= mask;
      stamps_[w] = now;
      return r;
    }
    fill(w, key, now, 0, mask, round);
    owner_[w] = 0;
    r.forward = mask;
    return r;
  }

 private:
  // The way holding `key` in its set, else the set's least recent way (the victim).
  std::uint64_t find(std::uint64_t key) const {
    const std::uint64_t base = (sim_hash(key) % sets_) * ways_;
    std::uint64_t victim = base;
    for (std::uint64_t w = base; w < base + ways_; ++w) {
      if (stamps_[w] != 0 && keys_[w] == key) return w;
      if (stamps_[w] < stamps_[victim]) victim = w;
    }
    return victim;
  }
  void fill(std::uint64_t w, std::uint64_t key, std::uint64_t now, std::uint64_t mask, std::uint64_t seen, std::uint64_t round) {
    keys_[w] = key;
    stamps_[w] = now;
    masks_[w] = mask;
    seen_[w] = seen;
    first_round_[w] = round;
  }

  unsigned ways_ = 16;
  std::uint64_t sets_ = 0;
  std::vector<std::uint64_t> keys_, stamps_, masks_;
  std::vector<std::uint64_t> seen_, first_round_;  // far_read: units requested once, and the round
  std::vector<int> owner_;
};

struct Sim {
  const MachineModel& m;
  unsigned U = 32;             // unit bytes
  bool far_copy_on_reuse = true;  // SimOptions's
  std::uint64_t in_flight_rounds = 1;
  std::uint64_t round = 0;     // the current round (one phase of every running tile)
  std::vector<GranuleCache> l1;  // per SM/CU (empty: no L1 modelled)
  std::vector<GranuleCache> l2;
  GranuleCache mall;
  std::vector<DieCounts> dies;
  std::uint64_t now = 1, accesses = 0;

  explicit Sim(const MachineModel& mm) : m(mm) {}

  // A read declared in pieces of `piece_units` units (FootprintSpan::piece) on a machine whose
  // L2 fills a line on a partial miss: of the units `missing` on the SMs' own side, those past
  // the first piece of each line come after that piece's fill and hit. Returns how many.
  std::uint64_t filled_by_first_piece(std::uint64_t missing, unsigned piece_units) const {
    if (!piece_units || !missing) return 0;  // nearly every access: no division on the hot path
    const std::uint64_t L = m.line_fill_bytes / U;
    if (L <= piece_units || L > 64 || 64 % L) return 0;
    const std::uint64_t line = L == 64 ? ~0ull : (1ull << L) - 1;
    std::uint64_t later = 0;
    for (std::uint64_t q = 0; q < 64; q += L) {
      const auto n = static_cast<std::uint64_t>(std::popcount((missing >> q) & line));
      if (n > piece_units) later += n - piece_units;
    }
    return later;
  }

  // A read's lookup of `mask` on its address's home side, across the fabric from side `d`:
  // counted there as a read from the fabric (with its hits), the bytes as crossing from
  // `d`. Returns the units the home side held.
  std::uint64_t read_at_home(DieCounts& d, int home, std::uint64_t key, std::uint64_t mask) {
    const std::uint64_t mu = static_cast<std::uint64_t>(std::popcount(mask));
    d.cross_die_bytes += mu * U;
    DieCounts& h = dies[home];
    h.requests += mu;
    h.read_requests += mu;
    h.fabric_read_requests += mu;
    const std::uint64_t there = l2[home].access(key, mask, now, home);
    const std::uint64_t found = static_cast<std::uint64_t>(std::popcount(there));
    h.hits += found;
    h.read_hits += found;
    h.fabric_read_hits += found;
    return there;
  }

  void access(int die, int cu, std::uint64_t key, std::uint64_t mask, bool write, unsigned piece_units = 0) {
    ++accesses;
    ++now;
    // L1 (per SM/CU, persisting across the blocks an SM runs): a read it holds never reaches
    // the L2; writes go through to the L2 (write-through, no allocation).
    if (!l1.empty() && !write) {
      const std::uint64_t in_l1 = l1[cu].access(key, mask, now, cu);
      mask &= ~in_l1;
      if (!mask) return;
    }
    DieCounts& d = dies[die];
    const std::uint64_t units = static_cast<std::uint64_t>(std::popcount(mask));
    d.requests += units;
    GranuleCache& near = l2[m.topology == L2Topology::shared ? 0 : die];
    const int home = m.topology == L2Topology::home_sides ? static_cast<int>(sim_hash(key ^ 0x9e3779b97f4a7c15ull) % m.num_dies) : die;
    if (write) {
      d.write_requests += units;
      d.hits += units;  // Nsight Compute counts write sectors as hits
      near.access(key, mask, now, die);
      if (home != die) {  // the write also reaches its home side across the fabric: another lookup, a hit
        d.cross_die_bytes += units * U;
        DieCounts& h = dies[home];
        h.requests += units;
        h.write_requests += units;
        h.hits += units;
        l2[home].access(key, mask, now, home);
      }
      d.dram_write_bytes += units * U;
      return;
    }
    d.read_requests += units;
    if (home != die && far_copy_on_reuse) {
      // Across the fabric unless the near side holds a copy (from a second request) or the
      // sector is in flight for an earlier one; the near lookup of what crosses reports what
      // the home side found, and only a miss there reads DRAM.
      const GranuleCache::FarRead r = near.far_read(key, mask, now, round, in_flight_rounds);
      const std::uint64_t near_hits = static_cast<std::uint64_t>(std::popcount(r.held | r.merged));
      d.hits += near_hits;
      d.read_hits += near_hits;
      if (!r.forward) return;
      const std::uint64_t mu = static_cast<std::uint64_t>(std::popcount(r.forward));
      const std::uint64_t there = read_at_home(d, home, key, r.forward);
      const std::uint64_t found = static_cast<std::uint64_t>(std::popcount(there));
      const std::uint64_t later = filled_by_first_piece(r.forward & ~there, piece_units);
      d.hits += found + later;
      d.read_hits += found + later;
      d.dram_read_bytes += (mu - found) * U;
      return;
    }
    const std::uint64_t present = near.access(key, mask, now, die);
    const std::uint64_t hit = static_cast<std::uint64_t>(std::popcount(present));
    std::uint64_t missing = mask & ~present;
    const std::uint64_t later = filled_by_first_piece(missing, piece_units);
    d.hits += hit + later;
    d.read_hits += hit + later;
    if (!missing) return;
    if (home != die) {  // across the fabric to the address's home side: another lookup there
      missing &= ~read_at_home(d, home, key, missing);
      if (!missing) return;
    }
    const std::uint64_t mu = static_cast<std::uint64_t>(std::popcount(missing));
    if (!mall.empty()) {
      int filler = -1;
      const std::uint64_t in_mall = mall.access(key, missing, now, die, &filler);
      const std::uint64_t from_mall = static_cast<std::uint64_t>(std::popcount(in_mall));
      if (filler >= 0 && filler != die) d.cross_die_bytes += from_mall * U;
      d.dram_read_bytes += (mu - from_mall) * U;
      return;
    }
    d.dram_read_bytes += mu * U;
  }
};

// Granule accesses the launch costs at granule G (pieces of spans plus granules touched).
double estimate_accesses(const LaunchFootprint& lf, std::uint64_t G, unsigned phases) {
  double est = 0;
  for (const auto& s : lf.spans) {
    const double pieces = s.walk == SpanWalk::parallel ? static_cast<double>(s.count) * phases
                          : s.walk == SpanWalk::runs   ? static_cast<double>(s.count) + phases
                                                       : static_cast<double>(s.count);
    est += pieces + static_cast<double>(s.total_bytes()) / static_cast<double>(G);
  }
  return est;
}

}  // namespace

// ---- the order-independent part: granule, sampling, phases, and each phase's accesses ----

namespace {

// An access's key carries, above the buffer (bits 48-55) and granule, whether it writes (bit
// 63) and the piece of a read in units (bits 56-62, 0: none); Sim::access gets them apart.
constexpr std::uint64_t kWriteBit = 1ull << 63;
constexpr unsigned kPieceShift = 56;
constexpr std::uint64_t kPieceMask = 0x7Full << kPieceShift;
constexpr std::uint64_t kMetaBits = kWriteBit | kPieceMask;

// One access, its key as touch() encodes it, to the simulator.
void issue(Sim& sim, int die, int cu, std::uint64_t key, std::uint64_t mask) {
  sim.access(die, cu, key & ~kMetaBits, mask, (key & kWriteBit) != 0, static_cast<unsigned>((key & kPieceMask) >> kPieceShift));
}

}  // namespace

struct LaunchSimulator::Impl {
  // A kept granule access. (Nested, not file-local: a member of Impl may not have a type
  // from an anonymous namespace, -Wsubobject-linkage.)
  struct Access {
    std::uint64_t key;   // buffer << 48 ^ granule; bit 63: a write; bits 56-62: a read's piece in units
    std::uint64_t mask;  // units of the granule touched
  };
  const LaunchFootprint& lf;
  MachineModel m;
  SimOptions opt;
  std::uint64_t G = 128, sample = 1, granules_per_die = 1;
  unsigned U = 32, resident = 1;
  std::uint64_t l1_bytes = 0;  // per SM/CU, after the shared-memory carve-out
  std::string residency_limit;
  std::vector<std::uint32_t> phases;  // per tile
  // Kept accesses (keep = true): tile t's phase p is acc[phase_begin[tile_base[t] + p] ..
  // phase_begin[tile_base[t] + p + 1]).
  bool kept = false;
  std::vector<std::uint64_t> tile_base, phase_begin;
  std::vector<Access> acc;

  Impl(const LaunchFootprint& l, const MachineModel& mm, const SimOptions& o) : lf(l), m(mm), opt(o) {}

  std::uint64_t units_mask(std::uint64_t lo, std::uint64_t hi, std::uint64_t gs) const {
    const std::uint64_t a = (lo - gs) / U, b = (hi - gs + U - 1) / U;
    const std::uint64_t n = b - a;
    return (n >= 64 ? ~0ull : ((1ull << n) - 1)) << a;
  }
  // The sampled granule accesses of bytes [a, b) of `buffer`. Sampling is decided per granule
  // (by hash): sampling whole pages would correlate a page's granules, which breaks the
  // scaled-down caches once they hold few pages (an SM's L1 at a high sampling rate).
  template <class F>
  void touch(const FootprintSpan& s, std::uint64_t a, std::uint64_t b, F&& f) const {
    if (b <= a) return;
    const std::uint32_t buffer = s.buffer;
    const bool write = s.write;
    // A piece of a line or more, or one the units cannot express, is no piece.
    const std::uint64_t pu = !write && s.piece ? (s.piece + U - 1) / U : 0;
    const std::uint64_t meta = (write ? kWriteBit : 0) | (pu > 0 && pu < 0x7F ? pu << kPieceShift : 0);
    const std::uint64_t base = static_cast<std::uint64_t>(buffer) << 48;
    for (std::uint64_t g = a / G, last = (b - 1) / G; g <= last; ++g) {
      const std::uint64_t key = base ^ g;
      if (sample > 1 && (sim_hash(key ^ 0x5bd1e995ull) & (sample - 1)) != 0) continue;
      const std::uint64_t gs = g * G;
      f(key | meta, units_mask(std::max(a, gs), std::min(b, gs + G), gs));
    }
  }
  // Every access of phase p (of P) of tile t, in order.
  template <class F>
  void phase_accesses(std::uint64_t t, unsigned p, unsigned P, F&& f) const {
    for (std::uint32_t k = lf.tile_begin[t]; k < lf.tile_begin[t + 1]; ++k) {
      const FootprintSpan& s = lf.spans[k];
      switch (s.walk) {
        case SpanWalk::once: {
          if (s.write ? p + 1 != P : p != 0) break;
          if (s.count == 1 || s.stride == s.bytes) touch(s, s.offset, s.offset + s.bytes * s.count, f);
          else
            for (std::uint64_t i = 0; i < s.count; ++i)
              touch(s, s.offset + i * s.stride, s.offset + i * s.stride + s.bytes, f);
          break;
        }
        case SpanWalk::parallel: {
          const std::uint64_t lo = s.bytes * p / P / U * U, hi = p + 1 == P ? s.bytes : s.bytes * (p + 1) / P / U * U;
          if (hi <= lo) break;
          for (std::uint64_t i = 0; i < s.count; ++i) {
            const std::uint64_t base = s.offset + i * s.stride;
            touch(s, base + lo, base + hi, f);
          }
          break;
        }
        case SpanWalk::runs: {
          const std::uint64_t T = s.total_bytes();
          const std::uint64_t lo = T * p / P / U * U, hi = p + 1 == P ? T : T * (p + 1) / P / U * U;
          if (hi <= lo) break;
          if (s.count == 1 || s.stride == s.bytes) {
            touch(s, s.offset + lo, s.offset + hi, f);
            break;
          }
          for (std::uint64_t i = lo / s.bytes; i < s.count && i * s.bytes < hi; ++i) {
            const std::uint64_t a = std::max(lo, i * s.bytes) - i * s.bytes, b = std::min(hi, (i + 1) * s.bytes) - i * s.bytes;
            touch(s, s.offset + i * s.stride + a, s.offset + i * s.stride + b, f);
          }
          break;
        }
      }
    }
  }
};

LaunchSimulator::LaunchSimulator(const LaunchFootprint& lf, const MachineModel& m, const SimOptions& opt, bool keep)
    : impl_(std::make_unique<Impl>(lf, m, opt)) {
  Impl& x = *impl_;
  const std::uint64_t tiles = lf.tiles();
  const Residency res = resident_blocks(m, lf.block);
  x.resident = opt.resident_override ? opt.resident_override : res.blocks;
  x.residency_limit = opt.resident_override ? "given" : res.limit;
  x.l1_bytes = opt.model_l1 ? l1_bytes_per_cu(m, lf.block, x.resident) : 0;
  const unsigned phases = std::max(1u, opt.phases);
  x.U = m.sector_bytes;
  x.G = std::clamp<std::uint64_t>(opt.granule_units, 1, 64) * x.U;
  if (x.G < 128) x.G = 128;              // at least an L2 line
  if (x.G > 4096) x.G = 4096;
  x.granules_per_die = std::max<std::uint64_t>(1, m.l2_bytes_per_die / x.G);
  // Set sampling: simulate 1 in R granules (by page hash) in caches R times smaller, keeping
  // at least min_sets sets per cache, so the cost fits the budget; counts are scaled back.
  const double est = estimate_accesses(lf, x.G, phases);
  while (x.sample < 1024 && est / static_cast<double>(x.sample) > static_cast<double>(opt.max_accesses) &&
         x.granules_per_die / (x.sample * 2) >= static_cast<std::uint64_t>(opt.min_sets) * m.l2_ways)
    x.sample *= 2;
  // Work per tile (bytes) -> phases per tile.
  std::vector<std::uint64_t> work(tiles, 0);
  double mean = 0;
  for (std::uint64_t t = 0; t < tiles; ++t) {
    for (std::uint32_t k = lf.tile_begin[t]; k < lf.tile_begin[t + 1]; ++k) work[t] += lf.spans[k].total_bytes();
    mean += static_cast<double>(work[t]);
  }
  mean = tiles ? mean / static_cast<double>(tiles) : 0;
  const double per_phase = mean > 0 ? mean / phases : 1;
  x.phases.resize(tiles);
  for (std::uint64_t t = 0; t < tiles; ++t)
    x.phases[t] = static_cast<std::uint32_t>(std::clamp<double>(std::round(static_cast<double>(work[t]) / per_phase), 1.0, 64.0 * phases));
  if (!keep) return;
  x.kept = true;
  x.tile_base.resize(tiles + 1);
  std::uint64_t total_phases = 0;
  for (std::uint64_t t = 0; t < tiles; ++t) {
    x.tile_base[t] = total_phases;
    total_phases += x.phases[t];
  }
  x.tile_base[tiles] = total_phases;
  x.phase_begin.reserve(total_phases + 1);
  x.acc.reserve(static_cast<std::size_t>(std::min(est / static_cast<double>(x.sample) * 1.2 + 1024, 64e6)));
  for (std::uint64_t t = 0; t < tiles; ++t)
    for (unsigned p = 0; p < x.phases[t]; ++p) {
      x.phase_begin.push_back(x.acc.size());
      x.phase_accesses(t, p, x.phases[t], [&](std::uint64_t key, std::uint64_t mask) { x.acc.push_back({key, mask}); });
    }
  x.phase_begin.push_back(x.acc.size());
}

LaunchSimulator::~LaunchSimulator() = default;

LaunchPrediction LaunchSimulator::run(const std::vector<std::uint32_t>& pid_to_tile) const {
  const Impl& x = *impl_;
  const LaunchFootprint& lf = x.lf;
  const MachineModel& m = x.m;
  LaunchPrediction out;
  out.grid = lf.grid;
  out.resident_per_cu = x.resident;
  out.residency_limit = x.residency_limit;
  out.granule_bytes = x.G;
  out.sample = x.sample;
  const std::uint64_t tiles = lf.tiles();
  Sim sim(m);
  sim.U = x.U;
  sim.far_copy_on_reuse = x.opt.far_copy_on_reuse;
  sim.in_flight_rounds = x.opt.in_flight_rounds;
  const int D = std::max(1, m.num_dies);
  sim.dies.assign(D, DieCounts{});
  const std::uint64_t granules = std::max<std::uint64_t>(1, x.granules_per_die / x.sample);
  if (m.topology == L2Topology::shared) sim.l2.emplace_back(granules * D, m.l2_ways);
  else
    for (int d = 0; d < D; ++d) sim.l2.emplace_back(granules, m.l2_ways);
  if (m.mall_bytes) sim.mall = GranuleCache(std::max<std::uint64_t>(1, m.mall_bytes / x.G / x.sample), 16);

  auto tile_of = [&](std::uint64_t pid) -> std::uint64_t {
    if (!lf.swizzled || pid_to_tile.size() != tiles) return pid;
    const std::uint64_t t = pid_to_tile[pid];
    return t < tiles ? t : pid;
  };
  auto run_phase = [&](int die, int cu, std::uint64_t t, unsigned p) {
    if (x.kept) {
      const std::uint64_t i0 = x.phase_begin[x.tile_base[t] + p], i1 = x.phase_begin[x.tile_base[t] + p + 1];
      for (std::uint64_t i = i0; i < i1; ++i) issue(sim, die, cu, x.acc[i].key, x.acc[i].mask);
    } else {
      x.phase_accesses(t, p, x.phases[t], [&](std::uint64_t key, std::uint64_t mask) { issue(sim, die, cu, key, mask); });
    }
  };

  // Slots: resident tiles per CU x CUs, each on a die.
  const std::uint64_t per_die = static_cast<std::uint64_t>(x.resident) * m.cus_per_die;
  const std::uint64_t S = per_die * D;
  struct Slot {
    int die = 0, cu = 0;
    unsigned wait = 0;  // rounds before its first tile starts
    bool busy = false;
    std::uint64_t tile = 0;
    unsigned phase = 0, P = 1;
  };
  std::vector<Slot> slots(S);
  std::vector<std::uint64_t> next_of_die(D, 0);  // round robin: the next pid index of each die's queue
  std::uint64_t next_pid = 0;
  const std::uint64_t CUs = static_cast<std::uint64_t>(m.cus_per_die) * D;
  // Slots are in the first wave's pid order: slot s takes pid s first, so the staggered
  // starts and each round's order (which decides, say, which XCD's miss fills the Infinity
  // Cache) follow the dispatch order. On round robin, slot s is on die s % D, the
  // (s / D)-th slot of that die; die-major slots started die 0's whole first wave before
  // die 1's pid 1 and made die 0 the first reader of every shared line.
  for (std::uint64_t s = 0; s < S; ++s) {
    if (m.round_robin) {
      const auto dies = static_cast<std::uint64_t>(D);
      slots[s].die = static_cast<int>(s % dies);
      slots[s].cu = static_cast<int>(static_cast<std::uint64_t>(slots[s].die) * m.cus_per_die + (s / dies) % m.cus_per_die);
    } else {
      slots[s].cu = static_cast<int>(s % CUs);  // the first wave: one block per SM, then the next round
      slots[s].die = !m.first_wave_die.empty() ? std::clamp(m.first_wave_die[s % CUs % m.first_wave_die.size()], 0, D - 1)
                                               : static_cast<int>(s % D);
    }
  }
  if (x.l1_bytes > 0) {
    const std::uint64_t g1 = std::max<std::uint64_t>(1, x.l1_bytes / x.G / x.sample);
    // Sampled down to a few sets, a 16-way L1 would add conflict misses that the real one,
    // with its many sets, does not have: below 128 granules it is one fully associative set.
    sim.l1.assign(CUs, GranuleCache(g1, static_cast<unsigned>(g1 < 128 ? g1 : 16)));
  }
  auto assign = [&](Slot& sl) {
    std::uint64_t pid;
    if (m.round_robin) {
      pid = next_of_die[sl.die] * D + static_cast<std::uint64_t>(sl.die);
      if (pid >= tiles) return;
      ++next_of_die[sl.die];
    } else {
      if (next_pid >= tiles) return;
      pid = next_pid++;
    }
    sl.busy = true;
    sl.tile = tile_of(pid);
    sl.phase = 0;
    sl.P = x.phases[sl.tile];
    ++sim.dies[sl.die].tiles;
  };
  // The first wave, in pid order, with staggered starts: in the steady state of a launch of
  // many waves blocks finish (and new ones start) spread evenly over a tile's run time, so
  // pid p + k starts about k / S of a tile's time after pid p. (A launch that starts all of
  // its first wave at once desynchronises within a wave or two.)
  double mean_p = 0;
  for (auto ph : x.phases) mean_p += ph;
  mean_p = x.phases.empty() ? 1 : mean_p / static_cast<double>(x.phases.size());
  for (std::uint64_t i = 0; i < S; ++i) {
    assign(slots[i]);
    if (x.opt.stagger) slots[i].wait = static_cast<unsigned>(static_cast<double>(i) * mean_p / static_cast<double>(S));
  }
  std::vector<std::size_t> freed;
  bool any = true;
  while (any) {
    any = false;
    freed.clear();
    ++sim.round;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      Slot& sl = slots[i];
      if (!sl.busy) continue;
      any = true;
      if (sl.wait > 0) {
        --sl.wait;
        continue;
      }
      run_phase(sl.die, sl.cu, sl.tile, sl.phase);
      if (++sl.phase >= sl.P) {
        sl.busy = false;
        freed.push_back(i);
      }
    }
    for (std::size_t i : freed) assign(slots[i]);
  }
  out.accesses = sim.accesses;
  if (x.sample > 1)
    for (auto& d : sim.dies) d *= x.sample;
  out.dies = std::move(sim.dies);
  return out;
}

LaunchPrediction simulate_launch(const LaunchFootprint& lf, const std::vector<std::uint32_t>& pid_to_tile,
                                 const MachineModel& m, const SimOptions& opt) {
  return LaunchSimulator(lf, m, opt, false).run(pid_to_tile);
}

}  // namespace swz
