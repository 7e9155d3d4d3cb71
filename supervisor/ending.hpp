#pragma once
// How a run of a program ended, and so how roofprof ends: the one place where "128 + the
// signal" (as a shell gives the status of a program a signal ended) is worked out.
#include <optional>
#include <string>

namespace roofprof::supervisor {

struct Ending {
  std::optional<int> exit_status;  // the program exited with this code
  std::optional<int> term_signal;  // a signal killed the program
  // A request to roofprof (supervisor/signals.hpp) ended the run before the program ended on
  // its own: its signal (0: none).
  int request_signal = 0;

  static Ending exited(int code) { return Ending{code, std::nullopt, 0}; }
  static Ending killed(int signal) { return Ending{std::nullopt, signal, 0}; }
  static Ending requested(int signal) { return Ending{std::nullopt, std::nullopt, signal}; }
  // The status waitpid() gave for an ended program (neither exited nor killed: nothing known).
  static Ending of_wait_status(int status);
  // The same ending, cut short by a request to roofprof with `signal` (0: not cut short).
  Ending cut_short_by(int signal) const { return Ending{exit_status, term_signal, signal}; }

  // roofprof's exit status: 128 + the request's signal, else 128 + the signal that killed the
  // program, else the program's exit code (0 when nothing is known of it).
  int exit_code() const;
  bool operator==(const Ending&) const = default;
};

// "SIGSEGV" for 11; "signal N" for a signal without a name (the real-time ones).
std::string signal_name(int sig);

}  // namespace roofprof::supervisor
