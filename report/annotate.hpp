#pragma once
// roofprof annotate: a function region's instructions with the counts of the emulated run
// (run --annotate), by source line (DWARF) with their disassembly (Capstone), as perf annotate
// and cg_annotate show costs per line: W, flops by vector width, L1 bytes read and written,
// executions.
#include <string>

#include "result/result.hpp"

namespace roofprof::report {

struct AnnotateOptions {
  bool att = false;  // AT&T syntax (default: Intel)
};

// The annotation of region `name` of `run` (a result file's name `file`, for messages). Throws
// UserError when there is no such region or it has no counts per instruction.
std::string render_annotation(const result::Run& run, const std::string& file, const std::string& name,
                              const AnnotateOptions& options);

// The same for the HTML report: a <section> with the table, each row's first cell shaded by its
// share of the region's W, its heading prefixed by `label` when not empty (the file, when the
// report has several). `region` must have an annotation.
std::string annotation_html(const result::Region& region, const AnnotateOptions& options,
                            const std::string& label = "");

}  // namespace roofprof::report
