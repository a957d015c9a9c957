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
  dram_read_bytes += o.dram_read_bytes;
  dram_write_bytes += o.dram_write_bytes;
  cross_die_bytes += o.cross_die_bytes;
  return *this;
}

DieCounts LaunchPrediction::total() const {
  DieCounts t;
  for (const auto& d : dies) t += d;
  return t;
}

namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser: a set index from a granule key
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
  }
  bool empty() const { return sets_ == 0; }
  // Looks `key` up for the units in `mask`: returns the units present; adds `mask` to the
  // granule (allocating it, evicting the set's least recent granule, when absent). `owner`
  // records who filled a fresh granule; *prev_owner gets the owner it had (-1: absent).
  std::uint64_t access(std::uint64_t key, std::uint64_t mask, std::uint64_t now, int owner = 0, int* prev_owner = nullptr) {
    const std::uint64_t base = (mix(key) % sets_) * ways_;
    std::uint64_t victim = base;
    for (std::uint64_t w = base; w < base + ways_; ++w) {
      if (stamps_[w] != 0 && keys_[w] == key) {
        const std::uint64_t present = masks_[w] & mask;
        masks_[w] |= mask;
        stamps_[w] = now;
        if (prev_owner) *prev_owner = owner_[w];
        return present;
      }
      if (stamps_[w] < stamps_[victim]) victim = w;
    }
    keys_[victim] = key;
    stamps_[victim] = now;
    masks_[victim] = mask;
    owner_[victim] = owner;
    if (prev_owner) *prev_owner = -1;
    return 0;
  }

 private:
  unsigned ways_ = 16;
  std::uint64_t sets_ = 0;
  std::vector<std::uint64_t> keys_, stamps_, masks_;
  std::vector<int> owner_;
};

struct Sim {
  const LaunchFootprint& lf;
  const MachineModel& m;
  std::uint64_t G = 128;       // granule bytes
  unsigned U = 32;             // unit bytes
  std::vector<GranuleCache> l2;
  GranuleCache mall;
  std::vector<DieCounts> dies;
  std::uint64_t now = 1, accesses = 0;
  std::uint64_t sample = 1;    // set sampling: 1 in `sample` granules (by hash) is simulated

  Sim(const LaunchFootprint& l, const MachineModel& mm) : lf(l), m(mm) {}

  std::uint64_t units_mask(std::uint64_t lo, std::uint64_t hi, std::uint64_t granule_start) const {
    // units of [lo, hi) within the granule at granule_start (hi > lo)
    const std::uint64_t a = (lo - granule_start) / U, b = (hi - granule_start + U - 1) / U;  // [a, b)
    const std::uint64_t n = b - a;
    const std::uint64_t bits = n >= 64 ? ~0ull : ((1ull << n) - 1);
    return bits << a;
  }

  // Set sampling is decided per 4 KB page (by hash), so an unsampled page is skipped whole.
  static constexpr std::uint64_t kPage = 4096;
  bool sampled_page(std::uint32_t buffer, std::uint64_t page) const {
    return sample <= 1 || (mix((static_cast<std::uint64_t>(buffer) << 44) ^ page ^ 0x5bd1e995ull) & (sample - 1)) == 0;
  }

  void touch(int die, std::uint32_t buffer, std::uint64_t a, std::uint64_t b, bool write) {
    while (a < b) {
      const std::uint64_t page_end = std::min(b, (a / kPage + 1) * kPage);
      if (sampled_page(buffer, a / kPage)) {
        for (std::uint64_t g = a / G; g <= (page_end - 1) / G; ++g) {
          const std::uint64_t gs = g * G;
          const std::uint64_t lo = std::max(a, gs), hi = std::min(page_end, gs + G);
          access(die, (static_cast<std::uint64_t>(buffer) << 48) ^ g, units_mask(lo, hi, gs), write);
        }
      }
      a = page_end;
    }
  }

