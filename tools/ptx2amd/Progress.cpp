#include "Progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace ptx2amd::tool {
namespace {

std::string duration(double Seconds) {
  const long S = long(Seconds + 0.5);
  return S >= 3600 ? fmt::format("{}h{:02}m", S / 3600, S % 3600 / 60)
                   : fmt::format("{}m{:02}s", S / 60, S % 60);
}

} // namespace

Progress::Progress(std::string What, std::string Label, size_t Total, std::string Unit,
                   bool Verbose)
    : What(std::move(What)), Label(std::move(Label)), Unit(std::move(Unit)), Total(Total),
      Terminal(isatty(STDERR_FILENO)), Verbose(Verbose), Start(std::chrono::steady_clock::now()) {}

void Progress::update(size_t Done, size_t Worked, const std::string &Detail) {
  const double Elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  const bool Last = Done >= Total;
  const size_t Tenths = Done * 10 / std::max<size_t>(Total, 1);
  if (Elapsed < 1 && Drawn < 0)
    return;
  if (Terminal) {
    if (!Last && Elapsed - Drawn < 0.2)
      return;
    Drawn = Elapsed;
  } else if (!Verbose || Tenths == Tenth) {
    return;
  } else {
    Drawn = Elapsed;
  }
  Tenth = Tenths;
  const double Rate = Worked / std::max(Elapsed, 1e-3);
  const size_t Left = Total > Done ? Total - Done : 0;
  const std::string Eta = Worked && Left ? fmt::format(", {} left", duration(Left / Rate)) : "";
  constexpr size_t Width = 24;
  const size_t Filled = std::min(Width, Width * Done / std::max<size_t>(Total, 1));
  const std::string Line =
      fmt::format("ptx2amd {}: {} [{}{}] {}/{} {}{}, {:.1f}/s{}", What, Label,
                  std::string(Filled, '='), std::string(Width - Filled, ' '), Done, Total, Unit,
                  Detail.empty() ? "" : " (" + Detail + ")", Rate, Eta);
  if (Terminal)
    std::fprintf(stderr, "\r%s\033[K%s", Line.c_str(), Last ? "\n" : "");
  else
    std::fprintf(stderr, "%s\n", Line.c_str());
}

void Progress::clear() {
  if (Terminal && Drawn >= 0) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
}

} // namespace ptx2amd::tool
