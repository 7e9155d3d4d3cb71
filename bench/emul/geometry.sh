# Sourced by the emulation benches: the cache hierarchy roofprof simulates on this machine (sysfs,
# else CPUID; the last level's inclusion from CPUID), read from the result of a short run, so that
# cachegrind and the bare tool get the same geometry as `roofprof run --backend emul`.
#
#   simulated_geometry ROOFPROF LIBS TMPDIR   (LIBS: bench/emul/libs.c built)
#
# sets d1 and ll (cachegrind's --D1 and --LL: L1 and the last level, "size,ways,line"), last
# ("inclusive" or "victim": the tool's --cache-last) and levels (an array of the tool's
# --cache-level=size,ways,line options, L1 first).
simulated_geometry() {
  local roof=$1 libs=$2 tmp=$3 out
  "$roof" run --backend emul -q -o "$tmp/geometry.json" --region fftw_execute -- "$libs" fftw 64 1 >/dev/null 2>&1
  out=$(/usr/bin/python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["simulated_caches"]
f = lambda l: "%d,%d,%d" % (l["size"], l["ways"], l["line"])
last = "inclusive" if c[-1]["inclusive"] in (True, None) else "victim"
print(f(c[0]), f(c[-1]), last, " ".join("--cache-level=" + f(l) for l in c))
' "$tmp/geometry.json")
  read -r d1 ll last levels_text <<<"$out"
  read -r -a levels <<<"$levels_text"
}
