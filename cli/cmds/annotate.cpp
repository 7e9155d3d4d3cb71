// roofprof annotate RESULT REGION: a function region's source lines and instructions with the
// counts of the emulated run (run --annotate), report/annotate.hpp.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "report/annotate.hpp"
#include "result/result.hpp"

namespace roofprof::cli {

namespace {

struct AnnotateOptions {
  std::string file, region;
  std::string syntax = "intel";
};

}  // namespace

Runner setup_annotate(CLI::App& sub) {
  auto o = std::make_shared<AnnotateOptions>();
  sub.add_option("RESULT", o->file, "result file of roofprof run --annotate")->required();
  sub.add_option("REGION", o->region, "a function region of that file")->required();
  sub.add_option("--syntax", o->syntax, "assembly syntax: intel or att")->check(CLI::IsMember({"intel", "att"}));
  return [o] {
    const result::Run run = result::read_files({o->file}).at(0);
    const std::string text = report::render_annotation(run, o->file, o->region, {o->syntax == "att"});
    std::fputs(text.c_str(), stdout);
    return 0;
  };
}

}  // namespace roofprof::cli
