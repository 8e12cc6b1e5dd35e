//===- test/conformance/KernelHarness.h - whole-kernel conformance cases -*- C++ -*-===//
//
// Warp and memory instructions are not one thread per input: their results depend on the other
// lanes of the warp, the other work-items of the block or the whole launch. A kernel case is a
// whole PTX kernel, its launch geometry, its device buffers (initial contents) and a check that
// computes the expected contents of the buffers from the whole launch's inputs (a C++ reference
// written from the PTX ISA text) and compares them with what the kernel left there.
//
// "{K}" in a case's module-scope text and body becomes the kernel's name, so that module-scope
// variables of the cases of one family (one module) do not clash.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Harness.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace conformance {

using Words = std::vector<uint32_t>;
/// Expected words; nothing where PTX leaves the word unspecified (only the run must finish).
using Expected = std::vector<std::optional<uint32_t>>;

struct Dims {
  uint32_t X = 1, Y = 1, Z = 1;
};

/// A launch argument: a buffer's device address (Buffer >= 0) or the bytes of a value.
struct Arg {
  int Buffer = -1;
  std::vector<uint8_t> Bytes;
};

struct KernelCase {
  std::string Name;       ///< unique in its family
  std::string Globals;    ///< module-scope declarations ("{K}" is the kernel's name)
  std::string Params;     ///< the parameter list; empty: ".param .u64 buf0, buf1, ..."
  std::vector<Arg> Args;  ///< with Params; empty: every buffer in order
  std::string Directives; ///< between the parameters and the body (.reqntid, .maxntid)
  std::string Body;       ///< declarations and instructions ("{K}" is the kernel's name)
  Dims Grid, Block;
  uint32_t DynamicSharedBytes = 0;
  std::vector<Words> Buffers; ///< initial contents
  /// Fills in the words of the initial contents that depend on where the buffers lie (texture
  /// and surface objects hold addresses) for \p Target; returns why it cannot, or empty.
  std::function<std::string(const std::string &Target, const std::vector<uint64_t> &Addresses,
                            std::vector<Words> &Buffers)>
      Place;
  /// Compares the buffers after the launch (\p Out) with the reference computed from their
  /// initial contents (\p In); returns the mismatches as text, empty when they agree.
  std::function<std::string(const std::vector<Words> &In, const std::vector<Words> &Out)> Check;
};

struct KernelFamily {
  std::string Name;
  std::vector<KernelCase> Cases;
};

/// Runs every case of \p F on \p Target through the host backend (one module per family).
/// FamilyResult::Inputs counts the work-items launched.
FamilyResult runKernelFamily(const KernelFamily &F, const std::string &Target, const Options &O,
                             const std::vector<KnownFailure> &Known);

/// Compares \p Got with \p Want word by word; \p Describe names a word's index in a report
/// (its lane, warp, inputs). Returns the first \p Shown mismatches and their count, or empty.
std::string compareWords(const std::string &What, const Expected &Want, const Words &Got,
                         const std::function<std::string(size_t)> &Describe = {},
                         unsigned Shown = 3);

/// The first \p Count words of a reproducible random stream for \p Seed.
Words randomWords(size_t Count, uint64_t Seed);

} // namespace conformance
