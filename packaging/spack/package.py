# Spack recipe for roofprof (docs/install.md). Copy it into a Spack repository
# (`spack repo create`, then packages/roofprof/package.py). roofprof has no public repository yet:
# build a checkout with `spack dev-build roofprof@main` run in it, or point `git` at your mirror.
from spack.package import *


class Roofprof(CMakePackage):
    """Roofline profiler for unmodified Linux binaries: measures the work, traffic and time of
    functions of a running program (ptrace, an in-process agent, perf events, a Valgrind tool)."""

    homepage = "https://example.invalid/roofprof"  # no public home yet
    git = "https://example.invalid/roofprof.git"  # your site's mirror of the repository

    version("main", branch="main")

    variant("tests", default=False,
            description="build the test suite and benchmarks (GoogleTest, Open MPI, OpenBLAS)")
    variant("test_seams", default=False,
            description="honour ROOFPROF_SCRIPTED_PMU and ROOFPROF_HOST_CACHES (test seams)")

    conflicts("platform=darwin", msg="roofprof uses ptrace, perf_event_open and /proc: Linux only")
    conflicts("target=aarch64:", msg="the agent and the Valgrind tool are x86-64 only")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")

    depends_on("elfutils")            # libdw, libelf
    depends_on("capstone")
    depends_on("libunwind")           # libunwind-ptrace
    depends_on("fmt")
    depends_on("nlohmann-json", type="build")
    depends_on("cli11", type="build")
    depends_on("libpfm4")
    # The emulation backend's tool is built against the engine's headers and static core and runs
    # only under that engine's launcher.
    depends_on("valgrind@3.24:")

    with when("+tests"):
        depends_on("googletest", type="build")
        depends_on("mpi")
        depends_on("openblas")
        depends_on("fftw")

    def cmake_args(self):
        vg = self.spec["valgrind"].prefix
        return [
            self.define_from_variant("ROOFPROF_TESTS", "tests"),
            self.define_from_variant("ROOFPROF_TEST_SEAMS", "test_seams"),
            # Spack's valgrind is a dependency: the install does not carry a copy of it.
            self.define("ROOFPROF_BUNDLE_VALGRIND", False),
            self.define("VALGRIND_EXECUTABLE", join_path(vg.bin, "valgrind")),
            self.define("VALGRIND_INCLUDE_DIR", join_path(vg.include, "valgrind")),
            self.define("VALGRIND_STATIC_DIR", join_path(vg.lib, "valgrind")),
            self.define("VALGRIND_LIBEXEC_DIR", join_path(vg.libexec, "valgrind")),
        ]
