// Thresholds of the table's pass / warn / fail, and a synthetic over-counting backend.
#include <gtest/gtest.h>

#include "kernel_lookup.hpp"

#include "selftest/table.hpp"

namespace roofprof::selftest {
namespace {

TEST(SelftestVerdict, WorkThresholds) {
  EXPECT_EQ(judge(1.0, kWork), Verdict::Pass);
  EXPECT_EQ(judge(1.01, kWork), Verdict::Pass);
  EXPECT_EQ(judge(0.99, kWork), Verdict::Pass);
  EXPECT_EQ(judge(1.02, kWork), Verdict::Warn);
  EXPECT_EQ(judge(1.20, kWork), Verdict::Warn);
  EXPECT_EQ(judge(1.21, kWork), Verdict::Fail);
  EXPECT_EQ(judge(0.5, kWork), Verdict::Fail);
  EXPECT_EQ(judge(std::nullopt, kWork), Verdict::None);
}

TEST(SelftestVerdict, TrafficThresholds) {
  EXPECT_EQ(judge(1.05, kTraffic), Verdict::Pass);
  EXPECT_EQ(judge(1.06, kTraffic), Verdict::Warn);
  EXPECT_EQ(judge(1.40, kTraffic), Verdict::Warn);
  EXPECT_EQ(judge(1.41, kTraffic), Verdict::Fail);
  EXPECT_EQ(judge(0.0, kTrafficWarmInLlc), Verdict::Pass);
  EXPECT_EQ(judge(0.3, kTrafficWarmInLlc), Verdict::Warn);
  EXPECT_EQ(judge(1.0, kTrafficWarmInLlc), Verdict::Fail);  // a warm in-LLC call that went to DRAM
}

Sample exact(const sx_kernel& k, long n, double w_factor = 1, double q_factor = 1) {
  Sample s;
  s.work = k.work(double(n)) * w_factor;
  if (k.read) s.read = k.read(double(n)) * q_factor;
  if (k.write) s.write = k.write(double(n)) * q_factor;
  s.flops_by_class["dp_128"] = *s.work;
  return s;
}

Row row(const char* backend, const char* name, long n, const char* state, std::vector<Sample> samples) {
  return Row{Case{&kernel(name), n, SizeClass::InLlc, state}, backend, std::move(samples)};
}

TEST(SelftestVerdict, ExactMeasurementsPass) {
  const sx_kernel& d = kernel("daxpy");
  JudgedRow j = judge_row(row("emul", "daxpy", 4096, "cold", {exact(d, 4096)}));
  EXPECT_EQ(j.work.median, 1.0);
  EXPECT_EQ(j.traffic.max, 1.0);
  EXPECT_EQ(j.verdict, Verdict::Pass);
}

TEST(SelftestVerdict, MedianAndMaxOverRuns) {
  const sx_kernel& d = kernel("daxpy");
  JudgedRow j = judge_row(row("perf", "daxpy", 4096, "cold", {exact(d, 4096, 1.0), exact(d, 4096, 1.5), exact(d, 4096, 1.1)}));
  EXPECT_DOUBLE_EQ(*j.work.median, 1.1);
  EXPECT_DOUBLE_EQ(*j.work.max, 1.5);
  EXPECT_EQ(j.work_verdict, Verdict::Fail);  // judged on the worst run too
}

TEST(SelftestVerdict, WarmInLlcExpectsNoDramTraffic) {
  const sx_kernel& d = kernel("daxpy");
  EXPECT_EQ(judge_row(row("emul", "daxpy", 4096, "warm", {exact(d, 4096, 1, 0)})).verdict, Verdict::Pass);
  EXPECT_EQ(judge_row(row("emul", "daxpy", 4096, "warm", {exact(d, 4096, 1, 1)})).verdict, Verdict::Fail);
}

// Warm dgemv beyond the LLC: y (8n bytes) stays cached between calls; whether it is written back
// during a call depends on the last level's inclusion, so its Q_w is not judged (0 or 2x both
// pass); A's reads are. Cold, or daxpy (y half its data), Q_w is judged as always.
TEST(SelftestVerdict, WarmSmallWrittenOperandBeyondTheLlcIsNotJudged) {
  const sx_kernel& g = kernel("dgemv");
  const long n = 2912;
  auto beyond = [&](const char* name, long size, const char* state, Sample s) {
    return Row{Case{&kernel(name), size, SizeClass::BeyondLlc, state}, "emul", {s}};
  };
  for (double w : {0.0, 2.0}) {
    Sample s = exact(g, n);
    s.write = *s.write * w;
    JudgedRow warm = judge_row(beyond("dgemv", n, "warm", s));
    EXPECT_FALSE(warm.write.median.has_value());
    EXPECT_EQ(warm.verdict, Verdict::Pass) << w;
    EXPECT_EQ(judge_row(beyond("dgemv", n, "cold", s)).verdict, Verdict::Fail) << w;
  }
  Sample few_reads = exact(g, n, 1, 0.5);
  EXPECT_EQ(judge_row(beyond("dgemv", n, "warm", few_reads)).verdict, Verdict::Fail);  // A is still judged
  const sx_kernel& d = kernel("daxpy");
  Sample no_writes = exact(d, 4194304);
  no_writes.write = 0.0;
  EXPECT_EQ(judge_row(beyond("daxpy", 4194304, "warm", no_writes)).verdict, Verdict::Fail);
}

TEST(SelftestVerdict, UnmeasuredIsNotAPass) {
  Sample s;  // a backend that measures nothing
  JudgedRow j = judge_row(row("perf", "daxpy", 4096, "cold", {s}));
  EXPECT_FALSE(j.work.median.has_value());
  EXPECT_EQ(j.verdict, Verdict::None);
}

// A hardware backend whose 128-bit double class counts 25% too much: its rows fail, the
// class cross-check points at dp_128, and the notes say what it means for profiles.
TEST(SelftestVerdict, SyntheticOverCountingBackendIsFlagged) {
  const sx_kernel& d = kernel("daxpy");
  const sx_kernel& v = kernel("dgemv");
  std::vector<Row> emul{row("emul", "daxpy", 4096, "cold", {exact(d, 4096)}),
                        row("emul", "dgemv", 256, "cold", {exact(v, 256)})};
  std::vector<Row> perf{row("perf", "daxpy", 4096, "cold", {exact(d, 4096, 1.25)}),
                        row("perf", "dgemv", 256, "cold", {exact(v, 256, 1.25)})};
  Plan plan;
  plan.llc_bytes = 32u << 20;
  Report rep = make_report("quick", plan, {perf, emul});
  EXPECT_EQ(rep.verdict, Verdict::Fail);
  ASSERT_EQ(rep.classes.size(), 1u);
  EXPECT_EQ(rep.classes[0].flop_class, "dp_128");
  EXPECT_DOUBLE_EQ(*rep.classes[0].ratio, 1.25);
  bool class_note = false, profile_note = false;
  for (const auto& n : rep.notes) {
    class_note |= n.find("class dp_128") != std::string::npos;
    profile_note |= n.find("W in your profiles") != std::string::npos;
  }
  EXPECT_TRUE(class_note);
  EXPECT_TRUE(profile_note);
  auto json = report_json(rep);
  EXPECT_EQ(json["verdict"], "fail");
  EXPECT_EQ(json["rows"][0]["verdict"]["W"], "fail");
}

TEST(SelftestVerdict, SlightOverCountWarns) {
  const sx_kernel& d = kernel("daxpy");
  Plan plan;
  Report rep = make_report("quick", plan, {{row("perf", "daxpy", 4096, "cold", {exact(d, 4096, 1.05)})}});
  EXPECT_EQ(rep.verdict, Verdict::Warn);
}

// The register-only kernel's time per call says whether the clock moved; only long calls count.
TEST(SelftestVerdict, FrequencyDriftNoteNeedsLongCalls) {
  const sx_kernel& f = kernel("fma");
  auto timed = [&](double lo, double hi) {
    Sample s = exact(f, 1000);
    s.time_min_s = lo;
    s.time_max_s = hi;
    return s;
  };
  auto drift_noted = [](const Report& rep) {
    for (const auto& n : rep.notes)
      if (n.find("clock frequency") != std::string::npos) return true;
    return false;
  };
  Plan plan;
  EXPECT_TRUE(drift_noted(make_report("quick", plan, {{row("perf", "fma", 1000, "warm", {timed(0.020, 0.030)})}})));
  EXPECT_FALSE(drift_noted(make_report("quick", plan, {{row("perf", "fma", 1000, "warm", {timed(0.020, 0.021)})}})));
  EXPECT_FALSE(drift_noted(make_report("quick", plan, {{row("perf", "fma", 1000, "warm", {timed(1e-4, 5e-4)})}})));
}

}  // namespace
}  // namespace roofprof::selftest
