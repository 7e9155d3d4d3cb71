// roofprof report RESULT...: the per-region table of each result file.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "report/summary.hpp"
#include "result/result.hpp"

namespace roofprof::cli {

namespace {

struct ReportOptions {
  std::vector<std::string> files;
  report::TableOptions table;
};

int run(const ReportOptions& o) {
  // Read everything first: a bad file stops the command before any table is printed.
  std::vector<result::Run> runs;
  for (const auto& f : o.files) runs.push_back(result::read_file(f));
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs.size() > 1) std::printf("%s== %s\n", i ? "\n" : "", o.files[i].c_str());
    report::print_table(runs[i], stdout, o.table);
  }
  return 0;
}

}  // namespace

Runner setup_report(CLI::App& sub) {
  auto o = std::make_shared<ReportOptions>();
  sub.add_option("results", o->files, "result files written by roofprof run (-o)")->required();
  sub.add_option("--level", o->table.level, "memory level of the bytes and intensity columns")
      ->check(CLI::IsMember({"L1", "L2", "L3", "DRAM"}))
      ->capture_default_str();
  return [o] { return run(*o); };
}

}  // namespace roofprof::cli
