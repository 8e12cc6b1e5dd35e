//===- FuzzBody.h - what the fuzzer and the regression test run -*- C++ -*-===//
//
// Parses one input and touches everything the reader offers: entries, every
// payload, PTX text, module selection. Errors are expected; crashes, hangs
// and sanitizer reports are not.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx2amd/fatbin/Fatbin.h"
#include "ptx2amd/fatbin/Select.h"

#include "llvm/Support/MemoryBufferRef.h"

#include <cstddef>
#include <cstdint>

namespace fbtest {

/// Returns a checksum so that the work cannot be optimised away.
inline uint64_t exerciseFatbinInput(const uint8_t *Data, size_t Size) {
  using namespace ptx2amd::fatbin;
  uint64_t Sum = 0;
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<Fatbin> F = Fatbin::parse(llvm::MemoryBufferRef(Bytes, "fuzz-input"));
  if (!F) {
    Sum += llvm::toString(F.takeError()).size();
    return Sum;
  }
  for (const Entry &E : F->entries()) {
    Sum += E.Arch + E.Identifier.size() + E.Options.size() + E.archName().size();
    llvm::Expected<Payload> P = F->payload(E);
    if (P) {
      for (size_t I = 0; I < P->size(); I += 4096)
        Sum += P->bytes()[I];
    } else {
      Sum += llvm::toString(P.takeError()).size();
    }
    if (E.Kind == EntryKind::PTX) {
      llvm::Expected<Payload> T = F->ptx(E);
      if (T)
        Sum += T->text().size();
      else
        llvm::consumeError(T.takeError());
    }
  }
  for (const Container &C : F->containers()) {
    llvm::Expected<const Entry *> S = selectPTX(F->entries(C), SelectionPolicy::highest(), "c");
    if (S)
      Sum += (*S)->Arch;
    else
      llvm::consumeError(S.takeError());
  }
  for (const Module &M : F->modules()) {
    llvm::Expected<ModuleSelection> S = selectForModule(*F, M, SelectionPolicy::atMost(90));
    if (S)
      Sum += S->PTX.size();
    else
      llvm::consumeError(S.takeError());
  }
  return Sum;
}

} // namespace fbtest
