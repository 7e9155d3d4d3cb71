// An instruction valgrind cannot decode: named, placed, and what to do ("unhandled instruction
// bytes: 0xF 0x1 0xF9 ... use --backend perf" was no help on a machine without a PMU).
#include "emul/undecodable.hpp"

#include <gtest/gtest.h>

namespace roofprof::emul {
namespace {

// Valgrind 3.24's log of a constructor executing RDPID (f3 0f c7 f8), which it cannot decode.
const char* kRdpidLog = R"(==14191== Command: ./u
==14191== 
vex amd64->IR: unhandled instruction bytes: 0xF3 0xF 0xC7 0xF8 0xBE 0x0 0x0 0x0 0x0 0x48
vex amd64->IR:   REX=0 REX.W=0 REX.R=0 REX.X=0 REX.B=0
vex amd64->IR:   VEX=0 VEX.L=0 VEX.nVVVV=0x0 ESC=0F
vex amd64->IR:   PFX.66=0 PFX.F2=0 PFX.F3=1
==14191== valgrind: Unrecognised instruction at address 0x10913d.
==14191==    at 0x10913D: probe_cpu (u.c:4)
==14191==    by 0x4870375: __libc_start_main@@GLIBC_2.34 (libc-start.c:145)
==14191== Your program just tried to execute an instruction that Valgrind
)";

TEST(Undecodable, NamesTheInstructionAndWhereItRan) {
  auto u = parse_undecodable(kRdpidLog);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->bytes.size(), 10u);
  EXPECT_EQ(u->mnemonic, "rdpid");  // Capstone 4 would say "rdseed eax", without the f3
  EXPECT_EQ(u->where, "probe_cpu (u.c:4)");
  const std::string m = undecodable_message("./u", *u);
  EXPECT_EQ(m.rfind("./u executed RDPID (f3 0f c7 f8) in probe_cpu (u.c:4), which valgrind cannot emulate", 0), 0u)
      << m;
  EXPECT_NE(m.find("--backend native counts W without a PMU"), std::string::npos) << m;
}

TEST(Undecodable, RdtscpInALibrarysConstructor) {
  const std::string log =
      "vex amd64->IR: unhandled instruction bytes: 0xF 0x1 0xF9 0x89 0xD0 0x48 0xC1 0xE2\n"
      "==7== valgrind: Unrecognised instruction at address 0x5a1b2c3.\n"
      "==7==    at 0x5A1B2C3: hwy::(anonymous namespace)::InitTimer() (in /usr/lib/x86_64-linux-gnu/libhwy.so.1.0.3)\n";
  auto u = parse_undecodable(log);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->mnemonic, "rdtscp");
  const std::string m = undecodable_message("octave", *u);
  EXPECT_EQ(m.rfind("octave executed RDTSCP (0f 01 f9) in hwy::(anonymous namespace)::InitTimer() (in "
                    "/usr/lib/x86_64-linux-gnu/libhwy.so.1.0.3), which valgrind cannot emulate",
                    0),
            0u)
      << m;
}

TEST(Undecodable, Avx512SaysRebuildOrMeasureNatively) {
  auto u = parse_undecodable("vex amd64->IR: unhandled instruction bytes: 0x62 0xF1 0xFD 0x48 0x58 0xC1 0x0 0x0\n");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->where, "");
  const std::string m = undecodable_message("./k", *u);
  EXPECT_EQ(m.rfind("./k executed an AVX-512 instruction (VADDPD) (62 f1 fd 48 58 c1), which", 0), 0u)
      << m;
  EXPECT_NE(m.find("-march=x86-64-v3"), std::string::npos);
}

TEST(Undecodable, NothingToTell) { EXPECT_FALSE(parse_undecodable("==1== Command: ./ok\n").has_value()); }

}  // namespace
}  // namespace roofprof::emul
