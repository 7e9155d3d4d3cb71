// The HTML report in a real browser: headless Chromium renders it offline (network disabled)
// and the screenshot must show the plot: not blank, with pixels of the points' colours.
#include "harness.hpp"

namespace it {
namespace {

// PNG (8-bit RGB or RGBA, not interlaced) -> counts of pixels, decoded with python3's zlib.
const char* kPngStats = R"PY(
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    pos += 12 + n
    if kind == b"IHDR":
        w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, i = bytearray(stride), 0
colours = {"red": (214, 39, 40), "blue": (31, 119, 180)}
count = {"pixels": w * h, "nonwhite": 0, "red": 0, "blue": 0}
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        px = line[x:x + 3]
        if min(px) < 235: count["nonwhite"] += 1
        for name, (r, g, bl) in colours.items():
            if abs(px[0] - r) < 25 and abs(px[1] - g) < 25 and abs(px[2] - bl) < 25:
                count[name] += 1
    prev = line
for k, v in sorted(count.items()): print(k, v)
)PY";

TEST(ReportChromium, HtmlRendersThePlotOffline) {
  const std::string chromium = "/usr/bin/chromium";
  ASSERT_TRUE(fs::exists(chromium))
      << "headless Chromium is needed (Debian packages chromium, chromium-driver; "
         "scripts/install-deps.sh installs them)";
  Sandbox sb;
  auto r = sb.roofprof({"report", source_path("tests/fixtures/report/kernels.json"),
                        "--ceilings", source_path("tests/fixtures/report/ceilings.json"),
                        "--html", "k.html", "--no-plot"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  RunOptions ro;
  ro.timeout = 60s;
  ro.env["HOME"] = sb.path("home").string();
  auto shot = sb.run({chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                      "--no-first-run", "--disable-background-networking",
                      "--disable-component-update", "--disable-sync",
                      "--user-data-dir=" + sb.path("chromium-profile").string(),
                      "--window-size=940,700", "--screenshot=" + sb.path("k.png").string(),
                      "file://" + sb.path("k.html").string()},
                     ro);
  ASSERT_TRUE(fs::exists(sb.path("k.png"))) << shot.diag();
  write_text(sb.path("png_stats.py"), kPngStats);
  auto stats = sb.run({"/usr/bin/python3", sb.path("png_stats.py").string(),
                       sb.path("k.png").string()});
  ASSERT_EQ(stats.exit_code(), 0) << stats.diag();
  std::map<std::string, long> c;
  std::istringstream in(stats.out);
  std::string k;
  long v;
  while (in >> k >> v) c[k] = v;
  ASSERT_GT(c["pixels"], 0) << stats.out;
  // Not blank: axes, roofs, text and the table cover a few percent of the page.
  EXPECT_GT(c["nonwhite"], c["pixels"] / 50) << stats.out;
  // The points: the first series is red (stencil3d), the second blue (dgemv_); a marker of
  // radius 4.5 px covers about 60 pixels.
  EXPECT_GT(c["red"], 40) << stats.out;
  EXPECT_GT(c["blue"], 40) << stats.out;
}

}  // namespace
}  // namespace it
