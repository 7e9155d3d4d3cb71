// The page arithmetic of preload/pmc_page.h (what the agent runs for every rdpmc read), against
// values worked out by hand from include/uapi/linux/perf_event.h: pmc_width sign extension, the
// time delta from the TSC, enabled/running from the page, index 0, the seqlock retry, and when
// the page cannot be used.
#include "preload/pmc_page.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>

namespace {

// A stand-in for the instructions: fixed counter values and TSC, and a hook that runs at the
// first rdtsc (what the kernel may do under the reader).
struct FakeCpu {
  uint64_t pmc[8] = {};
  uint64_t tsc = 0;
  std::function<void()> at_first_rdtsc;
  int rdtsc_calls = 0, rdpmc_calls = 0;
  rp_pmc_source source() {
    return {[](void* c, uint32_t i) { auto* f = static_cast<FakeCpu*>(c); f->rdpmc_calls++; return f->pmc[i]; },
            [](void* c) {
              auto* f = static_cast<FakeCpu*>(c);
              if (f->rdtsc_calls++ == 0 && f->at_first_rdtsc) f->at_first_rdtsc();
              return f->tsc;
            },
            this};
  }
};

perf_event_mmap_page page(uint32_t index, int64_t offset, uint64_t enabled, uint64_t running) {
  perf_event_mmap_page p;
  std::memset(&p, 0, sizeof p);
  p.index = index;
  p.offset = offset;
  p.time_enabled = enabled;
  p.time_running = running;
  p.cap_user_rdpmc = 1;
  p.cap_user_time = 1;
  p.pmc_width = 48;
  p.time_shift = 10;
  p.time_mult = 512;  // 2 cycles a ns
  p.time_offset = 0;
  return p;
}

TEST(PmcPage, SignExtendsToTheCounterWidth) {
  EXPECT_EQ(rp_pmc_sign_extend(0x800000000001ull, 48), -140737488355327ll);  // -(2^47 - 1)
  EXPECT_EQ(rp_pmc_sign_extend(0xffffffffffffull, 48), -1);
  EXPECT_EQ(rp_pmc_sign_extend(0x7fffffffffffull, 48), 140737488355327ll);
  EXPECT_EQ(rp_pmc_sign_extend(0xdeadffffffffffffull, 48), -1);  // bits above the width are not the counter's
  EXPECT_EQ(rp_pmc_sign_extend(0x80000000ull, 32), -2147483648ll);
  EXPECT_EQ(rp_pmc_sign_extend(0x8000000000000000ull, 64), INT64_MIN);
}

TEST(PmcPage, TimeDeltaFromTheTsc) {
  perf_event_mmap_page p = page(1, 0, 0, 0);
  // cyc = 2^40 + 3000: quot = 2^30 + 2, rem = 952 -> (2^30 + 2) * 512 + 952 * 512 / 1024 = 2^39 + 1024 + 476
  p.time_offset = 0 - ((1ull << 39) + 500);  // the page was written at 2^39 + 500 ns
  EXPECT_EQ(rp_pmc_time_delta(&p, (1ull << 40) + 3000), 1000u);
  // A multiplier whose remainder term matters: 7 cycles at 1.5 ns: 3 * 3 + (1 * 3 >> 1) = 10.
  p.time_offset = 0;
  p.time_shift = 1;
  p.time_mult = 3;
  EXPECT_EQ(rp_pmc_time_delta(&p, 7), 10u);
}

TEST(PmcPage, ShortTimeCounterWrapsAroundTimeCycles) {
  perf_event_mmap_page p = page(1, 0, 0, 0);
  p.cap_user_time_short = 1;
  p.time_cycles = 0x1000;
  p.time_mask = 0xffff;
  p.time_shift = 0;
  p.time_mult = 1;
  // cyc = 0x1000 + ((0x12345 - 0x1000) & 0xffff) = 0x2345
  EXPECT_EQ(rp_pmc_time_delta(&p, 0x12345), 0x2345u);
}

TEST(PmcPage, OnACounterCountIsOffsetPlusTheSignExtendedCounter) {
  // The kernel programmed the counter to -(2^47 - 1) (prev_count) with 1000 events counted
  // before: offset = 1000 - prev_count. 250 events since.
  perf_event_mmap_page lead = page(3, 1000 + 140737488355327ll, 5000, 3000);
  perf_event_mmap_page member = page(4, 7 + 140737488355327ll, 5000, 3000);
  lead.time_offset = 0 - ((1ull << 39) + 500);
  member.time_offset = lead.time_offset;
  FakeCpu cpu;
  cpu.pmc[2] = 0x800000000001ull + 250;
  cpu.pmc[3] = 0x800000000001ull + 40;
  cpu.tsc = (1ull << 40) + 3000;  // 1000 ns after the page's update
  const volatile perf_event_mmap_page* pages[2] = {&lead, &member};
  uint64_t counts[2];
  rp_pmc_reading r;
  rp_pmc_source src = cpu.source();
  ASSERT_EQ(rp_pmc_read_group(pages, 2, &src, counts, &r), 1);
  EXPECT_EQ(counts[0], 1250u);
  EXPECT_EQ(counts[1], 47u);
  EXPECT_EQ(r.enabled, 6000u);  // both times advance while it is on a counter
  EXPECT_EQ(r.running, 4000u);
  EXPECT_EQ(r.retries, 0u);
  EXPECT_EQ(r.rotated_out, 0u);
}

TEST(PmcPage, RotatedOutCountIsTheOffsetAndOnlyEnabledAdvances) {
  perf_event_mmap_page lead = page(0, 1234, 5000, 3000);
  lead.time_offset = 0 - ((1ull << 39) + 500);
  FakeCpu cpu;
  cpu.tsc = (1ull << 40) + 3000;
  const volatile perf_event_mmap_page* pages[1] = {&lead};
  uint64_t count;
  rp_pmc_reading r;
  rp_pmc_source src = cpu.source();
  ASSERT_EQ(rp_pmc_read_group(pages, 1, &src, &count, &r), 1);
  EXPECT_EQ(count, 1234u);
  EXPECT_EQ(r.enabled, 6000u);
  EXPECT_EQ(r.running, 3000u);
  EXPECT_EQ(r.rotated_out, 1u);
  EXPECT_EQ(cpu.rdpmc_calls, 0);  // no counter to read
}

TEST(PmcPage, AnUpdateDuringTheReadIsRetried) {
  // The reader took the page on a counter; at its rdtsc the kernel rotates the group out
  // (the seqlock moves, index 0, the count folded into offset): the reading is the new page's.
  perf_event_mmap_page lead = page(1, 100 + 140737488355327ll, 5000, 5000);
  FakeCpu cpu;
  cpu.pmc[0] = 0x800000000001ull + 20;
  cpu.tsc = 0;
  cpu.at_first_rdtsc = [&] {
    lead.lock++;
    lead.index = 0;
    lead.offset = 130;
    lead.time_enabled = 5500;
    lead.time_running = 5400;
    lead.lock++;
  };
  const volatile perf_event_mmap_page* pages[1] = {&lead};
  uint64_t count;
  rp_pmc_reading r;
  rp_pmc_source src = cpu.source();
  ASSERT_EQ(rp_pmc_read_group(pages, 1, &src, &count, &r), 1);
  EXPECT_EQ(r.retries, 1u);
  EXPECT_EQ(count, 130u);
  EXPECT_EQ(r.enabled, 5500u);
  EXPECT_EQ(r.running, 5400u);
}

TEST(PmcPage, AnOddSequenceIsAnUpdateInProgress) {
  perf_event_mmap_page lead = page(0, 9, 10, 10);
  lead.lock = 1;  // the kernel is writing the page
  FakeCpu cpu;
  cpu.at_first_rdtsc = [&] { lead.lock = 2; };  // and is done by the time the reader looks again
  const volatile perf_event_mmap_page* pages[1] = {&lead};
  uint64_t count;
  rp_pmc_reading r;
  rp_pmc_source src = cpu.source();
  ASSERT_EQ(rp_pmc_read_group(pages, 1, &src, &count, &r), 1);
  EXPECT_EQ(r.retries, 1u);
  EXPECT_EQ(count, 9u);
}

TEST(PmcPage, WithoutUserRdpmcOrUserTimeThePageIsNotUsed) {
  FakeCpu cpu;
  rp_pmc_source src = cpu.source();
  uint64_t count;
  rp_pmc_reading r;
  perf_event_mmap_page no_rdpmc = page(2, 0, 0, 0);
  no_rdpmc.cap_user_rdpmc = 0;
  const volatile perf_event_mmap_page* a[1] = {&no_rdpmc};
  EXPECT_EQ(rp_pmc_read_group(a, 1, &src, &count, &r), 0);
  no_rdpmc.index = 0;  // off the counters, the offset is the count: no rdpmc needed
  EXPECT_EQ(rp_pmc_read_group(a, 1, &src, &count, &r), 1);
  perf_event_mmap_page no_time = page(0, 0, 0, 0);
  no_time.cap_user_time = 0;  // the page's times would be its last update's, not now's
  const volatile perf_event_mmap_page* b[1] = {&no_time};
  EXPECT_EQ(rp_pmc_read_group(b, 1, &src, &count, &r), 0);
}

}  // namespace
