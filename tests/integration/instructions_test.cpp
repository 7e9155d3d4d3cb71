// Breakpoints are correct whatever instruction stands at the probed address: the displaced
// instruction (RIP-relative, call, jmp, jcc, ret, a jump back to the entry, push, rsp-relative)
// runs with the program's registers, flags and stack, and every call is counted.
#include "harness.hpp"

namespace it {
namespace {

const std::vector<std::string> kFunctions = {"insn_riprel", "insn_lea",  "insn_call", "insn_jmp8",
                                             "insn_jmp32",  "insn_jcc",  "insn_ret",  "insn_loop",
                                             "insn_push",   "insn_retaddr"};

// `roofprof run OPTIONS --region F ... -- run_insn` with every function of kFunctions.
RunResult run_every_function(Sandbox& sb, std::vector<std::string> args) {
  args.insert(args.begin(), "run");
  for (const auto& f : kFunctions) {
    args.push_back("--region");
    args.push_back(f);
  }
  args.push_back("--");
  args.push_back(fixture("run_insn"));
  return sb.roofprof(args);
}

TEST(RunInstructions, EveryKindOfFirstInstruction) {
  Sandbox sb;
  auto r = run_every_function(sb, {});
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("insn ok"), std::string::npos) << "the program computed wrong results" << r.diag();
  json doc = load_result(r);
  for (const auto& f : kFunctions) {
    json reg = region(doc, f);
    if (reg.is_null()) continue;
    // insn_loop jumps back to its entry twice per call: still one instance per call.
    EXPECT_EQ(calls(reg), 3) << f << ": " << reg.dump();
    EXPECT_EQ(closed_by(reg, "return"), 3) << f << ": " << reg.dump();
  }
}

// In the combined mode the tracer patches what it can and keeps breakpoints for the rest
// (docs/preload.md, "Entry patches"); either way the program computes the same results.
TEST(RunInstructions, EntriesThatCanBePatchedAreAndTheOthersSayWhy) {
  Sandbox sb;
  auto r = run_every_function(sb, {"--backend", "time"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("insn ok"), std::string::npos) << r.diag();
  json doc = load_result(r);
  const std::map<std::string, std::string> want = {
      {"insn_riprel", "patch"},     {"insn_lea", "patch"},       {"insn_jmp32", "patch"},
      {"insn_jcc", "patch"},        {"insn_loop", "patch"},      {"insn_push", "patch"},
      {"insn_call", "breakpoint"},  // a call cannot run from the thunk
      {"insn_jmp8", "breakpoint"},  // its jmp lands inside the bytes a patch would take
      {"insn_ret", "breakpoint"},   // one byte long
      {"insn_retaddr", "breakpoint"},  // reads its return address, which the agent replaces
  };
  std::string warnings = doc["warnings"].dump();
  for (const auto& [f, mech] : want) {
    json reg = region(doc, f);
    EXPECT_EQ(reg["sources"]["calls"], mech) << f;
    EXPECT_EQ(calls(reg), 3) << f;
    EXPECT_EQ(warnings.find("region '" + f + "': the entry of " + f) != std::string::npos, mech == "breakpoint")
        << f << ": " << warnings;
  }
}

// One region at a time: a breakpoint alone on each site (no neighbour sharing its scratch).
TEST(RunInstructions, EachFunctionAlone) {
  for (const auto& f : kFunctions) {
    Sandbox sb;
    auto r = sb.roofprof({"run", "--backend", "time", "--region", f, "--", fixture("run_insn")});
    EXPECT_EQ(r.exit_code(), 0) << f << r.diag();
    EXPECT_NE(r.out.find("insn ok"), std::string::npos) << f << r.diag();
    json reg = region(load_result(r), f);
    if (!reg.is_null()) {
      EXPECT_EQ(calls(reg), 3) << f << ": " << reg.dump();
    }
  }
}

TEST(RunInstructions, GlobMatchesSeveralFunctions) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "insn_jmp*", "--", fixture("run_insn")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("insn ok"), std::string::npos) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(calls(region(doc, "insn_jmp8")), 3);
  EXPECT_EQ(calls(region(doc, "insn_jmp32")), 3);
}

}  // namespace
}  // namespace it
