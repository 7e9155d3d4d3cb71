"""packaging/spack/package.py parses and, run against a stand-in for spack.package,
declares a CMakePackage with the dependencies roofprof builds against (CMakeLists.txt) and
the variants that switch its CMake options.
Usage: check_spack_recipe.py PACKAGE_PY [CMAKE_FILES...]"""
import ast
import sys
import types

path = sys.argv[1]
source = open(path).read()
ast.parse(source, path)  # SyntaxError: the test fails

declared = {"depends_on": [], "variant": [], "version": [], "conflicts": []}


def recorder(kind):
    def record(*args, **kwargs):
        declared[kind].append((args, kwargs))
    return record


class When:
    def __init__(self, *args):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class CMakePackage:
    def define(self, name, value):
        return f"-D{name}={value}"

    def define_from_variant(self, name, variant):
        return f"-D{name}=<{variant}>"


package = types.ModuleType("spack.package")
for kind in declared:
    setattr(package, kind, recorder(kind))
package.CMakePackage = CMakePackage
package.when = When
package.join_path = lambda *parts: "/".join(parts)
package.__all__ = [n for n in vars(package) if not n.startswith("_")]
sys.modules["spack"] = types.ModuleType("spack")
sys.modules["spack.package"] = package
namespace = {}
exec(compile(source, path, "exec"), namespace)

cls = namespace.get("Roofprof")
assert cls and issubclass(cls, CMakePackage), "no class Roofprof(CMakePackage)"
deps = {args[0].split("@")[0].split("+")[0] for args, _ in declared["depends_on"]}
needed = {"cmake", "pkgconfig", "elfutils", "capstone", "libunwind", "fmt", "nlohmann-json", "cli11",
          "libpfm4", "valgrind", "googletest", "mpi", "openblas"}
missing = needed - deps
assert not missing, f"depends_on missing: {sorted(missing)}"
assert any(a[0].startswith("valgrind@3.24") for a, _ in declared["depends_on"]), "valgrind@3.24: needed"
variants = {args[0] for args, _ in declared["variant"]}
assert {"tests", "test_seams"} <= variants, f"variants: {sorted(variants)}"


prefix = types.SimpleNamespace(bin="/vg/bin", include="/vg/include", lib="/vg/lib", libexec="/vg/libexec")
pkg = cls.__new__(cls)
pkg.spec = {"valgrind": types.SimpleNamespace(prefix=prefix)}
args = pkg.cmake_args()
for option in ("ROOFPROF_TESTS", "ROOFPROF_TEST_SEAMS", "ROOFPROF_BUNDLE_VALGRIND", "VALGRIND_STATIC_DIR"):
    assert any(a.startswith(f"-D{option}=") for a in args), f"cmake_args lacks {option}: {args}"
# Every -D the recipe sets is an option or cache variable of the CMake project.
cmake_text = "".join(open(f).read() for f in sys.argv[2:]) if len(sys.argv) > 2 else ""
for a in args:
    name = a[2:].split("=")[0]
    assert not cmake_text or name in cmake_text, f"{name} is not a CMake variable of roofprof"
print(f"spack recipe: {len(deps)} dependencies, variants {sorted(variants)}, {len(args)} CMake options")
