//===- fatbin_fuzz.cpp - libFuzzer target for the fatbin reader -----------===//
//
// Build: configure with -DPTX2AMD_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-22,
// then `ninja fatbin_fuzz`. Run e.g.
//   fatbin_fuzz -max_len=65536 -rss_limit_mb=2048 CORPUS_DIR
// Crashing inputs belong in test/unit/fatbin/regress/ (read by fatbin_tests).
//
//===----------------------------------------------------------------------===//
#include "FuzzBody.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  volatile uint64_t Sink = fbtest::exerciseFatbinInput(Data, Size);
  (void)Sink;
  return 0;
}
