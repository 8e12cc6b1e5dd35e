// The progress line of long commands (`aot`, `check` over a library): on a terminal one line on
// standard error, redrawn in place at most five times a second; elsewhere, when Verbose (at
// PTX2AMD_LOG=info), a line at each tenth of the way; otherwise nothing. Work done within a
// second shows no line.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace ptx2amd::tool {

class Progress {
public:
  /// \p What is the command ("aot"), \p Label what it works on, \p Unit what Total counts.
  Progress(std::string What, std::string Label, size_t Total, std::string Unit, bool Verbose);
  /// \p Done of Total are done; \p Worked of them were real work (the rate and the time left
  /// are of those: cache hits are not), \p Detail goes in parentheses.
  void update(size_t Done, size_t Worked, const std::string &Detail = "");
  /// Clears the line on a terminal, before other output (the next update draws it again).
  void clear();

private:
  std::string What, Label, Unit;
  size_t Total;
  bool Terminal, Verbose;
  std::chrono::steady_clock::time_point Start;
  double Drawn = -1;
  size_t Tenth = 0;
};

} // namespace ptx2amd::tool
