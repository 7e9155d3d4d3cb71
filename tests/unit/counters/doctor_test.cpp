// `roofprof doctor` items: what is missing and the command that fixes it.
#include "counters/doctor.hpp"

#include <gtest/gtest.h>

#include "counters/event_catalog.hpp"

namespace roofprof::counters {
namespace {

const DoctorItem& item(const std::vector<DoctorItem>& items, const std::string& label) {
  for (const DoctorItem& i : items)
    if (i.label == label) return i;
  static DoctorItem none{"missing", false, "", ""};
  ADD_FAILURE() << "no item " << label;
  return none;
}

Capabilities vm_without_pmu() {
  Capabilities c;
  c.cpu.vendor = "AuthenticAMD";
  c.cpu.family = 0x1a;
  c.cpu.model = 2;
  c.cpu.model_name = "AMD EPYC";
  c.cpu.logical_cpus = 2;
  c.cpu.flags = {"avx512f", "hypervisor"};
  c.libpfm_version = "4.13";
  c.selection.how = "no event set for AuthenticAMD family 0x1a model 0x2 (libpfm4 core PMUs: none)";
  c.hardware_problem = "perf_event_open(cycles): No such file or directory (...)";
  c.hardware_errno = 2;
  c.software_counters = true;
  c.perf_event_paranoid = 2;
  c.root = true;
  c.valgrind_version = "3.19.0";
  c.valgrind_path = "/usr/bin/valgrind";
  return c;
}

TEST(Doctor, VmWithoutPmu) {
  const auto items = doctor_items(vm_without_pmu());
  ASSERT_EQ(items.size(), 11u);
  EXPECT_EQ(item(items, "CPU").text,
            "AMD EPYC (AuthenticAMD family 0x1a model 0x2), 2 logical CPUs, under a hypervisor");
  const DoctorItem& pmu = item(items, "PMU model");
  EXPECT_FALSE(pmu.ok);
  EXPECT_EQ(pmu.text, "none detected by libpfm4 4.13: this VM does not expose the CPU's performance counters");
  EXPECT_NE(pmu.fix.find("-cpu host,pmu=on"), std::string::npos);
  const DoctorItem& fp = item(items, "FP counters");
  EXPECT_FALSE(fp.ok);
  EXPECT_EQ(fp.text, "not usable: perf_event_open(cycles): No such file or directory (...)");
  EXPECT_NE(fp.fix.find("virtual PMU"), std::string::npos);
  const DoctorItem& q = item(items, "memory traffic (Q)");
  EXPECT_FALSE(q.ok);
  EXPECT_EQ(q.text, "no hardware counters: runs measure Q only by emulation (--backend emul)");
  EXPECT_NE(q.fix.find("bare metal"), std::string::npos);
  EXPECT_TRUE(item(items, "perf_event_paranoid").ok);  // root
  EXPECT_TRUE(item(items, "ptrace").ok);
  const DoctorItem& vg = item(items, "valgrind");
  EXPECT_NE(vg.text.find("fails with SIGILL"), std::string::npos);
  EXPECT_EQ(item(items, "auto backend").text.rfind("native: no usable hardware counters", 0), 0u);
}

TEST(Doctor, UnprivilegedUserGetsTheSysctlCommands) {
  Capabilities c = vm_without_pmu();
  c.root = false;
  c.perf_event_paranoid = 3;
  c.ptrace_scope = 1;
  c.hardware_errno = 13;  // EACCES
  c.valgrind_version.reset();
  const auto items = doctor_items(c);
  EXPECT_EQ(item(items, "FP counters").fix, "sudo sysctl -w kernel.perf_event_paranoid=2");
  EXPECT_EQ(item(items, "perf_event_paranoid").fix, "sudo sysctl -w kernel.perf_event_paranoid=2");
  EXPECT_FALSE(item(items, "perf_event_paranoid").ok);
  EXPECT_EQ(item(items, "ptrace").fix.rfind("sudo sysctl -w kernel.yama.ptrace_scope=0", 0), 0u);
  EXPECT_EQ(item(items, "valgrind").fix, "sudo apt-get install valgrind");
  // native counting needs no PMU and no valgrind; the bytes then are not measured
  EXPECT_EQ(item(items, "auto backend").text.rfind("native: ", 0), 0u);
}

TEST(Doctor, BareMetalSkylakeServer) {
  Capabilities c;
  c.cpu.vendor = "GenuineIntel";
  c.pfm_core_pmus = {"skx"};
  c.libpfm_version = "4.13";
  c.selection = {find_event_set("skx"), "skx", "libpfm4 PMU skx"};
  c.hardware_counters = true;
  c.software_counters = true;
  c.perf_event_paranoid = 0;
  c.uncore_pmus = {"uncore_imc_0", "uncore_imc_1"};
  c.uncore_counters = true;
  const auto items = doctor_items(c);
  EXPECT_EQ(item(items, "PMU model").text, "skx (libpfm4 4.13)");
  EXPECT_TRUE(item(items, "FP counters").ok);
  const DoctorItem& q = item(items, "memory traffic (Q)");
  EXPECT_TRUE(q.ok);
  EXPECT_EQ(q.text, "perf runs count DRAM bytes at the memory controllers (uncore_imc_0, uncore_imc_1), system-wide "
                    "per socket: other processes' traffic is included; --scope thread gets the per-core "
                    "approximation (level L3)");
  EXPECT_EQ(item(items, "auto backend").text.rfind("perf: ", 0), 0u);
}

TEST(Doctor, MemoryTrafficSaysWhyARunGetsThePerCoreApproximation) {
  Capabilities c;
  c.selection = {find_event_set("skx"), "skx", "libpfm4 PMU skx"};
  c.hardware_counters = true;
  c.perf_event_paranoid = 2;
  c.uncore_pmus = {"uncore_imc_0"};
  DoctorItem q = item(doctor_items(c), "memory traffic (Q)");
  EXPECT_FALSE(q.ok);
  EXPECT_EQ(q.text, "perf runs get the per-core approximation (level L3): system-wide counting is not permitted "
                    "(perf_event_paranoid 2, not root, no CAP_PERFMON or CAP_SYS_ADMIN)");
  EXPECT_EQ(q.fix.rfind("sudo sysctl -w kernel.perf_event_paranoid=0", 0), 0u);
  c.uncore_pmus.clear();
  q = item(doctor_items(c), "memory traffic (Q)");
  EXPECT_EQ(q.text, "perf runs get the per-core approximation (level L3): the kernel exposes none of the set's "
                    "memory-controller PMUs (uncore_imc_0, ...)");
  EXPECT_EQ(q.fix, "");
  c.selection = {find_event_set("zen4"), "zen4", "libpfm4 PMU amd64_fam19h_zen4"};
  EXPECT_EQ(item(doctor_items(c), "memory traffic (Q)").text,
            "perf runs get the per-core approximation (level DRAM): the event set zen4 defines no memory-controller "
            "events");
}

TEST(Doctor, LibpfmWithoutTheCpusTableIsNotBlamedOnTheVm) {
  // E8: the counters open (a VM with a virtual PMU, or bare metal) but libpfm4 4.13 does not
  // know Zen 5; roofprof's raw zen5 set is chosen by CPUID.
  Capabilities c = vm_without_pmu();
  c.hardware_counters = true;
  c.hardware_errno = 0;
  c.hardware_problem.clear();
  c.selection = select_event_set(event_catalog(), {}, c.cpu);
  ASSERT_NE(c.selection.set, nullptr);
  const auto items = doctor_items(c);
  const DoctorItem& pmu = item(items, "PMU model");
  EXPECT_TRUE(pmu.ok);
  EXPECT_EQ(pmu.text, "none detected by libpfm4 4.13: the library has no table for this CPU; roofprof's "
                      "event set uses its own raw encodings");
  EXPECT_EQ(pmu.fix, "");
}

TEST(Doctor, NmiWatchdogIsExplainedWithTheFix) {
  Capabilities c = vm_without_pmu();
  EXPECT_TRUE(item(doctor_items(c), "NMI watchdog").ok);  // copied before the vector dies
  c.nmi_watchdog = true;
  const auto items = doctor_items(c);
  const DoctorItem& w = item(items, "NMI watchdog");
  EXPECT_FALSE(w.ok);
  EXPECT_NE(w.text.find("holds one hardware counter"), std::string::npos);
  EXPECT_EQ(w.fix, "sudo sysctl -w kernel.nmi_watchdog=0   (perf gives the same advice)");
}

}  // namespace
}  // namespace roofprof::counters