  void access(int die, std::uint64_t key, std::uint64_t mask, bool write) {
    ++accesses;
    ++now;
    DieCounts& d = dies[die];
    const std::uint64_t units = static_cast<std::uint64_t>(std::popcount(mask));
    d.requests += units;
    GranuleCache& near = l2[m.topology == L2Topology::shared ? 0 : die];
    const int home = m.topology == L2Topology::home_sides ? static_cast<int>(mix(key ^ 0x9e3779b97f4a7c15ull) % m.num_dies) : die;
    if (write) {
      d.write_requests += units;
      d.hits += units;  // Nsight Compute counts write sectors as hits
      near.access(key, mask, now, die);
      if (home != die) d.cross_die_bytes += units * U;
      d.dram_write_bytes += units * U;
      return;
    }
    d.read_requests += units;
    const std::uint64_t present = near.access(key, mask, now, die);
    const std::uint64_t hit = static_cast<std::uint64_t>(std::popcount(present));
    d.hits += hit;
    std::uint64_t missing = mask & ~present;
    if (!missing) return;
    if (home != die) {  // across the fabric to the address's home side: another lookup there
      const std::uint64_t mu = static_cast<std::uint64_t>(std::popcount(missing));
      d.cross_die_bytes += mu * U;
      DieCounts& h = dies[home];
      h.requests += mu;
      h.read_requests += mu;
      const std::uint64_t there = l2[home].access(key, missing, now, home);
      h.hits += static_cast<std::uint64_t>(std::popcount(there));
      missing &= ~there;
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

LaunchPrediction simulate_launch(const LaunchFootprint& lf, const std::vector<std::uint32_t>& pid_to_tile,
                                 const MachineModel& m, const SimOptions& opt) {
  LaunchPrediction out;
  out.grid = lf.grid;
  const std::uint64_t tiles = lf.tiles();
  const Residency res = resident_blocks(m, lf.block);
  out.resident_per_cu = opt.resident_override ? opt.resident_override : res.blocks;
  out.residency_limit = opt.resident_override ? "given" : res.limit;
  const unsigned phases = std::max(1u, opt.phases);
  Sim sim(lf, m);
  sim.U = m.sector_bytes;
  sim.G = std::clamp<std::uint64_t>(opt.granule_units, 1, 64) * sim.U;
  if (sim.G < 128) sim.G = 128;        // at least an L2 line
  if (sim.G > Sim::kPage) sim.G = Sim::kPage;  // sampling works in whole pages
  out.granule_bytes = sim.G;
  const int D = std::max(1, m.num_dies);
  sim.dies.assign(D, DieCounts{});
  std::uint64_t granules_per_die = std::max<std::uint64_t>(1, m.l2_bytes_per_die / sim.G);
  // Set sampling: simulate 1 in R granules (by hash) in caches R times smaller, keeping at
  // least min_sets sets per cache, so the cost fits the budget; counts are scaled back.
  const double est = estimate_accesses(lf, sim.G, phases);
  while (sim.sample < 1024 && est / static_cast<double>(sim.sample) > static_cast<double>(opt.max_accesses) &&
         granules_per_die / (sim.sample * 2) >= static_cast<std::uint64_t>(opt.min_sets) * m.l2_ways)
    sim.sample *= 2;
  out.sample = sim.sample;
  granules_per_die = std::max<std::uint64_t>(1, granules_per_die / sim.sample);
  if (m.topology == L2Topology::shared) sim.l2.emplace_back(granules_per_die * D, m.l2_ways);
  else
    for (int d = 0; d < D; ++d) sim.l2.emplace_back(granules_per_die, m.l2_ways);
  if (m.mall_bytes) sim.mall = GranuleCache(std::max<std::uint64_t>(1, m.mall_bytes / sim.G / sim.sample), 16);

  // Work per tile (bytes) -> phases per tile.
  std::vector<std::uint64_t> work(tiles, 0);
  double mean = 0;
  for (std::uint64_t t = 0; t < tiles; ++t) {
    for (std::uint32_t k = lf.tile_begin[t]; k < lf.tile_begin[t + 1]; ++k) work[t] += lf.spans[k].total_bytes();
    mean += static_cast<double>(work[t]);
  }
  mean = tiles ? mean / static_cast<double>(tiles) : 0;
  const double per_phase = mean > 0 ? mean / phases : 1;
  auto phases_of = [&](std::uint64_t t) {
    return static_cast<unsigned>(std::clamp<double>(std::round(static_cast<double>(work[t]) / per_phase), 1.0, 64.0 * phases));
  };

  auto tile_of = [&](std::uint64_t pid) -> std::uint64_t {
    if (!lf.swizzled || pid_to_tile.size() != tiles) return pid;
    const std::uint64_t t = pid_to_tile[pid];
    return t < tiles ? t : pid;
  };

  // One phase of tile t on die `die`.
  auto run_phase = [&](int die, std::uint64_t t, unsigned p, unsigned P) {
    for (std::uint32_t k = lf.tile_begin[t]; k < lf.tile_begin[t + 1]; ++k) {
      const FootprintSpan& s = lf.spans[k];
      switch (s.walk) {
        case SpanWalk::once: {
          const bool now_ = s.write ? p + 1 == P : p == 0;
          if (!now_) break;
          if (s.count == 1 || s.stride == s.bytes) sim.touch(die, s.buffer, s.offset, s.offset + s.bytes * s.count, s.write);
          else
            for (std::uint64_t i = 0; i < s.count; ++i)
              sim.touch(die, s.buffer, s.offset + i * s.stride, s.offset + i * s.stride + s.bytes, s.write);
          break;
        }
        case SpanWalk::parallel: {
          const std::uint64_t lo = s.bytes * p / P / sim.U * sim.U, hi = p + 1 == P ? s.bytes : s.bytes * (p + 1) / P / sim.U * sim.U;
          if (hi <= lo) break;
          for (std::uint64_t i = 0; i < s.count; ++i) {
            const std::uint64_t base = s.offset + i * s.stride;
            sim.touch(die, s.buffer, base + lo, base + hi, s.write);
          }
          break;
        }
        case SpanWalk::runs: {
          const std::uint64_t T = s.total_bytes();
          const std::uint64_t lo = T * p / P / sim.U * sim.U, hi = p + 1 == P ? T : T * (p + 1) / P / sim.U * sim.U;
          if (hi <= lo) break;
          if (s.count == 1 || s.stride == s.bytes) {
            sim.touch(die, s.buffer, s.offset + lo, s.offset + hi, s.write);
            break;
          }
          for (std::uint64_t i = lo / s.bytes; i < s.count && i * s.bytes < hi; ++i) {
            const std::uint64_t a = std::max(lo, i * s.bytes) - i * s.bytes, b = std::min(hi, (i + 1) * s.bytes) - i * s.bytes;
            sim.touch(die, s.buffer, s.offset + i * s.stride + a, s.offset + i * s.stride + b, s.write);
          }
          break;
        }
      }
    }
  };

  // Slots: resident tiles per CU x CUs, each on a die.
  const std::uint64_t per_die = static_cast<std::uint64_t>(out.resident_per_cu) * m.cus_per_die;
  const std::uint64_t S = per_die * D;
  struct Slot {
    int die = 0;
    bool busy = false;
    std::uint64_t tile = 0;
    unsigned phase = 0, P = 1;
  };
  std::vector<Slot> slots(S);
  std::vector<std::uint64_t> next_of_die(D, 0);  // round robin: the next pid index of each die's queue
  std::uint64_t next_pid = 0;
  for (std::uint64_t s = 0; s < S; ++s) {
    if (m.round_robin) slots[s].die = static_cast<int>(s / per_die);
    else if (!m.first_wave_die.empty()) slots[s].die = std::clamp(m.first_wave_die[s % m.first_wave_die.size()], 0, D - 1);
    else slots[s].die = static_cast<int>(s % D);
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
    sl.P = phases_of(sl.tile);
    ++sim.dies[sl.die].tiles;
  };
  // First wave: pid order over the slots (round robin: each die's queue in order).
  for (auto& sl : slots) assign(sl);
  std::vector<std::size_t> freed;
  bool any = true;
  while (any) {
    any = false;
    freed.clear();
    for (std::size_t i = 0; i < slots.size(); ++i) {
      Slot& sl = slots[i];
      if (!sl.busy) continue;
      any = true;
      run_phase(sl.die, sl.tile, sl.phase, sl.P);
      if (++sl.phase >= sl.P) {
        sl.busy = false;
        freed.push_back(i);
      }
    }
    for (std::size_t i : freed) assign(slots[i]);
  }
  out.accesses = sim.accesses;
  if (sim.sample > 1)
    for (auto& d : sim.dies) {
      const std::uint64_t t = d.tiles;
      d.requests *= sim.sample, d.hits *= sim.sample, d.read_requests *= sim.sample, d.write_requests *= sim.sample;
      d.dram_read_bytes *= sim.sample, d.dram_write_bytes *= sim.sample, d.cross_die_bytes *= sim.sample;
      d.tiles = t;
    }
  out.dies = std::move(sim.dies);
  return out;
}

}  // namespace swz
