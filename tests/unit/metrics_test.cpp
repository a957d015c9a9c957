// Tests for the JSON form of Metrics and Timing.
#include "swizzleperf/core/metrics.h"

#include <gtest/gtest.h>

namespace swz {
namespace {

TEST(MetricsJson, AbsentOptionalsAreOmitted) {
  Metrics m;
  m.l2_hit_pct = 43.72;
  m.dram_read_bytes = 8085788928.0;
  m.launches = 1;
  m.raw["dram__bytes_read.sum"] = 8085788928.0;
  nlohmann::json j = m;
  EXPECT_EQ(j.at("l2_hit_pct"), 43.72);
  EXPECT_EQ(j.at("dram_read_bytes"), 8085788928.0);
  EXPECT_EQ(j.at("launches"), 1);
  EXPECT_EQ(j.at("raw").at("dram__bytes_read.sum"), 8085788928.0);
  for (const char* absent : {"l2_sectors", "l2_hits", "l2_misses", "fabric_sectors", "dram_write_bytes",
                             "profiler_time_ns", "launch_skip", "launches_total"}) {  // every launch: no window
    EXPECT_FALSE(j.contains(absent)) << absent;
  }
}

TEST(MetricsJson, ZeroIsKeptDistinctFromAbsent) {
  Metrics m;
  m.fabric_sectors = 0.0;
  nlohmann::json j = m;
  ASSERT_TRUE(j.contains("fabric_sectors"));
  Metrics back = j.get<Metrics>();
  EXPECT_EQ(back.fabric_sectors, 0.0);
  EXPECT_FALSE(back.l2_hits.has_value());
}

TEST(MetricsJson, RoundTripsEveryField) {
  Metrics m;
  m.l2_hit_pct = 87.98;
  m.l2_sectors = 1e9;
  m.l2_hits = 8.798e8;
  m.l2_misses = 1.202e8;
  m.fabric_sectors = 4.34e7;
  m.dram_read_bytes = 1.15e9;
  m.dram_write_bytes = 2.7e8;
  m.profiler_time_ns = 1.25e7;
  m.launches = 3;
  m.launch_skip = 10;
  m.launches_total = 23;
  m.raw = {{"a.sum", 1.5}, {"b.sum", 2}};
  Metrics back = nlohmann::json(m).get<Metrics>();
  EXPECT_EQ(back.launch_skip, 10);
  EXPECT_EQ(back.launches_total, 23);
  EXPECT_EQ(back.l2_hit_pct, m.l2_hit_pct);
  EXPECT_EQ(back.l2_sectors, m.l2_sectors);
  EXPECT_EQ(back.l2_hits, m.l2_hits);
  EXPECT_EQ(back.l2_misses, m.l2_misses);
  EXPECT_EQ(back.fabric_sectors, m.fabric_sectors);
  EXPECT_EQ(back.dram_read_bytes, m.dram_read_bytes);
  EXPECT_EQ(back.dram_write_bytes, m.dram_write_bytes);
  EXPECT_EQ(back.profiler_time_ns, m.profiler_time_ns);
  EXPECT_EQ(back.launches, 3);
  EXPECT_EQ(back.raw, m.raw);
}

TEST(MetricsJson, ReadingToleratesNullAndMissingKeys) {
  auto j = nlohmann::json::parse(R"x({"l2_hit_pct": null, "l2_hits": 5})x");
  Metrics m = j.get<Metrics>();
  EXPECT_FALSE(m.l2_hit_pct.has_value());
  EXPECT_EQ(m.l2_hits, 5.0);
  EXPECT_EQ(m.launches, 0);
  EXPECT_TRUE(m.raw.empty());
}

TEST(MetricsJson, ReadingResetsEarlierContents) {
  Metrics m;
  m.l2_misses = 7;
  m.raw["x"] = 1;
  from_json(nlohmann::json::object(), m);
  EXPECT_FALSE(m.l2_misses.has_value());
  EXPECT_TRUE(m.raw.empty());
}

TEST(TimingJson, RoundTrip) {
  Timing t{12.5, 12.4, 12.9, 50};
  nlohmann::json j = t;
  EXPECT_EQ(j, nlohmann::json::parse(R"x({"median_ms":12.5,"min_ms":12.4,"max_ms":12.9,"reps":50})x"));
  Timing back = j.get<Timing>();
  EXPECT_EQ(back.median_ms, 12.5);
  EXPECT_EQ(back.min_ms, 12.4);
  EXPECT_EQ(back.max_ms, 12.9);
  EXPECT_EQ(back.reps, 50);
}

TEST(TimingJson, MissingFieldThrows) {
  EXPECT_THROW(nlohmann::json::parse(R"x({"median_ms":1})x").get<Timing>(), nlohmann::json::exception);
}

}  // namespace
}  // namespace swz
