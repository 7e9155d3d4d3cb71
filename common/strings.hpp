#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace roofprof {
// Shell-style glob (*, ?, [...]) over the whole string.
bool glob_match(std::string_view pattern, std::string_view text);
bool has_glob_chars(std::string_view s);
// The last component of a path ("libc.so.6" for "/lib/x86_64-linux-gnu/libc.so.6").
std::string_view path_basename(std::string_view path);
// `s` with control characters (C0 but tab, DEL, and the C1 range U+0080..U+009F in UTF-8)
// written as "\xNN" text: safe to print to a terminal.
std::string sanitize_for_terminal(std::string_view s);
// Edit distance, for "did you mean" lists.
size_t edit_distance(std::string_view a, std::string_view b);
// The `count` candidates closest to `word` (ties broken alphabetically, duplicates removed).
std::vector<std::string> closest(std::string_view word, const std::vector<std::string>& candidates,
                                 size_t count = 5);
// `s` as a message shows it: at most `max` bytes (whole UTF-8 characters), the rest replaced by
// "... (N bytes)" with the full size, so that a name read from a file or the command line
// cannot make an error message megabytes long.
inline constexpr size_t kMessageNameBytes = 200;
std::string shorten_for_message(std::string_view s, size_t max = kMessageNameBytes);
// `message` with every word (run of non-spaces) longer than `max` shortened so (long paths
// stay whole): what the CLI
// prints for an error, whatever name from a file or the command line the message carries.
std::string shorten_long_words(std::string_view message, size_t max = 1000);
}  // namespace roofprof
