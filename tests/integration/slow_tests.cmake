# The slow integration tests: labelled `slow`, so that `ctest -LE slow` (make test-fast) is a
# fast developer subset; `make test` and CI run them all. Read by ctest after the tests are
# discovered (TEST_INCLUDE_FILES, tests/integration/CMakeLists.txt); a name that is not (or no
# longer) a test is ignored.
# The list: every integration test that took 3 s or more in a full `ctest -j2` of the 2-core
# development VM (the run of 2026-11-26 13:15 UTC: 141 s in all, 221 s summed over
# the 1010 tests, of which these 10 took 59 s, and fuzz.loaders.60s and install.deb, labelled
# in their own directories, 65 s). To re-measure: a full ctest, then the per-test times
# ("Test time") in build/Testing/Temporary/LastTest.log.
foreach(name IN ITEMS
    integration.EntryPatch.EveryFunctionOfPythonNumpyAndOpenBlasAtOnce
    integration.Mpi.TheReaderYieldsTheCoresToTheRanks
    integration.Selftest.QuickThroughEmulationPasses
    integration.PreloadEmul.ColdCachesAtEachOutermostAgentEntry
    integration.Survey.NumpyMatmulTopFunctionIsTheOpenBlasKernel
    integration.EmulVolume.AStarvedReaderIsWaitedFor
    integration.RunAttach.RepeatedDetachFromBusyThreadsHarmsNothing
    integration.RealPrograms.ProbingAnInlinedCopyCostsAtMostThreeTimesTheBareRun
    integration.RealPrograms.ScipySolveCallsDgetrf
    integration.EmulVolume.AMillionCallsKeepTheTemporaryFilesUnderFiftyMegabytes
    # these two: measured on their own under the load of six builds on the 2-core VM, not in a full ctest
    integration.Survey.EmulatedTemplateProgramHasNoNegativeSelfAndReadsBack
    integration.Mpi.EmulatedRanksSayAnInternalFunctionIsFoundAndItsWUnknown)
  set_tests_properties(${name} PROPERTIES LABELS slow)
endforeach()

# Tests that compare a time under roofprof with the bare program's, measured in the same test: run
# alone (RUN_SERIAL), since a test beside them on the 2 cores slows one side and not the other
# (the survey's probe-cost decision in this one: a pair_force call measured at 3.5 us beside the
# numpy test instead of about 1.5 us, so that its probe no longer looked costly).
foreach(name IN ITEMS
    integration.ProbeCompensation.RegionsFromASurveyMeasureTheEnclosingRegionAsTheProgramDoes)
  set_tests_properties(${name} PROPERTIES RUN_SERIAL TRUE)
endforeach()
