#include "common/launcher.hpp"

#include <gtest/gtest.h>

#include <map>

#include "common/error.hpp"

namespace roofprof {
namespace {

EnvLookup fake(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(Launcher, NoneOutsideALauncher) {
  EXPECT_FALSE(detect_launcher(fake({{"PATH", "/bin"}, {"SLURM_JOB_ID", "77"}})));
}

TEST(Launcher, OpenMpi) {
  // What Open MPI 4.1 (Debian 12) exports to each rank.
  auto l = detect_launcher(fake({{"OMPI_COMM_WORLD_RANK", "3"},
                                 {"OMPI_COMM_WORLD_SIZE", "4"},
                                 {"OMPI_MCA_ess_base_jobid", "1865875457"},
                                 {"PMIX_NAMESPACE", "1865875457"},
                                 {"PMIX_RANK", "3"}}));
  ASSERT_TRUE(l);
  EXPECT_EQ(l->launcher, "openmpi");
  EXPECT_EQ(l->rank, 3);
  EXPECT_EQ(l->size, 4);
  EXPECT_EQ(l->job_id, "1865875457");
}

TEST(Launcher, OpenMpiInsideASlurmBatchStepIsOpenMpi) {
  auto l = detect_launcher(fake({{"SLURM_PROCID", "0"},
                                 {"SLURM_NTASKS", "1"},
                                 {"SLURM_JOB_ID", "4242"},
                                 {"OMPI_COMM_WORLD_RANK", "5"},
                                 {"OMPI_COMM_WORLD_SIZE", "8"}}));
  ASSERT_TRUE(l);
  EXPECT_EQ(l->launcher, "openmpi");
  EXPECT_EQ(l->rank, 5);
  EXPECT_EQ(l->size, 8);
  EXPECT_EQ(l->job_id, "4242");  // no Open MPI job id: the allocation's
}

TEST(Launcher, MpichHydra) {
  auto l = detect_launcher(fake({{"PMI_RANK", "2"}, {"PMI_SIZE", "16"}, {"PMI_FD", "6"}}));
  ASSERT_TRUE(l);
  EXPECT_EQ(l->launcher, "pmi");
  EXPECT_EQ(l->rank, 2);
  EXPECT_EQ(l->size, 16);
  EXPECT_FALSE(l->job_id);
}

TEST(Launcher, Slurm) {
  auto l = detect_launcher(
      fake({{"SLURM_PROCID", "63"}, {"SLURM_NTASKS", "64"}, {"SLURM_JOB_ID", "918273"}}));
  ASSERT_TRUE(l);
  EXPECT_EQ(l->launcher, "slurm");
  EXPECT_EQ(l->rank, 63);
  EXPECT_EQ(l->size, 64);
  EXPECT_EQ(l->job_id, "918273");
}

TEST(Launcher, SrunWithPmixIsSlurm) {
  auto l = detect_launcher(fake({{"PMIX_RANK", "5"},
                                 {"PMIX_NAMESPACE", "slurm.pmix.918273.0"},
                                 {"SLURM_PROCID", "5"},
                                 {"SLURM_NTASKS", "8"},
                                 {"SLURM_JOB_ID", "918273"}}));
  ASSERT_TRUE(l);
  EXPECT_EQ(l->launcher, "slurm");
  EXPECT_EQ(l->rank, 5);
  EXPECT_EQ(l->size, 8);
  EXPECT_EQ(l->job_id, "918273");
  // A PMIx launcher inside an allocation (the batch step's SLURM_PROCID=0 inherited) is PMIx.
  l = detect_launcher(fake({{"PMIX_RANK", "5"}, {"SLURM_PROCID", "0"}, {"SLURM_JOB_ID", "1"}}));
  ASSERT_TRUE(l);
  EXPECT_EQ(l->launcher, "pmix");
  EXPECT_EQ(l->rank, 5);
}

TEST(Launcher, PmixWithoutSize) {
  auto l = detect_launcher(fake({{"PMIX_RANK", "1"}, {"PMIX_NAMESPACE", "ns.7"}}));
  ASSERT_TRUE(l);
  EXPECT_EQ(l->launcher, "pmix");
  EXPECT_EQ(l->rank, 1);
  EXPECT_FALSE(l->size);
  EXPECT_EQ(l->job_id, "ns.7");
}

TEST(Launcher, NotANumberIsBadInput) {
  EXPECT_THROW(detect_launcher(fake({{"OMPI_COMM_WORLD_RANK", "x1"}})), UserError);
  EXPECT_THROW(detect_launcher(fake({{"PMI_RANK", "-1"}})), UserError);
  EXPECT_THROW(detect_launcher(fake({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "4 "}})), UserError);
}

OutputNameFacts facts(std::optional<LaunchInfo> l) { return {std::move(l), "node7", 4321}; }

TEST(OutputName, PlaceholdersExpand) {
  auto f = facts(LaunchInfo{"openmpi", 3, 64, "99"});
  EXPECT_EQ(expand_output_name("out/prof.%r-of-%s.%h.%p.%j.json", f),
            "out/prof.3-of-64.node7.4321.99.json");
  EXPECT_EQ(expand_output_name("100%%.%r.json", f), "100%.3.json");
}

TEST(OutputName, UnchangedOutsideALauncher) {
  EXPECT_EQ(expand_output_name("roofprof.json", facts(std::nullopt)), "roofprof.json");
  EXPECT_EQ(expand_output_name("p.%h.%p.json", facts(std::nullopt)), "p.node7.4321.json");
}

TEST(OutputName, RankAddedUnderALauncher) {
  auto f = facts(LaunchInfo{"slurm", 12, 16, "5"});
  EXPECT_EQ(expand_output_name("prof.json", f), "prof.12.json");
  EXPECT_EQ(expand_output_name("dir.d/prof", f), "dir.d/prof.12");
  EXPECT_EQ(expand_output_name("prof", f), "prof.12");
  EXPECT_EQ(expand_output_name("prof.%h.json", f), "prof.node7.12.json");
  EXPECT_EQ(expand_output_name("r%r.json", f), "r12.json");
  EXPECT_EQ(expand_output_name("a%%r.json", f), "a%r.12.json");  // %%r is a literal "%r"
}

// Fault suite (hostile environment): a value from the environment cannot leave the directory.
TEST(OutputName, PlaceholderValuesStayOneComponent) {
  EXPECT_EQ(expand_output_name("out/%j.json", facts(LaunchInfo{"slurm", 0, 1, "/abs/path"})), "out/_abs_path.0.json");
  EXPECT_EQ(expand_output_name("out/%j/p.json", facts(LaunchInfo{"slurm", 0, 1, ".."})), "out/__/p.0.json");
  EXPECT_EQ(expand_output_name("out/%j.json", facts(LaunchInfo{"slurm", 0, 1, "../../etc/x"})),
            "out/.._.._etc_x.0.json");
  OutputNameFacts host{std::nullopt, "../h", 1};
  EXPECT_EQ(expand_output_name("out/%h.json", host), "out/.._h.json");
}

TEST(OutputName, UnknownValuesAreBadInput) {
  EXPECT_THROW(expand_output_name("p.%r.json", facts(std::nullopt)), UserError);
  EXPECT_THROW(expand_output_name("p.%j.json", facts(std::nullopt)), UserError);
  EXPECT_THROW(expand_output_name("p.%s.json", facts(LaunchInfo{"pmix", 1, {}, "ns"})), UserError);
  EXPECT_THROW(expand_output_name("p.%j.json", facts(LaunchInfo{"pmi", 1, 2, {}})), UserError);
  EXPECT_THROW(expand_output_name("p.%x.json", facts(std::nullopt)), UserError);
  EXPECT_THROW(expand_output_name("p%", facts(std::nullopt)), UserError);
}

}  // namespace
}  // namespace roofprof
